// ascend-opgen host emulation of the acl runtime: init, devices, streams, memory and context options.
// Host memory stands in for device memory. Each stream runs its work on a thread of its own, in queue order; the
// buffers of work not yet synchronised are recorded per stream (stream_state.h) and a host access to them is
// refused.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <thread>

#include <unistd.h>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "opdev/op_errno.h"
#include "opdev/op_log.h"
#include "registry.h"
#include "runtime/context.h"
#include "stream_state.h"

namespace {

constexpr uint8_t kPoisonByte = 0xFF;
constexpr size_t kDeviceAlignment = 64;
// The status of a host access that races with unsynchronised stream work. CANN has no such check (the
// device gives garbage, not an error), so the emulation answers with its generic failure code.
constexpr aclError kUnsynchronisedAccess = ACL_ERROR_FAILURE;

struct PendingBuffer {
  aclrtStream stream;
  const uint8_t *start;
  size_t bytes;
  bool written;
  std::string what;
};

struct Runtime {
  std::mutex mutex;
  bool initialized = false;
  int32_t device = 0;
  std::map<const uint8_t *, size_t> allocations;  // device allocations by start address
  std::map<const void *, int> streams;
  std::vector<PendingBuffer> pending;  // buffers of work launched and not yet synchronised
};

Runtime &Rt() {
  static Runtime *runtime = new Runtime();  // never destroyed: usable during static destruction
  return *runtime;
}

std::atomic<int64_t> g_deterministic{0};

// One stream: its queue of work and the thread that runs it in order, as the device runs a stream's tasks.
struct StreamObject {
  int id = 0;
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::function<int32_t(bool)>> queue;
  bool running = false;  // the thread is running a task taken from the queue
  bool stop = false;     // aclrtDestroyStream: the thread ends once the queue is empty
  int32_t error = 0;     // status of the first task that failed since the last synchronisation, or 0
  std::string errorText;
  std::thread thread;
  pid_t owner = 0;  // the process whose thread serves the queue: a forked child starts its own
};

// The stream thread's loop: runs the queued tasks in order; after a failure only releases the later ones.
void Serve(StreamObject *s) {
  std::unique_lock<std::mutex> lock(s->mutex);
  for (;;) {
    s->changed.wait(lock, [s] { return s->stop || !s->queue.empty(); });
    if (s->queue.empty()) {
      return;
    }
    std::function<int32_t(bool)> work = std::move(s->queue.front());
    s->queue.pop_front();
    s->running = true;
    const bool run = s->error == 0;
    lock.unlock();
    op::internal::ClearRecentError();
    const int32_t status = work(run);
    std::string text = status != 0 ? op::internal::PeekRecentError() : std::string();
    work = nullptr;
    lock.lock();
    s->running = false;
    if (run && status != 0) {
      s->error = status;
      s->errorText = std::move(text);
    }
    s->changed.notify_all();
  }
}

// Starts the thread of `s` in this process. In a forked child the inherited std::thread names a thread of the
// parent, which the child has not: it is overwritten without being joined or detached.
void StartThread(StreamObject *s, bool detach) {
  new (&s->thread) std::thread(Serve, s);
  s->owner = getpid();
  if (detach) {
    s->thread.detach();
  }
}

// Waits until the stream's queue is empty and its thread idle.
void Drain(StreamObject *s) {
  std::unique_lock<std::mutex> lock(s->mutex);
  s->changed.wait(lock, [s] { return s->queue.empty() && !s->running; });
}

// The default stream (nullptr): created with its thread on first use, never destroyed.
StreamObject *DefaultStream() {
  static StreamObject *object = [] {
    auto *s = new StreamObject();
    StartThread(s, true);
    return s;
  }();
  static std::mutex restart;
  std::lock_guard<std::mutex> lock(restart);
  if (object->owner != getpid()) {
    StartThread(object, true);
  }
  return object;
}

// The object of a live stream handle (nullptr: the default stream), or nullptr.
StreamObject *FindStream(aclrtStream stream);

// Every live stream's object, the default stream's included.
std::vector<StreamObject *> AllStreams();

// Waits for the stream's work, then takes its error: returns ACL_SUCCESS, or the error's aclError with its
// text logged on the calling thread.
aclError TakeStreamError(StreamObject *s) {
  Drain(s);
  int32_t error = 0;
  std::string text;
  {
    std::lock_guard<std::mutex> lock(s->mutex);
    std::swap(error, s->error);
    std::swap(text, s->errorText);
  }
  if (error == 0) {
    return ACL_SUCCESS;
  }
  // a kernel fault is the vector core's exception, which the device reports when the host synchronises; the
  // recent error text is the work's own (the fault, naming its rule, kernel and core)
  const aclError code = error == ACLNN_ERR_RUNTIME_ERROR ? ACL_ERROR_RT_VECTOR_CORE_EXCEPTION : ACL_ERROR_RT_INTERNAL_ERROR;
  OP_LOGE(code, "%s", text.c_str());
  return code;
}

// True when [ptr, ptr + count) lies inside one device allocation.
bool InsideAllocation(const void *ptr, size_t count) {
  Runtime &rt = Rt();
  std::lock_guard<std::mutex> lock(rt.mutex);
  const auto *p = static_cast<const uint8_t *>(ptr);
  auto it = rt.allocations.upper_bound(p);
  if (it == rt.allocations.begin()) {
    return false;
  }
  --it;
  const uint8_t *start = it->first;
  return p >= start && static_cast<size_t>(p - start) + count <= it->second;
}

bool IsDevicePointer(const void *ptr) {
  return InsideAllocation(ptr, 0);
}

aclError Invalid(const char *fmt, const char *detail) {
  OP_LOGE(ACL_ERROR_INVALID_PARAM, fmt, detail);
  return ACL_ERROR_INVALID_PARAM;
}

// Forgets the pending buffers of `stream` (every stream for kAnyStream): the host waited for its work.
void ClearPending(aclrtStream stream) {
  Runtime &rt = Rt();
  std::lock_guard<std::mutex> lock(rt.mutex);
  auto done = [stream](const PendingBuffer &b) { return stream == opgen_rt::kAnyStream || b.stream == stream; };
  rt.pending.erase(std::remove_if(rt.pending.begin(), rt.pending.end(), done), rt.pending.end());
}

// Refuses a host access that races with unsynchronised work: logs the message and returns its status.
aclError RefuseUnsynchronised(const char *api, const void *ptr, size_t bytes, bool hostWrite, aclrtStream same) {
  const std::string message = opgen_rt::PendingHostAccess(api, ptr, bytes, hostWrite, same);
  if (message.empty()) {
    return ACL_SUCCESS;
  }
  OP_LOGE(kUnsynchronisedAccess, "%s", message.c_str());
  return kUnsynchronisedAccess;
}

int g_anyStreamTag = 0;

StreamObject *FindStream(aclrtStream stream) {
  if (stream == nullptr) {
    return DefaultStream();
  }
  Runtime &rt = Rt();
  std::lock_guard<std::mutex> lock(rt.mutex);
  if (rt.streams.count(stream) == 0) {
    return nullptr;
  }
  auto *s = static_cast<StreamObject *>(stream);
  if (s->owner != getpid()) {
    StartThread(s, false);
  }
  return s;
}

std::vector<StreamObject *> AllStreams() {
  std::vector<StreamObject *> all{DefaultStream()};
  Runtime &rt = Rt();
  std::lock_guard<std::mutex> lock(rt.mutex);
  for (const auto &entry : rt.streams) {
    all.push_back(static_cast<StreamObject *>(const_cast<void *>(entry.first)));
  }
  return all;
}

}  // namespace

