//===- Generator.h - hx-smith's state while it writes a module --*- C++ -*-===//
//
// Private to lib/Smith. A Gen writes one module as text, function by
// function. It keeps, per function, the values in scope with their types and
// what is known of them:
//
//  - an interval [lo, hi] holding every element (guards read it: log gets
//    abs(x) + 1 when lo < 0.1, exp a clip when hi is large);
//  - `exact`: the compiled kernels (float32 arithmetic) and the reference
//    interpreter (double) give the same bits. Parameters and constants are
//    exact, data movement and selections keep it, arithmetic on floats
//    loses it. Operators whose result jumps with their input (comparisons,
//    argsort, topk, casts from float to integer) only take exact operands.
//
// Recipes (Recipes.cpp, one per operator) pick operands with input() — an
// existing value in scope that fits, preferring recent and unused ones, or a
// fresh parameter or constant — and bind their call with emit().
//
//===----------------------------------------------------------------------===//
#ifndef HX_LIB_SMITH_GENERATOR_H
#define HX_LIB_SMITH_GENERATOR_H

#include "hx/IR/OpDef.h"
#include "hx/Smith/Smith.h"
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hx::smith {

/// xoshiro256** seeded with splitmix64: the same stream on every platform.
class Rng {
public:
  explicit Rng(uint64_t seed);
  uint64_t next();
  /// Uniform in [0, n); n > 0.
  uint64_t below(uint64_t n);
  /// Uniform in [lo, hi].
  int64_t range(int64_t lo, int64_t hi) { return lo + int64_t(below(uint64_t(hi - lo + 1))); }
  /// True with probability num/den.
  bool chance(unsigned num, unsigned den) { return below(den) < num; }
  template <typename T> const T &pick(const std::vector<T> &v) { return v[below(v.size())]; }

private:
  uint64_t s[4];
};

using Shape = std::vector<int64_t>;

struct TensorTy {
  DType dtype = DType::Float32;
  Shape shape;
  int64_t numel() const;
  std::string str() const; // Tensor[(2, 3), float32]
  bool operator==(const TensorTy &o) const { return dtype == o.dtype && shape == o.shape; }
};

/// A value in scope: a tensor, or a tuple of tensors.
struct Val {
  std::string ref; // %3, %p0, %l2, meta[relay.Constant][1], 2f
  bool isTuple = false;
  TensorTy ty;                  // a tensor
  std::vector<TensorTy> fields; // a tuple
  double lo = -1, hi = 1;
  bool exact = true;
  /// A scalar literal: never annotated, never an output.
  bool literal = false;
  /// Its device is fixed (an on_device, a copy, a parameter's device, a
  /// global call's result): it may feed operators and tuples (a copy goes
  /// between) but not a function's parameter of another device.
  bool pinned = false;
  unsigned uses = 0;
  /// Where it was made, to prefer recent values.
  unsigned order = 0;
};

/// What a recipe asks of an operand.
struct Want {
  Want(DTypeSet dtypes, unsigned minRank = 0, unsigned maxRank = 4, bool exact = false)
      : dtypes(dtypes), minRank(minRank), maxRank(maxRank), exact(exact) {}
  DTypeSet dtypes = 0;
  unsigned minRank = 0, maxRank = 4;
  bool exact = false;
  /// Extra condition on the type.
  std::function<bool(const TensorTy &)> fits;
  /// The shape of a fresh value (random of the rank range when null).
  std::function<Shape()> shape;
};

struct Function {
  std::string name; // without @
  struct Param {
    std::string name;
    TensorTy ty;
    int device = -1;
  };
  std::vector<Param> params;
  std::vector<std::string> lines;
  std::vector<Val> vals;
  unsigned nextBinding = 0, nextLet = 0;
  int resultDevice = -1;
  /// The result's type (set when the function is finished).
  bool resultIsTuple = false;
  std::vector<TensorTy> resultFields;
  double resultLo = -1, resultHi = 1;
};

class Gen {
public:
  Gen(const SmithOptions &opts);

  /// The whole module.
  SmithModule run();

  //===--- For recipes ----------------------------------------------------===//

  Rng rng;
  const SmithOptions &opts;

  /// An operand: a value in scope that satisfies `w`, or a fresh one.
  Val input(const Want &w);
  /// A fresh parameter or constant of type `t`; `plain`: a parameter
  /// without a device or an annotation.
  Val fresh(const TensorTy &t, bool positive = false, bool plain = false);
  /// A scalar literal of dtype `dt` whose value is `v` (an integer or a
  /// multiple of 1/4).
  Val literal(DType dt, double v);
  /// Binds `expr` (an operator call or a tuple) in the current function:
  /// `%N = expr;` or `let %lN = expr;`; may wrap it in a random on_device.
  /// Returns the new value (added to scope) with the given type and range.
  Val emit(llvm::StringRef op, const std::string &expr, const TensorTy &ty, double lo, double hi,
           bool exact);
  Val emitTuple(llvm::StringRef op, const std::string &expr, const std::vector<TensorTy> &fields,
                double lo, double hi, bool exact);
  /// `%t.i` bound, as a value.
  Val project(const Val &tuple, unsigned i);
  /// Marks a value as used.
  void use(const Val &v);

  /// Guards: a value whose elements are >= `min` (abs(x) + c when needed).
  Val positive(Val v, double min = 0.5);
  /// A float value within [-bound, bound] (a clip when needed).
  Val tame(Val v, double bound = 8);
  /// `v` as type `t` (cast, reshape, slice), or a fresh value when it cannot be.
  Val adapt(Val v, const TensorTy &t);
  /// `v` cast to `dt` (v itself when it has that dtype).
  Val castTo(Val v, DType dt);
  /// A constant of integers in [lo, hi] (take's indices in range); a
  /// parameter clipped to that range without constants.
  Val intConstant(const TensorTy &t, int64_t lo, int64_t hi);

  /// A random dtype of `set` (float32 most often).
  DType dtypeOf(DTypeSet set);
  /// A random shape of rank in [minRank, maxRank], dims in [1, maxDim].
  Shape shapeOf(unsigned minRank, unsigned maxRank, int64_t maxDim = 5);
  /// A shape `s` broadcasts with: trailing dims of `s`, some set to 1.
  Shape broadcastPartner(const Shape &s);

  /// The operators the module calls so far.
  std::map<std::string, unsigned> used;
  /// The virtual device (0 or 1) of the other kind: the target-kind
  /// table's first that is not the host (cuda).
  int otherIndex = 1;

private:
  Function *cur = nullptr;
  std::vector<Function> fns;
  std::vector<std::string> constants; // JSON entries
  unsigned order = 0;
  /// Annotation probabilities of this module, in percent.
  unsigned pOnDevice = 0, pCopy = 0, pLet = 0, pParamDevice = 0;

  void bind(const std::string &expr, Val &v, llvm::StringRef op, bool allowLet = true);
  void annotate(Val &v);
  void genFunction(Function &f, unsigned calls, bool isMain);
  void callGlobal(const Function &callee);
  void finishFunction(Function &f);
  std::string constantData(const TensorTy &t, bool positive, double &lo, double &hi);
  std::string print() const;
};

/// One recipe per operator: emits one call of it, or returns false when it
/// cannot in the current state (the generator then picks another).
using Recipe = bool (*)(Gen &g, const OpDef &def);
Recipe findRecipe(llvm::StringRef op);

/// A float as the text format writes it (`0.25f`, `-3f16`, `2`): integer
/// arithmetic only, for multiples of 1/4.
std::string formatNumber(double v, DType dt);
/// Appends the `n` low bytes of `v`, little-endian.
void appendLE(std::string &bytes, uint64_t v, unsigned n);
/// The half bits of a multiple of 1/8 within [-16, 16] (exact in half).
uint16_t halfBits(double v);
std::string base64(const std::string &bytes);

} // namespace hx::smith

#endif
