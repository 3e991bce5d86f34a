// ascend-opgen host emulation of CANN's register/op_impl_registry.h: registering an op's host
// implementation functions (tiling, infer shape) under its OpType.
//
//   IMPL_OP_OPTILING(SoftMarginLossGrad).Tiling(SoftMarginLossGradTilingFunc);
//
// The tiling function runs in every launch; infer-shape / infer-dtype functions are recorded and run by
// opgen_rt_run_infershape_json (aclnn L2 code computes output shapes itself); TilingParse<CompileInfo>
// (hicann/metadef inc/external/register/op_impl_registry.h) is recorded, its function is not called (compile
// info JSON does not exist outside the CANN graph compiler).
#ifndef OPGEN_REGISTER_OP_IMPL_REGISTRY_H
#define OPGEN_REGISTER_OP_IMPL_REGISTRY_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "exe_graph/runtime/infer_datatype_context.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/tiling_context.h"
#include "graph/ge_error_codes.h"

namespace gert {

class KernelContext;
class TilingParseContext;

class OpImplRegisterV2 {
 public:
  using TilingKernelFunc = ge::graphStatus (*)(TilingContext *);
  using InferShapeKernelFunc = ge::graphStatus (*)(InferShapeContext *);
  using InferDataTypeKernelFunc = ge::graphStatus (*)(InferDataTypeContext *);
  using CompileInfoCreatorFunc = void *(*)();
  using CompileInfoDeleterFunc = void (*)(void *);
  using KernelFunc = uint32_t (*)(KernelContext *context);
  using TilingParseFunc = uint32_t (*)(TilingParseContext *context);

  explicit OpImplRegisterV2(const char *opType);

  // Registers the tiling function of the op type (a later registration replaces an earlier one).
  // maxTilingDataSize is accepted for source compatibility; the buffer capacity is fixed (see launcher).
  OpImplRegisterV2 &Tiling(TilingKernelFunc tilingFunc, size_t maxTilingDataSize = 2048);
  OpImplRegisterV2 &InferShape(InferShapeKernelFunc inferShapeFunc);
  OpImplRegisterV2 &InferDataType(InferDataTypeKernelFunc inferDataTypeFunc);
  OpImplRegisterV2 &TilingInputsDataDependency(std::initializer_list<int32_t> inputs);
  OpImplRegisterV2 &InputsDataDependency(std::initializer_list<int32_t> inputs);
  // Registers the tiling-parse function and the compile-info type T (created with new T()).
  template <typename T>
  OpImplRegisterV2 &TilingParse(KernelFunc const tiling_parse_func) {
    return TilingParse(tiling_parse_func, CreateCompileInfo<T>, DeleteCompileInfo<T>);
  }
  template <typename T>
  OpImplRegisterV2 &TilingParse(TilingParseFunc const tiling_parse_func) {
    return TilingParse(reinterpret_cast<KernelFunc>(tiling_parse_func), CreateCompileInfo<T>, DeleteCompileInfo<T>);
  }

  const char *OpType() const {
    return opType_;
  }

 private:
  OpImplRegisterV2 &TilingParse(KernelFunc tiling_parse_func, CompileInfoCreatorFunc creator_func,
                                CompileInfoDeleterFunc deleter_func);
  template <typename T, typename std::enable_if<(!std::is_array<T>::value), int32_t>::type = 0>
  static void *CreateCompileInfo() {
    return new T();
  }
  template <typename T>
  static void DeleteCompileInfo(void *const obj) {
    delete reinterpret_cast<T *>(obj);
  }

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
