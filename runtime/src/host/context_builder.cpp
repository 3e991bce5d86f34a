// ascend-opgen host emulation of metadef's context builders (base/context_builder/*.h): the op description,
// OpTilingContextBuilder, OpInferShapeContextBuilder and OpInferDataTypeContextBuilder building the emulation's
// TilingContext, InferShapeContext and InferDataTypeContext, ContextHolderVoid, and the OpImplFunctions lookup of ops-nn's unit-test registry.
//
// What CANN checks, this checks the same way (the build fails and the holder's context is nullptr): an op
// type and name, at least one IR input and output, and for a tiling context a compile info and a platform
// info. Where CANN would read past what the builder was given (fewer tensors than the instance counts say,
// so that a later input reads an output's or the compile info's slot), the emulation fails the build too,
// and says why on stderr. A context's inputs are numbered by IR index, absent optional inputs (instance
// count 0) included, as in the rest of this emulation. A tiling context also takes a DYNAMIC input of several
// instances, one tensor each (GetDynamicInputShape(irIndex, i)); an InferShape or InferDataType context does not.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/context_builder/op_infer_datatype_context_builder.h"
#include "base/context_builder/op_infer_shape_context_builder.h"
#include "base/context_builder/op_tiling_context_builder.h"
#include "infer_context.h"
#include "registry.h"
#include "register/op_impl_kernel_registry.h"
#include "tiling_runner.h"

namespace gert {

struct ContextTensorDesc {
  ge::DataType dtype = ge::DT_UNDEFINED;
  ge::Format originFormat = ge::FORMAT_ND;
  ge::Format storageFormat = ge::FORMAT_ND;
};

class ContextBuilderImpl {
 public:
  virtual ~ContextBuilderImpl() = default;

  std::string opType;
  std::string opName;
  std::vector<uint32_t> inputInstance;
  std::vector<uint32_t> outputInstance;
  std::vector<opgen_rt::AttrValue> attrs;
  std::vector<std::string> unsupportedAttrs;
  std::vector<ContextTensorDesc> inputDescs;
  std::vector<ContextTensorDesc> outputDescs;
  std::vector<Tensor *> inputs;
  std::vector<Tensor *> outputs;
  // tiling only
  const void *compileInfo = nullptr;
  const void *platformInfo = nullptr;
  int32_t deterministic = 0;
  int32_t deterministicLevel = 0;
  gert::TilingData *tilingData = nullptr;
  std::shared_ptr<uint8_t> ownedTilingData;
  gert::ContinuousVector *workspace = nullptr;

  ContextTensorDesc &Desc(std::vector<ContextTensorDesc> &descs, size_t index) {
    if (descs.size() <= index) {
      descs.resize(index + 1);
    }
    return descs[index];
  }

  // "" when the op description is complete, else why not (and what CANN checks is checked first). Without
  // `inputTensors` (an InferDataType context: tensor descriptions only) the input tensors are not counted.
  // With `dynamicInputs` (a tiling context) an input may have several instances (a DYNAMIC input's list).
  std::string CheckOp(bool needTensors, bool inputTensors = true, bool dynamicInputs = false) const {
    if (opType.empty() || opName.empty() || inputInstance.empty() || outputInstance.empty()) {
      return "Invalid params, op_type: " + opType + ", op_name: " + opName +
             ", input_num: " + std::to_string(inputInstance.size()) +
             ", output_num: " + std::to_string(outputInstance.size());
    }
    if (!unsupportedAttrs.empty()) {
      return "attr " + std::to_string(attrs.size()) + " is a " + unsupportedAttrs.front() +
             ", which the emulation's RuntimeAttrs cannot hold";
    }
    size_t in = 0;
    for (uint32_t n : inputInstance) {
      if (n > 1 && !dynamicInputs) {
        return "a dynamic input (instance count " + std::to_string(n) + ") is not emulated";
      }
      in += n;
    }
    if (inputTensors && inputs.size() != in) {
      return std::to_string(inputs.size()) + " input tensors for " + std::to_string(in) +
             " input instances (the IR instance counts); CANN would read the missing ones from the slots after "
             "them";
    }
    size_t out = 0;
    for (uint32_t n : outputInstance) {
      out += n;
    }
    if (needTensors && outputs.size() != out) {
      return std::to_string(outputs.size()) + " output tensors for " + std::to_string(out) +
             " output instances; CANN would read the missing ones from the slots after them";
    }
    return "";
  }

