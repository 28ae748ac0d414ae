//===- OnnxRecurrent.cpp - Converters of ONNX's LSTM, GRU and RNN ----------===//
//
// ONNX's recurrent operators unrolled over the sequence, which is static, as
// TVM's ONNX frontend does: hx has no loop, and each step is a few dense
// products and elementwise operators that fuse-ops joins.
//
// The input projections of every step are one nn.dense of the whole
// sequence ([seq * batch, input] by W^T), then each step takes its slice,
// adds the recurrent product nn.dense(H, R) and applies the gates. Weights,
// biases and initial states are read per direction with take along axis 0,
// so they may be initializers or graph inputs alike. The directions
// (forward, reverse, bidirectional), layout 1 (batch first), the gate
// activations ONNX names (with their alpha and beta), clip, peepholes, and
// GRU's linear_before_reset are built as ONNX's equations say.
//
// sequence_lens, when given, must be known at import time: a step t of a
// sequence shorter than t keeps the state it had and outputs zeros (a
// `where` on a constant mask), which for the reverse direction also starts
// each sequence at its own last element.
//
//===----------------------------------------------------------------------===//
#include "OnnxConverter.h"

using namespace hx;
using namespace hx::onnximport;
using namespace llvm;

namespace {

enum class Cell { LSTM, GRU, RNN };

/// What one converter call builds with: the node, the dtype, and helpers.
struct Unroll {
  NodeCtx &ctx;
  DType t;
  ExprRef scalar(double v) const { return ctx.scalar(t, v); }
  ExprRef call(StringRef op, ArrayRef<ExprRef> args, Attrs a = {}) const {
    return ctx.call(op, args, std::move(a));
  }
  ExprRef add(ExprRef a, ExprRef b) const { return call("add", {a, b}); }
  ExprRef mul(ExprRef a, ExprRef b) const { return call("multiply", {a, b}); }
  /// Row `i` of `x` along `axis`, the axis dropped.
  ExprRef row(ExprRef x, int64_t i, int64_t axis = 0) const {
    return call("take", {x, ctx.constant(intTensor({i}, DType::Int64, Dims{}))},
                {{"axis", attrs::integer(axis)}, {"mode", attrs::str("clip")}});
  }
  /// Part `i` of `n` equal parts of `x` along `axis`.
  ExprRef part(ExprRef x, int64_t n, int64_t i, int64_t axis) const {
    ExprRef s = call("split", {x},
                     {{"indices_or_sections", attrs::integer(n)}, {"axis", attrs::integer(axis)}});
    return ctx.getItem(s, unsigned(i));
  }
};

/// An activation function by ONNX's name, with its alpha and beta (the
/// defaults ONNX gives each where the node gives none).
Expected<ExprRef> activation(const Unroll &u, StringRef name, std::optional<float> alpha,
                             std::optional<float> beta, ExprRef x) {
  auto a = [&](float def) { return double(alpha.value_or(def)); };
  auto b = [&](float def) { return double(beta.value_or(def)); };
  if (name == "Sigmoid")
    return u.call("sigmoid", {x});
  if (name == "Tanh")
    return u.call("tanh", {x});
  if (name == "Relu")
    return u.call("nn.relu", {x});
  if (name == "LeakyRelu")
    return u.call("nn.leaky_relu", {x}, {{"alpha", attrs::real(a(0.01f))}});
  if (name == "Affine")
    return u.add(u.mul(x, u.scalar(a(1))), u.scalar(b(0)));
  if (name == "ScaledTanh")
    return u.mul(u.call("tanh", {u.mul(x, u.scalar(b(1)))}), u.scalar(a(1)));
  if (name == "HardSigmoid")
    return u.call("clip", {u.add(u.mul(x, u.scalar(a(0.2f))), u.scalar(b(0.5f)))},
                  {{"a_min", attrs::real(0)}, {"a_max", attrs::real(1)}});
  if (name == "Softsign")
    return u.call("divide", {x, u.add(u.call("abs", {x}), u.scalar(1))});
  if (name == "Softplus")
    return u.call("log", {u.add(u.call("exp", {x}), u.scalar(1))});
  if (name == "Elu")
    return u.call("where",
                  {u.call("greater", {x, u.scalar(0)}), x,
                   u.mul(u.call("subtract", {u.call("exp", {x}), u.scalar(1)}), u.scalar(a(1)))});
  if (name == "ThresholdedRelu")
    return u.call("where", {u.call("greater", {x, u.scalar(a(1))}), x, u.scalar(0)});
  return u.ctx.error("activation '" + name + "' is not supported");
}

template <Cell C> Error recurrent(NodeCtx &ctx) {
  TRY(x, ctx.required(0));
  TRY(w, ctx.required(1));
  TRY(r, ctx.required(2));
  constexpr int64_t gates = C == Cell::LSTM ? 4 : C == Cell::GRU ? 3 : 1;
  constexpr size_t fns = C == Cell::LSTM ? 3 : C == Cell::GRU ? 2 : 1;
  if (!x->isStatic() || x->dims->size() != 3)
    return ctx.error("the input must have a static shape of rank 3");
  if (!w->dims || w->dims->size() != 3 || !r->dims || r->dims->size() != 3)
    return ctx.error("W and R must have rank 3");
  int64_t layout = ctx.getInt("layout", 0);
  if (layout != 0 && layout != 1)
    return ctx.error("layout must be 0 or 1");
  int64_t seq = (*x->dims)[layout ? 1 : 0], batch = (*x->dims)[layout ? 0 : 1];
  int64_t hidden = ctx.getInt("hidden_size", (*r->dims)[2]);
  std::string direction = ctx.getString("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    return ctx.error("direction must be forward, reverse or bidirectional, not '" + direction +
                     "'");
  int64_t dirs = direction == "bidirectional" ? 2 : 1;
  if ((*w->dims)[0] != dirs || (*w->dims)[1] != gates * hidden || (*r->dims)[1] != gates * hidden ||
      (*r->dims)[2] != hidden)
    return ctx.error("W and R do not fit hidden_size " + Twine(hidden) + " and " + Twine(dirs) +
                     " direction(s)");
  if (C == Cell::LSTM && ctx.getInt("input_forget", 0))
    return ctx.error("input_forget=1 is not supported");
  if (seq < 1 || seq > 4096)
    return ctx.error("a sequence of " + Twine(seq) +
                     " steps is not supported (hx unrolls 1 to 4096)");

  // Activations: f, g (and h) per direction.
  std::vector<std::string> names;
  if (const onnx::AttributeProto *a = ctx.attr("activations"))
    for (const std::string &s : a->strings())
      names.push_back(s);
  if (names.empty())
    for (int64_t d = 0; d < dirs; ++d)
      for (const char *n : {C == Cell::RNN ? "Tanh" : "Sigmoid", "Tanh", "Tanh"})
        if (names.size() < size_t(d + 1) * fns)
          names.push_back(n);
  if (names.size() != fns * size_t(dirs))
    return ctx.error("activations must name " + Twine(fns * dirs) + " functions");
  std::vector<float> alphas, betas;
  if (const onnx::AttributeProto *a = ctx.attr("activation_alpha"))
    alphas.assign(a->floats().begin(), a->floats().end());
  if (const onnx::AttributeProto *a = ctx.attr("activation_beta"))
    betas.assign(a->floats().begin(), a->floats().end());
  auto param = [](const std::vector<float> &v, size_t i) {
    return i < v.size() ? std::optional<float>(v[i]) : std::nullopt;
  };
  std::optional<double> clip;
  if (ctx.attr("clip"))
    clip = ctx.getFloat("clip", 0);

  // Sequence lengths: none, or known at import time.
  std::vector<int64_t> lens;
  if (ctx.input(4)) {
    TRY(l, ctx.constInts(4));
    lens = *l;
    if (int64_t(lens.size()) != batch)
      return ctx.error("sequence_lens must have " + Twine(batch) + " values");
    for (int64_t &n : lens)
      if (n < 0 || n > seq)
        return ctx.error("sequence_lens must be between 0 and " + Twine(seq));
  }
  bool masked = llvm::any_of(lens, [&](int64_t n) { return n != seq; });

  Unroll u{ctx, x->dtype};
  ExprRef in = ctx.use(*x);
  if (layout)
    in = u.call("transpose", {in}, {{"axes", attrs::ints({1, 0, 2})}});
  int64_t inputSize = (*x->dims)[2];
  ExprRef flat = u.call("reshape", {in}, {{"newshape", attrs::ints({seq * batch, inputSize})}});

  std::vector<ExprRef> ys, finalH, finalC;
  for (int64_t d = 0; d < dirs; ++d) {
    bool reverse = direction == "reverse" || d == 1;
    ExprRef wd = u.row(ctx.use(*w), d), rd = u.row(ctx.use(*r), d);
    // The input projections of all steps: [seq, batch, gates * hidden].
    ExprRef xw = u.call("nn.dense", {flat, wd}, {{"units", attrs::integer(gates * hidden)}});
    ExprRef wb, rb;
    if (ctx.input(3)) {
      ExprRef bd = u.row(ctx.use(3), d);
      wb = u.part(bd, 2, 0, 0);
      rb = u.part(bd, 2, 1, 0);
      xw = u.add(xw, wb);
    }
    xw = u.call("reshape", {xw}, {{"newshape", attrs::ints({seq, batch, gates * hidden})}});
    auto fn = [&](size_t k, ExprRef v) {
      size_t i = size_t(d) * fns + k;
      return activation(u, names[i], param(alphas, i), param(betas, i), v);
    };
    auto clipped = [&](ExprRef v) {
      return clip ? u.call("clip", {v},
                           {{"a_min", attrs::real(-*clip)}, {"a_max", attrs::real(*clip)}})
                  : v;
    };
    ExprRef zeros = ctx.constant(HostTensor(x->dtype, {batch, hidden}));
    // Initial states: [dirs, batch, hidden], or [batch, dirs, hidden] in
    // layout 1.
    ExprRef h = ctx.input(5) ? u.row(ctx.use(5), d, layout) : zeros;
    ExprRef c = C == Cell::LSTM && ctx.input(6) ? u.row(ctx.use(6), d, layout) : zeros;
    ExprRef peep;
    if (C == Cell::LSTM && ctx.input(7))
      peep = u.row(ctx.use(7), d);
    std::vector<ExprRef> outs(static_cast<size_t>(seq));
    for (int64_t s = 0; s < seq; ++s) {
      int64_t t = reverse ? seq - 1 - s : s;
      ExprRef xt = u.row(xw, t);
      ExprRef hr = u.call("nn.dense", {h, rd}, {{"units", attrs::integer(gates * hidden)}});
      ExprRef hNew, cNew;
      if (C == Cell::LSTM) {
        if (rb)
          hr = u.add(hr, rb);
        ExprRef g = u.add(xt, hr);
        ExprRef gi = u.part(g, 4, 0, 1), go = u.part(g, 4, 1, 1), gf = u.part(g, 4, 2, 1),
                gc = u.part(g, 4, 3, 1);
        if (peep) {
          gi = u.add(gi, u.mul(u.part(peep, 3, 0, 0), c));
          gf = u.add(gf, u.mul(u.part(peep, 3, 2, 0), c));
        }
        TRY(i, fn(0, clipped(gi)));
        TRY(f, fn(0, clipped(gf)));
        TRY(cc, fn(1, clipped(gc)));
        cNew = u.add(u.mul(f, c), u.mul(i, cc));
        if (peep)
          go = u.add(go, u.mul(u.part(peep, 3, 1, 0), cNew));
        TRY(o, fn(0, clipped(go)));
        TRY(hc, fn(2, clipped(cNew)));
        hNew = u.mul(o, hc);
      } else if (C == Cell::GRU) {
        ExprRef xz = u.part(xt, 3, 0, 1), xr = u.part(xt, 3, 1, 1), xh = u.part(xt, 3, 2, 1);
        ExprRef rz = u.part(hr, 3, 0, 1), rr = u.part(hr, 3, 1, 1), rh = u.part(hr, 3, 2, 1);
        ExprRef rbz, rbr, rbh;
        if (rb) {
          rbz = u.part(rb, 3, 0, 0), rbr = u.part(rb, 3, 1, 0), rbh = u.part(rb, 3, 2, 0);
          rz = u.add(rz, rbz);
          rr = u.add(rr, rbr);
        }
        TRY(z, fn(0, clipped(u.add(xz, rz))));
        TRY(rg, fn(0, clipped(u.add(xr, rr))));
        ExprRef cand;
        if (ctx.getInt("linear_before_reset", 0)) {
          cand = u.add(xh, u.mul(rg, rb ? u.add(rh, rbh) : rh));
        } else {
          ExprRef rhRow = u.part(rd, 3, 2, 0);
          ExprRef hh =
              u.call("nn.dense", {u.mul(rg, h), rhRow}, {{"units", attrs::integer(hidden)}});
          cand = u.add(xh, rb ? u.add(hh, rbh) : hh);
        }
        TRY(hc, fn(1, clipped(cand)));
        ExprRef one = u.scalar(1);
        hNew = u.add(u.mul(u.call("subtract", {one, z}), hc), u.mul(z, h));
      } else {
        if (rb)
          hr = u.add(hr, rb);
        TRY(hv, fn(0, clipped(u.add(xt, hr))));
        hNew = hv;
      }
      ExprRef out = hNew;
      if (masked) {
        HostTensor m(DType::Bool, {batch, 1});
        for (int64_t b = 0; b < batch; ++b)
          m.setDouble(b, t < lens[size_t(b)] ? 1 : 0);
        ExprRef valid = ctx.constant(std::move(m));
        hNew = u.call("where", {valid, hNew, h});
        if (C == Cell::LSTM)
          cNew = u.call("where", {valid, cNew, c});
        out = u.call("where", {valid, out, u.scalar(0)});
      }
      h = hNew;
      if (C == Cell::LSTM)
        c = cNew;
      outs[size_t(t)] = out;
    }
    ys.push_back(u.call("stack", {ctx.tuple(outs)}, {{"axis", attrs::integer(0)}}));
    finalH.push_back(h);
    finalC.push_back(c);
  }
  // Y: [seq, dirs, batch, hidden], or [batch, seq, dirs, hidden] in layout 1.
  ExprRef y = u.call("stack", {ctx.tuple(ys)}, {{"axis", attrs::integer(1)}});
  ExprRef yh = u.call("stack", {ctx.tuple(finalH)}, {{"axis", attrs::integer(0)}});
  ExprRef yc = u.call("stack", {ctx.tuple(finalC)}, {{"axis", attrs::integer(0)}});
  if (layout) {
    y = u.call("transpose", {y}, {{"axes", attrs::ints({2, 0, 1, 3})}});
    yh = u.call("transpose", {yh}, {{"axes", attrs::ints({1, 0, 2})}});
    yc = u.call("transpose", {yc}, {{"axes", attrs::ints({1, 0, 2})}});
  }
  auto wanted = [&](int i) { return ctx.node.output_size() > i && !ctx.node.output(i).empty(); };
  if (wanted(0))
    ctx.setOutput(0, y);
  if (wanted(1))
    ctx.setOutput(1, yh);
  if (C == Cell::LSTM && wanted(2))
    ctx.setOutput(2, yc);
  return Error::success();
}

} // namespace

void onnximport::addRecurrentConverters(ConverterTable &t) {
  // Opset 14 added `layout` (batch first), whose default keeps opset 7's
  // meaning: one row each.
  t.add("LSTM", {11, 21}, recurrent<Cell::LSTM>);
  t.add("GRU", {11, 21}, recurrent<Cell::GRU>);
  t.add("RNN", {11, 21}, recurrent<Cell::RNN>);
}
