// ascend-opgen host emulation of CANN's aclnn_kernels/common/op_error_check.h: the parameter-check macros of
// aclnn L2 code. Each logs a readable message (OP_LOGE, so aclGetRecentErrMsg() returns it) and then
// evaluates the caller's `retExpr` (typically `return ACLNN_ERR_PARAM_INVALID`).
#ifndef OPGEN_ACLNN_KERNELS_COMMON_OP_ERROR_CHECK_H
#define OPGEN_ACLNN_KERNELS_COMMON_OP_ERROR_CHECK_H

#include <cstddef>

#include "opdev/common_types.h"
#include "opdev/data_type_utils.h"
#include "opdev/format_utils.h"
#include "opdev/op_log.h"
#include "opdev/shape_utils.h"

#include "aclnn/acl_meta.h"

// True (and an error reported naming `name`) when `param` is null. As in CANN's op_error_check.h, these are
// file-local functions of the global namespace with one overload per aclnn parameter type (aclTensor,
// aclTensorList, aclScalar, aclIntArray, aclBoolArray, aclFloatArray) and no other: OP_CHECK_NULL on any other
// pointer (a `char *`) does not compile (hicann/opbase docs/zh/api/nnopbase/opdev/L0/IsNullptr.md).
namespace opgen_rt {
inline bool ReportNullArgument(const void *param, const char *name) {
  if (param == nullptr) {
    OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "Expected a non-null argument for %s, but got nullptr.", name);
    return true;
  }
  return false;
}
}  // namespace opgen_rt

static inline bool IsNullptr(const aclTensor *tensor, const char *name) {
  return opgen_rt::ReportNullArgument(tensor, name);
}

static inline bool IsNullptr(const aclTensorList *tensorList, const char *name) {
  return opgen_rt::ReportNullArgument(tensorList, name);
}

static inline bool IsNullptr(const aclScalar *scalar, const char *name) {
  return opgen_rt::ReportNullArgument(scalar, name);
}

static inline bool IsNullptr(const aclIntArray *intArr, const char *name) {
  return opgen_rt::ReportNullArgument(intArr, name);
}

static inline bool IsNullptr(const aclBoolArray *boolArr, const char *name) {
  return opgen_rt::ReportNullArgument(boolArr, name);
}

static inline bool IsNullptr(const aclFloatArray *floatArr, const char *name) {
  return opgen_rt::ReportNullArgument(floatArr, name);
}

