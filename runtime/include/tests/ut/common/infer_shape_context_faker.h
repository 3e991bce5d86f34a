// ascend-opgen host emulation of ops-nn's tests/ut/common/infer_shape_context_faker.h (hicann/ops-nn):
// gert::InferShapeContextFaker, the builder an op_host unit test describes an InferShape call with. Implemented
// in runtime/src/host/ut_context_fakers.cpp as ops-nn implements it, over the emulation's
// OpInferShapeContextBuilder. InfershapeContextPara (ops-nn's infershape_case_executor) is not emulated.
#ifndef OPGEN_OPS_NN_TESTS_UT_COMMON_INFER_SHAPE_CONTEXT_FAKER_H
#define OPGEN_OPS_NN_TESTS_UT_COMMON_INFER_SHAPE_CONTEXT_FAKER_H

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "any_value.h"
#include "kernel_run_context_holder.h"

namespace gert {
class InferShapeContextFaker : public OpInferShapeContextBuilder, public KernelRunContextHolder {
 public:
  InferShapeContextFaker() = default;
  InferShapeContextFaker &operator=(InferShapeContextFaker &&);
  InferShapeContextFaker(InferShapeContextFaker &&);

  InferShapeContextFaker &SetOpType(const std::string opType);

  InferShapeContextFaker &NodeIoNum(size_t inputNum, size_t outputNum);

  InferShapeContextFaker &IrInputNum(size_t inputNum);

  InferShapeContextFaker &IrInstanceNum(const std::vector<uint32_t> &inputInstanceNum,
                                        const std::vector<uint32_t> &outputInstanceNum);

  InferShapeContextFaker &IrInstanceNum(const std::vector<uint32_t> &instanceNum);

  InferShapeContextFaker &NodeInputTd(int32_t index, ge::DataType dtype, ge::Format originFormat,
                                      ge::Format storageFormat);

  InferShapeContextFaker &NodeOutputTd(int32_t index, ge::DataType dtype, ge::Format originFormat,
                                       ge::Format storageFormat);

  template <typename T>
  InferShapeContextFaker &Attr(const std::string &attrName, T attr) {
    (void)attrName;
    OpContextBuilderBase::AppendAttr(attr);
    return *this;
  }

  InferShapeContextFaker &InputTensors(const std::vector<Tensor *> &inputTensors);

  InferShapeContextFaker &InputShapes(const std::initializer_list<void *> &inputShapes);

  InferShapeContextFaker &InputShapes(const std::vector<void *> &inputShapes);

  InferShapeContextFaker &InputShapes(const std::vector<Shape *> &inputShapes);

  InferShapeContextFaker &InputShapes(const std::vector<StorageShape *> &inputShapes);

  InferShapeContextFaker &OutputShapes(const std::initializer_list<Shape *> &outputShapes);

  InferShapeContextFaker &OutputShapes(const std::initializer_list<StorageShape *> &outputShapes);

  InferShapeContextFaker &OutputShapes(const std::vector<Shape *> &outputShapes);

  InferShapeContextFaker &OutputShapes(const std::vector<StorageShape *> &outputShapes);

  InferShapeContextFaker &OutputShapes(const std::vector<void *> &outputShapes);

  InferShapeContextFaker &NodeAttrs(const std::vector<std::pair<std::string, Ops::NN::AnyValue>> &attrs);

  KernelRunContextHolder Build();
};
}  // namespace gert

#endif  // OPGEN_OPS_NN_TESTS_UT_COMMON_INFER_SHAPE_CONTEXT_FAKER_H
