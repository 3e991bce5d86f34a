// ascend-opgen host emulation of CANN's kernel_operator.h (the AscendC kernel API subset that generated
// vector kernels use). Generated kernels include this header unchanged; on the host it compiles with g++
// and runs every emulated AI core as a thread of opgen_rt::RunKernel (runtime/src/device/).
//
// Strictness: the emulation raises a kernel fault where the hardware would misbehave (UB capacity and
// alignment, GM and UB bounds, 32-byte DataCopy truncation, queue misuse, atomic dtypes, SyncAll mismatch,
// hardware SyncAll on a product without it, writes into the system workspace, reduction repeat / mask / work-buffer /
// overlap rules, sort instructions on products without them);
// races between the pipes of a core, unpaired flags, GM lines shared through the scalar data cache);
// see runtime/include/opgen_rt/device/core_state.h for the rule names. Facts and their sources:
// shared/reference/ascend-platform.md. Hand-written runtime code; not generated.
#ifndef OPGEN_RT_KERNEL_OPERATOR_H
#define OPGEN_RT_KERNEL_OPERATOR_H

#include <cstdint>
#include <type_traits>

// Device qualifiers are empty on the host.
#ifndef __aicore__
#define __aicore__
#endif
#ifndef __global__
#define __global__
#endif
#ifndef __gm__
#define __gm__
#endif

#include "opgen_rt/device/copy.h"
#include "opgen_rt/device/core_state.h"
#include "opgen_rt/device/enums.h"
#include "opgen_rt/device/power.h"
#include "opgen_rt/device/reduce.h"
#include "opgen_rt/device/sort.h"
#include "opgen_rt/device/tensor.h"
#include "opgen_rt/device/types.h"
#include "opgen_rt/device/vec.h"

// A kernel parameter: a pointer into global memory.
using GM_ADDR = __gm__ uint8_t *;

