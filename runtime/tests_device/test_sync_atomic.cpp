// SyncAll ordering, the sequential core orders, and atomic adds from many cores into the same GM bytes.
// Hand-written test code.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "harness.h"
#include "kernel_operator.h"

using namespace AscendC;

namespace {

constexpr int kRounds = 3;

// Round r: every core publishes r * 1000 + idx in its own slot, flushes it out of its scalar data cache,
// SyncAll, then checks every slot of the round and records how many it saw in its own result slot. Slots
// are kSlot int32 apart: one 64-byte cache line each, so no two cores write one line.
constexpr int64_t kSlot = 16;

void SyncRoundsKernel(uint8_t **args) {
  const int64_t idx = GetBlockIdx();
  const int64_t num = GetBlockNum();
  GlobalTensor<int32_t> flags, seen;
  flags.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t *>(args[0]), static_cast<uint64_t>(num * kRounds * kSlot));
  seen.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t *>(args[1]), static_cast<uint64_t>(num * kRounds * kSlot));
  for (int r = 0; r < kRounds; ++r) {
    const uint64_t mine = static_cast<uint64_t>((r * num + idx) * kSlot);
    flags.SetValue(mine, static_cast<int32_t>(r * 1000 + idx));
    DataCacheCleanAndInvalid<int32_t, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(flags[mine]);
    SyncAll();
    int32_t count = 0;
    for (int64_t k = 0; k < num; ++k) {
      count += flags.GetValue(static_cast<uint64_t>((r * num + k) * kSlot)) == r * 1000 + k ? 1 : 0;
    }
    seen.SetValue(mine, count);
  }
}

void CheckSyncRounds() {
  for (uint32_t n : {1u, 2u, 7u, 64u, 300u}) {
    for (opgen_rt::CoreOrder order : th::kAllOrders) {
      th::Gm flags(n * kRounds * kSlot * 4, "flags"), seen(n * kRounds * kSlot * 4, "seen");
      th::KernelLaunch k;
      k.name = "sync_rounds";
      k.entry = SyncRoundsKernel;
      k.args = {&flags, &seen};
      k.blockDim = n;
      const double t0 = th::NowSeconds();
      const opgen_rt::LaunchResult r = th::RunWithOrder(k, order, 7);
      TH_CHECK(r.ok, "sync_rounds n=%u %s: %s", n, th::OrderName(order), r.fault.c_str());
      int bad = 0;
      for (uint32_t i = 0; i < n * kRounds; ++i) {
        bad += seen.as<int32_t>()[i * kSlot] != static_cast<int32_t>(n);
      }
      TH_CHECK(bad == 0, "sync_rounds n=%u %s: %d cores saw an incomplete round after SyncAll", n,
               th::OrderName(order), bad);
      if (n == 300) {
        std::printf("  sync_rounds: 300 cores x %d SyncAll, %s: %.3f s\n", kRounds, th::OrderName(order),
                    th::NowSeconds() - t0);
      }
    }
  }
}

// ---- the order cores run in ----
std::mutex g_logMu;
std::vector<int> g_log;
void Log(int v) {
  std::lock_guard<std::mutex> lock(g_logMu);
  g_log.push_back(v);
}
void OrderKernel(uint8_t **) {
  const int idx = static_cast<int>(GetBlockIdx());
  Log(idx);
  SyncAll();
  Log(100 + idx);
}

std::vector<int> RunOrder(opgen_rt::CoreOrder order, uint64_t seed, uint32_t n) {
  g_log.clear();
  th::KernelLaunch k;
  k.name = "order";
  k.entry = OrderKernel;
  k.blockDim = n;
  const opgen_rt::LaunchResult r = th::RunWithOrder(k, order, seed);
  TH_CHECK(r.ok, "order: %s", r.fault.c_str());
  return g_log;
}

