//===- Module.h - A module of global functions ------------------*- C++ -*-===//
#ifndef HX_IR_MODULE_H
#define HX_IR_MODULE_H

#include "hx/IR/Expr.h"
#include "hx/IR/VirtualDevice.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include <optional>
#include <string>
#include <vector>

namespace hx {

class Module {
public:
  struct Def {
    Ref<GlobalVar> global;
    Ref<Function> fn;
  };

  /// Definitions in input order.
  std::vector<Def> defs;

  /// The virtual-device table (`meta[VirtualDevice][i]`).
  std::vector<VirtualDevice> devices;
  /// `"PassConfig": {"relay.fallback_device_type": ...}`.
  std::optional<DeviceType> fallbackDeviceType;
  /// Other PassConfig entries and other metadata keys, in input order, kept
  /// so that printing preserves them.
  std::vector<std::pair<std::string, llvm::json::Value>> passConfigExtra;
  std::vector<std::pair<std::string, llvm::json::Value>> extraMetadata;

  /// How many expression nodes the parser built (0 for a module built in
  /// code): a size hint for passes that keep per-expression tables. Rewrites
  /// do not maintain it.
  size_t exprCountHint = 0;

  Function *lookup(llvm::StringRef name) const;
  const Def *lookupDef(llvm::StringRef name) const;
  /// The global for `@name`, creating it (unbound) if needed.
  Ref<GlobalVar> getGlobal(llvm::StringRef name, llvm::SMLoc loc = {});
  /// Appends a definition for `@name` (the global may already exist).
  void addDef(llvm::StringRef name, Ref<Function> fn, llvm::SMLoc loc = {});

  /// The unique operator node for `name`.
  Op *getOp(llvm::StringRef name);

  /// The index of an equal device in the table, appending it if absent.
  DeviceIndex addDevice(const VirtualDevice &d);
  /// The first device of the given type (virtual id 0 preferred), appending a
  /// default one if there is none.
  DeviceIndex deviceForType(DeviceType t);

private:
  llvm::StringMap<Ref<Op>> ops;
  llvm::StringMap<Ref<GlobalVar>> globals;
  llvm::StringMap<size_t> defIndex;
};

} // namespace hx

#endif