namespace AscendC {

// Index of this core in the launch, 0..GetBlockNum()-1.
inline int64_t GetBlockIdx() {
  opgen_rt::device::Core *c = opgen_rt::device::CurrentCore();
  c->Poll();
  return c->blockIdx;
}

// Number of cores of the launch (blockDim).
inline int64_t GetBlockNum() {
  opgen_rt::device::Core *c = opgen_rt::device::CurrentCore();
  c->Poll();
  return c->blockNum;
}

// Hardware barrier across every core of the launch (asc-devkit include/basic_api/kernel_operator_block_sync_intf.h).
// A core that exits while others wait here is a [SyncAll] fault. Products without hardware SyncAll (NpuArch 1001
// and 2002: SyncAllImpl is an ASSERT compiled out of release builds, so the cores would run on unsynchronised)
// fault with [SyncAll unsupported] at the first call.
template <bool isAIVOnly = true>
inline void SyncAll() {
  opgen_rt::device::CurrentCore()->SyncAll();
}

// Software barrier (SoftSyncAllImpl in asc-devkit impl/basic_api/dav_*/kernel_operator_sync_impl.h), on every
// product. Rules, as the real implementation needs them: every core of the launch takes part (usedCores 0 or
// the core count); gmWorkspace holds usedCores * 32 bytes (one 32-byte slot of int32 counters per core) that
// are zero when the launch starts, and is touched by nothing else; ubWorkspace is a 32-byte aligned UB tensor
// of at least usedCores * 32 bytes. Broken rules and cores missing from the barrier are [SyncAll] faults.
template <bool isAIVOnly = true>
inline void SyncAll(const GlobalTensor<int32_t> &gmWorkspace, const LocalTensor<int32_t> &ubWorkspace,
                    const int32_t usedCores = 0) {
  opgen_rt::device::Core *c = gmWorkspace.Bound("SyncAll(gmWorkspace, ubWorkspace)");
  c->SoftSyncAll(gmWorkspace.addr_, gmWorkspace.size_, ubWorkspace.ref_, usedCores);
}

// Pipe synchronisation (asc-devkit include/basic_api/kernel_operator_block_sync_intf.h). The emulation
// models the pipes of a core (see opgen_rt/device/core_state.h, "The pipe model"): these order them, and
// unpaired or impossible flags are faults ([sync unpaired], [sync deadlock], [sync params]).
template <pipe_t pipe>
inline void PipeBarrier() {
  opgen_rt::device::CurrentCore()->PipeBarrier(static_cast<int32_t>(pipe));
}

template <HardEvent event>
inline void SetFlag(int32_t eventID) {
  opgen_rt::device::CurrentCore()->SetFlag(static_cast<int32_t>(event), eventID);
}

template <HardEvent event>
inline void WaitFlag(int32_t eventID) {
  opgen_rt::device::CurrentCore()->WaitFlag(static_cast<int32_t>(event), eventID);
}

// Scalar data cache maintenance (asc-devkit include/basic_api/kernel_operator_cache_intf.h; the enums are
// those of impl/basic_api/kernel_reg.h). Product support (hiascend atlasascendc_api_07_0177): the
// DcciDst forms on A2/A3/950/200I-500 A2, the form without DcciDst also on the Atlas inference series
// (310P, NpuArch 2002), neither on the Atlas training series (Ascend910, NpuArch 1001); the implementation
// exists for NpuArch 2201, 3002, 3003, 3113, 3510 and 5102 (asc-devkit impl/basic_api/kernel_reg.h).
namespace opgen_detail {
#if !defined(__NPU_ARCH__) || __NPU_ARCH__ == 2201 || __NPU_ARCH__ == 3002 || __NPU_ARCH__ == 3003 || \
    __NPU_ARCH__ == 3113 || __NPU_ARCH__ == 3510 || __NPU_ARCH__ == 5102
constexpr bool kDcciGm = true;
constexpr bool kDcciDst = true;
#elif __NPU_ARCH__ == 2002
constexpr bool kDcciGm = true;
constexpr bool kDcciDst = false;
#else
constexpr bool kDcciGm = false;
constexpr bool kDcciDst = false;
#endif
template <typename T>
struct DcciGmAvailable : std::integral_constant<bool, kDcciGm> {};
template <typename T>
struct DcciAvailable : std::integral_constant<bool, kDcciDst> {};
}  // namespace opgen_detail

// Cleaning a GM line writes it back and invalidates it; the line is the 64-byte one holding dst's address (SINGLE_CACHE_LINE) or the whole cache (ENTIRE_DATA_CACHE).
template <typename T, CacheLine entireType, DcciDst dcciDst>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T> &dst) {
  static_assert(opgen_detail::DcciAvailable<T>::value,
                "DataCacheCleanAndInvalid with a DcciDst is not available on " OPGEN_PRODUCT_NAME);
  opgen_rt::device::Core *c = dst.Bound("DataCacheCleanAndInvalid");
  if (dcciDst != DcciDst::CACHELINE_UB) {
    c->FlushCache(dst.GetPhyAddr(), entireType == CacheLine::ENTIRE_DATA_CACHE);
  }
}

template <typename T, CacheLine entireType, DcciDst dcciDst>
inline void DataCacheCleanAndInvalid(const LocalTensor<T> &dst) {
  static_assert(opgen_detail::DcciAvailable<T>::value,
                "DataCacheCleanAndInvalid with a DcciDst is not available on " OPGEN_PRODUCT_NAME);
  dst.Bound()->Poll();  // UB is not behind the scalar data cache in this emulation
}

template <typename T, CacheLine entireType>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T> &dst) {
  static_assert(opgen_detail::DcciGmAvailable<T>::value, "DataCacheCleanAndInvalid is not available on " OPGEN_PRODUCT_NAME);
  opgen_rt::device::Core *c = dst.Bound("DataCacheCleanAndInvalid");
  c->FlushCache(dst.GetPhyAddr(), entireType == CacheLine::ENTIRE_DATA_CACHE);
}

inline TPipe *GetTPipePtr() = delete;  // not emulated: pass the TPipe explicitly

