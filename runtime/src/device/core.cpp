// ascend-opgen host emulation: per-core state of the AscendC kernel API (UB arena, pipes and queues, GM
// checks, fault messages). Hand-written runtime code; not generated.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
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

const char *PipeName(int32_t p) {
  switch (p) {
    case kPipeS:
      return "PIPE_S";
    case kPipeV:
      return "PIPE_V";
    case kPipeMte2:
      return "PIPE_MTE2";
    case kPipeMte3:
      return "PIPE_MTE3";
  }
  return "?";
}

// HardEvent values in the order of enums.h (CANN kernel_event.h): name, source and destination pipe
// (-1: a pipe this emulation does not run: M, MTE1, FIX; their flags are paired and id-checked only).
struct EventInfo {
  const char *name;
  int8_t src;
  int8_t dst;
};
constexpr int8_t kNoPipe = -1;
const EventInfo kEvents[kHardEventCount] = {
    {"MTE2_MTE1", kPipeMte2, kNoPipe}, {"MTE1_MTE2", kNoPipe, kPipeMte2}, {"MTE1_M", kNoPipe, kNoPipe},
    {"M_MTE1", kNoPipe, kNoPipe},      {"MTE2_V", kPipeMte2, kPipeV},     {"V_MTE2", kPipeV, kPipeMte2},
    {"MTE3_V", kPipeMte3, kPipeV},     {"V_MTE3", kPipeV, kPipeMte3},     {"M_V", kNoPipe, kPipeV},
    {"V_M", kPipeV, kNoPipe},          {"V_V", kPipeV, kPipeV},           {"MTE3_MTE1", kPipeMte3, kNoPipe},
    {"MTE1_MTE3", kNoPipe, kPipeMte3}, {"MTE1_V", kNoPipe, kPipeV},       {"MTE2_M", kPipeMte2, kNoPipe},
    {"M_MTE2", kNoPipe, kPipeMte2},    {"V_MTE1", kPipeV, kNoPipe},       {"M_FIX", kNoPipe, kNoPipe},
    {"FIX_M", kNoPipe, kNoPipe},       {"MTE3_MTE2", kPipeMte3, kPipeMte2}, {"MTE2_MTE3", kPipeMte2, kPipeMte3},
    {"S_V", kPipeS, kPipeV},           {"V_S", kPipeV, kPipeS},           {"S_MTE2", kPipeS, kPipeMte2},
    {"MTE2_S", kPipeMte2, kPipeS},     {"S_MTE3", kPipeS, kPipeMte3},     {"MTE3_S", kPipeMte3, kPipeS},
    {"MTE2_FIX", kPipeMte2, kNoPipe},  {"FIX_MTE2", kNoPipe, kPipeMte2},  {"FIX_S", kNoPipe, kPipeS},
    {"M_S", kNoPipe, kPipeS},          {"FIX_MTE3", kNoPipe, kPipeMte3},
};

void Join(PipeClock &into, const PipeClock &from) {
  for (int q = 0; q < kPipeCount; ++q) {
    into[static_cast<size_t>(q)] = std::max(into[static_cast<size_t>(q)], from[static_cast<size_t>(q)]);
  }
}

// The HardEvent that orders pipe `from` before pipe `to`, for fault advice.
std::string EventFor(int32_t from, int32_t to) {
  for (int e = 0; e < kHardEventCount; ++e) {
    if (kEvents[e].src == from && kEvents[e].dst == to) {
      return std::string("SetFlag/WaitFlag<HardEvent::") + kEvents[e].name + ">";
    }
  }
  return "a SetFlag/WaitFlag pair";
}

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

// ---- scalar UB access (LocalTensor::GetValue / SetValue) ----

static_assert(kShadowDefined == 0, "the scalar UB path reads and writes defined shadow bytes as zero words");

