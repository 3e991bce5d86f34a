// ascend-opgen host emulation of CANN's acl/error_codes/rt_error_codes.h: the runtime's error codes that
// the emulation returns. Names and values follow CANN's public header (which acl/acl_base.h includes);
// only the codes the emulation uses are declared.
#ifndef OPGEN_ACL_ERROR_CODES_RT_ERROR_CODES_H
#define OPGEN_ACL_ERROR_CODES_RT_ERROR_CODES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

static const int32_t ACL_ERROR_RT_INTERNAL_ERROR = 507000;        // runtime internal error
static const int32_t ACL_ERROR_RT_VECTOR_CORE_EXCEPTION = 507035;  // vector core exception

#ifdef __cplusplus
}
#endif

#endif  // OPGEN_ACL_ERROR_CODES_RT_ERROR_CODES_H
