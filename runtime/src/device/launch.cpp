// ascend-opgen host emulation: RunKernel, core scheduling, SyncAll. Hand-written runtime code.
#include "launch.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <new>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

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
// The keys registered by RegisterBuiltTilingKeys (at library load, before any launch); empty: no filter.
std::vector<uint64_t> &BuiltTilingKeys() {
  static std::vector<uint64_t> keys;
  return keys;
}

// "" when a launch of `key` may run; else the fault detail.
std::string UnbuiltTilingKey(uint64_t key) {
  const std::vector<uint64_t> &built = BuiltTilingKeys();
  if (built.empty() || std::find(built.begin(), built.end(), key) != built.end()) {
    return "";
  }
  std::string list;
  for (uint64_t k : built) {
    list += (list.empty() ? "" : ", ") + std::to_string(k);
  }
  return "tiling key " + std::to_string(key) + " is not one of the keys this kernel was compiled for (" + list +
         ", a build with the OPGEN_TILING_KEYS filter): the binary holds no code for it; build without the "
         "filter, or with this key";
}
}  // namespace

bool RegisterBuiltTilingKeys(const uint64_t *keys, size_t count) {
  BuiltTilingKeys().assign(keys, keys + count);
  return true;
}

namespace {
// UB arenas (and their shadows) are reused across cores and launches: fresh pages would be zero-filled
// by the kernel on every core start, which costs more than the emulated work of a small kernel.
std::mutex g_arenaMu;
std::vector<std::pair<uint64_t, std::unique_ptr<uint8_t[]>>> g_arenas;
constexpr size_t kMaxPooledArenas = 160;  // UB, its shadow and the pipe-model records of ~48 cores

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

// Staging buffers are pooled too: fresh pages for a large tensor cost more than copying it.
std::mutex g_stageMu;
std::vector<std::pair<uint64_t, std::unique_ptr<uint8_t[]>>> g_stages;
constexpr size_t kMaxPooledStages = 16;
constexpr uint64_t kMaxPooledStageBytes = uint64_t{1} << 29;  // 512 MiB

// A buffer of at least `bytes` bytes (its capacity in `capacity`); nullptr when memory runs out.
std::unique_ptr<uint8_t[]> TakeStage(uint64_t bytes, uint64_t &capacity) {
  {
    std::lock_guard<std::mutex> lock(g_stageMu);
    auto best = g_stages.end();
    for (auto it = g_stages.begin(); it != g_stages.end(); ++it) {
      if (it->first >= bytes && it->first <= 2 * bytes + 65536 && (best == g_stages.end() || it->first < best->first)) {
        best = it;
      }
    }
    if (best != g_stages.end()) {
      capacity = best->first;
      std::unique_ptr<uint8_t[]> s = std::move(best->second);
      g_stages.erase(best);
      return s;
    }
  }
  capacity = bytes;
  return std::unique_ptr<uint8_t[]>(new (std::nothrow) uint8_t[bytes]);
}

void ReturnStage(uint64_t capacity, std::unique_ptr<uint8_t[]> s) {
  if (!s) {
    return;
  }
  std::lock_guard<std::mutex> lock(g_stageMu);
  uint64_t pooled = 0;
  for (const auto &e : g_stages) {
    pooled += e.first;
  }
  if (g_stages.size() < kMaxPooledStages && pooled + capacity <= kMaxPooledStageBytes) {
    g_stages.emplace_back(capacity, std::move(s));
  }
}

// The byte fresh device memory holds (aclrtMalloc in runtime/src/host/acl_runtime.cpp): the system
// workspace is staged as this.
constexpr uint8_t kPoisonByte = 0xFF;
}  // namespace

// The staging area of a system-workspace group, kept across launches so that the (16 MiB) system workspace
// costs nothing per launch. One private mapping laid out as
//   [page][red zone][system workspace][user workspace][red zone]
// where the whole pages inside the system workspace ([mapLo, mapHi)) are a private (copy-on-write) mapping
// of a memory file full of poison bytes: the kernel reads poison there without anyone writing it. A kernel
// write through GlobalTensor / DataCopy faults before it happens (core.cpp, rule "system workspace"); a write
// through a raw __gm__ pointer lands in a private copy of the page, which the release drops
// (MADV_DONTNEED: the page reads the file's poison again), so no launch sees another's bytes. The partial
// pages at both ends of the system workspace are plain memory, poisoned again at every launch. Linux only;
// elsewhere (or when the mapping fails) the group is staged in a plain buffer with its system part poisoned.
struct SysStage {
  uint8_t *start = nullptr;  // the mapping (page aligned)
  uint64_t length = 0;       // its bytes
  uint64_t sysBytes = 0;     // the system workspace bytes it is laid out for
  uint64_t userCap = 0;      // the user workspace bytes it has room for
  uint8_t *mapLo = nullptr;  // the poison-file pages
  uint8_t *mapHi = nullptr;
  uint64_t pageBytes = 0;
  // Where the system workspace starts when the caller's workspace is at `orig` (same address modulo
  // kStageAlign, as every staged copy).
  uint8_t *BaseFor(const uint8_t *orig, uint64_t redZone, uint64_t align) const {
    return start + pageBytes + redZone + reinterpret_cast<uintptr_t>(orig) % align;
  }
};

