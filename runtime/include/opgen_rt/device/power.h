// ascend-opgen host emulation of AscendC's Power (asc-devkit include/adv_api/math/power.h), the form with a
// LocalTensor base and a scalar exponent, without sharedTmpBuffer (count given):
//   dst[i] = src0Tensor[i] ** src1Scalar, i < calCount.
//
// Declarations as the real header: NpuArch 2201 and 2002 take <T, isReuseSource>; NpuArch 3510 (and 5102,
// 3003, 3113) add a third template parameter, `const PowerConfig& config = defaultPowerConfig`
// (impl/adv_api/detail/math/power/power_common_utils.h: PowerAlgo INTRINSIC / DOUBLE_FLOAT_TECH).
//
// Temporary space: this form takes all the UB the kernel's buffers leave, PopStackBuffer<uint8_t, LCM>: from
// the end of the pipe's buffers to the end of UB, less the last 64 bytes (a KfcMsg) on NpuArch 2201, to
// TMP_UB_OFFSET on 3510 (asc-devkit impl/basic_api/kernel_pop_stack_buffer.h, GetEndAddress). On 2201 it then
// asserts CheckTmpBufferSize: more than one 256-byte repeat, and a split of at least one 32-element block of its
// fp32 lines (4 lines for float, 7 for half: power_v220_impl.h TENSOR_TENSOR_FLOAT/HALF; power_common_impl.h):
// at least 256 + 32 * 4 * 4 = 768 bytes for float, 256 + 32 * 4 * 7 = 1152 for half. A kernel whose buffers
// leave less fails there; the emulation raises the UB capacity fault (kPowerStackMinBytes; on other NpuArch
// only the 256-byte repeat is required, assumed: their split rule was not read).
//
// Values: the real half form casts each element to float, computes in float and casts back (CAST_NONE); the
// float form computes in float by a sequence of vector instructions: exp(y * ln|x|) (Abs, Ln, Mul, Exp), times
// -1 for a negative base (sign bit set) and an odd integer exponent, then 1 where the exponent is 0 or the
// base 1 (or -1 with an infinite exponent), then NaN where the base is negative (not -inf) and the exponent a
// finite non-integer (asc-devkit impl/adv_api/detail/math/power/power_float_impl.h, read for these facts).
// Those selects give IEEE pow's special values. The emulation computes C's pow in double of the float values,
// rounds it to float and, for half, then to half, ties to even: the correctly rounded power in float but for
// rare double roundings (glibc's powf is not correctly rounded, so it is not used). The hardware's Ln/Exp
// composition is not bit-exact; its error is not modelled (assumed within the op's bound, docs/emulator.md).
// Operand checks and pipe bookkeeping are one vector instruction's; the counters take the composition's
// full-width instructions (kPowerFloatVectorOps). Hand-written runtime code; not generated.
#ifndef OPGEN_RT_DEVICE_POWER_H
#define OPGEN_RT_DEVICE_POWER_H

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "opgen_rt/device/tensor.h"
#include "opgen_rt/device/vec.h"

