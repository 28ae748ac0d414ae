//===- TVMMetadata.cpp - TVM's own #[metadata] object graph ---------------===//
//
// `mod.astext(show_meta_data=True)` ends in TVM's SaveJSON object graph:
//
//   {"root": 1,
//    "nodes": [{"type_key": ""},                                  // null
//              {"type_key": "Map", "keys": ["VirtualDevice", "relay.Constant"],
//               "data": [2, 32]},
//              {"type_key": "Array", "data": [3, 24]}, ...,
//              {"type_key": "relay.Constant",
//               "attrs": {"data": "0", "_checked_type_": "36", ...}}, ...],
//    "b64ndarrays": ["P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAABAAAAAIgAQA...", ...],
//    "attrs": {"tvm_version": "0.19.0"}}
//
// Node attributes are strings: a node index or a plain value, by the field's
// type. The root maps a metadata kind to an Array; `meta[KIND][i]` is its
// element i, in TVM's print order (so `meta[VirtualDevice][0]` is whatever
// TVM printed first: the device always comes from the table, never from the
// index). Only what hx's IR holds is read: each VirtualDevice's device type,
// id, memory scope and target kind, and each Constant's NDArray (a relay
// Constant's "data" indexes "b64ndarrays", not "nodes"), checked against its
// `_checked_type_`. A Target's `arch` is not taken: TVM records the build
// machine's GPU there, not the one that will run the module.
//
// The graph is read by index, without recursion; an index out of range, a
// node of the wrong type or an NDArray that does not decode is a located
// error at the node that holds it.
//
//===----------------------------------------------------------------------===//
#include "MetadataReaders.h"
#include "hx/IR/TargetKind.h"
#include "llvm/Support/Base64.h"

using namespace hx;
using namespace llvm;
using P = HxParser;

/// The device types hx knows, for messages: "1, cpu, and 2, cuda".
static std::string supportedTypes() {
  std::vector<std::string> types;
  for (DeviceType t : allDeviceTypes())
    types.push_back(std::to_string(int32_t(t)) + ", " + deviceTypeName(t).str());
  return joinChoices(types, ", and ");
}

namespace {

class GraphReader {
public:
  GraphReader(DiagEngine &diags) : diags(diags) {}

  bool read(P::JsonObjectContext *obj, std::vector<VirtualDevice> &devices,
            std::vector<std::shared_ptr<const TensorData>> &constants) {
    P::JsonContext *rootCtx = memberOf(obj, "root");
    auto *nodeList = dynamic_cast<P::JsonArrayContext *>(memberOf(obj, "nodes"));
    if (!nodeList)
      return error(obj, "TVM metadata: \"nodes\" must be an array");
    for (auto *n : nodeList->json()) {
      auto *o = dynamic_cast<P::JsonObjectContext *>(n);
      if (!o)
        return error(n, "TVM metadata: a node must be an object, not " + describeJson(n));
      nodes.push_back(o);
    }
    if (P::JsonContext *b = memberOf(obj, "b64ndarrays")) {
      arrays = dynamic_cast<P::JsonArrayContext *>(b);
      if (!arrays)
        return error(b, "TVM metadata: \"b64ndarrays\" must be an array");
    }
    std::optional<int64_t> root = jsonInt(rootCtx);
    if (!root || *root < 0 || size_t(*root) >= nodes.size())
      return error(rootCtx ? rootCtx : static_cast<antlr4::ParserRuleContext *>(obj),
                   "TVM metadata: \"root\" must be the index of a node");
    std::vector<std::pair<std::string, size_t>> tables;
    if (!mapItems(*root, tables))
      return false;
    for (auto &[kind, arrayNode] : tables) {
      std::vector<size_t> items;
      if (!arrayItems(arrayNode, items))
        return false;
      if (kind == "VirtualDevice") {
        for (size_t n : items) {
          VirtualDevice d;
          if (!virtualDevice(n, d))
            return false;
          devices.push_back(std::move(d));
        }
      } else if (kind == "relay.Constant") {
        for (size_t n : items) {
          std::shared_ptr<const TensorData> t;
          if (!constant(n, t))
            return false;
          constants.push_back(std::move(t));
        }
      }
      // Other kinds (`relay.attrs.*`, ...) are reported where the text
      // refers to them.
    }
    return true;
  }

private:
  std::string typeKey(size_t n) { return jsonString(memberOf(nodes[n], "type_key")).value_or(""); }

