// ascend-opgen host emulation of CANN's exe_graph/runtime/tiling_context.h: gert::TilingContext, what an
// op's tiling function (registered with IMPL_OP_OPTILING(OpType).Tiling(func)) reads and writes.
//
// Indices: GetInputShape / GetInputDesc / GetInputTensor (and the output forms) take the index of an
// instance, the GetOptional* / GetDynamic* forms the index of the OpDef input (its IR index) and, for a
// DYNAMIC input (a tensor list), the tensor's index in the list; GetComputeNodeInfo() maps one to the other.
// Without lists the two coincide (= the order of OP_INPUT / OP_OUTPUT in the L0 launch). An absent optional
// input (nullptr in OP_INPUT) keeps its instance index, has no instance (GetInstanceNum() 0), and reads as
// nullptr from every accessor.
//
// Two builders fill it: the launch (opgen_rt::TilingContextBuilder, its own tiling buffer and workspace
// sizes) and a unit test's OpTilingContextBuilder (base/context_builder/), whose tiling buffer, workspace
// vector and compile info the context then uses, as CANN's does.
#ifndef OPGEN_EXE_GRAPH_RUNTIME_TILING_CONTEXT_H
#define OPGEN_EXE_GRAPH_RUNTIME_TILING_CONTEXT_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "exe_graph/runtime/compute_node_info.h"
#include "exe_graph/runtime/continuous_vector.h"
#include "exe_graph/runtime/runtime_attrs.h"
#include "exe_graph/runtime/shape.h"
#include "exe_graph/runtime/storage_format.h"
#include "exe_graph/runtime/storage_shape.h"
#include "exe_graph/runtime/tensor.h"
#include "exe_graph/runtime/tiling_data.h"
#include "graph/ge_error_codes.h"
#include "graph/types.h"
#include "platform/platform_info.h"

namespace opgen_rt {
class TilingContextBuilder;
}

namespace gert {

class TilingContext {
 public:
  TilingContext(const TilingContext &) = delete;
  TilingContext &operator=(const TilingContext &) = delete;

  const StorageShape *GetInputShape(size_t index) const {
    return Present(inputs_, index) ? &inputs_[index].shape : nullptr;
  }
  const StorageShape *GetOptionalInputShape(size_t irIndex) const {
    return GetDynamicInputShape(irIndex, 0);
  }
  // Tensor `relative_index` of DYNAMIC input `ir_index` (nullptr past the list's end or the OpDef's inputs).
  const StorageShape *GetDynamicInputShape(const size_t ir_index, const size_t relative_index) const {
    return GetInputShape(Instance(ir_index, relative_index));
  }
  const CompileTimeTensorDesc *GetDynamicInputDesc(const size_t ir_index, const size_t relative_index) const {
    return GetInputDesc(Instance(ir_index, relative_index));
  }
  const Tensor *GetDynamicInputTensor(const size_t ir_index, const size_t relative_index) const {
    return GetInputTensor(Instance(ir_index, relative_index));
  }
  const ComputeNodeInfo *GetComputeNodeInfo() const {
    return &nodeInfo_;
  }
  const AnchorInstanceInfo *GetIrInputInstanceInfo(const size_t ir_index) const {
    return nodeInfo_.GetInputInstanceInfo(ir_index);
  }
  const StorageShape *GetOutputShape(size_t index) const {
    return Present(outputs_, index) ? &outputs_[index].shape : nullptr;
  }
  const CompileTimeTensorDesc *GetInputDesc(size_t index) const {
    return Present(inputs_, index) ? &inputs_[index].desc : nullptr;
  }
  const CompileTimeTensorDesc *GetOptionalInputDesc(size_t irIndex) const {
    return GetDynamicInputDesc(irIndex, 0);
  }
  const CompileTimeTensorDesc *GetOutputDesc(size_t index) const {
    return Present(outputs_, index) ? &outputs_[index].desc : nullptr;
  }
  const Tensor *GetInputTensor(size_t index) const {
    return Present(inputs_, index) ? &inputs_[index].tensor : nullptr;
  }
  const Tensor *GetOptionalInputTensor(size_t irIndex) const {
    return GetDynamicInputTensor(irIndex, 0);
  }
  const Tensor *GetOutputTensor(size_t index) const {
    return Present(outputs_, index) ? &outputs_[index].tensor : nullptr;
  }
  size_t GetComputeNodeInputNum() const {
    return inputs_.size();
  }
  size_t GetComputeNodeOutputNum() const {
    return outputs_.size();
  }

  const RuntimeAttrs *GetAttrs() const {
    return &attrs_;
  }
  fe::PlatFormInfos *GetPlatformInfo() const {
    return platform_;
  }
  const char *GetNodeName() const {
    return nodeName_.c_str();
  }
  const char *GetNodeType() const {
    return nodeType_.c_str();
  }

