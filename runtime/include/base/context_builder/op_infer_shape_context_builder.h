// ascend-opgen host emulation of CANN's base/context_builder/op_infer_shape_context_builder.h (hicann/metadef
// inc/external/base/context_builder/op_infer_shape_context_builder.h): builds the gert::InferShapeContext an
// InferShape function runs on in a unit test; one empty output shape per output instance. The emulation's
// Build() fails (context nullptr, message on stderr) where CANN would read past the tensors it was given.
// OutputTensorDesc (ExpandDimsType) is not emulated. Implemented in runtime/src/host/context_builder.cpp.
#ifndef OPGEN_BASE_CONTEXT_BUILDER_OP_INFER_SHAPE_CONTEXT_BUILDER_H
#define OPGEN_BASE_CONTEXT_BUILDER_OP_INFER_SHAPE_CONTEXT_BUILDER_H

#include <vector>

#include "base/context_builder/context_holder.h"
#include "base/context_builder/op_context_builder_base.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/tensor.h"

namespace gert {
class OpInferShapeContextBuilder : public OpContextBuilderBase<OpInferShapeContextBuilder> {
 public:
  OpInferShapeContextBuilder();
  ~OpInferShapeContextBuilder() override;
  OpInferShapeContextBuilder &InputTensors(const std::vector<gert::Tensor *> &inputs);
  ContextHolder<InferShapeContext> Build();
};
}  // namespace gert

#endif  // OPGEN_BASE_CONTEXT_BUILDER_OP_INFER_SHAPE_CONTEXT_BUILDER_H