void CheckOrders() {
  const uint32_t n = 9;
  std::vector<int> want;
  for (int i = 0; i < 9; ++i) want.push_back(i);
  for (int i = 0; i < 9; ++i) want.push_back(100 + i);
  TH_CHECK(RunOrder(opgen_rt::CoreOrder::IN_ORDER, 0, n) == want, "IN_ORDER runs 0..n-1, then again after SyncAll");
  want.clear();
  for (int i = 8; i >= 0; --i) want.push_back(i);
  for (int i = 8; i >= 0; --i) want.push_back(100 + i);
  TH_CHECK(RunOrder(opgen_rt::CoreOrder::REVERSED, 0, n) == want, "REVERSED runs n-1..0");
  const std::vector<int> s1 = RunOrder(opgen_rt::CoreOrder::SHUFFLE, 11, n);
  const std::vector<int> s1again = RunOrder(opgen_rt::CoreOrder::SHUFFLE, 11, n);
  const std::vector<int> s2 = RunOrder(opgen_rt::CoreOrder::SHUFFLE, 12, n);
  TH_CHECK(s1 == s1again, "SHUFFLE is deterministic for a seed");
  TH_CHECK(s1 != s2, "SHUFFLE differs between seeds 11 and 12");
  bool samePermBothPhases = s1.size() == 18;
  std::vector<int> firstHalf(s1.begin(), s1.begin() + 9);
  for (int i = 0; samePermBothPhases && i < 9; ++i) {
    samePermBothPhases = s1[static_cast<size_t>(9 + i)] == 100 + s1[static_cast<size_t>(i)];
  }
  std::sort(firstHalf.begin(), firstHalf.end());
  TH_CHECK(samePermBothPhases && firstHalf == std::vector<int>({0, 1, 2, 3, 4, 5, 6, 7, 8}),
           "SHUFFLE: a permutation, repeated after the barrier");
  std::vector<int> c = RunOrder(opgen_rt::CoreOrder::CONCURRENT, 0, n);
  TH_CHECK(c.size() == 18, "CONCURRENT ran every core");
  bool phases = true;  // nobody passes the barrier before everyone reached it
  for (size_t i = 0; i < 9 && i < c.size(); ++i) {
    phases = phases && c[i] < 100;
  }
  TH_CHECK(phases, "CONCURRENT: SyncAll separates the phases");
}

// ---- atomics ----
constexpr int32_t kAtomicN = 1024;

template <typename T, bool kPad>
void AtomicKernel(uint8_t **args) {
  const int64_t idx = GetBlockIdx();
  GlobalTensor<T> out;
  out.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(args[0]), kAtomicN);
  TPipe pipe;
  TQue<TPosition::VECOUT, 1> q;
  pipe.InitBuffer(q, 1, kAtomicN * sizeof(T));
  LocalTensor<T> t = q.AllocTensor<T>();
  for (int32_t i = 0; i < kAtomicN; ++i) {
    // Value i % 4 + (core parity): small integers, exact in every dtype.
    t.SetValue(static_cast<uint32_t>(i), T(static_cast<float>(i % 4 + (idx % 2))));
  }
  q.EnQue(t);
  t = q.DeQue<T>();
  // The queue orders V before MTE3; the scalar writes above need their own S -> MTE3 flag.
  SetFlag<HardEvent::S_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::S_MTE3>(EVENT_ID0);
  SetAtomicAdd<T>();
  if constexpr (kPad) {
    DataCopyPad(out, t, DataCopyExtParams{1, kAtomicN * sizeof(T), 0, 0, 0});
  } else {
    DataCopy(out, t, kAtomicN);
  }
  SetAtomicNone();
  q.FreeTensor(t);
}

template <typename T, bool kPad>
void CheckAtomic(const char *what, uint32_t cores) {
  for (opgen_rt::CoreOrder order : th::kAllOrders) {
    for (int rep = 0; rep < (order == opgen_rt::CoreOrder::CONCURRENT ? 4 : 1); ++rep) {
      th::Gm out(kAtomicN * sizeof(T), "out");
      for (int32_t i = 0; i < kAtomicN; ++i) {
        out.as<T>()[i] = T(static_cast<float>(i % 3));
      }
      th::KernelLaunch k;
      k.name = std::string("atomic_") + what;
      k.entry = AtomicKernel<T, kPad>;
      k.args = {&out};
      k.blockDim = cores;
      const opgen_rt::LaunchResult r = th::RunWithOrder(k, order, 5);
      TH_CHECK(r.ok, "%s %s: %s", k.name.c_str(), th::OrderName(order), r.fault.c_str());
      int bad = 0;
      for (int32_t i = 0; i < kAtomicN; ++i) {
        const double want = (i % 3) + static_cast<double>(cores) * (i % 4) + cores / 2;
        bad += static_cast<double>(static_cast<float>(out.as<T>()[i])) != want;
      }
      TH_CHECK(bad == 0, "%s with %u cores, %s: %d wrong sums", k.name.c_str(), cores, th::OrderName(order), bad);
      uint64_t added = 0;
      for (const auto &c : r.cores) {
        added += c.gmBytesAtomicAdded;
        TH_CHECK(c.gmBytesWritten == 0, "atomic adds are not counted as plain writes");
      }
      TH_CHECK(added == static_cast<uint64_t>(cores) * kAtomicN * sizeof(T), "atomic byte counter %llu",
               static_cast<unsigned long long>(added));
    }
  }
}