  ge::graphStatus SetBlockDim(uint32_t blockDim) {
    blockDim_ = blockDim;
    return ge::GRAPH_SUCCESS;
  }
  uint32_t GetBlockDim() const {
    return blockDim_;
  }
  ge::graphStatus SetTilingKey(uint64_t tilingKey) {
    tilingKey_ = tilingKey;
    return ge::GRAPH_SUCCESS;
  }
  uint64_t GetTilingKey() const {
    return tilingKey_;
  }
  ge::graphStatus SetScheduleMode(uint32_t scheduleMode) {
    scheduleMode_ = scheduleMode;
    return ge::GRAPH_SUCCESS;
  }
  uint32_t GetScheduleMode() const {
    return scheduleMode_;
  }
  ge::graphStatus SetNeedAtomic(bool atomic) {
    needAtomic_ = atomic;
    return ge::GRAPH_SUCCESS;
  }
  bool NeedAtomic() const {
    return needAtomic_;
  }

  // The tiling buffer: the launch's own, or the one a unit test's OpTilingContextBuilder::TilingData gave
  // (nullptr when that builder was given none, as in CANN).
  TilingData *GetRawTilingData() {
    return built_ ? rawTilingData_ : &tilingData_;
  }
  // Array of `workspaceCount` workspace byte counts for the tiling to fill (zero-initialised). Grows, never
  // shrinks; the launch reserves the sum of the first GetWorkspaceNum() entries.
  // In a context an OpTilingContextBuilder built, the entries are those of its Workspace vector, as in CANN:
  // nullptr without one or past its capacity, and its size becomes `workspaceCount`.
  size_t *GetWorkspaceSizes(size_t workspaceCount) {
    if (built_) {
      if (workspace_ == nullptr || workspace_->SetSize(workspaceCount) != ge::GRAPH_SUCCESS) {
        return nullptr;
      }
      return static_cast<size_t *>(workspace_->MutableData());
    }
    if (workspaceCount > workspaceSizes_.size()) {
      workspaceSizes_.resize(workspaceCount, 0);
    }
    return workspaceSizes_.data();
  }
  size_t GetWorkspaceNum() const {
    if (built_) {
      return workspace_ == nullptr ? 0 : workspace_->GetSize();
    }
    return workspaceSizes_.size();
  }
  // 1 when deterministic computation was requested (aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1)).
  int32_t GetDeterministic() const {
    return deterministic_;
  }

  // Compile info (TilingParse) is not emulated in a launch: nullptr there; in a context an
  // OpTilingContextBuilder built, the pointer its CompileInfo was given.
  template <typename T>
  const T *GetCompileInfo() const {
    return static_cast<const T *>(compileInfo_);
  }

 private:
  friend class opgen_rt::TilingContextBuilder;
  struct Io {
    bool present = false;
    StorageShape shape;
    CompileTimeTensorDesc desc;
    Tensor tensor;
  };
  TilingContext(void *tilingBuffer, size_t tilingCapacity) : tilingData_(tilingBuffer, tilingCapacity) {}
  static bool Present(const std::vector<Io> &ios, size_t index) {
    return index < ios.size() && ios[index].present;
  }
  // The instance index of tensor `relative` of IR input `ir`; SIZE_MAX (no instance) when there is none.
  size_t Instance(size_t ir, size_t relative) const {
    const AnchorInstanceInfo *info = nodeInfo_.GetInputInstanceInfo(ir);
    return info == nullptr || relative >= info->GetInstanceNum() ? SIZE_MAX : info->GetInstanceStart() + relative;
  }

  std::vector<Io> inputs_;
  std::vector<Io> outputs_;
  ComputeNodeInfo nodeInfo_;
  RuntimeAttrs attrs_;
  fe::PlatFormInfos *platform_ = nullptr;
  std::string nodeName_;
  std::string nodeType_;
  uint32_t blockDim_ = 0;
  uint64_t tilingKey_ = 0;
  uint32_t scheduleMode_ = 0;
  bool needAtomic_ = false;
  int32_t deterministic_ = 0;
  TilingData tilingData_;
  std::vector<size_t> workspaceSizes_;
  // Set by an OpTilingContextBuilder (unit tests): the caller's buffers.
  bool built_ = false;
  const void *compileInfo_ = nullptr;
  TilingData *rawTilingData_ = nullptr;
  ContinuousVector *workspace_ = nullptr;
};

}  // namespace gert

#endif  // OPGEN_EXE_GRAPH_RUNTIME_TILING_CONTEXT_H
