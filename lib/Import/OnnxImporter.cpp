//===- OnnxImporter.cpp - The import driver -------------------------------===//
//
// The model is parsed with the protobuf classes of libonnx, checked
// (OnnxValidate.cpp) and typed by onnx::shape_inference before any node is
// converted, so a converter may trust the node's arity and read the types
// of its inputs and outputs. Then each node in graph order is folded
// (OnnxFold.cpp) or converted by the converter its op type and the model's
// opset select (OnnxConverter.h). A model older than the converters' first
// opset (kMinConverterOpset) is first brought to it by onnx's own version
// converter; one newer than the installed onnx knows is checked as far as
// its schemas apply, and hx types what the converters build (OnnxTyping.cpp).
//
// @main is built as a module in memory (the graph inputs its parameters,
// the converters' calls its body, the graph outputs its result), and its
// text is the printer's: each node's calls on one line ending with the
// node's comment, the constant table in print order, the large constants
// by their `.npy` files.
//
//===----------------------------------------------------------------------===//
#include "OnnxConverter.h"
#include "hx/IR/Printer.h"
#include "hx/IR/Walk.h"
#include "hx/Support/SourceNames.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <map>
#include <onnx/checker.h>
#include <onnx/version_converter/convert.h>

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

OnnxValue *Importer::lookup(StringRef name) {
  auto it = values.find(name.str());
  return it == values.end() ? nullptr : &it->second;
}

void Importer::typeOf(StringRef name, OnnxValue &v) const {
  auto it = types.find(name.str());
  if (it == types.end() || !it->second->has_tensor_type())
    return;
  const onnx::TypeProto::Tensor &tt = it->second->tensor_type();
  if (std::optional<DType> dt = dtypeFromOnnx(tt.elem_type()))
    v.dtype = *dt;
  if (!tt.has_shape())
    return;
  Dims d;
  for (const onnx::TensorShapeProto::Dimension &dim : tt.shape().dim())
    d.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
  v.dims = d;
}

static std::string identifier(StringRef name) {
  std::string s;
  for (char c : name)
    s += isAlnum(c) || c == '_' ? c : '_';
  if (s.empty() || isDigit(s[0]))
    s = "v" + s;
  return s;
}

std::string Importer::paramName(StringRef onnxName) {
  std::string base = identifier(onnxName), name = base;
  for (unsigned i = 1; !usedParamNames.insert(name).second; ++i)
    name = base + "_" + std::to_string(i);
  return name;
}

std::string Importer::weightPath(StringRef onnxName) {
  std::string base = identifier(onnxName), name = base;
  for (unsigned i = 1; !usedWeightFiles.insert(name).second; ++i)
    name = base + "_" + std::to_string(i);
  return opts.weightsDir + "/" + name + ".npy";
}

std::shared_ptr<const HostTensor>
Importer::derivedConstant(const std::shared_ptr<const HostTensor> &of, StringRef suffix,
                          std::shared_ptr<const HostTensor> (*make)(const HostTensor &)) {
  std::shared_ptr<const HostTensor> &made = derived[{of.get(), suffix.str()}];
  if (!made) {
    made = make(*of);
    auto name = constantNames.find(of.get());
    constantNames[made.get()] =
        (name == constantNames.end() ? std::string("const") : name->second) + suffix.str();
  }
  return made;
}

/// "int64 [4]", for messages.
static std::string describeTensor(DType dtype, ArrayRef<int64_t> dims) {
  return dtypeName(dtype).str() + " " + listText(dims);
}

