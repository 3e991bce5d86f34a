// ascend-opgen host emulation of the acl runtime: init, devices, streams, memory and context options.
// Host memory stands in for device memory; streams are synchronous.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "opdev/op_log.h"
#include "registry.h"
#include "runtime/context.h"

namespace {

constexpr uint8_t kPoisonByte = 0xFF;
constexpr size_t kDeviceAlignment = 64;

struct Runtime {
  std::mutex mutex;
  bool initialized = false;
  int32_t device = 0;
  std::map<const uint8_t *, size_t> allocations;  // device allocations by start address
  std::map<const void *, int> streams;
};

Runtime &Rt() {
  static Runtime *runtime = new Runtime();  // never destroyed: usable during static destruction
  return *runtime;
}

std::atomic<int64_t> g_deterministic{0};

struct StreamObject {
  int id;
};

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

}  // namespace

namespace opgen_rt {
int64_t DeterministicOption() {
  return g_deterministic.load();
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
  auto *object = new (std::nothrow) StreamObject{nextId.fetch_add(1)};
  if (object == nullptr) {
    return ACL_ERROR_BAD_ALLOC;
  }
  Runtime &rt = Rt();
  std::lock_guard<std::mutex> lock(rt.mutex);
  rt.streams[object] = object->id;
  *stream = object;
  return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream) {
  Runtime &rt = Rt();
  std::lock_guard<std::mutex> lock(rt.mutex);
  auto it = rt.streams.find(stream);
  if (it == rt.streams.end()) {
    OP_LOGE(ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream: %p is not a live stream.", stream);
    return ACL_ERROR_INVALID_PARAM;
  }
  rt.streams.erase(it);
  delete static_cast<StreamObject *>(stream);
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  (void)stream;  // work already ran inside the launching call
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeDevice(void) {
  return ACL_SUCCESS;
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
  Runtime &rt = Rt();
  {
    std::lock_guard<std::mutex> lock(rt.mutex);
    auto it = rt.allocations.find(static_cast<const uint8_t *>(devPtr));
    if (it == rt.allocations.end()) {
      OP_LOGE(ACL_ERROR_INVALID_PARAM, "aclrtFree: %p was not returned by aclrtMalloc (or was freed already).", devPtr);
      return ACL_ERROR_INVALID_PARAM;
    }
    rt.allocations.erase(it);
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

aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind) {
  if (count == 0) {
    return ACL_SUCCESS;
  }
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
  std::memmove(dst, src, count);
  return ACL_SUCCESS;
}

aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream) {
  (void)stream;
  return aclrtMemcpy(dst, destMax, src, count, kind);
}

aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count) {
  if (devPtr == nullptr) {
    return Invalid("aclrtMemset: %s is nullptr.", "devPtr");
  }
  if (count > maxCount) {
    OP_LOGE(ACL_ERROR_INVALID_PARAM, "aclrtMemset: count %zu exceeds maxCount %zu.", count, maxCount);
    return ACL_ERROR_INVALID_PARAM;
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
