// ascend-opgen host emulation: process-wide registries — kernels (glue), tiling functions
// (IMPL_OP_OPTILING) and the statistics of the last phase-2 run.
#include "registry.h"

#include <cstdio>
#include <map>
#include <mutex>
#include <string>

#include "json.h"
#include "opgen_rt/glue.h"
#include "opgen_rt/tiling_meta.h"
#include "register/op_impl_registry.h"

namespace opgen_rt {
namespace {

struct Registries {
  std::mutex mutex;
  std::map<std::string, KernelInfo> kernels;
  std::map<std::string, gert::OpImplRegisterV2::TilingKernelFunc> tilings;
  std::map<std::string, gert::OpImplRegisterV2::InferShapeKernelFunc> inferShapes;
  std::map<std::string, gert::OpImplRegisterV2::InferDataTypeKernelFunc> inferDataTypes;
  std::map<std::string, size_t> tilingParses;  // op type -> number of TilingParse registrations
  std::string lastRunJson = "{\"status\": null, \"launches\": [], \"host_tasks\": []}";
};

Registries &Reg() {
  static Registries *registries = new Registries();  // never destroyed: safe during static destruction
  return *registries;
}

// A finite double as a JSON number (cycles of the pipe timeline: shortest round-trip form is not needed,
// 0.1-cycle resolution is).
std::string JsonNumber(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.1f", v);
  return buf;
}

// The pipe timeline of one launch (ProductInfo::cost): the slowest core's modelled and busy cycles per pipe,
// and over every core the copy cycles, the copy cycles V was busy too, the vector work and the scalar waits.
std::string TimelineJson(const std::vector<CoreStats> &cores) {
  if (!CurrentProduct().cost.available || cores.empty()) {
    return "null";
  }
  const CoreStats *slowest = &cores[0];
  double copy = 0, hidden = 0, work = 0;
  uint64_t waits = 0;
  for (const CoreStats &c : cores) {
    slowest = c.modelledCycles > slowest->modelledCycles ? &c : slowest;
    copy += c.copyCycles;
    hidden += c.copyHiddenCycles;
    work += c.vectorWorkCycles;
    waits += c.scalarWaits;
  }
  const double *b = slowest->pipeBusyCycles;
  return "{\"modelled_cycles\": " + JsonNumber(slowest->modelledCycles) + ", \"pipe_busy_cycles\": {\"S\": " +
         JsonNumber(b[0]) + ", \"V\": " + JsonNumber(b[1]) + ", \"MTE2\": " + JsonNumber(b[2]) +
         ", \"MTE3\": " + JsonNumber(b[3]) + "}, \"copy_cycles\": " + JsonNumber(copy) +
         ", \"copy_hidden_cycles\": " + JsonNumber(hidden) + ", \"vector_work_cycles\": " + JsonNumber(work) +
         ", \"scalar_waits\": " + std::to_string(waits) + "}";
}

std::string CoresJson(const std::vector<CoreStats> &cores) {
  std::string out = "[";
  for (size_t i = 0; i < cores.size(); ++i) {
    const CoreStats &c = cores[i];
    if (i != 0) {
      out += ", ";
    }
    out += "{\"gm_bytes_read\": " + std::to_string(c.gmBytesRead) +
           ", \"gm_bytes_written\": " + std::to_string(c.gmBytesWritten) +
           ", \"gm_bytes_atomic_added\": " + std::to_string(c.gmBytesAtomicAdded) +
           ", \"ub_high_water_bytes\": " + std::to_string(c.ubHighWaterBytes) +
           ", \"vector_instructions\": " + std::to_string(c.vectorInstructions) +
           ", \"vector_elements\": " + std::to_string(c.vectorElements) +
           ", \"dma_transfers\": " + std::to_string(c.dmaTransfers) +
           ", \"dma_bytes\": " + std::to_string(c.dmaBytes) +
           ", \"gm_bytes_truncated\": " + std::to_string(c.gmBytesTruncated);
    if (CurrentProduct().cost.available) {
      out += ", \"modelled_cycles\": " + JsonNumber(c.modelledCycles);
    }
    out += "}";
  }
  return out + "]";
}

}  // namespace

bool RegisterKernel(const char *opType, const char *kernelName, KernelEntry entry) {
  Registries &r = Reg();
  std::lock_guard<std::mutex> lock(r.mutex);
  KernelInfo info;
  info.opType = opType;
  info.kernelName = kernelName;
  info.entry = entry;
  r.kernels[opType] = info;
  return true;
}

const KernelInfo *FindKernel(const std::string &opType) {
  Registries &r = Reg();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.kernels.find(opType);
  return it == r.kernels.end() ? nullptr : &it->second;
}

gert::OpImplRegisterV2::TilingKernelFunc FindTilingFunc(const std::string &opType) {
  Registries &r = Reg();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.tilings.find(opType);
  return it == r.tilings.end() ? nullptr : it->second;
}

void PublishRunStats(const RunStatsRecord &record) {
  std::string out = "{\"status\": " + std::to_string(record.status) + ", \"launches\": [";
  for (size_t i = 0; i < record.launches.size(); ++i) {
    const LaunchStatsRecord &l = record.launches[i];
    if (i != 0) {
      out += ", ";
    }
    out += "{\"op_type\": " + json::Quote(l.opType) + ", \"kernel\": " + json::Quote(l.kernelName) +
           ", \"block_dim\": " + std::to_string(l.blockDim) + ", \"tiling_key\": " + std::to_string(l.tilingKey) +
           ", \"workspace_bytes\": " + std::to_string(l.workspaceBytes) +
           ", \"tiling_data_size\": " + std::to_string(l.tilingData.size()) + ", \"tiling\": " +
           TilingDataToJson(FindTilingClassMeta(l.opType.c_str()), l.tilingData.data(), l.tilingData.size()) +
           ", \"ok\": " + (l.ok ? "true" : "false") + ", \"fault\": " + (l.ok ? "null" : json::Quote(l.fault)) +
           ", \"cores\": " + CoresJson(l.cores) + ", \"timeline\": " + TimelineJson(l.cores) + ", \"notes\": [";
    for (size_t k = 0; k < l.notes.size(); ++k) {
      out += (k == 0 ? "" : ", ") + json::Quote(l.notes[k]);
    }
    out += "]}";
  }
  out += "], \"host_tasks\": [";
  for (size_t i = 0; i < record.hostTasks.size(); ++i) {
    const HostTaskStatsRecord &h = record.hostTasks[i];
    if (i != 0) {
      out += ", ";
    }
    out += "{\"kind\": " + json::Quote(h.kind) + ", \"bytes_read\": " + std::to_string(h.bytesRead) +
           ", \"bytes_written\": " + std::to_string(h.bytesWritten) + "}";
  }
  out += "]}";
  Registries &r = Reg();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.lastRunJson = std::move(out);
}

std::string LastRunStatsJson() {
  Registries &r = Reg();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.lastRunJson;
}

gert::OpImplRegisterV2::InferShapeKernelFunc FindInferShapeFunc(const std::string &opType) {
  Registries &r = Reg();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.inferShapes.find(opType);
  return it == r.inferShapes.end() ? nullptr : it->second;
}

gert::OpImplRegisterV2::InferDataTypeKernelFunc FindInferDataTypeFunc(const std::string &opType) {
  Registries &r = Reg();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.inferDataTypes.find(opType);
  return it == r.inferDataTypes.end() ? nullptr : it->second;
}

bool HasTilingParse(const std::string &opType) {
  Registries &r = Reg();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.tilingParses.find(opType);
  return it != r.tilingParses.end() && it->second > 0;
}

void RegisterTilingParse(const char *opType) {
  Registries &r = Reg();
  std::lock_guard<std::mutex> lock(r.mutex);
  ++r.tilingParses[opType];
}

void RegisterInferShapeFunc(const char *opType, gert::OpImplRegisterV2::InferShapeKernelFunc func) {
  Registries &r = Reg();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.inferShapes[opType] = func;
}

void RegisterInferDataTypeFunc(const char *opType, gert::OpImplRegisterV2::InferDataTypeKernelFunc func) {
  Registries &r = Reg();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.inferDataTypes[opType] = func;
}

void RegisterTilingFunc(const char *opType, gert::OpImplRegisterV2::TilingKernelFunc func) {
  Registries &r = Reg();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.tilings[opType] = func;
}

}  // namespace opgen_rt

