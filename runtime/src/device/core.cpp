// ascend-opgen host emulation: per-core state of the AscendC kernel API (UB arena, pipes and queues, GM
// checks, fault messages). Hand-written runtime code; not generated.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "launch.h"
#include "opgen_rt/device/core_state.h"

namespace opgen_rt {
namespace device {

thread_local Core *t_currentCore = nullptr;

Core *CurrentCore() {
  Core *c = t_currentCore;
  if (c == nullptr) {
    std::fprintf(stderr,
                 "opgen_rt: the AscendC kernel API was called outside a kernel launch (use opgen_rt::RunKernel)\n");
    std::abort();
  }
  return c;
}

std::mutex &GmStripe(uintptr_t addr) {
  static std::mutex stripes[1024];
  const uint64_t granule = static_cast<uint64_t>(addr / kGmStripeBytes);
  return stripes[(granule * 0x9e3779b97f4a7c15ull) >> 54];  // top 10 bits: 1024 stripes
}

void CopyTilingData(void *dst, const uint8_t *tilingGm, uint64_t bytes) {
  Core *c = CurrentCore();
  c->Poll();
  c->CheckGm(tilingGm, bytes, false, "GET_TILING_DATA");
  std::memcpy(dst, tilingGm, bytes);
  c->stats.gmBytesRead += bytes;
}

uint64_t CurrentTilingKey() {
  Core *c = CurrentCore();
  c->Poll();
  return c->tilingKey;
}

namespace {

std::string Num(uint64_t v) { return std::to_string(v); }

const char *PositionName(TPosition pos) {
  switch (pos) {
    case TPosition::GM:
      return "GM";
    case TPosition::VECIN:
      return "VECIN";
    case TPosition::VECOUT:
      return "VECOUT";
    case TPosition::VECCALC:
      return "VECCALC";
    case TPosition::A1:
      return "A1";
    case TPosition::A2:
      return "A2";
    case TPosition::B1:
      return "B1";
    case TPosition::B2:
      return "B2";
    case TPosition::C1:
      return "C1";
    case TPosition::C2:
      return "C2";
    case TPosition::CO1:
      return "CO1";
    case TPosition::CO2:
      return "CO2";
    case TPosition::TSCM:
      return "TSCM";
    default:
      return "another position";
  }
}

const char *DtypeName(int32_t id) {
  switch (static_cast<DtypeId>(id)) {
    case DtypeId::FLOAT:
      return "float";
    case DtypeId::FLOAT16:
      return "half";
    case DtypeId::INT8:
      return "int8_t";
    case DtypeId::INT32:
      return "int32_t";
    case DtypeId::UINT8:
      return "uint8_t";
    case DtypeId::INT16:
      return "int16_t";
    case DtypeId::UINT16:
      return "uint16_t";
    case DtypeId::UINT32:
      return "uint32_t";
    case DtypeId::INT64:
      return "int64_t";
    case DtypeId::UINT64:
      return "uint64_t";
    case DtypeId::DOUBLE:
      return "double";
    case DtypeId::BOOL:
      return "bool";
    case DtypeId::BF16:
      return "bfloat16_t";
  }
  return "an unsupported type";
}

const char *StateName(SlotState s) {
  switch (s) {
    case SlotState::kFree:
      return "free (not allocated, or already freed)";
    case SlotState::kAllocated:
      return "allocated (not enqueued)";
    case SlotState::kEnqueued:
      return "enqueued";
    case SlotState::kDequeued:
      return "dequeued";
  }
  return "?";
}

uint64_t RoundUp32(uint64_t v) { return (v + kUbBlockBytes - 1) / kUbBlockBytes * kUbBlockBytes; }

}  // namespace

void Core::Fault(const char *ruleName, const std::string &detail) const { throw KernelFault{ruleName, detail}; }

void Core::FaultUnbound(const char *op, const char *role) const {
  Fault(rule::kUbBounds, std::string(op) + ": " + role +
                             " is a LocalTensor that is not bound to a UB buffer (take it from AllocTensor, DeQue "
                             "or TBuf::Get)");
}

void Core::FaultAlign(const char *op, const char *role, const UbRef &r) const {
  Fault(rule::kUbAlignment, std::string(op) + ": " + role + " UB address " + Num(r.off) +
                                " is not 32-byte aligned (" + Num(r.off % kUbBlockBytes) +
                                " bytes past a 32-byte boundary; its buffer starts at UB address " + Num(r.start) +
                                ")");
}

void Core::FaultBounds(const char *op, const char *role, const UbRef &r, uint64_t bytes) const {
  std::string d = std::string(op) + ": " + role + " touches " + Num(bytes) + " bytes at UB address " + Num(r.off) +
                  ", outside its buffer [" + Num(r.start) + ", " + Num(r.end) + ") of " + Num(r.end - r.start) +
                  " bytes";
  if (r.off >= r.start && static_cast<uint64_t>(r.off) + bytes > r.end) {
    d += " (" + Num(static_cast<uint64_t>(r.off) + bytes - r.end) + " bytes past its end)";
  }
  Fault(rule::kUbBounds, d);
}

void Core::FaultStale(const char *op, const char *role, const UbRef &r) const {
  const QueueRec &q = queues[static_cast<size_t>(r.qid)];
  const SlotState now = q.state[static_cast<size_t>(r.slot)];
  Fault(rule::kUseAfterFree,
        std::string(op) + ": " + role + " is a LocalTensor of buffer " + std::to_string(r.slot) + " of TQue #" +
            std::to_string(r.qid) + " that was freed by FreeTensor" +
            (now == SlotState::kFree ? std::string(" (the buffer is free now)")
                                     : std::string(" and handed out again (it is ") + StateName(now) + " now)") +
            "; on the device the queue may already reuse its bytes for another tile");
}

void Core::FaultUndefined(const char *op, const char *role, uint64_t off, uint64_t bytes) const {
  uint64_t first = 0;
  uint64_t undefinedCount = 0;
  bool found = false;
  uint8_t codes = 0;
  for (uint64_t k = 0; k < bytes; ++k) {
    if (shadow[off + k] != kShadowDefined) {
      if (!found) {
        first = off + k;
        found = true;
      }
      codes |= shadow[off + k];
      ++undefinedCount;
    }
  }
  if ((codes & kShadowTruncated) != 0) {
    for (auto it = truncs.rbegin(); it != truncs.rend(); ++it) {
      for (uint64_t k = 0; k < bytes; ++k) {
        const uint64_t a = off + k;
        if ((shadow[a] & kShadowTruncated) != 0 && a >= it->off && a < it->end) {
          Fault(rule::kTruncation,
                std::string(op) + ": " + role + " reads UB bytes that " + it->what + " was asked to fill: asked " +
                    Num(it->asked) + " bytes, copied " + Num(it->copied) +
                    " (DataCopy moves whole 32-byte blocks and rounds the length down; UB bytes [" +
                    Num(it->off) + ", " + Num(it->end) + ") were never written; use a 32-byte multiple or DataCopyPad)");
        }
      }
    }
    Fault(rule::kTruncation, std::string(op) + ": " + role + " reads " + Num(undefinedCount) +
                                 " UB byte(s) starting at UB address " + Num(first) +
                                 " derived from a DataCopy that rounded its length down to 32-byte blocks");
  }
  Fault(rule::kUninit, std::string(op) + ": " + role + " reads " + Num(bytes) + " bytes at UB address " + Num(off) +
                           "; " + Num(undefinedCount) + " of them (first at UB address " + Num(first) +
                           ") were never written since InitBuffer / AllocTensor");
}

std::string Core::DescribeGm(const void *p) const {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  const GmRegion *best = nullptr;
  uint64_t bestDist = UINT64_MAX;
  for (const GmRegion &r : *regions) {
    if (r.base == nullptr) {
      continue;
    }
    const uintptr_t lo = reinterpret_cast<uintptr_t>(r.base);
    const uintptr_t hi = lo + r.bytes;
    const uint64_t dist = a < lo ? lo - a : (a > hi ? a - hi : 0);
    if (dist < bestDist) {
      bestDist = dist;
      best = &r;
    }
  }
  if (best == nullptr) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "address 0x%" PRIxPTR " (the launch has no GM regions)", a);
    return buf;
  }
  const int64_t offset = static_cast<int64_t>(a - reinterpret_cast<uintptr_t>(best->base));
  return "byte offset " + std::to_string(offset) + " of region \"" + best->name + "\" (" + Num(best->bytes) +
         " bytes" + (best->writable ? "" : ", read-only") + ")";
}

