//===- OnnxConverterTableTest.cpp - Converters by op type and opset -------===//
//
// The table picks the row whose opset range holds the model's opset, at
// either edge of each range; it agrees with ONNX's own schemas on the
// opsets at which each op type exists; an opset outside every row is
// refused; and the rows where ONNX moved an attribute to an input convert
// models of either side of the change (models built here with libonnx's
// protobuf classes).
//
//===----------------------------------------------------------------------===//
#include "OnnxConverter.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <onnx/defs/schema.h>

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

namespace {

const ConverterTable &table() { return converterTable(); }

/// The opsets of the row a lookup picks, or {0, 0} for none.
std::pair<int64_t, int64_t> rowAt(StringRef op, int64_t opset) {
  const ConverterRow *r = table().find(op, opset);
  return r ? std::make_pair(r->opsets.since, r->opsets.until)
           : std::make_pair(int64_t(0), int64_t(0));
}

TEST(OnnxConverterTableTest, LookupPicksTheRowAtEachEdge) {
  using P = std::pair<int64_t, int64_t>;
  EXPECT_EQ(rowAt("Softmax", 11), P(11, 12));
  EXPECT_EQ(rowAt("Softmax", 12), P(11, 12));
  EXPECT_EQ(rowAt("Softmax", 13), P(13, 21));
  EXPECT_EQ(rowAt("Softmax", 21), P(13, 21));
  EXPECT_EQ(rowAt("Softmax", 22), P(0, 0));
  EXPECT_EQ(rowAt("Softmax", 10), P(0, 0));
  EXPECT_EQ(rowAt("Clip", 6), P(6, 10));
  EXPECT_EQ(rowAt("Clip", 10), P(6, 10));
  EXPECT_EQ(rowAt("Clip", 11), P(11, 21));
  EXPECT_EQ(rowAt("ReduceSum", 12), P(11, 12));
  EXPECT_EQ(rowAt("ReduceSum", 13), P(13, 21));
  EXPECT_EQ(rowAt("ReduceMean", 13), P(11, 17));
  EXPECT_EQ(rowAt("ReduceMean", 18), P(18, 21));
  EXPECT_EQ(rowAt("Split", 17), P(13, 17));
  EXPECT_EQ(rowAt("Split", 18), P(18, 21));
  EXPECT_EQ(rowAt("LayerNormalization", 16), P(0, 0));
  EXPECT_EQ(rowAt("LayerNormalization", 17), P(17, 21));
  EXPECT_NE(table().find("ReduceMax", 17)->convert, table().find("ReduceMax", 18)->convert);
  EXPECT_NE(table().find("Softmax", 12)->convert, table().find("Softmax", 13)->convert);
  EXPECT_TRUE(table().rows("STFT").empty());
  EXPECT_EQ(rowAt("STFT", 17), P(0, 0));
  std::vector<std::string> ops = table().opTypes();
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
  EXPECT_EQ(ops, supportedOnnxOps());
}

// Each op type's rows are ordered, disjoint and within the opsets hx
// imports; at each opset from kMinConverterOpset to the newest the
// installed onnx has schemas for, a row exists exactly when ONNX defines
// the operator.
TEST(OnnxConverterTableTest, RowsAgreeWithOnnxSchemas) {
  for (const std::string &op : table().opTypes()) {
    ArrayRef<ConverterRow> rows = table().rows(op);
    for (size_t i = 0; i < rows.size(); ++i) {
      EXPECT_LE(rows[i].opsets.since, rows[i].opsets.until) << op;
      EXPECT_LE(rows[i].opsets.until, kMaxOnnxOpset) << op;
      if (i)
        EXPECT_LT(rows[i - 1].opsets.until, rows[i].opsets.since) << op;
    }
    int64_t known = std::min(kMaxOnnxOpset, newestOnnxSchemaOpset());
    for (int64_t opset = kMinConverterOpset; opset <= known; ++opset) {
      const onnx::OpSchema *schema = onnx::OpSchemaRegistry::Schema(op, int(opset), "");
      EXPECT_EQ(schema != nullptr, table().find(op, opset) != nullptr)
          << op << " at opset " << opset;
    }
    // Past the schemas onnx has (no operator was removed up to opset 21):
    // an operator it knows has a row at every later opset hx imports.
    if (onnx::OpSchemaRegistry::Schema(op, int(known), ""))
      for (int64_t opset = known + 1; opset <= kMaxOnnxOpset; ++opset)
        EXPECT_NE(table().find(op, opset), nullptr) << op << " at opset " << opset;
  }
}

// ---- models ---------------------------------------------------------------

struct Model {
  onnx::ModelProto proto;
  onnx::GraphProto &g;

