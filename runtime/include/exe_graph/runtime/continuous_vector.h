// ascend-opgen host emulation of CANN's exe_graph/runtime/continuous_vector.h (list attributes).
#ifndef OPGEN_EXE_GRAPH_RUNTIME_CONTINUOUS_VECTOR_H
#define OPGEN_EXE_GRAPH_RUNTIME_CONTINUOUS_VECTOR_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "graph/ge_error_codes.h"

namespace gert {

// CANN's untyped ContinuousVector (hicann/metadef inc/external/exe_graph/runtime/continuous_vector.h): a
// header (capacity, size) followed in the same allocation by `capacity` elements. Create<T>(capacity)
// allocates one; a tiling writes its workspace byte counts into the one the TilingContext carries.
class ContinuousVector {
 public:
  template <typename T>
  static std::unique_ptr<uint8_t[]> Create(size_t capacity, size_t &total_size) {
    if (capacity != 0 && sizeof(T) > (SIZE_MAX - sizeof(ContinuousVector)) / capacity) {
      return nullptr;
    }
    total_size = sizeof(ContinuousVector) + capacity * sizeof(T);
    auto holder = std::unique_ptr<uint8_t[]>(new (std::nothrow) uint8_t[total_size]);
    if (holder == nullptr) {
      return nullptr;
    }
    reinterpret_cast<ContinuousVector *>(holder.get())->Init(capacity);
    return holder;
  }
  template <typename T>
  static std::unique_ptr<uint8_t[]> Create(const size_t capacity) {
    size_t total_size;
    return Create<T>(capacity, total_size);
  }
  void Init(const size_t capacity) {
    capacity_ = capacity;
    size_ = 0U;
  }
  size_t GetSize() const {
    return size_;
  }
  // GRAPH_PARAM_OUT_OF_RANGE past the capacity.
  ge::graphStatus SetSize(const size_t size) {
    if (size > capacity_) {
      return ge::GRAPH_PARAM_OUT_OF_RANGE;
    }
    size_ = size;
    return ge::GRAPH_SUCCESS;
  }
  size_t GetCapacity() const {
    return capacity_;
  }
  const void *GetData() const {
    return elements;
  }
  void *MutableData() {
    return elements;
  }

 private:
  size_t capacity_;
  size_t size_;
  alignas(8) uint8_t elements[8];
};

// An owned, contiguous array of T (bool included: the elements are real bool objects).
template <typename T>
class TypedContinuousVector {
 public:
  TypedContinuousVector() = default;
  explicit TypedContinuousVector(const std::vector<T> &values) {
    Assign(values.begin(), values.end());
  }
  TypedContinuousVector(const TypedContinuousVector &other) {
    Assign(other.GetData(), other.GetData() + other.size_);
  }
  TypedContinuousVector &operator=(const TypedContinuousVector &other) {
    if (this != &other) {
      Assign(other.GetData(), other.GetData() + other.size_);
    }
    return *this;
  }
  TypedContinuousVector(TypedContinuousVector &&) noexcept = default;
  TypedContinuousVector &operator=(TypedContinuousVector &&) noexcept = default;
  ~TypedContinuousVector() = default;

  size_t GetSize() const {
    return size_;
  }
  size_t GetCapacity() const {
    return size_;
  }
  const T *GetData() const {
    return data_.get();
  }

 private:
  template <typename It>
  void Assign(It first, It last) {
    size_ = static_cast<size_t>(last - first);
    data_.reset(size_ == 0 ? nullptr : new T[size_]);
    for (size_t i = 0; i < size_; ++i, ++first) {
      data_[i] = static_cast<T>(*first);
    }
  }

  std::unique_ptr<T[]> data_;
  size_t size_ = 0;
};

}  // namespace gert

#endif  // OPGEN_EXE_GRAPH_RUNTIME_CONTINUOUS_VECTOR_H