void Core::CheckGmSlow(const uint8_t *p, uint64_t bytes, bool write, const char *op) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  const GmRegion *readOnly = nullptr;  // a read-only region holding the bytes (an in-place op's input)
  for (const GmRegion &r : *regions) {
    if (r.base == nullptr) {
      continue;
    }
    const uintptr_t lo = reinterpret_cast<uintptr_t>(r.base);
    const uintptr_t hi = lo + r.bytes;
    if (a >= lo && a <= hi && bytes <= hi - a) {
      if (write && !r.writable) {
        readOnly = readOnly != nullptr ? readOnly : &r;
        continue;  // an in-place op's output may hold the same bytes, writable
      }
      gmLo = lo;
      gmHi = hi;
      gmWritable = r.writable;
      return;
    }
  }
  if (readOnly != nullptr && readOnly->name == "system workspace") {
    Fault(rule::kSysWorkspace, std::string(op) + ": write of " + Num(bytes) + " bytes at " + DescribeGm(p) +
                                   ": the system workspace (the first " + Num(product->sysWorkspaceBytes) +
                                   " bytes of the workspace) belongs to the AscendC library; user data starts at "
                                   "GetUserWorkspace(workspace)");
  }
  if (readOnly != nullptr) {
    Fault(rule::kGmBounds, std::string(op) + ": write of " + Num(bytes) + " bytes at " + DescribeGm(p) +
                               ": the region is read-only");
  }
  if (bytes == 0) {
    Fault(rule::kGmBounds, std::string(op) + ": pointer at " + DescribeGm(p) + " is outside every GM region of the launch");
  }
  Fault(rule::kGmBounds, std::string(op) + ": " + (write ? "write" : "read") + " of " + Num(bytes) + " bytes at " +
                             DescribeGm(p) + " is outside every GM region of the launch");
}

