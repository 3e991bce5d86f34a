// ascend-opgen host emulation of CANN's register/op_impl_kernel_registry.h (hicann/metadef
// inc/external/register/op_impl_kernel_registry.h): the functions registered for an op type, as a unit test
// finds them (Ops::NN::OpImplRegistry::GetOpImpl). Only the function members the emulation registers.
#ifndef OPGEN_REGISTER_OP_IMPL_KERNEL_REGISTRY_H
#define OPGEN_REGISTER_OP_IMPL_KERNEL_REGISTRY_H

#include <cstddef>
#include <cstdint>

#include "register/op_impl_registry.h"

namespace gert {
struct OpImplKernelRegistry {
  struct OpImplFunctions {
    OpImplRegisterV2::InferShapeKernelFunc infer_shape = nullptr;
    OpImplRegisterV2::InferDataTypeKernelFunc infer_datatype = nullptr;
    OpImplRegisterV2::TilingKernelFunc tiling = nullptr;
    OpImplRegisterV2::KernelFunc tiling_parse = nullptr;
    size_t max_tiling_data_size = 0UL;
  };
};
}  // namespace gert

namespace opgen_rt {
// The functions IMPL_OP_OPTILING / IMPL_OP_INFERSHAPE registered for `opType`; nullptr when none was.
const gert::OpImplKernelRegistry::OpImplFunctions *FindOpImplFunctions(const char *opType);
}  // namespace opgen_rt

#endif  // OPGEN_REGISTER_OP_IMPL_KERNEL_REGISTRY_H