Expected<bool> Importer::bindInputValue(StringRef name, OnnxValue &v) {
  if (!opts.inputValue || !isGraphInput(name))
    return false;
  Expected<std::optional<HostTensor>> given = opts.inputValue(name);
  if (!given)
    return given.takeError();
  if (!*given)
    return false;
  const HostTensor &t = **given;
  bool fits = t.dtype() == v.dtype && v.dims && v.dims->size() == t.shape().size();
  for (size_t k = 0; fits && k < t.shape().size(); ++k)
    fits = (*v.dims)[k] < 0 || (*v.dims)[k] == t.shape()[k];
  if (!fits)
    return createStringError("the value given for input '" + name + "' is " +
                             describeTensor(t.dtype(), t.shape()) + ", but the model declares " +
                             describeTensor(v.dtype, v.dims ? *v.dims : Dims{}));
  // The parameter stays (v.expr): calls that read the input at run time
  // still do; converters that need its value read this.
  v.constant = std::make_shared<const HostTensor>(std::move(**given));
  return true;
}

ExprRef Importer::use(OnnxValue &v) {
  if (v.expr || !v.constant)
    return v.expr;
  // Aliases of one constant (Identity of an initializer, tied weights)
  // share its table entry.
  auto known = constantExprs.find(v.constant.get());
  if (known != constantExprs.end())
    return v.expr = known->second.second;
  const HostTensor &t = *v.constant;
  auto data = std::make_shared<TensorData>();
  data->dtype = t.dtype();
  data->shape.assign(t.shape().begin(), t.shape().end());
  if (t.numElements() <= opts.inlineElements) {
    auto *bytes = static_cast<const uint8_t *>(t.data());
    data->bytes.assign(bytes, bytes + t.byteSize());
  } else {
    // Written to a `.npy` file: the module is only printed, and the printer
    // writes such a constant by its file, so its bytes stay in `t` alone
    // (the text's reader gets them from ImportedModule::weights).
    auto it = constantNames.find(&t);
    data->npyPath = weightPath(it == constantNames.end() ? "const" : it->second);
    npyTensors[data.get()] = v.constant;
  }
  v.expr = make<Constant>(std::shared_ptr<const TensorData>(std::move(data)), Loc());
  constantExprs[v.constant.get()] = {v.constant, v.expr};
  return v.expr;
}

static Error unsupportedOp(const NodeCtx &ctx) {
  return ctx.error("op type '" + ctx.node.op_type() + "' is not supported; hx imports " +
                   join(supportedOnnxOps(), ", "));
}

/// A node whose op type hx imports at other opsets than the model's:
/// "... at opset 13; hx imports it at opsets 6 to 10, 17".
static Error unsupportedOpset(const NodeCtx &ctx, ArrayRef<ConverterRow> rows) {
  std::string at;
  bool several = false;
  for (size_t i = 0; i < rows.size(); ++i) {
    size_t j = i; // adjacent rows read as one range
    while (j + 1 < rows.size() && rows[j + 1].opsets.since == rows[j].opsets.until + 1)
      ++j;
    several |= !at.empty() || rows[j].opsets.until != rows[i].opsets.since;
    at += (at.empty() ? "" : ", ") + std::to_string(rows[i].opsets.since);
    if (rows[j].opsets.until != rows[i].opsets.since)
      at += " to " + std::to_string(rows[j].opsets.until);
    i = j;
  }
  return ctx.error("op type '" + ctx.node.op_type() + "' is not supported at opset " +
                   Twine(ctx.opset()) + "; hx imports it at opset" + (several ? "s " : " ") + at);
}

