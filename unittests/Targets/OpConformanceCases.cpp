//===- OpConformanceCases.cpp - The conformance suite's programs ----------===//
//
// Per operator, shapes that cover the kernels' paths: broadcasting of every
// kind, empty and scalar tensors, sizes that are no multiple of a vector or
// a tile (and tiles with partial edges on cuda), every attribute set, and
// input ranges inside each operator's domain (positive divisors, logs of
// positive numbers, indices in or out of range where the mode defines it).
//
//===----------------------------------------------------------------------===//

#include "OpConformanceCases.h"

namespace hx::test {

static std::vector<OpCase> binaryCases(const std::string &op, double lo = -3, double hi = 3,
                                       std::optional<std::pair<double, double>> rhs = {}) {
  std::vector<OpCase> out;
  const char *pairs[][2] = {{"(17)", "(17)"},      {"(1000)", "()"},     {"(4, 17)", "(17)"},
                            {"(4, 17)", "(4, 1)"}, {"(3, 1)", "(1, 5)"}, {"(2, 3, 4)", "(3, 1)"},
                            {"(1)", "(1)"},        {"(0, 3)", "(3)"}};
  for (auto &p : pairs)
    out.push_back({std::string("%a: Tensor[") + p[0] + ", {T}], %b: Tensor[" + p[1] + ", {T}]",
                   op + "(%a, %b)", lo, hi, rhs});
  return out;
}

static std::vector<OpCase> unaryCases(const std::string &op, const std::string &attrs = "",
                                      double lo = -3, double hi = 3) {
  std::vector<OpCase> out;
  for (const char *s : {"(17)", "()", "(1000)", "(3, 1, 5)", "(2, 0)"})
    out.push_back({std::string("%a: Tensor[") + s + ", {T}]", op + "(%a" + attrs + ")", lo, hi});
  return out;
}

std::vector<OpCase> casesFor(llvm::StringRef op) {
  std::string o = op.str();
  if (op == "add" || op == "subtract" || op == "multiply" || op == "maximum" || op == "minimum" ||
      op == "equal" || op == "less" || op == "greater" || op == "less_equal" ||
      op == "greater_equal" || op == "logical_and" || op == "logical_or" || op == "logical_xor")
    return binaryCases(o);
  if (op == "floor_mod" || op == "mod") // divisors of both signs, 0 for integers
    return binaryCases(o, -20, 20, std::make_pair(-6.0, 6.0));
  if (op == "bitwise_and" || op == "bitwise_or" || op == "bitwise_xor")
    return binaryCases(o, -1000, 1000);
  if (op == "left_shift" || op == "right_shift") // counts out of range too
    return binaryCases(o, -1000, 1000, std::make_pair(-3.0, 70.0));
  if (op == "divide")
    return binaryCases(o, -20, 20, std::make_pair(1.0, 6.0));
  if (op == "power")
    return binaryCases(o, 0.1, 3, std::make_pair(-2.0, 2.0));
  if (op == "where")
    return {{"%c: Tensor[(4, 1), bool], %x: Tensor[(17), {T}], %y: Tensor[(4, 17), {T}]",
             "where(%c, %x, %y)"},
            {"%c: Tensor[(5), int32], %x: Tensor[(5), {T}], %y: Tensor[(), {T}]",
             "where(%c, %x, %y)", -1, 1},
            {"%c: Tensor[(2, 3), float32], %x: Tensor[(2, 3), {T}], %y: Tensor[(2, 3), {T}]",
             "where(%c, %x, %y)", -1, 1}};
  if (op == "log" || op == "sqrt" || op == "rsqrt")
    return unaryCases(o, "", 0.1, 10);
  if (op == "exp" || op == "tanh" || op == "sigmoid")
    return unaryCases(o, "", -10, 10);
  if (op == "negative" || op == "abs" || op == "nn.relu" || op == "copy")
    return unaryCases(o);
  if (op == "erf")
    return unaryCases(o, "", -4, 4);
  if (op == "floor" || op == "ceil" || op == "round" || op == "sign" || op == "isnan" ||
      op == "isinf" || op == "logical_not" || op == "bitwise_not")
    return unaryCases(o, "", -5, 5);
  if (op == "sin" || op == "cos" || op == "atan" || op == "asinh")
    return unaryCases(o, "", -6, 6);
  if (op == "tan")
    return unaryCases(o, "", -1.4, 1.4);
  if (op == "asin" || op == "acos" || op == "atanh")
    return unaryCases(o, "", -0.99, 0.99);
  if (op == "sinh" || op == "cosh")
    return unaryCases(o, "", -5, 5);
  if (op == "acosh")
    return unaryCases(o, "", 1, 10);
  if (op == "nn.leaky_relu") {
    std::vector<OpCase> out = unaryCases(o);
    for (OpCase c : unaryCases(o, ", alpha=0.2f"))
      out.push_back(c);
    return out;
  }
  if (op == "clip")
    return unaryCases(o, ", a_min=-1.5f, a_max=2.5f");
  if (op == "cast") {
    std::vector<OpCase> out;
    for (const char *to : {"float16", "float32", "int32", "int64", "bool"})
      for (OpCase c : unaryCases(o, std::string(", dtype=\"") + to + "\"", -100, 100))
        out.push_back(c);
    return out;
  }
  if (op == "sum" || op == "mean" || op == "max" || op == "min") {
    std::vector<OpCase> out;
    for (const char *attrs : {"", ", axis=[1]", ", axis=[-1], keepdims=True", ", axis=[0, 2]",
                              ", axis=[1], exclude=True", ", axis=0"})
      out.push_back({"%a: Tensor[(3, 17, 5), {T}]", o + "(%a" + attrs + ")"});
    out.push_back({"%a: Tensor[(1000), {T}]", o + "(%a)"});
    out.push_back({"%a: Tensor[(64, 300), {T}]", o + "(%a, axis=[1])"});
    return out;
  }
  if (op == "prod") {
    // Factors near 1, so that 1000 of them neither overflow nor vanish.
    std::vector<OpCase> out;
    for (const char *attrs : {"", ", axis=[1]", ", axis=[-1], keepdims=True", ", axis=[0, 2]",
                              ", axis=[1], exclude=True"})
      out.push_back({"%a: Tensor[(3, 17, 5), {T}]", o + "(%a" + attrs + ")", 0.5, 1.5});
    out.push_back({"%a: Tensor[(1000), {T}]", o + "(%a)", 0.9, 1.1});
    out.push_back({"%a: Tensor[(3, 4), {T}]", o + "(%a)", -2, 2});
    return out;
  }
  if (op == "argmax" || op == "argmin") {
    std::vector<OpCase> out;
    for (const char *attrs : {"", ", axis=[1]", ", axis=[-1], keepdims=True", ", axis=[0, 2]",
                              ", axis=[1], exclude=True", ", axis=0, select_last_index=True",
                              ", axis=[2, 0], keepdims=True, select_last_index=True"})
      out.push_back({"%a: Tensor[(3, 17, 5), {T}]", o + "(%a" + attrs + ")"});
    out.push_back({"%a: Tensor[(1000), {T}]", o + "(%a)"});
    out.push_back({"%a: Tensor[(64, 300), {T}]", o + "(%a, axis=[1])"});
    // Ties: small integers repeat along the axis.
    out.push_back({"%a: Tensor[(4, 9), {T}]", o + "(%a, axis=[1])", -2, 2});
    out.push_back({"%a: Tensor[(4, 9), {T}]", o + "(%a, axis=[1], select_last_index=True)", -2, 2});
    return out;
  }
  if (op == "cumsum")
    return {{"%a: Tensor[(3, 17, 5), {T}]", "cumsum(%a, axis=1)"},
            {"%a: Tensor[(3, 17, 5), {T}]", "cumsum(%a, axis=-1, exclusive=True)"},
            {"%a: Tensor[(3, 17, 5), {T}]", "cumsum(%a, axis=0)"},
            {"%a: Tensor[(3, 17, 5), {T}]", "cumsum(%a)"},
            {"%a: Tensor[(1000), {T}]", "cumsum(%a, axis=0, exclusive=True)"},
            {"%a: Tensor[(4, 6), {T}]", "cumsum(%a, axis=1, dtype=\"float32\")"},
            {"%a: Tensor[(0, 3), {T}]", "cumsum(%a, axis=1)"}};
  if (op == "gather") {
    // Indices from -20 to 19: negative ones count from the end, the rest
    // clamp.
    auto idx = std::make_pair(-20.0, 19.0);
    return {{"%a: Tensor[(3, 17, 5), {T}], %i: Tensor[(3, 4, 5), int64]", "gather(%a, %i, axis=1)",
             -3, 3, idx},
            {"%a: Tensor[(3, 17, 5), {T}], %i: Tensor[(2, 9, 3), int32]", "gather(%a, %i, axis=-1)",
             -3, 3, idx},
            {"%a: Tensor[(6, 4), {T}], %i: Tensor[(9, 4), int64]", "gather(%a, %i)", -3, 3, idx},
            {"%a: Tensor[(1000), {T}], %i: Tensor[(300), int32]", "gather(%a, %i)", -3, 3,
             std::make_pair(-1000.0, 999.0)},
            {"%a: Tensor[(4, 3), {T}], %i: Tensor[(0, 3), int64]", "gather(%a, %i)", -3, 3, idx}};
  }
  if (op == "gather_nd") {
    auto idx = std::make_pair(-6.0, 5.0);
    return {
        {"%a: Tensor[(3, 5, 4), {T}], %i: Tensor[(2, 7), int64]", "gather_nd(%a, %i)", -3, 3, idx},
        {"%a: Tensor[(3, 5, 4), {T}], %i: Tensor[(3, 2, 3), int32]", "gather_nd(%a, %i)", -3, 3,
         idx},
        {"%a: Tensor[(3, 5, 4), {T}], %i: Tensor[(1, 3, 2), int64]",
         "gather_nd(%a, %i, batch_dims=1)", -3, 3, idx},
        {"%a: Tensor[(4, 300), {T}], %i: Tensor[(1, 9), int32]", "gather_nd(%a, %i)", -3, 3, idx},
        {"%a: Tensor[(4, 3), {T}], %i: Tensor[(1, 0), int64]", "gather_nd(%a, %i)", -3, 3, idx}};
  }
  if (op == "scatter_elements") {
    // Indices from -8 to 7 into axes of 5 to 17: repeats and clamps, so
    // the order of the updates and every mode show.
    auto idx = std::make_pair(-8.0, 7.0);
    std::vector<OpCase> out;
    for (const char *mode : {"", ", reduction=\"add\"", ", reduction=\"mul\"",
                             ", reduction=\"min\"", ", reduction=\"max\""})
      out.push_back({"%a: Tensor[(3, 17, 5), {T}], %i: Tensor[(3, 4, 5), int64], %u: Tensor[(3, 4, "
                     "5), {T}]",
                     std::string("scatter_elements(%a, %i, %u, axis=1") + mode + ")", -3, 3, idx});
    for (OpCase &c : out)
      c.skipBool =
          c.expr.find("add") != std::string::npos || c.expr.find("mul") != std::string::npos;
    out.push_back({"%a: Tensor[(6, 5), {T}], %i: Tensor[(9, 2), int32], %u: Tensor[(9, 2), {T}]",
                   "scatter_elements(%a, %i, %u, axis=-2, reduction=\"max\")", -3, 3, idx});
    out.push_back({"%a: Tensor[(4, 3), {T}], %i: Tensor[(0, 3), int64], %u: Tensor[(0, 3), {T}]",
                   "scatter_elements(%a, %i, %u)", -3, 3, idx});
    return out;
  }
  if (op == "scatter_nd") {
    auto idx = std::make_pair(-6.0, 5.0);
    std::vector<OpCase> out;
    for (const char *mode :
         {"", ", mode=\"add\"", ", mode=\"mul\"", ", mode=\"min\"", ", mode=\"max\""})
      out.push_back(
          {"%a: Tensor[(3, 5, 4), {T}], %i: Tensor[(2, 7), int64], %u: Tensor[(7, 4), {T}]",
           std::string("scatter_nd(%a, %i, %u") + mode + ")", -3, 3, idx});
    out.push_back({"%a: Tensor[(3, 5, 4), {T}], %i: Tensor[(3, 2, 3), int32], %u: Tensor[(2, 3), "
                   "{T}]",
                   "scatter_nd(%a, %i, %u)", -3, 3, idx});
    out.push_back({"%a: Tensor[(4, 300), {T}], %i: Tensor[(1, 9), int32], %u: Tensor[(9, 300), "
                   "{T}]",
                   "scatter_nd(%a, %i, %u, mode=\"add\")", -3, 3, idx});
    out.push_back({"%a: Tensor[(4, 3), {T}], %i: Tensor[(1, 0), int64], %u: Tensor[(0, 3), {T}]",
                   "scatter_nd(%a, %i, %u)", -3, 3, idx});
    for (OpCase &c : out)
      c.skipBool =
          c.expr.find("add") != std::string::npos || c.expr.find("mul") != std::string::npos;
    return out;
  }
  if (op == "reshape")
    return {{"%a: Tensor[(2, 3, 4), {T}]", "reshape(%a, newshape=[0, -1])"},
            {"%a: Tensor[(6), {T}]", "reshape(%a, newshape=[3, 2])"}};
  if (op == "transpose")
    return {{"%a: Tensor[(2, 3, 4), {T}]", "transpose(%a)"},
            {"%a: Tensor[(2, 3, 4), {T}]", "transpose(%a, axes=[0, 2, 1])"},
            {"%a: Tensor[(17, 33), {T}]", "transpose(%a, axes=[1, 0])"}};
  if (op == "expand_dims")
    return {{"%a: Tensor[(2, 3), {T}]", "expand_dims(%a, axis=1, num_newaxis=2)"}};
  if (op == "squeeze")
    return {{"%a: Tensor[(1, 3, 1), {T}]", "squeeze(%a)"},
            {"%a: Tensor[(1, 3, 1), {T}]", "squeeze(%a, axis=[2])"}};
  if (op == "concatenate")
    return {{"%a: Tensor[(2, 3), {T}], %b: Tensor[(4, 3), {T}]", "concatenate((%a, %b))"},
            {"%a: Tensor[(2, 3), {T}], %b: Tensor[(2, 1), {T}], %c: Tensor[(2, 5), {T}]",
             "concatenate((%a, %b, %c), axis=-1)"}};
  if (op == "stack")
    return {{"%a: Tensor[(2, 3), {T}], %b: Tensor[(2, 3), {T}]", "stack((%a, %b))"},
            {"%a: Tensor[(4, 5), {T}], %b: Tensor[(4, 5), {T}], %c: Tensor[(4, 5), {T}]",
             "stack((%a, %b, %c), axis=-1)"},
            {"%a: Tensor[(2, 3, 4), {T}], %b: Tensor[(2, 3, 4), {T}]", "stack((%a, %b), axis=2)"},
            {"%a: Tensor[(3, 17), {T}], %b: Tensor[(3, 17), {T}]", "stack((%a, %b), axis=-2)"},
            {"%a: Tensor[(), {T}], %b: Tensor[(), {T}]", "stack((%a, %b))"},
            {"%a: Tensor[(5), {T}]", "stack((%a,), axis=1)"},
            {"%a: Tensor[(0, 3), {T}], %b: Tensor[(0, 3), {T}]", "stack((%a, %b), axis=1)"}};
  if (op == "strided_slice")
    return {
        {"%a: Tensor[(4, 6), {T}]", "strided_slice(%a, begin=[0, 1], end=[2, 3])"},
        {"%a: Tensor[(4, 6), {T}]", "strided_slice(%a, begin=[3, 1], end=[0, 6], strides=[-1, 2])"},
        {"%a: Tensor[(4, 6), {T}]", "strided_slice(%a, begin=[-1], end=[-5], strides=[-1])"},
        {"%a: Tensor[(4, 6), {T}]", "strided_slice(%a, begin=[3], end=[], strides=[-1])"},
        {"%a: Tensor[(4, 6), {T}]",
         "strided_slice(%a, begin=[1, 2], end=[2, -1], strides=[-1, 3], slice_mode=\"size\")"},
        {"%a: Tensor[(2, 5, 7), {T}]",
         "strided_slice(%a, begin=[-2, 1], end=[100, 6], strides=[1, 2], axes=[-1, 1])"},
        {"%a: Tensor[(2, 5, 7), {T}]",
         "strided_slice(%a, begin=[4], end=[0], strides=[-3], axes=[1])"},
        {"%a: Tensor[(3, 1000), {T}]",
         "strided_slice(%a, begin=[0, 999], end=[3, 0], strides=[2, -3])"},
        {"%a: Tensor[(4, 6), {T}]", "strided_slice(%a, begin=[2], end=[2])"},
        {"%a: Tensor[(0, 3), {T}]", "strided_slice(%a, begin=[0, 1], end=[0, 3])"},
        {"%a: Tensor[(0, 3), {T}]", "strided_slice(%a, begin=[0], end=[0], strides=[-1])"}};
  if (op == "nn.pad") {
    std::vector<OpCase> out;
    auto pad = [&](const char *data, const char *attrs, const char *value = "{T}") {
      out.push_back({std::string("%a: Tensor[") + data + ", {T}], %v: Tensor[(), " + value + "]",
                     std::string("nn.pad(%a, %v, ") + attrs + ")", -3, 3,
                     std::make_pair(-5.5, 5.5)});
    };
    pad("(3, 4)", "pad_width=[[1, 2], [0, 3]]");
    pad("(3, 4)", "pad_width=[[2, 1], [3, 0]], pad_mode=\"edge\"");
    pad("(3, 4)", "pad_width=[[2, 2], [1, 3]], pad_mode=\"reflect\"");
    pad("(1, 2, 5, 5)", "pad_width=[[0, 0], [0, 0], [1, 1], [1, 1]]");
    pad("(2, 1000)", "pad_width=[[1, 0], [5, 7]], pad_mode=\"reflect\"");
    pad("(2, 7, 3)", "pad_width=[[1, 1], [0, 0], [2, 0]], pad_mode=\"edge\"");
    pad("(3, 4)", "pad_width=[[1, 1], [1, 1]]", "float32");
    pad("(0, 3)", "pad_width=[[1, 1], [0, 2]]");
    pad("(0, 3)", "pad_width=[[0, 0], [1, 1]], pad_mode=\"edge\"");
    pad("(5)", "pad_width=[[0, 0]]");
    pad("()", "pad_width=[]");
    return out;
  }
  if (op == "layout_transform") {
    std::vector<OpCase> out;
    auto lt = [&](const char *shape, const char *src, const char *dst) {
      out.push_back({std::string("%a: Tensor[") + shape + ", {T}]",
                     std::string("layout_transform(%a, src_layout=\"") + src + "\", dst_layout=\"" +
                         dst + "\")"});
    };
    lt("(2, 3, 4, 5)", "NCHW", "NHWC");
    lt("(2, 4, 5, 3)", "NHWC", "NCHW");
    lt("(2, 3, 17)", "NCW", "NWC");
    lt("(1, 8, 3, 5)", "NCHW", "NCHW4c");
    lt("(1, 2, 3, 5, 4)", "NCHW4c", "NCHW");
    lt("(1, 4, 2, 3, 4)", "NCHW4c", "NCHW8c");
    lt("(1, 2, 2, 3, 8)", "NCHW8c", "NCHW4c");
    lt("(1, 32, 2, 3)", "NCHW", "NHWC16c");
    lt("(2, 3, 3, 5, 2)", "NCHW2c", "NHWC");
    lt("(1, 8, 3, 5)", "NCHW", "NC4cHW");
    lt("(2, 3, 4, 5)", "NCHW", "NCHW");
    lt("(6)", "C", "C2c");
    lt("(3, 1000)", "HW", "WH");
    lt("(0, 4, 2, 2)", "NCHW", "NCHW4c");
    return out;
  }
  if (op == "split")
    return {{"%a: Tensor[(6, 4), {T}]", "split(%a, indices_or_sections=3)"},
            {"%a: Tensor[(6, 5), {T}]", "split(%a, indices_or_sections=[1, 4], axis=1)"}};
  if (op == "nn.dense")
    return {{"%a: Tensor[(4, 17), {T}], %w: Tensor[(5, 17), {T}]", "nn.dense(%a, %w)"},
            {"%a: Tensor[(2, 3, 64), {T}], %w: Tensor[(7, 64), {T}]", "nn.dense(%a, %w, units=7)"},
            {"%a: Tensor[(1, 1000), {T}], %w: Tensor[(3, 1000), {T}]", "nn.dense(%a, %w)"},
            // Tiled on cuda (m, n >= 32): one partial tile, then 2 x 2 tiles
            // with partial edges and a depth that is no multiple of 8.
            {"%a: Tensor[(40, 13), {T}], %w: Tensor[(33, 13), {T}]", "nn.dense(%a, %w)"},
            {"%a: Tensor[(130, 21), {T}], %w: Tensor[(129, 21), {T}]", "nn.dense(%a, %w)"}};
  if (op == "nn.batch_matmul")
    return {{"%a: Tensor[(2, 3, 17), {T}], %b: Tensor[(2, 5, 17), {T}]", "nn.batch_matmul(%a, %b)"},
            {"%a: Tensor[(2, 17, 3), {T}], %b: Tensor[(1, 17, 5), {T}]",
             "nn.batch_matmul(%a, %b, transpose_a=True, transpose_b=False)"},
            {"%a: Tensor[(2, 40, 9), {T}], %b: Tensor[(2, 33, 9), {T}]", "nn.batch_matmul(%a, %b)"},
            {"%a: Tensor[(3, 9, 36), {T}], %b: Tensor[(1, 9, 50), {T}]",
             "nn.batch_matmul(%a, %b, transpose_a=True, transpose_b=False)"}};
  if (op == "nn.bias_add")
    return {
        {"%a: Tensor[(2, 3, 4, 5), {T}], %b: Tensor[(3), {T}]", "nn.bias_add(%a, %b)"},
        {"%a: Tensor[(2, 3, 4, 5), {T}], %b: Tensor[(5), {T}]", "nn.bias_add(%a, %b, axis=-1)"}};
  if (op == "nn.softmax" || op == "nn.log_softmax")
    return {{"%a: Tensor[(4, 17), {T}]", o + "(%a)", -30, 30},
            {"%a: Tensor[(3, 5, 2), {T}]", o + "(%a, axis=1)"}};
  if (op == "take")
    return {{"%a: Tensor[(4, 5), {T}], %i: Tensor[(3), int32]", "take(%a, %i, axis=1)", -3, 3,
             std::make_pair(-2.0, 6.0)},
            {"%a: Tensor[(4, 5), {T}], %i: Tensor[(2, 3), int64]",
             "take(%a, %i, axis=0, mode=\"wrap\")", -3, 3, std::make_pair(-9.0, 9.0)},
            {"%a: Tensor[(6), {T}], %i: Tensor[(4), int32]", "take(%a, %i)", -3, 3,
             std::make_pair(0.0, 5.0)},
            {"%a: Tensor[(2, 3, 2), {T}], %i: Tensor[(5), int64]", "take(%a, %i, mode=\"fast\")",
             -3, 3, std::make_pair(0.0, 11.0)},
            {"%a: Tensor[(3, 4, 2), {T}], %i: Tensor[(2, 2), int32]", "take(%a, %i, axis=-2)", -3,
             3, std::make_pair(-1.0, 4.0)}};
  if (op == "nn.batch_norm")
    return {{"%a: Tensor[(2, 3, 4, 5), {T}], %g: Tensor[(3), {T}], %b: Tensor[(3), {T}], "
             "%m: Tensor[(3), {T}], %v: Tensor[(3), {T}]",
             "nn.batch_norm(%a, %g, %b, %m, %v)", 0.5, 3},
            {"%a: Tensor[(4, 6), {T}], %g: Tensor[(6), {T}], %b: Tensor[(6), {T}], "
             "%m: Tensor[(6), {T}], %v: Tensor[(6), {T}]",
             "nn.batch_norm(%a, %g, %b, %m, %v, axis=-1, epsilon=0.001f, center=False)", 0.5, 3},
            {"%a: Tensor[(2, 3, 4), {T}], %g: Tensor[(4), {T}], %b: Tensor[(4), {T}], "
             "%m: Tensor[(4), {T}], %v: Tensor[(4), {T}]",
             "nn.batch_norm(%a, %g, %b, %m, %v, axis=2, scale=False)", 0.5, 3}};
  if (op == "nn.layer_norm")
    return {{"%a: Tensor[(4, 17), {T}], %g: Tensor[(17), {T}], %b: Tensor[(17), {T}]",
             "nn.layer_norm(%a, %g, %b)"},
            {"%a: Tensor[(3, 5, 2), {T}], %g: Tensor[(5), {T}], %b: Tensor[(5), {T}]",
             "nn.layer_norm(%a, %g, %b, axis=1, epsilon=0.01f, center=False, scale=False)"}};
  if (op == "nn.dropout")
    return {{"%a: Tensor[(4, 17), {T}]", o + "(%a)"},
            {"%a: Tensor[(3, 5, 2), {T}]", o + "(%a, rate=0.1f)"}};
  if (op == "nn.batch_flatten")
    return {{"%a: Tensor[(2, 3, 4), {T}]", o + "(%a)"},
            {"%a: Tensor[(5), {T}]", o + "(%a)"},
            {"%a: Tensor[(3, 1, 2, 2), {T}]", o + "(%a)"}};
  if (op == "nn.conv2d")
    return {{"%x: Tensor[(1, 3, 10, 10), {T}], %w: Tensor[(8, 3, 3, 3), {T}]",
             "nn.conv2d(%x, %w, padding=[1, 0, 2, 0], dilation=[2, 2])"},
            {"%x: Tensor[(2, 4, 9, 9), {T}], %w: Tensor[(6, 2, 3, 3), {T}]",
             "nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1], groups=2)"},
            {"%x: Tensor[(1, 8, 7, 7), {T}], %w: Tensor[(8, 1, 3, 3), {T}]",
             "nn.conv2d(%x, %w, padding=1, groups=8)"},
            {"%x: Tensor[(1, 8, 8, 3), {T}], %w: Tensor[(3, 3, 3, 4), {T}]",
             "nn.conv2d(%x, %w, data_layout=\"NHWC\", kernel_layout=\"HWIO\")"},
            {"%x: Tensor[(1, 7, 7, 4), {T}], %w: Tensor[(6, 3, 3, 4), {T}]",
             "nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1], data_layout=\"NHWC\", "
             "kernel_layout=\"OHWI\")"},
            {"%x: Tensor[(2, 6, 6, 4), {T}], %w: Tensor[(3, 3, 2, 4), {T}]",
             "nn.conv2d(%x, %w, padding=[1, 1], groups=2, data_layout=\"NHWC\", "
             "kernel_layout=\"HWIO\", out_layout=\"NCHW\")"},
            {"%x: Tensor[(1, 3, 9, 9), {T}], %w: Tensor[(5, 3, 2, 2), {T}]",
             "nn.conv2d(%x, %w, dilation=[2, 1], out_layout=\"NHWC\")"},
            // Tiled on cuda (an implicit GEMM with >= 32 output channels).
            {"%x: Tensor[(1, 4, 8, 8), {T}], %w: Tensor[(40, 4, 3, 3), {T}]",
             "nn.conv2d(%x, %w, padding=[1, 1])"},
            {"%x: Tensor[(2, 4, 6, 6), {T}], %w: Tensor[(64, 2, 3, 3), {T}]",
             "nn.conv2d(%x, %w, strides=[2, 1], padding=[1, 2], groups=2)"}};
  if (op == "nn.conv1d")
    return {{"%x: Tensor[(2, 4, 17), {T}], %w: Tensor[(6, 4, 3), {T}]", "nn.conv1d(%x, %w)"},
            {"%x: Tensor[(1, 3, 20), {T}], %w: Tensor[(5, 3, 4), {T}]",
             "nn.conv1d(%x, %w, strides=[2], padding=[1, 2], dilation=[2])"},
            {"%x: Tensor[(1, 4, 9), {T}], %w: Tensor[(6, 2, 3), {T}]",
             "nn.conv1d(%x, %w, padding=[1], groups=2, channels=6, kernel_size=[3])"},
            {"%x: Tensor[(1, 8, 10), {T}], %w: Tensor[(8, 1, 5), {T}]",
             "nn.conv1d(%x, %w, padding=2, groups=8)"},
            {"%x: Tensor[(1, 9, 3), {T}], %w: Tensor[(3, 3, 4), {T}]",
             "nn.conv1d(%x, %w, data_layout=\"NWC\", kernel_layout=\"WIO\")"},
            {"%x: Tensor[(2, 3, 12), {T}], %w: Tensor[(4, 3, 3), {T}]",
             "nn.conv1d(%x, %w, strides=3, padding=[0, 1], out_layout=\"NWC\")"}};
  if (op == "nn.max_pool2d")
    return {
        {"%x: Tensor[(1, 3, 5, 5), {T}]",
         "nn.max_pool2d(%x, pool_size=[2, 2], strides=[2, 2], ceil_mode=True)"},
        {"%x: Tensor[(2, 3, 8, 8), {T}]", "nn.max_pool2d(%x, pool_size=[3, 3], padding=[1, 1])"},
        {"%x: Tensor[(1, 8, 8, 3), {T}]",
         "nn.max_pool2d(%x, pool_size=[2, 2], strides=[2, 2], layout=\"NHWC\")"},
        {"%x: Tensor[(2, 7, 7, 3), {T}]",
         "nn.max_pool2d(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], ceil_mode=True, "
         "layout=\"NHWC\")"},
        {"%x: Tensor[(1, 9, 9, 2), {T}]",
         "nn.max_pool2d(%x, pool_size=[2, 2], dilation=[2, 2], layout=\"NHWC\", "
         "out_layout=\"NCHW\")"}};
  if (op == "nn.avg_pool2d")
    return {
        {"%x: Tensor[(1, 3, 5, 5), {T}]",
         "nn.avg_pool2d(%x, pool_size=[2, 2], strides=[2, 2], ceil_mode=True)"},
        {"%x: Tensor[(2, 3, 8, 8), {T}]", "nn.avg_pool2d(%x, pool_size=[3, 3], padding=[1, 1])"},
        {"%x: Tensor[(2, 3, 8, 8), {T}]",
         "nn.avg_pool2d(%x, pool_size=[3, 3], padding=[1, 1], count_include_pad=True)"},
        {"%x: Tensor[(1, 2, 7, 6), {T}]",
         "nn.avg_pool2d(%x, pool_size=[3, 2], strides=[2, 2], padding=[1, 2, 0, 1], "
         "ceil_mode=True, count_include_pad=True)"},
        {"%x: Tensor[(1, 2, 9, 9), {T}]",
         "nn.avg_pool2d(%x, pool_size=[2, 3], dilation=[2, 2], padding=[1, 1])"},
        {"%x: Tensor[(1, 1, 5, 5), {T}]",
         "nn.avg_pool2d(%x, strides=[3, 3], ceil_mode=True, count_include_pad=True)"},
        {"%x: Tensor[(1, 8, 8, 3), {T}]",
         "nn.avg_pool2d(%x, pool_size=[2, 2], strides=[2, 2], layout=\"NHWC\")"},
        {"%x: Tensor[(1, 7, 7, 3), {T}]",
         "nn.avg_pool2d(%x, pool_size=[3, 3], padding=[1, 1], layout=\"NHWC\", "
         "out_layout=\"NCHW\")"}};
  if (op == "nn.adaptive_avg_pool2d")
    return {{"%x: Tensor[(2, 3, 7, 7), {T}]", "nn.adaptive_avg_pool2d(%x, output_size=[3, 3])"},
            {"%x: Tensor[(1, 4, 10, 6), {T}]", "nn.adaptive_avg_pool2d(%x, output_size=[4, 5])"},
            {"%x: Tensor[(1, 3, 8, 8), {T}]", "nn.adaptive_avg_pool2d(%x, output_size=1)"},
            {"%x: Tensor[(2, 3, 5, 9), {T}]", "nn.adaptive_avg_pool2d(%x)"},
            {"%x: Tensor[(1, 3, 6, 10), {T}]", "nn.adaptive_avg_pool2d(%x, output_size=[None, 3])"},
            {"%x: Tensor[(1, 2, 3, 4), {T}]", "nn.adaptive_avg_pool2d(%x, output_size=[5, 7])"},
            {"%x: Tensor[(1, 9, 9, 4), {T}]",
             "nn.adaptive_avg_pool2d(%x, output_size=[4, 2], layout=\"NHWC\")"}};
  if (op == "nn.global_avg_pool2d")
    return {{"%x: Tensor[(2, 5, 7, 7), {T}]", "nn.global_avg_pool2d(%x)"},
            {"%x: Tensor[(2, 7, 7, 5), {T}]", "nn.global_avg_pool2d(%x, layout=\"NHWC\")"}};
  if (op == "nn.upsampling")
    return {{"%x: Tensor[(1, 3, 4, 5), {T}]", "nn.upsampling(%x, scale_h=2f, scale_w=2f)"},
            {"%x: Tensor[(1, 3, 5, 4), {T}]", "nn.upsampling(%x, scale_h=1.5f, scale_w=2.5f)"},
            {"%x: Tensor[(1, 2, 6, 6), {T}]", "nn.upsampling(%x, scale_h=0.5f, scale_w=0.7f)"},
            {"%x: Tensor[(1, 2, 3, 5), {T}]",
             "nn.upsampling(%x, scale_h=3f, scale_w=2f, align_corners=True)"},
            {"%x: Tensor[(2, 2, 3, 3), {T}]",
             "nn.upsampling(%x, scale_h=2f, scale_w=3f, method=\"bilinear\")"},
            {"%x: Tensor[(1, 2, 4, 4), {T}]",
             "nn.upsampling(%x, scale_h=2f, scale_w=1.5f, method=\"bilinear\", "
             "align_corners=True)"},
            {"%x: Tensor[(1, 2, 3, 4), {T}]",
             "nn.upsampling(%x, scale_h=2f, scale_w=2f, method=\"bicubic\")"},
            {"%x: Tensor[(1, 2, 3, 4), {T}]",
             "nn.upsampling(%x, scale_h=2f, scale_w=2f, method=\"bicubic\", align_corners=True)"},
            {"%x: Tensor[(1, 3, 3, 2), {T}]",
             "nn.upsampling(%x, scale_h=2f, scale_w=2f, layout=\"NHWC\", method=\"bilinear\")"}};
  if (op == "image.resize2d") {
    const char *x = "%x: Tensor[(1, 3, 5, 5), {T}]";
    std::vector<OpCase> out = {
        {"%x: Tensor[(1, 3, 4, 5), {T}]", "image.resize2d(%x, size=[8, 10])"},
        {"%x: Tensor[(1, 2, 7, 6), {T}]",
         "image.resize2d(%x, size=[3, 4], coordinate_transformation_mode=\"align_corners\")"},
        {"%x: Tensor[(2, 3, 4, 4), {T}]",
         "image.resize2d(%x, size=[1, 6], coordinate_transformation_mode=\"pytorch_half_pixel\")"},
        {"%x: Tensor[(1, 9, 9, 2), {T}]", "image.resize2d(%x, size=[4, 13], layout=\"NHWC\")"},
        {x, "image.resize2d(%x, size=[7, 6], method=\"cubic\")"},
        {x, "image.resize2d(%x, size=[8, 3], method=\"cubic\", cubic_alpha=-0.75f, "
            "cubic_exclude=1, coordinate_transformation_mode=\"asymmetric\")"},
        {x, "image.resize2d(%x, size=[6, 9], roi=[0.1f, 0.2f, 0.9f, 1.2f], "
            "coordinate_transformation_mode=\"tf_crop_and_resize\", extrapolation_value=-1f)"},
        {x, "image.resize2d(%x, size=[3, 1], roi=[0.1f, 0.2f, 0.9f, 1.2f], "
            "method=\"nearest_neighbor\", "
            "coordinate_transformation_mode=\"tf_crop_and_resize\", rounding_method=\"\")"},
        {x, "image.resize2d(%x, size=[4, 4], roi=[-1e30f, 0.5f, 1e30f, 0.5f], method=\"cubic\", "
            "coordinate_transformation_mode=\"tf_crop_and_resize\", cubic_exclude=1)"},
        {x, "image.resize2d(%x, size=[10, 15], method=\"nearest_neighbor\", "
            "coordinate_transformation_mode=\"asymmetric\", rounding_method=\"\")"},
        {x, "image.resize2d(%x, size=[4, 9], method=\"nearest_neighbor\", "
            "coordinate_transformation_mode=\"tf_half_pixel_for_nn\", out_dtype=\"float32\")"},
        // ONNX's scales: coordinates mapped by them, not by the sizes.
        {x, "image.resize2d(%x, size=[3, 8], scales=[0.6f, 1.7f], "
            "coordinate_transformation_mode=\"half_pixel_symmetric\")"},
        {x, "image.resize2d(%x, size=[6, 3], scales=[1.3f, 0.75f], method=\"cubic\")"},
        {x,
         "image.resize2d(%x, size=[10, 15], scales=[2f, 3f], method=\"nearest_neighbor\", "
         "coordinate_transformation_mode=\"asymmetric\", rounding_method=\"round_prefer_ceil\")"}};
    for (const char *mode : {"half_pixel", "align_corners", "asymmetric"})
      for (const char *rounding :
           {"", "round", "floor", "ceil", "round_prefer_floor", "round_prefer_ceil"})
        out.push_back(
            {x, std::string("image.resize2d(%x, size=[9, 7], method=\"nearest_neighbor\", "
                            "coordinate_transformation_mode=\"") +
                    mode + "\", rounding_method=\"" + rounding + "\")"});
    return out;
  }
  if (op == "argsort")
    return {{"%a: Tensor[(4, 17), {T}]", "argsort(%a)"},
            {"%a: Tensor[(5, 3), {T}]", "argsort(%a, axis=0, is_ascend=False, dtype=\"int64\")"},
            {"%a: Tensor[(1000), {T}]", "argsort(%a)"}};
  if (op == "topk")
    return {{"%a: Tensor[(4, 17), {T}]", "topk(%a, k=3)"},
            {"%a: Tensor[(4, 17), {T}]", "topk(%a, k=0, ret_type=\"indices\", is_ascend=True)"},
            {"%a: Tensor[(6, 5), {T}]", "topk(%a, k=2, axis=0, ret_type=\"values\")"}};
  return {};
}

} // namespace hx::test