void Core::RecordTruncation(const UbRef &dst, uint64_t asked, uint64_t copied, const char *what) {
  const uint64_t lo = static_cast<uint64_t>(dst.off) + copied;
  uint64_t hi = static_cast<uint64_t>(dst.off) + asked;
  if (hi > dst.end) {
    hi = dst.end;
  }
  if (lo >= hi) {
    return;
  }
  MarkShadow(lo, hi - lo, kShadowTruncated);
  if (truncs.size() >= 256) {
    truncs.erase(truncs.begin());
  }
  truncs.push_back(TruncRec{static_cast<uint32_t>(lo), static_cast<uint32_t>(hi), asked, copied, what});
}

void Core::NoteGmTruncation(const void *gmDst, uint64_t asked, uint64_t copied, const char *what) {
  stats.gmBytesTruncated += asked - copied;
  if (notes.size() < 8) {
    notes.push_back(std::string(what) + " on core " + std::to_string(blockIdx) + " asked to write " + Num(asked) +
                    " bytes, wrote " + Num(copied) + " (DataCopy rounds down to 32-byte blocks): " +
                    Num(asked - copied) + " bytes at " + DescribeGm(gmDst) + " left unwritten");
  }
}

// ---- pipes, queues, buffers ----

int32_t Core::NewPipe() {
  pipes.push_back(PipeRec{true});
  return static_cast<int32_t>(pipes.size()) - 1;
}

uint64_t Core::Reserve(int32_t pipe, uint64_t len, const char *what) {
  if (ubTop + len > ubCap) {
    Fault(rule::kUbCapacity, std::string(what) + " needs " + Num(len) + " bytes with " + Num(ubTop) +
                                 " bytes of UB already in use: " + Num(ubTop + len) +
                                 " bytes exceed the core's UB capacity of " + Num(ubCap) + " bytes (" +
                                 product->name + ": UB " + Num(product->ubBytes) + " bytes - " +
                                 Num(product->ubReservedBytes) + " reserved)");
  }
  const uint64_t off = ubTop;
  allocs.push_back(UbAlloc{pipe, static_cast<uint32_t>(off), static_cast<uint32_t>(len)});
  ubTop += len;
  if (ubTop > stats.ubHighWaterBytes) {
    stats.ubHighWaterBytes = ubTop;
  }
  std::memset(ub + off, 0, len);
  MarkShadow(off, len, kShadowUninit);
  return off;
}