namespace gert {

OpImplRegisterV2::OpImplRegisterV2(const char *opType) : opType_(opType == nullptr ? "" : opType) {}

OpImplRegisterV2 &OpImplRegisterV2::Tiling(TilingKernelFunc tilingFunc, size_t maxTilingDataSize) {
  (void)maxTilingDataSize;
  opgen_rt::RegisterTilingFunc(opType_, tilingFunc);
  return *this;
}

OpImplRegisterV2 &OpImplRegisterV2::InferShape(InferShapeKernelFunc inferShapeFunc) {
  opgen_rt::RegisterInferShapeFunc(opType_, inferShapeFunc);
  return *this;
}

OpImplRegisterV2 &OpImplRegisterV2::InferDataType(InferDataTypeKernelFunc inferDataTypeFunc) {
  opgen_rt::RegisterInferDataTypeFunc(opType_, inferDataTypeFunc);
  return *this;
}

OpImplRegisterV2 &OpImplRegisterV2::TilingParse(KernelFunc tiling_parse_func, CompileInfoCreatorFunc creator_func,
                                                CompileInfoDeleterFunc deleter_func) {
  (void)tiling_parse_func;
  // The compile info a tiling would read: created and deleted once, as the framework does per node.
  if (creator_func != nullptr && deleter_func != nullptr) {
    deleter_func(creator_func());
  }
  opgen_rt::RegisterTilingParse(opType_);
  return *this;
}

OpImplRegisterV2 &OpImplRegisterV2::TilingInputsDataDependency(std::initializer_list<int32_t> inputs) {
  (void)inputs;
  return *this;
}

OpImplRegisterV2 &OpImplRegisterV2::InputsDataDependency(std::initializer_list<int32_t> inputs) {
  (void)inputs;
  return *this;
}

}  // namespace gert
