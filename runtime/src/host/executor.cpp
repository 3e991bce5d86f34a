// ascend-opgen host emulation: aclOpExecutor (phase-1 plan, phase-2 run) and the live-executor registry.
#include <algorithm>
#include <cstring>
#include <mutex>
#include <new>
#include <unordered_set>

#include "dtype_convert.h"
#include "executor_state.h"
#include "opdev/op_executor.h"
#include "opgen_rt/c_api.h"
#include "opdev/op_log.h"
#include "opdev/shape_utils.h"
#include "registry.h"
#include "stream_state.h"

namespace {

constexpr uint8_t kPoisonByte = 0xFF;

// Executors handed out by phase 1 and not yet consumed. Phase 2 accepts only these, so a consumed or
// foreign pointer is reported instead of dereferenced.
struct LiveExecutors {
  std::mutex mutex;
  std::unordered_set<const aclOpExecutor *> live;
};

LiveExecutors &Live() {
  static LiveExecutors *registry = new LiveExecutors();
  return *registry;
}

template <typename T>
aclTensor *HostTensorFrom(opgen_rt::ExecutorState *state, const T *value, uint64_t size, op::DataType dataType,
                          opgen_rt::ElementValue (*toElement)(const T &), const char *api = "AllocHostTensor") {
  if ((value == nullptr && size > 0) || !opgen_rt::IsConvertibleDtype(dataType)) {
    OP_LOGE(ACLNN_ERR_INNER, "%s: %s.", api, value == nullptr ? "value is nullptr" : "unsupported dtype");
    return nullptr;
  }
  op::Shape shape;
  shape.AppendDim(static_cast<int64_t>(size));
  const uint64_t elem = op::TypeSize(dataType);
  aclTensor *t =
      state->NewTensor(shape, opgen_rt::ContiguousStrides(shape), 0, dataType, ge::FORMAT_ND, shape, size * elem);
  opgen_rt::StorageBlock &block = state->storages[static_cast<size_t>(opgen_rt::TensorAccess::StorageId(t))];
  block.data.reset(new uint8_t[block.bytes == 0 ? 1 : block.bytes]);
  for (uint64_t i = 0; i < size; ++i) {
    opgen_rt::WriteElement(block.data.get() + i * elem, dataType, toElement(value[i]));
  }
  block.filled = true;
  opgen_rt::TensorAccess::SetHostOwned(t, true);
  return t;
}

opgen_rt::ElementValue FromSigned(const int64_t &v) {
  opgen_rt::ElementValue e;
  e.kind = opgen_rt::ElementValue::Kind::SIGNED;
  e.i = v;
  return e;
}
opgen_rt::ElementValue FromInt32(const int32_t &v) {
  return FromSigned(v);
}
opgen_rt::ElementValue FromUnsigned(const uint64_t &v) {
  opgen_rt::ElementValue e;
  e.kind = opgen_rt::ElementValue::Kind::UNSIGNED;
  e.u = v;
  return e;
}
opgen_rt::ElementValue FromBool(const bool &v) {
  return FromUnsigned(v ? 1U : 0U);
}
opgen_rt::ElementValue FromDouble(const double &v) {
  opgen_rt::ElementValue e;
  e.kind = opgen_rt::ElementValue::Kind::FLOATING;
  e.f = v;
  return e;
}
opgen_rt::ElementValue FromFloat(const float &v) {
  return FromDouble(static_cast<double>(v));
}

}  // namespace