  // The input descriptions by IR index: an absent one (instance count 0) not present.
  std::vector<opgen_rt::TilingTensorDesc> InputDescs() const {
    std::vector<opgen_rt::TilingTensorDesc> out;
    size_t next = 0;
    for (uint32_t n : inputInstance) {
      opgen_rt::TilingTensorDesc d;
      if (n == 1) {
        const Tensor *t = inputs[next++];
        d.present = true;
        d.originShape = t->GetOriginShape();
        d.storageShape = t->GetStorageShape();
        d.dataType = t->GetDataType();
        d.originFormat = t->GetOriginFormat();
        d.storageFormat = t->GetStorageFormat();
      }
      out.push_back(d);
    }
    return out;
  }

  // The input descriptions by instance, for a tiling request with `instances` (its inputInstances): an input
  // of n > 0 instances gives n descriptions, an absent one (instance count 0) one absent description counted
  // as one instance (the tiling runner's convention for an absent optional input).
  std::vector<opgen_rt::TilingTensorDesc> InputInstanceDescs(std::vector<uint32_t> &instances) const {
    std::vector<opgen_rt::TilingTensorDesc> out;
    instances.clear();
    size_t next = 0;
    for (uint32_t n : inputInstance) {
      instances.push_back(n == 0 ? 1U : n);
      if (n == 0) {
        out.emplace_back();
      }
      for (uint32_t k = 0; k < n; ++k) {
        const Tensor *t = inputs[next++];
        opgen_rt::TilingTensorDesc d;
        d.present = true;
        d.originShape = t->GetOriginShape();
        d.storageShape = t->GetStorageShape();
        d.dataType = t->GetDataType();
        d.originFormat = t->GetOriginFormat();
        d.storageFormat = t->GetStorageFormat();
        out.push_back(d);
      }
    }
    return out;
  }