  /// The string value of attribute `name` of node n.
  std::optional<std::string> attr(size_t n, StringRef name) {
    auto *attrs = dynamic_cast<P::JsonObjectContext *>(memberOf(nodes[n], "attrs"));
    return attrs ? jsonString(memberOf(attrs, name)) : std::nullopt;
  }

  /// Attribute `name` of node n as a node index (0 is null).
  bool ref(size_t n, StringRef name, size_t &out) {
    std::optional<std::string> s = attr(n, name);
    unsigned long long v;
    if (!s || getAsUnsignedInteger(*s, 10, v) || v >= nodes.size())
      return error(nodes[n], "TVM metadata: node " + Twine(n) + " (" + typeKey(n) +
                                 ") has no valid '" + name + "' reference");
    out = v;
    return true;
  }

  bool intAttr(size_t n, StringRef name, int64_t &out) {
    std::optional<std::string> s = attr(n, name);
    if (!s || StringRef(*s).getAsInteger(10, out))
      return error(nodes[n], "TVM metadata: node " + Twine(n) + " (" + typeKey(n) +
                                 ") has no integer '" + name + "'");
    return true;
  }

  bool expectType(size_t n, const char *want) {
    std::string key = typeKey(n);
    if (key == want)
      return true;
    return error(nodes[n], "TVM metadata: node " + Twine(n) + " is a '" + key + "', expected a '" +
                               want + "'");
  }

  /// The node indices of an Array node.
  bool arrayItems(size_t n, std::vector<size_t> &out) {
    if (!expectType(n, "Array"))
      return false;
    return indexList(n, memberOf(nodes[n], "data"), out);
  }

  bool indexList(size_t n, P::JsonContext *list, std::vector<size_t> &out) {
    if (!list)
      return true; // an empty Array or Map has no "data"
    auto *arr = dynamic_cast<P::JsonArrayContext *>(list);
    if (!arr)
      return error(list, "TVM metadata: node " + Twine(n) + "'s \"data\" must be an array");
    for (auto *e : arr->json()) {
      std::optional<int64_t> i = jsonInt(e);
      if (!i || *i < 0 || size_t(*i) >= nodes.size())
        return error(e, "TVM metadata: not the index of a node");
      out.push_back(*i);
    }
    return true;
  }

  /// The (key, node) pairs of a Map node with string keys.
  bool mapItems(size_t n, std::vector<std::pair<std::string, size_t>> &out) {
    if (!expectType(n, "Map"))
      return false;
    std::vector<size_t> values;
    if (!indexList(n, memberOf(nodes[n], "data"), values))
      return false;
    auto *keys = dynamic_cast<P::JsonArrayContext *>(memberOf(nodes[n], "keys"));
    size_t numKeys = keys ? keys->json().size() : 0;
    if (numKeys != values.size())
      return error(nodes[n], "TVM metadata: map node " + Twine(n) + " has " + Twine(numKeys) +
                                 " keys and " + Twine(values.size()) + " values");
    for (size_t i = 0; i < numKeys; ++i) {
      std::optional<std::string> k = jsonString(keys->json()[i]);
      if (!k)
        return error(keys->json()[i], "TVM metadata: a map key must be a string");
      out.emplace_back(*k, values[i]);
    }
    return true;
  }

  /// A runtime.String or TargetKind node's text ("" when it has none).
  std::string repr(size_t n) { return jsonString(memberOf(nodes[n], "repr_str")).value_or(""); }