Error Importer::importNode(const onnx::NodeProto &n) {
  NodeCtx ctx(*this, n);
  // Outputs may be left out by an empty name (LSTM's Y, say), not all.
  if (llvm::all_of(n.output(), [](const std::string &o) { return o.empty(); }))
    return ctx.error("the node has no output");
  if (!n.domain().empty() && n.domain() != "ai.onnx")
    return ctx.error("operators of domain '" + n.domain() + "' are not supported");
  for (int i = 0; i < n.input_size(); ++i)
    if (!n.input(i).empty() && !lookup(n.input(i)))
      return ctx.error("input '" + n.input(i) + "' is not defined before the node");
  // hx's float attributes are numbers: a NaN cannot be written.
  for (const onnx::AttributeProto &a : n.attribute())
    if (std::isnan(a.f()) || llvm::any_of(a.floats(), [](float f) { return std::isnan(f); }))
      return ctx.error("attribute '" + a.name() + "' is NaN");
  if (isFoldable(n.op_type())) {
    Expected<bool> folded = tryFold(ctx);
    if (!folded)
      return folded.takeError();
    if (*folded)
      return Error::success();
  }
  const ConverterRow *row = converterTable().find(n.op_type(), opset);
  if (!row) {
    ArrayRef<ConverterRow> rows = converterTable().rows(n.op_type());
    return rows.empty() ? unsupportedOp(ctx) : unsupportedOpset(ctx, rows);
  }
  if (Error e = row->convert(ctx))
    return e;
  if (!ctx.missing.empty())
    return ctx.error(ctx.missing);
  if (Error e = evaluateKnown(ctx))
    return e;
  for (int i = 0; i < n.output_size(); ++i)
    if (!n.output(i).empty() && !lookup(n.output(i)))
      return ctx.error("output " + Twine(i) + " ('" + n.output(i) + "') is not supported");
  return Error::success();
}

/// The graph's initializers as constants, by name.
Error Importer::defineInitializers(const onnx::GraphProto &g) {
  for (const onnx::TensorProto &t : g.initializer()) {
    Expected<HostTensor> v = tensorFromProto(t);
    if (!v)
      return createStringError(fileName + ": initializer: " + toString(v.takeError()));
    OnnxValue &val = define(t.name());
    val.dtype = v->dtype();
    val.dims = Dims(v->shape().begin(), v->shape().end());
    val.constant = std::make_shared<const HostTensor>(std::move(*v));
    constantNames[val.constant.get()] = t.name();
  }
  return Error::success();
}

Expected<std::vector<OnnxValue>> Importer::importSubgraph(const onnx::GraphProto &g,
                                                          ArrayRef<OnnxValue> inputs) {
  if (size_t(g.input_size()) != inputs.size())
    return createStringError(fileName + ": subgraph '" + g.name() + "' takes " +
                             Twine(g.input_size()) + " inputs, given " + Twine(inputs.size()));
  for (int i = 0; i < g.input_size(); ++i)
    define(g.input(i).name()) = inputs[size_t(i)];
  for (const onnx::ValueInfoProto &vi : g.value_info())
    types[vi.name()] = &vi.type();
  for (const onnx::ValueInfoProto &vi : g.output())
    types[vi.name()] = &vi.type();
  // An error ends the whole import: nothing to forget then.
  if (Error e = defineInitializers(g))
    return std::move(e);
  for (const onnx::NodeProto &n : g.node())
    if (Error e = importNode(n))
      return std::move(e);
  std::vector<OnnxValue> outs;
  for (const onnx::ValueInfoProto &vi : g.output()) {
    OnnxValue *v = lookup(vi.name());
    if (!v)
      return createStringError(fileName + ": subgraph '" + g.name() + "': output '" + vi.name() +
                               "' is never computed");
    outs.push_back(*v);
  }
  for (const onnx::ValueInfoProto &vi : g.input())
    values.erase(vi.name());
  for (const onnx::TensorProto &t : g.initializer())
    values.erase(t.name());
  for (const onnx::NodeProto &n : g.node())
    for (const std::string &o : n.output())
      values.erase(o);
  return outs;
}

