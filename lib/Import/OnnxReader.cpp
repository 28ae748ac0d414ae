//===- OnnxReader.cpp - Reading an ONNX model and writing hx text ---------===//
//
// The model is parsed with the protobuf classes of libonnx, checked by
// onnx::checker and typed by onnx::shape_inference before any node is
// converted, so a converter may trust the node's arity and read the types
// of its inputs and outputs. Errors from those libraries come back as
// exceptions; they become messages naming the file.
//
// The text is built in three parts: @main's parameters, the body (one line
// per node), and the constant table, in first-use order.
//
//===----------------------------------------------------------------------===//
#include "OnnxImporter.h"
#include "hx/Support/Files.h"
#include "hx/Support/SourceNames.h"
#include "hx/Tensor/Npy.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Base64.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <cstring>
#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

// ---- tensors ---------------------------------------------------------------

std::optional<DType> onnximport::dtypeFromOnnx(int t) {
  switch (t) {
  case onnx::TensorProto::FLOAT:
    return DType::Float32;
  case onnx::TensorProto::UINT8:
    return DType::UInt8;
  case onnx::TensorProto::INT8:
    return DType::Int8;
  case onnx::TensorProto::UINT16:
    return DType::UInt16;
  case onnx::TensorProto::INT16:
    return DType::Int16;
  case onnx::TensorProto::INT32:
    return DType::Int32;
  case onnx::TensorProto::INT64:
    return DType::Int64;
  case onnx::TensorProto::BOOL:
    return DType::Bool;
  case onnx::TensorProto::FLOAT16:
    return DType::Float16;
  case onnx::TensorProto::DOUBLE:
    return DType::Float64;
  case onnx::TensorProto::UINT32:
    return DType::UInt32;
  case onnx::TensorProto::UINT64:
    return DType::UInt64;
  default:
    return std::nullopt;
  }
}

std::string onnximport::onnxTypeName(int t) {
  if (std::optional<DType> dt = dtypeFromOnnx(t))
    return dtypeName(*dt).str();
  switch (t) {
  case onnx::TensorProto::STRING:
    return "string";
  case onnx::TensorProto::BFLOAT16:
    return "bfloat16";
  case onnx::TensorProto::COMPLEX64:
    return "complex64";
  case onnx::TensorProto::COMPLEX128:
    return "complex128";
  case onnx::TensorProto::UNDEFINED:
    return "undefined";
  default:
    return "element type " + std::to_string(t);
  }
}

/// The checks of tensorFromProto that need no allocation: the dtype, the
/// dims, and data of the size they say. Returns the element count.
static Expected<int64_t> checkTensorProto(const onnx::TensorProto &t) {
  std::string what = "tensor '" + t.name() + "'";
  std::optional<DType> dt = dtypeFromOnnx(t.data_type());
  if (!dt)
    return createStringError(what + " is a " + onnxTypeName(t.data_type()) +
                             " tensor, which hx has no dtype for");
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    return createStringError(what + " keeps its data in an external file, which hx does not "
                                    "read (save the model with its data inside)");
  Dims shape(t.dims().begin(), t.dims().end());
  for (int64_t d : shape)
    if (d < 0)
      return createStringError(what + " has a negative dim");
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d && count > (int64_t(1) << 40) / d)
      return createStringError(what + " is too large");
    count *= d;
  }
  // The data must be there before anything is allocated for it.
  size_t bytes = size_t(count) * dtypeBytes(*dt);
  size_t held =
      t.has_raw_data()
          ? t.raw_data().size()
          : size_t(std::max({t.float_data_size(), t.double_data_size(), t.int64_data_size(),
                             t.uint64_data_size(), t.int32_data_size()}));
  if (t.has_raw_data() ? held != bytes : held != size_t(count))
    return createStringError(what + " holds " + Twine(held) +
                             (t.has_raw_data() ? " bytes of data; " : " values; ") + Twine(count) +
                             " elements of " + dtypeName(*dt) + " need " +
                             Twine(t.has_raw_data() ? bytes : size_t(count)));
  return count;
}

