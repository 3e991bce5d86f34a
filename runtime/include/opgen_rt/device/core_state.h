// ascend-opgen host emulation of the AscendC kernel API: the per-core state behind the kernel API.
//
// Internal header of the device runtime (included by kernel_operator.h). Every emulated AI core of a launch
// runs on its own host thread and owns one `Core`: its Unified Buffer arena, a shadow byte per UB byte that
// says whether the byte holds defined data, its pipes/queues/buffers, its counters and its view of the
// launch's GM regions. Checks that run per instruction are inline O(1) range checks; the slow paths that
// build fault messages live in runtime/src/device/core.cpp. Hand-written runtime code; not generated.
#ifndef OPGEN_RT_DEVICE_CORE_STATE_H
#define OPGEN_RT_DEVICE_CORE_STATE_H

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "opgen_rt/core.h"
#include "opgen_rt/device/enums.h"
#include "opgen_rt/device/types.h"

namespace opgen_rt {
namespace device {

using AscendC::TPosition;

// ascend-platform.md: "UB block is 32 bytes on all of these; one vector repeat processes 256 bytes".
constexpr uint64_t kUbBlockBytes = 32;
constexpr uint64_t kRepeatBytes = 256;

// Shadow codes, one per UB byte. Codes are bit flags so that they can be OR-ed.
constexpr uint8_t kShadowDefined = 0;    // written by a copy, a vector instruction or SetValue
constexpr uint8_t kShadowUninit = 1;     // never written since InitBuffer / AllocTensor
constexpr uint8_t kShadowTruncated = 2;  // a DataCopy was asked to fill it but rounded its length down

// Fault rule names: the exact strings that appear as "[<rule>]" in fault messages.
namespace rule {
constexpr const char *kUbCapacity = "UB capacity";
constexpr const char *kUbAlignment = "UB alignment";
constexpr const char *kUbBounds = "UB bounds";
constexpr const char *kGmBounds = "GM bounds";
// A write through a raw __gm__ pointer (not a GlobalTensor or a DataCopy) outside every GM region: found
// when the red zone around a region has lost its canary bytes.
constexpr const char *kGmBoundsRaw = "GM bounds (raw pointer)";
constexpr const char *kTruncation = "DataCopy truncation";
constexpr const char *kUninit = "UB uninitialized read";
constexpr const char *kPadUnavailable = "DataCopyPad unavailable";
constexpr const char *kAtomicDtype = "atomic dtype";
constexpr const char *kQueueOrder = "queue order";
constexpr const char *kQueueCap = "queue buffer cap";
constexpr const char *kLeak = "buffer leak";
// A LocalTensor of a queue buffer used after its FreeTensor (the buffer may already hold another tile).
constexpr const char *kUseAfterFree = "use after FreeTensor";
constexpr const char *kSyncAll = "SyncAll";
// The no-argument (hardware) SyncAll on a product that lacks it (ProductInfo::hwSyncAll false).
constexpr const char *kSyncAllUnsupported = "SyncAll unsupported";
// A write into the system workspace (the RESERVED_WORKSPACE bytes in front of the user workspace).
constexpr const char *kSysWorkspace = "system workspace";
constexpr const char *kDataRace = "GM data race";
constexpr const char *kVectorParams = "vector params";
constexpr const char *kVectorDtype = "vector dtype";
constexpr const char *kCopyParams = "DataCopy params";
constexpr const char *kInternal = "internal";
}  // namespace rule

// Thrown inside a core's thread when a rule is broken; RunKernel turns it into LaunchResult::fault.
// Deliberately not derived from std::exception, so kernel code cannot swallow it by accident.
struct KernelFault {
  std::string rule;
  std::string detail;
};

// Thrown inside the other cores' threads once a launch has faulted, to unwind them.
struct KernelAbort {};

// A view of UB bytes [off, ...) inside the buffer [start, end) it was taken from (byte offsets in UB).
struct UbRef {
  uint32_t off = 0;
  uint32_t start = 0;
  uint32_t end = 0;
  int32_t qid = -1;   // queue of the buffer; -1 for a TBuf buffer or an unbound tensor
  int32_t slot = -1;  // buffer index inside the queue
  uint32_t gen = 0;   // the slot's allocation generation when the tensor was handed out
  bool bound = false;
};

enum class SlotState : uint8_t { kFree = 0, kAllocated, kEnqueued, kDequeued };

struct QueueRec {
  int32_t pipe = -1;
  TPosition pos = TPosition::VECIN;
  int32_t depth = 0;
  int32_t num = 0;
  uint32_t len = 0;                 // bytes per buffer (rounded up to 32)
  std::vector<uint32_t> slotOff;    // UB offset of each buffer
  std::vector<SlotState> state;
  std::vector<uint32_t> gen;        // per slot: bumped by AllocTensor and by FreeTensor
  std::vector<int32_t> fifo;        // enqueued slots, oldest first
  int32_t cursor = 0;               // next slot AllocTensor tries first (ring order)
  bool alive = false;
};

struct TBufRec {
  int32_t pipe = -1;
  uint32_t off = 0;
  uint32_t len = 0;
  bool alive = false;
};

struct UbAlloc {
  int32_t pipe = -1;
  uint32_t off = 0;
  uint32_t len = 0;
};

struct PipeRec {
  bool alive = false;
};

struct TruncRec {
  uint32_t off = 0;     // UB bytes [off, end) that a truncated copy left unfilled
  uint32_t end = 0;
  uint64_t asked = 0;
  uint64_t copied = 0;
  const char *what = "";
};

struct WriteSpan {
  uintptr_t lo = 0;
  uintptr_t hi = 0;
  uint32_t epoch = 0;   // SyncAll calls completed by the core before the write
  bool atomic = false;  // an atomic add (SetAtomicAdd) rather than a plain write
};

class Launch;

class Core {
 public:
  // ---- hot state, read by the inline API ----
  uint8_t *ub = nullptr;      // UB arena (ubCap bytes)
  uint8_t *shadow = nullptr;  // one shadow code per UB byte
  uint64_t ubCap = 0;
  const std::atomic<bool> *aborted = nullptr;
  CoreStats stats;
  int64_t blockIdx = 0;
  int64_t blockNum = 1;
  uint64_t tilingKey = 0;
  int32_t atomicDtype = -1;  // DtypeId of SetAtomicAdd<T>, -1 when no atomic mode is set
  const ProductInfo *product = nullptr;
  Launch *launch = nullptr;
  const std::vector<GmRegion> *regions = nullptr;
  // Last GM region matched (a one-entry cache for the per-copy bounds check).
  uintptr_t gmLo = 1;  // empty until the first match (lo > hi)
  uintptr_t gmHi = 0;
  bool gmWritable = false;
  // GM writes (plain and atomic), for the cross-core race check at the end of the launch.
  std::vector<WriteSpan> writes;
  bool writesOverflow = false;
  uint32_t epoch = 0;
  // Software SyncAll calls completed by this core, per GM workspace address.
  std::vector<std::pair<uintptr_t, uint32_t>> softSyncs;