  std::vector<opgen_rt::TilingTensorDesc> OutputDescs() const {
    std::vector<opgen_rt::TilingTensorDesc> out;
    for (const Tensor *t : outputs) {
      opgen_rt::TilingTensorDesc d;
      d.present = true;
      d.originShape = t->GetOriginShape();
      d.storageShape = t->GetStorageShape();
      d.dataType = t->GetDataType();
      d.originFormat = t->GetOriginFormat();
      d.storageFormat = t->GetStorageFormat();
      out.push_back(d);
    }
    return out;
  }
};

class ContextHolderImpl {
 public:
  std::shared_ptr<void> context;
  std::shared_ptr<void> keep;  // what the context points into
};

class ContextHolderBuilder {
 public:
  static ContextHolderVoid Create(std::unique_ptr<ContextHolderImpl> impl) {
    ContextHolderVoid holder;
    holder.ctx_holder_impl_ = std::move(impl);
    return holder;
  }
};

ContextHolderVoid::ContextHolderVoid() = default;
ContextHolderVoid::~ContextHolderVoid() = default;
ContextHolderVoid::ContextHolderVoid(ContextHolderVoid &&other) noexcept = default;
ContextHolderVoid &ContextHolderVoid::operator=(ContextHolderVoid &&other) noexcept = default;
void *ContextHolderVoid::GetContext() const {
  return ctx_holder_impl_ == nullptr ? nullptr : ctx_holder_impl_->context.get();
}

namespace {

void BuildFailed(const char *what, const std::string &opType, const std::string &why) {
  std::fprintf(stderr, "[ERROR] %s of %s failed: %s\n", what, opType.empty() ? "(no op type)" : opType.c_str(),
               why.c_str());
}

}  // namespace

// ------------------------------------------------------------------------------------------ OpContextBuilderBase

template <typename T>
OpContextBuilderBase<T>::OpContextBuilderBase() = default;

template <typename T>
OpContextBuilderBase<T>::~OpContextBuilderBase() = default;

template <typename T>
T &OpContextBuilderBase<T>::OpType(const ge::AscendString &op_type) {
  impl_->opType = op_type.GetString();
  return static_cast<T &>(*this);
}

template <typename T>
T &OpContextBuilderBase<T>::OpName(const ge::AscendString &op_name) {
  impl_->opName = op_name.GetString();
  return static_cast<T &>(*this);
}

template <typename T>
T &OpContextBuilderBase<T>::IONum(size_t input_ir_num, size_t output_ir_num) {
  impl_->inputInstance.assign(input_ir_num, 1U);
  impl_->outputInstance.assign(output_ir_num, 1U);
  return static_cast<T &>(*this);
}

template <typename T>
T &OpContextBuilderBase<T>::IOInstanceNum(const std::vector<uint32_t> &input_instance_num,
                                          const std::vector<uint32_t> &output_instance_num) {
  impl_->inputInstance = input_instance_num;
  impl_->outputInstance = output_instance_num;
  return static_cast<T &>(*this);
}

template <typename T>
T &OpContextBuilderBase<T>::AppendAttr(bool attr) {
  impl_->attrs.push_back(opgen_rt::AttrValue::FromBool(attr));
  return static_cast<T &>(*this);
}

template <typename T>
T &OpContextBuilderBase<T>::AppendAttr(int64_t attr) {
  impl_->attrs.push_back(opgen_rt::AttrValue::FromInt(attr));
  return static_cast<T &>(*this);
}

template <typename T>
T &OpContextBuilderBase<T>::AppendAttr(float attr) {
  impl_->attrs.push_back(opgen_rt::AttrValue::FromFloat(attr));
  return static_cast<T &>(*this);
}

template <typename T>
T &OpContextBuilderBase<T>::AppendAttr(const ge::AscendString &attr) {
  impl_->attrs.push_back(opgen_rt::AttrValue::FromString(attr.GetString()));
  return static_cast<T &>(*this);
}

template <typename T>
T &OpContextBuilderBase<T>::AppendAttr(const std::vector<bool> &attr) {
  impl_->attrs.push_back(opgen_rt::AttrValue::FromListBool(attr));
  return static_cast<T &>(*this);
}

template <typename T>
T &OpContextBuilderBase<T>::AppendAttr(const std::vector<int64_t> &attr) {
  impl_->attrs.push_back(opgen_rt::AttrValue::FromListInt(attr));
  return static_cast<T &>(*this);
}

template <typename T>
T &OpContextBuilderBase<T>::AppendAttr(const std::vector<float> &attr) {
  impl_->attrs.push_back(opgen_rt::AttrValue::FromListFloat(attr));
  return static_cast<T &>(*this);
}

template <typename T>
T &OpContextBuilderBase<T>::AppendAttr(const std::vector<ge::AscendString> &) {
  impl_->unsupportedAttrs.emplace_back("list of strings");
  return static_cast<T &>(*this);
}

template <typename T>
T &OpContextBuilderBase<T>::AppendAttr(const std::vector<std::vector<int64_t>> &) {
  impl_->unsupportedAttrs.emplace_back("list of int lists");
  return static_cast<T &>(*this);
}

template <typename T>
ge::DataType &OpContextBuilderBase<T>::MutableInputDataType(size_t index) {
  return impl_->Desc(impl_->inputDescs, index).dtype;
}

template <typename T>
ge::Format &OpContextBuilderBase<T>::MutableInputOriginalFormat(size_t index) {
  return impl_->Desc(impl_->inputDescs, index).originFormat;
}

template <typename T>
ge::Format &OpContextBuilderBase<T>::MutableInputStorageFormat(size_t index) {
  return impl_->Desc(impl_->inputDescs, index).storageFormat;
}

template <typename T>
ge::DataType &OpContextBuilderBase<T>::MutableOutputDataType(size_t index) {
  return impl_->Desc(impl_->outputDescs, index).dtype;
}

template <typename T>
ge::Format &OpContextBuilderBase<T>::MutableOutputOriginalFormat(size_t index) {
  return impl_->Desc(impl_->outputDescs, index).originFormat;
}

template <typename T>
ge::Format &OpContextBuilderBase<T>::MutableOutputStorageFormat(size_t index) {
  return impl_->Desc(impl_->outputDescs, index).storageFormat;
}

template class OpContextBuilderBase<OpTilingContextBuilder>;
template class OpContextBuilderBase<OpInferShapeContextBuilder>;
template class OpContextBuilderBase<OpInferDataTypeContextBuilder>;

// ------------------------------------------------------------------------------------------ OpTilingContextBuilder

OpTilingContextBuilder::OpTilingContextBuilder() {
  impl_ = std::make_unique<ContextBuilderImpl>();
}

OpTilingContextBuilder::~OpTilingContextBuilder() = default;

OpTilingContextBuilder &OpTilingContextBuilder::CompileInfo(const void *compile_info) {
  impl_->compileInfo = compile_info;
  return *this;
}

OpTilingContextBuilder &OpTilingContextBuilder::PlatformInfo(const void *platform_info) {
  impl_->platformInfo = platform_info;
  return *this;
}

OpTilingContextBuilder &OpTilingContextBuilder::Deterministic(int32_t deterministic) {
  if (deterministic != 0 && deterministic != 1) {
    std::fprintf(stderr, "[ERROR] Deterministic value is invalid, expect 0 or 1, but got %d\n", deterministic);
    return *this;
  }
  impl_->deterministic = deterministic;
  return *this;
}

OpTilingContextBuilder &OpTilingContextBuilder::DeterministicLevel(int32_t deterministic_level) {
  if (deterministic_level < 0 || deterministic_level > 3) {
    std::fprintf(stderr, "[ERROR] Deterministic level value is invalid, expect 0 or 1 or 2 or 3, but got %d\n",
                 deterministic_level);
    return *this;
  }
  impl_->deterministicLevel = deterministic_level;
  return *this;
}

OpTilingContextBuilder &OpTilingContextBuilder::TilingData(const gert::TilingData *tiling_data,
                                                           gert::Chain::Deleter deleter) {
  impl_->tilingData = const_cast<gert::TilingData *>(tiling_data);
  impl_->ownedTilingData.reset();
  if (deleter != nullptr && tiling_data != nullptr) {
    impl_->ownedTilingData =
        std::shared_ptr<uint8_t>(reinterpret_cast<uint8_t *>(const_cast<gert::TilingData *>(tiling_data)),
                                 [deleter](uint8_t *p) { deleter(p); });
  }
  return *this;
}

OpTilingContextBuilder &OpTilingContextBuilder::TilingDataSize(size_t tiling_data_size) {
  std::unique_ptr<uint8_t[]> buffer = gert::TilingData::CreateCap(tiling_data_size);
  impl_->tilingData = reinterpret_cast<gert::TilingData *>(buffer.get());
  impl_->ownedTilingData = std::shared_ptr<uint8_t>(buffer.release(), std::default_delete<uint8_t[]>());
  return *this;
}

OpTilingContextBuilder &OpTilingContextBuilder::Workspace(const gert::ContinuousVector *workspace) {
  impl_->workspace = const_cast<gert::ContinuousVector *>(workspace);
  return *this;
}

OpTilingContextBuilder &OpTilingContextBuilder::InputTensors(const std::vector<gert::Tensor *> &inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    MutableInputDataType(i) = inputs[i]->GetDataType();
    MutableInputOriginalFormat(i) = inputs[i]->GetOriginFormat();
    MutableInputStorageFormat(i) = inputs[i]->GetStorageFormat();
  }
  impl_->inputs = inputs;
  return *this;
}

