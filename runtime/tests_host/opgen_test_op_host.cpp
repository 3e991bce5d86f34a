// ascend-opgen runtime host tests: the host side of OpgenTestOp (L2 API, L0 launch, OpDef, tiling), written
// the way generated ops are, against the runtime's CANN headers.
#include "opgen_test_op.h"

#include <algorithm>

#include "aclnn_kernels/common/op_error_check.h"
#include "aclnn_kernels/contiguous.h"
#include "opdev/make_op_executor.h"
#include "opdev/op_dfx.h"
#include "opdev/op_executor.h"
#include "opdev/op_log.h"
#include "register/op_def_registry.h"
#include "register/op_impl_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace l0op {
OP_TYPE_REGISTER(OpgenTestOp);
OP_TYPE_REGISTER(OpgenListOp);

// Returns the launch status itself (not nullptr) so the tests can check ADD_TO_LAUNCHER_LIST_AICORE's codes.
static aclnnStatus OpgenTestOp(const aclTensor *x, const aclTensor *idx, int64_t num, uint64_t count, bool flag,
                               float scale, const aclTensor **out, aclOpExecutor *executor) {
  L0_DFX(OpgenTestOp, x, idx, num, count, flag, scale);
  auto y = executor->AllocTensor(x->GetViewShape(), x->GetDataType());
  CHECK_RET(y != nullptr, ACLNN_ERR_INNER_NULLPTR);
  auto ret = ADD_TO_LAUNCHER_LIST_AICORE(OpgenTestOp, OP_INPUT(x, idx), OP_OUTPUT(y), OP_ATTR(num, count, flag, scale));
  *out = y;
  return ret;
}
// The L0 launch of OpgenListOp: both lists as they are.
static aclnnStatus OpgenListOp(const aclTensorList *x, const aclTensorList *y, aclOpExecutor *executor) {
  return ADD_TO_LAUNCHER_LIST_AICORE(OpgenListOp, OP_INPUT(x), OP_OUTPUT(y));
}
// A wrong one: tensors for the DYNAMIC parameters.
static aclnnStatus OpgenListOpWithTensors(const aclTensor *x, const aclTensor *y, aclOpExecutor *executor) {
  return ADD_TO_LAUNCHER_LIST_AICORE(OpgenListOp, OP_INPUT(x), OP_OUTPUT(y));
}
}  // namespace l0op

extern "C" aclnnStatus aclnnOpgenTestOpGetWorkspaceSize(const aclTensor *x, const aclTensor *idx, int64_t num,
                                                        uint64_t count, bool flag, float scale, aclTensor *y,
                                                        uint64_t *workspaceSize, aclOpExecutor **executor) {
  OP_CHECK_COMM_INPUT(workspaceSize, executor);
  L2_DFX_PHASE_1(aclnnOpgenTestOp, DFX_IN(x, idx, num, count, flag, scale), DFX_OUT(y));
  auto uniqueExecutor = CREATE_EXECUTOR();
  CHECK_RET(uniqueExecutor.get() != nullptr, ACLNN_ERR_INNER_CREATE_EXECUTOR);
  OP_CHECK_NULL(x, return ACLNN_ERR_PARAM_NULLPTR);
  OP_CHECK_NULL(y, return ACLNN_ERR_PARAM_NULLPTR);
  auto xc = l0op::Contiguous(x, uniqueExecutor.get());
  CHECK_RET(xc != nullptr, ACLNN_ERR_INNER_NULLPTR);
  const aclTensor *ic = nullptr;
  if (idx != nullptr) {
    ic = l0op::Contiguous(idx, uniqueExecutor.get());
    CHECK_RET(ic != nullptr, ACLNN_ERR_INNER_NULLPTR);
  }
  const aclTensor *result = nullptr;
  const aclnnStatus ret = l0op::OpgenTestOp(xc, ic, num, count, flag, scale, &result, uniqueExecutor.get());
  CHECK_RET(ret == ACLNN_SUCCESS, ret);
  auto copied = l0op::ViewCopy(result, y, uniqueExecutor.get());
  CHECK_RET(copied != nullptr, ACLNN_ERR_INNER_NULLPTR);
  *workspaceSize = uniqueExecutor->GetWorkspaceSize();
  uniqueExecutor.ReleaseTo(executor);
  return ACLNN_SUCCESS;
}

