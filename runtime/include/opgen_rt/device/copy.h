// ascend-opgen host emulation of the AscendC kernel API: data movement (DataCopy, DataCopyPad) and atomics.
// Hand-written runtime code; not generated.
#ifndef OPGEN_RT_DEVICE_COPY_H
#define OPGEN_RT_DEVICE_COPY_H

#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>

#include "opgen_rt/device/tensor.h"

#ifndef OPGEN_PRODUCT_NAME
#define OPGEN_PRODUCT_NAME "this product"
#endif

// DataCopyPad exists only where the product has it (ascend-platform.md: "DataCopyPad ... for unaligned
// lengths: not on Ascend910 or 310P"). Default from the NpuArch when the builder does not say.
#ifndef OPGEN_HAS_DATACOPYPAD
#if defined(__NPU_ARCH__) && (__NPU_ARCH__ == 1001 || __NPU_ARCH__ == 2002)
#define OPGEN_HAS_DATACOPYPAD 0
#else
#define OPGEN_HAS_DATACOPYPAD 1
#endif
#endif

namespace AscendC {

// DataCopy with explicit blocks: lengths and strides in 32-byte blocks on both sides.
struct DataCopyParams {
  uint16_t blockCount = 1;
  uint16_t blockLen = 0;
  uint16_t srcStride = 0;
  uint16_t dstStride = 0;
};

// DataCopyPad blocks: blockLen in bytes; a GM-side stride in bytes, a UB-side stride in 32-byte blocks
// (asc-devkit DataCopyPad documentation, DataCopyExtParams table).
struct DataCopyExtParams {
  uint16_t blockCount = 0;
  uint32_t blockLen = 0;
  uint32_t srcStride = 0;
  uint32_t dstStride = 0;
  uint32_t rsv = 0;
};

// Padding of each GM->UB DataCopyPad row: leftPadding/rightPadding elements of paddingValue when isPad.
template <typename T>
struct DataCopyPadExtParams {
  bool isPad = false;
  uint8_t leftPadding = 0;
  uint8_t rightPadding = 0;
  T paddingValue = 0;
};

namespace opgen_detail {

using opgen_rt::device::Core;
using opgen_rt::device::kUbBlockBytes;
namespace rule = opgen_rt::device::rule;

template <typename T>
inline T AddScalar(const T &a, const T &b) {
  if constexpr (opgen_rt::device::IsLowFloat<T>::value) {
    return T(static_cast<float>(a) + static_cast<float>(b));
  } else if constexpr (std::is_floating_point<T>::value) {
    return a + b;
  } else if constexpr (std::is_integral<T>::value) {
    using U = typename std::make_unsigned<T>::type;  // wrap-around, no signed overflow
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    static_assert(std::is_arithmetic<T>::value, "atomic add of an unsupported type");
    return a;
  }
}

// GM[dst..dst+n) += src[0..n), atomically with respect to other core threads (striped mutexes).
template <typename T>
inline void AtomicAddToGm(T *dst, const T *src, uint64_t n) {
  const uintptr_t base = reinterpret_cast<uintptr_t>(dst);
  uint64_t i = 0;
  while (i < n) {
    const uintptr_t addr = base + i * sizeof(T);
    const uintptr_t stripeEnd = (addr / opgen_rt::device::kGmStripeBytes + 1) * opgen_rt::device::kGmStripeBytes;
    uint64_t j = i + (stripeEnd - addr + sizeof(T) - 1) / sizeof(T);
    if (j > n) {
      j = n;
    }
    std::lock_guard<std::mutex> lock(opgen_rt::device::GmStripe(addr));
    for (uint64_t k = i; k < j; ++k) {
      T old;
      std::memcpy(&old, dst + k, sizeof(T));
      const T sum = AddScalar<T>(old, src[k]);
      std::memcpy(dst + k, &sum, sizeof(T));
    }
    i = j;
  }
}

// A UB->GM move of n elements already bounds-checked: plain write, or atomic add under SetAtomicAdd.
template <typename T>
inline void WriteGm(Core *c, T *dst, const T *src, uint64_t n, const char *op) {
  const uint64_t bytes = n * sizeof(T);
  if (c->atomicDtype >= 0) {
    c->CheckAtomicCopy(opgen_rt::device::DtypeOf<T>::id, opgen_rt::device::DtypeOf<T>::name, op);
    if (!c->probe) {
      AtomicAddToGm<T>(dst, src, n);
    }
    c->stats.gmBytesAtomicAdded += bytes;
    c->RecordGmWrite(dst, bytes, true);
  } else {
    if (!c->probe) {
      std::memcpy(dst, src, bytes);
    }
    c->stats.gmBytesWritten += bytes;
    c->RecordGmWrite(dst, bytes);
  }
}

// A GM->UB move of `bytes` bytes already bounds-checked; in probe mode GM is not memory, and the UB bytes
// become zero (defined data for the kernel's control flow).
inline void ReadGm(Core *c, uint8_t *ub, const void *gm, uint64_t bytes) {
  if (c->probe) {
    std::memset(ub, 0, bytes);
  } else {
    std::memcpy(ub, gm, bytes);
  }
}

// Counts one DMA transfer of `bytes` GM bytes (nothing when it moved no bytes), and times it on the pipe it
// was just issued on (the pipe timeline).
inline void CountDma(Core *c, uint64_t bytes) {
  if (bytes > 0) {
    c->stats.dmaTransfers += 1;
    c->stats.dmaBytes += bytes;
    if (c->tl.on) {
      c->TimeDma(bytes);
    }
  }
}

inline uint64_t RoundUp32(uint64_t v) { return (v + kUbBlockBytes - 1) / kUbBlockBytes * kUbBlockBytes; }

template <typename T>
struct DataCopyPadAvailable : std::integral_constant<bool, OPGEN_HAS_DATACOPYPAD != 0> {};

}  // namespace opgen_detail

// ---------------------------------------------------------------------------------------------------------
// DataCopy, count form. The MTE moves whole 32-byte blocks: a length that is not a multiple of 32 bytes is
// rounded DOWN silently (ascend-platform.md: "count * sizeof(T) not a multiple of 32 is rounded down
// silently"). The bytes that were asked for but not moved are tracked, so a later read of them reports
// [DataCopy truncation]. The UB address must be 32-byte aligned.
// ---------------------------------------------------------------------------------------------------------

template <typename T>
inline void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const uint32_t count) {
  opgen_detail::Core *c = dst.Bound();
  const char *op = "DataCopy GM->UB";
  const uint64_t asked = static_cast<uint64_t>(count) * sizeof(T);
  const uint64_t copied = asked / opgen_detail::kUbBlockBytes * opgen_detail::kUbBlockBytes;
  c->CheckOperand(op, "dst", dst.ref_, copied, true);
  if (copied > 0) {
    src.Bound(op);
    const T *s = src.addr_;
    c->CheckGm(s, copied, false, op);
    const opgen_rt::device::PipeOp o = c->Issue(opgen_rt::device::kPipeMte2, op);
    c->GmReadByMte2(o, s, copied);
    c->PipeWrite(o, dst.ref_.off, copied);
    opgen_detail::ReadGm(c, c->ub + dst.ref_.off, s, copied);
    c->MarkDefined(dst.ref_.off, copied);
    c->stats.gmBytesRead += copied;
    opgen_detail::CountDma(c, copied);
  }
  if (copied != asked) {
    c->RecordTruncation(dst.ref_, asked, copied, op);
  }
}

