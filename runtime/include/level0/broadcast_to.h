// ascend-opgen host emulation of CANN's level0/broadcast_to.h.
#ifndef OPGEN_LEVEL0_BROADCAST_TO_H
#define OPGEN_LEVEL0_BROADCAST_TO_H

#include "opdev/op_def.h"

namespace l0op {

// A contiguous tensor of `shape` holding `x` broadcast to it (NumPy rules). nullptr (with an error message)
// when `x` does not broadcast to `shape`. Runs in phase 2 on the host.
const aclTensor *BroadcastTo(const aclTensor *x, const aclIntArray *shape, aclOpExecutor *executor);

}  // namespace l0op

#endif  // OPGEN_LEVEL0_BROADCAST_TO_H