namespace {

// The steps a scalar UB access shares before its pipe record: Poll, the operand check, and Issue(kPipeS, op)
// spelled out so that it compiles into the caller (forced inline: a call per GetValue / SetValue was a fifth
// of a scalar-heavy kernel's emulated time). `oneBlock` is set when the access lies inside one 32-byte block
// with the pipe model on (then PipeReadBlock / PipeWriteBlock of block `block` stand for the range loops of
// PipeRead / PipeWrite). The abort flag is polled on every kScalarPollEvery-th access only: a stopped launch
// (timeout, another core's fault) still ends within that many scalar steps of the flag being set.
inline __attribute__((always_inline)) PipeOp ScalarIssue(Core &c, const char *op, const UbRef &r, uint64_t bytes,
                                                        bool &oneBlock, uint64_t &block) {
  if (++c.scalarSincePoll >= Core::kScalarPollEvery) {
    c.scalarSincePoll = 0;
    c.Poll();
  }
  c.CheckOperand(op, "tensor", r, bytes, false);
  block = r.off / kUbBlockBytes;
  oneBlock = bytes != 0 && c.shadowPipes.w != nullptr && (r.off + bytes - 1) / kUbBlockBytes == block;
  if (c.tl.on) {
    c.TimeScalarAccess();
  }
  return PipeOp{kPipeS, ++c.vc[kPipeS][kPipeS], c.OpId(op), op};
}

}  // namespace

void Core::ScalarUbRead(const char *op, const UbRef &r, uint64_t bytes) {
  bool oneBlock = false;
  uint64_t b = 0;
  const PipeOp o = ScalarIssue(*this, op, r, bytes, oneBlock, b);
  if (oneBlock) {
    PipeReadBlock(o, r.off, bytes, b);
  } else {
    PipeRead(o, r.off, bytes);
  }
  // one element of 2, 4 or 8 bytes: its shadow codes read as one word (kShadowDefined is 0)
  const uint8_t *s = shadow + r.off;
  uint64_t codes = 0;
  if (bytes == 4) {
    uint32_t w;
    std::memcpy(&w, s, 4);
    codes = w;
  } else if (bytes == 2) {
    uint16_t w;
    std::memcpy(&w, s, 2);
    codes = w;
  } else if (bytes == 8) {
    std::memcpy(&codes, s, 8);
  } else {
    codes = ShadowAny(r.off, bytes);
  }
  if (codes != 0) {
    FaultUndefined(op, "tensor", r.off, bytes);
  }
}

void Core::ScalarUbWrite(const char *op, const UbRef &r, uint64_t bytes) {
  bool oneBlock = false;
  uint64_t b = 0;
  const PipeOp o = ScalarIssue(*this, op, r, bytes, oneBlock, b);
  if (oneBlock) {
    PipeWriteBlock(o, r.off, bytes, b);
  } else {
    PipeWrite(o, r.off, bytes);
  }
  uint8_t *s = shadow + r.off;  // MarkDefined(r.off, bytes), as fixed-size stores for one element
  if (bytes == 4) {
    const uint32_t w = 0;
    std::memcpy(s, &w, 4);
  } else if (bytes == 2) {
    const uint16_t w = 0;
    std::memcpy(s, &w, 2);
  } else if (bytes == 8) {
    const uint64_t w = 0;
    std::memcpy(s, &w, 8);
  } else {
    MarkDefined(r.off, bytes);
  }
}

void Core::ScalarGmRead(const char *op, const void *p, uint64_t bytes) {
  CheckGm(p, bytes, false, op);
  (void)OpId(op);
  ++vc[kPipeS][kPipeS];  // Issue(kPipeS, op)
  if (tl.on) {
    TimeScalarAccess();
  }
  GmScalarRead(p, bytes);
  stats.gmBytesRead += bytes;
}

void Core::ScalarGmWrite(const char *op, void *p, uint64_t bytes) {
  CheckGm(p, bytes, true, op);
  (void)OpId(op);
  ++vc[kPipeS][kPipeS];  // Issue(kPipeS, op)
  if (tl.on) {
    TimeScalarAccess();
  }
  GmScalarWrite(p, bytes);
  stats.gmBytesWritten += bytes;
  RecordGmWrite(p, bytes);
}

// ---- pipe timeline ----

void Core::TimeStart() {
  const CostModel &m = product->cost;
  tl = Timeline{};
  tl.on = m.available && m.clockMhz > 0 && m.chipGmBytesPerSecond > 0 && m.coreGmBytesPerCycle > 0;
  if (!tl.on) {
    return;
  }
  // The chip's bandwidth is shared by the launch's cores; one core alone reaches at most its own figure.
  const double chipPerCycle = m.chipGmBytesPerSecond / (m.clockMhz * 1e6);
  const double share = chipPerCycle / static_cast<double>(blockNum > 0 ? blockNum : 1);
  tl.bytesPerCycle = std::min(m.coreGmBytesPerCycle, share);
}

