//===- GPUKernelBuilder.cpp - KernelBuilder for the GPU targets -----------===//
//
// See GPUKernelBuilder.h for the mapping. The kernel's entry block holds
// only allocas and a branch to its body, so that finish() can turn the
// branch into "thread 0 of block 0 only" when no parallel loop was emitted.
// The tiled contraction is TiledContraction.cpp; what the hardware does its
// own way, the GPUArch's hooks.
//
//===----------------------------------------------------------------------===//

#include "hx/Targets/GPU/GPUKernelBuilder.h"
#include "hx/Targets/GPU/GPUCompiler.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace hx {

GPUKernelBuilder::GPUKernelBuilder(Module &m, StringRef kernelName, unsigned numBuffers,
                                   const GPUArch &arch)
    : KernelBuilder(m, numBuffers), gpu(arch), name(kernelName.str()) {
  LLVMContext &ctx = m.getContext();
  SmallVector<llvm::Type *, 8> params(numBuffers, PointerType::getUnqual(ctx));
  auto *fnTy = FunctionType::get(llvm::Type::getVoidTy(ctx), params, false);
  kernel = llvm::Function::Create(fnTy, GlobalValue::ExternalLinkage, name, m);
  gpu.initKernel(*kernel);
  kernel->setDoesNotThrow();
  SmallVector<Value *, 8> args;
  for (unsigned i = 0; i < numBuffers; ++i) {
    kernel->getArg(i)->setName("buf" + Twine(i));
    args.push_back(kernel->getArg(i));
  }
  beginFunction(kernel, args);
  body = BasicBlock::Create(ctx, "body", kernel);
  b.CreateBr(body);
  b.SetInsertPoint(body);
}

void GPUKernelBuilder::finish() {
  b.CreateRetVoid();
  if (sawParallel)
    return;
  // No parallel loop: one thread does the work.
  BasicBlock *entry = &kernel->getEntryBlock();
  entry->getTerminator()->eraseFromParent();
  BasicBlock *exit = BasicBlock::Create(module.getContext(), "idle", kernel);
  IRBuilder<> eb(exit);
  eb.CreateRetVoid();
  b.SetInsertPoint(entry);
  Value *first = b.CreateICmpEQ(b.CreateAdd(threadIndex(), blockIndex()), index(0));
  b.CreateCondBr(first, body, exit);
}

void GPUKernelBuilder::discard() {
  if (kernel) {
    kernel->dropAllReferences();
    kernel->eraseFromParent();
    kernel = nullptr;
  }
  for (GlobalVariable *g : shared)
    g->eraseFromParent();
  shared.clear();
}

Value *GPUKernelBuilder::specialRegister(GPURegister r) {
  return b.CreateZExt(gpu.specialRegister(b, module, r), b.getInt64Ty());
}

Value *GPUKernelBuilder::accessAddress(DType t, Value *ptr, Value *offset, Value *addr,
                                       bool write) {
  int buf = 0;
  while (unsigned(buf) < numBuffers() && buffer(unsigned(buf)) != ptr)
    ++buf;
  if (unsigned(buf) == numBuffers()) // shared memory or a scratch array
    buf = -1;
  return gpu.accessAddress(*this, t, buf, offset, addr, write);
}

Value *GPUKernelBuilder::threadIndex() { return specialRegister(GPURegister::ThreadIndex); }

Value *GPUKernelBuilder::blockIndex() { return specialRegister(GPURegister::BlockIndex); }

Value *GPUKernelBuilder::gridSize() { return specialRegister(GPURegister::GridSize); }

void GPUKernelBuilder::barrier() { gpu.barrier(b, module, barriers++); }

void GPUKernelBuilder::wantBlocks(int64_t blocks) {
  grid = std::max<unsigned>(grid, unsigned(std::clamp<int64_t>(blocks, 1, tuning().maxGrid)));
}

void GPUKernelBuilder::requestBlocksPerSM(unsigned blocks) {
  blocksPerSM = blocksPerSM ? std::min(blocksPerSM, blocks) : blocks;
}