namespace opgen_rt {

aclTensor *ExecutorState::NewTensor(const op::Shape &viewShape, const op::Strides &strides, int64_t offset,
                                    op::DataType dtype, op::Format format, const op::Shape &storageShape,
                                    uint64_t bytes) {
  auto tensor = std::make_unique<aclTensor>(viewShape, strides, offset, dtype, format, storageShape, nullptr);
  StorageBlock block;
  block.bytes = bytes;
  storages.push_back(std::move(block));
  TensorAccess::SetStorageId(tensor.get(), static_cast<int64_t>(storages.size() - 1));
  tensors.push_back(std::move(tensor));
  return tensors.back().get();
}

aclTensor *ExecutorState::NewView(const aclTensor *base, const op::Shape &viewShape, const op::Strides &strides,
                                  int64_t offset, const op::Shape &storageShape) {
  const aclTensor *pinned = Pin(base);
  auto tensor = std::make_unique<aclTensor>(viewShape, strides, offset, pinned->GetDataType(),
                                            pinned->GetStorageFormat(), storageShape, pinned->GetStorageAddr());
  TensorAccess::SetStorageId(tensor.get(), TensorAccess::StorageId(pinned));
  if (TensorAccess::StorageId(pinned) < 0) {
    // A view of caller memory: owned by the executor, storage stays the caller's.
    TensorAccess::SetHostOwned(tensor.get(), true);
  }
  tensors.push_back(std::move(tensor));
  return tensors.back().get();
}

bool ExecutorState::Owns(const aclTensor *t) const {
  for (const auto &owned : tensors) {
    if (owned.get() == t) {
      return true;
    }
  }
  return false;
}

const aclTensor *ExecutorState::Pin(const aclTensor *t) {
  if (t == nullptr || Owns(t)) {
    return t;
  }
  auto it = snapshots.find(t);
  if (it != snapshots.end()) {
    return it->second;
  }
  auto copy = std::make_unique<aclTensor>(*t);
  const aclTensor *pinned = copy.get();
  tensors.push_back(std::move(copy));
  snapshots.emplace(t, pinned);
  return pinned;
}

const char *HostTaskKindName(HostTaskKind kind) {
  switch (kind) {
    case HostTaskKind::CONTIGUOUS:
      return "Contiguous";
    case HostTaskKind::CAST:
      return "Cast";
    case HostTaskKind::BROADCAST_TO:
      return "BroadcastTo";
    case HostTaskKind::VIEW_COPY:
      return "ViewCopy";
  }
  return "Unknown";
}

}  // namespace opgen_rt

aclOpExecutor::aclOpExecutor() : state_(new opgen_rt::ExecutorState()) {}

aclOpExecutor::~aclOpExecutor() {
  for (aclTensorList *list : state_->tensorLists) {
    delete list;
  }
  for (aclScalarList *list : state_->scalarLists) {
    delete list;
  }
  delete state_;
}

aclTensorList *aclOpExecutor::AllocTensorList(const aclTensor *const *tensors, uint64_t size) {
  auto *list = new (std::nothrow) aclTensorList(tensors, size);
  if (list != nullptr) {
    state_->tensorLists.push_back(list);
  }
  return list;
}

aclScalarList *aclOpExecutor::AllocScalarList(const aclScalar *const *scalars, uint64_t size) {
  auto *list = new (std::nothrow) aclScalarList(scalars, size);
  if (list != nullptr) {
    state_->scalarLists.push_back(list);
  }
  return list;
}

aclTensor *aclOpExecutor::AllocTensor(const op::Shape &shape, op::DataType dataType, op::Format format) {
  return AllocTensor(shape, shape, dataType, format, format);
}

aclTensor *aclOpExecutor::AllocTensor(const op::Shape &storageShape, const op::Shape &originShape,
                                      op::DataType dataType, op::Format storageFormat, op::Format originFormat) {
  const int64_t elems = storageShape.GetShapeSize();
  const size_t elem = op::TypeSize(dataType);
  if (elems < 0 || elem == 0) {
    OP_LOGE(ACLNN_ERR_INNER, "AllocTensor: invalid shape %s or dtype %s.", op::ToString(storageShape).GetString(),
            op::ToString(dataType).GetString());
    return nullptr;
  }
  aclTensor *t = state_->NewTensor(originShape, opgen_rt::ContiguousStrides(originShape), 0, dataType, storageFormat,
                                   storageShape, static_cast<uint64_t>(elems) * elem);
  t->SetOriginalFormat(originFormat);
  t->SetViewFormat(originFormat);
  return t;
}