double Core::PortTake(double from, double need) {
  std::vector<std::pair<double, double>> &port = tl.port;
  // A later copy starts no earlier than its pipe's current end: spans ending before both are history.
  const double horizon = std::min(tl.free[kPipeMte2], tl.free[kPipeMte3]);
  size_t drop = 0;
  while (drop < port.size() && port[drop].second <= horizon) {
    ++drop;
  }
  if (drop > 64 || drop == port.size()) {
    port.erase(port.begin(), port.begin() + static_cast<std::ptrdiff_t>(drop));
  }
  // The first span that ends after `from` (ends are sorted as the spans are disjoint and sorted).
  auto first = std::upper_bound(port.begin(), port.end(), from,
                                [](double v, const std::pair<double, double> &s) { return v < s.second; });
  double t = from;
  auto it = first;
  while (need > 0) {
    if (it == port.end() || it->first >= t + need) {
      t += need;
      need = 0;
      break;
    }
    if (it->first > t) {
      need -= it->first - t;
    }
    t = std::max(t, it->second);
    ++it;
  }
  // Every gap in [from, t) is now taken: [from, t) joins the spans it touched into one.
  const double end = t;
  double lo = from;
  if (first != it && first->first < lo) {
    lo = first->first;
  }
  auto pos = port.erase(first, it);
  if (pos != port.end() && pos->first <= t) {
    t = std::max(t, pos->second);
    pos = port.erase(pos);
  }
  if (pos != port.begin() && std::prev(pos)->second >= lo) {
    std::prev(pos)->second = std::max(std::prev(pos)->second, t);
    return end;
  }
  port.insert(pos, std::make_pair(lo, t));
  return end;
}

namespace {
using Spans = std::vector<std::pair<double, double>>;

// The union of two lists of disjoint spans sorted by start.
Spans UnionSpans(const Spans &a, const Spans &b) {
  Spans out;
  out.reserve(a.size() + b.size());
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    const std::pair<double, double> &next = (j >= b.size() || (i < a.size() && a[i].first <= b[j].first)) ? a[i++]
                                                                                                          : b[j++];
    if (!out.empty() && next.first <= out.back().second) {
      out.back().second = std::max(out.back().second, next.second);
    } else {
      out.push_back(next);
    }
  }
  return out;
}

double SpanLength(const Spans &a) {
  double t = 0;
  for (const auto &s : a) {
    t += s.second - s.first;
  }
  return t;
}

// The total length of the intersection of two lists of disjoint sorted spans.
double OverlapLength(const Spans &a, const Spans &b) {
  double t = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const double lo = std::max(a[i].first, b[j].first);
    const double hi = std::min(a[i].second, b[j].second);
    if (hi > lo) {
      t += hi - lo;
    }
    if (a[i].second < b[j].second) {
      ++i;
    } else {
      ++j;
    }
  }
  return t;
}
}  // namespace

void Core::TimeFinish() {
  if (!tl.on) {
    return;
  }
  double end = 0;
  for (int p = 0; p < kPipeCount; ++p) {
    end = std::max(end, tl.free[p]);
    stats.pipeBusyCycles[p] = tl.busy[p];
  }
  stats.modelledCycles = end;
  const Spans copies = UnionSpans(tl.spans[kPipeMte2], tl.spans[kPipeMte3]);
  stats.copyCycles = SpanLength(copies);
  stats.copyHiddenCycles = OverlapLength(copies, tl.spans[kPipeV]);
  stats.vectorWorkCycles = tl.vectorWork;
  stats.scalarWaits = tl.scalarWaits;
  for (Spans &v : tl.spans) {
    Spans().swap(v);
  }
}

// ---- pipe model ----

