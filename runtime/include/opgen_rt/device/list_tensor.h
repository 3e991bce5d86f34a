// ascend-opgen host emulation of the AscendC tensor-list descriptor API: ListTensorDesc and TensorDesc
// (mirror-cann/asc-devkit include/basic_api/kernel_operator_list_tensor_intf.h; decoding as
// impl/basic_api/dav_c220/kernel_operator_list_tensor_impl.h). A DYNAMIC input or output reaches the kernel
// as one GM_ADDR pointing at a descriptor (layout: opgen_rt::BuildListTensorDesc in opgen_rt/core.h): word 0
// is the byte offset of the pointer table, then one record per tensor (its rank in the low 32 bits, then the
// dimensions), then one address per tensor.
//
// Reads of the descriptor are GM scalar reads of the launch (bounds-checked and counted); an index past the
// list's end reads outside the descriptor and faults [GM bounds]. Where the real decoder's ASSERTs are
// compiled out of device builds and it would read other words as shapes or addresses, the emulation faults
// instead: GetDesc on a list whose records do not all have the first record's rank (it strides by that rank),
// or whose first tensor is 0-d, or on a TensorDesc without SetShapeAddr. GetSize() returns what the decoder
// computes: the high word of the first record when it is not 0, which the aclnn launcher sets to 1 for every
// record (so 1 for a list it built); kernels take the list length from their tiling. Hand-written runtime code.
#ifndef OPGEN_RT_DEVICE_LIST_TENSOR_H
#define OPGEN_RT_DEVICE_LIST_TENSOR_H

#include <cstdint>
#include <cstring>
#include <string>

#include "opgen_rt/device/core_state.h"
#include "opgen_rt/device/tensor.h"

#ifndef __gm__
#define __gm__
#endif

namespace AscendC {

class ListTensorDesc;

template <class T>
class TensorDesc {
#if (__NPU_ARCH__ == 2002) || (__NPU_ARCH__ == 2201) || (__NPU_ARCH__ == 3002) || (__NPU_ARCH__ == 3102) || \
    (__NPU_ARCH__ == 3510) || (__NPU_ARCH__ == 5102) || (__NPU_ARCH__ == 3003) || (__NPU_ARCH__ == 3113)
 public:
  TensorDesc() {}
  ~TensorDesc() {}
  // Where GetDesc writes the tensor's dimensions (the caller's array of at least GetDim() words).
  void SetShapeAddr(uint64_t *shapePtr) {
    if (shapePtr == nullptr) {
      opgen_rt::device::CurrentCore()->Fault(opgen_rt::device::rule::kGmBounds,
                                             "TensorDesc::SetShapeAddr: the shape array is nullptr");
    }
    shape_ = shapePtr;
  }

  uint64_t GetDim() { return dim_; }
  uint64_t GetIndex() { return index_; }
  uint64_t GetShape(uint32_t offset) {
    if (offset >= dim_) {
      opgen_rt::device::CurrentCore()->Fault(
          opgen_rt::device::rule::kGmBounds, "TensorDesc::GetShape(" + std::to_string(offset) + ") of a rank-" +
                                                 std::to_string(dim_) + " tensor");
    }
    return shape_[offset];
  }
  __gm__ T *GetDataPtr() { return ptr_; }

  // A GlobalTensor over the tensor. As the real decoder does, its size is the product of the dimensions times
  // sizeof(T) (bytes, where SetGlobalBuffer takes elements); the emulator bounds accesses by the tensor's GM
  // region, not by this size.
  GlobalTensor<T> GetDataObj() {
    GlobalTensor<T> obj;
    uint64_t size = sizeof(T);
    for (uint32_t i = 0; i < dim_; ++i) {
      size *= shape_[i];
    }
    obj.SetGlobalBuffer(ptr_, size);
    return obj;
  }

  friend class ListTensorDesc;