// The user part of the launch's workspace: `workspace` points at the system workspace (RESERVED_WORKSPACE bytes,
// the product's sysWorkspaceBytes, = PlatformAscendC::GetLibApiWorkSpaceSize()), the user part follows it
// (asc-devkit impl/basic_api/dav_*/kernel_operator_common_impl.h: g_sysWorkspaceReserved + RESERVED_WORKSPACE).
inline GM_ADDR GetUserWorkspace(GM_ADDR workspace) {
  const uint64_t reserved = opgen_rt::device::CurrentCore()->product->sysWorkspaceBytes;
  return reinterpret_cast<GM_ADDR>(reinterpret_cast<uintptr_t>(workspace) + reserved);
}

}  // namespace AscendC

// Kernel-type declaration of newer CANN kernels: nothing to do on the host.
#ifndef KERNEL_TASK_TYPE_DEFAULT
#define KERNEL_TASK_TYPE_DEFAULT(type)
#endif

// Declares `var` of the op's tiling struct (OPGEN_KERNEL_TILING_TYPE, set by the builder) and copies it
// out of the tiling GM buffer, bounds-checked as a GM read of sizeof(var) bytes.
#define GET_TILING_DATA(var, tilingArg)                                                                   \
  OPGEN_KERNEL_TILING_TYPE var;                                                                           \
  static_assert(std::is_trivially_copyable<OPGEN_KERNEL_TILING_TYPE>::value,                              \
                "the tiling data struct must be trivially copyable");                                     \
  ::opgen_rt::device::CopyTilingData(&(var), reinterpret_cast<const uint8_t *>(tilingArg), sizeof(var))

// Same, naming the struct type explicitly.
#define GET_TILING_DATA_WITH_STRUCT(type, var, tilingArg)                                                 \
  type var;                                                                                               \
  static_assert(std::is_trivially_copyable<type>::value, "the tiling data struct must be trivially copyable"); \
  ::opgen_rt::device::CopyTilingData(&(var), reinterpret_cast<const uint8_t *>(tilingArg), sizeof(var))

// True iff the launch's tiling key equals `key`.
//
// Tiling-key filter (an opgen build option, not a CANN macro): the CANN toolchain compiles a kernel once
// per tiling key, with TILING_KEY_IS(k) a compile-time constant, so a kernel binary holds only the keys it
// was compiled for. The builder does the same for a set of keys when it compiles the kernel with
// -DOPGEN_TILING_KEYS=k1,k2,... (codegen.build.build_op(tiling_keys=...)): TILING_KEY_IS(k) of a key
// outside the list is the constant false, so g++ never generates code for that branch's template
// instantiations, and the list is registered with the launcher, which refuses a launch of any other key
// with a [tiling key not built] fault instead of running a kernel that does nothing. Keys must then be
// integral constant expressions (they are literals in generated kernels).
#ifdef OPGEN_TILING_KEYS
namespace opgen_rt {
namespace device {
inline constexpr uint64_t kBuiltTilingKeys[] = {OPGEN_TILING_KEYS};
constexpr bool TilingKeyBuilt(uint64_t key) {
  for (uint64_t k : kBuiltTilingKeys) {
    if (k == key) {
      return true;
    }
  }
  return false;
}
template <uint64_t Key>
inline constexpr bool kTilingKeyBuilt = TilingKeyBuilt(Key);
[[maybe_unused]] static const bool kBuiltTilingKeysRegistered =
    RegisterBuiltTilingKeys(kBuiltTilingKeys, sizeof(kBuiltTilingKeys) / sizeof(kBuiltTilingKeys[0]));
}  // namespace device
}  // namespace opgen_rt
#define TILING_KEY_IS(key)                                            \
  (::opgen_rt::device::kTilingKeyBuilt<static_cast<uint64_t>(key)> && \
   ::opgen_rt::device::CurrentTilingKey() == static_cast<uint64_t>(key))
#else
#define TILING_KEY_IS(key) (::opgen_rt::device::CurrentTilingKey() == static_cast<uint64_t>(key))
#endif

#endif  // OPGEN_RT_KERNEL_OPERATOR_H