template <typename T>
inline void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t count) {
  opgen_detail::Core *c = src.Bound();
  const char *op = "DataCopy UB->GM";
  const uint64_t asked = static_cast<uint64_t>(count) * sizeof(T);
  const uint64_t copied = asked / opgen_detail::kUbBlockBytes * opgen_detail::kUbBlockBytes;
  c->CheckOperand(op, "src", src.ref_, copied, true);
  dst.Bound(op);
  T *d = dst.addr_;
  if (copied > 0) {
    c->CheckDefined(op, "src", src.ref_.off, copied);
    c->CheckGm(d, copied, true, op);
    const opgen_rt::device::PipeOp o = c->Issue(opgen_rt::device::kPipeMte3, op);
    c->PipeRead(o, src.ref_.off, copied);
    c->GmWrittenByMte3(o, d, copied);
    opgen_detail::WriteGm<T>(c, d, src.Data(), copied / sizeof(T), op);
    opgen_detail::CountDma(c, copied);
  }
  if (copied != asked) {
    c->NoteGmTruncation(reinterpret_cast<uint8_t *>(d) + copied, asked, copied, op);
  }
}

// UB -> UB (e.g. VECIN -> VECOUT); executed by the vector pipe, counted as a vector instruction.
template <typename T>
inline void DataCopy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t count) {
  opgen_detail::Core *c = dst.Bound();
  const char *op = "DataCopy UB->UB";
  const uint64_t asked = static_cast<uint64_t>(count) * sizeof(T);
  const uint64_t copied = asked / opgen_detail::kUbBlockBytes * opgen_detail::kUbBlockBytes;
  c->CheckOperand(op, "dst", dst.ref_, copied, true);
  c->CheckOperand(op, "src", src.ref_, copied, true);
  if (copied > 0) {
    const opgen_rt::device::PipeOp o = c->Issue(opgen_rt::device::kPipeV, op);
    c->PipeRead(o, src.ref_.off, copied);
    c->PipeWrite(o, dst.ref_.off, copied);
    c->CheckDefined(op, "src", src.ref_.off, copied);
    std::memmove(c->ub + dst.ref_.off, c->ub + src.ref_.off, copied);
    c->MarkDefined(dst.ref_.off, copied);
  }
  c->CountVector(copied / sizeof(T), sizeof(T));
  if (copied != asked) {
    c->RecordTruncation(dst.ref_, asked, copied, op);
  }
}