Expected<HostTensor> onnximport::tensorFromProto(const onnx::TensorProto &t) {
  Expected<int64_t> checked = checkTensorProto(t);
  if (!checked)
    return checked.takeError();
  int64_t count = *checked;
  std::string what = "tensor '" + t.name() + "'";
  std::optional<DType> dt = dtypeFromOnnx(t.data_type());
  Dims shape(t.dims().begin(), t.dims().end());
  size_t bytes = size_t(count) * dtypeBytes(*dt);
  HostTensor out(*dt, shape);
  if (t.has_raw_data()) {
    if (bytes)
      std::memcpy(out.data(), t.raw_data().data(), bytes);
    return out;
  }
  auto fill = [&](const auto &field, auto store) -> Error {
    if (int64_t(field.size()) != count)
      return createStringError(what + " holds " + Twine(field.size()) + " values; " +
                               out.typeString() + " needs " + Twine(count));
    for (int64_t i = 0; i < count; ++i)
      store(i, field.Get(i));
    return Error::success();
  };
  Error e = Error::success();
  switch (*dt) {
  case DType::Float32:
    e = fill(t.float_data(), [&](int64_t i, float v) { out.as<float>()[i] = v; });
    break;
  case DType::Float64:
    e = fill(t.double_data(), [&](int64_t i, double v) { out.as<double>()[i] = v; });
    break;
  case DType::Int64:
    e = fill(t.int64_data(), [&](int64_t i, int64_t v) { out.as<int64_t>()[i] = v; });
    break;
  case DType::UInt32:
  case DType::UInt64:
    e = fill(t.uint64_data(), [&](int64_t i, uint64_t v) {
      if (*dt == DType::UInt64)
        out.as<uint64_t>()[i] = v; // exactly, not through double
      else
        out.as<uint32_t>()[i] = uint32_t(v);
    });
    break;
  case DType::Float16: // int32_data holds the bits
    e = fill(t.int32_data(), [&](int64_t i, int32_t v) { out.as<uint16_t>()[i] = uint16_t(v); });
    break;
  default: // bool, int8..int32, uint8, uint16
    e = fill(t.int32_data(), [&](int64_t i, int32_t v) { out.setDouble(i, double(v)); });
    break;
  }
  if (e)
    return e;
  return out;
}

std::vector<int64_t> onnximport::tensorInts(const HostTensor &t) {
  std::vector<int64_t> v(t.numElements());
  for (int64_t i = 0; i < t.numElements(); ++i)
    if (t.dtype() == DType::Int64)
      v[i] = t.as<int64_t>()[i];
    else if (t.dtype() == DType::Int32)
      v[i] = t.as<int32_t>()[i];
    else { // saturating, NaN as 0: callers that need integers check the dtype
      double d = t.getDouble(i);
      v[i] = std::isnan(d) ? 0 : d >= 0x1p63 ? INT64_MAX : d <= -0x1p63 ? INT64_MIN : int64_t(d);
    }
  return v;
}

HostTensor onnximport::intTensor(ArrayRef<int64_t> values, DType dtype, std::optional<Dims> shape) {
  HostTensor t(dtype,
               shape ? ArrayRef<int64_t>(*shape) : ArrayRef<int64_t>{int64_t(values.size())});
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == DType::Int64)
      t.as<int64_t>()[i] = values[i];
    else
      t.setDouble(i, double(values[i]));
  }
  return t;
}

/// `[1, 2, 3]` as JSON (the constant table) writes it: no suffixes.
static std::string jsonInts(ArrayRef<int64_t> v) {
  return "[" + join(map_range(v, [](int64_t d) { return std::to_string(d); }), ", ") + "]";
}

std::string onnximport::intText(int64_t v) {
  // hx text reads a bare integer literal as int32.
  return std::to_string(v) + (v < INT32_MIN || v > INT32_MAX ? "i64" : "");
}

std::string onnximport::listText(ArrayRef<int64_t> v) {
  return "[" + join(map_range(v, intText), ", ") + "]";
}

std::string onnximport::floatText(double v) {
  if (std::isinf(v))
    v = v > 0 ? 3.4028234663852886e38 : -3.4028234663852886e38;
  std::string s;
  raw_string_ostream os(s);
  os << format("%.9g", v);
  os.flush();
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s + "f";
}

// ---- NodeCtx ---------------------------------------------------------------

OnnxValue *NodeCtx::input(size_t i) const {
  if (i >= size_t(node.input_size()) || node.input(i).empty())
    return nullptr;
  return imp.lookup(node.input(i));
}

Expected<OnnxValue *> NodeCtx::required(size_t i) const {
  if (OnnxValue *v = input(i))
    return v;
  return error("input " + Twine(i) + " is required");
}

Expected<std::optional<std::vector<int64_t>>> NodeCtx::constInts(size_t i) const {
  OnnxValue *v = input(i);
  if (!v)
    return std::nullopt;
  if (!v->constant)
    return error("input " + Twine(i) + " ('" + node.input(i) +
                 "') must be known at import time (a constant or a static shape)");
  if (v->constant->dtype() != DType::Int64 && v->constant->dtype() != DType::Int32)
    return error("input " + Twine(i) + " must hold integers");
  return tensorInts(*v->constant);
}

