// ascend-opgen host emulation of the AscendC kernel API: the per-core state behind the kernel API.
//
// Internal header of the device runtime (included by kernel_operator.h). Every emulated AI core of a launch
// runs on its own host thread and owns one `Core`: its Unified Buffer arena, a shadow byte per UB byte that
// says whether the byte holds defined data, its pipes/queues/buffers, its counters and its view of the
// launch's GM regions. Checks that run per instruction are inline O(1) range checks; the slow paths that
// build fault messages, and the scalar accesses (LocalTensor / GlobalTensor GetValue and SetValue: all their
// checks in one call), live in runtime/src/device/core.cpp. Hand-written runtime code; not generated.
#ifndef OPGEN_RT_DEVICE_CORE_STATE_H
#define OPGEN_RT_DEVICE_CORE_STATE_H

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <map>
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
// A vector instruction the product does not have (the sort instructions outside NpuArch 2201 / 3510).
constexpr const char *kVectorUnsupported = "vector unsupported";
constexpr const char *kCopyParams = "DataCopy params";
// A reduction's dst that overlaps its source other than as the hardware allows (the result of one repeat
// over the source of a later repeat, or a partial overlap), or a sharedTmpBuffer partially over the source.
constexpr const char *kVectorOverlap = "vector overlap";
// A ReduceSum / ReduceMax / ReduceMin sharedTmpBuffer smaller than the size its doc gives for the call.
constexpr const char *kReduceWorkBuffer = "reduce work buffer";
// Pipes of one core (see the pipe model below): an access to UB bytes (or a GM read by MTE2) that another
// pipe wrote or read with no synchronisation ordering the two.
constexpr const char *kPipeRace = "pipe race";
// A SetFlag that no WaitFlag consumed by kernel exit.
constexpr const char *kSyncUnpaired = "sync unpaired";
// A WaitFlag with no SetFlag of the same event and id before it: the waiting pipe would hang.
constexpr const char *kSyncDeadlock = "sync deadlock";
// An event id outside 0..QUE_MAX_EVENT-1, no free id left for AllocEventID, or PipeBarrier<PIPE_S>.
constexpr const char *kSyncParams = "sync params";
// Scalar GM accesses through the per-core data cache: two cores writing one cache line, or a line read
// while another core's write to it sits unflushed in that core's cache.
constexpr const char *kCacheLine = "cache line shared";
// A launch of a tiling key the kernel was not compiled for (a build with the OPGEN_TILING_KEYS filter): the
// binary holds no code for it, so the launch is refused instead of running a kernel that does nothing.
constexpr const char *kTilingKeyNotBuilt = "tiling key not built";
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

// Thrown in probe mode when a core reaches its GM access limit: the core ends there, without a fault.
struct ProbeStop {};

// ---------------------------------------------------------------------------------------------------------
// The pipe model. Each instruction runs on the pipe that executes it on the AI core (asc-devkit / CANN
// docs, "PipeBarrier" hardware pipeline table: PIPE_S scalar, incl. Tensor GetValue/SetValue; PIPE_V vector
// computation; PIPE_MTE2 GM->UB moves; PIPE_MTE3 UB->GM moves):
//   DataCopy / DataCopyPad GM->UB           PIPE_MTE2
//   DataCopy / DataCopyPad UB->GM           PIPE_MTE3
//   DataCopy UB->UB, every vector instruction (arithmetic, Duplicate, Cast, Compare*, Select)   PIPE_V
//   LocalTensor / GlobalTensor GetValue, SetValue, DataCacheCleanAndInvalid                   PIPE_S
// Pipes run asynchronously; instructions of one pipe run in issue order. A pipe's knowledge of the others
// is a vector clock (PipeClock): entry q is the last instruction of pipe q known to be complete. Orderings:
//   SetFlag<HardEvent::X_Y>(id) / WaitFlag<HardEvent::X_Y>(id)   Y learns what X had issued at the SetFlag
//   TQue EnQue / DeQue and FreeTensor / AllocTensor               the same flags the real TQue inserts:
//     VECIN: EnQue/DeQue MTE2_V, FreeTensor/AllocTensor V_MTE2; VECOUT: V_MTE3 and MTE3_V
//   PipeBarrier<PIPE_ALL>(), SyncAll()                            every pipe learns everything issued
//   PipeBarrier<PIPE_X>() (X not ALL)                             nothing new: pipe X is in order already
// Instructions issued after the scalar unit passed a WaitFlag<X_S> start after it (issue order), so every
// instruction inherits the scalar pipe's knowledge of the other pipes. Same-pipe dependencies are ordered:
// the PipeBarrier doc (asc-devkit / hiascend atlasascendc_api_07_0271, CANN 9.0.0) asks for
// PipeBarrier<PIPE_V> between dependent vector instructions but notes that with automatic synchronisation
// (on by default in custom-operator and kernel-launch projects) the compiler inserts the PIPE_V sync itself.
// Checks per 32-byte UB block (BlockAccess): a read by pipe p of a block last written by pipe q != p, or a
// write over a read or write of pipe q != p, needs p's clock to cover that access, else [pipe race].
// ---------------------------------------------------------------------------------------------------------
enum PipeIndex : uint8_t { kPipeS = 0, kPipeV = 1, kPipeMte2 = 2, kPipeMte3 = 3 };
constexpr int kPipeCount = 4;
using PipeClock = std::array<uint32_t, kPipeCount>;

