// ascend-opgen host emulation of CANN's aclnn_kernels/cast.h.
#ifndef OPGEN_ACLNN_KERNELS_CAST_H
#define OPGEN_ACLNN_KERNELS_CAST_H

#include "opdev/op_def.h"

namespace l0op {

// `self` converted to `dstDtype` (returns `self` when it already has that dtype). Floating to floating and
// integer to floating round to nearest even; floating to integer truncates toward zero and saturates (NaN
// gives 0); integer to integer wraps; anything to BOOL is `value != 0`. Runs in phase 2 on the host.
// nullptr (with an error message) for an unsupported dtype.
const aclTensor *Cast(const aclTensor *self, op::DataType dstDtype, aclOpExecutor *executor);

}  // namespace l0op

#endif  // OPGEN_ACLNN_KERNELS_CAST_H