Error Importer::importGraph(const onnx::GraphProto &g) {
  for (const onnx::ValueInfoProto &vi : g.value_info())
    types[vi.name()] = &vi.type();
  for (const onnx::ValueInfoProto &vi : g.input())
    types[vi.name()] = &vi.type();
  for (const onnx::ValueInfoProto &vi : g.output())
    types[vi.name()] = &vi.type();
  if (Error e = defineInitializers(g))
    return e;
  for (const onnx::ValueInfoProto &vi : g.input()) {
    if (lookup(vi.name()))
      continue; // an initializer: a constant, not a parameter
    OnnxValue &v = define(vi.name());
    typeOf(vi.name(), v);
    if (!vi.type().has_tensor_type())
      return createStringError(fileName + ": input '" + vi.name() +
                               "' is not a tensor (a sequence, map or optional), which hx "
                               "does not take");
    if (int et = vi.type().tensor_type().elem_type(); !dtypeFromOnnx(et))
      return createStringError(fileName + ": input '" + vi.name() + "' is a " + onnxTypeName(et) +
                               " tensor, which hx has no dtype for");
    if (!v.dims)
      return createStringError(fileName + ": input '" + vi.name() + "' has no shape");
    for (int64_t d : *v.dims)
      if (d > TensorType::kMaxDim)
        return createStringError(fileName + ": input '" + vi.name() + "' has a dim of " + Twine(d) +
                                 ", above hx's largest (2^48)");
    SmallVector<int64_t, 4> shape;
    for (int64_t d : *v.dims)
      shape.push_back(d < 0 ? TensorType::kDynamic : d);
    auto param = make<Var>(paramName(vi.name()), makeTensorType(shape, v.dtype), Loc());
    params.push_back(param);
    v.expr = param;
    graphInputs.insert(vi.name());
  }
  for (const onnx::NodeProto &n : g.node())
    if (Error e = importNode(n))
      return e;
  SmallVector<ExprRef, 2> results;
  for (const onnx::ValueInfoProto &vi : g.output()) {
    OnnxValue *v = lookup(vi.name());
    if (!v)
      return createStringError(fileName + ": output '" + vi.name() + "' is never computed");
    results.push_back(use(*v));
  }
  if (results.empty())
    return createStringError(fileName + ": the graph has no outputs");
  ExprRef result =
      results.size() == 1 ? results[0] : ExprRef(make<Tuple>(std::move(results), Loc()));
  auto main = make<Function>(std::move(params), result, nullptr, Loc());
  module.addDef("main", main);
  // The graph outputs' names, which Compiled.run(as_dict=True) gives the
  // results.
  json::Array names;
  for (const onnx::ValueInfoProto &vi : g.output())
    names.push_back(vi.name());
  module.extraMetadata.emplace_back("OutputNames", std::move(names));

  // The files of the constants the module uses (a node whose outputs no
  // output needs is converted, and checked, but not printed).
  DenseSet<const TensorData *> written;
  for (const Module::Def &d : module.defs) // @main, and the while loops' globals
    walkPostOrder(d.fn->body.get(), [&](Expr *e) {
      auto *c = dyn_cast<Constant>(e);
      if (!c || !c->isTensor() || c->tensor->npyPath.empty() ||
          !written.insert(c->tensor.get()).second)
        return;
      out.weights.emplace_back(c->tensor->npyPath, npyTensors.at(c->tensor.get())->clone());
    });
  PrintOptions print;
  print.headerComment = "Imported from " + printableName(sys::path::filename(fileName)) +
                        " (ONNX opset " + std::to_string(opset) + ") by hx-import-onnx.";
  if (out.sourceOpset)
    print.headerComment = "Imported from " + printableName(sys::path::filename(fileName)) +
                          " (ONNX opset " + std::to_string(out.sourceOpset) + ", upgraded to " +
                          std::to_string(opset) +
                          " by onnx's version converter) by hx-import-onnx.";
  raw_string_ostream os(out.text);
  printModule(os, module, print);
  os.flush();
  return Error::success();
}