// Per 32-byte UB block, as arrays (so that the per-instruction loops are plain scans and fills): the
// last write as (clock value << 32 | pipe << 16 | instruction id), 0 = none, and per pipe its last read as
// (clock value << 32 | instruction id), 0 = none. Reads are not cleared by a later write: a read that the
// write found ordered before it stays ordered before everything ordered after that write.
struct PipeShadow {
  uint64_t *w = nullptr;
  uint64_t *r[kPipeCount] = {};
  // Carves the arrays for `blocks` blocks out of `storage` (at least Bytes(blocks) bytes, 8-byte aligned).
  void Attach(uint8_t *storage, uint64_t blocks) {
    w = reinterpret_cast<uint64_t *>(storage);
    for (int q = 0; q < kPipeCount; ++q) {
      r[q] = w + blocks * static_cast<uint64_t>(q + 1);
    }
  }
  static uint64_t Bytes(uint64_t blocks) { return blocks * 8 * (1 + kPipeCount); }
  // Forgets every access to blocks [b0, b1).
  void Clear(uint64_t b0, uint64_t b1) {
    std::fill(w + b0, w + b1, uint64_t{0});
    for (int q = 0; q < kPipeCount; ++q) {
      std::fill(r[q] + b0, r[q] + b1, uint64_t{0});
    }
  }
  static uint32_t Time(uint64_t rec) { return static_cast<uint32_t>(rec >> 32); }
  static uint8_t Pipe(uint64_t rec) { return static_cast<uint8_t>(rec >> 16); }
  static uint16_t Op(uint64_t rec) { return static_cast<uint16_t>(rec); }
};

// One instruction being executed: its pipe, its clock value and its interned name.
struct PipeOp {
  uint8_t pipe;
  uint32_t time;
  uint16_t op;
  const char *name;
};

// GM bytes [lo, hi) written by MTE3 at `time`, not yet known to be ordered before later MTE2 reads.
struct GmPending {
  uintptr_t lo;
  uintptr_t hi;
  uint32_t time;
  uint16_t op;
};

// The per-core scalar data cache (CACHE_LINE_SIZE = 64, asc-devkit impl/basic_api/utils/
// kernel_utils_constants.h): one entry per GM line the core wrote through GlobalTensor::SetValue, keyed by
// the line's first address. Lines are counted from the start of the GM region (device allocations are
// 512-byte aligned, so region-relative lines are the device's lines whatever the host buffer's alignment).
constexpr uint64_t kCacheLineBytes = 64;
struct CacheLineState {
  bool dirty = false;         // written since the last DataCacheCleanAndInvalid of the line
  bool wroteThisEpoch = false;
  uint32_t flushTime = 0;     // scalar clock of the last flush
};
// A line a core wrote between two SyncAll barriers, and whether it was still unflushed at the barrier.
struct CacheLineRec {
  uintptr_t line;  // first address of the line
  uint32_t epoch;
  bool dirtyAtEnd;
};
// GM bytes [lo, hi) read (by MTE2 or a scalar GetValue) in `epoch`, for the cross-core stale-line check.
struct GmReadSpan {
  uintptr_t lo;
  uintptr_t hi;
  uint32_t epoch;
};

// Event ids per HardEvent: QUE_MAX_EVENT (asc-devkit impl/basic_api/kernel_macros.h) is 8 for NpuArch 2002,
// 2201, 3002, 3102, 3510 and 5102, and 4 otherwise; SetFlag/WaitFlag assert 0 <= eventID < QUE_MAX_EVENT.
constexpr int kMaxEventIds = 8;
constexpr int kHardEventCount = 32;

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
  std::vector<PipeClock> enqTok;    // per slot: the producer's clock at EnQue (its SetFlag)
  std::vector<PipeClock> freeTok;   // per slot: the consumer's clock at FreeTensor (its SetFlag)
  std::vector<double> enqTime;      // per slot: the timeline's time of that EnQue (Timeline)
  std::vector<double> freeTime;     // per slot: the timeline's time of that FreeTensor
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

