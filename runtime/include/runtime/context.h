// ascend-opgen host emulation of CANN's runtime/context.h (the rts layer under acl): context options.
#ifndef OPGEN_RUNTIME_CONTEXT_H
#define OPGEN_RUNTIME_CONTEXT_H

#include <cstdint>

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t rtError_t;
static const int32_t RT_ERROR_NONE = 0;

typedef enum tagRtSysParamOpt {
  SYS_OPT_DETERMINISTIC = 0,
  SYS_OPT_ENABLE_DEBUG_KERNEL = 1,
  SYS_OPT_STRONG_CONSISTENCY = 2,
  SYS_OPT_RESERVED = 3,
} rtSysParamOpt;

rtError_t rtCtxSetSysParamOpt(const rtSysParamOpt configOpt, const int64_t configVal);
rtError_t rtCtxGetSysParamOpt(const rtSysParamOpt configOpt, int64_t *const configVal);

#ifdef __cplusplus
}
#endif

#endif  // OPGEN_RUNTIME_CONTEXT_H