OpTilingContextBuilder &OpTilingContextBuilder::OutputTensors(const std::vector<gert::Tensor *> &outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    MutableOutputDataType(i) = outputs[i]->GetDataType();
    MutableOutputOriginalFormat(i) = outputs[i]->GetOriginFormat();
    MutableOutputStorageFormat(i) = outputs[i]->GetStorageFormat();
  }
  impl_->outputs = outputs;
  return *this;
}

ContextHolder<TilingContext> OpTilingContextBuilder::Build() {
  const ContextBuilderImpl &b = *impl_;
  std::string why;
  if (b.compileInfo == nullptr) {
    why = "Compile info is nullptr";
  } else if (b.platformInfo == nullptr) {
    why = "Platform info is nullptr";
  } else {
    why = b.CheckOp(true, true, true);
  }
  if (!why.empty()) {
    BuildFailed("OpTilingContextBuilder::Build", b.opType, why);
    return ContextHolder<TilingContext>();
  }
  opgen_rt::TilingRequest request;
  request.opType = b.opType;
  const auto several = [](const std::vector<uint32_t> &counts) {
    return std::any_of(counts.begin(), counts.end(), [](uint32_t n) { return n > 1U; });
  };
  // instance counts go to the request only with a DYNAMIC parameter of several instances (otherwise one each)
  request.inputs = several(b.inputInstance) ? b.InputInstanceDescs(request.inputInstances) : b.InputDescs();
  request.outputs = b.OutputDescs();
  if (several(b.outputInstance)) {
    request.outputInstances = b.outputInstance;
  }
  request.attrs = b.attrs;
  request.deterministic = b.deterministic;
  std::shared_ptr<TilingContext> context(opgen_rt::TilingContextBuilder::Create(nullptr, 0));
  opgen_rt::TilingContextBuilder::Fill(*context, request,
                                       static_cast<fe::PlatFormInfos *>(const_cast<void *>(b.platformInfo)));
  opgen_rt::TilingContextBuilder::Attach(*context, b.opName, b.compileInfo, b.tilingData, b.workspace);
  auto impl = std::make_unique<ContextHolderImpl>();
  impl->context = context;
  impl->keep = b.ownedTilingData;
  return ContextHolder<TilingContext>(ContextHolderBuilder::Create(std::move(impl)));
}