// The pipe timeline (ProductInfo::cost). Per pipe: `free` is when its last instruction ends, `ready` the
// earliest start its synchronisations allow (a WaitFlag, DeQue, AllocTensor or barrier raises it to the time
// the other side reached its SetFlag, EnQue or FreeTensor), `cur` the start of its latest instruction. An
// instruction on a pipe other than S starts after the scalar unit issued it (max of the scalar unit's
// `free` and `ready`). GM<->UB copies of MTE2 and MTE3 share the core's GM port (`port`): a copy waits its
// fixed cost, then streams its bytes at the core's share of the bandwidth in the port's idle time. Busy spans of V, MTE2 and MTE3
// are kept (merged when they touch) to measure how much copy time overlaps vector time.
constexpr uint8_t kOpSync = kVecClassCount;       // SetFlag, WaitFlag, queue flags: no duration of their own
constexpr uint8_t kOpOther = kVecClassCount + 1;  // any other instruction (a vector one is arithmetic)
struct Timeline {
  bool on = false;
  double free[kPipeCount] = {};
  double ready[kPipeCount] = {};
  double cur[kPipeCount] = {};
  double busy[kPipeCount] = {};
  // The GM port's busy spans (disjoint, sorted); spans that end before every copy pipe's end are dropped.
  std::vector<std::pair<double, double>> port;
  double bytesPerCycle = 1;  // the core's GM bandwidth share, bytes per cycle
  double vectorWork = 0;
  uint8_t vClass = kVecArithmetic;  // class of the V instruction being timed
  uint8_t lastPipe = kPipeS;        // pipe of the latest Issue (a copy's duration is set right after it)
  double issued = 0;                // when the latest Issue's synchronisations and the scalar unit let it go
  uint64_t scalarWaits = 0;
  std::vector<std::pair<double, double>> spans[kPipeCount];
  static constexpr size_t kMaxSpans = size_t{1} << 20;  // per pipe; past it the last span is extended
};

class Launch;

class Core {
 public:
  // ---- hot state, read by the inline API ----
  uint8_t *ub = nullptr;      // UB arena (ubCap bytes)
  uint8_t *shadow = nullptr;  // one shadow code per UB byte
  uint64_t ubCap = 0;
  const std::atomic<bool> *aborted = nullptr;
  // Scalar UB accesses since the scalar path last polled `aborted` (it polls every kScalarPollEvery).
  uint32_t scalarSincePoll = 0;
  static constexpr uint32_t kScalarPollEvery = 64;
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

  // ---- pipe model (see above) ----
  PipeClock vc[kPipeCount] = {};  // per pipe: what it knows of every pipe
  PipeShadow shadowPipes;  // one record per 32-byte UB block (cleared by InitBuffer for its range)
  // Per pipe: the clock value of its latest UB write and UB read anywhere. A pipe whose clock already
  // covers them cannot race with that pipe, so the per-block scans skip it.
  uint32_t lastUbWrite[kPipeCount] = {};
  uint32_t lastUbRead[kPipeCount] = {};
  std::vector<const char *> opNames;
  std::vector<uint8_t> opClass;  // per interned name: its timeline class (ClassifyOp)
  // Proposals the latest MrgSort took from each queue (the VMS4_SR register that GetMrgSortResult and the
  // elementCountList form of MrgSort read after an exhausted-suspension merge).
  uint16_t lastMrgSortTaken[4] = {0, 0, 0, 0};
  Timeline tl;
  // OpId's cache: the last name seen per slot (slot = pointer bits 3..8) and its id in opNames.
  struct OpIdSlot {
    const char *name = nullptr;
    uint16_t id = 0;
  };
  static constexpr size_t kOpIdCacheSlots = 64;
  OpIdSlot opIdCache[kOpIdCacheSlots] = {};
  std::vector<GmPending> gmPending;
  uintptr_t gmPendingLo = UINTPTR_MAX;
  uintptr_t gmPendingHi = 0;
  // SetFlag tokens not yet consumed, per (HardEvent, id), oldest first.
  std::vector<PipeClock> flags[kHardEventCount][kMaxEventIds];
  std::vector<double> flagTimes[kHardEventCount][kMaxEventIds];  // the timeline's time of each token
  const char *flagSetter[kHardEventCount][kMaxEventIds] = {};
  uint32_t flagsPending = 0;
  uint8_t eventIdsInUse[kHardEventCount] = {};  // TPipe::AllocEventID bitmask per HardEvent
  // ---- scalar data cache ----
  std::map<uintptr_t, CacheLineState> cacheLines;
  std::vector<CacheLineRec> cacheHistory;
  std::vector<GmReadSpan> gmReads;
  bool gmReadsOverflow = false;
  // ---- probe mode (LaunchRequest::probe) ----
  bool probe = false;
  std::vector<ProbeSpan> probeSpans;  // one per region of the launch, in its order
  uint64_t probeAccesses = 0;
  uint64_t probeMaxAccesses = 0;  // 0: no limit
  bool probeStopped = false;

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

