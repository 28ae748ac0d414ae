//===- OnnxConverter.h - The converter table and what converters use -*- C++ -*-===//
//
// Private to lib/Import. A converter turns one ONNX node into hx calls:
//
//   Error relu(NodeCtx &ctx) {
//     ctx.setOutput(0, ctx.call("nn.relu", {ctx.use(0)}));
//     return Error::success();
//   }
//
// and is registered, as ONNX Runtime registers its kernels, for an op type
// and a range of opsets (those of the model's default domain, both ends
// included), in its family's file (OnnxElementwise.cpp, OnnxNn.cpp,
// OnnxConvPool.cpp, OnnxReduce.cpp, OnnxTransform.cpp, and OnnxLoss.cpp for
// the losses hx imports as compositions; the op types hx imports only folded
// in OnnxFold.cpp):
//
//   t.add("Softmax", {11, 12}, softmaxFlattened); // the input read as 2-D
//   t.add("Softmax", {13, 17}, softmax);
//
// An operator whose meaning or signature changed at some opset has one row
// per version that matters to hx, each converter free of opset tests. Rows
// end where hx has checked the operator: a row for opsets it has not been
// checked against would convert an operator ONNX has since changed, so
// raising kMaxOnnxOpset means reading each operator's changes and extending
// or adding its rows. A node whose op type has rows but none for the model's
// opset is refused, naming the opsets hx imports it at. Rows start at
// kMinConverterOpset at the earliest: older models reach the converters
// raised to it by onnx's version converter.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_IMPORT_ONNXCONVERTER_H
#define HX_LIB_IMPORT_ONNXCONVERTER_H

#include "OnnxImporter.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include <algorithm>
#include <string>
#include <vector>

