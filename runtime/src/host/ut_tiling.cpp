// ascend-opgen emulation: the unit-test tiling helper of opgen_rt/ut_tiling.h over RunTiling.
#include "opgen_rt/ut_tiling.h"

#include <cstring>

#include "json.h"
#include "opdev/data_type_utils.h"
#include "opgen_rt/c_api.h"
#include "opgen_rt/core.h"
#include "opgen_rt/tiling_meta.h"
#include "tiling_runner.h"

namespace opgen_rt {
namespace ut {

namespace {

TilingTensorDesc ToDesc(const TilingCase::Tensor &t) {
  TilingTensorDesc desc;
  desc.present = t.present;
  if (!t.present) {
    return desc;
  }
  gert::Shape shape;
  for (int64_t d : t.shape) {
    shape.AppendDim(d);
  }
  desc.originShape = shape;
  desc.storageShape = shape;
  desc.dataType = t.dtype;
  return desc;
}

}  // namespace

TilingCase &TilingCase::AddInput(const std::vector<int64_t> &shape, ge::DataType dtype) {
  inputs_.push_back({true, shape, dtype});
  return *this;
}

TilingCase &TilingCase::AddAbsentInput() {
  inputs_.push_back({false, {}, ge::DT_UNDEFINED});
  return *this;
}

TilingCase &TilingCase::AddOutput(const std::vector<int64_t> &shape, ge::DataType dtype) {
  outputs_.push_back({true, shape, dtype});
  return *this;
}

TilingCase &TilingCase::AddAttr(const AttrValue &value) {
  attrs_.push_back(value);
  return *this;
}

TilingCase &TilingCase::SetDeterministic(int32_t deterministic) {
  deterministic_ = deterministic;
  return *this;
}

TilingCaseResult RunTilingCase(const TilingCase &tilingCase) {
  TilingRequest request;
  request.opType = tilingCase.OpType();
  for (const auto &t : tilingCase.Inputs()) {
    request.inputs.push_back(ToDesc(t));
  }
  for (const auto &t : tilingCase.Outputs()) {
    request.outputs.push_back(ToDesc(t));
  }
  request.attrs = tilingCase.Attrs();
  request.deterministic = tilingCase.Deterministic();
  TilingResult raw;
  RunTiling(request, raw);
  TilingCaseResult out;
  out.opType = request.opType;
  out.status = raw.status == 0 ? ge::GRAPH_SUCCESS : ge::GRAPH_FAILED;
  out.message = raw.message;
  out.blockDim = raw.blockDim;
  out.tilingKey = raw.tilingKey;
  out.workspaceSizes = raw.workspaceSizes;
  out.tilingData = raw.tilingData;
  return out;
}

int64_t TilingCaseResult::IntField(const std::string &name, bool &found) const {
  found = false;
  const TilingClassMeta *meta = FindTilingClassMeta(opType.c_str());
  if (meta == nullptr) {
    return 0;
  }
  for (const auto &f : meta->fields) {
    if (f.name != name || f.count != 1 || f.offset + f.elemSize > tilingData.size()) {
      continue;
    }
    const uint8_t *p = tilingData.data() + f.offset;
    found = true;
    if (f.type == "float") {
      float v = 0;
      std::memcpy(&v, p, sizeof(v));
      return static_cast<int64_t>(v);
    }
    if (f.type == "double") {
      double v = 0;
      std::memcpy(&v, p, sizeof(v));
      return static_cast<int64_t>(v);
    }
    const bool isSigned = f.type.rfind("int", 0) == 0 || f.type == "char";
    switch (f.elemSize) {
      case 1: return isSigned ? static_cast<int64_t>(*reinterpret_cast<const int8_t *>(p)) : static_cast<int64_t>(*p);
      case 2: {
        uint16_t v = 0;
        std::memcpy(&v, p, sizeof(v));
        return isSigned ? static_cast<int64_t>(static_cast<int16_t>(v)) : static_cast<int64_t>(v);
      }
      case 4: {
        uint32_t v = 0;
        std::memcpy(&v, p, sizeof(v));
        return isSigned ? static_cast<int64_t>(static_cast<int32_t>(v)) : static_cast<int64_t>(v);
      }
      case 8: {
        int64_t v = 0;
        std::memcpy(&v, p, sizeof(v));
        return v;
      }
      default:
        found = false;
        return 0;
    }
  }
  return 0;
}

namespace {

std::string AttrJson(const AttrValue &a) {
  switch (a.kind) {
    case AttrValue::Kind::BOOL:
      return a.b ? "true" : "false";
    case AttrValue::Kind::FLOAT:
    case AttrValue::Kind::DOUBLE:
      return json::Number(a.d);
    case AttrValue::Kind::STRING:
      return json::Quote(a.s);
    case AttrValue::Kind::UINT:
      return std::to_string(a.u64);
    default:
      return std::to_string(a.i64);
  }
}

}  // namespace

InferShapeCaseResult RunInferShapeCase(const TilingCase &inferCase) {
  std::string request = "{\"inputs\": [";
  for (size_t i = 0; i < inferCase.Inputs().size(); ++i) {
    const auto &t = inferCase.Inputs()[i];
    request += i == 0 ? "" : ", ";
    if (!t.present) {
      request += "null";
      continue;
    }
    std::string dims;
    for (size_t k = 0; k < t.shape.size(); ++k) {
      dims += (k == 0 ? "" : ", ") + std::to_string(t.shape[k]);
    }
    request += "{\"shape\": [" + dims + "], \"dtype\": " + json::Quote(op::ToString(t.dtype).GetString()) + "}";
  }
  request += "], \"attrs\": [";
  for (size_t i = 0; i < inferCase.Attrs().size(); ++i) {
    request += (i == 0 ? "" : ", ") + AttrJson(inferCase.Attrs()[i]);
  }
  request += "]}";
  InferShapeCaseResult out;
  json::Value reply;
  std::string error;
  const char *text = opgen_rt_run_infershape_json(inferCase.OpType().c_str(), request.c_str());
  if (!json::Parse(text, reply, error)) {
    out.message = "unreadable infershape reply: " + error;
    return out;
  }
  const json::Value *status = reply.Find("status");
  const json::Value *message = reply.Find("message");
  out.message = message != nullptr ? message->text : "";
  if (status == nullptr || status->integer != 0) {
    return out;
  }
  const json::Value *outputs = reply.Find("outputs");
  for (const auto &o : outputs != nullptr ? outputs->items : std::vector<json::Value>()) {
    std::vector<int64_t> dims;
    const json::Value *shape = o.Find("shape");
    for (const auto &d : shape != nullptr ? shape->items : std::vector<json::Value>()) {
      dims.push_back(d.integer);
    }
    out.outputShapes.push_back(dims);
    const json::Value *dtype = o.Find("dtype");
    ge::DataType dt = ge::DT_UNDEFINED;
    for (int v = 0; v < static_cast<int>(ge::DT_MAX); ++v) {
      if (dtype != nullptr && op::ToString(static_cast<ge::DataType>(v)).GetString() == dtype->text) {
        dt = static_cast<ge::DataType>(v);
        break;
      }
    }
    out.outputDtypes.push_back(dt);
  }
  out.status = ge::GRAPH_SUCCESS;
  return out;
}

const char *CurrentProductName() { return CurrentProduct().name; }

}  // namespace ut
}  // namespace opgen_rt