  // ---- pipes, queues and buffers ----
  std::vector<PipeRec> pipes;
  std::vector<QueueRec> queues;
  std::vector<TBufRec> tbufs;
  std::vector<UbAlloc> allocs;
  uint64_t ubTop = 0;
  int32_t posNum[static_cast<int>(TPosition::MAX) + 1] = {};
  std::vector<TruncRec> truncs;
  std::vector<std::string> notes;
  std::string pendingLeak;

  // ---- cheap inline checks ----
  void Poll() const {
    if (aborted->load(std::memory_order_relaxed)) {
      throw KernelAbort{};
    }
  }

  [[noreturn]] void Fault(const char *ruleName, const std::string &detail) const;

  // A UB operand of `bytes` bytes at `r`: bound, 32-byte aligned (when `align`), inside its buffer.
  void CheckOperand(const char *op, const char *role, const UbRef &r, uint64_t bytes, bool align) const {
    if (!r.bound) {
      FaultUnbound(op, role);
    }
    if (align && (r.off & (kUbBlockBytes - 1)) != 0) {
      FaultAlign(op, role, r);
    }
    if (static_cast<uint64_t>(r.off) + bytes > r.end || r.off < r.start) {
      FaultBounds(op, role, r, bytes);
    }
    if (r.qid >= 0 && queues[static_cast<size_t>(r.qid)].gen[static_cast<size_t>(r.slot)] != r.gen) {
      FaultStale(op, role, r);
    }
  }

  // Faults when any of the `bytes` UB bytes at `off` is not defined (eager read check).
  void CheckDefined(const char *op, const char *role, uint64_t off, uint64_t bytes) const {
    if (ShadowAny(off, bytes) != 0) {
      FaultUndefined(op, role, off, bytes);
    }
  }

