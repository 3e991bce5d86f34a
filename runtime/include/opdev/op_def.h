// ascend-opgen host emulation of CANN's opdev/op_def.h: what level-0 op headers include.
#ifndef OPGEN_OPDEV_OP_DEF_H
#define OPGEN_OPDEV_OP_DEF_H

#include "opdev/common_types.h"
#include "opdev/op_arg_def.h"
#include "opdev/op_executor.h"

#endif  // OPGEN_OPDEV_OP_DEF_H