// ---------------------------------------------------------------------------------------------------------
// DataCopy with DataCopyParams: blockCount blocks of blockLen 32-byte units, gaps of srcStride/dstStride
// 32-byte units between blocks on each side.
// ---------------------------------------------------------------------------------------------------------

template <typename T>
inline void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyParams &params) {
  opgen_detail::Core *c = dst.Bound();
  const char *op = "DataCopy GM->UB";
  const uint64_t blk = opgen_detail::kUbBlockBytes;
  const uint64_t len = static_cast<uint64_t>(params.blockLen) * blk;
  if (params.blockCount == 0) {
    c->Fault(opgen_detail::rule::kCopyParams, std::string(op) + ": blockCount is 0 (valid range 1..4095)");
  }
  const uint64_t dstPitch = (static_cast<uint64_t>(params.blockLen) + params.dstStride) * blk;
  const uint64_t srcPitch = (static_cast<uint64_t>(params.blockLen) + params.srcStride) * blk;
  c->CheckOperand(op, "dst", dst.ref_, (params.blockCount - 1) * dstPitch + len, true);
  src.Bound(op);
  const opgen_rt::device::PipeOp o = c->Issue(opgen_rt::device::kPipeMte2, op);
  for (uint64_t b = 0; b < params.blockCount && len > 0; ++b) {
    const uint8_t *s = reinterpret_cast<const uint8_t *>(src.addr_) + b * srcPitch;
    c->CheckGm(s, len, false, op);
    const uint64_t off = dst.ref_.off + b * dstPitch;
    c->GmReadByMte2(o, s, len);
    c->PipeWrite(o, off, len);
    opgen_detail::ReadGm(c, c->ub + off, s, len);
    c->MarkDefined(off, len);
    c->stats.gmBytesRead += len;
  }
  opgen_detail::CountDma(c, static_cast<uint64_t>(params.blockCount) * len);
}

template <typename T>
inline void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &params) {
  opgen_detail::Core *c = src.Bound();
  const char *op = "DataCopy UB->GM";
  const uint64_t blk = opgen_detail::kUbBlockBytes;
  const uint64_t len = static_cast<uint64_t>(params.blockLen) * blk;
  if (params.blockCount == 0) {
    c->Fault(opgen_detail::rule::kCopyParams, std::string(op) + ": blockCount is 0 (valid range 1..4095)");
  }
  const uint64_t srcPitch = (static_cast<uint64_t>(params.blockLen) + params.srcStride) * blk;
  const uint64_t dstPitch = (static_cast<uint64_t>(params.blockLen) + params.dstStride) * blk;
  c->CheckOperand(op, "src", src.ref_, (params.blockCount - 1) * srcPitch + len, true);
  dst.Bound(op);
  const opgen_rt::device::PipeOp o = c->Issue(opgen_rt::device::kPipeMte3, op);
  for (uint64_t b = 0; b < params.blockCount && len > 0; ++b) {
    const uint64_t off = src.ref_.off + b * srcPitch;
    c->CheckDefined(op, "src", off, len);
    c->PipeRead(o, off, len);
    uint8_t *d = reinterpret_cast<uint8_t *>(dst.addr_) + b * dstPitch;
    c->CheckGm(d, len, true, op);
    c->GmWrittenByMte3(o, d, len);
    opgen_detail::WriteGm<T>(c, reinterpret_cast<T *>(d), reinterpret_cast<const T *>(c->ub + off), len / sizeof(T),
                             op);
  }
  opgen_detail::CountDma(c, static_cast<uint64_t>(params.blockCount) * len);
}

