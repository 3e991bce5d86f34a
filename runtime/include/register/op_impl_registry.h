// ascend-opgen host emulation of CANN's register/op_impl_registry.h: registering an op's host
// implementation functions (tiling, infer shape) under its OpType.
//
//   IMPL_OP_OPTILING(SoftMarginLossGrad).Tiling(SoftMarginLossGradTilingFunc);
//
// Only the tiling function is used by the emulation; infer-shape / infer-dtype functions are recorded and
// otherwise ignored (aclnn L2 code computes output shapes itself).
#ifndef OPGEN_REGISTER_OP_IMPL_REGISTRY_H
#define OPGEN_REGISTER_OP_IMPL_REGISTRY_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "exe_graph/runtime/tiling_context.h"
#include "graph/ge_error_codes.h"

namespace gert {

class InferShapeContext;
class InferDataTypeContext;

class OpImplRegisterV2 {
 public:
  using TilingKernelFunc = ge::graphStatus (*)(TilingContext *);
  using InferShapeKernelFunc = ge::graphStatus (*)(InferShapeContext *);
  using InferDataTypeKernelFunc = ge::graphStatus (*)(InferDataTypeContext *);

  explicit OpImplRegisterV2(const char *opType);

  // Registers the tiling function of the op type (a later registration replaces an earlier one).
  // maxTilingDataSize is accepted for source compatibility; the buffer capacity is fixed (see launcher).
  OpImplRegisterV2 &Tiling(TilingKernelFunc tilingFunc, size_t maxTilingDataSize = 2048);
  OpImplRegisterV2 &InferShape(InferShapeKernelFunc inferShapeFunc);
  OpImplRegisterV2 &InferDataType(InferDataTypeKernelFunc inferDataTypeFunc);
  OpImplRegisterV2 &TilingInputsDataDependency(std::initializer_list<int32_t> inputs);
  OpImplRegisterV2 &InputsDataDependency(std::initializer_list<int32_t> inputs);

  const char *OpType() const {
    return opType_;
  }

 private:
  const char *opType_;
};

}  // namespace gert

#define OPGEN_IMPL_OP_CONCAT_INNER(a, b) a##b
#define OPGEN_IMPL_OP_CONCAT(a, b) OPGEN_IMPL_OP_CONCAT_INNER(a, b)

#define IMPL_OP(opType)                                                                                       \
  [[maybe_unused]] static gert::OpImplRegisterV2 OPGEN_IMPL_OP_CONCAT(opgen_op_impl_register_, __COUNTER__) = \
      gert::OpImplRegisterV2(#opType)
#define IMPL_OP_OPTILING(opType) IMPL_OP(opType)
#define IMPL_OP_INFERSHAPE(opType) IMPL_OP(opType)

#endif  // OPGEN_REGISTER_OP_IMPL_REGISTRY_H
