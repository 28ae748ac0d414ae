//===- RandomInputs.cpp - The one generator of random inputs --------------===//
//
// splitmix64 gives 64 random bits per draw; a float of `uniform` takes the
// top 53 bits as a double in [0, 2), minus 1. Scaled normals are
// Box-Muller from two draws. The roles are read once, in the constructor,
// from the calls of @main's body whose operand is the parameter itself or
// the parameter under on_device / device_copy (what plan-devices wraps
// around it).
//
//===----------------------------------------------------------------------===//
#include "hx/Run/RandomInputs.h"
#include "hx/IR/Walk.h"
#include "hx/Ops/OpRegistry.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSwitch.h"
#include <cmath>

using namespace llvm;

namespace hx {

std::optional<RandomInputMode> parseRandomInputMode(StringRef name) {
  return StringSwitch<std::optional<RandomInputMode>>(name)
      .Case("uniform", RandomInputMode::Uniform)
      .Case("scaled", RandomInputMode::Scaled)
      .Default(std::nullopt);
}

StringRef randomInputModeName(RandomInputMode mode) {
  return mode == RandomInputMode::Scaled ? "scaled" : "uniform";
}

static uint64_t splitmix64(uint64_t &x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// The parameter `e` is, through on_device and device_copy; else null.
static const Var *paramOf(const Expr *e) {
  while (auto *c = dyn_cast<Call>(e)) {
    if (!(c->isOp(kOnDevice) || c->isOp(kDeviceCopy)) || c->args.empty())
      return nullptr;
    e = c->args[0].get();
  }
  return dyn_cast<Var>(e);
}

static const TensorType *tensorTypeOf(const Var &v) {
  auto *tt = dyn_cast_or_null<TensorType>(v.checkedType.get());
  return tt && tt->isStatic() && tt->numElements().value_or(0) > 0 ? tt : nullptr;
}

RandomInputGenerator::RandomInputGenerator(const Function &main, uint64_t seed,
                                           RandomInputMode mode)
    : state(seed), mode(mode) {
  if (mode != RandomInputMode::Scaled || !main.body)
    return;
  DenseSet<const Var *> params;
  for (const Ref<Var> &p : main.params)
    params.insert(p.get());
  auto give = [&](const Call &c, unsigned arg, ParamRole::Kind kind, auto fanIn) {
    if (arg >= c.args.size())
      return;
    const Var *v = paramOf(c.args[arg].get());
    if (!v || !params.count(v) || roles.count(v))
      return;
    const TensorType *tt = tensorTypeOf(*v);
    if (!tt)
      return;
    ParamRole r;
    r.kind = kind;
    r.fanIn = std::max<int64_t>(1, fanIn(*tt));
    roles[v] = r;
  };
  auto none = [](const TensorType &) { return int64_t(1); };
  walkPostOrder(main.body.get(), [&](Expr *e) {
    auto *c = dyn_cast<Call>(e);
    if (!c || !c->getOp())
      return;
    if (c->isOp("nn.conv2d") || c->isOp("nn.conv1d")) {
      std::string layout = getAttrOrDefault(*c, "kernel_layout").str;
      give(*c, 1, ParamRole::Weight, [&](const TensorType &t) {
        size_t o = layout.find('O');
        int64_t outputs = o < t.shape.size() ? t.shape[o] : t.shape[0];
        return *t.numElements() / std::max<int64_t>(1, outputs);
      });
    } else if (c->isOp("nn.dense")) {
      give(*c, 1, ParamRole::Weight, [](const TensorType &t) { return t.shape.back(); });
    } else if (c->isOp("nn.batch_matmul")) {
      bool tb = getAttrOrDefault(*c, "transpose_b").boolValue;
      give(*c, 1, ParamRole::Weight, [&](const TensorType &t) {
        return t.shape.size() < 2 ? t.shape.back() : t.shape[t.shape.size() - (tb ? 1 : 2)];
      });
    } else if (c->isOp("nn.batch_norm")) {
      give(*c, 1, ParamRole::Gain, none);
      give(*c, 2, ParamRole::Offset, none);
      give(*c, 3, ParamRole::Offset, none);
      give(*c, 4, ParamRole::Gain, none);
    } else if (c->isOp("nn.layer_norm")) {
      give(*c, 1, ParamRole::Gain, none);
      give(*c, 2, ParamRole::Offset, none);
    } else if (c->isOp("nn.bias_add")) {
      give(*c, 1, ParamRole::Offset, none);
    }
  });
}

ParamRole RandomInputGenerator::roleOf(const Var &param) const {
  auto it = roles.find(&param);
  return it == roles.end() ? ParamRole() : it->second;
}

double RandomInputGenerator::uniform(double lo, double hi) {
  double u = double(splitmix64(state) >> 11) * 0x1.0p-53; // [0, 1)
  return lo + (hi - lo) * u;
}

double RandomInputGenerator::normal() {
  double u1 = 1.0 - uniform(0, 1); // (0, 1]
  double u2 = uniform(0, 1);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

HostTensor RandomInputGenerator::draw(const Var &param, const TensorType &type) {
  HostTensor t(type.dtype, type.shape);
  ParamRole role = roleOf(param);
  if (!isFloat(type.dtype))
    role.kind = ParamRole::Data;
  double stddev = std::sqrt(2.0 / double(role.fanIn));
  for (int64_t i = 0; i < t.numElements(); ++i) {
    switch (role.kind) {
    case ParamRole::Weight:
      t.setDouble(i, stddev * normal());
      continue;
    case ParamRole::Gain:
      t.setDouble(i, uniform(0.9, 1.1));
      continue;
    case ParamRole::Offset:
      t.setDouble(i, uniform(-0.1, 0.1));
      continue;
    case ParamRole::Data:
      break;
    }
    uint64_t r = splitmix64(state);
    if (isFloat(type.dtype))
      t.setDouble(i, double(r >> 11) * 0x1.0p-52 - 1.0); // [-1, 1)
    else if (type.dtype == DType::Bool)
      t.setDouble(i, double(r & 1));
    else
      t.setDouble(i, double(1 + (r >> 1) % 9) * ((r & 1) ? 1 : -1));
  }
  return t;
}

Expected<std::vector<HostTensor>> randomInputs(const Function &main, uint64_t seed,
                                               RandomInputMode mode) {
  RandomInputGenerator gen(main, seed, mode);
  std::vector<HostTensor> out;
  for (const Ref<Var> &p : main.params) {
    auto *tt = dyn_cast_or_null<TensorType>(p->checkedType.get());
    if (!tt || !tt->isStatic())
      return createStringError(inconvertibleErrorCode(),
                               "parameter %" + p->name + " is not a tensor of static shape");
    out.push_back(gen.draw(*p, *tt));
  }
  return out;
}

} // namespace hx