int32_t Core::InitQueue(int32_t pipe, TPosition pos, int32_t depth, int32_t num, uint64_t len) {
  const std::string what = std::string("InitBuffer(TQue<") + PositionName(pos) + ", " + std::to_string(depth) +
                           ">, num " + std::to_string(num) + ", len " + Num(len) + ")";
  if (num <= 0) {
    Fault(rule::kQueueOrder, what + ": a queue needs at least one buffer");
  }
  const int p = static_cast<int>(pos);
  const int32_t cap = static_cast<int32_t>(product->queueBufferCap);
  if (posNum[p] + num > cap) {
    Fault(rule::kQueueCap, what + ": " + std::to_string(posNum[p]) + " queue buffer(s) already at " +
                               PositionName(pos) + "; " + std::to_string(posNum[p] + num) + " exceed " +
                               product->name + "'s " + std::to_string(cap) + " queue buffers per position");
  }
  const uint64_t rounded = RoundUp32(len);
  const uint64_t off = Reserve(pipe, rounded * static_cast<uint64_t>(num),
                               (what + " (" + std::to_string(num) + " x " + Num(rounded) + " bytes)").c_str());
  QueueRec q;
  q.pipe = pipe;
  q.pos = pos;
  q.depth = depth;
  q.num = num;
  q.len = static_cast<uint32_t>(rounded);
  for (int32_t k = 0; k < num; ++k) {
    q.slotOff.push_back(static_cast<uint32_t>(off + rounded * static_cast<uint64_t>(k)));
    q.state.push_back(SlotState::kFree);
    q.gen.push_back(0);
  }
  q.alive = true;
  posNum[p] += num;
  queues.push_back(q);
  return static_cast<int32_t>(queues.size()) - 1;
}

int32_t Core::InitTBuf(int32_t pipe, uint64_t len) {
  const uint64_t rounded = RoundUp32(len);
  const uint64_t off = Reserve(pipe, rounded, ("InitBuffer(TBuf, len " + Num(len) + ")").c_str());
  tbufs.push_back(TBufRec{pipe, static_cast<uint32_t>(off), static_cast<uint32_t>(rounded), true});
  return static_cast<int32_t>(tbufs.size()) - 1;
}

namespace {
std::string QueueLabel(const QueueRec &q, int32_t qid) {
  return "TQue #" + std::to_string(qid) + " (" + PositionName(q.pos) + ", depth " + std::to_string(q.depth) +
         ", num " + std::to_string(q.num) + ")";
}

std::string Outstanding(const QueueRec &q) {
  int32_t alloc = 0, enq = 0, deq = 0;
  for (SlotState s : q.state) {
    alloc += s == SlotState::kAllocated;
    enq += s == SlotState::kEnqueued;
    deq += s == SlotState::kDequeued;
  }
  return std::to_string(alloc) + " allocated, " + std::to_string(enq) + " enqueued, " + std::to_string(deq) +
         " dequeued";
}

bool HasOutstanding(const QueueRec &q) {
  for (SlotState s : q.state) {
    if (s != SlotState::kFree) {
      return true;
    }
  }
  return false;
}
}  // namespace

void Core::PipeRelease(int32_t pipe, bool explicitCall, const char *how) {
  for (size_t k = 0; k < queues.size(); ++k) {
    QueueRec &q = queues[k];
    if (q.pipe != pipe || !q.alive) {
      continue;
    }
    if (HasOutstanding(q)) {
      const std::string msg = std::string(how) + ": " + QueueLabel(q, static_cast<int32_t>(k)) +
                              " still holds tensors (" + Outstanding(q) +
                              "); every AllocTensor needs a FreeTensor before the pipe goes away";
      if (explicitCall) {
        Fault(rule::kLeak, msg);
      }
      if (pendingLeak.empty()) {
        pendingLeak = msg;
      }
    }
    q.alive = false;
    posNum[static_cast<int>(q.pos)] -= q.num;
  }
  for (TBufRec &b : tbufs) {
    if (b.pipe == pipe) {
      b.alive = false;
    }
  }
  allocs.erase(std::remove_if(allocs.begin(), allocs.end(), [&](const UbAlloc &a) { return a.pipe == pipe; }),
               allocs.end());
  ubTop = 0;
  for (const UbAlloc &a : allocs) {
    ubTop = std::max<uint64_t>(ubTop, static_cast<uint64_t>(a.off) + a.len);
  }
}

