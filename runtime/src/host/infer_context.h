// ascend-opgen host emulation: fills the contexts of a registered InferShape / InferDataType function
// (IMPL_OP_INFERSHAPE) from tensor descriptions and attributes, and reads their outputs back. Used by the C
// API's opgen_rt_run_infershape_json and by the launcher, which holds every AICore launch to the op's
// registered InferShape (launcher.cpp).
#ifndef OPGEN_RT_HOST_INFER_CONTEXT_H
#define OPGEN_RT_HOST_INFER_CONTEXT_H

#include <string>
#include <vector>

#include "exe_graph/runtime/infer_datatype_context.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "tiling_runner.h"

namespace opgen_rt {

// The friend of the contexts' private state.
class InferContextBuilder {
 public:
  // inputs in the OpDef's input order (an absent optional input: present = false); outputCount the
  // OpDef's outputs.
  static void Fill(gert::InferShapeContext &shapes, gert::InferDataTypeContext &dtypes, const std::string &opType,
                   const std::vector<TilingTensorDesc> &inputs, const std::vector<AttrValue> &attrs,
                   size_t outputCount) {
    for (const TilingTensorDesc &d : inputs) {
      shapes.inputs_.push_back(d.present ? d.originShape : gert::Shape());
      shapes.present_.push_back(d.present);
      dtypes.inputs_.push_back(d.present ? d.dataType : ge::DT_UNDEFINED);
    }
    shapes.outputs_.assign(outputCount, gert::Shape());
    dtypes.outputs_.assign(outputCount, ge::DT_UNDEFINED);
    shapes.attrs_.attrs_ = attrs;
    dtypes.attrs_.attrs_ = attrs;
    shapes.nodeName_ = dtypes.nodeName_ = opType;
    shapes.nodeType_ = dtypes.nodeType_ = opType;
  }
  // The same with IR inputs of several instances (a tensor list: a DYNAMIC input): `instances[k]` is the
  // instance count of IR input k, its descriptions consecutive in `inputs`; outputCount counts instances.
  static void FillInstances(gert::InferShapeContext &shapes, gert::InferDataTypeContext &dtypes,
                            const std::string &opType, const std::vector<TilingTensorDesc> &inputs,
                            const std::vector<size_t> &instances, const std::vector<AttrValue> &attrs,
                            size_t outputCount) {
    Fill(shapes, dtypes, opType, inputs, attrs, outputCount);
    size_t first = 0;
    for (size_t count : instances) {
      shapes.irInstances_.emplace_back(first, count);
      dtypes.irInstances_.emplace_back(first, count);
      first += count;
    }
  }
  static const std::vector<gert::Shape> &Outputs(const gert::InferShapeContext &shapes) {
    return shapes.outputs_;
  }
  static const std::vector<ge::DataType> &Outputs(const gert::InferDataTypeContext &dtypes) {
    return dtypes.outputs_;
  }
};

}  // namespace opgen_rt

#endif  // OPGEN_RT_HOST_INFER_CONTEXT_H