namespace {
#if defined(__linux__)
std::mutex g_sysMu;
std::vector<SysStage *> g_sysStages;  // free staging areas
constexpr size_t kMaxPooledSysStages = 4;
int g_poisonFd = -1;                   // the memory file of poison bytes
uint64_t g_poisonBytes = 0;            // its size

// A memory file of at least `bytes` poison bytes (-1 when the system has none); call with g_sysMu held.
int PoisonFileLocked(uint64_t bytes) {
  if (g_poisonFd < 0) {
    g_poisonFd = memfd_create("opgen-system-workspace", MFD_CLOEXEC);
    if (g_poisonFd < 0) {
      return -1;
    }
  }
  if (g_poisonBytes < bytes) {
    if (ftruncate(g_poisonFd, static_cast<off_t>(bytes)) != 0) {
      return -1;
    }
    std::vector<uint8_t> chunk(uint64_t{1} << 20, kPoisonByte);
    for (uint64_t at = g_poisonBytes; at < bytes;) {
      const uint64_t n = std::min<uint64_t>(chunk.size(), bytes - at);
      const ssize_t w = pwrite(g_poisonFd, chunk.data(), n, static_cast<off_t>(at));
      if (w <= 0) {
        return -1;
      }
      at += static_cast<uint64_t>(w);
    }
    g_poisonBytes = bytes;
  }
  return g_poisonFd;
}

void FreeSysStage(SysStage *s) {
  munmap(s->start, s->length);
  delete s;
}

// A staging area for `sysBytes` of system workspace and `userBytes` of user workspace; nullptr when the
// system cannot map one (the caller stages the group in a plain buffer).
SysStage *TakeSysStage(uint64_t sysBytes, uint64_t userBytes, uint64_t redZone, uint64_t align) {
  std::lock_guard<std::mutex> lock(g_sysMu);
  auto best = g_sysStages.end();
  for (auto it = g_sysStages.begin(); it != g_sysStages.end(); ++it) {
    const SysStage &s = **it;
    if (s.sysBytes == sysBytes && s.userCap >= userBytes && s.userCap <= 2 * userBytes + (uint64_t{1} << 20) &&
        (best == g_sysStages.end() || s.userCap < (*best)->userCap)) {
      best = it;
    }
  }
  if (best != g_sysStages.end()) {
    SysStage *s = *best;
    g_sysStages.erase(best);
    return s;
  }
  const long page = sysconf(_SC_PAGESIZE);
  if (page <= 0 || align > static_cast<uint64_t>(page)) {
    return nullptr;
  }
  const uint64_t pageBytes = static_cast<uint64_t>(page);
  auto roundUp = [&](uint64_t n) { return (n + pageBytes - 1) / pageBytes * pageBytes; };
  const uint64_t redZonePages = roundUp(redZone);
  // The system workspace starts in the page after [page][red zone] (at most `align` - 1 bytes into it).
  if (redZonePages != redZone || sysBytes < 3 * pageBytes) {
    return nullptr;  // too small to be worth a mapping
  }
  const uint64_t length = roundUp(pageBytes + redZone + align + sysBytes + userBytes + redZone);
  void *p = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    return nullptr;
  }
  std::unique_ptr<SysStage> s(new SysStage());
  s->start = static_cast<uint8_t *>(p);
  s->length = length;
  s->sysBytes = sysBytes;
  s->userCap = length - (pageBytes + redZone + align + sysBytes + redZone);
  s->pageBytes = pageBytes;
  // Whole pages of [base, base + sysBytes) for any base offset in [0, align): from the page after the first.
  s->mapLo = s->start + pageBytes + redZone + pageBytes;
  s->mapHi = s->start + pageBytes + redZone + sysBytes / pageBytes * pageBytes;
  const int fd = PoisonFileLocked(static_cast<uint64_t>(s->mapHi - s->mapLo));
  if (fd < 0 || mmap(s->mapLo, static_cast<size_t>(s->mapHi - s->mapLo), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
    munmap(p, length);
    return nullptr;
  }
  return s.release();
}
#else
SysStage *TakeSysStage(uint64_t, uint64_t, uint64_t, uint64_t) { return nullptr; }
#endif
}  // namespace

