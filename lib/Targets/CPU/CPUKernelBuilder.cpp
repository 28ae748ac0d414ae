//===- CPUKernelBuilder.cpp - KernelBuilder for the host CPU --------------===//
//
// See CPUKernelBuilder.h for the mapping. Outlining saves the builder's
// function state (current function, entry block, buffer pointers) and
// insertion point, emits the body into the new function with the buffer
// pointers reloaded from the closure, then restores both and emits the
// call, so kernel definitions never see which functions they write into.
//
//===----------------------------------------------------------------------===//

#include "CPUKernelBuilder.h"
#include "hx/Targets/KernelABI.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/CodeExtractor.h"

using namespace llvm;

namespace hx {

CPUKernelBuilder::CPUKernelBuilder(Module &m, StringRef kernelName, unsigned numBuffers,
                                   int64_t minParallelWork, const CPUMachineInfo &machine)
    : KernelBuilder(m, numBuffers), name(kernelName.str()), machine(machine),
      minParallelWork(minParallelWork) {
  LLVMContext &ctx = m.getContext();
  llvm::Type *ptr = PointerType::getUnqual(ctx);
  auto *fnTy = FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, ptr}, false);
  kernel = Function::Create(fnTy, GlobalValue::ExternalLinkage, name, m);
  kernel->getArg(0)->setName("buffers");
  kernel->getArg(1)->setName("launch");
  kernel->setDoesNotThrow();
  fns.push_back(kernel);
  beginFunction(kernel, kernel->getArg(0));
}

void CPUKernelBuilder::finish() { b.CreateRetVoid(); }

void CPUKernelBuilder::discard() {
  for (Function *f : fns)
    f->dropAllReferences();
  for (Function *f : fns)
    f->eraseFromParent();
  fns.clear();
  kernel = nullptr;
}

DType CPUKernelBuilder::accumulatorType(DType t) const { return isFloat(t) ? DType::Float64 : t; }

DType CPUKernelBuilder::productAccumulatorType(DType t) const {
  return valueDType(t) == DType::Float32 ? DType::Float32 : accumulatorType(t);
}

void CPUKernelBuilder::parallelFor(int64_t extent, int64_t workPerIteration, LoopBody body) {
  parallelForCaptured(extent, workPerIteration, {}, [&](Value *i, ArrayRef<Value *>) { body(i); });
}