// The same op with its optional input made from a host array: the L2 API converts the aclIntArray to an INT64
// tensor with the executor's ConvertToTensor and launches it as the device input `idx`.
extern "C" aclnnStatus aclnnOpgenTestOpIdxArrayGetWorkspaceSize(const aclTensor *x, const aclIntArray *idx,
                                                                aclTensor *y, uint64_t *workspaceSize,
                                                                aclOpExecutor **executor) {
  OP_CHECK_COMM_INPUT(workspaceSize, executor);
  auto uniqueExecutor = CREATE_EXECUTOR();
  CHECK_RET(uniqueExecutor.get() != nullptr, ACLNN_ERR_INNER_CREATE_EXECUTOR);
  OP_CHECK_NULL(x, return ACLNN_ERR_PARAM_NULLPTR);
  OP_CHECK_NULL(idx, return ACLNN_ERR_PARAM_NULLPTR);
  OP_CHECK_NULL(y, return ACLNN_ERR_PARAM_NULLPTR);
  auto xc = l0op::Contiguous(x, uniqueExecutor.get());
  CHECK_RET(xc != nullptr, ACLNN_ERR_INNER_NULLPTR);
  const aclTensor *idxTensor = uniqueExecutor.get()->ConvertToTensor(idx, op::DataType::DT_INT64);
  CHECK_RET(idxTensor != nullptr, ACLNN_ERR_INNER_NULLPTR);
  const aclTensor *result = nullptr;
  const aclnnStatus ret = l0op::OpgenTestOp(xc, idxTensor, 0, 3, false, 1.0F, &result, uniqueExecutor.get());
  CHECK_RET(ret == ACLNN_SUCCESS, ret);
  auto copied = l0op::ViewCopy(result, y, uniqueExecutor.get());
  CHECK_RET(copied != nullptr, ACLNN_ERR_INNER_NULLPTR);
  *workspaceSize = uniqueExecutor->GetWorkspaceSize();
  uniqueExecutor.ReleaseTo(executor);
  return ACLNN_SUCCESS;
}

// OpgenListOp: the L0 launch passes the caller's lists straight through (as ops-nn's foreach scalar APIs pass
// `out`).
extern "C" aclnnStatus aclnnOpgenListOpGetWorkspaceSize(const aclTensorList *x, const aclTensorList *y,
                                                        uint64_t *workspaceSize, aclOpExecutor **executor) {
  OP_CHECK_COMM_INPUT(workspaceSize, executor);
  auto uniqueExecutor = CREATE_EXECUTOR();
  CHECK_RET(uniqueExecutor.get() != nullptr, ACLNN_ERR_INNER_CREATE_EXECUTOR);
  OP_CHECK_NULL(x, return ACLNN_ERR_PARAM_NULLPTR);
  OP_CHECK_NULL(y, return ACLNN_ERR_PARAM_NULLPTR);
  OP_CHECK_TENSORLIST_SIZE_EQUAL(x, y, return ACLNN_ERR_PARAM_INVALID);
  const aclnnStatus ret = l0op::OpgenListOp(x, y, uniqueExecutor.get());
  CHECK_RET(ret == ACLNN_SUCCESS, ret);
  *workspaceSize = uniqueExecutor->GetWorkspaceSize();
  uniqueExecutor.ReleaseTo(executor);
  return ACLNN_SUCCESS;
}

// A wrong L0 launch of OpgenListOp: tensors where the OpDef declares DYNAMIC parameters.
extern "C" aclnnStatus aclnnOpgenListOpWithTensorsGetWorkspaceSize(const aclTensor *x, const aclTensor *y,
                                                                   uint64_t *workspaceSize, aclOpExecutor **executor) {
  OP_CHECK_COMM_INPUT(workspaceSize, executor);
  auto uniqueExecutor = CREATE_EXECUTOR();
  CHECK_RET(uniqueExecutor.get() != nullptr, ACLNN_ERR_INNER_CREATE_EXECUTOR);
  const aclnnStatus ret = l0op::OpgenListOpWithTensors(x, y, uniqueExecutor.get());
  CHECK_RET(ret == ACLNN_SUCCESS, ret);
  *workspaceSize = uniqueExecutor->GetWorkspaceSize();
  uniqueExecutor.ReleaseTo(executor);
  return ACLNN_SUCCESS;
}

extern "C" aclnnStatus aclnnOpgenListOp(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        aclrtStream stream) {
  return CommonOpExecutorRun(workspace, workspaceSize, executor, stream);
}

extern "C" aclnnStatus aclnnOpgenTestOp(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        aclrtStream stream) {
  L2_DFX_PHASE_2(aclnnOpgenTestOp);
  return CommonOpExecutorRun(workspace, workspaceSize, executor, stream);
}

