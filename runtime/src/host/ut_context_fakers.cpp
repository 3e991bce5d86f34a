// ascend-opgen host emulation of ops-nn's unit-test context fakers (tests/ut/common/tiling_context_faker.h,
// infer_shape_context_faker.h and infer_datatype_context_faker.h): the same bookkeeping as ops-nn's (tensors
// collected from the shapes and tensor descs, an input whose shape is nullptr dropped from the packed instance
// counts), over the emulation's context builders. A shape the test never gave stays the default (a scalar shape), as in ops-nn.
#include <algorithm>
#include <cstdio>

#include "tests/ut/common/infer_datatype_context_faker.h"
#include "tests/ut/common/infer_shape_context_faker.h"
#include "tests/ut/common/tiling_context_faker.h"

namespace gert {

// ------------------------------------------------------------------------------------------ TilingContextFaker

TilingContextFaker &TilingContextFaker::operator=(TilingContextFaker &&faker) {
  KernelRunContextHolder::operator=(std::move(faker));
  return *this;
}

TilingContextFaker::TilingContextFaker(TilingContextFaker &&faker) : KernelRunContextHolder(std::move(faker)) {}

TilingContextFaker &TilingContextFaker::SetOpType(const std::string opType) {
  opType_ = opType;
  OpTilingContextBuilder::OpType(opType.c_str()).OpName(opType.c_str());
  return *this;
}

TilingContextFaker &TilingContextFaker::NodeIoNum(size_t inputNum, size_t outputNum) {
  inputInstanceNum_.resize(inputNum, 1);
  outputInstanceNum_.resize(outputNum, 1);
  inputInstanceNumPacked_ = inputInstanceNum_;
  return *this;
}

TilingContextFaker &TilingContextFaker::IrInstanceNum(const std::vector<uint32_t> &inputInstanceNum,
                                                      const std::vector<uint32_t> &outputInstanceNum) {
  inputInstanceNum_ = inputInstanceNum;
  outputInstanceNum_ = outputInstanceNum;
  inputInstanceNumPacked_ = inputInstanceNum_;
  OpTilingContextBuilder::IOInstanceNum(inputInstanceNumPacked_, outputInstanceNum_);
  return *this;
}

TilingContextFaker &TilingContextFaker::IrInstanceNum(const std::vector<uint32_t> &instanceNum) {
  if (instanceNum.size() >= inputInstanceNum_.size()) {
    inputInstanceNum_ = instanceNum;
    inputInstanceNumPacked_ = inputInstanceNum_;
  }
  return *this;
}

TilingContextFaker &TilingContextFaker::NodeInputTd(int32_t index, ge::DataType dtype, ge::Format originFormat,
                                                    ge::Format storageFormat) {
  if (index < 0 || static_cast<size_t>(index) >= inputInstanceNum_.size()) {
    std::printf("error NodeInputTd index\n");
    return *this;
  }
  // `index` counts the IR inputs that have instances
  int32_t present = 0;
  for (size_t i = 0; i < inputInstanceNum_.size(); ++i) {
    if (inputInstanceNum_[i] != 0) {
      ++present;
    }
    if (present > index) {
      index = static_cast<int32_t>(i);
      break;
    }
  }
  int32_t low = 0;
  int32_t high = 0;
  CalcInputTensorIndex(index, low, high);
  while (static_cast<int32_t>(inputTensors_.size()) <= high) {
    inputTensors_.emplace_back();
  }
  for (int32_t i = low; i <= high; ++i) {
    inputTensors_[static_cast<size_t>(i)].SetDataType(dtype);
    inputTensors_[static_cast<size_t>(i)].SetOriginFormat(originFormat);
    inputTensors_[static_cast<size_t>(i)].SetStorageFormat(storageFormat);
  }
  return *this;
}

TilingContextFaker &TilingContextFaker::NodeOutputTd(int32_t index, ge::DataType dtype, ge::Format originFormat,
                                                     ge::Format storageFormat) {
  while (static_cast<int32_t>(outputTensors_.size()) <= index) {
    outputTensors_.emplace_back();
  }
  outputTensors_[static_cast<size_t>(index)].SetDataType(dtype);
  outputTensors_[static_cast<size_t>(index)].SetOriginFormat(originFormat);
  outputTensors_[static_cast<size_t>(index)].SetStorageFormat(storageFormat);
  return *this;
}

TilingContextFaker &TilingContextFaker::OutputTensors(const std::vector<Tensor *> &outputTensors) {
  OpTilingContextBuilder::OutputTensors(outputTensors);
  return *this;
}

TilingContextFaker &TilingContextFaker::InputShapes(const std::initializer_list<void *> &inputShapes) {
  return InputShapes(std::vector<void *>(inputShapes));
}

TilingContextFaker &TilingContextFaker::InputShapes(const std::vector<void *> &inputShapes) {
  std::vector<StorageShape *> shapes;
  for (void *shape : inputShapes) {
    shapes.push_back(static_cast<StorageShape *>(shape));
  }
  return InputShapes(shapes);
}

TilingContextFaker &TilingContextFaker::InputShapes(const std::vector<Shape *> &inputShapes) {
  while (inputTensors_.size() < inputShapes.size()) {
    inputTensors_.emplace_back();
  }
  for (size_t i = 0; i < inputShapes.size(); ++i) {
    if (inputShapes[i] != nullptr) {
      inputTensors_[i].MutableStorageShape() = *inputShapes[i];
      inputTensors_[i].MutableOriginShape() = *inputShapes[i];
    } else if (i < inputInstanceNumPacked_.size()) {
      inputInstanceNumPacked_[i] = 0;
    }
  }
  return *this;
}

TilingContextFaker &TilingContextFaker::InputShapes(const std::vector<StorageShape *> &inputShapes) {
  while (inputTensors_.size() < inputShapes.size()) {
    inputTensors_.emplace_back();
  }
  for (size_t i = 0; i < inputShapes.size(); ++i) {
    if (inputShapes[i] != nullptr) {
      inputTensors_[i].MutableStorageShape() = inputShapes[i]->MutableStorageShape();
      inputTensors_[i].MutableOriginShape() = inputShapes[i]->MutableOriginShape();
    } else if (i < inputInstanceNumPacked_.size()) {
      inputInstanceNumPacked_[i] = 0;
    }
  }
  return *this;
}

TilingContextFaker &TilingContextFaker::InputTensors(const std::vector<Tensor *> &inputTensors) {
  if (!inputTensorFlag_) {
    OpTilingContextBuilder::InputTensors(inputTensors);
    inputTensorFlag_ = true;
  }
  return *this;
}

TilingContextFaker &TilingContextFaker::OutputShapes(const std::initializer_list<Shape *> &outputShapes) {
  return OutputShapes(std::vector<Shape *>(outputShapes));
}

TilingContextFaker &TilingContextFaker::OutputShapes(const std::initializer_list<StorageShape *> &outputShapes) {
  return OutputShapes(std::vector<StorageShape *>(outputShapes));
}

TilingContextFaker &TilingContextFaker::OutputShapes(const std::vector<Shape *> &outputShapes) {
  while (outputTensors_.size() < outputShapes.size()) {
    outputTensors_.emplace_back();
  }
  for (size_t i = 0; i < outputShapes.size(); ++i) {
    outputTensors_[i].MutableStorageShape() = *outputShapes[i];
    outputTensors_[i].MutableOriginShape() = *outputShapes[i];
  }
  return *this;
}

TilingContextFaker &TilingContextFaker::OutputShapes(const std::vector<StorageShape *> &outputShapes) {
  while (outputTensors_.size() < outputShapes.size()) {
    outputTensors_.emplace_back();
  }
  for (size_t i = 0; i < outputShapes.size(); ++i) {
    outputTensors_[i].MutableStorageShape() = outputShapes[i]->MutableStorageShape();
    outputTensors_[i].MutableOriginShape() = outputShapes[i]->MutableOriginShape();
  }
  return *this;
}

TilingContextFaker &TilingContextFaker::OutputShapes(const std::vector<void *> &outputShapes) {
  std::vector<StorageShape *> shapes;
  for (void *shape : outputShapes) {
    shapes.push_back(static_cast<StorageShape *>(shape));
  }
  return OutputShapes(shapes);
}

TilingContextFaker &TilingContextFaker::NodeAttrs(
    const std::vector<std::pair<std::string, Ops::NN::AnyValue>> &attrs) {
  for (const auto &attr : attrs) {
    attr.second.SetAttr(attr.first, *this);
  }
  return *this;
}

TilingContextFaker &TilingContextFaker::CompileInfo(const void *compileInfo) {
  OpTilingContextBuilder::CompileInfo(compileInfo);
  return *this;
}

TilingContextFaker &TilingContextFaker::PlatformInfo(const void *platformInfo) {
  OpTilingContextBuilder::PlatformInfo(platformInfo);
  return *this;
}

TilingContextFaker &TilingContextFaker::DeterministicInfo(int32_t *deterministicInfo) {
  // older tests pass the flag as a pointer value
  OpTilingContextBuilder::Deterministic(static_cast<int32_t>(reinterpret_cast<intptr_t>(deterministicInfo)));
  return *this;
}

TilingContextFaker &TilingContextFaker::DeterministicInfo(int32_t deterministicInfo) {
  OpTilingContextBuilder::Deterministic(deterministicInfo);
  return *this;
}

TilingContextFaker &TilingContextFaker::DeterministicLevelInfo(int32_t deterministicLevel) {
  OpTilingContextBuilder::DeterministicLevel(deterministicLevel);
  return *this;
}

TilingContextFaker &TilingContextFaker::TilingData(const void *tilingData) {
  OpTilingContextBuilder::TilingData(static_cast<const gert::TilingData *>(tilingData));
  return *this;
}

TilingContextFaker &TilingContextFaker::Workspace(const ContinuousVector *workspace) {
  OpTilingContextBuilder::Workspace(workspace);
  return *this;
}

KernelRunContextHolder TilingContextFaker::Build() {
  if (opType_.empty()) {
    SetOpType("fakeOp");
  }
  OpTilingContextBuilder::IOInstanceNum(inputInstanceNumPacked_, outputInstanceNum_);
  // a test that declares a 0-instance input, or a DYNAMIC input of several instances (its shapes given one per
  // instance), passes every tensor; otherwise a nullptr shape drops its tensor
  const bool packed =
      std::any_of(inputInstanceNum_.begin(), inputInstanceNum_.end(), [](uint32_t n) { return n != 1U; });
  std::vector<Tensor *> inputs;
  for (size_t i = 0; i < inputTensors_.size(); ++i) {
    if (packed || (i < inputInstanceNumPacked_.size() && inputInstanceNumPacked_[i] > 0)) {
      inputs.push_back(&inputTensors_[i]);
    }
  }
  InputTensors(inputs);
  std::vector<Tensor *> outputs;
  for (Tensor &t : outputTensors_) {
    outputs.push_back(&t);
  }
  OutputTensors(outputs);
  tilingContextHolder_ = OpTilingContextBuilder::Build();
  SetContext(tilingContextHolder_.GetContext());
  return std::move(*this);
}

// ------------------------------------------------------------------------------------------ InferShapeContextFaker

InferShapeContextFaker &InferShapeContextFaker::operator=(InferShapeContextFaker &&faker) {
  KernelRunContextHolder::operator=(std::move(faker));
  return *this;
}

InferShapeContextFaker::InferShapeContextFaker(InferShapeContextFaker &&faker)
    : KernelRunContextHolder(std::move(faker)) {}

InferShapeContextFaker &InferShapeContextFaker::SetOpType(const std::string opType) {
  opType_ = opType;
  OpInferShapeContextBuilder::OpType(opType.c_str()).OpName(opType.c_str());
  return *this;
}

InferShapeContextFaker &InferShapeContextFaker::NodeIoNum(size_t inputNum, size_t outputNum) {
  OpInferShapeContextBuilder::IONum(inputNum, outputNum);
  return *this;
}

InferShapeContextFaker &InferShapeContextFaker::IrInputNum(size_t) {
  return *this;
}

InferShapeContextFaker &InferShapeContextFaker::IrInstanceNum(const std::vector<uint32_t> &inputInstanceNum,
                                                              const std::vector<uint32_t> &outputInstanceNum) {
  OpInferShapeContextBuilder::IOInstanceNum(inputInstanceNum, outputInstanceNum);
  return *this;
}

InferShapeContextFaker &InferShapeContextFaker::IrInstanceNum(const std::vector<uint32_t> &) {
  return *this;
}

InferShapeContextFaker &InferShapeContextFaker::NodeInputTd(int32_t index, ge::DataType dtype,
                                                            ge::Format originFormat, ge::Format storageFormat) {
  while (static_cast<int32_t>(inputTensors_.size()) <= index) {
    inputTensors_.emplace_back();
  }
  Tensor &t = inputTensors_[static_cast<size_t>(index)];
  if (t.GetAddr() == nullptr) {
    t.SetDataType(dtype);
  }
  t.SetOriginFormat(originFormat);
  t.SetStorageFormat(storageFormat);
  return *this;
}

InferShapeContextFaker &InferShapeContextFaker::NodeOutputTd(int32_t index, ge::DataType dtype,
                                                             ge::Format originFormat, ge::Format storageFormat) {
  MutableOutputDataType(static_cast<size_t>(index)) = dtype;
  MutableOutputOriginalFormat(static_cast<size_t>(index)) = originFormat;
  MutableOutputStorageFormat(static_cast<size_t>(index)) = storageFormat;
  return *this;
}

InferShapeContextFaker &InferShapeContextFaker::InputTensors(const std::vector<Tensor *> &inputTensors) {
  OpInferShapeContextBuilder::InputTensors(inputTensors);
  return *this;
}

InferShapeContextFaker &InferShapeContextFaker::InputShapes(const std::initializer_list<void *> &inputShapes) {
  return InputShapes(std::vector<void *>(inputShapes));
}

InferShapeContextFaker &InferShapeContextFaker::InputShapes(const std::vector<void *> &inputShapes) {
  std::vector<Shape *> shapes;
  for (void *shape : inputShapes) {
    shapes.push_back(static_cast<Shape *>(shape));
  }
  return InputShapes(shapes);
}

InferShapeContextFaker &InferShapeContextFaker::InputShapes(const std::vector<Shape *> &inputShapes) {
  for (size_t i = 0; i < inputShapes.size(); ++i) {
    if (inputShapes[i] == nullptr) {
      continue;
    }
    while (inputTensors_.size() <= i) {
      inputTensors_.emplace_back();
    }
    inputTensors_[i].MutableStorageShape() = *inputShapes[i];
    inputTensors_[i].MutableOriginShape() = *inputShapes[i];
  }
  return *this;
}

InferShapeContextFaker &InferShapeContextFaker::InputShapes(const std::vector<StorageShape *> &inputShapes) {
  for (size_t i = 0; i < inputShapes.size(); ++i) {
    if (inputShapes[i] == nullptr) {
      continue;
    }
    while (inputTensors_.size() <= i) {
      inputTensors_.emplace_back();
    }
    inputTensors_[i].MutableStorageShape() = inputShapes[i]->MutableStorageShape();
    inputTensors_[i].MutableOriginShape() = inputShapes[i]->MutableOriginShape();
  }
  return *this;
}

// Output shapes are what InferShape writes: the arguments are accepted and not used, as in ops-nn.
InferShapeContextFaker &InferShapeContextFaker::OutputShapes(const std::initializer_list<Shape *> &) {
  return *this;
}

InferShapeContextFaker &InferShapeContextFaker::OutputShapes(const std::initializer_list<StorageShape *> &) {
  return *this;
}

InferShapeContextFaker &InferShapeContextFaker::OutputShapes(const std::vector<Shape *> &) {
  return *this;
}

InferShapeContextFaker &InferShapeContextFaker::OutputShapes(const std::vector<StorageShape *> &) {
  return *this;
}

InferShapeContextFaker &InferShapeContextFaker::OutputShapes(const std::vector<void *> &) {
  return *this;
}

InferShapeContextFaker &InferShapeContextFaker::NodeAttrs(
    const std::vector<std::pair<std::string, Ops::NN::AnyValue>> &attrs) {
  for (const auto &attr : attrs) {
    attr.second.SetAttr(attr.first, *this);
  }
  return *this;
}

KernelRunContextHolder InferShapeContextFaker::Build() {
  if (opType_.empty()) {
    SetOpType("fakeOp");
  }
  std::vector<Tensor *> inputs;
  for (Tensor &t : inputTensors_) {
    inputs.push_back(&t);
  }
  InputTensors(inputs);
  inferShapeContextHolder_ = OpInferShapeContextBuilder::Build();
  SetContext(inferShapeContextHolder_.GetContext());
  return std::move(*this);
}

}  // namespace gert

