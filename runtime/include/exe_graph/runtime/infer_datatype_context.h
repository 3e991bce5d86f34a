// ascend-opgen host emulation of CANN's exe_graph/runtime/infer_datatype_context.h: gert::InferDataTypeContext,
// what an op's infer-dtype function (IMPL_OP_INFERSHAPE(OpType).InferDataType(func)) reads and writes. Public
// members mirror hicann/metadef inc/external/exe_graph/runtime/infer_datatype_context.h (plus GetAttrs /
// GetNodeName / GetNodeType of its base ExtendedKernelContext); the state behind them is the emulator's own.
#ifndef OPGEN_EXE_GRAPH_RUNTIME_INFER_DATATYPE_CONTEXT_H
#define OPGEN_EXE_GRAPH_RUNTIME_INFER_DATATYPE_CONTEXT_H

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "exe_graph/runtime/runtime_attrs.h"
#include "graph/ge_error_codes.h"
#include "graph/types.h"

namespace opgen_rt {
class InferContextBuilder;
}

namespace gert {

class InferDataTypeContext {
 public:
  ge::DataType GetInputDataType(const size_t index) const {
    return index < inputs_.size() ? inputs_[index] : ge::DT_UNDEFINED;
  }
  ge::DataType GetOptionalInputDataType(const size_t ir_index) const {
    return GetDynamicInputDataType(ir_index, 0);
  }
  ge::DataType GetRequiredInputDataType(const size_t ir_index) const {
    return GetDynamicInputDataType(ir_index, 0);
  }
  ge::DataType GetDynamicInputDataType(const size_t ir_index, const size_t relative_index) const {
    if (irInstances_.empty()) {  // one instance per IR input
      return relative_index == 0 ? GetInputDataType(ir_index) : ge::DT_UNDEFINED;
    }
    if (ir_index >= irInstances_.size() || relative_index >= irInstances_[ir_index].second) {
      return ge::DT_UNDEFINED;
    }
    return GetInputDataType(irInstances_[ir_index].first + relative_index);
  }
  ge::DataType GetOutputDataType(const size_t index) const {
    return index < outputs_.size() ? outputs_[index] : ge::DT_UNDEFINED;
  }
  ge::graphStatus SetOutputDataType(const size_t index, const ge::DataType datatype) {
    if (index >= outputs_.size()) {
      return ge::GRAPH_FAILED;
    }
    outputs_[index] = datatype;
    return ge::GRAPH_SUCCESS;
  }
  const RuntimeAttrs *GetAttrs() const {
    return &attrs_;
  }
  const char *GetNodeName() const {
    return nodeName_.c_str();
  }
  const char *GetNodeType() const {
    return nodeType_.c_str();
  }

 private:
  friend class opgen_rt::InferContextBuilder;
  std::vector<ge::DataType> inputs_;  // DT_UNDEFINED for an absent optional input
  // per IR input: (first instance, instance count); empty when every IR input is one instance
  std::vector<std::pair<size_t, size_t>> irInstances_;
  std::vector<ge::DataType> outputs_;
  RuntimeAttrs attrs_;
  std::string nodeName_;
  std::string nodeType_;
};

}  // namespace gert

#endif  // OPGEN_EXE_GRAPH_RUNTIME_INFER_DATATYPE_CONTEXT_H
