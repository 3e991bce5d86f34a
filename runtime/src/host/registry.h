// ascend-opgen host emulation, internal: the process-wide registries (kernels, tilings, launch stats).
#ifndef OPGEN_RT_HOST_REGISTRY_H
#define OPGEN_RT_HOST_REGISTRY_H

#include <cstdint>
#include <string>
#include <vector>

#include "opgen_rt/core.h"
#include "register/op_impl_registry.h"

namespace opgen_rt {

struct KernelInfo {
  std::string opType;
  std::string kernelName;
  KernelEntry entry = nullptr;
};
// nullptr when no kernel was registered for `opType`.
const KernelInfo *FindKernel(const std::string &opType);

gert::OpImplRegisterV2::TilingKernelFunc FindTilingFunc(const std::string &opType);
void RegisterTilingFunc(const char *opType, gert::OpImplRegisterV2::TilingKernelFunc func);
// Infer-shape / infer-dtype functions (IMPL_OP_INFERSHAPE) by op type; nullptr when none is registered.
gert::OpImplRegisterV2::InferShapeKernelFunc FindInferShapeFunc(const std::string &opType);
gert::OpImplRegisterV2::InferDataTypeKernelFunc FindInferDataTypeFunc(const std::string &opType);
void RegisterInferShapeFunc(const char *opType, gert::OpImplRegisterV2::InferShapeKernelFunc func);
void RegisterInferDataTypeFunc(const char *opType, gert::OpImplRegisterV2::InferDataTypeKernelFunc func);
// Whether IMPL_OP_OPTILING(opType)...TilingParse<T>(...) was registered.
bool HasTilingParse(const std::string &opType);
void RegisterTilingParse(const char *opType);

// Statistics of the tasks of one CommonOpExecutorRun, reported by opgen_rt_last_launch_stats().
struct LaunchStatsRecord {
  std::string opType;
  std::string kernelName;
  uint32_t blockDim = 0;
  uint64_t tilingKey = 0;
  uint64_t workspaceBytes = 0;
  std::vector<uint8_t> tilingData;
  bool ok = true;
  std::string fault;
  std::vector<CoreStats> cores;
  std::vector<std::string> notes;
};
struct HostTaskStatsRecord {
  std::string kind;
  uint64_t bytesRead = 0;
  uint64_t bytesWritten = 0;
};
struct RunStatsRecord {
  int32_t status = 0;
  std::vector<LaunchStatsRecord> launches;
  std::vector<HostTaskStatsRecord> hostTasks;
};
void PublishRunStats(const RunStatsRecord &record);
// JSON of the last published run (see opgen_rt/c_api.h).
std::string LastRunStatsJson();

// ACL_OPT_DETERMINISTIC as set by aclrtCtxSetSysParamOpt.
int64_t DeterministicOption();

}  // namespace opgen_rt

#endif  // OPGEN_RT_HOST_REGISTRY_H