// ------------------------------------------------------------------------------------------ InferDataTypeContextFaker

namespace gert {

InferDataTypeContextFaker &InferDataTypeContextFaker::operator=(InferDataTypeContextFaker &&faker) {
  KernelRunContextHolder::operator=(std::move(faker));
  return *this;
}

InferDataTypeContextFaker::InferDataTypeContextFaker(InferDataTypeContextFaker &&faker)
    : KernelRunContextHolder(std::move(faker)) {}

InferDataTypeContextFaker &InferDataTypeContextFaker::SetOpType(const std::string opType) {
  opType_ = opType;
  OpInferDataTypeContextBuilder::OpType(opType.c_str()).OpName(opType.c_str());
  return *this;
}

// The IR input count is what NodeIoNum / IrInstanceNum give, as in ops-nn.
InferDataTypeContextFaker &InferDataTypeContextFaker::IrInputNum(size_t) {
  return *this;
}

InferDataTypeContextFaker &InferDataTypeContextFaker::NodeIoNum(size_t inputNum, size_t outputNum) {
  OpInferDataTypeContextBuilder::IONum(inputNum, outputNum);
  return *this;
}

InferDataTypeContextFaker &InferDataTypeContextFaker::IrInstanceNum(const std::vector<uint32_t> &inputInstanceNum,
                                                                    const std::vector<uint32_t> &outputInstanceNum) {
  OpInferDataTypeContextBuilder::IOInstanceNum(inputInstanceNum, outputInstanceNum);
  return *this;
}

// The one-list form sets nothing, as in ops-nn.
InferDataTypeContextFaker &InferDataTypeContextFaker::IrInstanceNum(const std::vector<uint32_t> &) {
  return *this;
}

InferDataTypeContextFaker &InferDataTypeContextFaker::NodeInputTd(int32_t index, ge::DataType dtype,
                                                                  ge::Format originFormat, ge::Format storageFormat) {
  OpInferDataTypeContextBuilder::InputTensorDesc(static_cast<size_t>(index), dtype, originFormat, storageFormat);
  return *this;
}

// An output's dtype is what InferDataType sets: only its formats are described.
InferDataTypeContextFaker &InferDataTypeContextFaker::NodeOutputTd(int32_t index, ge::DataType,
                                                                   ge::Format originFormat, ge::Format storageFormat) {
  OpInferDataTypeContextBuilder::OutputTensorDesc(static_cast<size_t>(index), originFormat, storageFormat);
  return *this;
}

// Each non-null entry points to a ge::DataType: input `i` is described with it, in ND format.
InferDataTypeContextFaker &InferDataTypeContextFaker::InputDataTypes(const std::vector<void *> &inputDataTypes) {
  for (size_t i = 0; i < inputDataTypes.size(); ++i) {
    if (inputDataTypes[i] != nullptr) {
      NodeInputTd(static_cast<int32_t>(i), *static_cast<const ge::DataType *>(inputDataTypes[i]), ge::FORMAT_ND,
                  ge::FORMAT_ND);
    }
  }
  return *this;
}

InferDataTypeContextFaker &InferDataTypeContextFaker::OutputDataTypes(const std::vector<void *> &outputDataTypes) {
  for (size_t i = 0; i < outputDataTypes.size(); ++i) {
    if (outputDataTypes[i] != nullptr) {
      NodeOutputTd(static_cast<int32_t>(i), *static_cast<const ge::DataType *>(outputDataTypes[i]), ge::FORMAT_ND,
                   ge::FORMAT_ND);
    }
  }
  return *this;
}

InferDataTypeContextFaker &InferDataTypeContextFaker::NodeAttrs(
    const std::vector<std::pair<std::string, Ops::NN::AnyValue>> &attrs) {
  for (const auto &attr : attrs) {
    attr.second.SetAttr(attr.first, *this);
  }
  return *this;
}

KernelRunContextHolder InferDataTypeContextFaker::Build() {
  if (opType_.empty()) {
    SetOpType("fakeOp");
  }
  inferDataTypeContextHolder_ = OpInferDataTypeContextBuilder::Build();
  SetContext(inferDataTypeContextHolder_.GetContext());
  return std::move(*this);
}

}  // namespace gert
