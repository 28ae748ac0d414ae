//===- KernelDefs.cpp - Finding and describing operator kernels -----------===//
//
// describeKernel turns a typed call into a KernelSpec (flattened static
// tensor types of operands and results, attribute access with defaults);
// lookupKernelGenerator finds an operator's generator in the family tables,
// indexed once in a function-local immutable map.
//
//===----------------------------------------------------------------------===//

#include "Ops/OpKernels.h"
#include "hx/CodeGen/KernelBuilder.h"
#include "hx/IR/Printer.h"
#include "hx/IR/Walk.h"
#include "hx/Ops/OpRegistry.h"
#include "hx/Ops/ShapeUtils.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

using namespace llvm;

namespace hx {

//===----------------------------------------------------------------------===//
// KernelSpec attributes
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// describeKernel
//===----------------------------------------------------------------------===//

/// The dtypes KernelBuilder loads, computes and stores (every DType: the
/// operators' own dtype sets say which each takes).
static bool isCodeGenDType(DType t) {
  switch (t) {
  case DType::Bool:
  case DType::Int8:
  case DType::Int16:
  case DType::Int32:
  case DType::Int64:
  case DType::UInt8:
  case DType::UInt16:
  case DType::UInt32:
  case DType::UInt64:
  case DType::Float16:
  case DType::Float32:
  case DType::Float64:
  case DType::BFloat16:
    return true;
  }
  return false;
}

static Error flattenTensors(StringRef op, StringRef what, const Type *t,
                            SmallVectorImpl<const TensorType *> &out) {
  if (!t)
    return createStringError(op + ": the " + what +
                             " has no type (run InferType before code generation)");
  if (const auto *tuple = dyn_cast<TupleType>(t)) {
    for (const TypeRef &f : tuple->fields)
      if (Error e = flattenTensors(op, what, f.get(), out))
        return e;
    return Error::success();
  }
  const auto *tensor = dyn_cast<TensorType>(t);
  if (!tensor)
    return createStringError(op + ": the " + what + " has type " + typeToString(t) +
                             ", not a tensor or a tuple of tensors");
  if (!tensor->isStatic())
    return createStringError(op + ": the " + what + " has the dynamic shape " +
                             shapeToString(tensor->shape) + "; kernels need static shapes");
  if (!isCodeGenDType(tensor->dtype))
    return createStringError(op + ": dtype " + dtypeName(tensor->dtype) +
                             " is not supported by the code generators");
  out.push_back(tensor);
  return Error::success();
}

Expected<KernelSpec> describeKernel(const Call &call) {
  if (isFusedCall(call))
    return describeFusedKernel(call);
  const Op *op = call.getOp();
  if (!op)
    return createStringError("the callee of a kernel call must be an operator");
  const OpDef *def = op->def ? op->def : lookupOp(op->name);
  if (!def)
    return createStringError("unknown operator '" + op->name + "'");
  KernelSpec spec;
  spec.call = &call;
  spec.def = def;
  for (unsigned i = 0; i < call.args.size(); ++i)
    if (Error e = flattenTensors(def->name, "operand " + std::to_string(i),
                                 call.args[i]->checkedType.get(), spec.inputs))
      return e;
  if (Error e = flattenTensors(def->name, "result", call.checkedType.get(), spec.outputs))
    return e;
  return spec;
}

//===----------------------------------------------------------------------===//
// The generator table
//===----------------------------------------------------------------------===//

namespace {
struct KernelTable {
  StringMap<KernelGenerator> index;
  KernelTable() {
    for (ArrayRef<KernelEntry> family :
         {elementwiseKernels(), reduceKernels(), transformKernels(), nnKernels(), convPoolKernels(),
          resizeKernels(), sortKernels()})
      for (const KernelEntry &e : family)
        index[e.opName] = e.generate;
  }
};
} // namespace

KernelGenerator lookupKernelGenerator(StringRef opName) {
  static const KernelTable table;
  auto it = table.index.find(opName);
  return it == table.index.end() ? nullptr : it->second;
}

Error emitKernel(KernelBuilder &kb, const KernelSpec &spec) {
  if (spec.fused)
    return emitFusedKernel(kb, spec);
  KernelGenerator gen = lookupKernelGenerator(spec.opName());
  if (!gen)
    return createStringError(spec.opName() + ": no kernel definition (the " + kb.targetName() +
                             " code generator cannot compile this operator)");
  // Kernel definitions index operands and results by position: check the
  // counts once here (InferType guarantees them for checked calls).
  bool arityOk =
      spec.def->takesTuple ? !spec.inputs.empty() : spec.inputs.size() == spec.def->numArgs;
  if (!arityOk || spec.outputs.empty())
    return unsupported(kb, spec,
                       "a call with " + Twine(spec.inputs.size()) + " operand tensors and " +
                           Twine(spec.outputs.size()) + " results");
  return gen(kb, spec);
}

Error unsupported(const KernelBuilder &kb, const KernelSpec &spec, const Twine &what) {
  return createStringError(spec.opName() + ": " + what + " is not supported by the " +
                           kb.targetName() + " code generator");
}

const TensorData *buildTimeOperand(const KernelSpec &spec, unsigned i) {
  return buildTimeOperand(*spec.call, i,
                          i < spec.operandSources.size() ? spec.operandSources[i] : nullptr);
}

/// An nn.conv2d that keeps its map (stride 1; a 1x1 kernel over at most 256
/// pixels, up to 3x3 over at most 1024) with at least 16 output channels
/// per group: the cpu's kernel for it packs its weights into its code
/// (channels in the lanes, where the map's rows are too narrow to fill
/// them).
static bool convOverSmallMap(const Call &call) {
  if (!call.isOp("nn.conv2d") || call.args.size() != 2)
    return false;
  auto *in = dyn_cast_or_null<TensorType>(call.args[0]->checkedType.get());
  auto *wt = dyn_cast_or_null<TensorType>(call.args[1]->checkedType.get());
  auto *out = dyn_cast_or_null<TensorType>(call.checkedType.get());
  if (!in || !wt || !out || in->rank() != 4 || wt->rank() != 4 || out->rank() != 4)
    return false;
  // A group's output channels fill a vector (16), or the kernel has no use
  // for the weights (depthwise convolutions keep sharing their kernels).
  int64_t groups = wt->shape[1] > 0 ? in->shape[1] / wt->shape[1] : 0;
  if (groups < 1 || wt->shape[0] / groups < 16)
    return false;
  int64_t pixels = out->shape[2] * out->shape[3];
  bool pointwise = wt->shape[2] == 1 && wt->shape[3] == 1 && pixels <= 256;
  bool small = wt->shape[2] <= 3 && wt->shape[3] <= 3 && pixels <= 1024;
  return (pointwise || small) && in->shape[2] == out->shape[2] && in->shape[3] == out->shape[3];
}

const TensorData *buildTimeOperand(const Call &call, unsigned i, const Expr *arg) {
  if (!(call.isOp("nn.dense") || convOverSmallMap(call)) || i != 1 || i >= call.args.size())
    return nullptr;
  if (!arg)
    arg = call.args[i].get();
  if (auto *c = dyn_cast<Call>(arg); c && c->isOp("on_device") && !c->args.empty())
    arg = c->args[0].get();
  auto *k = dyn_cast<Constant>(arg);
  return k && k->isTensor() ? k->tensor.get() : nullptr;
}

std::optional<double> specializedLiteral(const Call &call, unsigned i) {
  if (!call.isOp("power") || i != 1 || i >= call.args.size())
    return std::nullopt;
  auto *k = dyn_cast<Constant>(call.args[i].get());
  if (!k || k->isTensor() || !isFloat(k->dtype))
    return std::nullopt;
  return k->floatValue;
}

std::string kernelSignature(const Call &call, bool withBuildTimeOperands) {
  if (isFusedCall(call))
    return fusedKernelSignature(call, withBuildTimeOperands);
  std::string sig;
  raw_string_ostream os(sig);
  const Op *op = call.getOp();
  const OpDef *def = op ? (op->def ? op->def : lookupOp(op->name)) : nullptr;
  os << (op ? StringRef(op->name) : StringRef("<not an operator>")) << '(';
  if (def) {
    bool first = true;
    for (const AttrSpec &spec : def->attrs) {
      AttrValue v = getAttrOrDefault(call, spec.name);
      if (v == spec.defaultValue)
        continue;
      os << (first ? "" : ", ") << spec.name << '=';
      printAttrValue(os, v);
      first = false;
    }
  }
  os << ')';
  auto printTy = [&](const Type *t) {
    if (t)
      printType(os, t);
    else
      os << '?';
  };
  for (const ExprRef &arg : call.args) {
    os << ' ';
    printTy(arg->checkedType.get());
  }
  os << " -> ";
  printTy(call.checkedType.get());
  for (unsigned i = 0; i < call.args.size(); ++i)
    if (std::optional<double> v = specializedLiteral(call, i))
      os << " #" << i << "=" << format("%.17g", *v);
  for (unsigned i = 0; withBuildTimeOperands && i < call.args.size(); ++i)
    if (const TensorData *t = buildTimeOperand(call, i))
      os << " $" << i << "=" << format_hex(xxh3_64bits(t->bytes), 18) << ':' << t->bytes.size();
  return sig;
}

Expected<KernelSpec> describeKernelFor(const Call &call, const TargetKindInfo &kind,
                                       StringRef targetName) {
  const Op *op = call.getOp();
  if (op && (op->name == kOnDevice || op->name == kDeviceCopy))
    return createStringError(op->name + ": device annotations are never kernels (the runtime "
                                        "copies or forwards their operand)");
  Expected<KernelSpec> spec = describeKernel(call);
  if (!spec)
    return spec.takeError();
  if (spec->fused) {
    for (const Call *c : primitiveCalls(*cast<Function>(call.callee.get())))
      if (Expected<KernelSpec> m = describeKernelFor(*c, kind, targetName); !m)
        return m.takeError();
    return spec;
  }
  if (!kind.supports(*spec->def) || !lookupKernelGenerator(spec->opName()))
    return createStringError(spec->opName() + ": the " + targetName +
                             " code generator has no kernel for this operator");
  return spec;
}

std::string kernelSymbol(unsigned id, StringRef op) {
  std::string s = "hx_k" + std::to_string(id) + "_";
  for (char c : op)
    s += isAlnum(c) ? c : '_';
  return s;
}

} // namespace hx
