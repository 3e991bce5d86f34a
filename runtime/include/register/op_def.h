// ascend-opgen host emulation of CANN's register/op_def.h: the OpDef registration builders (namespace ops).
//
//   class SoftMarginLossGrad : public OpDef {
//    public:
//     explicit SoftMarginLossGrad(const char *name) : OpDef(name) {
//       this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
//       this->Attr("reduction").AttrType(OPTIONAL).Int(1);
//       this->AICore().AddConfig("ascend910b");
//     }
//   };
//   OP_ADD(SoftMarginLossGrad);
//
// The emulation keeps the whole definition: the launcher checks every L0 launch against it (inputs,
// outputs and attributes by position; the dtype/format combination against the columns registered for the
// library's product, as CANN's kernel selection does) and opgen_rt_opdef_json() reports it.
#ifndef OPGEN_REGISTER_OP_DEF_H
#define OPGEN_REGISTER_OP_DEF_H

#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "graph/types.h"
#include "register/op_impl_registry.h"

namespace ops {

enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };

enum class AttrDataType {
  ATTR_DT_BOOL = 0,
  ATTR_DT_FLOAT = 1,
  ATTR_DT_INT = 2,
  ATTR_DT_STR = 3,
  ATTR_DT_LIST_BOOL = 4,
  ATTR_DT_LIST_FLOAT = 5,
  ATTR_DT_LIST_INT = 6,
  ATTR_DT_LIST_LIST_INT = 7,
  ATTR_DT_MAX
};

class OpParamDef {
 public:
  explicit OpParamDef(const char *name) : name_(name == nullptr ? "" : name) {}

  OpParamDef &ParamType(Option paramType);
  // One dtype per supported combination ("column"); every input and output lists the same number.
  OpParamDef &DataType(std::vector<ge::DataType> types);
  // Dtypes accepted in every combination.
  OpParamDef &DataTypeList(std::vector<ge::DataType> types);
  OpParamDef &Format(std::vector<ge::Format> formats);
  OpParamDef &FormatList(std::vector<ge::Format> formats);
  OpParamDef &UnknownShapeFormat(std::vector<ge::Format> formats);
  OpParamDef &ValueDepend(Option valueDepend);
  OpParamDef &IgnoreContiguous();
  OpParamDef &AutoContiguous();
  OpParamDef &Scalar();
  OpParamDef &ScalarList();
  // Value the framework writes into this output before the kernel runs (for atomic accumulation).
  OpParamDef &InitValue(uint64_t value);

  const std::string &Name() const {
    return name_;
  }
  Option GetParamType() const {
    return paramType_;
  }
  const std::vector<ge::DataType> &GetDataTypes() const {
    return dataTypes_;
  }
  const std::vector<ge::DataType> &GetDataTypeList() const {
    return dataTypeList_;
  }
  const std::vector<ge::Format> &GetFormats() const {
    return formats_;
  }
  const std::vector<ge::Format> &GetFormatList() const {
    return formatList_;
  }
  const std::vector<ge::Format> &GetUnknownShapeFormats() const {
    return unknownShapeFormats_;
  }
  Option GetValueDepend() const {
    return valueDepend_;
  }
  bool HasInitValue() const {
    return hasInitValue_;
  }
  uint64_t GetInitValue() const {
    return initValue_;
  }
  // Whether AutoContiguous() was called: the framework makes a non-contiguous tensor contiguous first.
  bool GetAutoContiguous() const {
    return autoContiguous_;
  }

 private:
  std::string name_;
  Option paramType_ = REQUIRED;
  std::vector<ge::DataType> dataTypes_;
  std::vector<ge::DataType> dataTypeList_;
  std::vector<ge::Format> formats_;
  std::vector<ge::Format> formatList_;
  std::vector<ge::Format> unknownShapeFormats_;
  Option valueDepend_ = IGNORE;
  bool hasInitValue_ = false;
  uint64_t initValue_ = 0;
  bool autoContiguous_ = false;
};

class OpAttrDef {
 public:
  explicit OpAttrDef(const char *name) : name_(name == nullptr ? "" : name) {}

  OpAttrDef &AttrType(Option attrType);
  OpAttrDef &Bool();
  OpAttrDef &Bool(bool value);
  OpAttrDef &Float();
  OpAttrDef &Float(float value);
  OpAttrDef &Int();
  OpAttrDef &Int(int64_t value);
  OpAttrDef &String();
  OpAttrDef &String(const char *value);
  OpAttrDef &ListBool();
  OpAttrDef &ListBool(std::vector<bool> value);
  OpAttrDef &ListFloat();
  OpAttrDef &ListFloat(std::vector<float> value);
  OpAttrDef &ListInt();
  OpAttrDef &ListInt(std::vector<int64_t> value);