// ---- products without hardware SyncAll, the software SyncAll, the system workspace ----

constexpr uint64_t kLineInts = 16;  // int32 values per 64-byte scalar data-cache line

// Calls the no-argument SyncAll between two GM writes; each core writes its own cache line.
void HwSyncKernel(uint8_t **args) {
  GlobalTensor<int32_t> out;
  out.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t *>(args[0]), static_cast<uint64_t>(GetBlockNum()) * kLineInts);
  out.SetValue(static_cast<uint64_t>(GetBlockIdx()) * kLineInts, 1);
  SyncAll();
  out.SetValue(static_cast<uint64_t>(GetBlockIdx()) * kLineInts, 2);
}

void CheckHardwareSyncAllUnsupported() {
  for (const opgen_rt::ProductInfo *p : {&th::Ascend910(), &th::Ascend310P()}) {
    th::UseProduct(*p);
    for (uint32_t n : {1u, 4u}) {
      for (opgen_rt::CoreOrder order : th::kAllOrders) {
        th::Gm out(n * kLineInts * 4, "out");
        th::KernelLaunch k;
        k.name = "hw_sync_all";
        k.entry = HwSyncKernel;
        k.args = {&out};
        k.blockDim = n;
        const opgen_rt::LaunchResult r = th::RunWithOrder(k, order, 3);
        const std::string where = std::string("hw SyncAll on ") + p->name + " " + th::OrderName(order);
        th::ExpectFault(r, "SyncAll unsupported", "hw_sync_all", -1, n, where.c_str());
        TH_CHECK(th::Contains(r.fault, std::string("does not exist on ") + p->name), "%s: %s", where.c_str(),
                 r.fault.c_str());
      }
    }
  }
  th::UseProduct(th::Ascend910B());  // the same kernel runs where the hardware barrier exists
  th::Gm out(4 * kLineInts * 4, "out");
  th::KernelLaunch k;
  k.name = "hw_sync_all";
  k.entry = HwSyncKernel;
  k.args = {&out};
  k.blockDim = 4;
  const opgen_rt::LaunchResult r = th::Run(k);
  TH_CHECK(r.ok && out.as<int32_t>()[3 * kLineInts] == 2, "hw SyncAll on Ascend910B: %s", r.fault.c_str());
}

int g_softMissing = -1;  // a core that leaves before the software barrier (-1: none)
int g_softSlots = 8;     // int32 elements of GM workspace per core handed to SetGlobalBuffer

// Rounds as SyncRoundsKernel, with the software SyncAll: args[0] the GM sync workspace, args[1] flags,
// args[2] seen.
void SoftRoundsKernel(uint8_t **args) {
  const int64_t idx = GetBlockIdx();
  const int64_t num = GetBlockNum();
  if (idx == g_softMissing) {
    return;
  }
  GlobalTensor<int32_t> sync, flags, seen;
  sync.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t *>(args[0]), static_cast<uint64_t>(num * g_softSlots));
  flags.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t *>(args[1]), static_cast<uint64_t>(num * kRounds));
  seen.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t *>(args[2]), static_cast<uint64_t>(num * kRounds));
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, static_cast<uint32_t>(num * 32));
  LocalTensor<int32_t> work = buf.Get<int32_t>();
  for (int r = 0; r < kRounds; ++r) {
    flags.SetValue(static_cast<uint64_t>(r * num + idx), static_cast<int32_t>(r * 1000 + idx));
    SyncAll(sync, work);
    int32_t count = 0;
    for (int64_t k = 0; k < num; ++k) {
      count += flags.GetValue(static_cast<uint64_t>(r * num + k)) == r * 1000 + k ? 1 : 0;
    }
    seen.SetValue(static_cast<uint64_t>(r * num + idx), count);
  }
}

