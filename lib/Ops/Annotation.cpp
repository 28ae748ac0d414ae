//===- Annotation.cpp - on_device and device_copy -------------------------===//
//
// The device annotations are identity-typed: their result has the type of
// their single argument, whatever it is (tensor, tuple or function), and
// their dtype is never checked. PlanDevices gives them meaning:
//
//   on_device(%x, virtual_device=D)                  %x is computed on D
//   on_device(%x, virtual_device=D, constrain_result=True)
//                                                    ... and stays on D
//   on_device(%x, virtual_device=D, constrain_body=False)
//                                                    only the result is on D
//   device_copy(%x, src_virtual_device=S, dst_virtual_device=D)
//                                                    copies %x from S to D
//
// The parser rewrites TVM's legacy forms (device_type=, is_fixed=,
// src_dev_type=, dst_dev_type=) into these before verification.
//
//===----------------------------------------------------------------------===//

#include "TypeRelation.h"

using namespace llvm;

namespace hx {

static TypeRef identityRel(TypeRelContext &ctx) {
  return TypeRef(const_cast<Type *>(ctx.argTypes[0]));
}

void addAnnotationOps(std::vector<OpDef> &ops) {
  OpDef onDevice;
  onDevice.name = kOnDevice;
  onDevice.summary = "Annotates where its argument is computed (identity)";
  onDevice.numArgs = 1;
  onDevice.dtypes = kAnySupported;
  onDevice.attrs = {noneAttr("virtual_device", AttrKind::OptDevice),
                    boolAttr("constrain_result", false), boolAttr("constrain_body", true)};
  onDevice.relation = identityRel;
  ops.push_back(std::move(onDevice));

  OpDef copy;
  copy.name = kDeviceCopy;
  copy.summary = "Copies its argument between virtual devices (identity)";
  copy.numArgs = 1;
  copy.dtypes = kAnySupported;
  copy.attrs = {requiredAttr("src_virtual_device", AttrKind::Device),
                requiredAttr("dst_virtual_device", AttrKind::Device)};
  copy.relation = identityRel;
  ops.push_back(std::move(copy));
}

} // namespace hx