template <typename T>
inline void DataCopy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &params) {
  opgen_detail::Core *c = dst.Bound();
  const char *op = "DataCopy UB->UB";
  const uint64_t blk = opgen_detail::kUbBlockBytes;
  const uint64_t len = static_cast<uint64_t>(params.blockLen) * blk;
  if (params.blockCount == 0) {
    c->Fault(opgen_detail::rule::kCopyParams, std::string(op) + ": blockCount is 0 (valid range 1..4095)");
  }
  const uint64_t srcPitch = (static_cast<uint64_t>(params.blockLen) + params.srcStride) * blk;
  const uint64_t dstPitch = (static_cast<uint64_t>(params.blockLen) + params.dstStride) * blk;
  c->CheckOperand(op, "src", src.ref_, (params.blockCount - 1) * srcPitch + len, true);
  c->CheckOperand(op, "dst", dst.ref_, (params.blockCount - 1) * dstPitch + len, true);
  const opgen_rt::device::PipeOp o = c->Issue(opgen_rt::device::kPipeV, op);
  for (uint64_t b = 0; b < params.blockCount && len > 0; ++b) {
    const uint64_t so = src.ref_.off + b * srcPitch;
    const uint64_t dof = dst.ref_.off + b * dstPitch;
    c->PipeRead(o, so, len);
    c->PipeWrite(o, dof, len);
    c->CheckDefined(op, "src", so, len);
    std::memmove(c->ub + dof, c->ub + so, len);
    c->MarkDefined(dof, len);
  }
  c->CountVector(static_cast<uint64_t>(params.blockCount) * len / sizeof(T), sizeof(T));
}

// ---------------------------------------------------------------------------------------------------------
// DataCopyPad: unaligned moves (not on Ascend910 / 310P: a compile-time error there).
// GM -> UB: block b of blockLen bytes is read at src + b * (blockLen + srcStride) bytes and written to a UB
// row of leftPadding elements + blockLen bytes + rightPadding elements, padded to 32 bytes, rows
// dstStride 32-byte blocks apart. Padding elements hold paddingValue when isPad, else random values; the
// dummy bytes up to the 32-byte boundary are random unless isPad with nonzero padding (asc-devkit
// DataCopyPad documentation). Random bytes are tracked as undefined.
// ---------------------------------------------------------------------------------------------------------

template <typename T>
inline void DataCopyPad(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyExtParams &dataCopyParams,
                        const DataCopyPadExtParams<T> &padParams) {
  static_assert(opgen_detail::DataCopyPadAvailable<T>::value, "DataCopyPad is not available on " OPGEN_PRODUCT_NAME);
  opgen_detail::Core *c = dst.Bound();
  const char *op = "DataCopyPad GM->UB";
  c->CheckDataCopyPadAvailable();
  const uint64_t count = dataCopyParams.blockCount;
  const uint64_t len = dataCopyParams.blockLen;
  const uint64_t left = static_cast<uint64_t>(padParams.leftPadding) * sizeof(T);
  const uint64_t right = static_cast<uint64_t>(padParams.rightPadding) * sizeof(T);
  if (count == 0 || count > 4095) {
    c->Fault(opgen_detail::rule::kCopyParams,
             std::string(op) + ": blockCount " + std::to_string(count) + " is outside 1..4095");
  }
  if (left > 32 || right > 32) {
    c->Fault(opgen_detail::rule::kCopyParams, std::string(op) + ": leftPadding " + std::to_string(left) +
                                                  " bytes / rightPadding " + std::to_string(right) +
                                                  " bytes; each may be at most 32 bytes");
  }
  const uint64_t row = opgen_detail::RoundUp32(left + len + right);
  const uint64_t pitch = row + static_cast<uint64_t>(dataCopyParams.dstStride) * opgen_detail::kUbBlockBytes;
  c->CheckOperand(op, "dst", dst.ref_, (count - 1) * pitch + row, true);
  src.Bound(op);
  const bool padDefined = padParams.isPad && (left > 0 || right > 0);
  const opgen_rt::device::PipeOp o = c->Issue(opgen_rt::device::kPipeMte2, op);
  for (uint64_t b = 0; b < count; ++b) {
    const uint8_t *s = reinterpret_cast<const uint8_t *>(src.addr_) + b * (len + dataCopyParams.srcStride);
    c->CheckGm(s, len, false, op);
    const uint64_t off = dst.ref_.off + b * pitch;
    c->GmReadByMte2(o, s, len);
    c->PipeWrite(o, off, row);
    uint8_t *d = c->ub + off;
    opgen_detail::ReadGm(c, d + left, s, len);
    c->stats.gmBytesRead += len;
    c->MarkDefined(off + left, len);
    if (padParams.isPad) {
      for (uint64_t e = 0; e < left / sizeof(T); ++e) {
        std::memcpy(d + e * sizeof(T), &padParams.paddingValue, sizeof(T));
      }
      for (uint64_t e = 0; e < right / sizeof(T); ++e) {
        std::memcpy(d + left + len + e * sizeof(T), &padParams.paddingValue, sizeof(T));
      }
    }
    const uint8_t padCode = padParams.isPad ? opgen_rt::device::kShadowDefined : opgen_rt::device::kShadowUninit;
    c->MarkShadow(off, left, padCode);
    c->MarkShadow(off + left + len, right, padCode);
    const uint64_t dummy = row - (left + len + right);
    if (dummy > 0) {
      uint8_t *dd = d + left + len + right;
      if (padDefined) {
        for (uint64_t k = 0; k + sizeof(T) <= dummy; k += sizeof(T)) {
          std::memcpy(dd + k, &padParams.paddingValue, sizeof(T));
        }
        c->MarkShadow(off + left + len + right, dummy, opgen_rt::device::kShadowDefined);
      } else {
        // Documented as filled with the block's first element (or random values): either way not data
        // the kernel asked for, so it stays undefined.
        c->MarkShadow(off + left + len + right, dummy, opgen_rt::device::kShadowUninit);
      }
    }
  }
  opgen_detail::CountDma(c, count * len);
}

