// ascend-opgen host emulation of CANN's opdev/op_dfx.h: API entry markers (L2_DFX_PHASE_1/2, L0_DFX) and
// OpType registration (OP_TYPE_REGISTER).
//
// L2_DFX_PHASE_1 / L2_DFX_PHASE_2 start an aclnn API call: they clear the thread's recent error text and
// name the API in debug logs. L0_DFX names the L0 op in debug logs. Parameters are only logged.
#ifndef OPGEN_OPDEV_OP_DFX_H
#define OPGEN_OPDEV_OP_DFX_H

#include <cstdint>
#include <string>
#include <tuple>

#include "graph/ascend_string.h"
#include "opdev/format_utils.h"
#include "opdev/op_arg_def.h"
#include "opdev/op_log.h"

namespace op {

ge::AscendString ToString(const std::string &str);
// A process-wide id for an OpType name (stable for the life of the process).
uint32_t GenOpTypeId(const char *opName);

namespace internal {

class ApiScope {
 public:
  // `level` 2 for an aclnn L2 API phase, 0 for an L0 op.
  ApiScope(int level, const char *name, bool clearError);
  ~ApiScope();
  ApiScope(const ApiScope &) = delete;
  ApiScope &operator=(const ApiScope &) = delete;

 private:
  const char *previous_;
  int level_;
};

// The aclnn API (L2) being run on this thread, or "" outside one.
const char *CurrentApiName();

template <typename... Args>
inline void IgnoreDfxArgs(const Args &...) {}

}  // namespace internal
}  // namespace op

#define DFX_IN(...) std::make_tuple(__VA_ARGS__)
#define DFX_OUT(...) std::make_tuple(__VA_ARGS__)

#define L2_DFX_PHASE_1(APIName, IN, OUT)                                           \
  ::op::internal::ApiScope opgenL2DfxScope_(2, #APIName "GetWorkspaceSize", true); \
  ::op::internal::IgnoreDfxArgs(IN, OUT);

#define L2_DFX_PHASE_2(APIName) ::op::internal::ApiScope opgenL2DfxScope_(2, #APIName, true);

#define L0_DFX(opName, ...)                                     \
  ::op::internal::ApiScope opgenL0DfxScope_(0, #opName, false); \
  ::op::internal::IgnoreDfxArgs(__VA_ARGS__);

// Defines <kernelName>OpTypeId() (used by ADD_TO_LAUNCHER_LIST_AICORE) in the enclosing namespace.
#define OP_TYPE_REGISTER(kernelName)                                      \
  [[maybe_unused]] inline uint32_t kernelName##OpTypeId() {               \
    static const uint32_t opgenOpTypeId = ::op::GenOpTypeId(#kernelName); \
    return opgenOpTypeId;                                                 \
  }

#endif  // OPGEN_OPDEV_OP_DFX_H