namespace opgen_rt {
int64_t DeterministicOption() {
  return g_deterministic.load();
}

const aclrtStream kAnyStream = &g_anyStreamTag;

bool EnqueueStreamWork(aclrtStream stream, std::function<int32_t(bool run)> work) {
  StreamObject *s = FindStream(stream);
  if (s == nullptr) {
    ClearPending(stream);  // the caller's marks for work that will never run
    return false;
  }
  std::lock_guard<std::mutex> lock(s->mutex);
  s->queue.push_back(std::move(work));
  s->changed.notify_all();
  return true;
}

void WaitAllStreamWork() {
  for (StreamObject *s : AllStreams()) {
    Drain(s);
  }
}

void MarkStreamPending(aclrtStream stream, const void *ptr, size_t bytes, bool written, const std::string &what) {
  if (ptr == nullptr || bytes == 0) {
    return;
  }
  Runtime &rt = Rt();
  std::lock_guard<std::mutex> lock(rt.mutex);
  rt.pending.push_back(PendingBuffer{stream, static_cast<const uint8_t *>(ptr), bytes, written, what});
}

std::string PendingHostAccess(const char *api, const void *ptr, size_t bytes, bool hostWrite, aclrtStream sameStream) {
  if (ptr == nullptr || bytes == 0) {
    return "";
  }
  const auto *p = static_cast<const uint8_t *>(ptr);
  Runtime &rt = Rt();
  std::lock_guard<std::mutex> lock(rt.mutex);
  for (const PendingBuffer &b : rt.pending) {
    const bool overlaps = p < b.start + b.bytes && b.start < p + bytes;
    if (!overlaps || (!b.written && !hostWrite) || (sameStream != kAnyStream && b.stream == sameStream)) {
      continue;
    }
    char range[160];
    std::snprintf(range, sizeof(range), "%p..+%zu overlaps %p..+%zu, ", ptr, bytes, static_cast<const void *>(b.start),
                  b.bytes);
    const std::string stream = b.stream == nullptr ? std::string("the default stream (nullptr)") : [&b] {
      char text[48];
      std::snprintf(text, sizeof(text), "stream %p", b.stream);
      return std::string(text);
    }();
    return std::string(api) + ": " + (hostWrite ? "host write of " : "host read of ") + range + b.what + ", which " +
           (b.written ? "a launch" : "a launch reads and") + " on " + stream +
           " not synchronised yet may " + (b.written ? "still write" : "still read") +
           ": call aclrtSynchronizeStream on that stream first (on a device this " +
           (hostWrite ? "corrupts the launch's input" : "reads garbage") + ").";
  }
  return "";
}
}  // namespace opgen_rt