// ------------------------------------------------------------------------------------------ OpInferShapeContextBuilder

OpInferShapeContextBuilder::OpInferShapeContextBuilder() {
  impl_ = std::make_unique<ContextBuilderImpl>();
}

OpInferShapeContextBuilder::~OpInferShapeContextBuilder() = default;

OpInferShapeContextBuilder &OpInferShapeContextBuilder::InputTensors(const std::vector<gert::Tensor *> &inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    MutableInputDataType(i) = inputs[i]->GetDataType();
    MutableInputOriginalFormat(i) = inputs[i]->GetOriginFormat();
    MutableInputStorageFormat(i) = inputs[i]->GetStorageFormat();
  }
  impl_->inputs = inputs;
  return *this;
}

ContextHolder<InferShapeContext> OpInferShapeContextBuilder::Build() {
  const ContextBuilderImpl &b = *impl_;
  const std::string why = b.CheckOp(false);
  if (!why.empty()) {
    BuildFailed("OpInferShapeContextBuilder::Build", b.opType, why);
    return ContextHolder<InferShapeContext>();
  }
  size_t outputs = 0;
  for (uint32_t n : b.outputInstance) {
    outputs += n;
  }
  auto shapes = std::make_shared<InferShapeContext>();
  InferDataTypeContext dtypes;
  opgen_rt::InferContextBuilder::Fill(*shapes, dtypes, b.opType, b.InputDescs(), b.attrs, outputs);
  auto impl = std::make_unique<ContextHolderImpl>();
  impl->context = shapes;
  return ContextHolder<InferShapeContext>(ContextHolderBuilder::Create(std::move(impl)));
}

