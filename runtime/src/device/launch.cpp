// ascend-opgen host emulation: RunKernel, core scheduling, SyncAll. Hand-written runtime code.
#include "launch.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <new>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

namespace opgen_rt {

namespace {
std::atomic<int32_t> g_coreOrder{static_cast<int32_t>(CoreOrder::IN_ORDER)};
std::atomic<uint64_t> g_coreOrderSeed{0};

// splitmix64: a small, fully specified generator, so SHUFFLE orders are the same on every platform.
uint64_t SplitMix64(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
}  // namespace

void SetCoreOrder(CoreOrder order, uint64_t seed) {
  g_coreOrder.store(static_cast<int32_t>(order));
  g_coreOrderSeed.store(seed);
}

CoreOrder GetCoreOrder() { return static_cast<CoreOrder>(g_coreOrder.load()); }

uint64_t GetCoreOrderSeed() { return g_coreOrderSeed.load(); }

namespace device {

extern thread_local Core *t_currentCore;

namespace {
// UB arenas (and their shadows) are reused across cores and launches: fresh pages would be zero-filled
// by the kernel on every core start, which costs more than the emulated work of a small kernel.
std::mutex g_arenaMu;
std::vector<std::pair<uint64_t, std::unique_ptr<uint8_t[]>>> g_arenas;
constexpr size_t kMaxPooledArenas = 64;

std::unique_ptr<uint8_t[]> TakeArena(uint64_t bytes) {
  {
    std::lock_guard<std::mutex> lock(g_arenaMu);
    for (auto it = g_arenas.begin(); it != g_arenas.end(); ++it) {
      if (it->first == bytes) {
        std::unique_ptr<uint8_t[]> a = std::move(it->second);
        g_arenas.erase(it);
        return a;
      }
    }
  }
  return std::unique_ptr<uint8_t[]>(new (std::nothrow) uint8_t[bytes]);
}

void ReturnArena(uint64_t bytes, std::unique_ptr<uint8_t[]> a) {
  if (!a) {
    return;
  }
  std::lock_guard<std::mutex> lock(g_arenaMu);
  if (g_arenas.size() < kMaxPooledArenas) {
    g_arenas.emplace_back(bytes, std::move(a));
  }
}
}  // namespace

Launch::Launch(const LaunchRequest &request, const ProductInfo &product, CoreOrder order, uint64_t seed)
    : request_(request), product_(product), order_(order), blockDim_(static_cast<int32_t>(request.blockDim)) {
  perm_.resize(static_cast<size_t>(blockDim_));
  for (int32_t i = 0; i < blockDim_; ++i) {
    perm_[static_cast<size_t>(i)] = i;
  }
  if (order_ == CoreOrder::REVERSED) {
    std::reverse(perm_.begin(), perm_.end());
  } else if (order_ == CoreOrder::SHUFFLE) {
    uint64_t state = seed;
    for (int32_t i = blockDim_ - 1; i > 0; --i) {  // Fisher-Yates
      const int32_t j = static_cast<int32_t>(SplitMix64(state) % static_cast<uint64_t>(i + 1));
      std::swap(perm_[static_cast<size_t>(i)], perm_[static_cast<size_t>(j)]);
    }
  }
  pos_.resize(perm_.size());
  for (size_t k = 0; k < perm_.size(); ++k) {
    pos_[static_cast<size_t>(perm_[k])] = static_cast<int32_t>(k);
  }
  args_ = request_.args;
  const uint64_t cap = product_.ubBytes > product_.ubReservedBytes ? product_.ubBytes - product_.ubReservedBytes : 0;
  for (int32_t i = 0; i < blockDim_; ++i) {
    std::unique_ptr<Core> c(new Core());
    c->ubCap = cap;
    c->aborted = &aborted_;
    c->blockIdx = i;
    c->blockNum = blockDim_;
    c->tilingKey = request_.tilingKey;
    c->product = &product_;
    c->launch = this;
    c->regions = &request_.regions;
    cores_.push_back(std::move(c));
    turnCv_.emplace_back(new std::condition_variable());
  }
  state_.assign(static_cast<size_t>(blockDim_), State::kRunnable);
  syncCalls_.assign(static_cast<size_t>(blockDim_), 0);
  running_ = blockDim_ > 0 ? perm_[0] : -1;
}

void Launch::RecordFaultLocked(int32_t index, const std::string &ruleName, const std::string &detail) {
  if (!faulted_) {
    faulted_ = true;
    fault_ = "kernel fault [" + ruleName + "] in kernel " + request_.kernelName + " on core " + std::to_string(index) +
             "/" + std::to_string(blockDim_) + " (" + (product_.name != nullptr ? product_.name : "?") +
             "): " + detail;
  }
  aborted_.store(true);
  for (auto &cv : turnCv_) {
    cv->notify_all();
  }
  barrierCv_.notify_all();
}

void Launch::RecordFault(int32_t index, const std::string &ruleName, const std::string &detail) {
  std::lock_guard<std::mutex> lock(mu_);
  RecordFaultLocked(index, ruleName, detail);
}

// Sequential modes: give the turn to the next runnable core after `from` in the order (cyclically).
void Launch::HandOver(int32_t from) {
  const int32_t n = blockDim_;
  const int32_t start = pos_[static_cast<size_t>(from)];
  for (int32_t step = 1; step <= n; ++step) {
    const int32_t cand = perm_[static_cast<size_t>((start + step) % n)];
    if (state_[static_cast<size_t>(cand)] == State::kRunnable) {
      running_ = cand;
      turnCv_[static_cast<size_t>(cand)]->notify_all();
      return;
    }
  }
  running_ = -1;
}

void Launch::Finish(int32_t index, std::unique_lock<std::mutex> &lock) {
  (void)lock;
  state_[static_cast<size_t>(index)] = State::kDone;
  ++done_;
  if (arrived_ > 0 && !aborted_.load()) {
    RecordFaultLocked(index, rule::kSyncAll,
                      "core " + std::to_string(index) + " exited after " +
                          std::to_string(syncCalls_[static_cast<size_t>(index)]) + " SyncAll call(s) while " +
                          std::to_string(arrived_) + " core(s) wait at SyncAll #" +
                          std::to_string(syncCalls_[static_cast<size_t>(index)] + 1) +
                          " (every core of the launch must call SyncAll the same number of times)");
  }
  if (Sequential() && running_ == index) {
    HandOver(index);
  }
}

void Launch::Barrier(Core &core) {
  const int32_t i = static_cast<int32_t>(core.blockIdx);
  std::unique_lock<std::mutex> lock(mu_);
  if (aborted_.load()) {
    throw KernelAbort{};
  }
  if (done_ > 0) {
    int32_t exited = -1;
    for (int32_t k = 0; k < blockDim_; ++k) {
      if (state_[static_cast<size_t>(k)] == State::kDone) {
        exited = k;
        break;
      }
    }
    throw KernelFault{rule::kSyncAll,
                      "core " + std::to_string(i) + " waits at SyncAll #" +
                          std::to_string(syncCalls_[static_cast<size_t>(i)] + 1) + " but core " +
                          std::to_string(exited) + " already exited after " +
                          std::to_string(syncCalls_[static_cast<size_t>(exited)]) +
                          " SyncAll call(s) (every core of the launch must call SyncAll the same number of times)"};
  }
  ++syncCalls_[static_cast<size_t>(i)];
  ++arrived_;
  if (Sequential()) {
    state_[static_cast<size_t>(i)] = State::kAtBarrier;
    if (arrived_ == blockDim_) {
      // Everyone arrived: release, and run again in the order from its first core.
      arrived_ = 0;
      ++generation_;
      for (auto &s : state_) {
        if (s == State::kAtBarrier) {
          s = State::kRunnable;
        }
      }
      running_ = perm_[0];
      turnCv_[static_cast<size_t>(running_)]->notify_all();
    } else {
      HandOver(i);
    }
    turnCv_[static_cast<size_t>(i)]->wait(lock, [&] { return running_ == i || aborted_.load(); });
    if (aborted_.load()) {
      throw KernelAbort{};
    }
  } else {
    const uint64_t gen = generation_;
    if (arrived_ == blockDim_) {
      arrived_ = 0;
      ++generation_;
      barrierCv_.notify_all();
    } else {
      barrierCv_.wait(lock, [&] { return generation_ != gen || aborted_.load(); });
      if (aborted_.load()) {
        throw KernelAbort{};
      }
    }
  }
  ++core.epoch;
}

void Launch::CoreMain(int32_t index) {
  Core &core = *cores_[static_cast<size_t>(index)];
  bool run = true;
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (Sequential()) {
      turnCv_[static_cast<size_t>(index)]->wait(lock, [&] { return running_ == index || aborted_.load(); });
    }
    run = !aborted_.load();
  }
  std::unique_ptr<uint8_t[]> ub;
  std::unique_ptr<uint8_t[]> shadow;
  if (run) {
    // The arena is only touched where InitBuffer places buffers, so untouched pages cost nothing.
    ub = TakeArena(core.ubCap + 1);
    shadow = TakeArena(core.ubCap + 1);
    if (!ub || !shadow) {
      RecordFault(index, rule::kInternal, "cannot allocate the core's UB arena");
      run = false;
    }
    core.ub = ub.get();
    core.shadow = shadow.get();
  }
  if (run) {
    t_currentCore = &core;
    try {
      request_.entry(args_.data());
      core.ExitChecks();
    } catch (const KernelFault &f) {
      RecordFault(index, f.rule, f.detail);
    } catch (const KernelAbort &) {
      // another core faulted; unwind quietly
    } catch (const std::exception &e) {
      RecordFault(index, rule::kInternal, std::string("unexpected host exception: ") + e.what());
    } catch (...) {
      RecordFault(index, rule::kInternal, "unexpected host exception");
    }
    t_currentCore = nullptr;
  }
  core.ub = nullptr;
  core.shadow = nullptr;
  ReturnArena(core.ubCap + 1, std::move(ub));
  ReturnArena(core.ubCap + 1, std::move(shadow));
  std::unique_lock<std::mutex> lock(mu_);
  Finish(index, lock);
}

// Two cores writing the same GM bytes between the same pair of SyncAll barriers without atomics.
void Launch::CheckRaces() {
  struct Span {
    uint32_t epoch;
    uintptr_t lo;
    uintptr_t hi;
    int32_t core;
  };
  std::vector<Span> spans;
  for (int32_t i = 0; i < blockDim_; ++i) {
    const Core &c = *cores_[static_cast<size_t>(i)];
    if (c.writesOverflow) {
      return;  // too many scattered writes to track: no verdict
    }
    for (const WriteSpan &w : c.writes) {
      spans.push_back(Span{w.epoch, w.lo, w.hi, i});
    }
  }
  std::sort(spans.begin(), spans.end(), [](const Span &a, const Span &b) {
    return std::tie(a.epoch, a.lo, a.core) < std::tie(b.epoch, b.lo, b.core);
  });
  size_t k = 0;
  while (k < spans.size()) {
    const uint32_t epoch = spans[k].epoch;
    uintptr_t maxHi = 0;
    int32_t holder = -1;
    for (; k < spans.size() && spans[k].epoch == epoch; ++k) {
      const Span &s = spans[k];
      if (holder >= 0 && s.lo < maxHi && s.core != holder) {
        const uintptr_t hi = s.hi < maxHi ? s.hi : maxHi;
        const int32_t a = std::min(holder, s.core);
        const int32_t b = std::max(holder, s.core);
        RecordFaultLocked(b, rule::kDataRace,
                          "cores " + std::to_string(a) + " and " + std::to_string(b) + " both wrote " +
                              std::to_string(hi - s.lo) + " GM byte(s) at " +
                              cores_[static_cast<size_t>(b)]->DescribeGm(reinterpret_cast<const void *>(s.lo)) +
                              " between the same SyncAll barriers without SetAtomicAdd");
        return;
      }
      if (s.hi > maxHi || holder < 0) {
        maxHi = s.hi > maxHi ? s.hi : maxHi;
        holder = s.core;
      }
    }
  }
}

LaunchResult Launch::Run() {
  LaunchResult result;
  if (blockDim_ <= 0 || request_.entry == nullptr) {
    result.ok = false;
    result.fault = "kernel fault [launch] in kernel " + request_.kernelName + " on core 0/" +
                   std::to_string(blockDim_) + " (" + (product_.name != nullptr ? product_.name : "?") + "): " +
                   (request_.entry == nullptr ? "no kernel entry" : "blockDim is 0");
    return result;
  }
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(blockDim_));
  for (int32_t i = 0; i < blockDim_; ++i) {
    threads.emplace_back([this, i] { CoreMain(i); });
  }
  for (auto &t : threads) {
    t.join();
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!faulted_) {
      CheckRaces();
    }
  }
  result.ok = !faulted_;
  result.fault = fault_;
  for (const auto &c : cores_) {
    result.cores.push_back(c->stats);
    for (const std::string &note : c->notes) {
      if (result.notes.size() < 32) {
        result.notes.push_back(note);
      }
    }
  }
  return result;
}

}  // namespace device

LaunchResult RunKernel(const LaunchRequest &request) {
  device::Launch launch(request, CurrentProduct(), GetCoreOrder(), GetCoreOrderSeed());
  return launch.Run();
}

}  // namespace opgen_rt