void Core::FaultPipeRace(const PipeOp &o, const char *verb, uint8_t otherPipe, uint16_t otherOp, const char *how,
                         uint64_t off, uint64_t bytes, uint64_t block) const {
  // The conflicting UB range: the access's bytes inside the first conflicting block.
  const uint64_t lo = std::max<uint64_t>(off, block * kUbBlockBytes);
  const uint64_t hi = std::min<uint64_t>(off + bytes, (block + 1) * kUbBlockBytes);
  const char *other = otherOp < opNames.size() ? opNames[otherOp] : "?";
  Fault(rule::kPipeRace, std::string(o.name) + " (" + PipeName(o.pipe) + ") " + verb + " UB bytes [" + Num(lo) +
                             ", " + Num(hi) + ") " + how + " by " + other + " (" + PipeName(otherPipe) +
                             ") with no synchronisation ordering " + PipeName(otherPipe) + " before " +
                             PipeName(o.pipe) + " (use the queue's EnQue/DeQue, " + EventFor(otherPipe, o.pipe) +
                             " or PipeBarrier<PIPE_ALL>())");
}

void Core::FaultPipeRaceScan(const PipeOp &o, bool write, uint64_t off, uint64_t bytes) const {
  const PipeClock &k = vc[o.pipe];
  const uint64_t last = (off + bytes - 1) / kUbBlockBytes;
  const char *verb = write ? "overwrites" : "reads";
  for (uint64_t b = off / kUbBlockBytes; b <= last; ++b) {
    const uint64_t w = shadowPipes.w[b];
    const uint8_t wp = PipeShadow::Pipe(w);
    if (PipeShadow::Time(w) != 0 && wp != o.pipe && PipeShadow::Time(w) > k[wp]) {
      FaultPipeRace(o, verb, wp, PipeShadow::Op(w), "written", off, bytes, b);
    }
    for (uint8_t q = 0; write && q < kPipeCount; ++q) {
      const uint64_t r = shadowPipes.r[q][b];
      if (q != o.pipe && PipeShadow::Time(r) > k[q]) {
        FaultPipeRace(o, verb, q, PipeShadow::Op(r), "read", off, bytes, b);
      }
    }
  }
  Fault(rule::kInternal, std::string(o.name) + ": pipe race check found no racing block");
}

void Core::CheckGmPending(const PipeOp &o, uintptr_t lo, uintptr_t hi) {
  const uint32_t known = vc[o.pipe][kPipeMte3];
  size_t keep = 0;
  uintptr_t bLo = UINTPTR_MAX, bHi = 0;
  for (size_t k = 0; k < gmPending.size(); ++k) {
    const GmPending &w = gmPending[k];
    if (w.time <= known) {
      continue;  // ordered before this pipe from now on
    }
    if (w.lo < hi && lo < w.hi) {
      const uintptr_t a = std::max(lo, w.lo);
      const uintptr_t b = std::min(hi, w.hi);
      Fault(rule::kPipeRace, std::string(o.name) + " (PIPE_MTE2) reads " + Num(b - a) + " GM byte(s) at " +
                                 DescribeGm(reinterpret_cast<const void *>(a)) + " that this core wrote with " +
                                 opNames[w.op] +
                                 " (PIPE_MTE3) with no synchronisation ordering PIPE_MTE3 before PIPE_MTE2 (use "
                                 "SetFlag/WaitFlag<HardEvent::MTE3_MTE2> or PipeBarrier<PIPE_ALL>())");
    }
    gmPending[keep++] = w;
    bLo = std::min(bLo, w.lo);
    bHi = std::max(bHi, w.hi);
  }
  gmPending.resize(keep);
  gmPendingLo = bLo;
  gmPendingHi = bHi;
}

void Core::CheckOwnCacheLines(const PipeOp &o, uintptr_t lo, uintptr_t hi) {
  auto it = cacheLines.lower_bound(lo >= kCacheLineBytes ? lo - kCacheLineBytes + 1 : 0);
  for (; it != cacheLines.end() && it->first < hi; ++it) {
    const uintptr_t lineLo = it->first;
    const std::string where = "GM line at " + DescribeGm(reinterpret_cast<const void *>(std::max(lo, lineLo)));
    if (it->second.dirty) {
      Fault(rule::kPipeRace, std::string(o.name) + " (PIPE_MTE2) reads the " + where +
                                 " that this core wrote with GlobalTensor::SetValue (PIPE_S, through its data cache) "
                                 "with no DataCacheCleanAndInvalid of the line since: MTE2 reads GM, not the cache");
    }
    if (it->second.flushTime > vc[o.pipe][kPipeS]) {
      Fault(rule::kPipeRace, std::string(o.name) + " (PIPE_MTE2) reads the " + where +
                                 " that this core wrote with GlobalTensor::SetValue and flushed with "
                                 "DataCacheCleanAndInvalid (PIPE_S) with no synchronisation ordering PIPE_S before "
                                 "PIPE_MTE2 (use SetFlag/WaitFlag<HardEvent::S_MTE2> or PipeBarrier<PIPE_ALL>())");
    }
  }
}

