// ascend-opgen host emulation: the OpDef builders, their registry (OP_ADD) and the OpDef JSON.
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "json.h"
#include "opdev/data_type_utils.h"
#include "opdev/format_utils.h"
#include "opgen_rt/op_def_json.h"
#include "register/op_def_registry.h"

namespace ops {

OpParamDef &OpParamDef::ParamType(Option paramType) {
  paramType_ = paramType;
  return *this;
}
OpParamDef &OpParamDef::DataType(std::vector<ge::DataType> types) {
  dataTypes_ = std::move(types);
  return *this;
}
OpParamDef &OpParamDef::DataTypeList(std::vector<ge::DataType> types) {
  dataTypeList_ = std::move(types);
  return *this;
}
OpParamDef &OpParamDef::Format(std::vector<ge::Format> formats) {
  formats_ = std::move(formats);
  return *this;
}
OpParamDef &OpParamDef::FormatList(std::vector<ge::Format> formats) {
  formatList_ = std::move(formats);
  return *this;
}
OpParamDef &OpParamDef::UnknownShapeFormat(std::vector<ge::Format> formats) {
  unknownShapeFormats_ = std::move(formats);
  return *this;
}
OpParamDef &OpParamDef::ValueDepend(Option valueDepend) {
  valueDepend_ = valueDepend;
  return *this;
}
OpParamDef &OpParamDef::IgnoreContiguous() {
  return *this;
}
OpParamDef &OpParamDef::AutoContiguous() {
  autoContiguous_ = true;
  return *this;
}
OpParamDef &OpParamDef::Scalar() {
  return *this;
}
OpParamDef &OpParamDef::ScalarList() {
  return *this;
}
OpParamDef &OpParamDef::InitValue(uint64_t value) {
  hasInitValue_ = true;
  initValue_ = value;
  return *this;
}

OpAttrDef &OpAttrDef::AttrType(Option attrType) {
  attrType_ = attrType;
  return *this;
}
OpAttrDef &OpAttrDef::Bool() {
  dataType_ = AttrDataType::ATTR_DT_BOOL;
  return *this;
}
OpAttrDef &OpAttrDef::Bool(bool value) {
  Bool();
  hasDefault_ = true;
  boolValue_ = value;
  return *this;
}
OpAttrDef &OpAttrDef::Float() {
  dataType_ = AttrDataType::ATTR_DT_FLOAT;
  return *this;
}
OpAttrDef &OpAttrDef::Float(float value) {
  Float();
  hasDefault_ = true;
  floatValue_ = value;
  return *this;
}
OpAttrDef &OpAttrDef::Int() {
  dataType_ = AttrDataType::ATTR_DT_INT;
  return *this;
}
OpAttrDef &OpAttrDef::Int(int64_t value) {
  Int();
  hasDefault_ = true;
  intValue_ = value;
  return *this;
}
OpAttrDef &OpAttrDef::String() {
  dataType_ = AttrDataType::ATTR_DT_STR;
  return *this;
}
OpAttrDef &OpAttrDef::String(const char *value) {
  String();
  hasDefault_ = true;
  stringValue_ = value == nullptr ? "" : value;
  return *this;
}
OpAttrDef &OpAttrDef::ListBool() {
  dataType_ = AttrDataType::ATTR_DT_LIST_BOOL;
  return *this;
}
OpAttrDef &OpAttrDef::ListBool(std::vector<bool> value) {
  ListBool();
  hasDefault_ = true;
  listBoolValue_ = std::move(value);
  return *this;
}
OpAttrDef &OpAttrDef::ListFloat() {
  dataType_ = AttrDataType::ATTR_DT_LIST_FLOAT;
  return *this;
}
OpAttrDef &OpAttrDef::ListFloat(std::vector<float> value) {
  ListFloat();
  hasDefault_ = true;
  listFloatValue_ = std::move(value);
  return *this;
}
OpAttrDef &OpAttrDef::ListInt() {
  dataType_ = AttrDataType::ATTR_DT_LIST_INT;
  return *this;
}
OpAttrDef &OpAttrDef::ListInt(std::vector<int64_t> value) {
  ListInt();
  hasDefault_ = true;
  listIntValue_ = std::move(value);
  return *this;
}

OpParamDef &OpAICoreConfig::FindOrAdd(std::deque<OpParamDef> &params, const char *name) {
  const std::string key = name == nullptr ? "" : name;
  for (auto &p : params) {
    if (p.Name() == key) {
      return p;
    }
  }
  params.emplace_back(key.c_str());
  return params.back();
}
OpParamDef &OpAICoreConfig::Input(const char *name) {
  return FindOrAdd(inputs_, name);
}
OpParamDef &OpAICoreConfig::Output(const char *name) {
  return FindOrAdd(outputs_, name);
}

namespace {
OpAICoreConfig &AddFlag(OpAICoreConfig &config, std::vector<std::pair<std::string, std::string>> &cfg, const char *key,
                        const std::string &value) {
  for (auto &kv : cfg) {
    if (kv.first == key) {
      kv.second = value;
      return config;
    }
  }
  cfg.emplace_back(key, value);
  return config;
}
}  // namespace

OpAICoreConfig &OpAICoreConfig::DynamicCompileStaticFlag(bool flag) {
  return AddFlag(*this, cfgInfo_, "dynamicCompileStatic.flag", flag ? "true" : "false");
}
OpAICoreConfig &OpAICoreConfig::DynamicFormatFlag(bool flag) {
  return AddFlag(*this, cfgInfo_, "dynamicFormat.flag", flag ? "true" : "false");
}
OpAICoreConfig &OpAICoreConfig::DynamicRankSupportFlag(bool flag) {
  return AddFlag(*this, cfgInfo_, "dynamicRankSupport.flag", flag ? "true" : "false");
}
OpAICoreConfig &OpAICoreConfig::DynamicShapeSupportFlag(bool flag) {
  return AddFlag(*this, cfgInfo_, "dynamicShapeSupport.flag", flag ? "true" : "false");
}
OpAICoreConfig &OpAICoreConfig::NeedCheckSupportFlag(bool flag) {
  return AddFlag(*this, cfgInfo_, "needCheckSupport.flag", flag ? "true" : "false");
}
OpAICoreConfig &OpAICoreConfig::PrecisionReduceFlag(bool flag) {
  return AddFlag(*this, cfgInfo_, "precision_reduce.flag", flag ? "true" : "false");
}
OpAICoreConfig &OpAICoreConfig::ExtendCfgInfo(const char *key, const char *value) {
  return AddFlag(*this, cfgInfo_, key == nullptr ? "" : key, value == nullptr ? "" : value);
}

OpAICoreDef &OpAICoreDef::AddConfig(const char *soc) {
  Config c;
  c.soc = soc == nullptr ? "" : soc;
  for (auto &existing : configs_) {
    if (existing.soc == c.soc) {
      existing = c;
      return *this;
    }
  }
  configs_.push_back(std::move(c));
  return *this;
}

OpAICoreDef &OpAICoreDef::AddConfig(const char *soc, OpAICoreConfig &config) {
  Config c;
  c.soc = soc == nullptr ? "" : soc;
  c.hasConfig = true;
  c.config = config;
  for (auto &existing : configs_) {
    if (existing.soc == c.soc) {
      existing = c;
      return *this;
    }
  }
  configs_.push_back(std::move(c));
  return *this;
}

OpAICoreDef &OpAICoreDef::SetTiling(gert::OpImplRegisterV2::TilingKernelFunc func) {
  (void)func;
  return *this;
}

const OpAICoreDef::Config *OpAICoreDef::FindConfig(const std::string &soc) const {
  for (const auto &c : configs_) {
    if (c.soc == soc) {
      return &c;
    }
  }
  return nullptr;
}

namespace {
template <typename T>
T &FindOrAddNamed(std::deque<T> &items, const char *name) {
  const std::string key = name == nullptr ? "" : name;
  for (auto &item : items) {
    if (item.Name() == key) {
      return item;
    }
  }
  items.emplace_back(key.c_str());
  return items.back();
}
}  // namespace

OpParamDef &OpDef::Input(const char *name) {
  return FindOrAddNamed(inputs_, name);
}
OpParamDef &OpDef::Output(const char *name) {
  return FindOrAddNamed(outputs_, name);
}
OpAttrDef &OpDef::Attr(const char *name) {
  return FindOrAddNamed(attrs_, name);
}
OpDef &OpDef::SetInferShape(gert::OpImplRegisterV2::InferShapeKernelFunc func) {
  (void)func;
  return *this;
}
OpDef &OpDef::SetInferShapeRange(gert::OpImplRegisterV2::InferShapeKernelFunc func) {
  (void)func;
  return *this;
}
OpDef &OpDef::SetInferDataType(gert::OpImplRegisterV2::InferDataTypeKernelFunc func) {
  (void)func;
  return *this;
}
OpAICoreDef &OpDef::AICore() {
  return aicore_;
}

namespace {
struct OpDefRegistry {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<OpDef>> defs;
};
OpDefRegistry &Defs() {
  static OpDefRegistry *registry = new OpDefRegistry();
  return *registry;
}
}  // namespace

bool OpDefRegister(const char *opType, OpDefCreator creator) {
  auto def = std::make_unique<OpDef>(creator(opType));
  OpDefRegistry &r = Defs();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.defs[opType] = std::move(def);
  return true;
}

const OpDef *FindOpDef(const char *opType) {
  OpDefRegistry &r = Defs();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.defs.find(opType == nullptr ? "" : opType);
  return it == r.defs.end() ? nullptr : it->second.get();
}

}  // namespace ops