opgen_rt::LaunchResult RunSoft(uint32_t n, opgen_rt::CoreOrder order, th::Gm &sync, th::Gm &seen) {
  th::Gm flags(n * kRounds * 4, "flags");
  th::KernelLaunch k;
  k.name = "soft_sync_all";
  k.entry = SoftRoundsKernel;
  k.args = {&sync, &flags, &seen};
  k.blockDim = n;
  return th::RunWithOrder(k, order, 11);
}

void CheckSoftwareSyncAll() {
  th::UseProduct(th::Ascend910());
  for (uint32_t n : {1u, 5u, 32u}) {
    for (opgen_rt::CoreOrder order : th::kAllOrders) {
      th::Gm sync(n * 32, "sync"), seen(n * kRounds * 4, "seen");  // zero-filled before the launch
      const opgen_rt::LaunchResult r = RunSoft(n, order, sync, seen);
      TH_CHECK(r.ok, "soft SyncAll n=%u %s: %s", n, th::OrderName(order), r.fault.c_str());
      int bad = 0;
      for (uint32_t i = 0; i < n * kRounds; ++i) {
        bad += seen.as<int32_t>()[i] != static_cast<int32_t>(n);
      }
      TH_CHECK(bad == 0, "soft SyncAll n=%u %s: %d cores saw an incomplete round", n, th::OrderName(order), bad);
      TH_CHECK(sync.as<int32_t>()[8 * (n - 1)] == kRounds, "soft SyncAll counter of the last core: %d",
               sync.as<int32_t>()[8 * (n - 1)]);
    }
  }
  // A core that never reaches the barrier: reported (on hardware the others would wait forever).
  for (opgen_rt::CoreOrder order : th::kAllOrders) {
    g_softMissing = 2;
    th::Gm sync(4 * 32, "sync"), seen(4 * kRounds * 4, "seen");
    const opgen_rt::LaunchResult r = RunSoft(4, order, sync, seen);
    g_softMissing = -1;
    th::ExpectFault(r, "SyncAll", "soft_sync_all", -1, 4, th::OrderName(order));
    TH_CHECK(th::Contains(r.fault, "core 2"), "missing core named: %s", r.fault.c_str());
  }
  // A GM workspace that is not zero when the launch starts (e.g. left over from an earlier launch).
  for (opgen_rt::CoreOrder order : th::kAllOrders) {
    th::Gm sync(4 * 32, "sync"), seen(4 * kRounds * 4, "seen");
    sync.as<int32_t>()[8 * 3] = kRounds;
    const opgen_rt::LaunchResult r = RunSoft(4, order, sync, seen);
    th::ExpectFault(r, "SyncAll", "soft_sync_all", -1, 4, th::OrderName(order));
    TH_CHECK(th::Contains(r.fault, "zero-filled before the launch"), "dirty workspace: %s", r.fault.c_str());
  }
  // A GM workspace smaller than 32 bytes per core.
  g_softSlots = 4;
  {
    th::Gm sync(4 * 32, "sync"), seen(4 * kRounds * 4, "seen");
    const opgen_rt::LaunchResult r = RunSoft(4, opgen_rt::CoreOrder::IN_ORDER, sync, seen);
    th::ExpectFault(r, "SyncAll", "soft_sync_all", 0, 4, "small GM workspace");
    TH_CHECK(th::Contains(r.fault, "needs 32"), "small GM workspace: %s", r.fault.c_str());
  }
  g_softSlots = 8;
  th::UseProduct(th::Ascend910B());
}

