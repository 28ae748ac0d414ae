//===- MetadataReaders.h - Readers of the #[metadata] tables ----*- C++ -*-===//
//
// The metadata section is JSON parsed by the grammar, so every value keeps its
// location. Metadata.cpp reads hx's own tables (VirtualDevice, PassConfig);
// Constants.cpp reads hx's "relay.Constant" table; TVMMetadata.cpp reads the
// object graph TVM's `astext(show_meta_data=True)` writes. They share the
// small JSON accessors declared here.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_PARSER_METADATAREADERS_H
#define HX_LIB_PARSER_METADATAREADERS_H

#include "ParseTreeConverter.h"
#include <optional>

namespace hx {

struct JsonMember {
  HxToken *key;
  HxParser::JsonContext *value;
};
std::vector<JsonMember> membersOf(HxParser::JsonObjectContext *obj);
/// The member `key` of an object, or null.
HxParser::JsonContext *memberOf(HxParser::JsonObjectContext *obj, llvm::StringRef key);
/// "an object", "an array", "a string", ... for messages.
std::string describeJson(HxParser::JsonContext *ctx);
/// The decoded string, if `ctx` is a string.
std::optional<std::string> jsonString(HxParser::JsonContext *ctx);
/// The value, if `ctx` is a number written as an integer.
std::optional<int64_t> jsonInt(HxParser::JsonContext *ctx);
inline llvm::SMLoc locOf(HxParser::JsonContext *ctx) { return locOf(ctx->getStart()); }

/// A TVM or hx virtual-device entry converted to hx's form.
bool readVirtualDevice(HxParser::JsonContext *ctx, DiagEngine &diags, VirtualDevice &d);

/// hx's `"relay.Constant": [{"dtype", "shape", "data" | "npy"}, ...]`; `.npy`
/// paths are relative to `baseDir`, and looked up in `held` first.
bool readConstantTable(HxParser::JsonContext *ctx, DiagEngine &diags, llvm::StringRef baseDir,
                       const NpySources &held, std::vector<std::shared_ptr<const TensorData>> &out);

/// Whether a metadata object is TVM's object graph (`"root"` and `"nodes"`).
bool isTVMObjectGraph(HxParser::JsonObjectContext *obj);
/// Reads TVM's object graph: its VirtualDevice and relay.Constant arrays.
bool readTVMObjectGraph(HxParser::JsonObjectContext *obj, DiagEngine &diags,
                        std::vector<VirtualDevice> &devices,
                        std::vector<std::shared_ptr<const TensorData>> &constants);

/// TVM's NDArray serialization (`NDArray::Save`): magic, reserved, DLDevice,
/// ndim, DLDataType, shape, byte count, data. False with `err` set when the
/// bytes are not one well-formed array.
bool decodeTVMNDArray(llvm::StringRef bytes, TensorData &out, std::string &err);

} // namespace hx

#endif
