// ascend-opgen host emulation of CANN's aclnn_kernels/contiguous.h.
#ifndef OPGEN_ACLNN_KERNELS_CONTIGUOUS_H
#define OPGEN_ACLNN_KERNELS_CONTIGUOUS_H

#include "opdev/op_def.h"

namespace l0op {

// A contiguous copy of `x` (returns `x` itself when it is already contiguous). Runs in phase 2 on the host.
const aclTensor *Contiguous(const aclTensor *x, aclOpExecutor *executor);

// Copies the contiguous tensor `x` into the (possibly strided) view `y`; returns `y`. `x` and `y` must have
// the same dtype and element count. Runs in phase 2 on the host.
const aclTensor *ViewCopy(const aclTensor *x, const aclTensor *y, aclOpExecutor *executor);

}  // namespace l0op

#endif  // OPGEN_ACLNN_KERNELS_CONTIGUOUS_H