int64_t onnximport::modelOpset(const onnx::ModelProto &model) {
  int64_t opset = 0;
  for (const onnx::OperatorSetIdProto &o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx")
      opset = o.version();
  return opset;
}

Expected<ImportedModule> Importer::run(StringRef bytes) {
  onnx::ModelProto model;
  if (bytes.size() > size_t(INT32_MAX) || !model.ParseFromArray(bytes.data(), int(bytes.size())))
    return createStringError(fileName + ": not an ONNX model (the protobuf does not parse: the "
                                        "file is truncated or corrupted)");
  if (!model.has_graph())
    return createStringError(fileName + ": not an ONNX model (no graph)");
  if (Error e = loadExternalData(model, opts.modelDir, fileName))
    return e;
  int64_t opset = modelOpset(model);
  if (opset == 0) {
    // No opset of the default domain: the model's operators are all of
    // other domains (ai.onnx.ml, training), which hx does not import.
    for (const onnx::NodeProto &n : model.graph().node())
      if (!n.domain().empty() && n.domain() != "ai.onnx")
        return createStringError(fileName + ": node '" + n.name() + "' (" + n.op_type() +
                                 "): operators of domain '" + n.domain() + "' are not supported");
    return createStringError(fileName + ": the model imports no opset of ONNX's default domain");
  }
  if (opset < kMinOnnxOpset || opset > kMaxOnnxOpset)
    return createStringError(
        fileName + ": opset " + Twine(opset) + " is not supported; hx imports opsets " +
        Twine(kMinOnnxOpset) + " to " + Twine(kMaxOnnxOpset) +
        " (re-export the model, e.g. torch.onnx.export(..., opset_version=17))");
  if (opset < kMinConverterOpset) {
    // Older models go through onnx's version converter, checked first at
    // their own opset (the converter trusts its input).
    if (Error e = checkBeforeOnnx(model, fileName))
      return e;
    try {
      onnx::checker::check_model(model);
      model = onnx::version_conversion::ConvertVersion(model, int(kMinConverterOpset));
    } catch (const std::exception &e) {
      return createStringError(fileName + ": onnx's version converter cannot bring the opset-" +
                               Twine(opset) + " model to opset " + Twine(kMinConverterOpset) +
                               ": " + StringRef(e.what()).trim());
    }
    out.sourceOpset = opset;
  }
  return importModel(model);
}

/// The counts of ImportedModule's summary.
static void summarize(const onnx::GraphProto &g, ImportedModule &out) {
  std::map<std::string, int64_t> types;
  for (const onnx::NodeProto &n : g.node())
    ++types[n.op_type()];
  out.nodes = g.node_size();
  out.opTypes.assign(types.begin(), types.end());
  std::stable_sort(out.opTypes.begin(), out.opTypes.end(),
                   [](const auto &a, const auto &b) { return a.second > b.second; });
  out.initializers = g.initializer_size();
  for (const onnx::TensorProto &t : g.initializer()) {
    int64_t n = 1;
    for (int64_t d : t.dims())
      n *= d;
    out.weightElements += n;
    if (std::optional<DType> d = dtypeFromOnnx(t.data_type()))
      out.weightBytes += n * int64_t(dtypeBytes(*d));
  }
}

Expected<ImportedModule> Importer::importModel(onnx::ModelProto &model) {
  opset = modelOpset(model);
  if (Error e = checkBeforeOnnx(model, fileName))
    return e;
  // An op type hx cannot import is refused before ONNX's checker, which
  // would first print a warning of its own about an experimental one.
  for (const onnx::NodeProto &n : model.graph().node())
    if ((n.domain().empty() || n.domain() == "ai.onnx") &&
        converterTable().rows(n.op_type()).empty() && !isFoldable(n.op_type()))
      return unsupportedOp(NodeCtx(*this, n));
  if (Error e = checkWithOnnx(model, fileName))
    return e;
  out.opset = opset;
  if (Error e = importGraph(model.graph()))
    return e;
  summarize(model.graph(), out);
  return std::move(out);
}

Expected<ImportedModule> hx::importOnnx(StringRef bytes, StringRef name,
                                        const OnnxImportOptions &opts) {
  Importer imp(name, opts);
  return imp.run(bytes);
}