  // LocalTensor::GetValue / SetValue of `bytes` bytes at `r` (instruction name `op`, which is also the
  // fault messages' op): the same checks, in the same order, as CheckOperand(op, "tensor", r, bytes, false),
  // Issue(kPipeS, op), PipeRead / PipeWrite, then CheckDefined (read) or MarkDefined (write), after Poll.
  // Out of line in core.cpp, so the scalar path is one call compiled at the runtime's -O2 whatever the
  // kernel unit's optimisation level. The caller copies the value.
  void ScalarUbRead(const char *op, const UbRef &r, uint64_t bytes);
  void ScalarUbWrite(const char *op, const UbRef &r, uint64_t bytes);
  // GlobalTensor::GetValue / SetValue of `bytes` bytes at `p` (after the caller's Poll): CheckGm(p, bytes,
  // write, op), Issue(kPipeS, op), then GmScalarRead and gmBytesRead (read) or GmScalarWrite, gmBytesWritten
  // and RecordGmWrite (write), in one call like the UB forms. The caller copies the value.
  void ScalarGmRead(const char *op, const void *p, uint64_t bytes);
  void ScalarGmWrite(const char *op, void *p, uint64_t bytes);

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
    for (; i + 8 <= bytes; i += 8) {
      uint64_t w;
      std::memcpy(&w, s + i, 8);
      acc |= w;
    }
    if (i + 4 <= bytes) {
      uint32_t w;
      std::memcpy(&w, s + i, 4);
      acc |= w;
      i += 4;
    }
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
    if (probe) {
      ProbeGm(static_cast<const uint8_t *>(p), bytes, write, op);
      return;
    }
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

  // ---- pipe model: hot paths ----
  // The interned id of the instruction name `name` (ids in first-use order; names compare by pointer). A
  // direct-mapped cache keyed by the pointer answers repeated names without the scan of opNames.
  uint16_t OpId(const char *name) {
    OpIdSlot &slot = opIdCache[(reinterpret_cast<uintptr_t>(name) >> 3) & (kOpIdCacheSlots - 1)];
    if (slot.name == name) {
      return slot.id;
    }
    return OpIdSlow(name, slot);
  }
  uint16_t OpIdSlow(const char *name, OpIdSlot &slot) {
    for (size_t k = opNames.size(); k-- > 0;) {
      if (opNames[k] == name) {
        slot = OpIdSlot{name, static_cast<uint16_t>(k)};
        return static_cast<uint16_t>(k);
      }
    }
    if (opNames.size() >= 0xffffu) {
      return 0;
    }
    opNames.push_back(name);
    opClass.push_back(ClassifyOp(name));
    slot = OpIdSlot{name, static_cast<uint16_t>(opNames.size() - 1)};
    return static_cast<uint16_t>(opNames.size() - 1);
  }

  // Issues an instruction on pipe `p`: it starts after what the scalar unit knows, and gets the next clock.
  PipeOp Issue(uint8_t p, const char *name) {
    if (p != kPipeS) {
      for (int q = 1; q < kPipeCount; ++q) {
        if (vc[kPipeS][q] > vc[p][q]) {
          vc[p][q] = vc[kPipeS][q];
        }
      }
    }
    const uint16_t id = OpId(name);
    if (tl.on) {
      TimeIssue(p, id < opClass.size() ? opClass[id] : kOpOther);
    }
    return PipeOp{p, ++vc[p][p], id, name};
  }