namespace hx::onnximport {

/// The first opset the converters handle; models from kMinOnnxOpset up to
/// it are raised to it by onnx's version converter (OnnxImporter.cpp).
constexpr int64_t kMinConverterOpset = 11;

/// The model opsets a converter handles: since..until, both included.
struct OpsetRange {
  int64_t since, until;
  bool contains(int64_t opset) const { return since <= opset && opset <= until; }
};

struct ConverterRow {
  OpsetRange opsets;
  Converter convert;
};

/// The converters by op type and opset. Built once (converterTable()),
/// then only read.
class ConverterTable {
public:
  /// Registers `convert` for nodes of `opType` in models of `opsets`. The
  /// rows of one op type must not overlap.
  void add(llvm::StringRef opType, OpsetRange opsets, Converter convert);
  /// The row for a node of `opType` in a model of `opset`, or null.
  const ConverterRow *find(llvm::StringRef opType, int64_t opset) const;
  /// The rows of `opType` by opset (none when hx does not import it).
  llvm::ArrayRef<ConverterRow> rows(llvm::StringRef opType) const;
  /// Every op type with a row, sorted.
  std::vector<std::string> opTypes() const;

private:
  llvm::StringMap<std::vector<ConverterRow>> byOpType;
};

/// Every family's converters.
const ConverterTable &converterTable();

// The families (one file each), as lib/Ops names them.
void addElementwiseConverters(ConverterTable &t);
void addNnConverters(ConverterTable &t);
void addConvPoolConverters(ConverterTable &t);
void addReduceConverters(ConverterTable &t);
void addTransformConverters(ConverterTable &t);
void addRecurrentConverters(ConverterTable &t);
void addIndexingConverters(ConverterTable &t);
void addNormalizationConverters(ConverterTable &t);
void addControlFlowConverters(ConverterTable &t);
/// Value-dependent shapes: NonZero, Compress, NonMaxSuppression, and the
/// shape operators of a run-time shape (Shape, Size, ConstantOfShape,
/// Range).
void addDynamicConverters(ConverterTable &t);
/// Slice whose starts, ends, axes or steps only the run knows: dyn.slice.
llvm::Error dynamicSlice(NodeCtx &ctx);
/// The losses, compositions of hx operators (hx has no loss family).
void addLossConverters(ConverterTable &t);
/// Op types imported only when their value is known at import time.
void addFoldedOnlyConverters(ConverterTable &t);

// ---- what converters share ---------------------------------------------

/// Whether input i is a value only the run knows: computed by the graph from
/// run-time values (not a constant, not a graph input, whose value the run
/// may give at import time). A converter then builds the value-dependent
/// form (shape_of, dyn.*; lib/Import/OnnxDynamic.cpp) instead of refusing.
inline bool onlyRunKnows(const NodeCtx &ctx, size_t i) {
  const OnnxValue *v = ctx.input(i);
  return v && !v->constant && !ctx.imp.isGraphInput(ctx.node.input(i));
}

/// `TRY(x, ctx.required(0));` declares `x` as the value of an Expected,
/// returning its error from the converter.
#define TRY(decl, expr)                                                                            \
  auto decl##OrErr = (expr);                                                                       \
  if (!decl##OrErr)                                                                                \
    return decl##OrErr.takeError();                                                                \
  auto &decl = *decl##OrErr;

/// The rank of a value, -1 when shape inference gave none.
inline int64_t rankOf(const OnnxValue &v) { return v.dims ? int64_t(v.dims->size()) : -1; }
/// An error unless shape inference gave `v` a rank.
llvm::Error needRank(const NodeCtx &ctx, const OnnxValue &v, llvm::StringRef what);
/// A negative axis counted from the end.
inline int64_t normAxis(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }
/// The static shape shape inference gave output 0.
llvm::Expected<Dims> outputShape(const NodeCtx &ctx);
/// The static shape of input value `v` of rank `rank` (-1: any), or an
/// error naming it as `what`.
llvm::Expected<Dims> staticDims(const NodeCtx &ctx, const OnnxValue &v, int64_t rank,
                                llvm::StringRef what);

/// A window operator's kernel, strides, dilations and pads (the begins,
/// then the ends), from its attributes and auto_pad; 1-D to 3-D
/// (OnnxConvPool.cpp).
struct Window {
  std::vector<int64_t> kernel, strides, dilations, pads;
};
llvm::Expected<Window> readWindow(const NodeCtx &ctx, const OnnxValue &x,
                                  std::vector<int64_t> kernel);
/// 3-D Conv (with its bias, input 2) and MaxPool/AveragePool as 2-D ones
/// (OnnxConvPool3d.cpp).
llvm::Error conv3d(NodeCtx &ctx, OnnxValue &x, OnnxValue &w, const Window &win);
llvm::Error pool3d(NodeCtx &ctx, OnnxValue &x, const Window &win, bool isMax);

/// reshape(x, newshape=shape) and transpose(x, axes=perm).
ExprRef reshapeTo(const NodeCtx &ctx, ExprRef x, llvm::ArrayRef<int64_t> shape);
ExprRef transposeBy(const NodeCtx &ctx, ExprRef x, llvm::ArrayRef<int64_t> perm);
/// Zeros of `shape` without a constant of that size: a one-element zero
/// padded out to it (nn.pad).
ExprRef zerosOf(const NodeCtx &ctx, DType t, llvm::ArrayRef<int64_t> shape);

/// An hx operator's name as a template argument: `unary<"nn.relu">`, so a
/// converter shared by many op types is one row each.
template <size_t N> struct OpName {
  constexpr OpName(const char (&s)[N]) { std::copy_n(s, N, name); }
  char name[N];
};

/// Where an operator takes a list of integers (Squeeze's axes, Split's
/// sizes): an attribute, or an input known at import time (ONNX moved many
/// from the first to the second at opset 13 or 18).
enum class ListArg { Attribute, Input };
/// The list: attribute `name`, or input `input`; nullopt when absent.
template <ListArg From>
llvm::Expected<std::optional<std::vector<int64_t>>> listArg(const NodeCtx &ctx,
                                                            llvm::StringRef name, size_t input) {
  if constexpr (From == ListArg::Attribute)
    return ctx.getInts(name);
  else
    return ctx.constInts(input);
}

} // namespace hx::onnximport

#endif