void SysStageDeleter::operator()(SysStage *s) const {
#if defined(__linux__)
  if (s == nullptr) {
    return;
  }
  // Drop the private copies of pages a raw pointer wrote: they read the poison file again.
  if (madvise(s->mapLo, static_cast<size_t>(s->mapHi - s->mapLo), MADV_DONTNEED) != 0) {
    FreeSysStage(s);
    return;
  }
  std::lock_guard<std::mutex> lock(g_sysMu);
  if (g_sysStages.size() < kMaxPooledSysStages && s->userCap <= (uint64_t{1} << 28)) {
    g_sysStages.push_back(s);
  } else {
    FreeSysStage(s);
  }
#else
  (void)s;
#endif
}

namespace {
// The canary of the red zones: bytes that no plain value of interest (0, -1, NaN poison, 1.0) contains.
constexpr uint8_t kCanary[8] = {0xDE, 0xAD, 0xBE, 0xEF, 0xCA, 0xFE, 0xBA, 0xBE};

void FillCanary(uint8_t *p, uint64_t bytes) {
  uint64_t i = 0;
  for (; i + sizeof(kCanary) <= bytes; i += sizeof(kCanary)) {
    std::memcpy(p + i, kCanary, sizeof(kCanary));  // one 8-byte store per word
  }
  for (; i < bytes; ++i) {
    p[i] = kCanary[i % sizeof(kCanary)];
  }
}

// First and last byte of [p, p + bytes) that differ from the canary, and how many do; false when none.
bool CanaryBroken(const uint8_t *p, uint64_t bytes, uint64_t &first, uint64_t &last, uint64_t &count) {
  count = 0;
  for (uint64_t i = 0; i < bytes; i += sizeof(kCanary)) {
    if (std::memcmp(p + i, kCanary, sizeof(kCanary)) == 0) {
      continue;  // the common case: one 8-byte compare per word
    }
    for (uint64_t k = i; k < i + sizeof(kCanary) && k < bytes; ++k) {
      if (p[k] != kCanary[k % sizeof(kCanary)]) {
        if (count == 0) {
          first = k;
        }
        last = k;
        ++count;
      }
    }
  }
  return count > 0;
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
  regions_ = request_.regions;
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
    c->regions = &regions_;
    c->probe = request_.probe;
    c->probeMaxAccesses = request_.probeMaxAccesses;
    if (c->probe) {
      c->probeSpans.resize(regions_.size());
      for (size_t k = 0; k < regions_.size(); ++k) {
        c->probeSpans[k].core = i;
        c->probeSpans[k].region = k;
      }
    }
    if (!c->probe) {
      c->TimeStart();  // probe mode keeps no pipe timeline (its copies move nothing)
    }
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
    // index -1: the core is not known (a red zone found broken after a CONCURRENT launch).
    fault_ = "kernel fault [" + ruleName + "] in kernel " + request_.kernelName + " on core " +
             (index >= 0 ? std::to_string(index) : std::string("?")) + "/" + std::to_string(blockDim_) + " (" +
             (product_.name != nullptr ? product_.name : "?") + "): " + detail;
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
  if (done_ == blockDim_) {
    doneCv_.notify_all();
  }
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

bool Launch::OriginalBytes(const uint8_t *p, uint64_t n, std::vector<uint8_t> &out) const {
  for (const Staged &g : staged_) {
    if (p >= g.base && n <= g.bytes && static_cast<uint64_t>(p - g.base) <= g.bytes - n) {
      const uint64_t at = static_cast<uint64_t>(p - g.base);
      out.assign(g.orig + at, g.orig + at + n);
      // The system workspace was staged as poison, not as the caller's bytes.
      for (uint64_t k = at; k < g.sysBytes && k < at + n; ++k) {
        out[static_cast<size_t>(k - at)] = kPoisonByte;
      }
      return true;
    }
  }
  return false;
}

void Launch::Barrier(Core &core) {
  const int32_t i = static_cast<int32_t>(core.blockIdx);
  if (request_.probe) {  // probe mode runs only some cores: a barrier has no one to wait for
    ++core.epoch;
    return;
  }
  if (Sequential()) {
    // Only this core ran since the red zones were last seen intact: a broken one is its write.
    const std::string broken = RedZoneViolation();
    if (!broken.empty()) {
      throw KernelFault{rule::kGmBoundsRaw,
                        broken + " (written by core " + std::to_string(i) + " before SyncAll #" +
                            std::to_string(core.epoch + 1) + ")"};
    }
  }
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
      if (nextClaim_ < perm_.size()) {
        workers_.emplace_back([this] { Worker(); });  // this thread waits here: another runs the next cores
      }
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

void Launch::Worker() {
  for (;;) {
    int32_t index = -1;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (nextClaim_ >= perm_.size()) {
        return;
      }
      index = perm_[nextClaim_++];
    }
    CoreMain(index);
  }
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
  if (request_.probe &&
      std::find(request_.probeCores.begin(), request_.probeCores.end(), index) == request_.probeCores.end()) {
    run = false;  // probe mode runs only the listed cores
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
    if (run && request_.probe) {
      std::memset(core.ub, 0, core.ubCap);  // probe mode: every UB byte the kernel reads holds zero
    }
  }
  std::unique_ptr<uint8_t[]> pipeShadow;
  const uint64_t shadowBlocks = core.ubCap / kUbBlockBytes + 1;
  if (run) {
    // Pipe-model records, one per 32-byte UB block; InitBuffer clears the ranges it hands out.
    pipeShadow = TakeArena(PipeShadow::Bytes(shadowBlocks));
    if (!pipeShadow) {
      RecordFault(index, rule::kInternal, "cannot allocate the core's pipe-model records");
      run = false;
    } else {
      core.shadowPipes.Attach(pipeShadow.get(), shadowBlocks);
    }
  }
  if (run) {
    t_currentCore = &core;
    try {
      request_.entry(args_.data());
      core.ExitChecks();
      core.TimeFinish();
      if (Sequential()) {
        const std::string broken = RedZoneViolation();
        if (!broken.empty()) {
          throw KernelFault{rule::kGmBoundsRaw, broken + " (written by core " + std::to_string(index) +
                                                    ", the only core that ran since they were last intact)"};
        }
      }
    } catch (const KernelFault &f) {
      RecordFault(index, f.rule, f.detail);
    } catch (const ProbeStop &) {
      // probe mode: the core reached its access limit; what it touched so far is recorded
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
  core.shadowPipes = PipeShadow{};
  ReturnArena(core.ubCap + 1, std::move(ub));
  ReturnArena(core.ubCap + 1, std::move(shadow));
  ReturnArena(PipeShadow::Bytes(shadowBlocks), std::move(pipeShadow));
  std::unique_lock<std::mutex> lock(mu_);
  Finish(index, lock);
}

namespace {
// The largest end address among earlier write spans, kept for the two cores with the largest ends (distinct
// cores): enough to answer "did a core other than c write past address a" exactly for any c.
struct TopEnds {
  uintptr_t hi1 = 0;
  int32_t core1 = -1;
  uintptr_t hi2 = 0;
  int32_t core2 = -1;

  void Add(uintptr_t hi, int32_t core) {
    if (core == core1) {
      hi1 = hi > hi1 ? hi : hi1;
    } else if (core1 < 0 || hi > hi1) {
      if (core1 >= 0) {
        hi2 = hi1;
        core2 = core1;
      }
      hi1 = hi;
      core1 = core;
    } else if (core == core2 || core2 < 0 || hi > hi2) {
      hi2 = (core == core2 && hi2 > hi) ? hi2 : hi;
      core2 = core;
    }
    if (core2 == core1) {
      core2 = -1;
      hi2 = 0;
    }
  }
  // A core other than `core` whose span ends after `lo` (-1 when none); `hi` receives that end.
  int32_t Other(uintptr_t lo, int32_t core, uintptr_t &hi) const {
    if (core1 >= 0 && core1 != core && hi1 > lo) {
      hi = hi1;
      return core1;
    }
    if (core2 >= 0 && core2 != core && hi2 > lo) {
      hi = hi2;
      return core2;
    }
    return -1;
  }
};
}  // namespace

// The scalar data cache (one per core, 64-byte lines) writes a dirty line back whole, so (1) two cores that
// write one line through GlobalTensor::SetValue between the same SyncAll barriers, one of them leaving it
// unflushed (no DataCacheCleanAndInvalid after its last write), may clobber each other's bytes, and (2) a
// line a core left dirty at a SyncAll is stale in GM for every other core that reads or writes it after
// that SyncAll. Not checked on Ascend910 (see Core::ScalarCacheModelled).
void Launch::CheckCacheLines() {
  struct Rec {
    uintptr_t line;
    uint32_t epoch;
    int32_t core;
    bool dirtyAtEnd;
  };
  std::vector<Rec> recs;
  for (int32_t i = 0; i < blockDim_; ++i) {
    for (const CacheLineRec &r : cores_[static_cast<size_t>(i)]->cacheHistory) {
      recs.push_back(Rec{r.line, r.epoch, i, r.dirtyAtEnd});
    }
  }
  if (recs.empty()) {
    return;
  }
  std::sort(recs.begin(), recs.end(), [](const Rec &a, const Rec &b) {
    return std::tie(a.line, a.epoch, a.core) < std::tie(b.line, b.epoch, b.core);
  });
  auto lineAt = [&](uintptr_t line, int32_t core) {
    return "the 64-byte GM line at " + cores_[static_cast<size_t>(core)]->DescribeGm(reinterpret_cast<const void *>(line));
  };
  for (size_t k = 1; k < recs.size(); ++k) {
    const Rec &a = recs[k - 1];
    const Rec &b = recs[k];
    if (a.line == b.line && a.epoch == b.epoch && a.core != b.core && (a.dirtyAtEnd || b.dirtyAtEnd)) {
      RecordFaultLocked(b.core, rule::kCacheLine,
                        "cores " + std::to_string(a.core) + " and " + std::to_string(b.core) +
                            " both wrote " + lineAt(a.line, b.core) +
                            " with GlobalTensor::SetValue between the same SyncAll barriers, and core " +
                            std::to_string(a.dirtyAtEnd ? a.core : b.core) +
                            " did not flush it (DataCacheCleanAndInvalid): its data cache writes the whole line back "
                            "later, so one core's write-back can clobber the other's (give each core its own cache "
                            "lines, or flush after writing)");
      return;
    }
  }
  // Lines left dirty at a barrier, against later accesses of other cores.
  std::vector<Rec> dirty;
  for (const Rec &r : recs) {
    if (r.dirtyAtEnd) {
      dirty.push_back(r);
    }
  }
  if (dirty.empty()) {
    return;
  }
  // Lines overlapping GM bytes [lo, hi): those starting in (lo - 64, hi).
  auto check = [&](int32_t core, uint32_t epoch, uintptr_t lo, uintptr_t hi, const char *what) {
    const uintptr_t first = lo >= kCacheLineBytes ? lo - kCacheLineBytes + 1 : 0;
    auto it = std::lower_bound(dirty.begin(), dirty.end(), first,
                               [](const Rec &r, uintptr_t line) { return r.line < line; });
    for (; it != dirty.end() && it->line < hi; ++it) {
      if (it->core != core && it->epoch < epoch) {
        RecordFaultLocked(core, rule::kCacheLine,
                          "core " + std::to_string(core) + " " + what + " " + lineAt(it->line, core) +
                              " after SyncAll #" + std::to_string(it->epoch + 1) + ", but core " +
                              std::to_string(it->core) +
                              " wrote it with GlobalTensor::SetValue before that SyncAll and did not flush it "
                              "(DataCacheCleanAndInvalid): GM holds stale bytes of the line");
        return true;
      }
    }
    return false;
  };
  for (const Rec &r : recs) {
    if (check(r.core, r.epoch, r.line, r.line + 1, "wrote")) {
      return;
    }
  }
  for (int32_t i = 0; i < blockDim_; ++i) {
    const Core &c = *cores_[static_cast<size_t>(i)];
    for (const GmReadSpan &s : c.gmReads) {
      if (s.epoch > 0 && check(i, s.epoch, s.lo, s.hi, "read")) {
        return;
      }
    }
  }
}

// Two cores writing the same GM bytes between the same pair of SyncAll barriers, unless both writes are
// atomic adds: a plain write racing with another core's plain write or atomic add.
void Launch::CheckRaces() {
  struct Span {
    uint32_t epoch;
    uintptr_t lo;
    uintptr_t hi;
    int32_t core;
    bool atomic;
  };
  std::vector<Span> spans;
  for (int32_t i = 0; i < blockDim_; ++i) {
    const Core &c = *cores_[static_cast<size_t>(i)];
    if (c.writesOverflow) {
      return;  // too many scattered writes to track: no verdict
    }
    for (const WriteSpan &w : c.writes) {
      spans.push_back(Span{w.epoch, w.lo, w.hi, i, w.atomic});
    }
  }
  std::sort(spans.begin(), spans.end(), [](const Span &a, const Span &b) {
    return std::tie(a.epoch, a.lo, a.core) < std::tie(b.epoch, b.lo, b.core);
  });
  size_t k = 0;
  while (k < spans.size()) {
    const uint32_t epoch = spans[k].epoch;
    TopEnds plain;  // earlier plain writes
    TopEnds any;    // earlier writes of either kind
    for (; k < spans.size() && spans[k].epoch == epoch; ++k) {
      const Span &s = spans[k];
      uintptr_t otherHi = 0;
      // A plain write conflicts with any other core's write; an atomic add only with another core's plain one.
      const int32_t other = s.atomic ? plain.Other(s.lo, s.core, otherHi) : any.Other(s.lo, s.core, otherHi);
      if (other >= 0) {
        const uintptr_t hi = s.hi < otherHi ? s.hi : otherHi;
        const int32_t a = std::min(other, s.core);
        const int32_t b = std::max(other, s.core);
        const std::string where = std::to_string(hi - s.lo) + " GM byte(s) at " +
                                  cores_[static_cast<size_t>(b)]->DescribeGm(reinterpret_cast<const void *>(s.lo));
        // Which of the two writes was the plain one (the other was plain too, or an atomic add).
        bool otherAtomic = true;
        if (!s.atomic) {
          uintptr_t plainHi = 0;
          otherAtomic = plain.Other(s.lo, s.core, plainHi) < 0;
        }
        std::string detail;
        if (!s.atomic && !otherAtomic) {
          detail = "cores " + std::to_string(a) + " and " + std::to_string(b) + " both wrote " + where +
                   " between the same SyncAll barriers without SetAtomicAdd";
        } else {
          const int32_t plainCore = s.atomic ? other : s.core;
          const int32_t atomicCore = s.atomic ? s.core : other;
          detail = "core " + std::to_string(plainCore) + " wrote " + where + " with a plain (non-atomic) write while core " +
                   std::to_string(atomicCore) +
                   " added to the same bytes with SetAtomicAdd, between the same SyncAll barriers (the plain write "
                   "and the atomic add race: separate them with SyncAll, or make both atomic adds)";
        }
        RecordFaultLocked(b, rule::kDataRace, detail);
        return;
      }
      if (!s.atomic) {
        plain.Add(s.hi, s.core);
      }
      any.Add(s.hi, s.core);
    }
  }
}

bool Launch::Stage(std::string &error) {
  std::vector<size_t> order;
  for (size_t i = 0; i < regions_.size(); ++i) {
    if (regions_[i].base != nullptr && regions_[i].bytes > 0) {
      order.push_back(i);
    }
  }
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::less<const uint8_t *>()(regions_[a].base, regions_[b].base);
  });
  std::vector<int32_t> groupOf(regions_.size(), -1);
  for (size_t k = 0; k < order.size(); ++k) {
    const GmRegion &r = regions_[order[k]];
    const uintptr_t lo = reinterpret_cast<uintptr_t>(r.base);
    const uintptr_t hi = lo + r.bytes;
    // The user workspace follows the system workspace directly (GetUserWorkspace adds the reserve to the
    // workspace argument), so the two stay one staged group.
    const bool userAfterSystem = !staged_.empty() && r.name == "workspace" &&
                                 staged_.back().name.find("\"system workspace\"") != std::string::npos;
    if (!staged_.empty() && (lo < reinterpret_cast<uintptr_t>(staged_.back().orig) + staged_.back().bytes ||
                             (userAfterSystem && lo == reinterpret_cast<uintptr_t>(staged_.back().orig) +
                                                           staged_.back().bytes))) {
      Staged &g = staged_.back();  // overlaps the previous group: extend it
      const uintptr_t gLo = reinterpret_cast<uintptr_t>(g.orig);
      if (hi > gLo + g.bytes) {
        g.bytes = hi - gLo;
      }
      g.writable = g.writable || r.writable;
      g.name += " / \"" + r.name + "\"";
      // Only the user workspace right after the system workspace keeps the group's system part poisoned.
      const bool userOnly = userAfterSystem && g.bytes == g.sysBytes + r.bytes && lo == gLo + g.sysBytes;
      if (!userOnly) {
        g.sysBytes = 0;
      }
    } else {
      Staged g;
      g.orig = r.base;
      g.bytes = r.bytes;
      g.writable = r.writable;
      g.name = "\"" + r.name + "\"";
      g.sysBytes = r.name == "system workspace" && !r.writable ? r.bytes : 0;
      staged_.push_back(std::move(g));
    }
    groupOf[order[k]] = static_cast<int32_t>(staged_.size()) - 1;
  }
  for (Staged &g : staged_) {
    if (g.sysBytes > 0) {
      g.sysStage.reset(TakeSysStage(g.sysBytes, g.bytes - g.sysBytes, kRedZoneBytes, kStageAlign));
    }
    if (g.sysStage) {
      const SysStage &s = *g.sysStage;
      g.base = s.BaseFor(g.orig, kRedZoneBytes, kStageAlign);
      // The partial pages at both ends of the system workspace (the rest maps the poison file).
      std::memset(g.base, kPoisonByte, static_cast<size_t>(s.mapLo - g.base));
      std::memset(s.mapHi, kPoisonByte, static_cast<size_t>(g.base + g.sysBytes - s.mapHi));
    } else {
      const uint64_t total = g.bytes + 2 * kRedZoneBytes + kStageAlign;
      g.store = TakeStage(total, g.capacity);
      if (!g.store) {
        error = "cannot allocate " + std::to_string(total) + " bytes to stage GM region " + g.name;
        staged_.clear();
        return false;
      }
      const uintptr_t want = reinterpret_cast<uintptr_t>(g.orig) % kStageAlign;
      uintptr_t b = reinterpret_cast<uintptr_t>(g.store.get()) + kRedZoneBytes;
      b += (want + kStageAlign - b % kStageAlign) % kStageAlign;
      g.base = reinterpret_cast<uint8_t *>(b);
      // The system workspace holds the AscendC library's bytes: poison to the kernel, not the caller's bytes.
      std::memset(g.base, kPoisonByte, g.sysBytes);
    }
    FillCanary(g.base - kRedZoneBytes, kRedZoneBytes);
    std::memcpy(g.base + g.sysBytes, g.orig + g.sysBytes, g.bytes - g.sysBytes);
    FillCanary(g.base + g.bytes, kRedZoneBytes);
  }
  // Kernel arguments (and list descriptors' addresses) that point into (or one past) a group move with it;
  // others (nullptr, the data pointer of an empty tensor) stay.
  auto moved = [this](uintptr_t a) -> uintptr_t {
    const Staged *hit = nullptr;
    for (const Staged &g : staged_) {
      const uintptr_t lo = reinterpret_cast<uintptr_t>(g.orig);
      if (a != 0 && a >= lo && a < lo + g.bytes) {
        hit = &g;
        break;
      }
      if (a != 0 && a == lo + g.bytes && hit == nullptr) {
        hit = &g;  // one past the end, unless another group starts here
      }
    }
    return hit == nullptr ? a : reinterpret_cast<uintptr_t>(hit->base) + (a - reinterpret_cast<uintptr_t>(hit->orig));
  };
  for (uint8_t *&arg : args_) {
    arg = reinterpret_cast<uint8_t *>(moved(reinterpret_cast<uintptr_t>(arg)));
  }
  for (size_t i = 0; i < regions_.size(); ++i) {
    if (groupOf[i] >= 0) {
      Staged &g = staged_[static_cast<size_t>(groupOf[i])];
      const uint64_t offset = static_cast<uint64_t>(regions_[i].base - g.orig);
      if (regions_[i].writable) {
        g.writeBack.emplace_back(offset, regions_[i].bytes);
      }
      regions_[i].base = g.base + offset;
    }
  }
  // A list descriptor's pointer table moves with the regions it points into, in the staged copy only (the
  // descriptor is read-only: the caller's bytes keep the caller's addresses).
  for (size_t i = 0; i < regions_.size(); ++i) {
    const GmRegion &r = regions_[i];
    if (groupOf[i] < 0 || r.pointerTableOffset >= r.bytes) {
      continue;
    }
    for (uint64_t off = r.pointerTableOffset; off + sizeof(uint64_t) <= r.bytes; off += sizeof(uint64_t)) {
      uint64_t word = 0;
      std::memcpy(&word, r.base + off, sizeof(word));
      word = static_cast<uint64_t>(moved(static_cast<uintptr_t>(word)));
      std::memcpy(r.base + off, &word, sizeof(word));
    }
  }
  return true;
}

void Launch::Unstage() {
  for (Staged &g : staged_) {
    for (const auto &[offset, bytes] : g.writeBack) {
      std::memcpy(g.orig + offset, g.base + offset, bytes);
    }
    ReturnStage(g.capacity, std::move(g.store));
    g.sysStage.reset();  // drops the pages a raw pointer wrote into the system workspace
  }
  staged_.clear();
}

std::string Launch::RedZoneViolation() const {
  for (const Staged &g : staged_) {
    uint64_t first = 0, last = 0, count = 0;
    const bool before = CanaryBroken(g.base - kRedZoneBytes, kRedZoneBytes, first, last, count);
    if (before || CanaryBroken(g.base + g.bytes, kRedZoneBytes, first, last, count)) {
      const int64_t lo = before ? static_cast<int64_t>(first) - static_cast<int64_t>(kRedZoneBytes)
                                : static_cast<int64_t>(g.bytes + first);
      const int64_t hi = before ? static_cast<int64_t>(last) - static_cast<int64_t>(kRedZoneBytes)
                                : static_cast<int64_t>(g.bytes + last);
      return "a write through a raw __gm__ pointer changed " + std::to_string(count) + " byte(s) " +
             (before ? "before the start" : "past the end") + " of region " + g.name + " (" +
             std::to_string(g.bytes) + " bytes), at byte offsets " + std::to_string(lo) + ".." + std::to_string(hi) +
             (before ? std::string() : " (" + std::to_string(first) + " bytes past its end)") +
             "; GlobalTensor and DataCopy accesses are bounds-checked as they happen, raw pointer writes only by "
             "the " +
             std::to_string(kRedZoneBytes) + "-byte red zones around every GM region";
    }
  }
  return std::string();
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
  const std::string unbuilt = UnbuiltTilingKey(request_.tilingKey);
  if (!unbuilt.empty()) {
    result.ok = false;
    result.fault = "kernel fault [" + std::string(rule::kTilingKeyNotBuilt) + "] in kernel " + request_.kernelName +
                   " on core ?/" + std::to_string(blockDim_) + " (" +
                   (product_.name != nullptr ? product_.name : "?") + "): " + unbuilt;
    return result;
  }
  std::string stageError;
  if (!request_.probe && !Stage(stageError)) {  // probe regions are reserved address space: nothing to copy
    result.ok = false;
    result.fault = "kernel fault [" + std::string(rule::kInternal) + "] in kernel " + request_.kernelName +
                   " on core ?/" + std::to_string(blockDim_) + " (" +
                   (product_.name != nullptr ? product_.name : "?") + "): " + stageError;
    return result;
  }
  if (Sequential()) {
    // The calling thread works through the order; Barrier starts a worker whenever a core blocks in SyncAll
    // with cores left that no thread has taken.
    Worker();
    std::vector<std::thread> workers;
    {
      std::unique_lock<std::mutex> lock(mu_);
      doneCv_.wait(lock, [&] { return done_ == blockDim_; });
      workers.swap(workers_);  // every core is done: no Barrier starts another
    }
    for (auto &t : workers) {
      t.join();
    }
  } else {
    // Every core runs freely: one thread each, the first on the calling thread.
    std::vector<std::thread> threads;
    threads.reserve(static_cast<size_t>(blockDim_));
    for (int32_t i = 1; i < blockDim_; ++i) {
      threads.emplace_back([this, i] { CoreMain(i); });
    }
    CoreMain(0);
    for (auto &t : threads) {
      t.join();
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!faulted_) {
      const std::string broken = RedZoneViolation();
      if (!broken.empty()) {
        RecordFaultLocked(-1, rule::kGmBoundsRaw,
                          broken + (Sequential() ? std::string(" (found after the launch)")
                                                 : " (the cores ran concurrently, so the writing core is not "
                                                   "known; an in_order run names it)"));
      }
    }
    if (!faulted_ && !request_.probe) {  // the probe moves no data: races and stale lines do not apply
      CheckRaces();
    }
    if (!faulted_ && !request_.probe) {
      CheckCacheLines();
    }
  }
  Unstage();
  result.ok = !faulted_;
  result.fault = fault_;
  for (const auto &c : cores_) {
    result.cores.push_back(c->stats);
    if (c->probeStopped) {
      result.probeStopped.push_back(static_cast<int32_t>(c->blockIdx));
    }
    for (const ProbeSpan &span : c->probeSpans) {
      if (span.readLo <= span.readHi || span.writeLo <= span.writeHi) {
        result.probe.push_back(span);
      }
    }
    for (const std::string &note : c->notes) {
      if (result.notes.size() < 32) {
        result.notes.push_back(note);
      }
    }
  }
  return result;
}

}  // namespace device

bool ListingTilingKeys() {
  const char *path = std::getenv("OPGEN_RT_LIST_TILING_KEYS");
  return path != nullptr && *path != '\0';
}

namespace {
// The tiling-key listing mode (environment variable OPGEN_RT_LIST_TILING_KEYS=<file>, set by `opgen check
// --sanitize` for its key pre-pass, codegen/check/driver.py): a launch appends its tiling key, one decimal
// line, to <file> and returns without running the kernel (no core runs, nothing is staged or written; the
// launch reports success). The keys a call launches are fixed by its host code (tiling), before any kernel
// runs, so the listing is the same as a real run's. Returns whether the launch was listed instead of run.
bool ListedInsteadOfRun(uint64_t tilingKey) {
  if (!ListingTilingKeys()) {
    return false;
  }
  const char *path = std::getenv("OPGEN_RT_LIST_TILING_KEYS");
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  if (std::FILE *f = std::fopen(path, "a")) {
    std::fprintf(f, "%llu\n", static_cast<unsigned long long>(tilingKey));
    std::fclose(f);
  }
  return true;
}
}  // namespace

LaunchResult RunKernel(const LaunchRequest &request) {
  if (ListedInsteadOfRun(request.tilingKey)) {
    return LaunchResult{};
  }
  device::Launch launch(request, CurrentProduct(), GetCoreOrder(), GetCoreOrderSeed());
  return launch.Run();
}

}  // namespace opgen_rt