  // ---- pipe timeline (see Timeline) ----
  // The timeline class of an instruction name (names as the runtime passes them to Issue). Called once per
  // name and core (OpIdSlow), so it compares C strings without building any.
  static uint8_t ClassifyOp(const char *n) {
    constexpr uint8_t kTrans = kVecTranscendental, kDiv = kVecDivision, kCast = kVecCast, kRed = kVecReduction,
                      kCmpSel = kVecCompareSelect, kSort = kVecSort;
    auto is = [n](const char *s) { return std::strcmp(n, s) == 0; };
    auto starts = [n](const char *s) { return std::strncmp(n, s, std::strlen(s)) == 0; };
    switch (n[0]) {
      case 'S':
        return is("SetFlag") ? kOpSync : is("Sqrt") ? kTrans : is("Select") ? kCmpSel : is("Sort32") ? kSort : kOpOther;
      case 'W':
        return is("WaitFlag") ? kOpSync : starts("WholeReduce") ? kRed : kOpOther;
      case 'E':
        return is("EnQue") ? kOpSync : is("Exp") ? kTrans : kOpOther;
      case 'D':
        return is("DeQue") ? kOpSync : is("Div") ? kDiv : kOpOther;
      case 'A':
        return is("AllocTensor") ? kOpSync : kOpOther;
      case 'F':
        return is("FreeTensor") ? kOpSync : kOpOther;
      case 'L':
        return is("Ln") ? kTrans : kOpOther;
      case 'R':
        return is("Reciprocal") || is("Rsqrt") ? kDiv : starts("Reduce") ? kRed : kOpOther;
      case 'C':
        return is("Cast") ? kCast : starts("Compare") ? kCmpSel : kOpOther;
      case 'B':
        return starts("BlockReduce") ? kRed : kOpOther;
      case 'M':
        return is("MrgSort") ? kSort : kOpOther;
      default:
        return kOpOther;
    }
  }
  double ScalarNow() const { return std::max(tl.free[kPipeS], tl.ready[kPipeS]); }
  // A span [start, start + cycles) of pipe p: busy time, the pipe's end, and the span list (not for S).
  void TimeBusy(uint8_t p, double start, double cycles) {
    const double end = start + cycles;
    tl.free[p] = std::max(tl.free[p], end);
    tl.busy[p] += cycles;
    if (p == kPipeS || cycles <= 0) {
      return;
    }
    std::vector<std::pair<double, double>> &v = tl.spans[p];
    if (!v.empty() && (start <= v.back().second || v.size() >= Timeline::kMaxSpans)) {
      v.back().second = std::max(v.back().second, end);
    } else {
      v.emplace_back(start, end);
    }
  }
  void TimeIssue(uint8_t p, uint8_t cls) {
    tl.issued = p != kPipeS ? std::max(tl.ready[p], ScalarNow()) : tl.ready[p];
    const double start = std::max(tl.free[p], tl.issued);
    tl.free[p] = start;
    tl.cur[p] = start;
    tl.lastPipe = p;
    if (p == kPipeV) {
      tl.vClass = cls < kVecClassCount ? cls : static_cast<uint8_t>(kVecArithmetic);
    } else if (p == kPipeS && cls != kOpSync) {
      TimeBusy(kPipeS, start, product->cost.scalarAccessCycles);
    }
  }
  // A scalar GetValue / SetValue issued without Issue (the inlined scalar paths of core.cpp).
  void TimeScalarAccess() {
    const double start = ScalarNow();
    tl.cur[kPipeS] = start;
    TimeBusy(kPipeS, start, product->cost.scalarAccessCycles);
  }
  // The V instruction just issued processed `repeats` 256-byte repeats.
  void TimeVector(uint64_t repeats) {
    const CostModel &m = product->cost;
    const double work = static_cast<double>(repeats) * m.vecCyclesPerRepeat[tl.vClass];
    tl.vectorWork += work;
    TimeBusy(kPipeV, tl.cur[kPipeV], work + m.vecLatencyCycles[tl.vClass]);
  }
  // The GM<->UB copy just issued (on MTE2 or MTE3) moved `bytes` bytes: its bytes stream through the GM port
  // from its fixed cost after its issue on, and not before the pipe's previous copy ended (the fixed cost is
  // a latency: it overlaps the previous copy of the same pipe, and shows where the pipe waited).
  void TimeDma(uint64_t bytes) {
    const uint8_t p = tl.lastPipe;
    const double start = tl.cur[p];
    const double from = std::max(start, tl.issued + product->cost.dmaFixedCycles);
    const double end = PortTake(from, static_cast<double>(bytes) / tl.bytesPerCycle);
    TimeBusy(p, start, end - start);
  }
  // Streams `need` cycles of transfer through the core's GM port from time `from` on, in the port's idle
  // time (copies are timed in issue order, which is not time order: a later-issued MTE2 copy may use the
  // port before an earlier-issued MTE3 one). Returns the end.
  double PortTake(double from, double need);
  // A synchronisation token of time `t` reaches pipe p (WaitFlag, DeQue, AllocTensor).
  void TimeWait(uint8_t p, double t) {
    if (p == kPipeS) {
      t += product->cost.scalarWaitCycles;
      ++tl.scalarWaits;
    }
    tl.ready[p] = std::max(tl.ready[p], t);
  }
  // PipeBarrier<PIPE_ALL> / SyncAll: every pipe waits for every pipe.
  void TimeBarrier() {
    double t = 0;
    for (int q = 0; q < kPipeCount; ++q) {
      t = std::max(t, std::max(tl.free[q], tl.ready[q]));
    }
    for (int q = 0; q < kPipeCount; ++q) {
      tl.ready[q] = t;
    }
  }
  // Starts the timeline for a launch on `blockNum` cores (when the product has a cost model).
  void TimeStart();
  // Writes the timeline's figures into stats (after the kernel returned).
  void TimeFinish();