aclTensor *aclOpExecutor::AllocHostTensor(const int64_t *value, uint64_t size, op::DataType dataType) {
  return HostTensorFrom<int64_t>(state_, value, size, dataType, FromSigned);
}
aclTensor *aclOpExecutor::AllocHostTensor(const uint64_t *value, uint64_t size, op::DataType dataType) {
  return HostTensorFrom<uint64_t>(state_, value, size, dataType, FromUnsigned);
}
aclTensor *aclOpExecutor::AllocHostTensor(const int32_t *value, uint64_t size, op::DataType dataType) {
  return HostTensorFrom<int32_t>(state_, value, size, dataType, FromInt32);
}
aclTensor *aclOpExecutor::AllocHostTensor(const bool *value, uint64_t size, op::DataType dataType) {
  return HostTensorFrom<bool>(state_, value, size, dataType, FromBool);
}
aclTensor *aclOpExecutor::AllocHostTensor(const float *value, uint64_t size, op::DataType dataType) {
  return HostTensorFrom<float>(state_, value, size, dataType, FromFloat);
}
aclTensor *aclOpExecutor::AllocHostTensor(const double *value, uint64_t size, op::DataType dataType) {
  return HostTensorFrom<double>(state_, value, size, dataType, FromDouble);
}

const aclTensor *aclOpExecutor::ConvertToTensor(const aclIntArray *value, op::DataType dataType) {
  if (value == nullptr) {
    OP_LOGE(ACLNN_ERR_INNER, "ConvertToTensor: the aclIntArray is nullptr.");
    return nullptr;
  }
  return HostTensorFrom<int64_t>(state_, value->GetData(), value->Size(), dataType, FromSigned, "ConvertToTensor");
}

const aclTensor *aclOpExecutor::ConvertToTensor(const aclScalar *value, op::DataType dataType) {
  if (value == nullptr || !opgen_rt::IsConvertibleDtype(dataType)) {
    OP_LOGE(ACLNN_ERR_INNER, "ConvertToTensor: %s.", value == nullptr ? "the aclScalar is nullptr" : "unsupported dtype");
    return nullptr;
  }
  const op::Shape scalarShape;  // 0-d: one element
  const uint64_t elem = op::TypeSize(dataType);
  aclTensor *t = state_->NewTensor(scalarShape, opgen_rt::ContiguousStrides(scalarShape), 0, dataType, ge::FORMAT_ND,
                                   scalarShape, elem);
  opgen_rt::StorageBlock &block = state_->storages[static_cast<size_t>(opgen_rt::TensorAccess::StorageId(t))];
  block.data.reset(new uint8_t[elem]);
  opgen_rt::WriteElement(block.data.get(), dataType, opgen_rt::ReadElement(value->GetData(), value->GetDataType()));
  block.filled = true;
  opgen_rt::TensorAccess::SetHostOwned(t, true);
  return t;
}

aclTensor *aclOpExecutor::CreateView(const aclTensor *tensor, const op::Shape &shape, int64_t offset) {
  if (tensor == nullptr) {
    return nullptr;
  }
  return CreateView(tensor, shape, tensor->GetStorageShape(), opgen_rt::ContiguousStrides(shape), offset);
}

aclTensor *aclOpExecutor::CreateView(const aclTensor *tensor, const op::Shape &shape, const op::Shape &storageShape,
                                     const op::Strides &strides, int64_t offset) {
  if (tensor == nullptr) {
    return nullptr;
  }
  aclTensor probe(shape, strides, offset, tensor->GetDataType(), tensor->GetStorageFormat(), storageShape, nullptr);
  const uint64_t baseBytes =
      static_cast<uint64_t>(tensor->GetStorageShape().GetShapeSize()) * op::TypeSize(tensor->GetDataType());
  if (strides.size() != shape.GetDimNum() || offset < 0 || opgen_rt::ViewExtentBytes(&probe) > baseBytes) {
    OP_LOGE(ACLNN_ERR_INNER, "CreateView: shape %s, strides %s, offset %lld do not fit the storage %s.",
            op::ToString(shape).GetString(), op::ToString(strides).GetString(), static_cast<long long>(offset),
            op::ToString(tensor->GetStorageShape()).GetString());
    return nullptr;
  }
  return state_->NewView(tensor, shape, strides, offset, storageShape);
}