// Core i writes one float at GetUserWorkspace(workspace) + args[1][0] + 64 * i bytes (its own cache line), or
// into the system workspace itself (args[1][0] < 0: at workspace - args[1][0] - 1).
void WorkspaceKernel(uint8_t **args) {
  GlobalTensor<int64_t> where;
  where.SetGlobalBuffer(reinterpret_cast<__gm__ int64_t *>(args[1]), 1);
  const int64_t at = where.GetValue(0);
  GlobalTensor<float> ws;
  if (at >= 0) {
    ws.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(GetUserWorkspace(args[0]) + at + 64 * GetBlockIdx()), 1);
  } else {
    ws.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(args[0] + (-at - 1)), 1);
  }
  ws.SetValue(0, 3.0f);
}

opgen_rt::LaunchResult RunWorkspace(th::Gm &ws, uint64_t userBytes, int64_t at, opgen_rt::CoreOrder order) {
  const uint64_t sys = opgen_rt::CurrentProduct().sysWorkspaceBytes;
  th::Gm where(8, "where", false);
  where.as<int64_t>()[0] = at;
  opgen_rt::LaunchRequest req;
  req.kernelName = "workspace_write";
  req.opType = "workspace_write";
  req.entry = WorkspaceKernel;
  req.blockDim = 2;
  req.args = {ws.data(), where.data()};
  req.regions = {opgen_rt::GmRegion{"system workspace", ws.data(), sys, false},
                 opgen_rt::GmRegion{"workspace", ws.data() + sys, userBytes, true}, where.Region()};
  opgen_rt::SetCoreOrder(order, 1);
  return opgen_rt::RunKernel(req);
}

void CheckSystemWorkspace() {
  for (const opgen_rt::ProductInfo *p : {&th::Ascend910(), &th::Ascend910B()}) {
    th::UseProduct(*p);
    const uint64_t sys = p->sysWorkspaceBytes;
    TH_CHECK(sys == (p->npuArch == 1001 ? 2u << 20 : 16u << 20), "%s reserve %llu", p->name,
             static_cast<unsigned long long>(sys));
    for (opgen_rt::CoreOrder order : th::kAllOrders) {
      th::Gm ws(sys + 192, "ws");
      opgen_rt::LaunchResult r = RunWorkspace(ws, 192, 8, order);
      float got = 0;
      std::memcpy(&got, ws.data() + sys + 8, sizeof(got));
      TH_CHECK(r.ok && got == 3.0f, "%s: user workspace write %s: %s (got %g)", p->name, th::OrderName(order),
               r.fault.c_str(), static_cast<double>(got));
      for (int64_t at : {int64_t{-1}, -static_cast<int64_t>(sys / 2) - 1, -static_cast<int64_t>(sys) + 3}) {
        th::Gm ws2(sys + 64, "ws");
        r = RunWorkspace(ws2, 64, at, order);
        const std::string where = std::string(p->name) + " write into the system workspace " + th::OrderName(order);
        th::ExpectFault(r, "system workspace", "workspace_write", -1, 2, where.c_str());
        TH_CHECK(th::Contains(r.fault, "GetUserWorkspace"), "%s: %s", where.c_str(), r.fault.c_str());
      }
    }
  }
  th::UseProduct(th::Ascend910B());
}

// The system workspace as the kernel sees it (core 0 of 2). args[1] holds {mode, offset, workspace bytes}:
// mode 0 reads the byte at workspace + offset through a GlobalTensor into out[0]; mode 1 writes 0x5A there
// through the raw __gm__ pointer and reads it back the same way into out[0]; mode 2 writes one byte `offset`
// bytes past the end of the whole workspace (user part included) and mode 3 one byte `offset` bytes before
// its start, both through the raw pointer.
void SysPeekKernel(uint8_t **args) {
  GlobalTensor<int64_t> ctl;
  ctl.SetGlobalBuffer(reinterpret_cast<__gm__ int64_t *>(args[1]), 3);
  const int64_t mode = ctl.GetValue(0);
  const int64_t off = ctl.GetValue(1);
  const int64_t total = ctl.GetValue(2);
  if (GetBlockIdx() != 0) {
    return;
  }
  __gm__ uint8_t *ws = args[0];
  int32_t seen = -1;
  if (mode == 0) {
    GlobalTensor<uint8_t> all;
    all.SetGlobalBuffer(ws, static_cast<uint64_t>(total));
    seen = all.GetValue(static_cast<uint64_t>(off));
  } else if (mode == 1) {
    ws[off] = 0x5A;
    seen = ws[off];
  } else if (mode == 2) {
    ws[total + off] = 0x5A;
  } else {
    *(ws - off) = 0x5A;
  }
  GlobalTensor<int32_t> out;
  out.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t *>(args[2]), 16);
  out.SetValue(0, seen);
  DataCacheCleanAndInvalid<int32_t, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(out);
}

