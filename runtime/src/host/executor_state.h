// ascend-opgen host emulation, internal: what an aclOpExecutor holds, and access to tensor internals.
#ifndef OPGEN_RT_HOST_EXECUTOR_STATE_H
#define OPGEN_RT_HOST_EXECUTOR_STATE_H

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "opdev/common_types.h"
#include "opdev/op_executor.h"
#include "opgen_rt/core.h"
#include "registry.h"

namespace opgen_rt {

class TensorAccess {
 public:
  static int64_t StorageId(const aclTensor *t) {
    return t->storageId_;
  }
  static void SetStorageId(aclTensor *t, int64_t id) {
    t->storageId_ = id;
  }
  static void SetHostOwned(aclTensor *t, bool v) {
    t->hostOwned_ = v;
  }
};

// Host memory behind executor-owned tensors; allocated when phase 2 starts (or at creation when the data
// is known in phase 1).
struct StorageBlock {
  uint64_t bytes = 0;
  std::unique_ptr<uint8_t[]> data;
  bool filled = false;  // holds data from phase 1 (AllocHostTensor): not re-poisoned
};

enum class HostTaskKind { CONTIGUOUS, CAST, BROADCAST_TO, VIEW_COPY };
const char *HostTaskKindName(HostTaskKind kind);

// An element-wise copy from a view of `src` into a view of `dst` (same element count), converting dtypes.
struct HostTask {
  HostTaskKind kind = HostTaskKind::CONTIGUOUS;
  const aclTensor *src = nullptr;
  const aclTensor *dst = nullptr;
  // The source is read through this shape and these strides (elements) from src's view offset; set for
  // broadcasts (stride 0 on expanded dimensions) and reshaping copies.
  op::Shape srcShape;
  op::Strides srcStrides;
};

struct LaunchTask {
  std::string opType;
  std::string kernelName;
  KernelEntry entry = nullptr;
  std::vector<const aclTensor *> inputs;  // per OpDef input: the tensor (nullptr: absent, or a list)
  std::vector<const aclTensor *> outputs;
  // Per OpDef input / output: whether it is a tensor list (DYNAMIC), and its tensors.
  std::vector<bool> inputIsList;
  std::vector<bool> outputIsList;
  std::vector<std::vector<const aclTensor *>> inputLists;
  std::vector<std::vector<const aclTensor *>> outputLists;
  std::vector<std::string> inputNames;
  std::vector<std::string> outputNames;
  std::vector<std::pair<size_t, uint64_t>> outputInitValues;  // (output index, InitValue) from the OpDef
  const aclTensor *workspaceTensor = nullptr;                 // OP_WORKSPACE, or nullptr: executor workspace
  uint32_t blockDim = 0;
  uint64_t tilingKey = 0;
  uint32_t scheduleMode = 0;
  bool needAtomic = false;  // the tiling's SetNeedAtomic: without it InitValue does not take effect
  std::vector<uint8_t> tilingData;
  std::vector<uint64_t> workspaceSizes;
  uint64_t workspaceBytes = 0;   // sum of workspaceSizes
  uint64_t workspaceOffset = 0;  // into the phase-2 workspace
  // Caller tensors a ViewCopy of an output was planned away onto (l0op::ViewCopy): the kernel writes them
  // directly. They are poisoned before the kernel runs, as the output it replaces was fresh device memory
  // whose every byte the copy would carry over: a byte the kernel leaves unwritten arrives as garbage, as on
  // an NPU.
  std::vector<const aclTensor *> poisonFirst;
};

using Task = std::variant<HostTask, LaunchTask>;

struct ExecutorState {
  std::string creator;  // the phase-1 function that made it
  std::vector<std::unique_ptr<aclTensor>> tensors;
  std::vector<std::unique_ptr<aclIntArray>> intArrays;
  std::vector<std::unique_ptr<aclFloatArray>> floatArrays;
  std::vector<std::unique_ptr<aclBoolArray>> boolArrays;
  std::vector<aclTensorList *> tensorLists;  // deleted by ~aclOpExecutor (the lists' destructor is private)
  std::vector<aclScalarList *> scalarLists;
  std::vector<StorageBlock> storages;
  std::unordered_map<const aclTensor *, const aclTensor *> snapshots;  // caller tensor -> executor copy
  std::vector<Task> tasks;
  uint64_t workspaceSize = 0;
  bool repeatable = false;

  // A tensor owned by this executor with fresh storage of `bytes`.
  aclTensor *NewTensor(const op::Shape &viewShape, const op::Strides &strides, int64_t offset, op::DataType dtype,
                       op::Format format, const op::Shape &storageShape, uint64_t bytes);
  // A tensor owned by this executor sharing the storage of `base`.
  aclTensor *NewView(const aclTensor *base, const op::Shape &viewShape, const op::Strides &strides, int64_t offset,
                     const op::Shape &storageShape);
  // The tensor a task should use for `t`: `t` itself when this executor owns it, else a copy of the caller's
  // tensor taken now (so the caller may destroy theirs before phase 2).
  const aclTensor *Pin(const aclTensor *t);
  bool Owns(const aclTensor *t) const;
};

class ExecutorAccess {
 public:
  static ExecutorState *State(const aclOpExecutor *e) {
    return e->state_;
  }
};

// Row-major strides of `shape`.
op::Strides ContiguousStrides(const op::Shape &shape);
// Bytes of the storage a view needs (0 for empty views): (offset + max reachable index + 1) * element size.
uint64_t ViewExtentBytes(const aclTensor *t);

// Phase 2 work. Both return ACLNN_SUCCESS or an error status after reporting the reason (OP_LOGE).
aclnnStatus RunHostTask(const HostTask &task, HostTaskStatsRecord &stats);
aclnnStatus RunLaunchTask(const LaunchTask &task, uint8_t *workspace, LaunchStatsRecord &stats,
                          std::vector<HostTaskStatsRecord> &hostStats);

}  // namespace opgen_rt

#endif  // OPGEN_RT_HOST_EXECUTOR_STATE_H