namespace opgen_rt {
namespace {

const char *OptionName(ops::Option o) {
  switch (o) {
    case ops::IGNORE:
      return "IGNORE";
    case ops::OPTIONAL:
      return "OPTIONAL";
    case ops::REQUIRED:
      return "REQUIRED";
    case ops::DYNAMIC:
      return "DYNAMIC";
    case ops::VIRTUAL:
      return "VIRTUAL";
  }
  return "UNKNOWN";
}

std::string DtypesJson(const std::vector<ge::DataType> &types) {
  std::string out = "[";
  for (size_t i = 0; i < types.size(); ++i) {
    out += (i == 0 ? "" : ", ") + json::Quote(op::ToString(types[i]).GetString());
  }
  return out + "]";
}

std::string FormatsJson(const std::vector<ge::Format> &formats) {
  std::string out = "[";
  for (size_t i = 0; i < formats.size(); ++i) {
    out += (i == 0 ? "" : ", ") + json::Quote(std::string("FORMAT_") + op::ToString(formats[i]).GetString());
  }
  return out + "]";
}

std::string ParamsJson(const std::deque<ops::OpParamDef> &params) {
  std::string out = "[";
  bool first = true;
  for (const auto &p : params) {
    out += first ? "" : ", ";
    first = false;
    out += "{\"name\": " + json::Quote(p.Name()) + ", \"param_type\": " + json::Quote(OptionName(p.GetParamType())) +
           ", \"dtypes\": " + DtypesJson(p.GetDataTypes()) + ", \"dtype_list\": " + DtypesJson(p.GetDataTypeList()) +
           ", \"formats\": " + FormatsJson(p.GetFormats()) + ", \"format_list\": " + FormatsJson(p.GetFormatList()) +
           ", \"unknown_shape_formats\": " + FormatsJson(p.GetUnknownShapeFormats()) +
           ", \"value_depend\": " + json::Quote(OptionName(p.GetValueDepend())) +
           ", \"init_value\": " + (p.HasInitValue() ? std::to_string(p.GetInitValue()) : std::string("null")) +
           ", \"auto_contiguous\": " + (p.GetAutoContiguous() ? "true" : "false") + "}";
  }
  return out + "]";
}

std::string AttrJson(const ops::OpAttrDef &a) {
  std::string type;
  std::string def = "null";
  switch (a.GetDataType()) {
    case ops::AttrDataType::ATTR_DT_BOOL:
      type = "bool";
      if (a.HasDefault()) {
        def = a.GetBoolDefault() ? "true" : "false";
      }
      break;
    case ops::AttrDataType::ATTR_DT_FLOAT:
      type = "float";
      if (a.HasDefault()) {
        def = json::Number(static_cast<double>(a.GetFloatDefault()));
      }
      break;
    case ops::AttrDataType::ATTR_DT_INT:
      type = "int";
      if (a.HasDefault()) {
        def = std::to_string(a.GetIntDefault());
      }
      break;
    case ops::AttrDataType::ATTR_DT_STR:
      type = "string";
      if (a.HasDefault()) {
        def = json::Quote(a.GetStringDefault());
      }
      break;
    case ops::AttrDataType::ATTR_DT_LIST_BOOL:
      type = "list_bool";
      if (a.HasDefault()) {
        def = "[";
        for (size_t i = 0; i < a.GetListBoolDefault().size(); ++i) {
          def += std::string(i == 0 ? "" : ", ") + (a.GetListBoolDefault()[i] ? "true" : "false");
        }
        def += "]";
      }
      break;
    case ops::AttrDataType::ATTR_DT_LIST_FLOAT:
      type = "list_float";
      if (a.HasDefault()) {
        def = "[";
        for (size_t i = 0; i < a.GetListFloatDefault().size(); ++i) {
          def += (i == 0 ? "" : ", ") + json::Number(static_cast<double>(a.GetListFloatDefault()[i]));
        }
        def += "]";
      }
      break;
    case ops::AttrDataType::ATTR_DT_LIST_INT:
      type = "list_int";
      if (a.HasDefault()) {
        def = "[";
        for (size_t i = 0; i < a.GetListIntDefault().size(); ++i) {
          def += (i == 0 ? "" : ", ") + std::to_string(a.GetListIntDefault()[i]);
        }
        def += "]";
      }
      break;
    default:
      type = "unset";
      break;
  }
  return "{\"name\": " + json::Quote(a.Name()) + ", \"attr_type\": " + json::Quote(OptionName(a.GetAttrType())) +
         ", \"type\": " + json::Quote(type) + ", \"default\": " + def + "}";
}

}  // namespace

std::string OpDefToJson(const ops::OpDef &def) {
  std::string out = "{\"op_type\": " + json::Quote(def.GetOpType()) + ", \"inputs\": " + ParamsJson(def.GetInputs()) +
                    ", \"outputs\": " + ParamsJson(def.GetOutputs()) + ", \"attrs\": [";
  bool first = true;
  for (const auto &a : def.GetAttrs()) {
    out += (first ? "" : ", ") + AttrJson(a);
    first = false;
  }
  out += "], \"configs\": {";
  first = true;
  for (const auto &c : def.GetAICore().GetConfigs()) {
    out += first ? "" : ", ";
    first = false;
    json::AppendString(out, c.soc);
    out += ": ";
    if (!c.hasConfig) {
      out += "null";
      continue;
    }
    out += "{\"inputs\": " + ParamsJson(c.config.GetInputs()) + ", \"outputs\": " + ParamsJson(c.config.GetOutputs()) +
           ", \"flags\": {";
    bool firstFlag = true;
    for (const auto &kv : c.config.GetCfgInfo()) {
      out += (firstFlag ? "" : ", ") + json::Quote(kv.first) + ": " + json::Quote(kv.second);
      firstFlag = false;
    }
    out += "}}";
  }
  return out + "}}";
}

}  // namespace opgen_rt
