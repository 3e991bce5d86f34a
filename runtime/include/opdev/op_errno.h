// ascend-opgen host emulation of CANN's opdev/op_errno.h: aclnnStatus codes.
#ifndef OPGEN_OPDEV_OP_ERRNO_H
#define OPGEN_OPDEV_OP_ERRNO_H

#include "aclnn/acl_meta.h"

constexpr aclnnStatus ACLNN_SUCCESS = 0;
constexpr aclnnStatus ACLNN_ERR_PARAM_NULLPTR = 161001;
constexpr aclnnStatus ACLNN_ERR_PARAM_INVALID = 161002;
constexpr aclnnStatus ACLNN_ERR_RUNTIME_ERROR = 361001;
constexpr aclnnStatus ACLNN_ERR_INNER = 561000;
constexpr aclnnStatus ACLNN_ERR_INNER_INFERSHAPE_ERROR = 561001;
constexpr aclnnStatus ACLNN_ERR_INNER_TILING_ERROR = 561002;
constexpr aclnnStatus ACLNN_ERR_INNER_FIND_KERNEL_ERROR = 561003;
constexpr aclnnStatus ACLNN_ERR_INNER_CREATE_EXECUTOR = 561101;
constexpr aclnnStatus ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR = 561102;
constexpr aclnnStatus ACLNN_ERR_INNER_NULLPTR = 561103;
constexpr aclnnStatus ACLNN_ERR_INNER_WRONG_ATTR_INFO_SIZE = 561104;

#endif  // OPGEN_OPDEV_OP_ERRNO_H