extern "C" {

aclError aclInit(const char *configPath) {
  (void)configPath;
  Runtime &rt = Rt();
  std::lock_guard<std::mutex> lock(rt.mutex);
  if (rt.initialized) {
    OP_LOGE(ACL_ERROR_REPEAT_INITIALIZE, "aclInit: already initialized (call aclFinalize first).");
    return ACL_ERROR_REPEAT_INITIALIZE;
  }
  rt.initialized = true;
  return ACL_SUCCESS;
}

aclError aclFinalize() {
  Runtime &rt = Rt();
  std::lock_guard<std::mutex> lock(rt.mutex);
  rt.initialized = false;
  return ACL_SUCCESS;
}

aclnnStatus aclnnInit(const char *configPath) {
  (void)configPath;
  return 0;
}

aclnnStatus aclnnFinalize() {
  return 0;
}

aclError aclrtSetDevice(int32_t deviceId) {
  if (deviceId < 0) {
    OP_LOGE(ACL_ERROR_INVALID_DEVICE_ID, "aclrtSetDevice: device id %d is invalid (only device 0 exists).",
            static_cast<int>(deviceId));
    return ACL_ERROR_INVALID_DEVICE_ID;
  }
  Runtime &rt = Rt();
  std::lock_guard<std::mutex> lock(rt.mutex);
  rt.device = deviceId;
  return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t deviceId) {
  (void)deviceId;
  return ACL_SUCCESS;
}

aclError aclrtGetDevice(int32_t *deviceId) {
  if (deviceId == nullptr) {
    return Invalid("aclrtGetDevice: %s is nullptr.", "deviceId");
  }
  Runtime &rt = Rt();
  std::lock_guard<std::mutex> lock(rt.mutex);
  *deviceId = rt.device;
  return ACL_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t *count) {
  if (count == nullptr) {
    return Invalid("aclrtGetDeviceCount: %s is nullptr.", "count");
  }
  *count = 1;
  return ACL_SUCCESS;
}

aclError aclrtCreateStream(aclrtStream *stream) {
  if (stream == nullptr) {
    return Invalid("aclrtCreateStream: %s is nullptr.", "stream");
  }
  static std::atomic<int> nextId{1};
  auto *object = new (std::nothrow) StreamObject();
  if (object == nullptr) {
    return ACL_ERROR_BAD_ALLOC;
  }
  object->id = nextId.fetch_add(1);
  StartThread(object, false);
  Runtime &rt = Rt();
  std::lock_guard<std::mutex> lock(rt.mutex);
  rt.streams[object] = object->id;
  *stream = object;
  return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream) {
  Runtime &rt = Rt();
  {
    std::lock_guard<std::mutex> lock(rt.mutex);
    auto it = rt.streams.find(stream);
    if (it == rt.streams.end()) {
      OP_LOGE(ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream: %p is not a live stream.", stream);
      return ACL_ERROR_INVALID_PARAM;
    }
    rt.streams.erase(it);
  }
  // the stream's work is waited for (an error it left is dropped with it): its buffers are the host's again
  auto *object = static_cast<StreamObject *>(stream);
  {
    std::lock_guard<std::mutex> lock(object->mutex);
    object->stop = true;
    object->changed.notify_all();
  }
  ClearPending(stream);
  if (object->owner == getpid()) {
    object->thread.join();
    delete object;
  }  // else a forked child's copy whose thread never ran here: left as it is (its std::thread cannot be ended)
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  StreamObject *object = FindStream(stream);
  if (object == nullptr) {
    OP_LOGE(ACL_ERROR_INVALID_PARAM, "aclrtSynchronizeStream: %p is not a live stream (nullptr is the default stream).",
            stream);
    return ACL_ERROR_INVALID_PARAM;
  }
  const aclError ret = TakeStreamError(object);
  ClearPending(stream);
  return ret;
}

aclError aclrtSynchronizeDevice(void) {
  aclError first = ACL_SUCCESS;
  for (StreamObject *object : AllStreams()) {
    const aclError ret = TakeStreamError(object);
    first = first == ACL_SUCCESS ? ret : first;
  }
  ClearPending(opgen_rt::kAnyStream);
  return first;
}

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
  (void)policy;
  if (devPtr == nullptr) {
    return Invalid("aclrtMalloc: %s is nullptr.", "devPtr");
  }
  if (size == 0) {
    return Invalid("aclrtMalloc: %s is 0.", "size");
  }
  const size_t rounded = (size + kDeviceAlignment - 1) / kDeviceAlignment * kDeviceAlignment;
  void *p = std::aligned_alloc(kDeviceAlignment, rounded);
  if (p == nullptr) {
    OP_LOGE(ACL_ERROR_BAD_ALLOC, "aclrtMalloc: cannot allocate %zu bytes.", size);
    return ACL_ERROR_BAD_ALLOC;
  }
  std::memset(p, kPoisonByte, rounded);
  Runtime &rt = Rt();
  std::lock_guard<std::mutex> lock(rt.mutex);
  rt.allocations[static_cast<const uint8_t *>(p)] = size;
  *devPtr = p;
  return ACL_SUCCESS;
}

aclError aclrtFree(void *devPtr) {
  if (devPtr == nullptr) {
    return Invalid("aclrtFree: %s is nullptr.", "devPtr");
  }
  // work still queued may use the memory: wait for it (as a device sync does), never free under it
  opgen_rt::WaitAllStreamWork();
  Runtime &rt = Rt();
  {
    std::lock_guard<std::mutex> lock(rt.mutex);
    auto it = rt.allocations.find(static_cast<const uint8_t *>(devPtr));
    if (it == rt.allocations.end()) {
      OP_LOGE(ACL_ERROR_INVALID_PARAM, "aclrtFree: %p was not returned by aclrtMalloc (or was freed already).", devPtr);
      return ACL_ERROR_INVALID_PARAM;
    }
    rt.allocations.erase(it);
    // its pending work is the caller's fault, not a later allocation's at the same address
    const auto *start = static_cast<const uint8_t *>(devPtr);
    auto inside = [start](const PendingBuffer &b) { return b.start == start; };
    rt.pending.erase(std::remove_if(rt.pending.begin(), rt.pending.end(), inside), rt.pending.end());
  }
  std::free(devPtr);
  return ACL_SUCCESS;
}

aclError aclrtMallocHost(void **hostPtr, size_t size) {
  if (hostPtr == nullptr || size == 0) {
    return Invalid("aclrtMallocHost: %s.", hostPtr == nullptr ? "hostPtr is nullptr" : "size is 0");
  }
  *hostPtr = std::malloc(size);
  return *hostPtr == nullptr ? ACL_ERROR_BAD_ALLOC : ACL_SUCCESS;
}

aclError aclrtFreeHost(void *hostPtr) {
  std::free(hostPtr);
  return ACL_SUCCESS;
}

// The checks of a copy by aclrtMemcpy (same: kAnyStream) or aclrtMemcpyAsync on stream `same` (whose own
// pending work it is queued behind): ACL_SUCCESS when the copy may be made.
aclError CheckCopy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind, aclrtStream same) {
  if (dst == nullptr || src == nullptr) {
    return Invalid("aclrtMemcpy: %s is nullptr.", dst == nullptr ? "dst" : "src");
  }
  if (count > destMax) {
    OP_LOGE(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: count %zu exceeds destMax %zu.", count, destMax);
    return ACL_ERROR_INVALID_PARAM;
  }
  const bool dstDevice = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  const bool srcDevice = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  if (kind < ACL_MEMCPY_HOST_TO_HOST || kind > ACL_MEMCPY_DEFAULT) {
    return Invalid("aclrtMemcpy: %s.", "unknown copy kind");
  }
  if (dstDevice && !InsideAllocation(dst, count)) {
    OP_LOGE(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: destination %p..+%zu is not inside memory from aclrtMalloc.", dst,
            count);
    return ACL_ERROR_INVALID_PARAM;
  }
  if (srcDevice && !InsideAllocation(src, count)) {
    OP_LOGE(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: source %p..+%zu is not inside memory from aclrtMalloc.", src, count);
    return ACL_ERROR_INVALID_PARAM;
  }
  if (kind == ACL_MEMCPY_HOST_TO_HOST && (IsDevicePointer(dst) || IsDevicePointer(src))) {
    return Invalid("aclrtMemcpy: %s.", "ACL_MEMCPY_HOST_TO_HOST given device memory");
  }
  if (kind == ACL_MEMCPY_DEVICE_TO_HOST) {
    const aclError ret = RefuseUnsynchronised("aclrtMemcpy(ACL_MEMCPY_DEVICE_TO_HOST)", src, count, false, same);
    if (ret != ACL_SUCCESS) {
      return ret;
    }
  }
  if (kind == ACL_MEMCPY_HOST_TO_DEVICE) {
    const aclError ret = RefuseUnsynchronised("aclrtMemcpy(ACL_MEMCPY_HOST_TO_DEVICE)", dst, count, true, same);
    if (ret != ACL_SUCCESS) {
      return ret;
    }
  }
  return ACL_SUCCESS;
}

aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind) {
  if (count == 0) {
    return ACL_SUCCESS;
  }
  const aclError ret = CheckCopy(dst, destMax, src, count, kind, opgen_rt::kAnyStream);
  if (ret == ACL_SUCCESS) {
    std::memmove(dst, src, count);
  }
  return ret;
}

aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream) {
  if (count == 0) {
    return ACL_SUCCESS;
  }
  // queued behind the stream's own work, so only other streams' unsynchronised work races with it
  aclError ret = CheckCopy(dst, destMax, src, count, kind, stream);
  if (ret != ACL_SUCCESS) {
    return ret;
  }
  const bool queued = opgen_rt::EnqueueStreamWork(stream, [dst, src, count](bool run) {
    if (run) {
      std::memmove(dst, src, count);
    }
    return 0;
  });
  if (!queued) {
    return Invalid("aclrtMemcpyAsync: %s.", "stream is not a live stream (nullptr is the default stream)");
  }
  // until the stream is synchronised, the copy may still write its destination and read its source
  const bool dstDevice = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  const bool srcDevice = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  if (dstDevice) {
    opgen_rt::MarkStreamPending(stream, dst, count, true, "the destination of an aclrtMemcpyAsync");
  }
  if (srcDevice) {
    opgen_rt::MarkStreamPending(stream, src, count, false, "the source of an aclrtMemcpyAsync");
  }
  return ret;
}

aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count) {
  if (devPtr == nullptr) {
    return Invalid("aclrtMemset: %s is nullptr.", "devPtr");
  }
  if (count > maxCount) {
    OP_LOGE(ACL_ERROR_INVALID_PARAM, "aclrtMemset: count %zu exceeds maxCount %zu.", count, maxCount);
    return ACL_ERROR_INVALID_PARAM;
  }
  const aclError ret = RefuseUnsynchronised("aclrtMemset", devPtr, count, true, opgen_rt::kAnyStream);
  if (ret != ACL_SUCCESS) {
    return ret;
  }
  std::memset(devPtr, value, count);
  return ACL_SUCCESS;
}

aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
  if (opt == ACL_OPT_DETERMINISTIC) {
    if (value != 0 && value != 1) {
      OP_LOGE(ACL_ERROR_INVALID_PARAM, "aclrtCtxSetSysParamOpt: ACL_OPT_DETERMINISTIC takes 0 or 1, not %lld.",
              static_cast<long long>(value));
      return ACL_ERROR_INVALID_PARAM;
    }
    g_deterministic.store(value);
    return ACL_SUCCESS;
  }
  if (opt == ACL_OPT_ENABLE_DEBUG_KERNEL || opt == ACL_OPT_STRONG_CONSISTENCY) {
    return ACL_SUCCESS;
  }
  OP_LOGE(ACL_ERROR_INVALID_PARAM, "aclrtCtxSetSysParamOpt: unknown option %d.", static_cast<int>(opt));
  return ACL_ERROR_INVALID_PARAM;
}

aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t *value) {
  if (value == nullptr) {
    return Invalid("aclrtCtxGetSysParamOpt: %s is nullptr.", "value");
  }
  if (opt == ACL_OPT_DETERMINISTIC) {
    *value = g_deterministic.load();
    return ACL_SUCCESS;
  }
  if (opt == ACL_OPT_ENABLE_DEBUG_KERNEL || opt == ACL_OPT_STRONG_CONSISTENCY) {
    *value = 0;
    return ACL_SUCCESS;
  }
  OP_LOGE(ACL_ERROR_INVALID_PARAM, "aclrtCtxGetSysParamOpt: unknown option %d.", static_cast<int>(opt));
  return ACL_ERROR_INVALID_PARAM;
}

rtError_t rtCtxSetSysParamOpt(const rtSysParamOpt configOpt, const int64_t configVal) {
  return aclrtCtxSetSysParamOpt(static_cast<aclSysParamOpt>(configOpt), configVal);
}

rtError_t rtCtxGetSysParamOpt(const rtSysParamOpt configOpt, int64_t *const configVal) {
  return aclrtCtxGetSysParamOpt(static_cast<aclSysParamOpt>(configOpt), configVal);
}

}  // extern "C"
