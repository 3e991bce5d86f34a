// ascend-opgen host emulation of CANN's aclnn_util.h (opbase include/aclnnop): the export macro of the
// public aclnn API headers.
#ifndef OPGEN_ACLNN_UTIL_H
#define OPGEN_ACLNN_UTIL_H

#ifndef ACLNN_API
#define ACLNN_API __attribute__((visibility("default")))
#endif

#endif  // OPGEN_ACLNN_UTIL_H
