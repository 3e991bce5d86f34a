// ascend-opgen host emulation of CANN's exe_graph/runtime/continuous_vector.h (list attributes).
#ifndef OPGEN_EXE_GRAPH_RUNTIME_CONTINUOUS_VECTOR_H
#define OPGEN_EXE_GRAPH_RUNTIME_CONTINUOUS_VECTOR_H

#include <cstddef>
#include <memory>
#include <vector>

namespace gert {

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