aclIntArray *aclOpExecutor::AllocIntArray(const int64_t *value, uint64_t size) {
  if (value == nullptr && size > 0) {
    return nullptr;
  }
  state_->intArrays.push_back(std::make_unique<aclIntArray>(value, size));
  return state_->intArrays.back().get();
}

aclFloatArray *aclOpExecutor::AllocFloatArray(const float *value, uint64_t size) {
  if (value == nullptr && size > 0) {
    return nullptr;
  }
  state_->floatArrays.push_back(std::make_unique<aclFloatArray>(value, size));
  return state_->floatArrays.back().get();
}

aclBoolArray *aclOpExecutor::AllocBoolArray(const bool *value, uint64_t size) {
  if (value == nullptr && size > 0) {
    return nullptr;
  }
  state_->boolArrays.push_back(std::make_unique<aclBoolArray>(value, size));
  return state_->boolArrays.back().get();
}

uint64_t aclOpExecutor::GetWorkspaceSize() const {
  return state_->workspaceSize;
}

UniqueExecutor::UniqueExecutor(const char *funcName)
    : funcName_(funcName), executor_(new (std::nothrow) aclOpExecutor()) {
  if (executor_ != nullptr) {
    opgen_rt::ExecutorAccess::State(executor_)->creator = funcName == nullptr ? "" : funcName;
  }
}

UniqueExecutor::~UniqueExecutor() {
  if (executor_ != nullptr) {
    OP_LOGD("%s: executor dropped without ReleaseTo (phase 1 failed).", funcName_);
    delete executor_;
  }
}

void UniqueExecutor::ReleaseTo(aclOpExecutor **executor) {
  if (executor == nullptr || executor_ == nullptr) {
    return;
  }
  {
    LiveExecutors &live = Live();
    std::lock_guard<std::mutex> lock(live.mutex);
    live.live.insert(executor_);
  }
  *executor = executor_;
  executor_ = nullptr;
}