  // OR of the shadow codes of `bytes` bytes at `off` (0 = all defined).
  uint8_t ShadowAny(uint64_t off, uint64_t bytes) const {
    const uint8_t *s = shadow + off;
    uint64_t acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0;
    uint64_t i = 0;
    for (; i + 32 <= bytes; i += 32) {
      uint64_t w[4];
      std::memcpy(w, s + i, 32);
      acc0 |= w[0];
      acc1 |= w[1];
      acc2 |= w[2];
      acc3 |= w[3];
    }
    uint64_t acc = acc0 | acc1 | acc2 | acc3;
    for (; i < bytes; ++i) {
      acc |= s[i];
    }
    acc |= acc >> 32;
    acc |= acc >> 16;
    acc |= acc >> 8;
    return static_cast<uint8_t>(acc & 0xffu);
  }

  void MarkDefined(uint64_t off, uint64_t bytes) { std::memset(shadow + off, kShadowDefined, bytes); }
  void MarkShadow(uint64_t off, uint64_t bytes, uint8_t code) { std::memset(shadow + off, code, bytes); }

  // GM access of `bytes` bytes at `p` (read, or write when `write`): inside one region of the launch.
  void CheckGm(const void *p, uint64_t bytes, bool write, const char *op) {
    const uintptr_t b = reinterpret_cast<uintptr_t>(p);
    if (b >= gmLo && b <= gmHi && bytes <= static_cast<uint64_t>(gmHi - b) && (!write || gmWritable)) {
      return;
    }
    CheckGmSlow(static_cast<const uint8_t *>(p), bytes, write, op);
  }

  // Records a GM write of `bytes` bytes at `p` (an atomic add when `atomic`) for the race check: two cores
  // writing the same bytes between the same SyncAll barriers race unless both writes are atomic adds.
  void RecordGmWrite(const void *p, uint64_t bytes, bool atomic = false) {
    if (bytes == 0) {
      return;
    }
    const uintptr_t lo = reinterpret_cast<uintptr_t>(p);
    const uintptr_t hi = lo + bytes;
    if (!writes.empty()) {
      WriteSpan &last = writes.back();
      if (last.epoch == epoch && last.atomic == atomic && lo <= last.hi && hi >= last.lo) {
        last.lo = lo < last.lo ? lo : last.lo;
        last.hi = hi > last.hi ? hi : last.hi;
        return;
      }
    }
    if (writes.size() >= (1u << 22)) {
      writesOverflow = true;  // stop tracking rather than grow without bound
      return;
    }
    writes.push_back(WriteSpan{lo, hi, epoch, atomic});
  }

  void CountVector(uint64_t elements) {
    ++stats.vectorInstructions;
    stats.vectorElements += elements;
  }

  // ---- slow paths and bookkeeping (core.cpp) ----
  [[noreturn]] void FaultUnbound(const char *op, const char *role) const;
  [[noreturn]] void FaultAlign(const char *op, const char *role, const UbRef &r) const;
  [[noreturn]] void FaultBounds(const char *op, const char *role, const UbRef &r, uint64_t bytes) const;
  [[noreturn]] void FaultStale(const char *op, const char *role, const UbRef &r) const;
  [[noreturn]] void FaultUndefined(const char *op, const char *role, uint64_t off, uint64_t bytes) const;
  void CheckGmSlow(const uint8_t *p, uint64_t bytes, bool write, const char *op);
  std::string DescribeGm(const void *p) const;

  // A copy that was asked for `asked` bytes but moved only `copied` (32-byte rounding down).
  void RecordTruncation(const UbRef &dst, uint64_t asked, uint64_t copied, const char *what);
  void NoteGmTruncation(const void *gmDst, uint64_t asked, uint64_t copied, const char *what);

  int32_t NewPipe();
  void PipeRelease(int32_t pipe, bool explicitCall, const char *how);
  int32_t InitQueue(int32_t pipe, TPosition pos, int32_t depth, int32_t num, uint64_t len);
  int32_t InitTBuf(int32_t pipe, uint64_t len);
  UbRef QueueAlloc(int32_t qid);
  void QueueEnQue(int32_t qid, const UbRef &r);
  UbRef QueueDeQue(int32_t qid);
  void QueueFree(int32_t qid, const UbRef &r);
  bool QueueHasTensor(int32_t qid) const;
  UbRef TBufGet(int32_t bid, uint64_t bytes, uint64_t byteOffset);
  void ExitChecks();

