// ascend-opgen emulation: the helper the generated op_host unit tests (tests/ut/op_host/test_<kernel>_tiling.cpp)
// use to run an op's registered tiling function on a described case. Hand-written; not a CANN or ops-nn
// header: ops-nn's own tests build the context with gert::TilingContextFaker (tests/ut common helpers),
// whose declarations are not mirrored here. Runs the tiling exactly as an aclnn launch does in the emulation
// (the library's product platform: its UB, vector cores, NpuArch and system workspace).
// Implemented in runtime/src/host/ut_tiling.cpp.
#ifndef OPGEN_RT_UT_TILING_H
#define OPGEN_RT_UT_TILING_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "graph/ge_error_codes.h"
#include "graph/types.h"
#include "opgen_rt/attr_value.h"

namespace opgen_rt {
namespace ut {

// One tiling call: tensors in OpDef order (an absent optional input is AddAbsentInput()), attrs in OpDef
// order, and the deterministic flag (aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC)).
class TilingCase {
 public:
  explicit TilingCase(std::string opType) : opType_(std::move(opType)) {}
  TilingCase &AddInput(const std::vector<int64_t> &shape, ge::DataType dtype);
  TilingCase &AddAbsentInput();
  TilingCase &AddOutput(const std::vector<int64_t> &shape, ge::DataType dtype);
  TilingCase &AddAttr(const AttrValue &value);
  TilingCase &SetDeterministic(int32_t deterministic);

  struct Tensor {
    bool present = true;
    std::vector<int64_t> shape;
    ge::DataType dtype = ge::DT_UNDEFINED;
  };
  const std::string &OpType() const { return opType_; }
  const std::vector<Tensor> &Inputs() const { return inputs_; }
  const std::vector<Tensor> &Outputs() const { return outputs_; }
  const std::vector<AttrValue> &Attrs() const { return attrs_; }
  int32_t Deterministic() const { return deterministic_; }

 private:
  std::string opType_;
  std::vector<Tensor> inputs_;
  std::vector<Tensor> outputs_;
  std::vector<AttrValue> attrs_;
  int32_t deterministic_ = 0;
};

// What the tiling function set. `status` is ge::GRAPH_SUCCESS, or ge::GRAPH_FAILED with `message` saying
// why (the function failed, set no block dim, overflowed the tiling buffer, or none is registered).
struct TilingCaseResult {
  ge::graphStatus status = ge::GRAPH_FAILED;
  std::string message;
  uint32_t blockDim = 0;
  uint64_t tilingKey = 0;
  std::vector<uint64_t> workspaceSizes;  // bytes, GetWorkspaceSizes() entries
  std::vector<uint8_t> tilingData;       // the bytes SaveToBuffer wrote

  // The value of scalar tiling field `name` (as TILING_DATA_FIELD_DEF names it) of the op's registered
  // tiling-data class, converted to int64; `found` is false when there is no such field or it lies past the
  // written bytes.
  int64_t IntField(const std::string &name, bool &found) const;
  std::string opType;
};

TilingCaseResult RunTilingCase(const TilingCase &tilingCase);

// What the InferShape and InferDataType functions registered with IMPL_OP_INFERSHAPE set for a case's
// inputs and attrs (the case's outputs are not used; the output count is the OpDef's). `status` is
// ge::GRAPH_SUCCESS, or ge::GRAPH_FAILED with `message` saying why.
struct InferShapeCaseResult {
  ge::graphStatus status = ge::GRAPH_FAILED;
  std::string message;
  std::vector<std::vector<int64_t>> outputShapes;  // dims per output
  std::vector<ge::DataType> outputDtypes;
};

InferShapeCaseResult RunInferShapeCase(const TilingCase &inferCase);

// Catalogue name of the product the library under test was built for (e.g. "Ascend910B").
const char *CurrentProductName();

}  // namespace ut
}  // namespace opgen_rt

#endif  // OPGEN_RT_UT_TILING_H
