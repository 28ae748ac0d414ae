//===- OnnxImporter.h - The state of one ONNX import ------------*- C++ -*-===//
//
// Private to lib/Import. The importer walks the graph's nodes in order (ONNX
// requires topological order) and keeps, for each ONNX value name, an
// OnnxValue: the hx expression that computes it, and/or the tensor itself
// when it is known at import time (an initializer, a Constant node, a
// folded shape computation). A constant becomes an hx expression (a
// constant-table entry) only when a call uses it.
//
// Converters build hx IR with an OpBuilder (hx/Ops/OpBuilder.h) whose
// location names their node (`onnx:<op type> <node name>`): @main is a
// module in memory, and its text is the printer's, each node's calls on
// one line that ends with the node's comment.
//
// OnnxImporter.cpp drives the import and prints the module;
// OnnxExternalData.cpp reads the tensors a model keeps in other files;
// OnnxValidate.cpp checks the model first; OnnxTensors.cpp reads tensors;
// OnnxAttributes.cpp a node's attributes; OnnxNode.cpp is what a converter
// sees of its node; OnnxConverter.h is the table of converters by op type
// and opset, filled by one file per family (OnnxElementwise.cpp, OnnxNn.cpp,
// OnnxConvPool.cpp, OnnxReduce.cpp, OnnxTransform.cpp, OnnxLoss.cpp);
// OnnxFold.cpp folds the shape computations; OnnxFiles.cpp reads model files
// for the tools.
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_IMPORT_ONNXIMPORTER_H
#define HX_LIB_IMPORT_ONNXIMPORTER_H

#include "hx/IR/Module.h"
#include "hx/Import/Onnx.h"
#include "hx/Ops/OpBuilder.h"
#include "hx/Support/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/SourceMgr.h"
#include <map>
#include <memory>
#include <onnx/onnx_pb.h>
#include <optional>
#include <set>

namespace hx::onnximport {

/// A shape whose rank is known; -1 marks a dim known only at run time.
using Dims = std::vector<int64_t>;

struct OnnxValue {
  /// The hx expression; null for a constant no call has used yet.
  ExprRef expr;
  /// The value, when known at import time.
  std::shared_ptr<const HostTensor> constant;
  DType dtype = DType::Float32;
  std::optional<Dims> dims;
  /// For a Shape of a value only the run fully knows: that value's dims (-1
  /// where unknown), so that a Gather of a known dim folds.
  std::optional<Dims> shapeOf;

  bool isStatic() const {
    return dims && llvm::all_of(*dims, [](int64_t d) { return d >= 0; });
  }
};

class Importer;

/// What a converter sees of one node: its inputs and attributes, a builder
/// of hx calls located at the node, and its outputs.
class NodeCtx {
public:
  NodeCtx(Importer &imp, const onnx::NodeProto &node);

  Importer &imp;
  const onnx::NodeProto &node;

  // ---- inputs (OnnxNode.cpp) ----------------------------------------------
  size_t numInputs() const { return node.input_size(); }
  /// Input i, or null when it is absent (past the end or named "").
  OnnxValue *input(size_t i) const;
  /// Input i, which must be present; the error names it.
  llvm::Expected<OnnxValue *> required(size_t i) const;
  /// Input i's value known at import time: a constant, or a graph input
  /// whose value the run gives (OnnxImportOptions::inputValue); null when
  /// absent. The error names the input and what to pass.
  llvm::Expected<const HostTensor *> known(size_t i) const;
  /// The same, null too when it is not known (an error only for a graph
  /// input value that cannot be read).
  llvm::Expected<const HostTensor *> knownIfAny(size_t i) const;
  /// Input i as integers known at import time (nullopt when absent).
  llvm::Expected<std::optional<std::vector<int64_t>>> constInts(size_t i) const;
  /// Input i's hx expression (a constant becomes a table entry).
  ExprRef use(size_t i) const;
  ExprRef use(OnnxValue &v) const;
  /// A tensor the converter makes (zeros, a scalar) as a table entry.
  ExprRef constant(HostTensor value) const;
  /// A scalar of `dtype` as a table entry.
  ExprRef scalar(DType dtype, double value) const;

  // ---- attributes (OnnxAttributes.cpp) ------------------------------------
  const onnx::AttributeProto *attr(llvm::StringRef name) const;
  int64_t getInt(llvm::StringRef name, int64_t def) const;
  float getFloat(llvm::StringRef name, float def) const;
  std::string getString(llvm::StringRef name, llvm::StringRef def) const;
  std::optional<std::vector<int64_t>> getInts(llvm::StringRef name) const;
  /// A graph attribute (If's branches); null when absent.
  const onnx::GraphProto *getGraph(llvm::StringRef name) const;

