// ascend-opgen host emulation of ops-nn's tests/ut/common/kernel_run_context_holder.h (hicann/ops-nn): what a
// context faker's Build() returns, holding the built context and the tensors and shapes it points into.
// The shape-range and tiling-parse holders are not emulated.
#ifndef OPGEN_OPS_NN_TESTS_UT_COMMON_KERNEL_RUN_CONTEXT_HOLDER_H
#define OPGEN_OPS_NN_TESTS_UT_COMMON_KERNEL_RUN_CONTEXT_HOLDER_H

#include <cstdint>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "base/context_builder/op_infer_datatype_context_builder.h"
#include "base/context_builder/op_infer_shape_context_builder.h"
#include "base/context_builder/op_tiling_context_builder.h"

namespace gert {
class KernelRunContextHolder {
 public:
  KernelRunContextHolder() = default;
  ~KernelRunContextHolder() = default;

  KernelRunContextHolder &operator=(KernelRunContextHolder &&holder) {
    context_ = holder.context_;
    opType_ = std::move(holder.opType_);
    outputShapes_ = std::move(holder.outputShapes_);
    inputTensors_ = std::move(holder.inputTensors_);
    outputTensors_ = std::move(holder.outputTensors_);
    inputInstanceNumPacked_ = std::move(holder.inputInstanceNumPacked_);
    inputInstanceNum_ = std::move(holder.inputInstanceNum_);
    outputInstanceNum_ = std::move(holder.outputInstanceNum_);
    tilingContextHolder_ = std::move(holder.tilingContextHolder_);
    inferShapeContextHolder_ = std::move(holder.inferShapeContextHolder_);
    inferDataTypeContextHolder_ = std::move(holder.inferDataTypeContextHolder_);
    return *this;
  }

  KernelRunContextHolder(KernelRunContextHolder &&holder) {
    KernelRunContextHolder::operator=(std::move(holder));
  }

  void SetContext(void *context) {
    context_ = context;
  }

  // The built context (nullptr when the build failed).
  template <typename T>
  T *GetContext() {
    return static_cast<T *>(context_);
  }

  // The first and last tensor of IR input `inputIdx` (by the instance counts).
  void CalcInputTensorIndex(int32_t inputIdx, int32_t &lowTensorIdx, int32_t &highTensorIdx) {
    if (inputIdx == 0) {
      lowTensorIdx = 0;
      highTensorIdx = static_cast<int32_t>(inputInstanceNum_[0]) - 1;
      return;
    }
    lowTensorIdx = static_cast<int32_t>(
        std::accumulate(inputInstanceNum_.begin(), inputInstanceNum_.begin() + inputIdx, 0U));
    highTensorIdx = lowTensorIdx + static_cast<int32_t>(inputInstanceNum_[static_cast<size_t>(inputIdx)]) - 1;
  }

 protected:
  void *context_ = nullptr;
  std::string opType_;
  std::vector<StorageShape> outputShapes_;
  std::vector<Tensor> inputTensors_;
  std::vector<Tensor> outputTensors_;

  std::vector<uint32_t> inputInstanceNumPacked_;
  std::vector<uint32_t> inputInstanceNum_;
  std::vector<uint32_t> outputInstanceNum_;

  ContextHolder<TilingContext> tilingContextHolder_;
  ContextHolder<InferShapeContext> inferShapeContextHolder_;
  ContextHolder<InferDataTypeContext> inferDataTypeContextHolder_;
};
}  // namespace gert

#endif  // OPGEN_OPS_NN_TESTS_UT_COMMON_KERNEL_RUN_CONTEXT_HOLDER_H
