//===- SeedProgram.h - The seed bug's program, for unit tests ---*- C++ -*-===//
//
// TVM's PlanDevices abort (seed 000): `(a+b)-(b+c)` with the first add on
// the cpu and the second on cuda, so %b is needed on both devices.
//
//===----------------------------------------------------------------------===//
#ifndef HX_UNITTESTS_SEEDPROGRAM_H
#define HX_UNITTESTS_SEEDPROGRAM_H

namespace hx::test {
inline constexpr const char *kSeedProgram = R"(#[version = "0.0.5"]
def @main(%a: Tensor[(5, 7), float32], %b: Tensor[(5, 7), float32], %c: Tensor[(5, 7), float32]) {
  %0 = add(%a, %b);
  %1 = on_device(%0, virtual_device=meta[VirtualDevice][0]);
  %2 = add(%b, %c);
  %3 = on_device(%2, virtual_device=meta[VirtualDevice][1]);
  subtract(%1, %3)
}
#[metadata]
{"VirtualDevice": [{"device_type": "cpu"}, {"device_type": "cuda"}],
 "PassConfig": {"relay.fallback_device_type": 2}}
)";
} // namespace hx::test

#endif
