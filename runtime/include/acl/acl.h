// ascend-opgen host emulation of CANN's acl/acl.h: process-wide init and the runtime API.
#ifndef OPGEN_ACL_ACL_H
#define OPGEN_ACL_ACL_H

#include "acl/acl_base.h"
#include "acl/acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

// aclInit twice without aclFinalize returns ACL_ERROR_REPEAT_INITIALIZE, as CANN does. The config path is
// accepted and ignored.
ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);
ACL_FUNC_VISIBILITY aclError aclFinalize();

#ifdef __cplusplus
}
#endif

#endif  // OPGEN_ACL_ACL_H