  const std::string &Name() const {
    return name_;
  }
  Option GetAttrType() const {
    return attrType_;
  }
  AttrDataType GetDataType() const {
    return dataType_;
  }
  bool HasDefault() const {
    return hasDefault_;
  }
  bool GetBoolDefault() const {
    return boolValue_;
  }
  float GetFloatDefault() const {
    return floatValue_;
  }
  int64_t GetIntDefault() const {
    return intValue_;
  }
  const std::string &GetStringDefault() const {
    return stringValue_;
  }
  const std::vector<bool> &GetListBoolDefault() const {
    return listBoolValue_;
  }
  const std::vector<float> &GetListFloatDefault() const {
    return listFloatValue_;
  }
  const std::vector<int64_t> &GetListIntDefault() const {
    return listIntValue_;
  }

 private:
  std::string name_;
  Option attrType_ = REQUIRED;
  AttrDataType dataType_ = AttrDataType::ATTR_DT_MAX;
  bool hasDefault_ = false;
  bool boolValue_ = false;
  float floatValue_ = 0.0F;
  int64_t intValue_ = 0;
  std::string stringValue_;
  std::vector<bool> listBoolValue_;
  std::vector<float> listFloatValue_;
  std::vector<int64_t> listIntValue_;
};

// Per-product overrides of the op's inputs/outputs and compile flags.
class OpAICoreConfig {
 public:
  OpAICoreConfig() = default;
  explicit OpAICoreConfig(const char *soc) : soc_(soc == nullptr ? "" : soc) {}

  OpParamDef &Input(const char *name);
  OpParamDef &Output(const char *name);
  OpAICoreConfig &DynamicCompileStaticFlag(bool flag);
  OpAICoreConfig &DynamicFormatFlag(bool flag);
  OpAICoreConfig &DynamicRankSupportFlag(bool flag);
  OpAICoreConfig &DynamicShapeSupportFlag(bool flag);
  OpAICoreConfig &NeedCheckSupportFlag(bool flag);
  OpAICoreConfig &PrecisionReduceFlag(bool flag);
  OpAICoreConfig &ExtendCfgInfo(const char *key, const char *value);

  const std::deque<OpParamDef> &GetInputs() const {
    return inputs_;
  }
  const std::deque<OpParamDef> &GetOutputs() const {
    return outputs_;
  }
  const std::vector<std::pair<std::string, std::string>> &GetCfgInfo() const {
    return cfgInfo_;
  }

 private:
  static OpParamDef &FindOrAdd(std::deque<OpParamDef> &params, const char *name);
  std::string soc_;
  std::deque<OpParamDef> inputs_;
  std::deque<OpParamDef> outputs_;
  std::vector<std::pair<std::string, std::string>> cfgInfo_;
};

class OpAICoreDef {
 public:
  // Declares the op for a product (by OpDef config name, e.g. "ascend910b"), with the op's own
  // inputs/outputs, or with the config's when it defines any.
  OpAICoreDef &AddConfig(const char *soc);
  OpAICoreDef &AddConfig(const char *soc, OpAICoreConfig &config);
  OpAICoreDef &SetTiling(gert::OpImplRegisterV2::TilingKernelFunc func);

  struct Config {
    std::string soc;
    bool hasConfig = false;
    OpAICoreConfig config;
  };
  const std::vector<Config> &GetConfigs() const {
    return configs_;
  }
  // nullptr when `soc` was never added.
  const Config *FindConfig(const std::string &soc) const;

 private:
  std::vector<Config> configs_;
};

class OpDef {
 public:
  explicit OpDef(const char *type) : opType_(type == nullptr ? "" : type) {}
  virtual ~OpDef() = default;
  OpDef(const OpDef &) = default;
  OpDef &operator=(const OpDef &) = default;

  // Calling Input/Output/Attr again with a known name returns the existing definition.
  OpParamDef &Input(const char *name);
  OpParamDef &Output(const char *name);
  OpAttrDef &Attr(const char *name);
  OpDef &SetInferShape(gert::OpImplRegisterV2::InferShapeKernelFunc func);
  OpDef &SetInferShapeRange(gert::OpImplRegisterV2::InferShapeKernelFunc func);
  OpDef &SetInferDataType(gert::OpImplRegisterV2::InferDataTypeKernelFunc func);
  OpAICoreDef &AICore();

  const std::string &GetOpType() const {
    return opType_;
  }
  const std::deque<OpParamDef> &GetInputs() const {
    return inputs_;
  }
  const std::deque<OpParamDef> &GetOutputs() const {
    return outputs_;
  }
  const std::deque<OpAttrDef> &GetAttrs() const {
    return attrs_;
  }
  const OpAICoreDef &GetAICore() const {
    return aicore_;
  }

 private:
  std::string opType_;
  std::deque<OpParamDef> inputs_;
  std::deque<OpParamDef> outputs_;
  std::deque<OpAttrDef> attrs_;
  OpAICoreDef aicore_;
};

}  // namespace ops

#endif  // OPGEN_REGISTER_OP_DEF_H
