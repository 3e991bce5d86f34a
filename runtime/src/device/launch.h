// ascend-opgen host emulation: one kernel launch (private header of runtime/src/device).
//
// A launch runs blockDim emulated AI cores as host threads. In the sequential orders (IN_ORDER, REVERSED,
// SHUFFLE) exactly one core runs at a time: a core hands over only when it finishes or blocks in SyncAll,
// to the next runnable core in the order; when every core has arrived at the barrier it releases and the
// order starts again from its first core. In CONCURRENT mode all cores run freely. A fault in one core
// aborts the launch: every waiting core is woken and unwinds. Hand-written runtime code; not generated.
#ifndef OPGEN_RT_SRC_DEVICE_LAUNCH_H
#define OPGEN_RT_SRC_DEVICE_LAUNCH_H

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "opgen_rt/core.h"
#include "opgen_rt/device/core_state.h"

namespace opgen_rt {
namespace device {

class Launch {
 public:
  Launch(const LaunchRequest &request, const ProductInfo &product, CoreOrder order, uint64_t seed);
  LaunchResult Run();

  // SyncAll of core `core` (called from that core's thread).
  void Barrier(Core &core);

  const LaunchRequest &Request() const { return request_; }
  const ProductInfo &Product() const { return product_; }

 private:
  enum class State : uint8_t { kRunnable, kAtBarrier, kDone };

  void CoreMain(int32_t index);
  void Finish(int32_t index, std::unique_lock<std::mutex> &lock);
  void HandOver(int32_t from);
  void RecordFaultLocked(int32_t index, const std::string &ruleName, const std::string &detail);
  void RecordFault(int32_t index, const std::string &ruleName, const std::string &detail);
  bool Sequential() const { return order_ != CoreOrder::CONCURRENT; }
  void CheckRaces();

  const LaunchRequest &request_;
  const ProductInfo &product_;
  CoreOrder order_;
  int32_t blockDim_;
  std::vector<int32_t> perm_;  // the order cores run in (sequential modes)
  std::vector<int32_t> pos_;   // position of each core in perm_
  std::vector<std::unique_ptr<Core>> cores_;
  std::vector<uint8_t *> args_;

  std::mutex mu_;
  std::vector<std::unique_ptr<std::condition_variable>> turnCv_;
  std::condition_variable barrierCv_;
  std::vector<State> state_;
  std::vector<uint32_t> syncCalls_;
  int32_t running_ = -1;
  int32_t arrived_ = 0;
  uint64_t generation_ = 0;
  int32_t done_ = 0;
  std::atomic<bool> aborted_{false};
  bool faulted_ = false;
  std::string fault_;
};

}  // namespace device
}  // namespace opgen_rt

#endif  // OPGEN_RT_SRC_DEVICE_LAUNCH_H
