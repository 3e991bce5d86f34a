// ascend-opgen host emulation of CANN's exe_graph/runtime/shape.h: gert::Shape (also op::Shape).
#ifndef OPGEN_EXE_GRAPH_RUNTIME_SHAPE_H
#define OPGEN_EXE_GRAPH_RUNTIME_SHAPE_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>

namespace gert {

class Shape {
 public:
  static constexpr size_t kMaxDimNum = 25;
  static constexpr int64_t kInvalidDimValue = std::numeric_limits<int64_t>::min();

  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) {
    for (int64_t d : dims) {
      AppendDim(d);
    }
  }

  bool operator==(const Shape &rhs) const {
    if (dimNum_ != rhs.dimNum_) {
      return false;
    }
    for (size_t i = 0; i < dimNum_; ++i) {
      if (dims_[i] != rhs.dims_[i]) {
        return false;
      }
    }
    return true;
  }
  bool operator!=(const Shape &rhs) const {
    return !(*this == rhs);
  }

  // Product of the dimensions; 1 for a scalar (rank 0); -1 when a dimension is negative or the product
  // overflows int64.
  int64_t GetShapeSize() const {
    int64_t size = 1;
    for (size_t i = 0; i < dimNum_; ++i) {
      if (dims_[i] < 0) {
        return -1;
      }
      if (__builtin_mul_overflow(size, dims_[i], &size)) {
        return -1;
      }
    }
    return size;
  }

  bool IsScalar() const {
    return dimNum_ == 0;
  }
  void SetScalar() {
    dimNum_ = 0;
  }
  size_t GetDimNum() const {
    return dimNum_;
  }
  // Dimensions past the current rank (up to kMaxDimNum) are set to 0.
  void SetDimNum(size_t dimNum) {
    if (dimNum > kMaxDimNum) {
      dimNum = kMaxDimNum;
    }
    for (size_t i = dimNum_; i < dimNum; ++i) {
      dims_[i] = 0;
    }
    dimNum_ = dimNum;
  }
  // kInvalidDimValue when idx is not below GetDimNum().
  int64_t GetDim(size_t idx) const {
    return idx < dimNum_ ? dims_[idx] : kInvalidDimValue;
  }
  Shape &SetDim(size_t idx, int64_t value) {
    if (idx < dimNum_) {
      dims_[idx] = value;
    }
    return *this;
  }
  // Ignored once the shape holds kMaxDimNum dimensions.
  Shape &AppendDim(int64_t value) {
    if (dimNum_ < kMaxDimNum) {
      dims_[dimNum_++] = value;
    }
    return *this;
  }
  const int64_t &operator[](size_t idx) const {
    return dims_[idx];
  }
  int64_t &operator[](size_t idx) {
    return dims_[idx];
  }

 private:
  size_t dimNum_ = 0;
  std::array<int64_t, kMaxDimNum> dims_{};
};

}  // namespace gert

#endif  // OPGEN_EXE_GRAPH_RUNTIME_SHAPE_H