namespace ops {
class OpgenTestOp : public OpDef {
 public:
  explicit OpgenTestOp(const char *name) : OpDef(name) {
    this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_INT32}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
    this->Input("idx")
        .ParamType(OPTIONAL)
        .DataType({ge::DT_INT64, ge::DT_INT64})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND});
    this->Output("y")
        .ParamType(REQUIRED)
        .DataType({ge::DT_FLOAT, ge::DT_INT32})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND})
        .InitValue(0);
    this->Attr("num").AttrType(REQUIRED).Int();
    this->Attr("count").AttrType(OPTIONAL).Int(7);
    this->Attr("flag").AttrType(OPTIONAL).Bool(false);
    this->Attr("scale").AttrType(OPTIONAL).Float(1.5F);
    OpAICoreConfig floatOnly;
    floatOnly.Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    floatOnly.Input("idx").ParamType(OPTIONAL).DataType({ge::DT_INT64}).Format({ge::FORMAT_ND});
    floatOnly.Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND}).InitValue(0);
    this->AICore().AddConfig("ascend910", floatOnly);
    this->AICore().AddConfig("ascend910b");
  }
};
OP_ADD(OpgenTestOp);

class OpgenListOp : public OpDef {
 public:
  explicit OpgenListOp(const char *name) : OpDef(name) {
    this->Input("x").ParamType(DYNAMIC).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->Output("y").ParamType(DYNAMIC).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->AICore().AddConfig("ascend910");
    this->AICore().AddConfig("ascend910b");
  }
};
OP_ADD(OpgenListOp);
}  // namespace ops

namespace optiling {
static ge::graphStatus OpgenTestOpTiling(gert::TilingContext *context) {
  auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
  const auto *attrs = context->GetAttrs();
  const int64_t *num = attrs->GetAttrPointer<int64_t>(0);
  const uint64_t *count = attrs->GetAttrPointer<uint64_t>(1);
  const bool *flag = attrs->GetAttrPointer<bool>(2);
  const float *scale = attrs->GetAttrPointer<float>(3);
  if (num == nullptr || count == nullptr || flag == nullptr || scale == nullptr || *num == -1) {
    return ge::GRAPH_FAILED;
  }
  const int64_t length = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
  const int64_t cores = std::max<int64_t>(1, std::min<int64_t>(2, static_cast<int64_t>(platform.GetCoreNumAiv())));
  OpgenTestOpTilingData tiling;
  tiling.set_length(length);
  tiling.set_num(*num);
  tiling.set_count(*count);
  tiling.set_flag(*flag ? 1U : 0U);
  tiling.set_scale(*scale);
  tiling.set_deterministic(context->GetDeterministic());
  tiling.set_hasIdx(context->GetOptionalInputShape(1) != nullptr ? 1 : 0);
  tiling.set_coreNum(static_cast<int32_t>(cores));
  context->SetBlockDim(static_cast<uint32_t>(cores));
  // the InitValue output is zero-filled before the launch only with it; num -3 leaves y's first element
  // unwritten and y not zero-filled (the kernel's output is then fresh device memory there)
  context->SetNeedAtomic(*num != -3);
  context->SetTilingKey(context->GetInputDesc(0)->GetDataType() == ge::DT_FLOAT ? 0 : 1);
  tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
  size_t *ws = context->GetWorkspaceSizes(1);
  // The system workspace in front (as every CANN tiling requests it), then `num` user bytes.
  ws[0] = *num > 0 ? static_cast<size_t>(platform.GetLibApiWorkSpaceSize()) + static_cast<size_t>(*num) : 0;
  return ge::GRAPH_SUCCESS;
}

IMPL_OP_OPTILING(OpgenTestOp).Tiling(OpgenTestOpTiling);

static ge::graphStatus OpgenListOpTiling(gert::TilingContext *context) {
  const gert::ComputeNodeInfo *node = context->GetComputeNodeInfo();
  const size_t n = node->GetInputInstanceInfo(0)->GetInstanceNum();
  if (node->GetIrInputsNum() != 1 || node->GetOutputInstanceInfo(0)->GetInstanceNum() != n || n > 8) {
    return ge::GRAPH_FAILED;
  }
  OpgenListOpTilingData tiling;
  tiling.set_tensorCount(static_cast<int64_t>(n));
  int64_t counts[8] = {};
  for (size_t i = 0; i < n; ++i) {
    counts[i] = context->GetDynamicInputShape(0, i)->GetStorageShape().GetShapeSize();
  }
  tiling.set_counts(counts);
  context->SetBlockDim(2);
  context->SetTilingKey(0);
  tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
  size_t *ws = context->GetWorkspaceSizes(1);
  ws[0] = 0;
  return ge::GRAPH_SUCCESS;
}
IMPL_OP_OPTILING(OpgenListOp).Tiling(OpgenListOpTiling);
}  // namespace optiling
