// ascend-opgen host emulation of CANN's aclnn/aclnn_base.h.
#ifndef OPGEN_ACLNN_ACLNN_BASE_H
#define OPGEN_ACLNN_ACLNN_BASE_H

#include <cstdint>
#include <cstdlib>

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnInit(const char *configPath);
ACL_FUNC_VISIBILITY aclnnStatus aclnnFinalize();

#ifdef __cplusplus
}
#endif

#endif  // OPGEN_ACLNN_ACLNN_BASE_H
