// ascend-opgen host emulation of CANN's opdev/make_op_executor.h: CREATE_EXECUTOR and
// ADD_TO_LAUNCHER_LIST_AICORE (which uses the `executor` variable of the enclosing L0 function).
#ifndef OPGEN_OPDEV_MAKE_OP_EXECUTOR_H
#define OPGEN_OPDEV_MAKE_OP_EXECUTOR_H

#include "opdev/op_arg_def.h"
#include "opdev/op_executor.h"
#include "opdev/platform.h"

#define CREATE_EXECUTOR() UniqueExecutor(__func__)

// Returns an aclnnStatus: ACLNN_SUCCESS, ACLNN_ERR_INNER_TILING_ERROR (tiling failed),
// ACLNN_ERR_INNER_FIND_KERNEL_ERROR (no kernel, or no OpDef combination for these dtypes on this product),
// ACLNN_ERR_INNER (the launch does not match the OpDef). The reason is in aclGetRecentErrMsg().
#define ADD_TO_LAUNCHER_LIST_AICORE(KERNEL_NAME, ...) \
  (static_cast<void>(KERNEL_NAME##OpTypeId()),        \
   ::opgen_rt::AddAiCoreKernelLaunch(#KERNEL_NAME, executor, ::opgen_rt::CollectLaunchArgs(__VA_ARGS__)))

#endif  // OPGEN_OPDEV_MAKE_OP_EXECUTOR_H
