// ascend-opgen host emulation of ops-nn's tests/ut/common/tiling_context_faker.h (hicann/ops-nn):
// gert::TilingContextFaker, the builder an op_host unit test describes a tiling call with (IO counts, input
// and output shapes and tensor descs, attrs, compile and platform info, tiling buffer, workspace) before
// Build(). Implemented in runtime/src/host/ut_context_fakers.cpp as ops-nn implements it, over the
// emulation's OpTilingContextBuilder. TilingContextPara (ops-nn's tiling_case_executor) is not emulated.
#ifndef OPGEN_OPS_NN_TESTS_UT_COMMON_TILING_CONTEXT_FAKER_H
#define OPGEN_OPS_NN_TESTS_UT_COMMON_TILING_CONTEXT_FAKER_H

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "any_value.h"
#include "kernel_run_context_holder.h"

namespace gert {
class TilingContextFaker : public OpTilingContextBuilder, public KernelRunContextHolder {
 public:
  TilingContextFaker() = default;
  TilingContextFaker &operator=(TilingContextFaker &&);
  TilingContextFaker(TilingContextFaker &&);

  TilingContextFaker &SetOpType(const std::string opType);

  TilingContextFaker &NodeIoNum(size_t inputNum, size_t outputNum);

  TilingContextFaker &IrInstanceNum(const std::vector<uint32_t> &inputInstanceNum,
                                    const std::vector<uint32_t> &outputInstanceNum);

  TilingContextFaker &IrInstanceNum(const std::vector<uint32_t> &instanceNum);

  TilingContextFaker &NodeInputTd(int32_t index, ge::DataType dtype, ge::Format originFormat,
                                  ge::Format storageFormat);

  TilingContextFaker &NodeOutputTd(int32_t index, ge::DataType dtype, ge::Format originFormat,
                                   ge::Format storageFormat);

  template <typename T>
  TilingContextFaker &Attr(const std::string &attrName, T attr) {
    (void)attrName;
    OpContextBuilderBase::AppendAttr(attr);
    return *this;
  }

  TilingContextFaker &InputShapes(const std::initializer_list<void *> &inputShapes);

  TilingContextFaker &InputShapes(const std::vector<void *> &inputShapes);

  TilingContextFaker &InputShapes(const std::vector<Shape *> &inputShapes);

  TilingContextFaker &InputShapes(const std::vector<StorageShape *> &inputShapes);

  TilingContextFaker &OutputShapes(const std::initializer_list<Shape *> &outputShapes);

  TilingContextFaker &OutputShapes(const std::initializer_list<StorageShape *> &outputShapes);

  TilingContextFaker &OutputShapes(const std::vector<Shape *> &outputShapes);

  TilingContextFaker &OutputShapes(const std::vector<StorageShape *> &outputShapes);

  TilingContextFaker &OutputShapes(const std::vector<void *> &outputShapes);

  TilingContextFaker &NodeAttrs(const std::vector<std::pair<std::string, Ops::NN::AnyValue>> &attrs);

  TilingContextFaker &InputTensors(const std::vector<Tensor *> &inputTensors);

  TilingContextFaker &OutputTensors(const std::vector<Tensor *> &outputTensors);

  TilingContextFaker &CompileInfo(const void *compileInfo);

  TilingContextFaker &PlatformInfo(const void *platformInfo);

  TilingContextFaker &DeterministicInfo(int32_t *deterministicInfo);

  TilingContextFaker &DeterministicInfo(int32_t deterministicInfo);

  TilingContextFaker &DeterministicLevelInfo(int32_t deterministicLevel);

  TilingContextFaker &TilingData(const void *tilingData);

  TilingContextFaker &Workspace(const ContinuousVector *workspace);

  KernelRunContextHolder Build();

  bool inputTensorFlag_ = false;
};
}  // namespace gert

#endif  // OPGEN_OPS_NN_TESTS_UT_COMMON_TILING_CONTEXT_FAKER_H