// Runs SysPeekKernel on `ws` as a workspace of `sys` system bytes and `user` user bytes; out[0] in `seen`.
opgen_rt::LaunchResult RunPeek(th::Gm &ws, uint64_t sys, uint64_t user, int64_t mode, int64_t off, int32_t &seen) {
  th::Gm ctl(24, "ctl", false), out(64, "out");
  ctl.as<int64_t>()[0] = mode;
  ctl.as<int64_t>()[1] = off;
  ctl.as<int64_t>()[2] = static_cast<int64_t>(sys + user);
  out.as<int32_t>()[0] = -7;
  opgen_rt::LaunchRequest req;
  req.kernelName = "sys_peek";
  req.opType = "sys_peek";
  req.entry = SysPeekKernel;
  req.blockDim = 2;
  req.args = {ws.data(), ctl.data(), out.data()};
  req.regions = {opgen_rt::GmRegion{"system workspace", ws.data(), sys, false}, ctl.Region(), out.Region()};
  if (user > 0) {
    req.regions.push_back(opgen_rt::GmRegion{"workspace", ws.data() + sys, user, true});
  }
  opgen_rt::SetCoreOrder(opgen_rt::CoreOrder::IN_ORDER, 0);
  const opgen_rt::LaunchResult r = opgen_rt::RunKernel(req);
  seen = out.as<int32_t>()[0];
  return r;
}