std::string NodeCtx::use(size_t i) const {
  if (OnnxValue *v = input(i))
    return imp.use(*v);
  // An input left empty where the converter needs one (a variadic input
  // named ""): importNode reports it after the converter.
  if (missing.empty())
    missing = "input " + std::to_string(i) + " is absent";
  return "%absent";
}
std::string NodeCtx::use(OnnxValue &v) const { return imp.use(v); }

const onnx::AttributeProto *NodeCtx::attr(StringRef name) const {
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t NodeCtx::getInt(StringRef name, int64_t def) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->i() : def;
}

float NodeCtx::getFloat(StringRef name, float def) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->f() : def;
}

std::string NodeCtx::getString(StringRef name, StringRef def) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->s() : def.str();
}

std::optional<std::vector<int64_t>> NodeCtx::getInts(StringRef name) const {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::string NodeCtx::emit(const Twine &call) const { return imp.emit(call); }

void NodeCtx::setOutput(size_t i, std::string expr) const {
  OnnxValue &v = imp.define(node.output(i));
  v.expr = std::move(expr);
  imp.typeOf(node.output(i), v);
}

void NodeCtx::setConstant(size_t i, HostTensor value) const {
  OnnxValue &v = imp.define(node.output(i));
  v.dtype = value.dtype();
  v.dims = Dims(value.shape().begin(), value.shape().end());
  v.constant = std::make_shared<const HostTensor>(std::move(value));
}

void NodeCtx::alias(size_t i, const OnnxValue &v) const { imp.define(node.output(i)) = v; }

int64_t NodeCtx::opset() const { return imp.opset; }

Error NodeCtx::error(const Twine &msg) const {
  return createStringError(imp.fileName + ": node '" + node.name() + "' (" + node.op_type() +
                           ", opset " + Twine(imp.opset) + "): " + msg);
}

// ---- Importer --------------------------------------------------------------

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

std::string Importer::use(OnnxValue &v) {
  if (!v.expr.empty() || !v.constant)
    return v.expr;
  // Aliases of one constant (Identity of an initializer, tied weights)
  // share its table entry.
  auto known = constantExprs.find(v.constant.get());
  if (known != constantExprs.end())
    return v.expr = known->second.second;
  const HostTensor &t = *v.constant;
  std::string entry = "    {\"dtype\": \"" + dtypeName(t.dtype()).str() +
                      "\", \"shape\": " + jsonInts(t.shape()) + ", ";
  if (t.numElements() <= opts.inlineElements) {
    entry += "\"data\": \"" +
             encodeBase64(StringRef(static_cast<const char *>(t.data()), t.byteSize())) + "\"}";
  } else {
    auto it = constantNames.find(&t);
    std::string path = weightPath(it == constantNames.end() ? "const" : it->second);
    entry += "\"npy\": \"" + path + "\"}";
    out.weights.emplace_back(path, t.clone());
  }
  table += (nextConstant ? ",\n" : "") + entry;
  v.expr = "meta[relay.Constant][" + std::to_string(nextConstant++) + "]";
  constantExprs[v.constant.get()] = {v.constant, v.expr};
  return v.expr;
}

std::string Importer::emit(const Twine &call) {
  std::string id = "%" + std::to_string(nextId++);
  line += id + " = " + call.str() + "; ";
  return id;
}

static Error unsupportedOp(const NodeCtx &ctx) {
  return ctx.error("op type '" + ctx.node.op_type() + "' is not supported; hx imports " +
                   join(supportedOnnxOps(), ", "));
}

Error Importer::importNode(const onnx::NodeProto &n) {
  NodeCtx ctx(*this, n);
  if (n.output_size() == 0 || n.output(0).empty())
    return ctx.error("the node has no first output");
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
  auto it = converters().find(n.op_type());
  if (it == converters().end())
    return unsupportedOp(ctx);
  line.clear();
  if (Error e = it->second(ctx))
    return e;
  if (!ctx.missing.empty())
    return ctx.error(ctx.missing);
  for (int i = 0; i < n.output_size(); ++i)
    if (!n.output(i).empty() && !lookup(n.output(i)))
      return ctx.error("output " + Twine(i) + " ('" + n.output(i) + "') is not supported");
  if (!line.empty())
    body += "  " + line +
            SourceNode("onnx", n.op_type(), n.name().empty() ? n.output(0) : n.name()).comment() +
            "\n";
  return Error::success();
}

Error Importer::importGraph(const onnx::GraphProto &g) {
  for (const onnx::ValueInfoProto &vi : g.value_info())
    types[vi.name()] = &vi.type();
  for (const onnx::ValueInfoProto &vi : g.input())
    types[vi.name()] = &vi.type();
  for (const onnx::ValueInfoProto &vi : g.output())
    types[vi.name()] = &vi.type();
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
    v.expr = "%" + paramName(vi.name());
    std::string dims;
    for (size_t i = 0; i < v.dims->size(); ++i)
      dims +=
          (i ? ", " : "") + ((*v.dims)[i] < 0 ? std::string("?") : std::to_string((*v.dims)[i]));
    if (v.dims->size() == 1)
      dims += ",";
    params += std::string(params.empty() ? "" : ", ") + v.expr + ": Tensor[(" + dims + "), " +
              dtypeName(v.dtype).str() + "]";
  }
  for (const onnx::NodeProto &n : g.node())
    if (Error e = importNode(n))
      return e;
  std::vector<std::string> results;
  for (const onnx::ValueInfoProto &vi : g.output()) {
    OnnxValue *v = lookup(vi.name());
    if (!v)
      return createStringError(fileName + ": output '" + vi.name() + "' is never computed");
    results.push_back(use(*v));
  }
  if (results.empty())
    return createStringError(fileName + ": the graph has no outputs");
  std::string result = results.size() == 1 ? results[0] : "(" + join(results, ", ") + ")";
  std::string text = "#[version = \"0.0.5\"]\n";
  text += "// Imported from " + printableName(sys::path::filename(fileName)) + " (ONNX opset " +
          std::to_string(opset) + ") by hx-import-onnx.\n";
  text += "def @main(" + params + ") {\n" + body + "  " + result + "\n}\n";
  if (!table.empty())
    text += "#[metadata]\n{\n  \"relay.Constant\": [\n" + table + "\n  ]\n}\n";
  out.text = std::move(text);
  return Error::success();
}

