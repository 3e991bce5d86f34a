// ascend-opgen host emulation of ops-nn's tests/ut/common/op_impl_registry.h (hicann/ops-nn): how an op_host
// unit test finds an op's registered tiling and InferShape functions
// (gert::OpImplRegistry::GetInstance().GetOpImpl("OpType")->tiling). CANN's reads metadef's space registry;
// this one reads the emulation's registrations (opgen_rt::FindOpImplFunctions).
#ifndef OPGEN_OPS_NN_TESTS_UT_COMMON_OP_IMPL_REGISTRY_H
#define OPGEN_OPS_NN_TESTS_UT_COMMON_OP_IMPL_REGISTRY_H

#include <string>

#include "register/op_impl_kernel_registry.h"

namespace Ops {
namespace NN {
class OpImplRegistry {
 public:
  ~OpImplRegistry() = default;

  static OpImplRegistry &GetInstance() {
    static OpImplRegistry instance;
    return instance;
  }

  // nullptr when nothing is registered for `opType`.
  const gert::OpImplKernelRegistry::OpImplFunctions *GetOpImpl(const std::string &opType) {
    return opgen_rt::FindOpImplFunctions(opType.c_str());
  }

 private:
  OpImplRegistry() = default;
};
}  // namespace NN
}  // namespace Ops

namespace gert {
using OpImplRegistry = Ops::NN::OpImplRegistry;
}

#endif  // OPGEN_OPS_NN_TESTS_UT_COMMON_OP_IMPL_REGISTRY_H