// The system workspace is not the caller's bytes but poison (0xFF) to the kernel at every launch: after
// launches that read it, after raw-pointer writes into it (their bytes never reach the next launch nor the
// caller), after faults; GlobalTensor writes into it still fault and the red zones around the workspace
// still catch raw writes, however many launches ran before.
void CheckSystemWorkspacePoison() {
  for (const opgen_rt::ProductInfo *p : {&th::Ascend910(), &th::Ascend910B()}) {
    th::UseProduct(*p);
    const uint64_t sys = p->sysWorkspaceBytes;
    const uint64_t user = 256;
    th::Gm ws(sys + user, "ws");
    std::memset(ws.data(), 0, sys + user);  // the caller's bytes, which the kernel must not see
    const int64_t offsets[] = {0, 1, 511, 4095, 4096, 8191, static_cast<int64_t>(sys / 2) + 7,
                               static_cast<int64_t>(sys) - 4097, static_cast<int64_t>(sys) - 1};
    for (int round = 0; round < 3; ++round) {
      const std::string where = std::string(p->name) + " round " + std::to_string(round);
      for (int64_t off : offsets) {
        int32_t seen = 0;
        opgen_rt::LaunchResult r = RunPeek(ws, sys, user, 0, off, seen);
        TH_CHECK(r.ok && seen == 0xFF, "%s: byte %lld of the system workspace reads %d, not poison 255: %s",
                 where.c_str(), static_cast<long long>(off), seen, r.fault.c_str());
        r = RunPeek(ws, sys, user, 1, off, seen);
        TH_CHECK(r.ok && seen == 0x5A, "%s: raw write at %lld read back %d: %s", where.c_str(),
                 static_cast<long long>(off), seen, r.fault.c_str());
        TH_CHECK(ws.data()[off] == 0, "%s: a raw write into the system workspace reached the caller's byte %lld",
                 where.c_str(), static_cast<long long>(off));
        r = RunPeek(ws, sys, user, 0, off, seen);
        TH_CHECK(r.ok && seen == 0xFF, "%s: after a raw write, byte %lld of the system workspace reads %d: %s",
                 where.c_str(), static_cast<long long>(off), seen, r.fault.c_str());
      }
      // A write through a GlobalTensor still faults after the good launches, and leaves nothing behind.
      opgen_rt::LaunchResult r = RunWorkspace(ws, user, -static_cast<int64_t>(sys / 2) - 1, opgen_rt::CoreOrder::IN_ORDER);
      th::ExpectFault(r, "system workspace", "workspace_write", -1, 2, (where + " GlobalTensor write").c_str());
      // Red zones: a raw byte just past the user workspace, one 4000 bytes past it, one before the start.
      int32_t seen = 0;
      for (int64_t off : {int64_t{0}, int64_t{4000}}) {
        r = RunPeek(ws, sys, user, 2, off, seen);
        th::ExpectFault(r, "GM bounds (raw pointer)", "sys_peek", 0, 2, (where + " past the workspace").c_str());
        TH_CHECK(th::Contains(r.fault, "past the end of region \"system workspace\" / \"workspace\""), "%s: %s",
                 where.c_str(), r.fault.c_str());
      }
      r = RunPeek(ws, sys, user, 3, 1, seen);
      th::ExpectFault(r, "GM bounds (raw pointer)", "sys_peek", 0, 2, (where + " before the workspace").c_str());
      TH_CHECK(th::Contains(r.fault, "before the start of region \"system workspace\""), "%s: %s", where.c_str(),
               r.fault.c_str());
      // A faulted launch that wrote raw bytes into the system workspace leaves no stale bytes either.
      r = RunPeek(ws, sys, user, 1, 4096 + 13, seen);
      TH_CHECK(r.ok, "%s: %s", where.c_str(), r.fault.c_str());
      r = RunWorkspace(ws, user, -1, opgen_rt::CoreOrder::IN_ORDER);
      th::ExpectFault(r, "system workspace", "workspace_write", -1, 2, (where + " write at 0").c_str());
      r = RunPeek(ws, sys, user, 0, 4096 + 13, seen);
      TH_CHECK(r.ok && seen == 0xFF, "%s: after a fault, the system workspace reads %d: %s", where.c_str(), seen,
               r.fault.c_str());
    }
    // The caller's buffer is never written: its system part is still zeros.
    uint64_t changed = 0;
    for (uint64_t i = 0; i < sys; ++i) {
      changed += ws.data()[i] != 0;
    }
    TH_CHECK(changed == 0, "%s: %llu bytes of the caller's system workspace changed", p->name,
             static_cast<unsigned long long>(changed));
  }
  // A workspace smaller than a few pages (the whole of it system workspace, no user part): poison as well.
  for (uint64_t small : {uint64_t{64}, uint64_t{5000}}) {
    th::Gm ws(small, "ws");
    std::memset(ws.data(), 0, small);
    for (int64_t off : {int64_t{0}, static_cast<int64_t>(small) - 1}) {
      int32_t seen = 0;
      opgen_rt::LaunchResult r = RunPeek(ws, small, 0, 1, off, seen);
      TH_CHECK(r.ok && seen == 0x5A, "small system workspace %llu: raw write read back %d: %s",
               static_cast<unsigned long long>(small), seen, r.fault.c_str());
      r = RunPeek(ws, small, 0, 0, off, seen);
      TH_CHECK(r.ok && seen == 0xFF, "small system workspace %llu: byte %lld reads %d: %s",
               static_cast<unsigned long long>(small), static_cast<long long>(off), seen, r.fault.c_str());
    }
  }
  th::UseProduct(th::Ascend910B());
}

}  // namespace

int main() {
  th::UseProduct(th::Ascend910B());
  CheckSyncRounds();
  CheckOrders();
  CheckAtomic<float, false>("float", 300);
  CheckAtomic<float, true>("float_pad", 48);
  CheckAtomic<half, false>("half", 300);        // sums up to 3 + 300 * 3 + 150: exact in half
  CheckAtomic<bfloat16_t, true>("bf16", 40);    // sums up to 2 + 40 * 3 + 20 = 142: exact in bf16
  CheckAtomic<int32_t, false>("int32", 64);
  CheckAtomic<int16_t, true>("int16", 64);
  th::UseProduct(th::Ascend910());
  CheckAtomic<float, false>("float_910", 32);
  th::UseProduct(th::Ascend910B());
  CheckHardwareSyncAllUnsupported();
  CheckSoftwareSyncAll();
  CheckSystemWorkspace();
  CheckSystemWorkspacePoison();
  return th::Finish("sync_atomic");
}
