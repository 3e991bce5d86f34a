// ascend-opgen host emulation: building a gert::TilingContext and running an op's tiling function.
#include <cstring>
#include <exception>
#include <memory>
#include <string>

#include "opdev/op_errno.h"
#include "opdev/data_type_utils.h"
#include "opdev/format_utils.h"
#include "opdev/shape_utils.h"
#include "opgen_rt/core.h"
#include "registry.h"
#include "tiling_runner.h"

namespace opgen_rt {

gert::TilingContext *TilingContextBuilder::Create(void *buffer, size_t capacity) {
  return new gert::TilingContext(buffer, capacity);
}

void TilingContextBuilder::Fill(gert::TilingContext &context, const TilingRequest &request,
                                fe::PlatFormInfos *platform) {
  auto fillIo = [](std::vector<gert::TilingContext::Io> &into, const std::vector<TilingTensorDesc> &from) {
    into.resize(from.size());
    for (size_t i = 0; i < from.size(); ++i) {
      const TilingTensorDesc &d = from[i];
      gert::TilingContext::Io &io = into[i];
      io.present = d.present;
      if (!d.present) {
        continue;
      }
      io.shape = gert::StorageShape(d.originShape, d.storageShape);
      io.desc.SetDataType(d.dataType);
      io.desc.SetOriginFormat(d.originFormat);
      io.desc.SetStorageFormat(d.storageFormat);
      io.tensor.shape_ = io.shape;
      io.tensor.dataType_ = d.dataType;
      io.tensor.format_ = gert::StorageFormat(d.originFormat, d.storageFormat);
      io.tensor.addr_ = nullptr;
    }
  };
  fillIo(context.inputs_, request.inputs);
  fillIo(context.outputs_, request.outputs);
  auto fillInstances = [](std::vector<gert::AnchorInstanceInfo> &into, size_t &total,
                          const std::vector<uint32_t> &counts, const std::vector<TilingTensorDesc> &ios) {
    into.clear();
    total = ios.size();
    if (counts.empty()) {
      for (size_t i = 0; i < ios.size(); ++i) {
        into.emplace_back(static_cast<uint32_t>(i), ios[i].present ? 1u : 0u);
      }
      return;
    }
    uint32_t start = 0;
    for (uint32_t n : counts) {
      const bool absent = n == 1 && start < ios.size() && !ios[start].present;  // an absent optional one
      into.emplace_back(start, absent ? 0u : n);
      start += n;
    }
  };
  fillInstances(context.nodeInfo_.irInputs_, context.nodeInfo_.inputsNum_, request.inputInstances, request.inputs);
  fillInstances(context.nodeInfo_.irOutputs_, context.nodeInfo_.outputsNum_, request.outputInstances,
                request.outputs);
  context.attrs_.attrs_ = request.attrs;
  context.platform_ = platform;
  context.nodeName_ = request.opType;
  context.nodeType_ = request.opType;
  context.deterministic_ = request.deterministic;
}

void TilingContextBuilder::Attach(gert::TilingContext &context, const std::string &nodeName, const void *compileInfo,
                                  gert::TilingData *tilingData, gert::ContinuousVector *workspace) {
  context.built_ = true;
  context.nodeName_ = nodeName;
  context.compileInfo_ = compileInfo;
  context.rawTilingData_ = tilingData;
  context.workspace_ = workspace;
}

std::string DescribeTensorDesc(const TilingTensorDesc &desc) {
  if (!desc.present) {
    return "absent";
  }
  return std::string(op::ToString(desc.storageShape).GetString()) + " " + op::ToString(desc.dataType).GetString() +
         " " + op::ToString(desc.storageFormat).GetString();
}

namespace {

std::string DescribeRequest(const TilingRequest &request) {
  std::string text = "inputs (";
  for (size_t i = 0; i < request.inputs.size(); ++i) {
    text += (i == 0 ? "" : ", ") + DescribeTensorDesc(request.inputs[i]);
  }
  text += "), outputs (";
  for (size_t i = 0; i < request.outputs.size(); ++i) {
    text += (i == 0 ? "" : ", ") + DescribeTensorDesc(request.outputs[i]);
  }
  return text + ")";
}

fe::PlatFormInfos *ProductPlatform() {
  static fe::PlatFormInfos infos(&CurrentProduct());
  return &infos;
}

}  // namespace

void RunTiling(const TilingRequest &request, TilingResult &result) {
  result = TilingResult();
  auto fail = [&result, &request](const std::string &why) {
    result.status = ACLNN_ERR_INNER_TILING_ERROR;
    result.message = "tiling of " + request.opType + " failed: " + why + "; " + DescribeRequest(request) + ".";
  };
  const auto func = FindTilingFunc(request.opType);
  if (func == nullptr) {
    fail("no tiling function is registered (IMPL_OP_OPTILING(" + request.opType + ").Tiling(...))");
    return;
  }
  std::unique_ptr<uint8_t[]> buffer(new uint8_t[kTilingDataCapacity]);
  std::memset(buffer.get(), 0, kTilingDataCapacity);
  std::unique_ptr<gert::TilingContext> context(TilingContextBuilder::Create(buffer.get(), kTilingDataCapacity));
  TilingContextBuilder::Fill(*context, request, ProductPlatform());
  ge::graphStatus status = ge::GRAPH_FAILED;
  try {
    status = func(context.get());
  } catch (const std::exception &e) {
    fail(std::string("the tiling function threw: ") + e.what());
    return;
  } catch (...) {
    fail("the tiling function threw an exception");
    return;
  }
  if (status != ge::GRAPH_SUCCESS) {
    fail("the tiling function returned " + std::to_string(status) + " (GRAPH_FAILED)");
    return;
  }
  const gert::TilingData *data = context->GetRawTilingData();
  if (data->GetDataSize() > data->GetCapacity()) {
    fail("the tiling data size " + std::to_string(data->GetDataSize()) + " exceeds the buffer capacity " +
         std::to_string(data->GetCapacity()));
    return;
  }
  if (context->GetBlockDim() == 0) {
    fail("the tiling function set no block dim (SetBlockDim was not called, or with 0)");
    return;
  }
  if (context->GetBlockDim() > kMaxBlockDim) {
    fail("block dim " + std::to_string(context->GetBlockDim()) + " exceeds " + std::to_string(kMaxBlockDim));
    return;
  }
  result.blockDim = context->GetBlockDim();
  result.tilingKey = context->GetTilingKey();
  result.scheduleMode = context->GetScheduleMode();
  result.needAtomic = context->NeedAtomic();
  const size_t *ws = context->GetWorkspaceSizes(0);
  for (size_t i = 0; i < context->GetWorkspaceNum(); ++i) {
    result.workspaceSizes.push_back(static_cast<uint64_t>(ws[i]));
  }
  const auto *bytes = static_cast<const uint8_t *>(data->GetData());
  result.tilingData.assign(bytes, bytes + data->GetDataSize());
  result.status = ACLNN_SUCCESS;
}

}  // namespace opgen_rt