/// ONNX 1.12's shape inference of Conv reads the kernel's dims from the
/// weight when `kernel_shape` is absent and then indexes the input's dims
/// with them unchecked: a weight of a higher rank than the input reads out
/// of bounds. Stating kernel_shape (the weight's spatial dims, which the
/// spec requires it to equal) takes its checked path instead.
static void spellOutKernelShapes(onnx::GraphProto &g) {
  std::map<std::string, std::vector<int64_t>> weightDims;
  for (const onnx::TensorProto &t : g.initializer())
    weightDims[t.name()].assign(t.dims().begin(), t.dims().end());
  for (const onnx::ValueInfoProto &vi : g.input()) {
    if (weightDims.count(vi.name()) || !vi.type().has_tensor_type() ||
        !vi.type().tensor_type().has_shape())
      continue;
    std::vector<int64_t> d;
    for (const onnx::TensorShapeProto::Dimension &dim : vi.type().tensor_type().shape().dim())
      d.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
    weightDims[vi.name()] = d;
  }
  for (onnx::NodeProto &n : *g.mutable_node()) {
    if (n.op_type() != "Conv" && n.op_type() != "ConvTranspose")
      continue;
    if (n.input_size() < 2)
      continue;
    if (llvm::any_of(n.attribute(),
                     [](const onnx::AttributeProto &a) { return a.name() == "kernel_shape"; }))
      continue;
    auto it = weightDims.find(n.input(1));
    if (it == weightDims.end() || it->second.size() < 2)
      continue;
    onnx::AttributeProto *a = n.add_attribute();
    a->set_name("kernel_shape");
    a->set_type(onnx::AttributeProto::INTS);
    for (size_t i = 2; i < it->second.size(); ++i)
      a->add_ints(it->second[i]);
  }
}