UbRef Core::QueueAlloc(int32_t qid) {
  if (qid < 0 || static_cast<size_t>(qid) >= queues.size()) {
    Fault(rule::kQueueOrder, "AllocTensor on a TQue that has no buffers (TPipe::InitBuffer was not called for it)");
  }
  QueueRec &q = queues[static_cast<size_t>(qid)];
  if (!q.alive) {
    Fault(rule::kQueueOrder, "AllocTensor on " + QueueLabel(q, qid) + " after its TPipe released the buffers");
  }
  for (int32_t step = 0; step < q.num; ++step) {
    const int32_t slot = (q.cursor + step) % q.num;
    if (q.state[static_cast<size_t>(slot)] == SlotState::kFree) {
      q.state[static_cast<size_t>(slot)] = SlotState::kAllocated;
      ++q.gen[static_cast<size_t>(slot)];
      q.cursor = (slot + 1) % q.num;
      const uint32_t off = q.slotOff[static_cast<size_t>(slot)];
      MarkShadow(off, q.len, kShadowUninit);  // a freshly allocated buffer holds no data of this tile
      UbRef r;
      r.off = off;
      r.start = off;
      r.end = off + q.len;
      r.qid = qid;
      r.slot = slot;
      r.gen = q.gen[static_cast<size_t>(slot)];
      r.bound = true;
      return r;
    }
  }
  Fault(rule::kQueueOrder, "AllocTensor on " + QueueLabel(q, qid) + ": all " + std::to_string(q.num) +
                               " buffers are in use (" + Outstanding(q) + "); FreeTensor one first");
}

void Core::QueueEnQue(int32_t qid, const UbRef &r) {
  if (qid < 0 || static_cast<size_t>(qid) >= queues.size()) {
    Fault(rule::kQueueOrder, "EnQue on a TQue that has no buffers (TPipe::InitBuffer was not called for it)");
  }
  QueueRec &q = queues[static_cast<size_t>(qid)];
  if (!r.bound || r.qid != qid) {
    Fault(rule::kQueueOrder, "EnQue on " + QueueLabel(q, qid) + " of a tensor that was not allocated from it (" +
                                 (!r.bound ? std::string("an unbound tensor")
                                           : r.qid < 0 ? std::string("a TBuf tensor")
                                                       : "it belongs to TQue #" + std::to_string(r.qid)) +
                                 ")");
  }
  const SlotState s = q.state[static_cast<size_t>(r.slot)];
  if (s != SlotState::kAllocated) {
    Fault(rule::kQueueOrder, "EnQue on " + QueueLabel(q, qid) + " of a tensor that is " + StateName(s) +
                                 "; only a tensor from AllocTensor can be enqueued, once");
  }
  if (static_cast<int32_t>(q.fifo.size()) >= q.depth) {
    Fault(rule::kQueueOrder, "EnQue on " + QueueLabel(q, qid) + " beyond its depth: " +
                                 std::to_string(q.fifo.size()) + " tensor(s) already enqueued");
  }
  q.state[static_cast<size_t>(r.slot)] = SlotState::kEnqueued;
  q.fifo.push_back(r.slot);
}

UbRef Core::QueueDeQue(int32_t qid) {
  if (qid < 0 || static_cast<size_t>(qid) >= queues.size()) {
    Fault(rule::kQueueOrder, "DeQue on a TQue that has no buffers (TPipe::InitBuffer was not called for it)");
  }
  QueueRec &q = queues[static_cast<size_t>(qid)];
  if (q.fifo.empty()) {
    Fault(rule::kQueueOrder, "DeQue on " + QueueLabel(q, qid) + " while it is empty (nothing enqueued: " +
                                 Outstanding(q) + ")");
  }
  const int32_t slot = q.fifo.front();
  q.fifo.erase(q.fifo.begin());
  q.state[static_cast<size_t>(slot)] = SlotState::kDequeued;
  const uint32_t off = q.slotOff[static_cast<size_t>(slot)];
  UbRef r;
  r.off = off;
  r.start = off;
  r.end = off + q.len;
  r.qid = qid;
  r.slot = slot;
  r.gen = q.gen[static_cast<size_t>(slot)];
  r.bound = true;
  return r;
}

