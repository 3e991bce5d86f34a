// ascend-opgen host emulation of the AscendC kernel API: GlobalTensor, LocalTensor, TPipe, TQue, TBuf.
// Names and signatures follow CANN's kernel_operator.h (asc-devkit basic API). Hand-written runtime code.
#ifndef OPGEN_RT_DEVICE_TENSOR_H
#define OPGEN_RT_DEVICE_TENSOR_H

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "opgen_rt/device/core_state.h"

#ifndef __gm__
#define __gm__
#endif

namespace AscendC {

template <typename T, typename U>
struct IsSameType {
  static constexpr bool value = false;
};
template <typename T>
struct IsSameType<T, T> {
  static constexpr bool value = true;
};

// Vector API constants of the real header (32-byte block, 256-byte repeat; ascend-platform.md).
constexpr int32_t ONE_BLK_SIZE = 32;
constexpr int32_t ONE_REPEAT_BYTE_SIZE = 256;

using TEventID = int8_t;

template <typename T>
class LocalTensor;
template <TPosition pos, int32_t depth, auto mask = 0>
class TQue;
template <TPosition pos>
class TBuf;

// A typed view of global memory. Every access is checked against the GM regions of the launch.
template <typename T>
class GlobalTensor {
 public:
  using PrimType = T;

  GlobalTensor() = default;

  void SetGlobalBuffer(__gm__ T *buffer, uint64_t bufferSize) {
    core_ = opgen_rt::device::CurrentCore();
    core_->Poll();
    // The pointer itself must point into (or one past the end of) a GM region of the launch.
    core_->CheckGm(buffer, 0, false, "SetGlobalBuffer");
    addr_ = buffer;
    size_ = bufferSize;
  }
  void SetGlobalBuffer(__gm__ T *buffer) { SetGlobalBuffer(buffer, UINT64_MAX / sizeof(T)); }

  // As in asc-devkit include/basic_api/kernel_tensor.h: the no-offset form returns a pointer to const.
  const __gm__ T *GetPhyAddr() const { return addr_; }
  __gm__ T *GetPhyAddr(const uint64_t offset) const { return addr_ + offset; }
  uint64_t GetSize() const { return size_; }

  T GetValue(const uint64_t offset) const {
    opgen_rt::device::Core *c = Bound("GlobalTensor::GetValue");
    const T *p = addr_ + offset;
    c->ScalarGmRead("GlobalTensor::GetValue", p, sizeof(T));  // bounds, pipe clock, read record, counter
    T v{};  // probe mode: GM is not memory; every scalar read gives 0
    if (!c->probe) {
      std::memcpy(&v, p, sizeof(T));
    }
    return v;
  }

  // Not const (asc-devkit include/basic_api/kernel_tensor.h: `void SetValue(const uint64_t offset, PrimType
  // value)`): a const GlobalTensor& cannot be written through, as with the CANN toolchain.
  void SetValue(const uint64_t offset, PrimType value) {
    opgen_rt::device::Core *c = Bound("GlobalTensor::SetValue");
    T *p = addr_ + offset;
    c->ScalarGmWrite("GlobalTensor::SetValue", p, sizeof(T));  // bounds, pipe clock, cache line, counter, record
    if (!c->probe) {
      std::memcpy(p, &value, sizeof(T));
    }
  }

  GlobalTensor operator[](const uint64_t offset) const {
    GlobalTensor view = *this;
    view.addr_ = addr_ + offset;
    view.size_ = offset < size_ ? size_ - offset : 0;
    return view;
  }

  // Emulation internals.
  opgen_rt::device::Core *Bound(const char *op) const {
    opgen_rt::device::Core *c = core_ != nullptr ? core_ : opgen_rt::device::CurrentCore();
    c->Poll();
    if (core_ == nullptr) {
      c->Fault(opgen_rt::device::rule::kGmBounds,
               std::string(op) + " on a GlobalTensor whose SetGlobalBuffer was never called");
    }
    return c;
  }
  T *addr_ = nullptr;
  uint64_t size_ = 0;
  opgen_rt::device::Core *core_ = nullptr;
};

// A typed view of UB bytes inside one buffer (a queue buffer or a TBuf).
template <typename T>
class LocalTensor {
 public:
  using PrimType = T;

  LocalTensor() = default;

