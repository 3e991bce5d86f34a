// ascend-opgen host emulation of CANN's exe_graph/runtime/infer_shape_context.h: gert::InferShapeContext, what
// an op's infer-shape function (registered with IMPL_OP_INFERSHAPE(OpType).InferShape(func)) reads and
// writes. Public members mirror hicann/metadef inc/external/exe_graph/runtime/infer_shape_context.h (and the
// GetAttrs / GetNodeName / GetNodeType members its base ExtendedKernelContext provides); the state behind
// them is the emulator's own, filled by the runtime's infer-shape runner.
//
// Indices are those of the OpDef (IR) inputs and outputs; an absent optional input reads as nullptr.
#ifndef OPGEN_EXE_GRAPH_RUNTIME_INFER_SHAPE_CONTEXT_H
#define OPGEN_EXE_GRAPH_RUNTIME_INFER_SHAPE_CONTEXT_H

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "exe_graph/runtime/runtime_attrs.h"
#include "exe_graph/runtime/shape.h"
#include "exe_graph/runtime/tensor.h"

namespace opgen_rt {
class InferContextBuilder;
}

namespace gert {

class InferShapeContext {
 public:
  const Shape *GetInputShape(const size_t index) const {
    return index < inputs_.size() && present_[index] ? &inputs_[index] : nullptr;
  }
  const Shape *GetOptionalInputShape(const size_t ir_index) const {
    return GetDynamicInputShape(ir_index, 0);
  }
  const Shape *GetRequiredInputShape(const size_t ir_index) const {
    return GetDynamicInputShape(ir_index, 0);
  }
  const Shape *GetDynamicInputShape(const size_t ir_index, const size_t relative_index) const {
    if (irInstances_.empty()) {  // one instance per IR input
      return relative_index == 0 ? GetInputShape(ir_index) : nullptr;
    }
    if (ir_index >= irInstances_.size() || relative_index >= irInstances_[ir_index].second) {
      return nullptr;
    }
    return GetInputShape(irInstances_[ir_index].first + relative_index);
  }
  Shape *GetOutputShape(const size_t index) {
    return index < outputs_.size() ? &outputs_[index] : nullptr;
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
  std::vector<Shape> inputs_;
  std::vector<bool> present_;
  // per IR input: (first instance, instance count); empty when every IR input is one instance
  std::vector<std::pair<size_t, size_t>> irInstances_;
  std::vector<Shape> outputs_;
  RuntimeAttrs attrs_;
  std::string nodeName_;
  std::string nodeType_;
};

}  // namespace gert

#endif  // OPGEN_EXE_GRAPH_RUNTIME_INFER_SHAPE_CONTEXT_H