void Core::QueueFree(int32_t qid, const UbRef &r) {
  if (qid < 0 || static_cast<size_t>(qid) >= queues.size()) {
    Fault(rule::kQueueOrder, "FreeTensor on a TQue that has no buffers (TPipe::InitBuffer was not called for it)");
  }
  QueueRec &q = queues[static_cast<size_t>(qid)];
  if (!r.bound || r.qid != qid) {
    Fault(rule::kQueueOrder, "FreeTensor on " + QueueLabel(q, qid) + " of a tensor that was not allocated from it");
  }
  const SlotState s = q.state[static_cast<size_t>(r.slot)];
  if (s != SlotState::kAllocated && s != SlotState::kDequeued) {
    Fault(rule::kQueueOrder, "FreeTensor on " + QueueLabel(q, qid) + " of a tensor that is " + StateName(s) +
                                 "; free a tensor after DeQue (or right after AllocTensor), once");
  }
  q.state[static_cast<size_t>(r.slot)] = SlotState::kFree;
  ++q.gen[static_cast<size_t>(r.slot)];  // tensors of this allocation are stale from now on
}

bool Core::QueueHasTensor(int32_t qid) const {
  if (qid < 0 || static_cast<size_t>(qid) >= queues.size()) {
    return false;
  }
  return !queues[static_cast<size_t>(qid)].fifo.empty();
}

UbRef Core::TBufGet(int32_t bid, uint64_t bytes, uint64_t byteOffset) {
  if (bid < 0 || static_cast<size_t>(bid) >= tbufs.size()) {
    Fault(rule::kUbBounds, "TBuf::Get on a TBuf that has no buffer (TPipe::InitBuffer was not called for it)");
  }
  const TBufRec &b = tbufs[static_cast<size_t>(bid)];
  if (!b.alive) {
    Fault(rule::kUbBounds, "TBuf::Get after its TPipe released the buffer");
  }
  if (bytes == UINT64_MAX) {
    bytes = byteOffset <= b.len ? b.len - byteOffset : 0;
  }
  if (byteOffset + bytes > b.len) {
    Fault(rule::kUbBounds, "TBuf::Get of " + Num(bytes) + " bytes at byte offset " + Num(byteOffset) +
                               " exceeds the TBuf's " + Num(b.len) + " bytes");
  }
  UbRef r;
  r.off = static_cast<uint32_t>(b.off + byteOffset);
  r.start = r.off;
  r.end = static_cast<uint32_t>(b.off + byteOffset + bytes);
  r.bound = true;
  return r;
}

void Core::ExitChecks() {
  if (!pendingLeak.empty()) {
    Fault(rule::kLeak, "at kernel exit: " + pendingLeak);
  }
  for (size_t k = 0; k < queues.size(); ++k) {
    const QueueRec &q = queues[k];
    if (q.alive && HasOutstanding(q)) {
      Fault(rule::kLeak, "at kernel exit " + QueueLabel(q, static_cast<int32_t>(k)) + " still holds tensors (" +
                             Outstanding(q) + "); every AllocTensor needs a FreeTensor");
    }
  }
}

// ---- atomics, SyncAll, product capabilities ----

void Core::SetAtomicAdd(DtypeId dtype, const char *typeName) {
  for (DtypeId d : product->atomicAddDtypes) {
    if (d == dtype) {
      atomicDtype = static_cast<int32_t>(dtype);
      return;
    }
  }
  std::string list;
  for (DtypeId d : product->atomicAddDtypes) {
    list += (list.empty() ? "" : ", ") + std::string(DtypeName(static_cast<int32_t>(d)));
  }
  Fault(rule::kAtomicDtype, std::string("SetAtomicAdd<") + typeName + ">: atomic add on " + product->name +
                                " supports " + (list.empty() ? std::string("no dtype") : list));
}

void Core::CheckAtomicCopy(DtypeId dtype, const char *typeName, const char *op) const {
  if (static_cast<int32_t>(dtype) != atomicDtype) {
    Fault(rule::kAtomicDtype, std::string(op) + " of " + typeName + " data while SetAtomicAdd<" +
                                  DtypeName(atomicDtype) + "> is active (the atomic dtype must match the data)");
  }
}

void Core::SyncAll() {
  Poll();
  if (!product->hwSyncAll) {
    Fault(rule::kSyncAllUnsupported,
          std::string("the no-argument (hardware) SyncAll() does not exist on ") + product->name + " (NpuArch " +
              std::to_string(product->npuArch) +
              "; asc-devkit SyncAllImpl there is an ASSERT compiled out of release builds, so the cores would run "
              "on unsynchronised): use the software SyncAll(gmWorkspace, ubWorkspace, usedCores) or separate launches");
  }
  launch->Barrier(*this);
}