namespace {

// Removes `executor` from the live set unless it is repeatable; false when it is not live.
bool TakeExecutor(aclOpExecutor *executor, bool &repeatable) {
  LiveExecutors &live = Live();
  std::lock_guard<std::mutex> lock(live.mutex);
  auto it = live.live.find(executor);
  if (it == live.live.end()) {
    return false;
  }
  repeatable = opgen_rt::ExecutorAccess::State(executor)->repeatable;
  if (!repeatable) {
    live.live.erase(it);
  }
  return true;
}

// Storage for every executor-owned tensor (poisoned), then the tensors' addresses.
aclnnStatus PrepareStorage(opgen_rt::ExecutorState &state) {
  for (auto &block : state.storages) {
    if (block.data == nullptr) {
      block.data.reset(new (std::nothrow) uint8_t[block.bytes == 0 ? 1 : block.bytes]);
      if (block.data == nullptr) {
        OP_LOGE(ACLNN_ERR_INNER, "cannot allocate %llu bytes for an intermediate tensor.",
                static_cast<unsigned long long>(block.bytes));
        return ACLNN_ERR_INNER;
      }
      if (!block.filled) {
        std::memset(block.data.get(), kPoisonByte, block.bytes);
      }
    }
  }
  for (auto &t : state.tensors) {
    const int64_t id = opgen_rt::TensorAccess::StorageId(t.get());
    if (id >= 0) {
      t->SetStorageAddr(state.storages[static_cast<size_t>(id)].data.get());
    }
  }
  return ACLNN_SUCCESS;
}

// Caller tensors used by the plan must have memory.
aclnnStatus CheckCallerTensors(const opgen_rt::ExecutorState &state) {
  for (const auto &entry : state.snapshots) {
    const aclTensor *t = entry.second;
    if (t->GetStorageAddr() == nullptr && !t->IsEmpty()) {
      OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "a tensor of shape %s (%s) has no data address.",
              op::ToString(t->GetViewShape()).GetString(), op::ToString(t->GetDataType()).GetString());
      return ACLNN_ERR_PARAM_NULLPTR;
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus RunTasks(opgen_rt::ExecutorState &state, void *workspace, opgen_rt::RunStatsRecord &stats) {
  for (const auto &task : state.tasks) {
    aclnnStatus ret = ACLNN_SUCCESS;
    if (const auto *host = std::get_if<opgen_rt::HostTask>(&task)) {
      opgen_rt::HostTaskStatsRecord record;
      ret = opgen_rt::RunHostTask(*host, record);
      stats.hostTasks.push_back(record);
    } else {
      const auto &launch = std::get<opgen_rt::LaunchTask>(task);
      opgen_rt::LaunchStatsRecord record;
      ret = opgen_rt::RunLaunchTask(launch, static_cast<uint8_t *>(workspace), record, stats.hostTasks);
      stats.launches.push_back(std::move(record));
    }
    if (ret != ACLNN_SUCCESS) {
      return ret;
    }
  }
  return ACLNN_SUCCESS;
}

// Records the caller's buffers the tasks read and write as pending on `stream` until it is synchronised
// (stream_state.h). Executor-owned storage is not the host's to access, so it is left out.
void MarkPending(const opgen_rt::ExecutorState &state, aclrtStream stream) {
  const std::string api = state.creator.substr(0, state.creator.rfind("GetWorkspaceSize"));
  auto mark = [&](const aclTensor *t, bool written, const std::string &what) {
    if (t != nullptr && !t->IsExecutorOwned()) {
      opgen_rt::MarkStreamPending(stream, t->GetStorageAddr(), opgen_rt::ViewExtentBytes(t), written, what);
    }
  };
  for (const auto &task : state.tasks) {
    if (const auto *host = std::get_if<opgen_rt::HostTask>(&task)) {
      const std::string what = std::string("the ") + opgen_rt::HostTaskKindName(host->kind) + " host task of " + api;
      mark(host->src, false, "the source of " + what);
      mark(host->dst, true, "the destination of " + what);
      continue;
    }
    const auto &launch = std::get<opgen_rt::LaunchTask>(task);
    const std::string of = " of " + launch.opType + " (kernel " + launch.kernelName + ") launched by " + api;
    for (size_t i = 0; i < launch.inputs.size(); ++i) {
      const std::string name = "input " + (i < launch.inputNames.size() ? launch.inputNames[i] : "");
      mark(launch.inputs[i], false, name + of);
      for (size_t k = 0; i < launch.inputLists.size() && k < launch.inputLists[i].size(); ++k) {
        mark(launch.inputLists[i][k], false, name + "[" + std::to_string(k) + "]" + of);
      }
    }
    for (size_t i = 0; i < launch.outputs.size(); ++i) {
      const std::string name = "output " + (i < launch.outputNames.size() ? launch.outputNames[i] : "");
      mark(launch.outputs[i], true, name + of);
      for (size_t k = 0; i < launch.outputLists.size() && k < launch.outputLists[i].size(); ++k) {
        mark(launch.outputLists[i][k], true, name + "[" + std::to_string(k) + "]" + of);
      }
    }
  }
}

}  // namespace

aclnnStatus CommonOpExecutorRun(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream) {
  // Checks the call, then queues the work on `stream`'s thread and returns: a kernel fault is reported by the
  // stream's synchronisation, and the buffers the work touches stay pending on `stream` until then.
  if (executor == nullptr) {
    OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "executor is nullptr: pass the executor returned by the GetWorkspaceSize call.");
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  bool repeatable = false;
  if (!TakeExecutor(executor, repeatable)) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID,
            "executor %p cannot run: it was already consumed by an earlier call (executors are single use; call "
            "the GetWorkspaceSize function again), or it did not come from a GetWorkspaceSize call.",
            static_cast<void *>(executor));
    return ACLNN_ERR_PARAM_INVALID;
  }
  opgen_rt::ExecutorState &state = *opgen_rt::ExecutorAccess::State(executor);
  opgen_rt::RunStatsRecord stats;
  aclnnStatus ret = ACLNN_SUCCESS;
  const uint64_t need = state.workspaceSize;
  if (need > 0 && workspace == nullptr) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "workspace is nullptr, but this call needs %llu workspace bytes.",
            static_cast<unsigned long long>(need));
    ret = ACLNN_ERR_PARAM_INVALID;
  } else if (workspaceSize < need) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "workspaceSize %llu is smaller than the %llu bytes GetWorkspaceSize returned.",
            static_cast<unsigned long long>(workspaceSize), static_cast<unsigned long long>(need));
    ret = ACLNN_ERR_PARAM_INVALID;
  }
  if (ret == ACLNN_SUCCESS) {
    ret = CheckCallerTensors(state);
  }
  if (ret == ACLNN_SUCCESS) {
    ret = PrepareStorage(state);
  }
  if (ret == ACLNN_SUCCESS) {
    MarkPending(state, stream);  // before the work is queued: the thread may end it (and the executor) at once
    auto work = [executor, workspace, repeatable](bool run) -> int32_t {
      opgen_rt::RunStatsRecord record;
      aclnnStatus status = ACLNN_SUCCESS;
      if (run) {
        status = RunTasks(*opgen_rt::ExecutorAccess::State(executor), workspace, record);
        record.status = status;
        opgen_rt::PublishRunStats(record);
      }
      if (!repeatable) {
        delete executor;
      }
      return status;
    };
    if (opgen_rt::EnqueueStreamWork(stream, work)) {
      return ACLNN_SUCCESS;
    }
    OP_LOGE(ACLNN_ERR_RUNTIME_ERROR, "stream %p is not a live stream (nullptr is the default stream): nothing was launched.",
            stream);
    ret = ACLNN_ERR_RUNTIME_ERROR;
  }
  stats.status = ret;
  opgen_rt::PublishRunStats(stats);
  if (!repeatable) {
    delete executor;
  }
  return ret;
}