  void SetAtomicAdd(DtypeId dtype, const char *typeName);
  void CheckAtomicCopy(DtypeId dtype, const char *typeName, const char *op) const;
  void SyncAll();
  // Software SyncAll(gmWorkspace, ubWorkspace, usedCores): `gm` / `gmElems` the GM workspace, `ub` the UB one.
  void SoftSyncAll(int32_t *gm, uint64_t gmElems, const UbRef &ub, int32_t usedCores);
  void CheckDataCopyPadAvailable() const;
  // bfloat16_t arithmetic (Add, Exp, ... on bfloat16_t tensors) is assumed to exist only on NpuArch 3510;
  // A2/A3 kernels convert to float first (asc-devkit Add doc lists half, int16_t, int32_t, float on A2/A3).
  void CheckBf16Vector(const char *op) const;
  // Any bfloat16_t data path (Cast) needs a product with bf16 (ascend-platform.md: "BF16 is accepted only on
  // A2/A3/950").
  void CheckBf16Supported(const char *op) const;

 private:
  uint64_t Reserve(int32_t pipe, uint64_t len, const char *what);
};

// The core of the calling thread. Calling the kernel API outside a kernel launch aborts the process.
Core *CurrentCore();

// A stripe of mutexes keyed by GM address: atomic adds from different core threads to the same bytes
// serialize on the same stripe.
std::mutex &GmStripe(uintptr_t addr);
constexpr uintptr_t kGmStripeBytes = 512;

// Type -> aclDataType id, for atomic-add dtype checks and messages.
template <typename T>
struct DtypeOf {
  static constexpr DtypeId id = static_cast<DtypeId>(-1);
  static constexpr const char *name = "an unsupported type";
};
template <>
struct DtypeOf<float> {
  static constexpr DtypeId id = DtypeId::FLOAT;
  static constexpr const char *name = "float";
};
template <>
struct DtypeOf<half> {
  static constexpr DtypeId id = DtypeId::FLOAT16;
  static constexpr const char *name = "half";
};
template <>
struct DtypeOf<bfloat16_t> {
  static constexpr DtypeId id = DtypeId::BF16;
  static constexpr const char *name = "bfloat16_t";
};
template <>
struct DtypeOf<int8_t> {
  static constexpr DtypeId id = DtypeId::INT8;
  static constexpr const char *name = "int8_t";
};
template <>
struct DtypeOf<uint8_t> {
  static constexpr DtypeId id = DtypeId::UINT8;
  static constexpr const char *name = "uint8_t";
};
template <>
struct DtypeOf<int16_t> {
  static constexpr DtypeId id = DtypeId::INT16;
  static constexpr const char *name = "int16_t";
};
template <>
struct DtypeOf<uint16_t> {
  static constexpr DtypeId id = DtypeId::UINT16;
  static constexpr const char *name = "uint16_t";
};
template <>
struct DtypeOf<int32_t> {
  static constexpr DtypeId id = DtypeId::INT32;
  static constexpr const char *name = "int32_t";
};
template <>
struct DtypeOf<uint32_t> {
  static constexpr DtypeId id = DtypeId::UINT32;
  static constexpr const char *name = "uint32_t";
};
template <>
struct DtypeOf<int64_t> {
  static constexpr DtypeId id = DtypeId::INT64;
  static constexpr const char *name = "int64_t";
};
template <>
struct DtypeOf<uint64_t> {
  static constexpr DtypeId id = DtypeId::UINT64;
  static constexpr const char *name = "uint64_t";
};
template <>
struct DtypeOf<double> {
  static constexpr DtypeId id = DtypeId::DOUBLE;
  static constexpr const char *name = "double";
};
template <>
struct DtypeOf<bool> {
  static constexpr DtypeId id = DtypeId::BOOL;
  static constexpr const char *name = "bool";
};

// Copies the tiling struct out of the tiling GM buffer (GET_TILING_DATA), bounds-checked as a GM read.
void CopyTilingData(void *dst, const uint8_t *tilingGm, uint64_t bytes);
uint64_t CurrentTilingKey();

}  // namespace device
}  // namespace opgen_rt

#endif  // OPGEN_RT_DEVICE_CORE_STATE_H