void CPUKernelBuilder::parallelForCaptured(int64_t extent, int64_t workPerIteration,
                                           ArrayRef<Value *> captured, CapturedBody body) {
  if (extent <= 0)
    return;
  // Estimated work, saturated.
  int64_t work = workPerIteration > 0 && extent > INT64_MAX / workPerIteration
                     ? INT64_MAX
                     : extent * std::max<int64_t>(workPerIteration, 1);
  if (parallelDepth > 0 || extent == 1 || work < minParallelWork) {
    ++parallelDepth;
    forRange(0, extent, [&](Value *i) { body(i, captured); });
    --parallelDepth;
    return;
  }

  LLVMContext &ctx = module.getContext();
  llvm::Type *ptr = PointerType::getUnqual(ctx);
  llvm::Type *i64 = llvm::Type::getInt64Ty(ctx);
  // The closure: the kernel's buffer array itself when nothing is captured,
  // else a copy of the buffer pointers followed by the captured values.
  Value *closure = kernel->getArg(0);
  if (!captured.empty()) {
    unsigned n = numBuffers();
    closure = entryAlloca(ArrayType::get(ptr, n + captured.size()));
    for (unsigned i = 0; i < n + captured.size(); ++i) {
      Value *v = i < n ? buffer(i) : captured[i - n];
      if (v->getType()->isIntegerTy())
        v = b.CreateIntToPtr(v, ptr);
      b.CreateAlignedStore(v, b.CreateConstInBoundsGEP1_64(ptr, closure, i), Align(8));
    }
  }
  auto *bodyTy = FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, i64, i64}, false);
  // External (hidden) linkage keeps the body's name in the linked code, for
  // profiles (KernelJit's perf map); kernel names are unique per compiler.
  Function *outlined = Function::Create(bodyTy, GlobalValue::ExternalLinkage,
                                        name + ".par" + Twine(fns.size()), module);
  outlined->setVisibility(GlobalValue::HiddenVisibility);
  outlined->getArg(0)->setName("closure");
  outlined->getArg(1)->setName("begin");
  outlined->getArg(2)->setName("end");
  outlined->setDoesNotThrow();
  fns.push_back(outlined);

  FunctionState saved = saveFunction();
  IRBuilderBase::InsertPoint ip = b.saveIP();
  beginFunction(outlined, outlined->getArg(0));
  SmallVector<Value *, 8> inside;
  for (unsigned j = 0; j < captured.size(); ++j) {
    Value *slot = b.CreateConstInBoundsGEP1_64(ptr, outlined->getArg(0), numBuffers() + j);
    Value *v = b.CreateAlignedLoad(ptr, slot, Align(8));
    if (captured[j]->getType()->isIntegerTy())
      v = b.CreatePtrToInt(v, captured[j]->getType());
    inside.push_back(v);
  }
  ++parallelDepth;
  forRange(outlined->getArg(1), outlined->getArg(2), [&](Value *i) { body(i, inside); });
  --parallelDepth;
  b.CreateRetVoid();
  restoreFunction(std::move(saved));
  b.restoreIP(ip);

  auto *pfTy = FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, ptr, ptr, i64}, false);
  FunctionCallee pf = module.getOrInsertFunction(kParallelForSymbol, pfTy);
  b.CreateCall(pf, {kernel->getArg(1), outlined, closure, index(extent)});
}

void CPUKernelBuilder::outlined(StringRef suffix, function_ref<void()> emit) {
  // Emit in place between two fresh blocks, then let LLVM's code extractor
  // move the blocks in between into a function and find its parameters
  // (the region has one entry and one exit, and defines nothing used after
  // it).
  Function *fn = cur.fn;
  LLVMContext &ctx = module.getContext();
  BasicBlock *begin = BasicBlock::Create(ctx, "outlined", fn);
  b.CreateBr(begin);
  b.SetInsertPoint(begin);
  emit();
  BasicBlock *after = BasicBlock::Create(ctx, "outlined.end", fn);
  b.CreateBr(after);
  SmallVector<BasicBlock *, 32> region;
  bool inside = false;
  for (BasicBlock &bb : *fn) {
    inside |= &bb == begin;
    if (inside && &bb != after)
      region.push_back(&bb);
  }
  b.SetInsertPoint(after);
  // A light store (a bias, a relu, a residual add) stays inline: the call
  // and reading the tile back would cost more than the registers it frees.
  // A heavy one multiplies, divides or calls (a sigmoid's exp, an erf).
  static constexpr Intrinsic::ID cheapIntrinsics[] = {
      Intrinsic::minnum,      Intrinsic::maxnum,
      Intrinsic::minimum,     Intrinsic::maximum,
      Intrinsic::fabs,        Intrinsic::copysign,
      Intrinsic::masked_load, Intrinsic::x86_avx512_mask_compress};
  int64_t heavyOps = 0;
  for (BasicBlock *bb : region)
    for (Instruction &inst : *bb) {
      if (!inst.getType()->isFPOrFPVectorTy())
        continue;
      if (auto *call = dyn_cast<IntrinsicInst>(&inst))
        heavyOps += !is_contained(cheapIntrinsics, call->getIntrinsicID());
      else
        heavyOps += isa<CallInst>(inst) || inst.getOpcode() == Instruction::FMul ||
                    inst.getOpcode() == Instruction::FDiv || inst.getOpcode() == Instruction::FRem;
    }
  if (heavyOps < minOutlinedHeavyOps)
    return;
  CodeExtractorAnalysisCache cache(*fn);
  CodeExtractor extractor(region, /*DT=*/nullptr, /*AggregateArgs=*/false, nullptr, nullptr,
                          nullptr, /*AllowVarArgs=*/false, /*AllowAlloca=*/false, nullptr,
                          (suffix + Twine(fns.size())).str());
  Function *body = extractor.isEligible() ? extractor.extractCodeRegion(cache) : nullptr;
  if (!body) // the code stays where it was emitted
    return;
  // Named in the linked code like the parallel bodies (KernelJit's perf map).
  body->setLinkage(GlobalValue::ExternalLinkage);
  body->setVisibility(GlobalValue::HiddenVisibility);
  body->addFnAttr(Attribute::NoInline);
  body->setDoesNotThrow();
  fns.push_back(body);
}