int32_t Core::EventIdLimit() const {
  switch (product->npuArch) {
    case 2002:
    case 2201:
    case 3002:
    case 3102:
    case 3510:
    case 5102:
      return 8;
    default:
      return 4;
  }
}

void Core::CheckEventId(const char *what, int32_t event, int32_t eventId) const {
  if (event < 0 || event >= kHardEventCount) {
    Fault(rule::kSyncParams, std::string(what) + ": HardEvent value " + std::to_string(event) + " is not an event");
  }
  if (eventId < 0 || eventId >= EventIdLimit()) {
    Fault(rule::kSyncParams, std::string(what) + "<HardEvent::" + kEvents[event].name + ">: event id " +
                                 std::to_string(eventId) + " is outside 0.." + std::to_string(EventIdLimit() - 1) +
                                 " (QUE_MAX_EVENT is " + std::to_string(EventIdLimit()) + " on " + product->name +
                                 ", NpuArch " + std::to_string(product->npuArch) + ")");
  }
}

void Core::SetFlag(int32_t event, int32_t eventId) {
  Poll();
  CheckEventId("SetFlag", event, eventId);
  const EventInfo &e = kEvents[event];
  PipeClock tok{};
  double tokTime = ScalarNow();
  if (e.src >= 0) {
    const PipeOp o = Issue(static_cast<uint8_t>(e.src), "SetFlag");
    tok = vc[o.pipe];
    tokTime = tl.cur[o.pipe];
  }
  std::vector<PipeClock> &slot = flags[event][eventId];
  if (slot.size() >= 64) {
    Fault(rule::kSyncUnpaired, std::string("SetFlag<HardEvent::") + e.name + ">(" + std::to_string(eventId) +
                                   ") set 64 times with no WaitFlag in between");
  }
  slot.push_back(tok);
  flagTimes[event][eventId].push_back(tokTime);
  if (slot.size() == 1) {
    flagSetter[event][eventId] = "SetFlag";
  }
  ++flagsPending;
}

void Core::WaitFlag(int32_t event, int32_t eventId) {
  Poll();
  CheckEventId("WaitFlag", event, eventId);
  const EventInfo &e = kEvents[event];
  std::vector<PipeClock> &slot = flags[event][eventId];
  if (slot.empty()) {
    std::string pending;
    for (int ev = 0; ev < kHardEventCount; ++ev) {
      for (int id = 0; id < kMaxEventIds; ++id) {
        if (!flags[ev][id].empty() && pending.size() < 200) {
          pending += std::string(pending.empty() ? "" : ", ") + kEvents[ev].name + " id " + std::to_string(id);
        }
      }
    }
    Fault(rule::kSyncDeadlock, std::string("WaitFlag<HardEvent::") + e.name + ">(" + std::to_string(eventId) +
                                   ") with no SetFlag<HardEvent::" + e.name + ">(" + std::to_string(eventId) +
                                   ") before it: the waiting pipe would hang (flags set and not waited: " +
                                   (pending.empty() ? std::string("none") : pending) + ")");
  }
  const PipeClock tok = slot.front();
  slot.erase(slot.begin());
  std::vector<double> &times = flagTimes[event][eventId];
  const double tokTime = times.front();
  times.erase(times.begin());
  --flagsPending;
  if (e.dst >= 0) {
    Issue(static_cast<uint8_t>(e.dst), "WaitFlag");
    Join(vc[e.dst], tok);
    if (tl.on) {
      TimeWait(static_cast<uint8_t>(e.dst), tokTime);
    }
  }
}