  /// A graph of input `x` (float32, `dims`) and output `y` (float32,
  /// `outDims`) at `opset`.
  Model(int64_t opset, ArrayRef<int64_t> dims, ArrayRef<int64_t> outDims)
      : g(*proto.mutable_graph()) {
    proto.set_ir_version(8);
    proto.add_opset_import()->set_version(opset);
    g.set_name("g");
    onnx::ValueInfoProto *x = g.add_input();
    x->set_name("x");
    auto *tt = x->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims)
      tt->mutable_shape()->add_dim()->set_dim_value(d);
    onnx::ValueInfoProto *y = g.add_output();
    y->set_name("y");
    declareOutput(*y, outDims);
  }

  static void declareOutput(onnx::ValueInfoProto &v, ArrayRef<int64_t> dims) {
    auto *tt = v.mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims)
      tt->mutable_shape()->add_dim()->set_dim_value(d);
  }

  onnx::NodeProto &node(StringRef op, std::vector<std::string> inputs,
                        std::vector<std::string> outputs = {"y"}) {
    onnx::NodeProto &n = *g.add_node();
    n.set_op_type(op.str());
    n.set_name("/" + op.str());
    for (const std::string &i : inputs)
      n.add_input(i);
    for (const std::string &o : outputs)
      n.add_output(o);
    return n;
  }

  void ints(onnx::NodeProto &n, StringRef name, std::vector<int64_t> v) {
    onnx::AttributeProto *a = n.add_attribute();
    a->set_name(name.str());
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v)
      a->add_ints(x);
  }

  void floatAttr(onnx::NodeProto &n, StringRef name, float v) {
    onnx::AttributeProto *a = n.add_attribute();
    a->set_name(name.str());
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }

  void int64Initializer(StringRef name, std::vector<int64_t> v) {
    onnx::TensorProto *t = g.add_initializer();
    t->set_name(name.str());
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(int64_t(v.size()));
    for (int64_t x : v)
      t->add_int64_data(x);
  }

  /// importOnnx on the serialized model: the text, or "error: ...".
  std::string import() {
    std::string bytes;
    proto.SerializeToString(&bytes);
    Expected<ImportedModule> m = importOnnx(bytes, "m.onnx");
    return m ? m->text : "error: " + toString(m.takeError());
  }

  /// The import of any opset (Importer::importModel, past run()'s check).
  std::string importAnyOpset() {
    OnnxImportOptions opts;
    Importer imp("m.onnx", opts);
    Expected<ImportedModule> m = imp.importModel(proto);
    return m ? m->text : "error: " + toString(m.takeError());
  }
};

bool has(const std::string &text, StringRef what) { return StringRef(text).contains(what); }

/// The text from its def on (the header names the opset).
std::string body(const std::string &text) { return text.substr(text.find("def @main")); }

TEST(OnnxConverterTableTest, SoftmaxBeforeAndFromOpset13) {
  for (int64_t opset : {12, 13}) {
    Model m(opset, {2, 3, 4}, {2, 3, 4});
    m.node("Softmax", {"x"});
    std::string text = m.import();
    if (opset == 12) // axis 1 by default: the input read as [2, 12]
      EXPECT_TRUE(has(text, "%0 = reshape(%x, newshape=[-1, 12]); %1 = nn.softmax(%0, axis=1); "
                            "// onnx:Softmax /Softmax\n"))
          << text;
    else // the last axis by default
      EXPECT_TRUE(has(text, "  nn.softmax(%x, axis=2) // onnx:Softmax /Softmax\n")) << text;
  }
}

TEST(OnnxConverterTableTest, HardmaxBeforeAndFromOpset13) {
  for (int64_t opset : {12, 13}) {
    Model m(opset, {2, 3, 4}, {2, 3, 4});
    m.node("Hardmax", {"x"});
    std::string text = m.import();
    if (opset == 12) // axis 1 by default: the input read as [2, 12]
      EXPECT_TRUE(has(text, "%0 = reshape(%x, newshape=[2, 12]); %1 = argmax(%0, axis=[1], "
                            "keepdims=True);"))
          << text;
    else // the last axis by default
      EXPECT_TRUE(has(text, "%0 = argmax(%x, axis=[2], keepdims=True);")) << text;
  }
}

