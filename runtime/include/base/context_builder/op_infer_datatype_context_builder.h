// ascend-opgen host emulation of CANN's base/context_builder/op_infer_datatype_context_builder.h (hicann/metadef
// inc/external/base/context_builder/op_infer_datatype_context_builder.h): builds the gert::InferDataTypeContext
// an InferDataType function runs on in a unit test. Each input's dtype is the one its tensor description
// gives; each output starts as DT_UNDEFINED until the function sets it. The emulation's Build() fails
// (context nullptr, message on stderr) where CANN would read past the descriptions it was given; the
// ExpandDimsType argument is accepted and not used. Implemented in runtime/src/host/context_builder.cpp.
#ifndef OPGEN_BASE_CONTEXT_BUILDER_OP_INFER_DATATYPE_CONTEXT_BUILDER_H
#define OPGEN_BASE_CONTEXT_BUILDER_OP_INFER_DATATYPE_CONTEXT_BUILDER_H

#include <vector>

#include "base/context_builder/context_holder.h"
#include "base/context_builder/op_context_builder_base.h"
#include "exe_graph/runtime/expand_dims_type.h"
#include "exe_graph/runtime/infer_datatype_context.h"
#include "graph/types.h"

namespace gert {
class OpInferDataTypeContextBuilder : public OpContextBuilderBase<OpInferDataTypeContextBuilder> {
 public:
  OpInferDataTypeContextBuilder();
  ~OpInferDataTypeContextBuilder() override;
  OpInferDataTypeContextBuilder &InputTensorDesc(size_t index, ge::DataType dtype, ge::Format origin_format,
                                                 ge::Format storage_format,
                                                 const gert::ExpandDimsType &expand_dims_type = {});
  OpInferDataTypeContextBuilder &OutputTensorDesc(size_t index, ge::Format origin_format, ge::Format storage_format,
                                                  const gert::ExpandDimsType &expand_dims_type = {});
  ContextHolder<InferDataTypeContext> Build();
};
}  // namespace gert

#endif  // OPGEN_BASE_CONTEXT_BUILDER_OP_INFER_DATATYPE_CONTEXT_BUILDER_H