void Core::BarrierAll() {
  PipeClock all{};
  for (int p = 0; p < kPipeCount; ++p) {
    Join(all, vc[p]);
  }
  for (int p = 0; p < kPipeCount; ++p) {
    vc[p] = all;
  }
  if (tl.on) {
    TimeBarrier();
  }
  gmPending.clear();
  gmPendingLo = UINTPTR_MAX;
  gmPendingHi = 0;
}

void Core::PipeBarrier(int32_t pipe) {
  Poll();
  if (pipe == PIPE_ALL) {
    BarrierAll();
  } else if (pipe == PIPE_S) {
    // asc-devkit PipeBarrier doc: "calling PipeBarrier<PIPE_S>() causes a hardware error".
    Fault(rule::kSyncParams, "PipeBarrier<PIPE_S>(): the scalar pipe is ordered by the hardware and this call is a "
                             "hardware error");
  }
  // PipeBarrier<PIPE_X> orders pipe X after itself, which the model already does (in-order pipes).
}

int32_t Core::AllocEventId(int32_t event, bool take) {
  Poll();
  if (event < 0 || event >= kHardEventCount) {
    Fault(rule::kSyncParams, "AllocEventID/FetchEventID: HardEvent value " + std::to_string(event) + " is not an event");
  }
  for (int32_t id = 0; id < EventIdLimit(); ++id) {
    if ((eventIdsInUse[event] & (1u << id)) == 0) {
      if (take) {
        eventIdsInUse[event] = static_cast<uint8_t>(eventIdsInUse[event] | (1u << id));
      }
      return id;
    }
  }
  Fault(rule::kSyncParams, std::string(take ? "AllocEventID" : "FetchEventID") + "<HardEvent::" + kEvents[event].name +
                               ">: all " + std::to_string(EventIdLimit()) +
                               " event ids are allocated (ReleaseEventID one first)");
}

void Core::ReleaseEventId(int32_t event, int32_t eventId) {
  Poll();
  CheckEventId("ReleaseEventID", event, eventId);
  if ((eventIdsInUse[event] & (1u << eventId)) == 0) {
    Fault(rule::kSyncParams, std::string("ReleaseEventID<HardEvent::") + kEvents[event].name + ">(" +
                                 std::to_string(eventId) + ") of an id that AllocEventID did not hand out");
  }
  eventIdsInUse[event] = static_cast<uint8_t>(eventIdsInUse[event] & ~(1u << eventId));
}

void Core::FlushCache(const void *p, bool entire) {
  Poll();
  const PipeOp o = Issue(kPipeS, "DataCacheCleanAndInvalid");
  if (entire) {
    for (auto &kv : cacheLines) {
      kv.second.dirty = false;
      kv.second.flushTime = o.time;
    }
    return;
  }
  CheckGm(p, 0, false, "DataCacheCleanAndInvalid");
  auto it = cacheLines.find(LineOf(reinterpret_cast<uintptr_t>(p)));
  if (it != cacheLines.end()) {
    it->second.dirty = false;
    it->second.flushTime = o.time;
  }
}