void CPUKernelBuilder::contraction(const Contraction &c) {
  if (c.batch * c.m * c.n == 0)
    return;
  if (channelGemmPays(c))
    return channelGemm(c);
  if (windowGemmPays(c))
    return windowGemm(c);
  if (packedGemmPays(c))
    return packedGemm(c);
  // float32 (and float16, computed in float32) accumulate in float32; the
  // vector loop's lanes and unrolling split the sum over k into blocks.
  contractionLoop(c, productAccumulatorType(c.type));
}

Value *CPUKernelBuilder::sigmoid(DType t, Value *x) {
  return valueDType(t) == DType::Float32 ? sigmoidF32(x) : KernelBuilder::sigmoid(t, x);
}

/// A float32 max or min of 16-lane vectors (AVX-512) as maxps/minps,
/// which give their second operand where either is NaN: one instruction
/// where an operand is a constant that is not NaN (a relu's 0, a clip's
/// bounds: the constant first, so that the other's NaN comes out), else
/// three (the first operand's NaN selected after). llvm.maximum and
/// minimum lower to six on x86 (they also order -0 below +0, which these
/// leave to the operands' order). Null where this does not apply.
static Value *x86MaxMin(IRBuilderBase &b, Value *a, Value *c, bool isMax) {
  auto *vt = dyn_cast<FixedVectorType>(a->getType());
  if (!vt || vt->getNumElements() != 16 || !vt->getElementType()->isFloatTy())
    return nullptr;
  auto notNaNConstant = [](Value *v) {
    auto *k = dyn_cast<Constant>(v);
    if (k && k->getSplatValue())
      k = k->getSplatValue();
    auto *fp = dyn_cast_or_null<ConstantFP>(k);
    return fp && !fp->isNaN();
  };
  Intrinsic::ID id = isMax ? Intrinsic::x86_avx512_max_ps_512 : Intrinsic::x86_avx512_min_ps_512;
  Value *current = b.getInt32(4); // the current rounding mode
  if (notNaNConstant(a))
    std::swap(a, c);
  if (notNaNConstant(c))
    return b.CreateIntrinsic(id, {}, {c, a, current});
  Value *r = b.CreateIntrinsic(id, {}, {a, c, current});
  return b.CreateSelect(b.CreateFCmpUNO(a, a), a, r);
}

Value *CPUKernelBuilder::max(DType t, Value *a, Value *c) {
  Value *v = t == DType::Float32 && machine.lanes == 16 ? x86MaxMin(b, a, c, true) : nullptr;
  return v ? v : KernelBuilder::max(t, a, c);
}

Value *CPUKernelBuilder::min(DType t, Value *a, Value *c) {
  Value *v = t == DType::Float32 && machine.lanes == 16 ? x86MaxMin(b, a, c, false) : nullptr;
  return v ? v : KernelBuilder::min(t, a, c);
}

