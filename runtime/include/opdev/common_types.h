// ascend-opgen host emulation of CANN's opdev/common_types.h: aclTensor, aclIntArray and friends, and the
// op:: type aliases (op::Shape, op::DataType, op::Format, op::Strides).
#ifndef OPGEN_OPDEV_COMMON_TYPES_H
#define OPGEN_OPDEV_COMMON_TYPES_H

#include <cstddef>
#include <cstdint>
#include <vector>

#include "aclnn/acl_meta.h"
#include "exe_graph/runtime/continuous_vector.h"
#include "exe_graph/runtime/shape.h"
#include "graph/types.h"
#include "opdev/op_errno.h"

namespace opgen_rt {
class TensorAccess;
}

namespace op {

using DataType = ge::DataType;
using Format = ge::Format;
using Shape = gert::Shape;
template <typename T, size_t N = 8>
using FVector = std::vector<T>;
using Strides = FVector<int64_t, 25>;
using ShapeVector = FVector<int64_t, 25>;

// Bytes of one element (0 for types without a whole-byte element size).
size_t TypeSize(DataType dataType);

}  // namespace op

// A tensor: a view (shape, strides and offset in elements, format) of a storage (shape, format, address).
// Tensors made by aclCreateTensor belong to the caller; tensors made by an executor (AllocTensor) belong to
// it, and their storage is host memory the executor allocates when phase 2 runs.
struct aclTensor {
 public:
  aclTensor(const op::Shape &viewShape, const op::Strides &viewStrides, int64_t viewOffset, op::DataType dataType,
            op::Format format, const op::Shape &storageShape, void *storageAddr);

  const op::Shape &GetViewShape() const {
    return viewShape_;
  }
  void SetViewShape(const op::Shape &shape) {
    viewShape_ = shape;
  }
  const op::Shape &GetStorageShape() const {
    return storageShape_;
  }
  void SetStorageShape(const op::Shape &shape) {
    storageShape_ = shape;
  }
  const op::Shape &GetOriginalShape() const {
    return originalShape_;
  }
  void SetOriginalShape(const op::Shape &shape) {
    originalShape_ = shape;
  }
  const op::Strides &GetViewStrides() const {
    return viewStrides_;
  }
  void SetViewStrides(const op::Strides &strides) {
    viewStrides_ = strides;
  }
  int64_t GetViewOffset() const {
    return viewOffset_;
  }
  void SetViewOffset(int64_t offset) {
    viewOffset_ = offset;
  }
  op::DataType GetDataType() const {
    return dataType_;
  }
  void SetDataType(op::DataType dataType) {
    dataType_ = dataType;
  }
  op::Format GetStorageFormat() const {
    return storageFormat_;
  }
  void SetStorageFormat(op::Format format) {
    storageFormat_ = format;
  }
  op::Format GetViewFormat() const {
    return viewFormat_;
  }
  void SetViewFormat(op::Format format) {
    viewFormat_ = format;
  }
  op::Format GetOriginalFormat() const {
    return originalFormat_;
  }
  void SetOriginalFormat(op::Format format) {
    originalFormat_ = format;
  }

  // Elements of the view (GetViewShape().GetShapeSize()).
  int64_t Size() const {
    return viewShape_.GetShapeSize();
  }
  int64_t Numel() const {
    return Size();
  }
  bool IsEmpty() const {
    return Size() == 0;
  }
  // True when the view's elements are laid out row-major without gaps (dimensions of size 1 and empty
  // views impose nothing); the view offset may be non-zero.
  bool IsContiguous() const;
  // Address of the first element of the view (storage address + view offset); nullptr without storage.
  void *GetData() const;
  // Address of the storage (element 0 of the storage).
  void *GetStorageAddr() const {
    return storageAddr_;
  }
  void SetStorageAddr(void *addr) {
    storageAddr_ = addr;
  }
  // True for a tensor an executor made and owns.
  bool IsExecutorOwned() const {
    return storageId_ >= 0 || hostOwned_;
  }

 private:
  friend class opgen_rt::TensorAccess;
  op::Shape viewShape_;
  op::Strides viewStrides_;
  int64_t viewOffset_ = 0;
  op::DataType dataType_ = ge::DT_FLOAT;
  op::Format storageFormat_ = ge::FORMAT_ND;
  op::Format viewFormat_ = ge::FORMAT_ND;
  op::Format originalFormat_ = ge::FORMAT_ND;
  op::Shape storageShape_;
  op::Shape originalShape_;
  void *storageAddr_ = nullptr;
  int64_t storageId_ = -1;  // index of the executor storage block backing this tensor (-1: caller memory)
  bool hostOwned_ = false;  // executor-owned with data known in phase 1 (AllocHostTensor)
};

