// ascend-opgen host emulation of CANN's opdev/op_log.h: logging and the recent-error text.
//
// OP_LOGE(code, fmt, ...) formats a message (printf rules) and appends it to the calling thread's recent
// error text, which aclGetRecentErrMsg() returns (and clears). Log lines go to stdout only when
// ASCEND_SLOG_PRINT_TO_STDOUT=1, filtered by ASCEND_GLOBAL_LOG_LEVEL (0 debug, 1 info, 2 warning,
// 3 error; default 3), as with CANN's logging.
#ifndef OPGEN_OPDEV_OP_LOG_H
#define OPGEN_OPDEV_OP_LOG_H

#include <cstdint>
#include <string>

#include "aclnn/acl_meta.h"
#include "opdev/op_errno.h"

#define OP_LOG_DEBUG 0
#define OP_LOG_INFO 1
#define OP_LOG_WARN 2
#define OP_LOG_ERROR 3
#define OP_LOG_EVENT 0x10

namespace op {
namespace internal {

// Appends "<message>" to the thread's recent error text (newline-separated) and logs it at error level.
void ReportError(aclnnStatus code, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
// Logs only (the recent error text is unchanged).
void LogMessage(int level, const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
// Clears the thread's recent error text (done when an aclnn API call starts).
void ClearRecentError();
// The thread's recent error text (without clearing it).
const std::string &PeekRecentError();

}  // namespace internal
}  // namespace op

#define OP_LOGE(code, fmt, ...) ::op::internal::ReportError((code), __FILE__, __LINE__, fmt, ##__VA_ARGS__)
#define OP_LOGE_WITHOUT_REPORT(code, fmt, ...) \
  ::op::internal::LogMessage(OP_LOG_ERROR, __FILE__, __LINE__, "errno[%d] " fmt, static_cast<int>(code), ##__VA_ARGS__)
#define OP_LOGW(fmt, ...) ::op::internal::LogMessage(OP_LOG_WARN, __FILE__, __LINE__, fmt, ##__VA_ARGS__)
#define OP_LOGI(fmt, ...) ::op::internal::LogMessage(OP_LOG_INFO, __FILE__, __LINE__, fmt, ##__VA_ARGS__)
#define OP_LOGD(fmt, ...) ::op::internal::LogMessage(OP_LOG_DEBUG, __FILE__, __LINE__, fmt, ##__VA_ARGS__)
#define OP_EVENT(fmt, ...) ::op::internal::LogMessage(OP_LOG_INFO, __FILE__, __LINE__, fmt, ##__VA_ARGS__)

#define OP_CHECK_NOTNULL(val)                                                   \
  do {                                                                          \
    if ((val) == nullptr) {                                                     \
      OP_LOGE(ACLNN_ERR_INNER_NULLPTR, "Parameter %s must not be null.", #val); \
      return ACLNN_ERR_INNER_NULLPTR;                                           \
    }                                                                           \
  } while (false)

// Returns `ret` when `condition` is false (logged at debug level, not reported as an error).
#define CHECK_RET(condition, ret)                                              \
  do {                                                                         \
    if (!(condition)) {                                                        \
      OP_LOGE_WITHOUT_REPORT(ACLNN_ERR_INNER, "check %s failed.", #condition); \
      return ret;                                                              \
    }                                                                          \
  } while (false)

#define CHECK_RET_CODE(func, fmt, ...)       \
  do {                                       \
    aclnnStatus opgenRc_ = (func);           \
    if (opgenRc_ != ACLNN_SUCCESS) {         \
      OP_LOGE(opgenRc_, fmt, ##__VA_ARGS__); \
      return opgenRc_;                       \
    }                                        \
  } while (false)

#define OP_CHECK(cond, log_func, return_expr) \
  do {                                        \
    if (!(cond)) {                            \
      log_func;                               \
      return_expr;                            \
    }                                         \
  } while (false)

#define OP_CHECK_NO_RETURN(cond, log_func) \
  do {                                     \
    if (!(cond)) {                         \
      log_func;                            \
    }                                      \
  } while (false)

#define CHECK_COND(cond, ret, fmt, ...) \
  do {                                  \
    if (!(cond)) {                      \
      OP_LOGE(ret, fmt, ##__VA_ARGS__); \
      return ret;                       \
    }                                   \
  } while (false)

#endif  // OPGEN_OPDEV_OP_LOG_H