  T GetValue(const uint32_t index) const {
    opgen_rt::device::Core *c = core_ != nullptr ? core_ : opgen_rt::device::CurrentCore();
    const opgen_rt::device::UbRef r = At(index);
    c->ScalarUbRead("LocalTensor::GetValue", r, sizeof(T));  // Poll, operand, pipe and defined-bytes checks
    T v;
    std::memcpy(&v, c->ub + r.off, sizeof(T));
    return v;
  }

  // asc-devkit: `template <typename S> void SetValue(const uint32_t index, const S value) const`; the value is
  // converted to the element type.
  template <typename S>
  void SetValue(const uint32_t index, const S value) const {
    opgen_rt::device::Core *c = core_ != nullptr ? core_ : opgen_rt::device::CurrentCore();
    const opgen_rt::device::UbRef r = At(index);
    c->ScalarUbWrite("LocalTensor::SetValue", r, sizeof(T));  // Poll, operand and pipe checks; marks defined
    const T converted = static_cast<T>(value);
    std::memcpy(c->ub + r.off, &converted, sizeof(T));
  }

  LocalTensor operator[](const uint32_t offset) const {
    LocalTensor view = *this;
    view.ref_ = At(offset);
    return view;
  }

  template <typename U>
  LocalTensor<U> ReinterpretCast() const {
    LocalTensor<U> view;
    view.core_ = core_;
    view.ref_ = ref_;
    return view;
  }

  // Elements from this view to the end of its buffer.
  uint32_t GetSize() const {
    if (!ref_.bound || ref_.off >= ref_.end) {
      return 0;
    }
    return static_cast<uint32_t>((ref_.end - ref_.off) / sizeof(T));
  }
  uint32_t GetLength() const { return GetSize() * static_cast<uint32_t>(sizeof(T)); }

  // The UB address (byte offset inside the core's Unified Buffer), as on the device.
  uint64_t GetPhyAddr() const { return ref_.off; }
  uint64_t GetPhyAddr(const uint32_t offset) const { return ref_.off + static_cast<uint64_t>(offset) * sizeof(T); }

  // Emulation internals.
  opgen_rt::device::Core *Bound() const {
    opgen_rt::device::Core *c = core_ != nullptr ? core_ : opgen_rt::device::CurrentCore();
    c->Poll();
    return c;
  }
  opgen_rt::device::UbRef At(uint64_t index) const {
    opgen_rt::device::UbRef r = ref_;
    const uint64_t off = static_cast<uint64_t>(ref_.off) + index * sizeof(T);
    r.off = off > 0xffffffffull ? 0xffffffffu : static_cast<uint32_t>(off);
    return r;
  }
  T *Data() const { return reinterpret_cast<T *>(core_->ub + ref_.off); }

  opgen_rt::device::Core *core_ = nullptr;
  opgen_rt::device::UbRef ref_;
};

// Owner of a core's UB buffers: InitBuffer carves queue and TBuf buffers out of the core's UB.
class TPipe {
 public:
  TPipe() : core_(opgen_rt::device::CurrentCore()), pid_(core_->NewPipe()) {}
  ~TPipe() {
    if (core_ != nullptr && pid_ >= 0) {
      core_->PipeRelease(pid_, false, "~TPipe");
    }
  }
  TPipe(const TPipe &) = delete;
  TPipe &operator=(const TPipe &) = delete;

  // `num` buffers of `len` bytes each (rounded up to 32 bytes) for a queue.
  // asc-devkit include/basic_api/kernel_tpipe.h: `template <class T> bool InitBuffer(T& que, uint8_t num,
  // uint32_t len)` (T a TQue) and `template <TPosition pos> bool InitBuffer(TBuf<pos>& buf, uint32_t len)`.
  template <class T>
  bool InitBuffer(T &que, uint8_t num, uint32_t len) {
    constexpr TPosition pos = T::kPosition;
    constexpr int32_t depth = T::kDepth;
    core_->Poll();
    que.core_ = core_;
    que.qid_ = core_->InitQueue(pid_, pos, depth, num, len);
    return true;
  }

  // One buffer of `len` bytes (rounded up to 32 bytes) for TBuf::Get.
  template <TPosition pos>
  bool InitBuffer(TBuf<pos> &buf, uint32_t len) {
    core_->Poll();
    buf.core_ = core_;
    buf.bid_ = core_->InitTBuf(pid_, len);
    return true;
  }

