// SPDX-License-Identifier: GPL-2.0
//
// ptrcmp: an LLVM pass plugin (new pass manager, LLVM 14) that rebuilds
// the experiment of the v9 cover letter's "Testing" section:
//
//   "All pointer comparisons/subtractions have been instrumented in an LLVM
//    compiler pass and a kernel module that would print a bug report
//    whenever two pointers with different tags are being
//    compared/subtracted (ignoring comparisons with NULL pointers and with
//    pointers obtained by casting an error code to a pointer type)"
//
// The cover letter does not say where that pass is.  This one puts a call
//     __ptrcmp_check(void *a, void *b)
// before every pointer comparison (icmp on two pointers) and every pointer
// subtraction (sub of two ptrtoint values) in the functions KASAN itself
// instruments: those with the sanitize_hwaddress attribute.  So it leaves
// alone what KASAN leaves alone -- noinstr code, mm/kasan itself, early
// boot.  The runtime (patches/experiments/09-ptrcmp-runtime.patch,
// mm/kasan/ptrcmp.c) records the call sites whose two pointers carry
// different tags.
//
// What is skipped at compile time, and why (the cover letter's words):
//  - a comparison with the NULL pointer constant ("ignoring comparisons
//    with NULL pointers");
//  - a comparison with a constant error pointer, (void *)-4096..-1
//    ("pointers obtained by casting an error code to a pointer type"):
//    IS_ERR(p) is p >= (void *)-4095, which the optimizer may rewrite as
//    p > (void *)-4096, so the bound -4096 is skipped too; an error
//    pointer that is not a constant is left to the runtime, which ignores
//    IS_ERR values the same way.
// Comparisons with other constants -- the address of a global, a linker
// symbol such as __start_rodata -- are kept: they are the "fixed untagged
// values" of is_kernel_rodata and is_vmalloc_addr that the cover letter
// found.
//
// Built by vm/kbuild.py (make kernel VARIANT=ptrcmp) with Debian's clang++
// and llvm-14-dev; loaded with -fpass-plugin.

#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"

using namespace llvm;

namespace {

const char *const Runtime = "__ptrcmp_check";

// NULL, or an error pointer constant or bound: (void *)-4096 .. (void *)-1.
bool ignoredConstant(const Value *V)
{
	if (isa<ConstantPointerNull>(V))
		return true;
	const auto *CE = dyn_cast<ConstantExpr>(V);
	if (!CE || CE->getOpcode() != Instruction::IntToPtr)
		return false;
	const auto *CI = dyn_cast<ConstantInt>(CE->getOperand(0));
	if (!CI)
		return false;
	int64_t N = CI->getSExtValue();
	return N >= -4096 && N <= -1;
}

// The pointer behind a ptrtoint operand of a subtraction, or nullptr.
Value *pointerOf(Value *V)
{
	if (auto *P = dyn_cast<PtrToIntInst>(V))
		return P->getPointerOperand();
	if (auto *CE = dyn_cast<ConstantExpr>(V))
		if (CE->getOpcode() == Instruction::PtrToInt)
			return CE->getOperand(0);
	return nullptr;
}

struct PtrCmpPass : PassInfoMixin<PtrCmpPass> {
	PreservedAnalyses run(Module &M, ModuleAnalysisManager &)
	{
		LLVMContext &Ctx = M.getContext();
		Type *I8Ptr = Type::getInt8PtrTy(Ctx);
		FunctionCallee Check = M.getOrInsertFunction(
			Runtime, Type::getVoidTy(Ctx), I8Ptr, I8Ptr);
		bool Changed = false;

		for (Function &F : M) {
			if (F.isDeclaration() ||
			    !F.hasFnAttribute(Attribute::SanitizeHWAddress))
				continue;
			SmallVector<std::pair<Instruction *, std::pair<Value *, Value *>>, 16> Sites;
			for (Instruction &I : instructions(F)) {
				Value *A = nullptr, *B = nullptr;
				if (auto *C = dyn_cast<ICmpInst>(&I)) {
					// pointer comparisons only, not vectors of them
					if (!C->getOperand(0)->getType()->isPointerTy())
						continue;
					A = C->getOperand(0);
					B = C->getOperand(1);
				} else if (I.getOpcode() == Instruction::Sub) {
					A = pointerOf(I.getOperand(0));
					B = pointerOf(I.getOperand(1));
					if (!A || !B)
						continue;
				} else {
					continue;
				}
				if (ignoredConstant(A) || ignoredConstant(B))
					continue;
				Sites.push_back({&I, {A, B}});
			}
			for (auto &S : Sites) {
				IRBuilder<> IRB(S.first);
				IRB.CreateCall(Check, {IRB.CreatePointerCast(S.second.first, I8Ptr),
						       IRB.CreatePointerCast(S.second.second, I8Ptr)});
				Changed = true;
			}
		}
		return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
	}
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo()
{
	return {LLVM_PLUGIN_API_VERSION, "ptrcmp", "1", [](PassBuilder &PB) {
			PB.registerOptimizerLastEPCallback(
				[](ModulePassManager &MPM, OptimizationLevel) {
					MPM.addPass(PtrCmpPass());
				});
		}};
}