extern "C" {

aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor) {
  if (executor == nullptr) {
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  LiveExecutors &live = Live();
  std::lock_guard<std::mutex> lock(live.mutex);
  if (live.live.count(executor) == 0) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "aclSetAclOpExecutorRepeatable: %p is not a live executor.",
            static_cast<void *>(executor));
    return ACLNN_ERR_PARAM_INVALID;
  }
  opgen_rt::ExecutorAccess::State(executor)->repeatable = true;
  return ACLNN_SUCCESS;
}

uint64_t opgen_rt_live_executor_count(void) {
  LiveExecutors &live = Live();
  std::lock_guard<std::mutex> lock(live.mutex);
  return static_cast<uint64_t>(live.live.size());
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor) {
  if (executor == nullptr) {
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  {
    LiveExecutors &live = Live();
    std::lock_guard<std::mutex> lock(live.mutex);
    auto it = live.live.find(executor);
    if (it == live.live.end()) {
      OP_LOGE(ACLNN_ERR_PARAM_INVALID, "aclDestroyAclOpExecutor: %p is not a live executor.",
              static_cast<void *>(executor));
      return ACLNN_ERR_PARAM_INVALID;
    }
    live.live.erase(it);
  }
  opgen_rt::WaitAllStreamWork();  // a repeatable executor's queued work may still run on it
  delete executor;
  return ACLNN_SUCCESS;
}

}  // extern "C"
