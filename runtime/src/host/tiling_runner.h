// ascend-opgen host emulation, internal: running an op's registered tiling function.
#ifndef OPGEN_RT_HOST_TILING_RUNNER_H
#define OPGEN_RT_HOST_TILING_RUNNER_H

#include <cstdint>
#include <string>
#include <vector>

#include "exe_graph/runtime/tiling_context.h"
#include "opgen_rt/attr_value.h"

namespace opgen_rt {

// Capacity of the raw tiling buffer handed to tiling functions (bytes).
constexpr size_t kTilingDataCapacity = 64 * 1024;
// Largest block dim a launch may use (CANN's limit).
constexpr uint32_t kMaxBlockDim = 65535;

struct TilingTensorDesc {
  bool present = false;  // false: an absent optional input
  gert::Shape originShape;
  gert::Shape storageShape;
  ge::DataType dataType = ge::DT_UNDEFINED;
  ge::Format originFormat = ge::FORMAT_ND;
  ge::Format storageFormat = ge::FORMAT_ND;
};

struct TilingRequest {
  std::string opType;
  std::vector<TilingTensorDesc> inputs;
  std::vector<TilingTensorDesc> outputs;
  // Instances per OpDef input / output, in order (a DYNAMIC one: its list's length), summing to the sizes of
  // `inputs` / `outputs`; empty: one each (an absent optional input: none).
  std::vector<uint32_t> inputInstances;
  std::vector<uint32_t> outputInstances;
  std::vector<AttrValue> attrs;
  int32_t deterministic = 0;
};

struct TilingResult {
  int32_t status = 0;  // ACLNN_SUCCESS or ACLNN_ERR_INNER_TILING_ERROR
  std::string message;
  uint32_t blockDim = 0;
  uint64_t tilingKey = 0;
  uint32_t scheduleMode = 0;
  bool needAtomic = false;  // SetNeedAtomic: the OpDef's InitValue outputs are initialised before the launch
  std::vector<uint64_t> workspaceSizes;
  std::vector<uint8_t> tilingData;
};

class TilingContextBuilder {
 public:
  static void Fill(gert::TilingContext &context, const TilingRequest &request, fe::PlatFormInfos *platform);
  static gert::TilingContext *Create(void *buffer, size_t capacity);
  // What an OpTilingContextBuilder adds (unit tests): the node name, and the caller's compile info, tiling
  // buffer and workspace vector, which the context then uses instead of its own.
  static void Attach(gert::TilingContext &context, const std::string &nodeName, const void *compileInfo,
                     gert::TilingData *tilingData, gert::ContinuousVector *workspace);
};

// Runs the tiling registered for request.opType; on failure, result.status is ACLNN_ERR_INNER_TILING_ERROR
// and result.message says why (the function returned failure, set no block dim, overflowed the buffer, or
// none is registered).
void RunTiling(const TilingRequest &request, TilingResult &result);

// "[2, 3] DT_FLOAT ND" for messages.
std::string DescribeTensorDesc(const TilingTensorDesc &desc);

}  // namespace opgen_rt

#endif  // OPGEN_RT_HOST_TILING_RUNNER_H