 private:
  uint32_t dim_ = 0;
  uint32_t index_ = 0;
  uint64_t *shape_ = nullptr;
  __gm__ T *ptr_ = nullptr;
#endif
};

class ListTensorDesc {
 public:
  ListTensorDesc() {}
  ~ListTensorDesc() {}
  ListTensorDesc(__gm__ void *data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff) {
    Decode(data, length, shapeSize);
  }
  void Init(__gm__ void *data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff) {
    Decode(data, length, shapeSize);
  }
#if (__NPU_ARCH__ == 2002) || (__NPU_ARCH__ == 2201) || (__NPU_ARCH__ == 3002) || (__NPU_ARCH__ == 3102) || \
    (__NPU_ARCH__ == 3510) || (__NPU_ARCH__ == 5102) || (__NPU_ARCH__ == 3003) || (__NPU_ARCH__ == 3113)
  template <class T>
  void GetDesc(TensorDesc<T> &desc, uint32_t index) {
    opgen_rt::device::Core *c = Decoded("ListTensorDesc::GetDesc");
    if (dim_ == 0 || !sameRank_) {
      c->Fault(opgen_rt::device::rule::kGmBounds,
               std::string("ListTensorDesc::GetDesc: ") +
                   (dim_ == 0 ? "the list's first tensor is 0-d (or absent)"
                              : "the list's tensors do not all have the first tensor's rank (" + std::to_string(dim_) +
                                    ")") +
                   "; the descriptor is read with the first record's stride, so other tensors' shapes would be "
                   "read from the wrong words (flatten the list's tensors to one rank, or take sizes from the "
                   "tiling)");
    }
    if (desc.shape_ == nullptr) {
      c->Fault(opgen_rt::device::rule::kGmBounds,
               "ListTensorDesc::GetDesc: the TensorDesc has no shape array (call SetShapeAddr first)");
    }
    desc.dim_ = dim_;
    desc.ptr_ = GetDataPtr<T>(index);
    desc.index_ = index;
    const __gm__ uint64_t *record = shapeStart_ + static_cast<uint64_t>(index) * (1 + dim_);
    for (uint32_t i = 0; i < dim_; ++i) {
      desc.shape_[i] = Word(c, record + 1 + i, "ListTensorDesc::GetDesc");
    }
  }
#endif
  template <class T>
  __gm__ T *GetDataPtr(uint32_t index) {
    opgen_rt::device::Core *c = Decoded("ListTensorDesc::GetDataPtr");
    return reinterpret_cast<__gm__ T *>(static_cast<uintptr_t>(Word(c, dataPtr_ + index, "ListTensorDesc::GetDataPtr")));
  }
  uint32_t GetSize() {
    Decoded("ListTensorDesc::GetSize");
    return count_;
  }

 private:
  // One descriptor word: a GM scalar read of the launch (probe mode: 0).
  static uint64_t Word(opgen_rt::device::Core *c, const __gm__ uint64_t *p, const char *op) {
    c->ScalarGmRead(op, p, sizeof(uint64_t));
    uint64_t v = 0;
    if (!c->probe) {
      std::memcpy(&v, p, sizeof(v));
    }
    return v;
  }

  opgen_rt::device::Core *Decoded(const char *op) const {
    opgen_rt::device::Core *c = opgen_rt::device::CurrentCore();
    c->Poll();
    if (dataPtr_ == nullptr) {
      c->Fault(opgen_rt::device::rule::kGmBounds, std::string(op) + " on a ListTensorDesc that was never Init");
    }
    return c;
  }

  void Decode(__gm__ void *data, uint32_t length, uint32_t shapeSize) {
    opgen_rt::device::Core *c = opgen_rt::device::CurrentCore();
    c->Poll();
    if (data == nullptr) {
      c->Fault(opgen_rt::device::rule::kGmBounds, "ListTensorDesc::Init: the descriptor address is nullptr");
    }
    const auto *head = reinterpret_cast<const __gm__ uint64_t *>(data);
    const uint64_t tableOffset = Word(c, head, "ListTensorDesc::Init");
    shapeStart_ = head + 1;
    dataPtr_ = head + tableOffset / sizeof(uint64_t);
    const uint64_t first = Word(c, shapeStart_, "ListTensorDesc::Init");
    dim_ = static_cast<uint32_t>(first & 0xffffffffu);
    const auto high = static_cast<uint32_t>(first >> 32);
    const uint32_t stride = dim_ == 0 ? 2 : 1 + dim_;
    count_ = high != 0 ? high
                       : static_cast<uint32_t>(Word(c, dataPtr_ - stride, "ListTensorDesc::Init") >> 32) + 1;
    // Whether every record has the first record's rank (GetDesc's stride): an unchecked walk over the
    // records, not a kernel access.
    sameRank_ = true;
    if (!c->probe) {
      for (const __gm__ uint64_t *r = shapeStart_; r < dataPtr_;) {
        c->CheckGm(r, sizeof(uint64_t), false, "ListTensorDesc::Init");
        uint64_t w = 0;
        std::memcpy(&w, r, sizeof(w));
        const uint64_t rank = w & 0xffffffffu;
        sameRank_ = sameRank_ && rank == dim_;
        r += 1 + rank;
      }
    }
    (void)length;
    (void)shapeSize;
  }

  const __gm__ uint64_t *dataPtr_ = nullptr;
  const __gm__ uint64_t *shapeStart_ = nullptr;
  uint32_t dim_ = 0;
  uint32_t count_ = 0;
  bool sameRank_ = true;
};

}  // namespace AscendC

#endif  // OPGEN_RT_DEVICE_LIST_TENSOR_H