void Core::CloseCacheEpoch() {
  for (auto &kv : cacheLines) {
    if (kv.second.wroteThisEpoch) {
      if (cacheHistory.size() < (1u << 20)) {
        cacheHistory.push_back(CacheLineRec{kv.first, epoch, kv.second.dirty});
      }
      kv.second.wroteThisEpoch = false;
    }
  }
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

void Core::ProbeGm(const uint8_t *p, uint64_t bytes, bool write, const char *op) {
  CheckGmSlow(p, bytes, write, op);  // faults outside every region; sets gmLo / gmHi / gmWritable on a match
  if (bytes == 0) {
    return;  // a pointer check (SetGlobalBuffer), not an access
  }
  if (probeMaxAccesses != 0 && ++probeAccesses > probeMaxAccesses) {
    probeStopped = true;
    throw ProbeStop{};
  }
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  for (size_t k = 0; k < regions->size() && k < probeSpans.size(); ++k) {
    const GmRegion &r = (*regions)[k];
    if (reinterpret_cast<uintptr_t>(r.base) != gmLo || r.bytes != gmHi - gmLo || (write && !r.writable)) {
      continue;
    }
    ProbeSpan &s = probeSpans[k];
    const uint64_t lo = a - gmLo;
    const uint64_t hi = lo + bytes;
    if (write) {
      s.writeLo = std::min(s.writeLo, lo);
      s.writeHi = std::max(s.writeHi, hi);
    } else {
      s.readLo = std::min(s.readLo, lo);
      s.readHi = std::max(s.readHi, hi);
    }
    return;
  }
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
  if (shadowPipes.w != nullptr) {
    shadowPipes.Clear(off / kUbBlockBytes, (off + len) / kUbBlockBytes);
  }
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
    q.enqTok.push_back(PipeClock{});
    q.freeTok.push_back(PipeClock{});
    q.enqTime.push_back(0);
    q.freeTime.push_back(0);
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

// The flags of a TQue: VECIN queues order MTE2 (producer) and V (consumer), VECOUT queues V and MTE3;
// `forward` is EnQue -> DeQue, else FreeTensor -> AllocTensor; `produce` is the SetFlag side.
void Core::QueueSync(int32_t qid, int32_t slot, bool forward, bool produce) {
  QueueRec &q = queues[static_cast<size_t>(qid)];
  int32_t producer = -1, consumer = -1;
  if (q.pos == TPosition::VECIN) {
    producer = kPipeMte2;
    consumer = kPipeV;
  } else if (q.pos == TPosition::VECOUT) {
    producer = kPipeV;
    consumer = kPipeMte3;
  } else {
    return;  // VECCALC and the cube positions: no flags between modelled pipes
  }
  const int32_t from = forward ? producer : consumer;
  const int32_t to = forward ? consumer : producer;
  PipeClock &tok = forward ? q.enqTok[static_cast<size_t>(slot)] : q.freeTok[static_cast<size_t>(slot)];
  double &tokTime = forward ? q.enqTime[static_cast<size_t>(slot)] : q.freeTime[static_cast<size_t>(slot)];
  if (produce) {
    Issue(static_cast<uint8_t>(from), forward ? "EnQue" : "FreeTensor");
    tok = vc[from];
    tokTime = tl.cur[from];
  } else {
    Issue(static_cast<uint8_t>(to), forward ? "DeQue" : "AllocTensor");
    Join(vc[to], tok);
    if (tl.on) {
      TimeWait(static_cast<uint8_t>(to), tokTime);
    }
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
      QueueSync(qid, slot, false, false);
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
  QueueSync(qid, r.slot, true, true);
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
  QueueSync(qid, slot, true, false);
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
  ++q.gen[static_cast<size_t>(r.slot)];
  if (s == SlotState::kDequeued) {
    QueueSync(qid, r.slot, false, true);
  } else {
    q.freeTok[static_cast<size_t>(r.slot)] = vc[kPipeS];  // freed right after AllocTensor: nothing ran on it
    q.freeTime[static_cast<size_t>(r.slot)] = ScalarNow();
  }  // tensors of this allocation are stale from now on
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
  if (flagsPending > 0) {
    for (int ev = 0; ev < kHardEventCount; ++ev) {
      for (int id = 0; id < kMaxEventIds; ++id) {
        if (!flags[ev][id].empty()) {
          Fault(rule::kSyncUnpaired, std::string("at kernel exit SetFlag<HardEvent::") + kEvents[ev].name + ">(" +
                                         std::to_string(id) + ") was set " + std::to_string(flags[ev][id].size()) +
                                         " time(s) more than WaitFlag<HardEvent::" + kEvents[ev].name + ">(" +
                                         std::to_string(id) + ") waited for it (every SetFlag needs its WaitFlag)");
        }
      }
    }
  }
  CloseCacheEpoch();
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
  BarrierAll();  // SyncAll waits for every pipe of the core (treated as PipeBarrier<PIPE_ALL>)
  CloseCacheEpoch();
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
  if (probe) {  // the counters are not memory: the barrier is only bounds-checked and recorded
    CheckGm(gm + static_cast<uint64_t>(blockIdx) * (kUbBlockBytes / sizeof(int32_t)), kUbBlockBytes, true, op);
    MarkDefined(ub.off, bytes);
    BarrierAll();
    launch->Barrier(*this);
    return;
  }
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
  BarrierAll();  // the software barrier, too, waits for every pipe of the core
  CloseCacheEpoch();
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