  // ---- building (OnnxNode.cpp) --------------------------------------------
  /// `op(args..., attrs...)`, located at the node.
  ExprRef call(llvm::StringRef op, llvm::ArrayRef<ExprRef> args, Attrs attrs = {}) const {
    return b.call(op, args, std::move(attrs));
  }
  ExprRef tuple(llvm::ArrayRef<ExprRef> fields) const { return b.tuple(fields); }
  ExprRef getItem(ExprRef t, unsigned i) const { return b.getItem(std::move(t), i); }
  /// `if (cond) { then } else { otherwise }`, located at the node.
  ExprRef ifExpr(ExprRef cond, ExprRef then, ExprRef otherwise) const;
  /// A call of the global @name, located at the node.
  ExprRef callGlobal(llvm::StringRef name, llvm::ArrayRef<ExprRef> args) const;

  // ---- outputs (OnnxNode.cpp) ---------------------------------------------
  /// Output i is computed by `e` (its type from shape inference).
  void setOutput(size_t i, ExprRef e) const;
  /// Output i is known at import time.
  void setConstant(size_t i, HostTensor value) const;
  /// Output i is input j unchanged.
  void alias(size_t i, const OnnxValue &v) const;

  /// The opset of the default domain.
  int64_t opset() const;
  /// An error naming the node: "node '/conv1/Conv' (Conv, opset 13): msg".
  llvm::Error error(const llvm::Twine &msg) const;
  /// Set when use(i) met an absent input (the error importNode reports).
  mutable std::string missing;

private:
  /// Builds at Loc(no position, the node).
  OpBuilder b;
};

/// Converts one node (the table of converters: OnnxConverter.h).
using Converter = llvm::Error (*)(NodeCtx &);
/// After a node's converter: when every input is known and small, what
/// the converter built is evaluated and the outputs become known values
/// (OnnxEvaluate.cpp).
llvm::Error evaluateKnown(NodeCtx &ctx);
/// Folds the node if it is a shape computation whose inputs are all known:
/// true when it did (OnnxFold.cpp).
llvm::Expected<bool> tryFold(NodeCtx &ctx);
/// Whether the op type is one tryFold folds.
bool isFoldable(llvm::StringRef opType);

/// The most elements a tensor the importer makes (a folded value, zeros for
/// a missing operand) may have: a malformed shape must not allocate the
/// machine away.
constexpr int64_t kMaxImportElements = int64_t(1) << 28;
/// The element count of a shape; -1 if a dim is negative or the count is
/// above kMaxImportElements.
int64_t elementCount(llvm::ArrayRef<int64_t> shape);

/// The checks of tensorFromProto that need no allocation: the dtype, the
/// dims, and data of the size they say. Returns the element count.
llvm::Expected<int64_t> checkTensorProto(const onnx::TensorProto &t);
/// A tensor from a TensorProto (raw_data or the typed fields).
llvm::Expected<HostTensor> tensorFromProto(const onnx::TensorProto &t);
std::optional<DType> dtypeFromOnnx(int elemType);
/// An ONNX element type by name ("float32", "string", "bfloat16"), for
/// messages.
std::string onnxTypeName(int elemType);
/// The integers of a tensor of an integer dtype.
std::vector<int64_t> tensorInts(const HostTensor &t);
HostTensor intTensor(llvm::ArrayRef<int64_t> values, DType dtype = DType::Int64,
                     std::optional<Dims> shape = std::nullopt);
/// `[1, 2, 3]`, for messages.
std::string listText(llvm::ArrayRef<int64_t> v);

/// How deeply If's branches may nest (each level a recursion of the
/// importer).
constexpr unsigned kMaxSubgraphDepth = 16;
/// What must hold before libonnx reads the model: every tensor's data fits
/// its dims, no subgraphs or sparse tensors, windows' strides, dilations
/// and kernel sizes positive (OnnxValidate.cpp).
llvm::Error checkBeforeOnnx(const onnx::ModelProto &model, llvm::StringRef fileName);
/// onnx::checker, then onnx::shape_inference (types of every value); for
/// an opset newer than the installed onnx's schemas, what of them applies.
llvm::Error checkWithOnnx(onnx::ModelProto &model, llvm::StringRef fileName);
/// The newest opset of the default domain the installed onnx has schemas
/// for (17 for onnx 1.12).
int64_t newestOnnxSchemaOpset();
/// Gives every tensor that keeps its data in another file (ONNX's external
/// data) its bytes as raw_data, from files inside `modelDir`; an empty
/// `modelDir` (a model read from standard input) refuses such tensors
/// (OnnxExternalData.cpp).
llvm::Error loadExternalData(onnx::ModelProto &model, llvm::StringRef modelDir,
                             llvm::StringRef fileName);
/// The opset of the default domain (0 if the model imports none).
int64_t modelOpset(const onnx::ModelProto &model);

class Importer {
public:
  Importer(llvm::StringRef fileName, const OnnxImportOptions &opts);