  // The instruction `o` reads UB bytes [off, off + bytes). Two passes over the blocks: a branch-free check
  // (the slow path finds and reports the block), then a fill of the read records.
  void PipeRead(const PipeOp &o, uint64_t off, uint64_t bytes) {
    if (bytes == 0 || shadowPipes.w == nullptr) {
      return;
    }
    const uint64_t b0 = off / kUbBlockBytes;
    const uint64_t b1 = (off + bytes - 1) / kUbBlockBytes + 1;
    if (b1 == b0 + 1) {  // one block: the same check and record without the loops
      PipeReadBlock(o, off, bytes, b0);
      return;
    }
    uint32_t lim[kPipeCount];
    for (int q = 0; q < kPipeCount; ++q) {
      lim[q] = vc[o.pipe][static_cast<size_t>(q)];
    }
    lim[o.pipe] = UINT32_MAX;  // the same pipe is in order
    if (WritesMayRace(lim) && ScanWrites(lim, b0, b1)) {
      FaultPipeRaceScan(o, false, off, bytes);
    }
    std::fill(shadowPipes.r[o.pipe] + b0, shadowPipes.r[o.pipe] + b1, (uint64_t{o.time} << 32) | o.op);
    lastUbRead[o.pipe] = o.time;
  }

  // PipeRead / PipeWrite of UB bytes [off, off + bytes) that lie in the one block `b` (every scalar access):
  // the block's last write (and, for a write, every other pipe's last read of it) must be covered by the
  // instruction's clock. Equivalent to the range forms' WritesMayRace / lastUbRead shortcuts, which only skip
  // pipes whose every access is covered.
  void PipeReadBlock(const PipeOp &o, uint64_t off, uint64_t bytes, uint64_t b) {
    const PipeClock &k = vc[o.pipe];
    const uint64_t w = shadowPipes.w[b];
    const uint8_t wp = PipeShadow::Pipe(w) & 3;
    if (wp != o.pipe && PipeShadow::Time(w) > k[wp]) {
      FaultPipeRaceScan(o, false, off, bytes);
    }
    shadowPipes.r[o.pipe][b] = (uint64_t{o.time} << 32) | o.op;
    lastUbRead[o.pipe] = o.time;
  }
  void PipeWriteBlock(const PipeOp &o, uint64_t off, uint64_t bytes, uint64_t b) {
    const PipeClock &k = vc[o.pipe];
    const uint64_t w = shadowPipes.w[b];
    const uint8_t wp = PipeShadow::Pipe(w) & 3;
    bool race = wp != o.pipe && PipeShadow::Time(w) > k[wp];
    for (int q = 0; q < kPipeCount; ++q) {
      race = race || (q != o.pipe && PipeShadow::Time(shadowPipes.r[q][b]) > k[static_cast<size_t>(q)]);
    }
    if (race) {
      FaultPipeRaceScan(o, true, off, bytes);
    }
    shadowPipes.w[b] = (uint64_t{o.time} << 32) | (uint64_t{o.pipe} << 16) | o.op;
    lastUbWrite[o.pipe] = o.time;
  }

  // True when PipeRead(o, off, bytes) would not fault (no block of the range was last written by another pipe
  // without an ordering): a caller that reads many pieces of one range may then record them as one read.
  bool PipeReadClean(const PipeOp &o, uint64_t off, uint64_t bytes) const {
    if (bytes == 0 || shadowPipes.w == nullptr) {
      return true;
    }
    uint32_t lim[kPipeCount];
    for (int q = 0; q < kPipeCount; ++q) {
      lim[q] = vc[o.pipe][static_cast<size_t>(q)];
    }
    lim[o.pipe] = UINT32_MAX;
    return !(WritesMayRace(lim) &&
             ScanWrites(lim, off / kUbBlockBytes, (off + bytes - 1) / kUbBlockBytes + 1));
  }

  // The instruction `o` writes UB bytes [off, off + bytes): checked against the last write and the reads of
  // the other pipes, then it becomes the last write.
  void PipeWrite(const PipeOp &o, uint64_t off, uint64_t bytes) {
    if (bytes == 0 || shadowPipes.w == nullptr) {
      return;
    }
    const uint64_t b0 = off / kUbBlockBytes;
    const uint64_t b1 = (off + bytes - 1) / kUbBlockBytes + 1;
    if (b1 == b0 + 1) {  // one block: the same checks and record without the loops
      PipeWriteBlock(o, off, bytes, b0);
      return;
    }
    uint32_t lim[kPipeCount];
    for (int q = 0; q < kPipeCount; ++q) {
      lim[q] = vc[o.pipe][static_cast<size_t>(q)];
    }
    lim[o.pipe] = UINT32_MAX;
    bool bad = WritesMayRace(lim) && ScanWrites(lim, b0, b1);
    for (int q = 0; q < kPipeCount && !bad; ++q) {
      if (q == o.pipe || lastUbRead[q] <= lim[q]) {
        continue;  // every read of pipe q is ordered before this instruction
      }
      const uint64_t *rr = shadowPipes.r[q];
      const uint64_t l = (uint64_t{lim[q]} << 32) | 0xffffffffull;
      uint64_t any = 0;
      for (uint64_t k = b0; k < b1; ++k) {
        any |= static_cast<uint64_t>(rr[k] > l);
      }
      bad = any != 0;
    }
    if (bad) {
      FaultPipeRaceScan(o, true, off, bytes);
    }
    std::fill(shadowPipes.w + b0, shadowPipes.w + b1, (uint64_t{o.time} << 32) | (uint64_t{o.pipe} << 16) | o.op);
    lastUbWrite[o.pipe] = o.time;
  }

