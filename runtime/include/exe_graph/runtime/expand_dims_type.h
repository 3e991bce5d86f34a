// ascend-opgen host emulation of CANN's exe_graph/runtime/expand_dims_type.h (hicann/metadef
// inc/external/exe_graph/runtime/expand_dims_type.h): gert::ExpandDimsType, the rule that pads a shape to more
// dims, as far as the context builders take it (their default argument `{}`): the constructors and equality.
// Expanding a shape by the rule is not emulated.
#ifndef OPGEN_EXE_GRAPH_RUNTIME_EXPAND_DIMS_TYPE_H
#define OPGEN_EXE_GRAPH_RUNTIME_EXPAND_DIMS_TYPE_H

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "graph/types.h"

namespace gert {
class ExpandDimsType {
 public:
  using AxisIndex = uint64_t;
  static constexpr size_t kMaxExpandSize = 56;

  ExpandDimsType() = default;

  // A rule written as '0'/'1' per dim ('1': a dim inserted there); longer than kMaxExpandSize: no rule.
  explicit ExpandDimsType(const char *const expand_dims_type) {
    if (expand_dims_type == nullptr) {
      return;
    }
    const size_t length = std::strlen(expand_dims_type);
    if (length > kMaxExpandSize) {
      return;
    }
    size_ = length;
    for (AxisIndex i = 0; i < length; ++i) {
      if (expand_dims_type[i] == '1') {
        mask_ |= (uint64_t{1} << i);
      }
    }
  }

  // A rule packed as an int64: the length in the top 8 bits, the mask in the low 56.
  explicit ExpandDimsType(const int64_t reshape_type_mask) {
    if (reshape_type_mask == 0) {
      return;
    }
    size_ = static_cast<uint64_t>(reshape_type_mask) >> kMaxExpandSize;
    if (size_ > kMaxExpandSize) {
      size_ = 0;
      return;
    }
    mask_ = static_cast<uint64_t>(reshape_type_mask) & 0xffULL;
  }

  bool operator==(const ExpandDimsType &other) const {
    return size_ == other.size_ && mask_ == other.mask_;
  }

 private:
  uint64_t size_ = 0;
  uint64_t mask_ = 0;
};
}  // namespace gert

#endif  // OPGEN_EXE_GRAPH_RUNTIME_EXPAND_DIMS_TYPE_H