Value *CPUKernelBuilder::math(MathFn fn, DType t, ArrayRef<Value *> args) {
  if (valueDType(t) == DType::Float32) { // float16 computes in float32
    if (fn == MathFn::Exp)
      return expF32(args[0]);
    if (fn == MathFn::Log)
      return logF32(args[0]);
    if (fn == MathFn::Tanh)
      return tanhF32(args[0]);
    if (fn == MathFn::Erf)
      return erfF32(args[0]);
  }
  switch (fn) {
  case MathFn::Exp:
    return b.CreateUnaryIntrinsic(Intrinsic::exp, args[0]);
  case MathFn::Log:
    return b.CreateUnaryIntrinsic(Intrinsic::log, args[0]);
  case MathFn::Sqrt:
    return b.CreateUnaryIntrinsic(Intrinsic::sqrt, args[0]);
  case MathFn::Pow:
    return b.CreateBinaryIntrinsic(Intrinsic::pow, args[0], args[1]);
  case MathFn::Floor:
    return b.CreateUnaryIntrinsic(Intrinsic::floor, args[0]);
  case MathFn::Ceil:
    return b.CreateUnaryIntrinsic(Intrinsic::ceil, args[0]);
  case MathFn::Round:
    return b.CreateUnaryIntrinsic(Intrinsic::round, args[0]);
  case MathFn::RoundEven:
    return b.CreateUnaryIntrinsic(Intrinsic::roundeven, args[0]);
  case MathFn::Sin:
    return b.CreateUnaryIntrinsic(Intrinsic::sin, args[0]);
  case MathFn::Cos:
    return b.CreateUnaryIntrinsic(Intrinsic::cos, args[0]);
  case MathFn::Tanh:
  case MathFn::Erf:
  case MathFn::Tan:
  case MathFn::Asin:
  case MathFn::Acos:
  case MathFn::Atan:
  case MathFn::Sinh:
  case MathFn::Cosh:
  case MathFn::Asinh:
  case MathFn::Acosh:
  case MathFn::Atanh: {
    // libm: the backend has no lowering of llvm.tanh (nor of LLVM 19's
    // other new intrinsics, llvm.tan, llvm.asin, ...) on every LLVM 19
    // target, and erf and the inverse hyperbolic functions have no
    // intrinsic. The C name is mathFnName's, with an f for float32.
    llvm::Type *ty = registerType(t);
    bool f32 = valueDType(t) == DType::Float32; // float16 computes in float32
    std::string name = (mathFnName(fn) + (f32 ? "f" : "")).str();
    FunctionCallee f = module.getOrInsertFunction(name, ty, ty);
    if (auto *decl = dyn_cast<Function>(f.getCallee())) {
      decl->setDoesNotThrow();
      decl->setDoesNotAccessMemory();
      decl->setWillReturn();
    }
    auto callOn = [&](Value *x) {
      CallInst *call = b.CreateCall(f, {x});
      call->setDoesNotAccessMemory();
      return call;
    };
    // A vector (a fused epilogue's vector form): one call per lane.
    auto *vt = dyn_cast<FixedVectorType>(args[0]->getType());
    if (!vt)
      return callOn(args[0]);
    Value *r = PoisonValue::get(vt);
    for (unsigned l = 0; l < vt->getNumElements(); ++l)
      r = b.CreateInsertElement(r, callOn(b.CreateExtractElement(args[0], uint64_t(l))),
                                uint64_t(l));
    return r;
  }
  }
  llvm_unreachable("unknown math function");
}

void CPUKernelBuilder::withScratch(DType t, int64_t count, function_ref<void(Value *)> body) {
  count = std::max<int64_t>(count, 1);
  llvm::Type *elem = memoryType(t);
  int64_t bytes = count * int64_t(dtypeBytes(t));
  if (bytes <= kMaxStackScratch) {
    body(entryAlloca(ArrayType::get(elem, uint64_t(count))));
    return;
  }
  LLVMContext &ctx = module.getContext();
  llvm::Type *ptr = PointerType::getUnqual(ctx);
  FunctionCallee mallocFn = module.getOrInsertFunction("malloc", ptr, llvm::Type::getInt64Ty(ctx));
  FunctionCallee freeFn = module.getOrInsertFunction("free", llvm::Type::getVoidTy(ctx), ptr);
  Value *mem = b.CreateCall(mallocFn, {index(bytes)});
  ifThen(b.CreateIsNotNull(mem), [&] {
    body(mem);
    b.CreateCall(freeFn, {mem});
  });
}

} // namespace hx
