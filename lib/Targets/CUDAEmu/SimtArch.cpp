//===- SimtArch.cpp - The shared GPU lowering's hooks for the emulator ----===//
//
// See SimtArch.h.
//
//===----------------------------------------------------------------------===//
#include "SimtArch.h"
#include "hx/Targets/CUDA/CUDATuning.h"
#include "hx/Targets/GPU/GPUKernelBuilder.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace hx {

/// The emulator's state: i32 [tid.x, ctaid.x, nctaid.x, reserved].
static GlobalVariable *simtState(llvm::Module &m) {
  auto *ty = ArrayType::get(llvm::Type::getInt32Ty(m.getContext()), 4);
  return cast<GlobalVariable>(m.getOrInsertGlobal("hx_simt_state", ty));
}

const TargetKindInfo &SimtArch::kind() const { return *lookupTargetKind("cuda"); }

const GPUTuning &SimtArch::tuning() const { return cudaTuning(); }

void SimtArch::initModule(llvm::Module &m) const {
  m.setTargetTriple(triple);
  m.setDataLayout(dataLayout);
}

Error SimtArch::finishModule(orc::ThreadSafeModule module) {
  modules.push_back(std::move(module));
  return Error::success();
}

/// `void <kernel>.host(ptr buffers, ptr launch)`: KernelABI's entry, which
/// calls the emulated kernel with buffers[0..n).
void SimtArch::finishKernel(llvm::Function &kernel, const GPUKernelBuilder &) const {
  LLVMContext &ctx = kernel.getContext();
  llvm::Type *ptr = PointerType::getUnqual(ctx);
  auto *ty = FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, ptr}, false);
  auto *entry = llvm::Function::Create(ty, GlobalValue::ExternalLinkage, kernel.getName() + ".host",
                                       kernel.getParent());
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", entry));
  SmallVector<Value *, 8> args;
  for (unsigned i = 0; i < kernel.arg_size(); ++i)
    args.push_back(b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, entry->getArg(0), i)));
  b.CreateCall(&kernel, args);
  b.CreateRetVoid();
}

Value *SimtArch::specialRegister(IRBuilder<> &b, llvm::Module &m, GPURegister r) const {
  GlobalVariable *state = simtState(m);
  return b.CreateLoad(b.getInt32Ty(),
                      b.CreateConstInBoundsGEP2_32(state->getValueType(), state, 0, unsigned(r)));
}

void SimtArch::barrier(IRBuilder<> &b, llvm::Module &m, unsigned site) const {
  LLVMContext &ctx = m.getContext();
  FunctionCallee f = m.getOrInsertFunction("hx_simt_barrier", llvm::Type::getVoidTy(ctx),
                                           PointerType::getUnqual(ctx), b.getInt32Ty());
  b.CreateCall(f, {simtState(m), b.getInt32(site)});
}

GlobalVariable *SimtArch::sharedArray(llvm::Module &m, ArrayType *ty, const Twine &name) const {
  return new GlobalVariable(m, ty, /*isConstant=*/false, GlobalValue::ExternalLinkage,
                            llvm::Constant::getNullValue(ty), name);
}

StringRef SimtArch::mathFunction(MathFn fn, bool f32) const {
  switch (fn) {
  case MathFn::Exp:
    return f32 ? "expf" : "exp";
  case MathFn::Log:
    return f32 ? "logf" : "log";
  case MathFn::Tanh:
    return f32 ? "tanhf" : "tanh";
  case MathFn::Pow:
    return f32 ? "powf" : "pow";
  case MathFn::Erf:
    return f32 ? "erff" : "erf";
  case MathFn::Sin:
    return f32 ? "sinf" : "sin";
  case MathFn::Cos:
    return f32 ? "cosf" : "cos";
  case MathFn::Tan:
    return f32 ? "tanf" : "tan";
  case MathFn::Asin:
    return f32 ? "asinf" : "asin";
  case MathFn::Acos:
    return f32 ? "acosf" : "acos";
  case MathFn::Atan:
    return f32 ? "atanf" : "atan";
  case MathFn::Sinh:
    return f32 ? "sinhf" : "sinh";
  case MathFn::Cosh:
    return f32 ? "coshf" : "cosh";
  case MathFn::Asinh:
    return f32 ? "asinhf" : "asinh";
  case MathFn::Acosh:
    return f32 ? "acoshf" : "acosh";
  case MathFn::Atanh:
    return f32 ? "atanhf" : "atanh";
  default:
    return "";
  }
}

Value *SimtArch::accessAddress(GPUKernelBuilder &kb, DType t, int buffer, Value *offset,
                               Value *addr, bool write) const {
  if (buffer < 0) // shared memory or a scratch array
    return addr;
  IRBuilder<> &b = kb.builder();
  llvm::Module &m = kb.llvmModule();
  LLVMContext &ctx = m.getContext();
  llvm::Type *ptrTy = PointerType::getUnqual(ctx), *i64 = b.getInt64Ty();
  auto *sizesVar = cast<GlobalVariable>(m.getOrInsertGlobal("hx_simt_sizes", ptrTy));
  Value *sizes = b.CreateLoad(ptrTy, sizesVar);
  Value *limit = b.CreateLoad(i64, b.CreateConstInBoundsGEP1_64(i64, sizes, unsigned(buffer)));
  int64_t bytes = dtypeBytes(t);
  Value *byte = b.CreateMul(offset, kb.index(bytes));
  // Unsigned: a negative offset is beyond too.
  Value *inside = b.CreateICmpULE(b.CreateAdd(byte, kb.index(bytes)), limit);
  kb.ifThen(b.CreateNot(inside), [&] {
    FunctionCallee fault = m.getOrInsertFunction("hx_simt_fault", llvm::Type::getVoidTy(ctx), ptrTy,
                                                 b.getInt32Ty(), i64, b.getInt1Ty());
    b.CreateCall(fault, {simtState(m), b.getInt32(unsigned(buffer)), byte, b.getInt1(write)});
  });
  auto *sinkTy = ArrayType::get(b.getInt8Ty(), 16);
  Value *sink = m.getOrInsertGlobal("hx_simt_sink", sinkTy);
  return b.CreateSelect(inside, addr, sink);
}

} // namespace hx