  bool virtualDevice(size_t n, VirtualDevice &d) {
    if (!expectType(n, "VirtualDevice"))
      return false;
    d.loc = locOf(nodes[n]);
    int64_t type, id;
    if (!intAttr(n, "device_type_int", type) || !intAttr(n, "virtual_device_id", id))
      return false;
    std::optional<DeviceType> t = deviceTypeFromNumber(type);
    if (!t)
      return error(nodes[n], "TVM metadata: VirtualDevice node " + Twine(n) + " has device type " +
                                 Twine(type) +
                                 (type == -1 ? " (unconstrained), which hx does not support as a "
                                               "device annotation"
                                             : " (hx supports " + supportedTypes() + ")"));
    d.deviceType = *t;
    d.virtualDeviceId = id < 0 ? 0 : id;
    size_t scope, target;
    if (!ref(n, "memory_scope", scope) || !ref(n, "target", target))
      return false;
    d.memoryScope = scope ? repr(scope) : "";
    if (!target) {
      d.target = Target::defaultFor(d.deviceType);
      return true;
    }
    size_t kind;
    if (!expectType(target, "Target") || !ref(target, "kind", kind) ||
        !expectType(kind, "TargetKind"))
      return false;
    std::string err;
    std::optional<Target> parsed = Target::parse(repr(kind), err);
    if (!parsed)
      return error(nodes[kind], "TVM metadata: target kind '" + repr(kind) + "': " + err);
    if (parsed->deviceType() != d.deviceType)
      return error(nodes[target], "TVM metadata: target '" + parsed->str() +
                                      "' does not run on device type '" +
                                      deviceTypeName(d.deviceType) + "'");
    d.target = std::move(*parsed);
    return true;
  }

  bool constant(size_t n, std::shared_ptr<const TensorData> &out) {
    if (!expectType(n, "relay.Constant"))
      return false;
    int64_t k;
    if (!intAttr(n, "data", k))
      return false;
    if (!arrays || k < 0 || size_t(k) >= arrays->json().size())
      return error(nodes[n], "TVM metadata: constant node " + Twine(n) + "'s data " + Twine(k) +
                                 " is not an index of \"b64ndarrays\"");
    if (auto it = decoded.find(k); it != decoded.end()) {
      out = it->second;
      return true;
    }
    P::JsonContext *b64 = arrays->json()[k];
    std::optional<std::string> text = jsonString(b64);
    if (!text)
      return error(b64, "TVM metadata: an NDArray must be a base64 string");
    std::vector<char> raw;
    if (Error e = decodeBase64(*text, raw))
      return error(b64, "TVM metadata: NDArray " + Twine(k) + ": " + toString(std::move(e)));
    auto t = std::make_shared<TensorData>();
    std::string err;
    if (!decodeTVMNDArray(StringRef(raw.data(), raw.size()), *t, err))
      return error(b64, "TVM metadata: NDArray " + Twine(k) + ": " + err);
    if (!checkType(n, *t))
      return false;
    decoded[k] = t;
    out = std::move(t);
    return true;
  }

  /// The constant's `_checked_type_`, when TVM wrote one, must describe its
  /// NDArray.
  bool checkType(size_t n, const TensorData &t) {
    size_t ty;
    if (!attr(n, "_checked_type_"))
      return true;
    if (!ref(n, "_checked_type_", ty))
      return false;
    if (!ty || typeKey(ty) != "relay.TensorType")
      return true;
    std::optional<std::string> dtype = attr(ty, "dtype");
    size_t shapeNode;
    std::vector<size_t> dims;
    if (!ref(ty, "shape", shapeNode) || !arrayItems(shapeNode, dims))
      return false;
    bool same = dtype && parseDType(*dtype) == t.dtype && dims.size() == t.shape.size();
    for (size_t i = 0; same && i < dims.size(); ++i) {
      int64_t v;
      same = intAttr(dims[i], "value", v) && v == t.shape[i];
    }
    if (!same)
      return error(nodes[n], "TVM metadata: constant node " + Twine(n) +
                                 "'s NDArray does not match its type (node " + Twine(ty) + ")");
    return true;
  }

  bool error(antlr4::ParserRuleContext *at, const Twine &msg) {
    diags.error(locOf(at->getStart()), msg);
    return false;
  }

  DiagEngine &diags;
  std::vector<P::JsonObjectContext *> nodes;
  P::JsonArrayContext *arrays = nullptr;
  DenseMap<int64_t, std::shared_ptr<const TensorData>> decoded;
};

} // namespace

bool hx::isTVMObjectGraph(P::JsonObjectContext *obj) {
  return memberOf(obj, "root") && memberOf(obj, "nodes");
}

bool hx::readTVMObjectGraph(P::JsonObjectContext *obj, DiagEngine &diags,
                            std::vector<VirtualDevice> &devices,
                            std::vector<std::shared_ptr<const TensorData>> &constants) {
  return GraphReader(diags).read(obj, devices, constants);
}
