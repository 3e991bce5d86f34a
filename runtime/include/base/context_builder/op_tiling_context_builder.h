// ascend-opgen host emulation of CANN's base/context_builder/op_tiling_context_builder.h (hicann/metadef
// inc/external/base/context_builder/op_tiling_context_builder.h): builds the gert::TilingContext a tiling
// function runs on in a unit test. As in CANN, Build() fails (the holder's context is nullptr) without a
// compile info or a platform info; the emulation also fails, with a message on stderr, where CANN would
// read past what it was given (fewer input or output tensors than the instance counts say). The SIMT dims
// are not emulated. Implemented in runtime/src/host/context_builder.cpp.
#ifndef OPGEN_BASE_CONTEXT_BUILDER_OP_TILING_CONTEXT_BUILDER_H
#define OPGEN_BASE_CONTEXT_BUILDER_OP_TILING_CONTEXT_BUILDER_H

#include <memory>
#include <vector>

#include "base/context_builder/context_holder.h"
#include "base/context_builder/op_context_builder_base.h"
#include "exe_graph/runtime/kernel_context.h"
#include "exe_graph/runtime/tiling_context.h"

namespace gert {
class TilingData;

class OpTilingContextBuilder : public OpContextBuilderBase<OpTilingContextBuilder> {
 public:
  OpTilingContextBuilder();
  ~OpTilingContextBuilder() override;
  OpTilingContextBuilder &CompileInfo(const void *compile_info);
  OpTilingContextBuilder &PlatformInfo(const void *platform_info);
  // 0 or 1; another value is refused (logged) and leaves the setting as it was.
  OpTilingContextBuilder &Deterministic(int32_t deterministic);
  OpTilingContextBuilder &DeterministicLevel(int32_t deterministic_level);
  OpTilingContextBuilder &TilingData(const gert::TilingData *tiling_data, gert::Chain::Deleter deleter = nullptr);
  OpTilingContextBuilder &TilingDataSize(size_t tiling_data_size);
  OpTilingContextBuilder &Workspace(const gert::ContinuousVector *workspace);
  OpTilingContextBuilder &InputTensors(const std::vector<gert::Tensor *> &inputs);
  OpTilingContextBuilder &OutputTensors(const std::vector<gert::Tensor *> &outputs);
  ContextHolder<TilingContext> Build();
};
}  // namespace gert

#endif  // OPGEN_BASE_CONTEXT_BUILDER_OP_TILING_CONTEXT_BUILDER_H