  // True when a block of [b0, b1) was last written by a pipe later than `lim` allows.
  bool ScanWrites(const uint32_t *lim, uint64_t b0, uint64_t b1) const {
    const uint64_t *ww = shadowPipes.w;
    uint32_t any = 0;
    for (uint64_t k = b0; k < b1; ++k) {
      any |= static_cast<uint32_t>(PipeShadow::Time(ww[k]) > lim[PipeShadow::Pipe(ww[k]) & 3]);
    }
    return any != 0;
  }

  // False when `lim` (an instruction's clock, UINT32_MAX for its own pipe) covers every pipe's latest UB
  // write: then no block's last write can race with it.
  bool WritesMayRace(const uint32_t *lim) const {
    bool may = false;
    for (int q = 0; q < kPipeCount; ++q) {
      may = may || lastUbWrite[q] > lim[q];
    }
    return may;
  }

  // MTE3 wrote GM bytes [p, p + bytes): a later MTE2 read of them needs an MTE3 -> MTE2 ordering.
  void GmWrittenByMte3(const PipeOp &o, const void *p, uint64_t bytes) {
    if (bytes == 0) {
      return;
    }
    const uintptr_t lo = reinterpret_cast<uintptr_t>(p);
    const uintptr_t hi = lo + bytes;
    if (!gmPending.empty()) {
      GmPending &last = gmPending.back();
      if (lo <= last.hi && hi >= last.lo) {
        last.lo = lo < last.lo ? lo : last.lo;
        last.hi = hi > last.hi ? hi : last.hi;
        last.time = o.time;
        last.op = o.op;
        gmPendingLo = last.lo < gmPendingLo ? last.lo : gmPendingLo;
        gmPendingHi = last.hi > gmPendingHi ? last.hi : gmPendingHi;
        return;
      }
    }
    gmPending.push_back(GmPending{lo, hi, o.time, o.op});
    gmPendingLo = lo < gmPendingLo ? lo : gmPendingLo;
    gmPendingHi = hi > gmPendingHi ? hi : gmPendingHi;
  }

  // MTE2 (instruction `o`) reads GM bytes [p, p + bytes): this core's own MTE3 writes and scalar (cached)
  // writes of them must be ordered before it; recorded for the cross-core cache check.
  void GmReadByMte2(const PipeOp &o, const void *p, uint64_t bytes) {
    if (bytes == 0) {
      return;
    }
    const uintptr_t lo = reinterpret_cast<uintptr_t>(p);
    const uintptr_t hi = lo + bytes;
    if (lo < gmPendingHi && hi > gmPendingLo) {
      CheckGmPending(o, lo, hi);
    }
    if (!cacheLines.empty()) {
      CheckOwnCacheLines(o, lo, hi);
    }
    RecordGmRead(lo, hi);
  }

  // Only reads after a SyncAll can see a line another core left unflushed before it (Launch::CheckCacheLines
  // compares a read's epoch with the write's), so reads before the first SyncAll are not kept: a kernel
  // without SyncAll (a gather's scalar reads, one span each) keeps none.
  void RecordGmRead(uintptr_t lo, uintptr_t hi) {
    if (epoch == 0) {
      return;
    }
    if (!gmReads.empty()) {
      GmReadSpan &last = gmReads.back();
      if (last.epoch == epoch && lo <= last.hi && hi >= last.lo) {
        last.lo = lo < last.lo ? lo : last.lo;
        last.hi = hi > last.hi ? hi : last.hi;
        return;
      }
    }
    if (gmReads.size() >= (1u << 20)) {
      gmReadsOverflow = true;
      return;
    }
    gmReads.push_back(GmReadSpan{lo, hi, epoch});
  }

  // A scalar GetValue (instruction `o`) of GM bytes [p, p + bytes).
  void GmScalarRead(const void *p, uint64_t bytes) {
    const uintptr_t lo = reinterpret_cast<uintptr_t>(p);
    RecordGmRead(lo, lo + bytes);
  }

  // First address of the cache line holding `a`, in the GM region CheckGm matched last (gmLo).
  uintptr_t LineOf(uintptr_t a) const {
    const uintptr_t base = a >= gmLo ? gmLo : a;
    return base + (a - base) / kCacheLineBytes * kCacheLineBytes;
  }