  // Releases every buffer of the pipe; a queue tensor still allocated or enqueued is a buffer leak.
  void Destroy() {
    core_->Poll();
    core_->PipeRelease(pid_, true, "TPipe::Destroy");
  }
  void Reset() {
    core_->Poll();
    core_->PipeRelease(pid_, true, "TPipe::Reset");
  }

  // Event ids per HardEvent, 0..QUE_MAX_EVENT-1: AllocEventID takes the lowest free one, ReleaseEventID
  // gives it back, FetchEventID returns the lowest free one without taking it.
  template <HardEvent event>
  TEventID FetchEventID() {
    return static_cast<TEventID>(core_->AllocEventId(static_cast<int32_t>(event), false));
  }
  TEventID FetchEventID(HardEvent event) {
    return static_cast<TEventID>(core_->AllocEventId(static_cast<int32_t>(event), false));
  }
  template <HardEvent event>
  TEventID AllocEventID() {
    return static_cast<TEventID>(core_->AllocEventId(static_cast<int32_t>(event), true));
  }
  template <HardEvent event>
  void ReleaseEventID(TEventID id) {
    core_->ReleaseEventId(static_cast<int32_t>(event), id);
  }

 private:
  opgen_rt::device::Core *core_;
  int32_t pid_;
};

// A queue of `num` UB buffers (set by TPipe::InitBuffer) holding at most `depth` enqueued tensors.
template <TPosition pos, int32_t depth, auto mask>
class TQue {
 public:
  TQue() = default;
  // Emulation internals: the template arguments, for TPipe::InitBuffer.
  static constexpr TPosition kPosition = pos;
  static constexpr int32_t kDepth = depth;

  template <typename T>
  LocalTensor<T> AllocTensor() {
    opgen_rt::device::Core *c = Ctx();
    LocalTensor<T> t;
    t.core_ = c;
    t.ref_ = c->QueueAlloc(qid_);
    return t;
  }

  template <typename T>
  bool EnQue(const LocalTensor<T> &tensor) {
    Ctx()->QueueEnQue(qid_, tensor.ref_);
    return true;
  }

  template <typename T>
  LocalTensor<T> DeQue() {
    opgen_rt::device::Core *c = Ctx();
    LocalTensor<T> t;
    t.core_ = c;
    t.ref_ = c->QueueDeQue(qid_);
    return t;
  }

  template <typename T>
  void FreeTensor(LocalTensor<T> &tensor) {
    Ctx()->QueueFree(qid_, tensor.ref_);
  }

  bool HasTensorInQue() { return Ctx()->QueueHasTensor(qid_); }

  // Emulation internals.
  opgen_rt::device::Core *Ctx() const {
    opgen_rt::device::Core *c = core_ != nullptr ? core_ : opgen_rt::device::CurrentCore();
    c->Poll();
    return c;
  }
  opgen_rt::device::Core *core_ = nullptr;
  int32_t qid_ = -1;
};

// A single UB buffer for temporaries (TPosition::VECCALC by default).
template <TPosition pos = TPosition::LCM>
class TBuf {
 public:
  TBuf() = default;

  template <typename T>
  LocalTensor<T> Get() {
    return Make<T>(UINT64_MAX, 0);
  }
  // The first `len` elements of the buffer.
  template <typename T>
  LocalTensor<T> Get(uint32_t len) {
    return Make<T>(static_cast<uint64_t>(len) * sizeof(T), 0);
  }
  // `size` elements starting `bufOffset` bytes into the buffer.
  template <typename T>
  LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset) {
    return Make<T>(static_cast<uint64_t>(size) * sizeof(T), bufOffset);
  }

  // Emulation internals.
  template <typename T>
  LocalTensor<T> Make(uint64_t bytes, uint64_t offset) {
    opgen_rt::device::Core *c = core_ != nullptr ? core_ : opgen_rt::device::CurrentCore();
    c->Poll();
    LocalTensor<T> t;
    t.core_ = c;
    t.ref_ = c->TBufGet(bid_, bytes, offset);
    return t;
  }
  opgen_rt::device::Core *core_ = nullptr;
  int32_t bid_ = -1;
};

}  // namespace AscendC

#endif  // OPGEN_RT_DEVICE_TENSOR_H
