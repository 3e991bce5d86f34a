// ascend-opgen runtime host tests: a small test op ("OpgenTestOp") exercising what SoftMarginLossBackward
// does not: int64 / uint64 / bool / float attributes, an optional input passed as nullptr, a tiling
// workspace, an OpDef InitValue output, the deterministic flag, tiling failures and kernel faults.
//
//   y = x * scale + (idx ? idx[0] : 0) + (flag ? 1 : 0)          (FLOAT or INT32 x / y, INT64 idx)
//   num >= 0: the tiling asks for `num` workspace bytes and the kernel writes the last one
//   num == -1: the tiling fails; num == -2: the kernel reads past x (a kernel fault)
#ifndef OPGEN_RT_TESTS_HOST_OPGEN_TEST_OP_H
#define OPGEN_RT_TESTS_HOST_OPGEN_TEST_OP_H

#include "aclnn/aclnn_base.h"
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(OpgenTestOpTilingData)
TILING_DATA_FIELD_DEF(int64_t, length);
TILING_DATA_FIELD_DEF(int64_t, num);
TILING_DATA_FIELD_DEF(uint64_t, count);
TILING_DATA_FIELD_DEF(uint32_t, flag);
TILING_DATA_FIELD_DEF(float, scale);
TILING_DATA_FIELD_DEF(int32_t, deterministic);
TILING_DATA_FIELD_DEF(int32_t, hasIdx);
TILING_DATA_FIELD_DEF(int32_t, coreNum);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(OpgenTestOp, OpgenTestOpTilingData)

// OpgenListOp: y[i] = x[i] + 1 over two tensor lists (DYNAMIC input x, DYNAMIC output y, FLOAT), one tensor
// per core at a time; the tiling takes the list length from the node's instances and each tensor's element
// count from its shape (at most 8 tensors).
BEGIN_TILING_DATA_DEF(OpgenListOpTilingData)
TILING_DATA_FIELD_DEF(int64_t, tensorCount);
TILING_DATA_FIELD_DEF_ARR(int64_t, 8, counts);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(OpgenListOp, OpgenListOpTilingData)
}  // namespace optiling

extern "C" {
aclnnStatus aclnnOpgenTestOpGetWorkspaceSize(const aclTensor *x, const aclTensor *idx, int64_t num, uint64_t count,
                                             bool flag, float scale, aclTensor *y, uint64_t *workspaceSize,
                                             aclOpExecutor **executor);
aclnnStatus aclnnOpgenTestOpIdxArrayGetWorkspaceSize(const aclTensor *x, const aclIntArray *idx, aclTensor *y,
                                                     uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnOpgenTestOp(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);
aclnnStatus aclnnOpgenListOpGetWorkspaceSize(const aclTensorList *x, const aclTensorList *y, uint64_t *workspaceSize,
                                             aclOpExecutor **executor);
aclnnStatus aclnnOpgenListOpWithTensorsGetWorkspaceSize(const aclTensor *x, const aclTensor *y,
                                                        uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnOpgenListOp(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);
}

#endif  // OPGEN_RT_TESTS_HOST_OPGEN_TEST_OP_H