GlobalVariable *GPUKernelBuilder::sharedArray(DType t, int64_t count, StringRef suffix) {
  auto *ty = ArrayType::get(memoryType(t), uint64_t(count));
  GlobalVariable *g = gpu.sharedArray(module, ty, name + "." + suffix);
  g->setAlignment(Align(16));
  shared.push_back(g);
  return g;
}

Value *GPUKernelBuilder::elementAddress(DType t, Value *base, Value *i) {
  return b.CreateInBoundsGEP(memoryType(t), base, i);
}

void GPUKernelBuilder::parallelFor(int64_t extent, int64_t workPerIteration, LoopBody loop) {
  if (extent <= 0)
    return;
  if (parallelDepth > 0) {
    forRange(0, extent, loop);
    return;
  }
  sawParallel = true;
  constexpr int64_t block = GPUCompiler::kBlockDim;
  wantBlocks((extent + block - 1) / block);
  Value *start = iadd(imul(blockIndex(), block), threadIndex());
  Value *stride = imul(gridSize(), block);
  ++parallelDepth;
  forRange(start, index(extent), stride, loop);
  --parallelDepth;
}

void GPUKernelBuilder::blockStrideLoop(int64_t extent, LoopBody loop) {
  sawParallel = true;
  wantBlocks(extent);
  ++parallelDepth;
  forRange(blockIndex(), index(extent), gridSize(), loop);
  --parallelDepth;
}

Value *GPUKernelBuilder::math(MathFn fn, DType t, ArrayRef<Value *> args) {
  bool f32 = valueDType(t) == DType::Float32; // float16 computes in float32
  switch (fn) {
  case MathFn::Sqrt:
    return b.CreateUnaryIntrinsic(Intrinsic::sqrt, args[0]);
  case MathFn::Floor:
    return b.CreateUnaryIntrinsic(Intrinsic::floor, args[0]);
  case MathFn::Ceil:
    return b.CreateUnaryIntrinsic(Intrinsic::ceil, args[0]);
  case MathFn::Round:
    return b.CreateUnaryIntrinsic(Intrinsic::round, args[0]);
  case MathFn::RoundEven:
    return b.CreateUnaryIntrinsic(Intrinsic::roundeven, args[0]);
  default:
    break;
  }
  StringRef callee = gpu.mathFunction(fn, f32);
  llvm::Type *ty = registerType(t);
  SmallVector<llvm::Type *, 2> params(args.size(), ty);
  FunctionCallee f = module.getOrInsertFunction(callee, FunctionType::get(ty, params, false));
  if (auto *decl = dyn_cast<llvm::Function>(f.getCallee())) {
    decl->setDoesNotThrow();
    decl->setDoesNotAccessMemory();
    decl->setWillReturn();
  }
  CallInst *call = b.CreateCall(f, args);
  call->setDoesNotAccessMemory();
  return call;
}

void GPUKernelBuilder::withScratch(DType t, int64_t count, function_ref<void(Value *)> use) {
  count = std::max<int64_t>(count, 1);
  int64_t limit = tuning().maxScratchBytes;
  if (count * int64_t(dtypeBytes(t)) > limit) {
    err = "a scratch array of " + std::to_string(count * int64_t(dtypeBytes(t))) +
          " bytes per thread (the limit is " + std::to_string(limit) + ")";
    count = 1;
  }
  use(entryAlloca(ArrayType::get(memoryType(t), uint64_t(count))));
}

Value *GPUKernelBuilder::multiplyAdd(DType t, Value *x, Value *y, Value *z) {
  if (isFloat(t)) // fused where the hardware has it (fma.rn)
    return b.CreateIntrinsic(Intrinsic::fmuladd, {registerType(t)}, {x, y, z});
  return add(t, mul(t, x, y), z);
}

void GPUKernelBuilder::contraction(const Contraction &c) {
  if (c.batch * c.m * c.n == 0)
    return;
  if (parallelDepth == 0)
    for (const GPUContractionSchedule *s : tuning().contractionSchedules)
      if (s->takes(c, tuning())) {
        s->emit(*this, c);
        return;
      }
  KernelBuilder::contraction(c);
}

} // namespace hx
