// ascend-opgen emulation: the unit-test tiling helper of opgen_rt/ut_tiling.h over RunTiling.
#include "opgen_rt/ut_tiling.h"

#include <cstring>

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

const char *CurrentProductName() { return CurrentProduct().name; }

}  // namespace ut
}  // namespace opgen_rt