// Phase-1 entry check: both out-parameters of a GetWorkspaceSize function must be non-null.
#define OP_CHECK_COMM_INPUT(workspaceSize, executor)                                                                   \
  do {                                                                                                                 \
    ::op::internal::ClearRecentError();                                                                                \
    if ((workspaceSize) == nullptr || (executor) == nullptr) {                                                         \
      OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "%s: %s must not be nullptr.", __func__,                                        \
              (workspaceSize) == nullptr ? ((executor) == nullptr ? #workspaceSize " and " #executor : #workspaceSize) \
                                         : #executor);                                                                 \
      return ACLNN_ERR_PARAM_NULLPTR;                                                                                  \
    }                                                                                                                  \
  } while (false)

#define OP_CHECK_NULL(param, retExpr) \
  do {                                \
    if (IsNullptr((param), #param)) { \
      retExpr;                        \
    }                                 \
  } while (false)

#define OP_CHECK_DTYPE_NOT_SUPPORT(tensor, supportList, retExpr)                                                  \
  do {                                                                                                            \
    if (!::op::CheckType((tensor)->GetDataType(), (supportList))) {                                               \
      OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s, which is not supported: it must be one of %s.", #tensor, \
              ::op::ToString((tensor)->GetDataType()).GetString(), ::op::ToString(supportList).GetString());      \
      retExpr;                                                                                                    \
    }                                                                                                             \
  } while (false)

#define OP_CHECK_DTYPE_NOT_MATCH(tensor, expectedDtype, retExpr)                                               \
  do {                                                                                                         \
    if ((tensor)->GetDataType() != (expectedDtype)) {                                                          \
      OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s must have dtype %s, but has %s.", #tensor,                          \
              ::op::ToString(expectedDtype).GetString(), ::op::ToString((tensor)->GetDataType()).GetString()); \
      retExpr;                                                                                                 \
    }                                                                                                          \
  } while (false)

#define OP_CHECK_DTYPE_NOT_SAME(tensor1, tensor2, retExpr)                                        \
  do {                                                                                            \
    if ((tensor1)->GetDataType() != (tensor2)->GetDataType()) {                                   \
      OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s (%s) and %s (%s) must have the same dtype.", #tensor1, \
              ::op::ToString((tensor1)->GetDataType()).GetString(), #tensor2,                     \
              ::op::ToString((tensor2)->GetDataType()).GetString());                              \
      retExpr;                                                                                    \
    }                                                                                             \
  } while (false)

#define OP_CHECK_MAX_DIM(tensor, maxDim, retExpr)                                                               \
  do {                                                                                                          \
    if ((tensor)->GetViewShape().GetDimNum() > static_cast<size_t>(maxDim)) {                                   \
      OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s has %zu dimensions (shape %s); at most %zu are supported.", #tensor, \
              (tensor)->GetViewShape().GetDimNum(), ::op::ToString((tensor)->GetViewShape()).GetString(),       \
              static_cast<size_t>(maxDim));                                                                     \
      retExpr;                                                                                                  \
    }                                                                                                           \
  } while (false)

#define OP_CHECK_MIN_DIM(tensor, minDim, retExpr)                                                               \
  do {                                                                                                          \
    if ((tensor)->GetViewShape().GetDimNum() < static_cast<size_t>(minDim)) {                                   \
      OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s has %zu dimensions (shape %s); at least %zu are required.", #tensor, \
              (tensor)->GetViewShape().GetDimNum(), ::op::ToString((tensor)->GetViewShape()).GetString(),       \
              static_cast<size_t>(minDim));                                                                     \
      retExpr;                                                                                                  \
    }                                                                                                           \
  } while (false)

#define OP_CHECK_WRONG_DIMENSION(tensor, expectedDimNum, retExpr)                                         \
  do {                                                                                                    \
    if ((tensor)->GetViewShape().GetDimNum() != static_cast<size_t>(expectedDimNum)) {                    \
      OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s must have %zu dimensions, but has shape %s.", #tensor,         \
              static_cast<size_t>(expectedDimNum), ::op::ToString((tensor)->GetViewShape()).GetString()); \
      retExpr;                                                                                            \
    }                                                                                                     \
  } while (false)

#define OP_CHECK_SHAPE_NOT_EQUAL(tensor1, tensor2, retExpr)                                                   \
  do {                                                                                                        \
    if ((tensor1)->GetViewShape() != (tensor2)->GetViewShape()) {                                             \
      OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s (shape %s) and %s (shape %s) must have the same shape.", #tensor1, \
              ::op::ToString((tensor1)->GetViewShape()).GetString(), #tensor2,                                \
              ::op::ToString((tensor2)->GetViewShape()).GetString());                                         \
      retExpr;                                                                                                \
    }                                                                                                         \
  } while (false)

#define OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(tensor, expectedShape, retExpr)                             \
  do {                                                                                                          \
    if ((tensor)->GetViewShape() != (expectedShape)) {                                                          \
      OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s must have shape %s, but has shape %s.", #tensor,                     \
              ::op::ToString(expectedShape).GetString(), ::op::ToString((tensor)->GetViewShape()).GetString()); \
      retExpr;                                                                                                  \
    }                                                                                                           \
  } while (false)

#define OP_CHECK_BROADCAST(tensor1, tensor2, retExpr)                                                             \
  do {                                                                                                            \
    if (!::op::CheckBroadcastShape((tensor1)->GetViewShape(), (tensor2)->GetViewShape())) {                       \
      OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s (shape %s) and %s (shape %s) cannot be broadcast together.", #tensor1, \
              ::op::ToString((tensor1)->GetViewShape()).GetString(), #tensor2,                                    \
              ::op::ToString((tensor2)->GetViewShape()).GetString());                                             \
      retExpr;                                                                                                    \
    }                                                                                                             \
  } while (false)

#define OP_CHECK_BROADCAST_WITH_SHAPE(tensor, shape, retExpr)                                           \
  do {                                                                                                  \
    if (!::op::CheckBroadcastShape((tensor)->GetViewShape(), (shape))) {                                \
      OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s (shape %s) cannot be broadcast with shape %s.", #tensor,     \
              ::op::ToString((tensor)->GetViewShape()).GetString(), ::op::ToString(shape).GetString()); \
      retExpr;                                                                                          \
    }                                                                                                   \
  } while (false)

#define OP_CHECK_BROADCAST_AND_INFER_SHAPE(tensor1, tensor2, broadcastShape, retExpr)                             \
  do {                                                                                                            \
    if (!::op::BroadcastInferShape((tensor1)->GetViewShape(), (tensor2)->GetViewShape(), (broadcastShape))) {     \
      OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s (shape %s) and %s (shape %s) cannot be broadcast together.", #tensor1, \
              ::op::ToString((tensor1)->GetViewShape()).GetString(), #tensor2,                                    \
              ::op::ToString((tensor2)->GetViewShape()).GetString());                                             \
      retExpr;                                                                                                    \
    }                                                                                                             \
  } while (false)

// Two tensor lists of different lengths: an error naming both and their lengths, then `retExpr`.
#define OP_CHECK_TENSORLIST_SIZE_EQUAL(tensorlist1, tensorlist2, retExpr)                                   \
  do {                                                                                                      \
    if ((tensorlist1)->Size() != (tensorlist2)->Size()) {                                                   \
      OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s (%llu tensors) and %s (%llu tensors) must have the same length.", \
              #tensorlist1, static_cast<unsigned long long>((tensorlist1)->Size()), #tensorlist2,           \
              static_cast<unsigned long long>((tensorlist2)->Size()));                                      \
      retExpr;                                                                                              \
    }                                                                                                       \
  } while (false)

#endif  // OPGEN_ACLNN_KERNELS_COMMON_OP_ERROR_CHECK_H