void Core::SoftSyncAll(int32_t *gm, uint64_t gmElems, const UbRef &ub, int32_t usedCores) {
  Poll();
  const char *op = "SyncAll(gmWorkspace, ubWorkspace)";
  if (usedCores < 0 || usedCores > blockNum) {
    Fault(rule::kSyncAll, std::string(op) + ": usedCores " + std::to_string(usedCores) + " outside [0, " +
                              std::to_string(blockNum) + "] (waiting for cores that do not exist hangs)");
  }
  if (usedCores != 0 && usedCores != blockNum) {
    Fault(rule::kSyncAll, std::string(op) + ": usedCores " + std::to_string(usedCores) + " of " +
                              std::to_string(blockNum) +
                              " launched cores: a partial software barrier is not emulated (every core must take part)");
  }
  const uint64_t total = static_cast<uint64_t>(blockNum);
  constexpr uint64_t kSlotInts = kUbBlockBytes / sizeof(int32_t);  // DEFAULT_BLK_NUM int32 counters per core
  const uint64_t bytes = total * kUbBlockBytes;
  if (gmElems < total * kSlotInts) {
    Fault(rule::kSyncAll, std::string(op) + ": the GM workspace holds " + std::to_string(gmElems) +
                              " int32 elements, the barrier of " + std::to_string(total) + " cores needs " +
                              std::to_string(total * kSlotInts) + " (32 bytes per core)");
  }
  CheckGm(gm, bytes, false, op);
  CheckOperand(op, "ubWorkspace", ub, bytes, true);
  int32_t *slot = gm + static_cast<uint64_t>(blockIdx) * kSlotInts;
  const uintptr_t key = reinterpret_cast<uintptr_t>(gm);
  uint32_t *done = nullptr;
  for (auto &e : softSyncs) {
    if (e.first == key) {
      done = &e.second;
    }
  }
  if (done == nullptr) {
    // First use on this workspace: the real barrier reads every core's counter at once, so all of them must
    // be zero before the launch (a core that clears its own slot inside the kernel races with the others).
    std::vector<uint8_t> before;
    if (launch->OriginalBytes(reinterpret_cast<const uint8_t *>(gm), bytes, before)) {
      for (uint64_t k = 0; k < total; ++k) {
        int32_t v = 0;
        std::memcpy(&v, before.data() + k * kUbBlockBytes, sizeof(v));
        if (v != 0) {
          Fault(rule::kSyncAll, std::string(op) + ": the counter of core " + std::to_string(k) +
                                    " in the GM workspace holds " + std::to_string(v) +
                                    " when the launch starts; the software SyncAll needs its GM workspace zero-filled "
                                    "before the launch");
        }
      }
    }
    softSyncs.emplace_back(key, 0u);
    done = &softSyncs.back().second;
  }
  int32_t current = 0;
  std::memcpy(&current, slot, sizeof(current));
  if (current != static_cast<int32_t>(*done)) {
    Fault(rule::kSyncAll, std::string(op) + ": core " + std::to_string(blockIdx) + "'s counter holds " +
                              std::to_string(current) + " before its software SyncAll #" + std::to_string(*done + 1) +
                              " (expected " + std::to_string(*done) +
                              "): the GM workspace was changed by something other than the barrier");
  }
  ++*done;
  const int32_t next = static_cast<int32_t>(*done);
  CheckGm(slot, kUbBlockBytes, true, op);
  std::memcpy(slot, &next, sizeof(next));
  stats.gmBytesRead += bytes;
  stats.gmBytesWritten += kUbBlockBytes;
  MarkDefined(ub.off, bytes);
  launch->Barrier(*this);
}

void Core::CheckDataCopyPadAvailable() const {
  if (!product->dataCopyPad) {
    Fault(rule::kPadUnavailable, std::string("DataCopyPad is not available on ") + product->name +
                                     " (the kernel was compiled with OPGEN_HAS_DATACOPYPAD=1)");
  }
}

void Core::CheckBf16Vector(const char *op) const {
  if (product->npuArch != 3510) {
    Fault(rule::kVectorDtype, std::string(op) + " on bfloat16_t tensors is not supported on " + product->name +
                                  " (NpuArch " + std::to_string(product->npuArch) + "): Cast to float first");
  }
}

void Core::CheckBf16Supported(const char *op) const {
  if (!product->bf16) {
    Fault(rule::kVectorDtype, std::string(op) + " with bfloat16_t data: " + product->name + " has no bf16 support");
  }
}

}  // namespace device
}  // namespace opgen_rt
