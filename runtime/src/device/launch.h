// ascend-opgen host emulation: one kernel launch (private header of runtime/src/device).
//
// A launch runs blockDim emulated AI cores as host threads. In the sequential orders (IN_ORDER, REVERSED,
// SHUFFLE) the calling thread runs the cores one after another, and a core that blocks in SyncAll keeps its
// thread while a new one takes the next core (a launch without SyncAll starts no thread); exactly one core
// runs at a time: a core hands over only when it finishes or blocks in SyncAll,
// to the next runnable core in the order; when every core has arrived at the barrier it releases and the
// order starts again from its first core. In CONCURRENT mode all cores run freely. A fault in one core
// aborts the launch: every waiting core is woken and unwinds.
//
// The kernel never runs on the caller's GM buffers: every region of the request (overlapping regions, e.g.
// an in-place op's input and output, as one) is staged into a private copy with red zones of
// kRedZoneBytes canary bytes on both sides, and the writable ones are copied back after the launch. The
// system workspace (read-only to the kernel, its bytes the AscendC library's) is not copied: the kernel sees
// poison there (every byte 0xFF, as fresh device memory), whatever the caller's buffer holds; see SysStage. The
// red zones catch writes through raw __gm__ pointers, which no GlobalTensor check sees; they are verified
// whenever a core hands over in the sequential orders (so the fault names the core), and after the launch
// in CONCURRENT mode. Hand-written runtime code; not generated.
#ifndef OPGEN_RT_SRC_DEVICE_LAUNCH_H
#define OPGEN_RT_SRC_DEVICE_LAUNCH_H

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "opgen_rt/core.h"
#include "opgen_rt/device/core_state.h"

namespace opgen_rt {
namespace device {

// A pooled staging area of a system-workspace group (launch.cpp); released to the pool by the deleter.
struct SysStage;
struct SysStageDeleter {
  void operator()(SysStage *s) const;
};

class Launch {
 public:
  Launch(const LaunchRequest &request, const ProductInfo &product, CoreOrder order, uint64_t seed);
  LaunchResult Run();

  // SyncAll of core `core` (called from that core's thread).
  void Barrier(Core &core);

  const LaunchRequest &Request() const { return request_; }
  const ProductInfo &Product() const { return product_; }
  // The bytes [p, p + n) of a staged region as they were before the launch (the caller's memory, which is
  // written back only after the launch); false when p is not inside one staged region.
  bool OriginalBytes(const uint8_t *p, uint64_t n, std::vector<uint8_t> &out) const;

 private:
  enum class State : uint8_t { kRunnable, kAtBarrier, kDone };

  void CoreMain(int32_t index);
  // Sequential orders: runs the cores no thread has taken yet, in the order, one after another, until none is
  // left. A thread stays with a core that blocks in SyncAll, so Barrier starts another worker for the rest.
  void Worker();
  void Finish(int32_t index, std::unique_lock<std::mutex> &lock);
  void HandOver(int32_t from);
  void RecordFaultLocked(int32_t index, const std::string &ruleName, const std::string &detail);
  void RecordFault(int32_t index, const std::string &ruleName, const std::string &detail);
  bool Sequential() const { return order_ != CoreOrder::CONCURRENT; }
  void CheckRaces();
  void CheckCacheLines();

  // Canary bytes on each side of every staged GM region.
  static constexpr uint64_t kRedZoneBytes = 4096;
  // Staged copies keep the caller's address modulo this (device allocations are 512-byte aligned).
  static constexpr uint64_t kStageAlign = 512;

  // One staged group of overlapping GM regions.
  struct Staged {
    uint8_t *orig = nullptr;  // first byte in the caller's memory
    uint64_t bytes = 0;
    bool writable = false;    // some region of the group is writable
    // (offset from `orig`, bytes) of each writable region of the group: only these are copied back (a kernel
    // write to a read-only region faults, so the rest, such as the 16 MiB system workspace, never changes)
    std::vector<std::pair<uint64_t, uint64_t>> writeBack;
    std::unique_ptr<uint8_t[]> store;
    uint64_t capacity = 0;    // bytes of `store`
    uint8_t *base = nullptr;  // the staged copy of `orig`; red zones at [base - kRedZoneBytes, base) and after
    std::string name;         // "region \"<name>\"" (or several names) for fault messages
    // Bytes of the "system workspace" region when the group is that region at `orig`, optionally followed
    // directly by the "workspace" region, and nothing else: those bytes are staged as poison, not copied.
    uint64_t sysBytes = 0;
    std::unique_ptr<SysStage, SysStageDeleter> sysStage;  // the pooled mapping holding the group, or null
  };
  // Stages the request's regions and rewrites the kernel arguments; false (with `error`) when memory runs out.
  bool Stage(std::string &error);
  // Copies the writable regions of the staged groups back to the caller's memory and frees the copies.
  void Unstage();
  // A fault detail for the first red zone that lost a canary byte; "" when all are intact. Reads only the
  // red zones: call it while no core runs, or from the only running core (sequential orders).
  std::string RedZoneViolation() const;

  const LaunchRequest &request_;
  const ProductInfo &product_;
  CoreOrder order_;
  int32_t blockDim_;
  std::vector<int32_t> perm_;  // the order cores run in (sequential modes)
  std::vector<int32_t> pos_;   // position of each core in perm_
  std::vector<std::unique_ptr<Core>> cores_;
  std::vector<uint8_t *> args_;
  std::vector<GmRegion> regions_;  // the request's regions at their staged addresses
  std::vector<Staged> staged_;

  std::mutex mu_;
  std::vector<std::unique_ptr<std::condition_variable>> turnCv_;
  std::condition_variable barrierCv_;
  std::vector<State> state_;
  std::vector<uint32_t> syncCalls_;
  int32_t running_ = -1;
  int32_t arrived_ = 0;
  uint64_t generation_ = 0;
  int32_t done_ = 0;
  std::condition_variable doneCv_;     // notified when every core is done
  size_t nextClaim_ = 0;               // sequential orders: position in perm_ of the first core no worker took
  std::vector<std::thread> workers_;   // sequential orders: the workers Barrier started (guarded by mu_)
  std::atomic<bool> aborted_{false};
  bool faulted_ = false;
  std::string fault_;
};

}  // namespace device
}  // namespace opgen_rt

#endif  // OPGEN_RT_SRC_DEVICE_LAUNCH_H
