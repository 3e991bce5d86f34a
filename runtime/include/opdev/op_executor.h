// ascend-opgen host emulation of CANN's opdev/op_executor.h: aclOpExecutor, the plan an aclnn phase 1 builds
// and phase 2 runs.
//
// Phase 1 (GetWorkspaceSize) adds tasks to an executor: host tasks (l0op::Contiguous, Cast, BroadcastTo,
// ViewCopy) and AICore kernel launches (ADD_TO_LAUNCHER_LIST_AICORE, whose tiling runs right away).
// Tensors the executor allocates get host storage only when phase 2 runs. Phase 2
// (CommonOpExecutorRun) runs the tasks in order on the calling thread and then destroys the executor:
// executors are single use. Running an executor twice, or one that never came from phase 1, returns
// ACLNN_ERR_PARAM_INVALID with a message; it never touches freed memory.
#ifndef OPGEN_OPDEV_OP_EXECUTOR_H
#define OPGEN_OPDEV_OP_EXECUTOR_H

#include <cstdint>

#include "acl/acl_base.h"
#include "opdev/common_types.h"
#include "opdev/data_type_utils.h"
#include "opdev/op_arg_def.h"
#include "opdev/op_log.h"

namespace opgen_rt {
struct ExecutorState;
class ExecutorAccess;
}  // namespace opgen_rt

class UniqueExecutor;

struct aclOpExecutor {
 public:
  ~aclOpExecutor();
  aclOpExecutor(const aclOpExecutor &) = delete;
  aclOpExecutor &operator=(const aclOpExecutor &) = delete;

  // A contiguous tensor of `shape` owned by the executor (storage allocated in phase 2, filled with 0xFF).
  aclTensor *AllocTensor(const op::Shape &shape, op::DataType dataType, op::Format format = op::Format::FORMAT_ND);
  aclTensor *AllocTensor(const op::Shape &storageShape, const op::Shape &originShape, op::DataType dataType,
                         op::Format storageFormat, op::Format originFormat);
  // A contiguous 1-D tensor holding `value` (known now, in phase 1), converted to dataType.
  aclTensor *AllocHostTensor(const int64_t *value, uint64_t size, op::DataType dataType);
  aclTensor *AllocHostTensor(const uint64_t *value, uint64_t size, op::DataType dataType);
  aclTensor *AllocHostTensor(const int32_t *value, uint64_t size, op::DataType dataType);
  aclTensor *AllocHostTensor(const bool *value, uint64_t size, op::DataType dataType);
  aclTensor *AllocHostTensor(const float *value, uint64_t size, op::DataType dataType);
  aclTensor *AllocHostTensor(const double *value, uint64_t size, op::DataType dataType);
  // A host tensor of shape [value->Size()] holding the array's elements converted to dataType, owned by the
  // executor (opbase include/opdev/op_executor.h; what an L2 API passes as a device input made from a host
  // array, e.g. LayerNormV4's normalized_shape). nullptr (logged) for a null array or a dtype it cannot hold.
  const aclTensor *ConvertToTensor(const aclIntArray *value, op::DataType dataType);
  // A 0-d host tensor holding the scalar converted to dataType, owned by the executor (opbase: how an L2 API
  // passes an aclScalar to a kernel as a one-element device input). nullptr (logged) for a null scalar or a
  // dtype it cannot hold.
  const aclTensor *ConvertToTensor(const aclScalar *value, op::DataType dataType);
  // A contiguous view of `tensor`'s storage with `shape`, starting `offset` elements into the storage.
  aclTensor *CreateView(const aclTensor *tensor, const op::Shape &shape, int64_t offset);
  aclTensor *CreateView(const aclTensor *tensor, const op::Shape &shape, const op::Shape &storageShape,
                        const op::Strides &strides, int64_t offset);
  aclIntArray *AllocIntArray(const int64_t *value, uint64_t size);
  aclFloatArray *AllocFloatArray(const float *value, uint64_t size);
  aclBoolArray *AllocBoolArray(const bool *value, uint64_t size);
  // A list of the `size` tensors at `tensors` (pointers copied; null or size 0: an empty list) that the executor
  // frees with itself; the tensors are not its to free (opbase include/nnopbase/opdev/op_executor.h).
  aclTensorList *AllocTensorList(const aclTensor *const *tensors, uint64_t size);
  aclScalarList *AllocScalarList(const aclScalar *const *scalars, uint64_t size);

  // Workspace bytes phase 2 needs: the kernel launches' workspaces, each slice aligned to 512 bytes.
  uint64_t GetWorkspaceSize() const;
  void AbandonCache(bool disableRepeat = false) {
    (void)disableRepeat;
  }

 private:
  friend class UniqueExecutor;
  friend class opgen_rt::ExecutorAccess;
  aclOpExecutor();
  opgen_rt::ExecutorState *state_;
};

// Owns a new executor until ReleaseTo hands it to the caller of phase 1 (which makes it runnable).
class UniqueExecutor {
 public:
  explicit UniqueExecutor(const char *funcName);
  ~UniqueExecutor();
  UniqueExecutor(const UniqueExecutor &) = delete;
  UniqueExecutor &operator=(const UniqueExecutor &) = delete;

  aclOpExecutor *get() const {
    return executor_;
  }
  aclOpExecutor *operator->() {
    return executor_;
  }
  void ReleaseTo(aclOpExecutor **executor);

 private:
  const char *funcName_;
  aclOpExecutor *executor_;
};

// Phase 2: checks the executor (null: ACLNN_ERR_PARAM_NULLPTR; consumed or unknown: ACLNN_ERR_PARAM_INVALID)
// and the workspace (null or smaller than GetWorkspaceSize(): ACLNN_ERR_PARAM_INVALID), then queues the tasks
// on `stream`'s thread and returns (a stream that is not live: ACLNN_ERR_RUNTIME_ERROR); the executor is
// destroyed after its tasks ran (unless it was made repeatable). A kernel fault is the stream's error:
// aclrtSynchronizeStream returns ACL_ERROR_RT_VECTOR_CORE_EXCEPTION with the fault text as the recent error
// message.
aclnnStatus CommonOpExecutorRun(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

namespace opgen_rt {
// The L0 AICore launch behind ADD_TO_LAUNCHER_LIST_AICORE: checks the launch against the OpDef, runs the
// op's tiling and records the kernel launch in the executor.
aclnnStatus AddAiCoreKernelLaunch(const char *opType, aclOpExecutor *executor, KernelLaunchArgs &&args);
}  // namespace opgen_rt

#endif  // OPGEN_OPDEV_OP_EXECUTOR_H