// ------------------------------------------------------------------------------------------ OpInferDataTypeContextBuilder

OpInferDataTypeContextBuilder::OpInferDataTypeContextBuilder() {
  impl_ = std::make_unique<ContextBuilderImpl>();
}

OpInferDataTypeContextBuilder::~OpInferDataTypeContextBuilder() = default;

OpInferDataTypeContextBuilder &OpInferDataTypeContextBuilder::InputTensorDesc(size_t index, ge::DataType dtype,
                                                                              ge::Format origin_format,
                                                                              ge::Format storage_format,
                                                                              const gert::ExpandDimsType &) {
  MutableInputDataType(index) = dtype;
  MutableInputOriginalFormat(index) = origin_format;
  MutableInputStorageFormat(index) = storage_format;
  return *this;
}

OpInferDataTypeContextBuilder &OpInferDataTypeContextBuilder::OutputTensorDesc(size_t index,
                                                                               ge::Format origin_format,
                                                                               ge::Format storage_format,
                                                                               const gert::ExpandDimsType &) {
  MutableOutputOriginalFormat(index) = origin_format;
  MutableOutputStorageFormat(index) = storage_format;
  return *this;
}

// Each input instance's dtype is its description's (DT_UNDEFINED where none was given, and for an absent
// optional input, instance count 0); every output starts DT_UNDEFINED.
ContextHolder<InferDataTypeContext> OpInferDataTypeContextBuilder::Build() {
  ContextBuilderImpl &b = *impl_;
  const std::string why = b.CheckOp(false, false);
  if (!why.empty()) {
    BuildFailed("OpInferDataTypeContextBuilder::Build", b.opType, why);
    return ContextHolder<InferDataTypeContext>();
  }
  std::vector<opgen_rt::TilingTensorDesc> inputs;
  size_t next = 0;
  for (uint32_t n : b.inputInstance) {
    opgen_rt::TilingTensorDesc d;
    if (n == 1) {
      d.present = true;
      d.dataType = b.Desc(b.inputDescs, next++).dtype;
    }
    inputs.push_back(d);
  }
  size_t outputs = 0;
  for (uint32_t n : b.outputInstance) {
    outputs += n;
  }
  InferShapeContext shapes;
  auto dtypes = std::make_shared<InferDataTypeContext>();
  opgen_rt::InferContextBuilder::Fill(shapes, *dtypes, b.opType, inputs, b.attrs, outputs);
  auto impl = std::make_unique<ContextHolderImpl>();
  impl->context = dtypes;
  return ContextHolder<InferDataTypeContext>(ContextHolderBuilder::Create(std::move(impl)));
}

}  // namespace gert

namespace opgen_rt {

const gert::OpImplKernelRegistry::OpImplFunctions *FindOpImplFunctions(const char *opType) {
  static std::mutex mutex;
  static auto *found = new std::map<std::string, gert::OpImplKernelRegistry::OpImplFunctions>();
  gert::OpImplKernelRegistry::OpImplFunctions f;
  f.tiling = FindTilingFunc(opType);
  f.infer_shape = FindInferShapeFunc(opType);
  f.infer_datatype = FindInferDataTypeFunc(opType);
  if (f.tiling == nullptr && f.infer_shape == nullptr && f.infer_datatype == nullptr) {
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(mutex);
  return &((*found)[opType] = f);
}

}  // namespace opgen_rt