struct aclIntArray {
 public:
  aclIntArray(const int64_t *value, uint64_t size) : values_(value == nullptr ? 0 : size) {
    for (uint64_t i = 0; i < values_.size(); ++i) {
      values_[i] = value[i];
    }
  }
  uint64_t Size() const {
    return values_.size();
  }
  const int64_t *GetData() const {
    return values_.data();
  }
  const int64_t &operator[](uint64_t i) const {
    return values_[i];
  }

 private:
  std::vector<int64_t> values_;
};

// A host scalar of one dtype (hicann/opbase include/opdev/common_types.h: `class aclScalar`, the subset the
// generated L2 code and CANN's own activation APIs use). aclCreateScalar copies the value; the To* methods
// convert it as a C++ static_cast from the stored type (fp16/bf16 exactly widened first).
struct aclScalar {
 public:
  aclScalar(const void *data, op::DataType dataType);
  const void *GetData() const {
    return bytes_;
  }
  uint64_t Size() const {
    return size_;
  }
  op::DataType GetDataType() const {
    return dataType_;
  }
  float ToFloat() const;
  double ToDouble() const;
  bool ToBool() const;
  int32_t ToInt32() const;
  int64_t ToInt64() const;

 private:
  alignas(8) unsigned char bytes_[16] = {};
  uint64_t size_ = 0;
  op::DataType dataType_ = ge::DT_FLOAT;
};

// A list of tensors (hicann/opbase include/nnopbase/opdev/common_types.h: `struct aclTensorList`). It holds
// copies of the element pointers, not the tensors: aclCreateTensorList makes one for the caller and
// aclDestroyTensorList destroys it together with its elements; aclOpExecutor::AllocTensorList makes one the
// executor frees (its elements untouched). A null `tensors`, or size 0, gives an empty list.
struct aclTensorList {
  friend struct aclOpExecutor;
  friend aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size);
  friend aclnnStatus aclDestroyTensorList(const aclTensorList *array);

 public:
  aclTensor *&operator[](uint64_t i);
  const aclTensor *operator[](uint64_t i) const;
  uint64_t Size() const;
  const aclTensor *const *GetData() const;

 private:
  aclTensorList(const aclTensor *const *tensors, uint64_t size);
  ~aclTensorList();
  aclTensorList(const aclTensorList &) = delete;
  aclTensorList &operator=(const aclTensorList &) = delete;
  std::vector<aclTensor *> tensors_;
};

// A list of scalars (hicann/opbase include/nnopbase/opdev/common_types.h: `struct aclScalarList`), with the
// ownership of aclTensorList: aclDestroyScalarList destroys its elements.
struct aclScalarList {
  friend struct aclOpExecutor;
  friend aclScalarList *aclCreateScalarList(const aclScalar *const *value, uint64_t size);
  friend aclnnStatus aclDestroyScalarList(const aclScalarList *array);

 public:
  aclScalar *&operator[](uint64_t i);
  const aclScalar *operator[](uint64_t i) const;
  uint64_t Size() const;
  const aclScalar *const *GetData() const;

 private:
  aclScalarList(const aclScalar *const *scalars, uint64_t size);
  ~aclScalarList();
  aclScalarList(const aclScalarList &) = delete;
  aclScalarList &operator=(const aclScalarList &) = delete;
  std::vector<aclScalar *> scalars_;
};

struct aclFloatArray {
 public:
  aclFloatArray(const float *value, uint64_t size) : values_(value == nullptr ? 0 : size) {
    for (uint64_t i = 0; i < values_.size(); ++i) {
      values_[i] = value[i];
    }
  }
  uint64_t Size() const {
    return values_.size();
  }
  const float *GetData() const {
    return values_.data();
  }
  const float &operator[](uint64_t i) const {
    return values_[i];
  }

 private:
  std::vector<float> values_;
};

struct aclBoolArray {
 public:
  aclBoolArray(const bool *value, uint64_t size)
      : values_(value == nullptr ? std::vector<bool>() : std::vector<bool>(value, value + size)) {}
  uint64_t Size() const {
    return values_.GetSize();
  }
  const bool *GetData() const {
    return values_.GetData();
  }
  const bool &operator[](uint64_t i) const {
    return values_.GetData()[i];
  }

 private:
  gert::TypedContinuousVector<bool> values_;
};

#endif  // OPGEN_OPDEV_COMMON_TYPES_H