// UB -> GM: block b of blockLen bytes is read from a UB row padded to 32 bytes (rows srcStride 32-byte
// blocks apart) and written at dst + b * (blockLen + dstStride) bytes.
template <typename T>
inline void DataCopyPad(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyExtParams &dataCopyParams) {
  static_assert(opgen_detail::DataCopyPadAvailable<T>::value, "DataCopyPad is not available on " OPGEN_PRODUCT_NAME);
  opgen_detail::Core *c = src.Bound();
  const char *op = "DataCopyPad UB->GM";
  c->CheckDataCopyPadAvailable();
  const uint64_t count = dataCopyParams.blockCount;
  const uint64_t len = dataCopyParams.blockLen;
  if (count == 0 || count > 4095) {
    c->Fault(opgen_detail::rule::kCopyParams,
             std::string(op) + ": blockCount " + std::to_string(count) + " is outside 1..4095");
  }
  if (len % sizeof(T) != 0) {
    c->Fault(opgen_detail::rule::kCopyParams, std::string(op) + ": blockLen " + std::to_string(len) +
                                                  " bytes is not a whole number of " + std::to_string(sizeof(T)) +
                                                  "-byte elements");
  }
  const uint64_t row = opgen_detail::RoundUp32(len);
  const uint64_t pitch = row + static_cast<uint64_t>(dataCopyParams.srcStride) * opgen_detail::kUbBlockBytes;
  c->CheckOperand(op, "src", src.ref_, (count - 1) * pitch + len, true);
  dst.Bound(op);
  const opgen_rt::device::PipeOp o = c->Issue(opgen_rt::device::kPipeMte3, op);
  for (uint64_t b = 0; b < count; ++b) {
    const uint64_t off = src.ref_.off + b * pitch;
    c->CheckDefined(op, "src", off, len);
    c->PipeRead(o, off, len);
    uint8_t *d = reinterpret_cast<uint8_t *>(dst.addr_) + b * (len + dataCopyParams.dstStride);
    c->CheckGm(d, len, true, op);
    c->GmWrittenByMte3(o, d, len);
    opgen_detail::WriteGm<T>(c, reinterpret_cast<T *>(d), reinterpret_cast<const T *>(c->ub + off), len / sizeof(T),
                             op);
  }
  opgen_detail::CountDma(c, count * len);
}

// ---------------------------------------------------------------------------------------------------------
// Atomics: SetAtomicAdd<T>() makes the core's following UB->GM copies add into GM until SetAtomicNone().
// Only the product's atomic-add dtypes are accepted (ascend-platform.md, "atomic-add dtypes").
// ---------------------------------------------------------------------------------------------------------

template <typename T>
inline void SetAtomicAdd() {
  opgen_rt::device::Core *c = opgen_rt::device::CurrentCore();
  c->Poll();
  c->SetAtomicAdd(opgen_rt::device::DtypeOf<T>::id, opgen_rt::device::DtypeOf<T>::name);
}

inline void SetAtomicNone() {
  opgen_rt::device::Core *c = opgen_rt::device::CurrentCore();
  c->Poll();
  c->atomicDtype = -1;
}

}  // namespace AscendC

#endif  // OPGEN_RT_DEVICE_COPY_H
