// ascend-opgen host emulation of asc-devkit's include/basic_api/kernel_operator_list_tensor_intf.h (installed
// flat as kernel_operator_list_tensor_intf.h): ListTensorDesc and TensorDesc. As in asc-devkit, kernel_operator.h
// does not declare them; a kernel reading a DYNAMIC input or output includes this header (ops-nn's
// optim/fused_adamw/op_kernel/fused_adamw.cpp does). Hand-written runtime code.
#ifndef OPGEN_RT_KERNEL_OPERATOR_LIST_TENSOR_INTF_H
#define OPGEN_RT_KERNEL_OPERATOR_LIST_TENSOR_INTF_H

#include "kernel_operator.h"
#include "opgen_rt/device/list_tensor.h"

#endif  // OPGEN_RT_KERNEL_OPERATOR_LIST_TENSOR_INTF_H