namespace AscendC {

enum class PowerAlgo {
  INTRINSIC = 0,
  DOUBLE_FLOAT_TECH,
};

struct PowerConfig {
  PowerAlgo algo = PowerAlgo::INTRINSIC;
};

constexpr PowerConfig defaultPowerConfig = {PowerAlgo::INTRINSIC};

namespace opgen_detail {

// The full-width fp32 vector instructions Power's float composition issues per element on NpuArch 2201
// (power_float_impl.h / power_v220_impl.h), in order: exp(y ln|x|) (Abs, Ln, Mul, Exp), the parity sign (Abs,
// Cast, Muls, Cast, Muls, Sub, Muls, Adds, Cast), the sign mask (ShiftRight and CompareScalar of the sign bit,
// Abs, Cast, Sub, Abs, CompareScalar), Select and Mul, the ones mask (Abs, four CompareScalars) and its Select,
// the NaN mask (Abs, three CompareScalars) and its Select: 33. Left out: the 7 And/Or over the masks' uint16
// words (n/16 elements each) and the exponent's Duplicate once per call. The half form adds a Cast before and
// after.
constexpr const char *kPowerFloatSequence[] = {
    "Abs", "Ln", "Mul", "Exp",                                                          // exp(y ln|x|)
    "Abs", "Cast", "Muls", "Cast", "Muls", "Sub", "Muls", "Adds", "Cast",               // the parity sign
    "ShiftRight", "CompareScalar", "Abs", "Cast", "Sub", "Abs", "CompareScalar",        // the sign mask
    "Select", "Mul",                                                                    // the sign applied
    "Abs", "CompareScalar", "CompareScalar", "CompareScalar", "CompareScalar", "Select",  // the ones
    "Abs", "CompareScalar", "CompareScalar", "CompareScalar", "Select"};                  // the NaNs
constexpr uint64_t kPowerFloatVectorOps = sizeof(kPowerFloatSequence) / sizeof(kPowerFloatSequence[0]);
static_assert(kPowerFloatVectorOps == 33, "Power's float composition issues 33 full-width instructions");

// dst[i] = src[i] ** exponent in float, rounded once to T. The values, operand checks and pipe accesses are one
// instruction's (VecUnary, named Power); the composition's other instructions are issued on the vector pipe by
// their names (timed by their classes) and counted, each over calCount fp32 elements.
// The smallest stack buffer Power's form without sharedTmpBuffer runs with on NpuArch 2201 (bytes; see above).
constexpr uint64_t kPowerRepeatBytes = 256;
constexpr uint64_t kPowerStackMinBytesFloat = kPowerRepeatBytes + 32 * sizeof(float) * 4;
constexpr uint64_t kPowerStackMinBytesHalf = kPowerRepeatBytes + 32 * sizeof(float) * 7;

// Faults (UB capacity) when the UB the kernel's buffers leave, from their end (ubTop) to PopStackBuffer's end
// address, is below what Power's form without sharedTmpBuffer needs on the core's NpuArch.
template <typename T>
inline void CheckPowerStack(Core *c) {
  const int32_t arch = c->product->npuArch;
  const uint64_t total = c->product->ubBytes;
  const uint64_t end = arch == 2201 ? total - 64 : total;  // a KfcMsg at the end of UB on 2201
  const uint64_t left = end > c->ubTop ? end - c->ubTop : 0;
  const bool isHalf = std::is_same<T, half>::value;
  const uint64_t need = arch == 2201 ? (isHalf ? kPowerStackMinBytesHalf : kPowerStackMinBytesFloat)
                                     : kPowerRepeatBytes + 1;
  if (left < need) {
    c->Fault(opgen_rt::device::rule::kUbCapacity,
             std::string("Power without sharedTmpBuffer takes the UB the kernel's buffers leave (PopStackBuffer: ") +
                 std::to_string(c->ubTop) + " to " + std::to_string(end) + " bytes) and needs at least " +
                 std::to_string(need) + " bytes there on NpuArch " + std::to_string(arch) + "; " +
                 std::to_string(left) + " left: keep UB back for it in the tiling");
  }
}

template <typename T>
inline void PowerScalar(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &exponent, uint32_t calCount) {
  static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "Power supports half and float");
  CheckPowerStack<T>(dst.Bound());
  const float e = static_cast<float>(Ld(exponent));
  VecUnary("Power", dst, src, static_cast<int64_t>(calCount), [e](float x) {
    return static_cast<float>(std::pow(static_cast<double>(x), static_cast<double>(e)));
  });
  Core *c = dst.Bound();
  const bool isHalf = std::is_same<T, half>::value;
  const uint64_t ops = kPowerFloatVectorOps + (isHalf ? 2 : 0);
  for (uint64_t k = 1; k < ops; ++k) {  // VecUnary issued and counted the first
    const char *name = isHalf && (k == 1 || k + 1 == ops) ? "Cast" : kPowerFloatSequence[isHalf ? k - 1 : k];
    (void)c->Issue(opgen_rt::device::kPipeV, name);
    c->CountVector(calCount, sizeof(float));
  }
}

}  // namespace opgen_detail

#if defined(__NPU_ARCH__) && (__NPU_ARCH__ == 3510 || __NPU_ARCH__ == 5102 || __NPU_ARCH__ == 3003 || __NPU_ARCH__ == 3113)
template <typename T, bool isReuseSource = false, const PowerConfig& config = defaultPowerConfig>
inline void Power(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const T& src1Scalar,
                  uint32_t calCount) {
  opgen_detail::PowerScalar<T>(dstTensor, src0Tensor, src1Scalar, calCount);
}
#else
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const T& src1Scalar,
                  uint32_t calCount) {
  opgen_detail::PowerScalar<T>(dstTensor, src0Tensor, src1Scalar, calCount);
}
#endif

}  // namespace AscendC

#endif  // OPGEN_RT_DEVICE_POWER_H