  // The scalar data cache rules apply where AscendC offers DataCacheCleanAndInvalid to manage it: the
  // NpuArch values of the real header's implementation (asc-devkit impl/basic_api/kernel_reg.h: 2201, 3002,
  // 3003, 3113, 3510, 5102; the form without DcciDst also on the Atlas inference series, 2002). Not on the
  // Atlas training series (Ascend910, NpuArch 1001: hiascend atlasascendc_api_07_0177, product support x)
  // nor on an NpuArch the header does not know.
  bool ScalarCacheModelled() const {
    switch (product->npuArch) {
      case 2002:
      case 2201:
      case 3002:
      case 3003:
      case 3113:
      case 3510:
      case 5102:
        return true;
      default:
        return false;
    }
  }

  // A scalar SetValue of GM bytes [p, p + bytes) (after CheckGm): the lines become dirty in this core's
  // data cache.
  void GmScalarWrite(const void *p, uint64_t bytes) {
    if (!ScalarCacheModelled()) {
      return;
    }
    const uintptr_t lo = reinterpret_cast<uintptr_t>(p);
    for (uintptr_t line = LineOf(lo); line < lo + bytes; line += kCacheLineBytes) {
      CacheLineState &st = cacheLines[line];
      st.dirty = true;
      st.wroteThisEpoch = true;
    }
  }

  // A vector instruction over `elements` elements whose widest operand has `laneBytes` bytes per element
  // (a 256-byte repeat holds 256 / laneBytes of them).
  void CountVector(uint64_t elements, uint64_t laneBytes) {
    ++stats.vectorInstructions;
    stats.vectorElements += elements;
    if (tl.on && elements != 0) {
      TimeVector((elements * laneBytes + kRepeatBytes - 1) / kRepeatBytes);
    }
  }

  // ---- slow paths and bookkeeping (core.cpp) ----
  [[noreturn]] void FaultUnbound(const char *op, const char *role) const;
  [[noreturn]] void FaultAlign(const char *op, const char *role, const UbRef &r) const;
  [[noreturn]] void FaultBounds(const char *op, const char *role, const UbRef &r, uint64_t bytes) const;
  [[noreturn]] void FaultStale(const char *op, const char *role, const UbRef &r) const;
  [[noreturn]] void FaultUndefined(const char *op, const char *role, uint64_t off, uint64_t bytes) const;
  [[noreturn]] void FaultPipeRace(const PipeOp &o, const char *verb, uint8_t otherPipe, uint16_t otherOp,
                                  const char *how, uint64_t off, uint64_t bytes, uint64_t block) const;
  // Finds the first block of a write (`write`) or read of UB bytes [off, off + bytes) that races and reports it.
  [[noreturn]] void FaultPipeRaceScan(const PipeOp &o, bool write, uint64_t off, uint64_t bytes) const;
  void CheckGmPending(const PipeOp &o, uintptr_t lo, uintptr_t hi);
  void CheckOwnCacheLines(const PipeOp &o, uintptr_t lo, uintptr_t hi);
  // Pipe synchronisation (SetFlag/WaitFlag take the HardEvent as its integer value).
  void SetFlag(int32_t event, int32_t eventId);
  void WaitFlag(int32_t event, int32_t eventId);
  void BarrierAll();
  void PipeBarrier(int32_t pipe);
  int32_t EventIdLimit() const;
  void CheckEventId(const char *what, int32_t event, int32_t eventId) const;
  int32_t AllocEventId(int32_t event, bool take);
  void ReleaseEventId(int32_t event, int32_t eventId);
  // Queue synchronisation (the flags a TQue inserts), per queue position.
  void QueueSync(int32_t qid, int32_t slot, bool forward, bool produce);
  // DataCacheCleanAndInvalid of the line holding `p` (or every line when `entire`).
  void FlushCache(const void *p, bool entire);
  // Records the lines written since the last barrier (SyncAll or kernel exit) in cacheHistory.
  void CloseCacheEpoch();
  void CheckGmSlow(const uint8_t *p, uint64_t bytes, bool write, const char *op);
  // Probe mode's CheckGm: the bytes must lie inside one region (a write inside a writable one, else
  // [GM bounds]); their byte offsets from the region's start widen the core's span for it.
  void ProbeGm(const uint8_t *p, uint64_t bytes, bool write, const char *op);
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
// Records the tiling keys the library's kernel was compiled for (a kernel unit built with OPGEN_TILING_KEYS,
// see kernel_operator.h; called once, at library load): later launches of any other key fault with
// rule::kTilingKeyNotBuilt. Returns true. Without a call every key may be launched.
bool RegisterBuiltTilingKeys(const uint64_t *keys, size_t count);

}  // namespace device
}  // namespace opgen_rt

#endif  // OPGEN_RT_DEVICE_CORE_STATE_H
