// ascend-opgen host emulation of ops-nn's tests/ut/common/infer_datatype_context_faker.h (hicann/ops-nn):
// gert::InferDataTypeContextFaker, the builder an op_host unit test describes an InferDataType call with.
// Implemented in runtime/src/host/ut_context_fakers.cpp as ops-nn implements it, over the emulation's
// OpInferDataTypeContextBuilder.
#ifndef OPGEN_OPS_NN_TESTS_UT_COMMON_INFER_DATATYPE_CONTEXT_FAKER_H
#define OPGEN_OPS_NN_TESTS_UT_COMMON_INFER_DATATYPE_CONTEXT_FAKER_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "any_value.h"
#include "kernel_run_context_holder.h"

namespace gert {
class InferDataTypeContextFaker : public OpInferDataTypeContextBuilder, public KernelRunContextHolder {
 public:
  InferDataTypeContextFaker() = default;
  InferDataTypeContextFaker &operator=(InferDataTypeContextFaker &&);
  InferDataTypeContextFaker(InferDataTypeContextFaker &&);

  InferDataTypeContextFaker &SetOpType(const std::string opType);

  InferDataTypeContextFaker &IrInputNum(size_t inputNum);

  InferDataTypeContextFaker &NodeIoNum(size_t inputNum, size_t outputNum);

  InferDataTypeContextFaker &IrInstanceNum(const std::vector<uint32_t> &inputInstanceNum,
                                           const std::vector<uint32_t> &outputInstanceNum);

  InferDataTypeContextFaker &IrInstanceNum(const std::vector<uint32_t> &instanceNum);

  InferDataTypeContextFaker &NodeInputTd(int32_t index, ge::DataType dtype, ge::Format originFormat,
                                         ge::Format storageFormat);

  InferDataTypeContextFaker &NodeOutputTd(int32_t index, ge::DataType dtype, ge::Format originFormat,
                                          ge::Format storageFormat);

  template <typename T>
  InferDataTypeContextFaker &Attr(const std::string &attrName, T attr) {
    (void)attrName;
    OpContextBuilderBase::AppendAttr(attr);
    return *this;
  }

  InferDataTypeContextFaker &InputDataTypes(const std::vector<void *> &inputDataTypes);

  InferDataTypeContextFaker &OutputDataTypes(const std::vector<void *> &outputDataTypes);

  InferDataTypeContextFaker &NodeAttrs(const std::vector<std::pair<std::string, Ops::NN::AnyValue>> &attrs);

  KernelRunContextHolder Build();
};
}  // namespace gert

#endif  // OPGEN_OPS_NN_TESTS_UT_COMMON_INFER_DATATYPE_CONTEXT_FAKER_H
