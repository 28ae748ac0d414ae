//===- OpCost.h - What one operator call computes and moves -----*- C++ -*-===//
//
// The work of a typed operator call, for cost models (plan-devices
// --placement=min-time): its floating-point operations and the bytes it reads
// and writes, from its argument and result types; and its signature, the key
// a measured cost table (hx-run --cost-table-out) stores it under.
//
//===----------------------------------------------------------------------===//
#ifndef HX_OPS_OPCOST_H
#define HX_OPS_OPCOST_H

#include <string>

namespace hx {
class Call;

struct OpWork {
  double flops = 0;
  double bytes = 0;
};

/// FLOPs and bytes of a typed operator call: 2·M·N·K for nn.dense and
/// nn.batch_matmul, 2 per multiply-add of nn.conv2d, else one operation per
/// element of the larger of its inputs and its result.
OpWork operatorWork(const Call &c);

/// `nn.conv2d(Tensor[(1, 3, 8, 8), float32], Tensor[...]) {strides=[2, 2]}`:
/// the operator, its argument types and the attributes that differ from the
/// operator's defaults (as the printer writes them).
std::string operatorSignature(const Call &c);

} // namespace hx

#endif
