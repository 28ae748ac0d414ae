//===- OnnxValidate.cpp - Checking a model before it is imported ----------===//
//
// What must hold before libonnx sees a model, and libonnx's own checks:
// ONNX 1.12's shape inference reads tensors' data trusting their dims and
// divides by windows' strides unchecked, so every tensor and window is
// checked first, in the graph and in its If and Loop subgraphs, and other
// subgraphs (Scan's) and sparse tensors, which hx does not import, are
// refused before it runs. Then onnx::checker and
// onnx::shape_inference, whose exceptions become messages naming the file.
// A model of an opset newer than the installed onnx knows is checked node
// by node where its schemas still apply, and hx's converters and type
// relations check the rest (checkNewerThanOnnx).
//
//===----------------------------------------------------------------------===//
#include "OnnxImporter.h"
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

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

Error onnximport::checkBeforeOnnx(const onnx::ModelProto &model, StringRef fileName) {
  // ONNX 1.12's shape inference reads tensors' data trusting their dims:
  // every tensor is checked first, in the graph and in If's branches (a
  // worklist of graphs and their nesting, no recursion), and the subgraphs
  // hx does not import are refused before it sees them.
  SmallVector<std::pair<const onnx::GraphProto *, unsigned>, 8> graphs{{&model.graph(), 0}};
  while (!graphs.empty()) {
    auto [g, depth] = graphs.pop_back_val();
    for (const onnx::TensorProto &t : g->initializer())
      if (Expected<int64_t> c = checkTensorProto(t); !c)
        return createStringError(fileName + ": initializer: " + toString(c.takeError()));
    if (g->sparse_initializer_size())
      return createStringError(fileName + ": sparse initializers are not supported");
    for (const onnx::NodeProto &n : g->node()) {
      std::string where = fileName.str() + ": node '" + n.name() + "' (" + n.op_type() + "): ";
      // Its shape inference of windows also divides by the strides unchecked.
      static const char *windowed[] = {"Conv", "ConvTranspose", "MaxPool", "AveragePool", "LpPool"};
      if (llvm::is_contained(windowed, n.op_type()))
        for (const onnx::AttributeProto &a : n.attribute())
          if ((a.name() == "strides" || a.name() == "dilations" || a.name() == "kernel_shape") &&
              llvm::any_of(a.ints(), [](int64_t v) { return v < 1; }))
            return createStringError(where + a.name() + " must be positive");
      for (const onnx::AttributeProto &a : n.attribute()) {
        if (a.has_g() || a.graphs_size()) {
          if ((n.op_type() != "If" && n.op_type() != "Loop" && n.op_type() != "Scan") ||
              a.graphs_size() || !n.domain().empty())
            return createStringError(where + "subgraphs are imported for If, Loop and Scan only");
          if (depth + 1 > kMaxSubgraphDepth)
            return createStringError(where + "subgraphs nest deeper than " +
                                     Twine(kMaxSubgraphDepth) + " levels");
          graphs.push_back({&a.g(), depth + 1});
        }
        auto checkOne = [&](const onnx::TensorProto &t) -> Error {
          if (Expected<int64_t> c = checkTensorProto(t); !c)
            return createStringError(where + "attribute '" + a.name() +
                                     "': " + toString(c.takeError()));
          return Error::success();
        };
        if (a.has_t())
          if (Error e = checkOne(a.t()))
            return e;
        for (const onnx::TensorProto &t : a.tensors())
          if (Error e = checkOne(t))
            return e;
        if (a.has_sparse_tensor() || a.sparse_tensors_size())
          return createStringError(where + "sparse tensors are not supported");
      }
    }
  }
  return Error::success();
}

int64_t onnximport::newestOnnxSchemaOpset() {
  const auto &ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto it = ranges.find("");
  return it == ranges.end() ? 0 : it->second.second;
}

/// Op types whose signature or attributes changed after the opset the
/// installed onnx knows (ONNX's Changelog.md, opsets 18 to 21): the schema
/// it has would refuse or mistype them, so hx's converter checks them.
static bool changedAfterKnownSchemas(StringRef opType) {
  static const char *changed[] = {"AveragePool",
                                  "Cast",
                                  "CastLike",
                                  "DequantizeLinear",
                                  "GroupNormalization",
                                  "LpPool",
                                  "Pad",
                                  "QuantizeLinear",
                                  "ReduceL1",
                                  "ReduceL2",
                                  "ReduceLogSum",
                                  "ReduceLogSumExp",
                                  "ReduceMax",
                                  "ReduceMean",
                                  "ReduceMin",
                                  "ReduceProd",
                                  "ReduceSumSquare",
                                  "Resize",
                                  "ScatterElements",
                                  "ScatterND",
                                  "Split"};
  return llvm::is_contained(changed, opType);
}

/// A model of an opset newer than the installed onnx's schemas: each node
/// whose op type has kept its signature is checked against the newest
/// schema onnx has (the rest by hx's converters), and shape inference runs
/// with those schemas, its errors ignored (hx types what it builds itself,
/// OnnxTyping.cpp).
static void checkNewerThanOnnx(onnx::ModelProto &model, int64_t known) {
  onnx::checker::CheckerContext cc;
  cc.set_ir_version(std::min<int>(int(model.ir_version()), onnx::Version::IR_VERSION));
  cc.set_opset_imports({{"", int(known)}});
  onnx::checker::LexicalScopeContext scope;
  for (const onnx::NodeProto &n : model.graph().node())
    if ((n.domain().empty() || n.domain() == "ai.onnx") && !changedAfterKnownSchemas(n.op_type()) &&
        onnx::OpSchemaRegistry::Schema(n.op_type(), int(known), ""))
      onnx::checker::check_node(n, cc, scope);
  // Inference with the schemas onnx knows: the opset as it reads it.
  std::vector<int64_t> saved;
  for (onnx::OperatorSetIdProto &o : *model.mutable_opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") {
      saved.push_back(o.version());
      o.set_version(known);
    }
  int64_t irVersion = model.ir_version();
  model.set_ir_version(std::min<int64_t>(irVersion, onnx::Version::IR_VERSION));
  spellOutKernelShapes(*model.mutable_graph());
  onnx::ShapeInferenceOptions options(/*check_type=*/false, /*strict_mode=*/0);
  onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
  size_t k = 0;
  for (onnx::OperatorSetIdProto &o : *model.mutable_opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx")
      o.set_version(saved[k++]);
  model.set_ir_version(irVersion);
}

Error onnximport::checkWithOnnx(onnx::ModelProto &model, StringRef fileName) {
  try {
    int64_t known = newestOnnxSchemaOpset();
    if (modelOpset(model) > known) {
      checkNewerThanOnnx(model, known);
      return Error::success();
    }
    onnx::checker::check_model(model);
    spellOutKernelShapes(*model.mutable_graph());
    onnx::shape_inference::InferShapes(model);
  } catch (const std::exception &e) {
    return createStringError(fileName +
                             ": the model is not valid ONNX: " + StringRef(e.what()).trim());
  }
  return Error::success();
}