TEST(OnnxConverterTableTest, AxesAttributeThenInput) {
  Model before(12, {2, 3}, {1, 2, 1});
  before.ints(before.node("Unsqueeze", {"x"}, {"u"}), "axes", {0});
  before.ints(before.node("ReduceSum", {"u"}), "axes", {2});
  std::string text = before.import();
  EXPECT_TRUE(has(text, "expand_dims(%x, axis=0); // onnx:Unsqueeze /Unsqueeze")) << text;
  EXPECT_TRUE(has(text, "sum(%0, axis=[2], keepdims=True) // onnx:ReduceSum /ReduceSum")) << text;

  Model from(13, {2, 3}, {1, 2, 1});
  from.int64Initializer("a0", {0});
  from.int64Initializer("a2", {2});
  from.node("Unsqueeze", {"x", "a0"}, {"u"});
  from.node("ReduceSum", {"u", "a2"});
  EXPECT_EQ(body(from.import()), body(text));
}

TEST(OnnxConverterTableTest, SplitSizesAttributeThenInput) {
  auto split = [](int64_t opset) {
    Model m(opset, {5, 2}, {2, 2});
    onnx::NodeProto &n =
        m.node("Split",
               opset < 13 ? std::vector<std::string>{"x"} : std::vector<std::string>{"x", "sizes"},
               {"y", "z"});
    if (opset < 13)
      m.ints(n, "split", {2, 3});
    else
      m.int64Initializer("sizes", {2, 3});
    onnx::ValueInfoProto *z = m.g.add_output();
    z->set_name("z");
    Model::declareOutput(*z, {3, 2});
    return m.import();
  };
  std::string text = split(12);
  EXPECT_TRUE(has(text, "%0 = split(%x, indices_or_sections=[2]); %1 = %0.0; %2 = %0.1; "
                        "// onnx:Split /Split\n  (%1, %2)\n"))
      << text;
  EXPECT_EQ(body(split(13)), body(text));
}

// Clip's bounds were attributes before opset 11: that row converts such a
// model as it is; run() first raises it to opset 11 with onnx's version
// converter, which makes the bounds inputs, and the same call results.
TEST(OnnxConverterTableTest, ClipAttributesThenInputs) {
  Model before(10, {4}, {4});
  onnx::NodeProto &n = before.node("Clip", {"x"});
  before.floatAttr(n, "min", -1);
  before.floatAttr(n, "max", 2);
  EXPECT_TRUE(has(before.importAnyOpset(), "clip(%x, a_min=-1f, a_max=2f) // onnx:Clip /Clip"));
  std::string upgraded = before.import();
  EXPECT_TRUE(has(upgraded, "(ONNX opset 10, upgraded to 11 by onnx's version converter)"))
      << upgraded;
  EXPECT_TRUE(has(upgraded, "clip(%x, a_min=-1f, a_max=2f) // onnx:Clip /Clip")) << upgraded;

  Model from(11, {4}, {4});
  onnx::TensorProto *lo = from.g.add_initializer();
  lo->set_name("lo");
  lo->set_data_type(onnx::TensorProto::FLOAT);
  lo->add_float_data(-1);
  from.node("Clip", {"x", "lo"});
  std::string text = from.import();
  EXPECT_TRUE(has(text, "clip(%x, a_min=-1f, a_max=3.4028235e+38f) // onnx:Clip /Clip")) << text;
}

// A model at an opset outside every row: refused before any node by the
// opset check (its message), or, past it, at the node, naming the opsets
// hx imports the op type at.
TEST(OnnxConverterTableTest, AnOpsetOutsideEveryRowIsRefused) {
  Model m(22, {4}, {4});
  m.node("Relu", {"x"});
  EXPECT_EQ(m.import(), "error: m.onnx: opset 22 is not supported; hx imports opsets 1 to 21 "
                        "(re-export the model, e.g. torch.onnx.export(..., opset_version=17))");
  Model old(10, {4}, {4});
  old.node("Relu", {"x"});
  EXPECT_EQ(old.importAnyOpset(), "error: m.onnx: node '/Relu' (Relu, opset 10): op type 'Relu' "
                                  "is not supported at opset 10; hx imports it at opsets 11 to 21");
}

} // namespace