Expected<ImportedModule> Importer::run(StringRef bytes) {
  onnx::ModelProto model;
  if (bytes.size() > size_t(INT32_MAX) || !model.ParseFromArray(bytes.data(), int(bytes.size())))
    return createStringError(fileName + ": not an ONNX model (the protobuf does not parse: the "
                                        "file is truncated or corrupted)");
  for (const onnx::OperatorSetIdProto &o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx")
      opset = o.version();
  if (!model.has_graph())
    return createStringError(fileName + ": not an ONNX model (no graph)");
  if (opset < kMinOnnxOpset || opset > kMaxOnnxOpset)
    return createStringError(
        fileName + ": opset " + Twine(opset) + " is not supported; hx imports opsets " +
        Twine(kMinOnnxOpset) + " to " + Twine(kMaxOnnxOpset) +
        " (re-export the model, e.g. torch.onnx.export(..., opset_version=13))");
  // ONNX 1.12's shape inference reads tensors' data trusting their dims:
  // every tensor is checked first, and subgraphs (which hx does not import)
  // are refused before it sees them.
  for (const onnx::TensorProto &t : model.graph().initializer())
    if (Expected<int64_t> c = checkTensorProto(t); !c)
      return createStringError(fileName + ": initializer: " + toString(c.takeError()));
  for (const onnx::NodeProto &n : model.graph().node())
    for (const onnx::AttributeProto &a : n.attribute()) {
      if (a.has_g() || a.graphs_size())
        return createStringError(fileName + ": node '" + n.name() + "' (" + n.op_type() +
                                 "): subgraphs (If, Loop, Scan) are not supported");
      auto checkOne = [&](const onnx::TensorProto &t) -> Error {
        if (Expected<int64_t> c = checkTensorProto(t); !c)
          return createStringError(fileName + ": node '" + n.name() + "' (" + n.op_type() +
                                   "): attribute '" + a.name() + "': " + toString(c.takeError()));
        return Error::success();
      };
      if (a.has_t())
        if (Error e = checkOne(a.t()))
          return e;
      for (const onnx::TensorProto &t : a.tensors())
        if (Error e = checkOne(t))
          return e;
      if (a.has_sparse_tensor() || a.sparse_tensors_size())
        return createStringError(fileName + ": node '" + n.name() + "' (" + n.op_type() +
                                 "): sparse tensors are not supported");
    }
  if (model.graph().sparse_initializer_size())
    return createStringError(fileName + ": sparse initializers are not supported");
  // Its shape inference of windows also divides by the strides unchecked.
  for (const onnx::NodeProto &n : model.graph().node()) {
    static const char *windowed[] = {"Conv", "ConvTranspose", "MaxPool", "AveragePool", "LpPool"};
    if (!llvm::is_contained(windowed, n.op_type()))
      continue;
    for (const onnx::AttributeProto &a : n.attribute())
      if ((a.name() == "strides" || a.name() == "dilations" || a.name() == "kernel_shape") &&
          llvm::any_of(a.ints(), [](int64_t v) { return v < 1; }))
        return createStringError(fileName + ": node '" + n.name() + "' (" + n.op_type() +
                                 "): " + a.name() + " must be positive");
  }
  // An op type hx cannot import is refused before ONNX's checker, which
  // would first print a warning of its own about an experimental one.
  for (const onnx::NodeProto &n : model.graph().node())
    if ((n.domain().empty() || n.domain() == "ai.onnx") && !converters().count(n.op_type()) &&
        !isFoldable(n.op_type()))
      return unsupportedOp(NodeCtx(*this, n));
  try {
    onnx::checker::check_model(model);
    spellOutKernelShapes(*model.mutable_graph());
    onnx::shape_inference::InferShapes(model);
  } catch (const std::exception &e) {
    return createStringError(fileName +
                             ": the model is not valid ONNX: " + StringRef(e.what()).trim());
  }
  out.opset = opset;
  if (Error e = importGraph(model.graph()))
    return e;
  return std::move(out);
}

Expected<ImportedModule> hx::importOnnx(StringRef bytes, StringRef name,
                                        const OnnxImportOptions &opts) {
  Importer imp(name, opts);
  return imp.run(bytes);
}

bool hx::isOnnxFile(StringRef path, StringRef bytes) {
  return path.ends_with_insensitive(".onnx") || (!bytes.empty() && bytes[0] == '\x08');
}

Expected<std::unique_ptr<MemoryBuffer>> hx::readModuleFile(StringRef path,
                                                           StringMap<HostTensor> &weights) {
  ReadFileOptions ro;
  ro.allowStdin = true;
  Expected<std::unique_ptr<MemoryBuffer>> file = readUserFile(path, ro);
  if (!file)
    return createStringError("cannot open '" + path + "': " + toString(file.takeError()));
  if (!isOnnxFile(path, (*file)->getBuffer()))
    return std::move(*file);
  OnnxImportOptions opts;
  opts.weightsDir = (path == "-" ? std::string("model") : sys::path::stem(path).str()) + ".weights";
  Expected<ImportedModule> imported = importOnnx((*file)->getBuffer(), path, opts);
  if (!imported)
    return imported.takeError();
  for (auto &[name, tensor] : imported->weights)
    weights[name] = std::move(tensor);
  return MemoryBuffer::getMemBufferCopy(imported->text, path);
}

std::vector<std::string> hx::supportedOnnxOps() {
  std::vector<std::string> ops;
  for (const auto &e : converters())
    ops.push_back(e.getKey().str());
  std::sort(ops.begin(), ops.end());
  return ops;
}
