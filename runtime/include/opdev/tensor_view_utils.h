// ascend-opgen host emulation of CANN's opdev/tensor_view_utils.h.
#ifndef OPGEN_OPDEV_TENSOR_VIEW_UTILS_H
#define OPGEN_OPDEV_TENSOR_VIEW_UTILS_H

#include "opdev/common_types.h"

namespace op {

inline bool IsContiguous(const aclTensor *tensor) {
  return tensor == nullptr || tensor->IsContiguous();
}

}  // namespace op

#endif  // OPGEN_OPDEV_TENSOR_VIEW_UTILS_H