  /// Parses `bytes`, refuses an opset outside kMinOnnxOpset..kMaxOnnxOpset,
  /// and imports the model.
  llvm::Expected<ImportedModule> run(llvm::StringRef bytes);
  /// Checks, types and converts a parsed model of any opset: the converter
  /// table decides what it imports (run() and the table's tests).
  llvm::Expected<ImportedModule> importModel(onnx::ModelProto &model);

  // ---- used by the converters -------------------------------------------
  OnnxValue *lookup(llvm::StringRef name);
  /// The tensor behind a constant written to a `.npy` file, or null.
  const HostTensor *npyTensor(const TensorData &d) const {
    auto it = npyTensors.find(&d);
    return it == npyTensors.end() ? nullptr : it->second.get();
  }
  /// The expression of a value, making a constant a table entry on first use.
  ExprRef use(OnnxValue &v);
  /// Makes graph input `name` a value known at import time, from the
  /// run's value (OnnxImportOptions::inputValue): false when the run has
  /// none or `v` is not a graph input.
  llvm::Expected<bool> bindInputValue(llvm::StringRef name, OnnxValue &v);
  /// Whether `name` is a graph input that is not an initializer.
  bool isGraphInput(llvm::StringRef name) const { return graphInputs.count(name.str()) != 0; }
  /// The type shape inference gave an ONNX value name.
  void typeOf(llvm::StringRef name, OnnxValue &v) const;
  /// Types the expressions a converter built, with hx's own type relations
  /// (OnnxTyping.cpp): the type of `e`, or null after recording the type
  /// error in `typeError`.
  const Type *typeBuilt(const ExprRef &e);
  /// The first type error typeBuilt met (cleared by its caller).
  std::string typeError;
  /// The type errors of values hx could not type, by name (a later
  /// converter that needs their rank says why it is unknown).
  std::map<std::string, std::string> typeErrors;
  OnnxValue &define(llvm::StringRef name) { return values[name.str()]; }
  /// Imports a subgraph (an If branch, an iteration of a Loop's body),
  /// which reads the enclosing graphs' values by name, its inputs bound to
  /// `inputs`: copies of its outputs' values. Every name the subgraph
  /// defines is forgotten after (a Loop's next iteration defines them again).
  llvm::Expected<std::vector<OnnxValue>> importSubgraph(const onnx::GraphProto &g,
                                                        llvm::ArrayRef<OnnxValue> inputs = {});
  /// The nodes unrolled Loops have imported so far (Loops nest, and their
  /// counts multiply: the total is bounded, kMaxUnrolledNodes).
  int64_t unrolledNodes = 0;
  /// The Loops imported as recursive globals so far (@loop0, @loop1, ...).
  unsigned whileLoops = 0;
  /// `make(*of)`, made once per constant (so a weight used twice stays one
  /// table entry), its file named after `of`'s with `suffix`.
  std::shared_ptr<const HostTensor>
  derivedConstant(const std::shared_ptr<const HostTensor> &of, llvm::StringRef suffix,
                  std::shared_ptr<const HostTensor> (*make)(const HostTensor &));

  std::string fileName;
  const OnnxImportOptions &opts;
  int64_t opset = 0;
  /// The module @main is built in. It is printed, never run: a constant
  /// written to a `.npy` file is there by its path alone, its bytes kept
  /// in the importer's tensor until they go to ImportedModule::weights (so
  /// that a 100 MB model's weights are not copied once more).
  Module module;

private:
  llvm::Error importGraph(const onnx::GraphProto &g);
  llvm::Error defineInitializers(const onnx::GraphProto &g);
  bool typeOne(Expr *e);
  llvm::Error importNode(const onnx::NodeProto &n);
  std::string paramName(llvm::StringRef onnxName);
  std::string weightPath(llvm::StringRef onnxName);

  std::map<std::string, OnnxValue> values;
  /// Value info from shape inference, by name.
  std::map<std::string, const onnx::TypeProto *> types;
  /// Names of values that are constants, for the table's file names.
  std::map<const HostTensor *, std::string> constantNames;
  /// derivedConstant's results, by source and suffix.
  std::map<std::pair<const HostTensor *, std::string>, std::shared_ptr<const HostTensor>> derived;
  /// The table entry of each constant already used (holding the tensor, so
  /// that its address is not reused by another while the import runs).
  std::map<const HostTensor *, std::pair<std::shared_ptr<const HostTensor>, ExprRef>> constantExprs;
  /// The tensor behind each constant written to a `.npy` file.
  std::map<const TensorData *, std::shared_ptr<const HostTensor>> npyTensors;
  std::set<std::string> usedParamNames, usedWeightFiles;
  /// The graph inputs that are parameters of @main.
  std::set<std::string> graphInputs;
  std::vector<Ref<Var>> params;
  /// Where typeBuilt's type relations report (their messages become
  /// typeError).
  llvm::SourceMgr typeSources;
  DiagEngine typeDiags{typeSources};
  ImportedModule out;
};

} // namespace hx::onnximport

#endif
