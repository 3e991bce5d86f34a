// ascend-opgen host emulation: the opgen_rt_* C functions for Python (see opgen_rt/c_api.h).
#include "opgen_rt/c_api.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "infer_context.h"
#include "json.h"
#include "opdev/data_type_utils.h"
#include "opdev/format_utils.h"
#include "opdev/op_log.h"
#include "opdev/platform.h"
#include "opgen_rt/core.h"
#include "opgen_rt/op_def_json.h"
#include "opgen_rt/tiling_meta.h"
#include "register/op_def_registry.h"
#include "registry.h"
#include "stream_state.h"
#include "tiling_runner.h"

namespace {

using opgen_rt::AttrValue;
using opgen_rt::json::Value;

const char *Keep(std::string &buffer, std::string text) {
  buffer = std::move(text);
  return buffer.c_str();
}

const char *DtypeIdName(opgen_rt::DtypeId id) {
  switch (id) {
    case opgen_rt::DtypeId::FLOAT:
      return "FLOAT";
    case opgen_rt::DtypeId::FLOAT16:
      return "FLOAT16";
    case opgen_rt::DtypeId::INT8:
      return "INT8";
    case opgen_rt::DtypeId::INT32:
      return "INT32";
    case opgen_rt::DtypeId::UINT8:
      return "UINT8";
    case opgen_rt::DtypeId::INT16:
      return "INT16";
    case opgen_rt::DtypeId::UINT16:
      return "UINT16";
    case opgen_rt::DtypeId::UINT32:
      return "UINT32";
    case opgen_rt::DtypeId::INT64:
      return "INT64";
    case opgen_rt::DtypeId::UINT64:
      return "UINT64";
    case opgen_rt::DtypeId::DOUBLE:
      return "DOUBLE";
    case opgen_rt::DtypeId::BOOL:
      return "BOOL";
    case opgen_rt::DtypeId::BF16:
      return "BF16";
  }
  return "UNKNOWN";
}

// Request parsing: each helper returns false with `error` set.
bool ReadShape(const Value *v, const char *what, gert::Shape &shape, std::string &error) {
  if (v == nullptr || v->type != Value::Type::ARRAY) {
    error = std::string(what) + " must be a list of integers";
    return false;
  }
  if (v->items.size() > gert::Shape::kMaxDimNum) {
    error = std::string(what) + " has more than 25 dimensions";
    return false;
  }
  for (const Value &d : v->items) {
    if (d.type != Value::Type::NUMBER || !d.isInteger || d.integer < 0) {
      error = std::string(what) + " must hold non-negative integers";
      return false;
    }
    shape.AppendDim(d.integer);
  }
  return true;
}

bool ReadDtype(const Value *v, ge::DataType &dtype, std::string &error) {
  if (v == nullptr) {
    error = "a tensor needs \"dtype\"";
    return false;
  }
  if (v->type == Value::Type::STRING) {
    dtype = op::ToDataType(v->text);
  } else if (v->type == Value::Type::NUMBER && v->isInteger) {
    dtype = static_cast<ge::DataType>(v->integer);
  } else {
    dtype = ge::DT_UNDEFINED;
  }
  if (dtype == ge::DT_UNDEFINED || op::TypeSize(dtype) == 0) {
    error = "unknown dtype";
    return false;
  }
  return true;
}

bool ReadFormat(const Value *v, ge::Format &format, std::string &error) {
  if (v == nullptr) {
    format = ge::FORMAT_ND;
    return true;
  }
  if (v->type == Value::Type::STRING) {
    format = op::ToFormat(v->text);
  } else if (v->type == Value::Type::NUMBER && v->isInteger) {
    format = static_cast<ge::Format>(v->integer);
  } else {
    format = ge::FORMAT_RESERVED;
  }
  if (format == ge::FORMAT_RESERVED) {
    error = "unknown format";
    return false;
  }
  return true;
}

bool ReadTensors(const Value *list, const char *what, std::vector<opgen_rt::TilingTensorDesc> &out,
                 std::string &error) {
  if (list == nullptr) {
    return true;
  }
  if (list->type != Value::Type::ARRAY) {
    error = std::string("\"") + what + "\" must be a list";
    return false;
  }
  for (size_t i = 0; i < list->items.size(); ++i) {
    const Value &t = list->items[i];
    opgen_rt::TilingTensorDesc d;
    const std::string where = std::string(what) + "[" + std::to_string(i) + "]";
    if (t.type == Value::Type::NUL) {
      out.push_back(d);
      continue;
    }
    if (t.type != Value::Type::OBJECT) {
      error = where + " must be an object or null";
      return false;
    }
    d.present = true;
    if (!ReadShape(t.Find("shape"), (where + ".shape").c_str(), d.originShape, error)) {
      return false;
    }
    d.storageShape = d.originShape;
    if (t.Find("storage_shape") != nullptr) {
      d.storageShape = gert::Shape();
      if (!ReadShape(t.Find("storage_shape"), (where + ".storage_shape").c_str(), d.storageShape, error)) {
        return false;
      }
    }
    if (!ReadDtype(t.Find("dtype"), d.dataType, error) || !ReadFormat(t.Find("format"), d.storageFormat, error)) {
      error = where + ": " + error;
      return false;
    }
    d.originFormat = d.storageFormat;
    if (t.Find("origin_format") != nullptr && !ReadFormat(t.Find("origin_format"), d.originFormat, error)) {
      error = where + ": " + error;
      return false;
    }
    out.push_back(d);
  }
  return true;
}

// A JSON value as an attribute: of the OpDef's declared type when known, else inferred from the JSON type.
bool ToAttr(const Value &v, const ops::OpAttrDef *declared, AttrValue &out, std::string &error) {
  using T = ops::AttrDataType;
  const T type = declared == nullptr ? T::ATTR_DT_MAX : declared->GetDataType();
  auto isNumber = v.type == Value::Type::NUMBER;
  auto listOf = [&v](Value::Type t) {
    for (const Value &item : v.items) {
      if (item.type != t) {
        return false;
      }
    }
    return true;
  };
  switch (type) {
    case T::ATTR_DT_INT:
      if (isNumber && v.isInteger) {
        out = v.number < 0 || v.uinteger <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                  ? AttrValue::FromInt(v.integer)
                  : AttrValue::FromUint(v.uinteger);
        return true;
      }
      error = "must be an integer";
      return false;
    case T::ATTR_DT_BOOL:
      if (v.type == Value::Type::BOOL) {
        out = AttrValue::FromBool(v.boolean);
        return true;
      }
      error = "must be true or false";
      return false;
    case T::ATTR_DT_FLOAT:
      if (isNumber) {
        out = AttrValue::FromFloat(static_cast<float>(v.number));
        return true;
      }
      error = "must be a number";
      return false;
    case T::ATTR_DT_STR:
      if (v.type == Value::Type::STRING) {
        out = AttrValue::FromString(v.text);
        return true;
      }
      error = "must be a string";
      return false;
    default:
      break;
  }
  if (v.type == Value::Type::BOOL) {
    out = AttrValue::FromBool(v.boolean);
  } else if (isNumber && v.isInteger) {
    out = v.number < 0 || v.uinteger <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
              ? AttrValue::FromInt(v.integer)
              : AttrValue::FromUint(v.uinteger);
  } else if (isNumber) {
    out = AttrValue::FromFloat(static_cast<float>(v.number));
  } else if (v.type == Value::Type::STRING) {
    out = AttrValue::FromString(v.text);
  } else if (v.type == Value::Type::ARRAY &&
             (type == T::ATTR_DT_LIST_BOOL ||
              (type == T::ATTR_DT_MAX && !v.items.empty() && listOf(Value::Type::BOOL)))) {
    std::vector<bool> values;
    for (const Value &item : v.items) {
      if (item.type != Value::Type::BOOL) {
        error = "must be a list of booleans";
        return false;
      }
      values.push_back(item.boolean);
    }
    out = AttrValue::FromListBool(values);
  } else if (v.type == Value::Type::ARRAY) {
    bool allInt = true;
    for (const Value &item : v.items) {
      if (item.type != Value::Type::NUMBER) {
        error = "must be a list of numbers";
        return false;
      }
      allInt = allInt && item.isInteger;
    }
    if (type == T::ATTR_DT_LIST_FLOAT || (type == T::ATTR_DT_MAX && !allInt)) {
      std::vector<float> values;
      for (const Value &item : v.items) {
        values.push_back(static_cast<float>(item.number));
      }
      out = AttrValue::FromListFloat(values);
    } else {
      if (!allInt) {
        error = "must be a list of integers";
        return false;
      }
      std::vector<int64_t> values;
      for (const Value &item : v.items) {
        values.push_back(item.integer);
      }
      out = AttrValue::FromListInt(values);
    }
  } else {
    error = "has an unsupported JSON type";
    return false;
  }
  return true;
}

AttrValue DefaultOf(const ops::OpAttrDef &a) {
  switch (a.GetDataType()) {
    case ops::AttrDataType::ATTR_DT_BOOL:
      return AttrValue::FromBool(a.GetBoolDefault());
    case ops::AttrDataType::ATTR_DT_FLOAT:
      return AttrValue::FromFloat(a.GetFloatDefault());
    case ops::AttrDataType::ATTR_DT_STR:
      return AttrValue::FromString(a.GetStringDefault());
    case ops::AttrDataType::ATTR_DT_LIST_INT:
      return AttrValue::FromListInt(a.GetListIntDefault());
    case ops::AttrDataType::ATTR_DT_LIST_FLOAT:
      return AttrValue::FromListFloat(a.GetListFloatDefault());
    case ops::AttrDataType::ATTR_DT_LIST_BOOL:
      return AttrValue::FromListBool(a.GetListBoolDefault());
    default:
      return AttrValue::FromInt(a.GetIntDefault());
  }
}

bool ReadAttrs(const Value *attrs, const ops::OpDef *def, std::vector<AttrValue> &out, std::string &error) {
  if (attrs == nullptr) {
    if (def == nullptr) {
      return true;
    }
    Value empty;
    empty.type = Value::Type::OBJECT;
    return ReadAttrs(&empty, def, out, error);
  }
  if (attrs->type == Value::Type::ARRAY) {
    for (size_t i = 0; i < attrs->items.size(); ++i) {
      const ops::OpAttrDef *declared = def != nullptr && i < def->GetAttrs().size() ? &def->GetAttrs()[i] : nullptr;
      AttrValue value;
      if (!ToAttr(attrs->items[i], declared, value, error)) {
        error = "attrs[" + std::to_string(i) + "] " + error;
        return false;
      }
      out.push_back(value);
    }
    return true;
  }
  if (attrs->type != Value::Type::OBJECT) {
    error = "\"attrs\" must be a list or an object";
    return false;
  }
  if (def == nullptr) {
    error = "\"attrs\" by name needs a registered OpDef";
    return false;
  }
  for (const auto &member : attrs->members) {
    bool known = false;
    for (const auto &a : def->GetAttrs()) {
      known = known || a.Name() == member.first;
    }
    if (!known) {
      error = "attribute \"" + member.first + "\" is not in the OpDef";
      return false;
    }
  }
  for (const auto &a : def->GetAttrs()) {
    const Value *v = attrs->Find(a.Name());
    AttrValue value;
    if (v == nullptr) {
      if (!a.HasDefault()) {
        error = "attribute \"" + a.Name() + "\" is required";
        return false;
      }
      value = DefaultOf(a);
    } else if (!ToAttr(*v, &a, value, error)) {
      error = "attribute \"" + a.Name() + "\" " + error;
      return false;
    }
    out.push_back(value);
  }
  return true;
}

std::string Hex(const std::vector<uint8_t> &bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (uint8_t b : bytes) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 0xF]);
  }
  return out;
}

std::string ErrorJson(int32_t status, const std::string &message) {
  return "{\"status\": " + std::to_string(status) + ", \"message\": " + opgen_rt::json::Quote(message) + "}";
}

// Parses a tiling request (see opgen_rt_run_tiling_json) into `tiling`; "" on success, else the error JSON.
std::string ParseTilingRequest(const char *opType, const char *requestJson, Value &request,
                               opgen_rt::TilingRequest &tiling) {
  if (opType == nullptr || requestJson == nullptr) {
    return ErrorJson(ACLNN_ERR_PARAM_NULLPTR, opType == nullptr ? "opType is nullptr" : "requestJson is nullptr");
  }
  std::string error;
  if (!opgen_rt::json::Parse(requestJson, request, error)) {
    return ErrorJson(ACLNN_ERR_PARAM_INVALID, "request is not valid JSON: " + error);
  }
  if (request.type != Value::Type::OBJECT) {
    return ErrorJson(ACLNN_ERR_PARAM_INVALID, "request must be a JSON object");
  }
  tiling.opType = opType;
  const ops::OpDef *def = ops::FindOpDef(opType);
  if (!ReadTensors(request.Find("inputs"), "inputs", tiling.inputs, error) ||
      !ReadTensors(request.Find("outputs"), "outputs", tiling.outputs, error) ||
      !ReadAttrs(request.Find("attrs"), def, tiling.attrs, error)) {
    return ErrorJson(ACLNN_ERR_PARAM_INVALID, error);
  }
  tiling.deterministic = static_cast<int32_t>(opgen_rt::DeterministicOption());
  if (const Value *d = request.Find("deterministic")) {
    if (d->type == Value::Type::NUMBER && d->isInteger) {
      tiling.deterministic = static_cast<int32_t>(d->integer);
    } else if (d->type == Value::Type::BOOL) {
      tiling.deterministic = d->boolean ? 1 : 0;
    } else {
      return ErrorJson(ACLNN_ERR_PARAM_INVALID, "\"deterministic\" must be 0 or 1");
    }
  }
  return std::string();
}

}  // namespace


extern "C" {

int32_t opgen_rt_set_core_order(int32_t mode, uint64_t seed) {
  if (mode < static_cast<int32_t>(opgen_rt::CoreOrder::IN_ORDER) ||
      mode > static_cast<int32_t>(opgen_rt::CoreOrder::CONCURRENT)) {
    op::internal::ClearRecentError();
    OP_LOGE(ACLNN_ERR_PARAM_INVALID,
            "opgen_rt_set_core_order: mode %d is not 0 (in order), 1 (reversed), "
            "2 (shuffle) or 3 (concurrent).",
            static_cast<int>(mode));
    return -1;
  }
  opgen_rt::SetCoreOrder(static_cast<opgen_rt::CoreOrder>(mode), seed);
  return 0;
}

const char *opgen_rt_last_launch_stats(void) {
  thread_local std::string buffer;
  return Keep(buffer, opgen_rt::LastRunStatsJson());
}

const char *opgen_rt_opdef_json(const char *opType) {
  thread_local std::string buffer;
  const ops::OpDef *def = opType == nullptr ? nullptr : ops::FindOpDef(opType);
  return Keep(buffer, def == nullptr ? std::string("null") : opgen_rt::OpDefToJson(*def));
}

const char *opgen_rt_run_infershape_json(const char *opType, const char *requestJson) {
  thread_local std::string buffer;
  if (opType == nullptr || requestJson == nullptr) {
    return Keep(buffer,
                ErrorJson(ACLNN_ERR_PARAM_NULLPTR, opType == nullptr ? "opType is nullptr" : "requestJson is nullptr"));
  }
  Value request;
  std::string error;
  if (!opgen_rt::json::Parse(requestJson, request, error) || request.type != Value::Type::OBJECT) {
    return Keep(buffer, ErrorJson(ACLNN_ERR_PARAM_INVALID, "request must be a JSON object " + error));
  }
  const ops::OpDef *def = ops::FindOpDef(opType);
  if (def == nullptr) {
    return Keep(buffer, ErrorJson(ACLNN_ERR_PARAM_INVALID, std::string("no OpDef is registered for ") + opType));
  }
  std::vector<opgen_rt::TilingTensorDesc> inputs;
  std::vector<AttrValue> attrs;
  if (!ReadTensors(request.Find("inputs"), "inputs", inputs, error) ||
      !ReadAttrs(request.Find("attrs"), def, attrs, error)) {
    return Keep(buffer, ErrorJson(ACLNN_ERR_PARAM_INVALID, error));
  }
  const auto inferShape = opgen_rt::FindInferShapeFunc(opType);
  const auto inferDtype = opgen_rt::FindInferDataTypeFunc(opType);
  if (inferShape == nullptr || inferDtype == nullptr) {
    return Keep(buffer, ErrorJson(ACLNN_ERR_INNER_INFERSHAPE_ERROR,
                                  std::string("IMPL_OP_INFERSHAPE(") + opType +
                                      ") registers no InferShape or no InferDataType function"));
  }
  gert::InferShapeContext shapes;
  gert::InferDataTypeContext dtypes;
  opgen_rt::InferContextBuilder::Fill(shapes, dtypes, opType, inputs, attrs, def->GetOutputs().size());
  if (inferShape(&shapes) != ge::GRAPH_SUCCESS) {
    return Keep(buffer, ErrorJson(ACLNN_ERR_INNER_INFERSHAPE_ERROR, "the InferShape function failed"));
  }
  if (inferDtype(&dtypes) != ge::GRAPH_SUCCESS) {
    return Keep(buffer, ErrorJson(ACLNN_ERR_INNER_INFERSHAPE_ERROR, "the InferDataType function failed"));
  }
  const auto &outShapes = opgen_rt::InferContextBuilder::Outputs(shapes);
  const auto &outDtypes = opgen_rt::InferContextBuilder::Outputs(dtypes);
  std::string outputs = "[";
  for (size_t i = 0; i < outShapes.size(); ++i) {
    std::string dims = "[";
    for (size_t k = 0; k < outShapes[i].GetDimNum(); ++k) {
      dims += (k == 0 ? "" : ", ") + std::to_string(outShapes[i].GetDim(k));
    }
    outputs += std::string(i == 0 ? "" : ", ") + "{\"shape\": " + dims + "], \"dtype\": " +
               opgen_rt::json::Quote(op::ToString(outDtypes[i]).GetString()) + "}";
  }
  outputs += "]";
  return Keep(buffer, "{\"status\": 0, \"message\": \"\", \"outputs\": " + outputs + "}");
}

const char *opgen_rt_pending_host_access(const char *api, const void *ptr, uint64_t bytes, int32_t hostWrite) {
  thread_local std::string buffer;
  return Keep(buffer, opgen_rt::PendingHostAccess(api == nullptr ? "host access" : api, ptr, static_cast<size_t>(bytes),
                                                  hostWrite != 0, opgen_rt::kAnyStream));
}

const char *opgen_rt_product_json(void) {
  thread_local std::string buffer;
  const opgen_rt::ProductInfo &p = opgen_rt::CurrentProduct();
  std::string atomics = "[";
  for (size_t i = 0; i < p.atomicAddDtypes.size(); ++i) {
    atomics += (i == 0 ? "" : ", ") + opgen_rt::json::Quote(DtypeIdName(p.atomicAddDtypes[i]));
  }
  atomics += "]";
  const auto soc = static_cast<op::SocVersion>(p.socVersion);
  std::string out =
      "{\"name\": " + opgen_rt::json::Quote(p.name) + ", \"config_name\": " + opgen_rt::json::Quote(p.configName) +
      ", \"soc_version\": " + opgen_rt::json::Quote(op::ToString(soc).GetString()) +
      ", \"soc_version_id\": " + std::to_string(p.socVersion) + ", \"npu_arch\": " + std::to_string(p.npuArch) +
      ", \"ub_bytes\": " + std::to_string(p.ubBytes) + ", \"ub_reserved_bytes\": " + std::to_string(p.ubReservedBytes) +
      ", \"vector_core_num\": " + std::to_string(p.vectorCoreNum) +
      ", \"cube_core_num\": " + std::to_string(op::GetCurrentPlatformInfo().GetCubeCoreNum()) +
      ", \"bf16\": " + (p.bf16 ? "true" : "false") + ", \"data_copy_pad\": " + (p.dataCopyPad ? "true" : "false") +
      ", \"atomic_add_dtypes\": " + atomics + ", \"queue_buffer_cap\": " + std::to_string(p.queueBufferCap) + "}";
  return Keep(buffer, out);
}

const char *opgen_rt_run_tiling_json(const char *opType, const char *requestJson) {
  thread_local std::string buffer;
  Value request;
  opgen_rt::TilingRequest tiling;
  const std::string error = ParseTilingRequest(opType, requestJson, request, tiling);
  if (!error.empty()) {
    return Keep(buffer, error);
  }
  opgen_rt::TilingResult result;
  opgen_rt::RunTiling(tiling, result);
  if (result.status != 0) {
    return Keep(buffer, ErrorJson(result.status, result.message));
  }
  std::string ws = "[";
  for (size_t i = 0; i < result.workspaceSizes.size(); ++i) {
    ws += (i == 0 ? "" : ", ") + std::to_string(result.workspaceSizes[i]);
  }
  ws += "]";
  const std::string out = "{\"status\": 0, \"message\": \"\", \"block_dim\": " + std::to_string(result.blockDim) +
                          ", \"tiling_key\": " + std::to_string(result.tilingKey) +
                          ", \"schedule_mode\": " + std::to_string(result.scheduleMode) +
                          ", \"workspace_sizes\": " + ws +
                          ", \"tiling_data_size\": " + std::to_string(result.tilingData.size()) + ", \"tiling\": " +
                          opgen_rt::TilingDataToJson(opgen_rt::FindTilingClassMeta(opType), result.tilingData.data(),
                                                     result.tilingData.size()) +
                          ", \"tiling_raw\": " + opgen_rt::json::Quote(Hex(result.tilingData)) + "}";
  return Keep(buffer, out);
}

const char *opgen_rt_probe_launch_json(const char *opType, const char *requestJson) {
  thread_local std::string buffer;
  Value request;
  opgen_rt::TilingRequest tiling;
  std::string error = ParseTilingRequest(opType, requestJson, request, tiling);
  if (!error.empty()) {
    return Keep(buffer, error);
  }
  std::vector<int32_t> cores;
  const Value *list = request.Find("cores");
  if (list == nullptr || list->type != Value::Type::ARRAY) {
    return Keep(buffer, ErrorJson(ACLNN_ERR_PARAM_INVALID, "\"cores\" must be a list of core indices"));
  }
  for (const Value &v : list->items) {
    if (v.type != Value::Type::NUMBER || !v.isInteger) {
      return Keep(buffer, ErrorJson(ACLNN_ERR_PARAM_INVALID, "\"cores\" must be a list of core indices"));
    }
    cores.push_back(static_cast<int32_t>(v.integer));
  }
  const opgen_rt::KernelInfo *kernel = opgen_rt::FindKernel(opType);
  if (kernel == nullptr || kernel->entry == nullptr) {
    return Keep(buffer,
                ErrorJson(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, std::string("no kernel is registered for ") + opType));
  }
  opgen_rt::TilingResult result;
  opgen_rt::RunTiling(tiling, result);
  if (result.status != 0) {
    return Keep(buffer, ErrorJson(result.status, result.message));
  }
  const ops::OpDef *def = ops::FindOpDef(opType);
  if (def != nullptr && (def->GetInputs().size() != tiling.inputs.size() ||
                         def->GetOutputs().size() != tiling.outputs.size())) {
    return Keep(buffer, ErrorJson(ACLNN_ERR_PARAM_INVALID,
                                  "the request has " + std::to_string(tiling.inputs.size()) + " inputs and " +
                                      std::to_string(tiling.outputs.size()) + " outputs; the kernel of " + opType +
                                      " takes " + std::to_string(def->GetInputs().size()) + " and " +
                                      std::to_string(def->GetOutputs().size())));
  }
  opgen_rt::LaunchRequest launch;
  launch.kernelName = kernel->kernelName;
  launch.opType = opType;
  launch.entry = kernel->entry;
  launch.blockDim = result.blockDim;
  launch.tilingKey = result.tilingKey;
  launch.probe = true;
  launch.probeCores = cores;
  if (const Value *limit = request.Find("max_accesses")) {
    if (limit->type != Value::Type::NUMBER || !limit->isInteger || limit->integer < 0) {
      return Keep(buffer, ErrorJson(ACLNN_ERR_PARAM_INVALID, "\"max_accesses\" must be a non-negative integer"));
    }
    launch.probeMaxAccesses = limit->uinteger;
  }
  std::vector<std::pair<void *, uint64_t>> maps;  // the reservations, unmapped before returning
  bool reserved = true;
  auto reserve = [&](uint64_t bytes) -> uint8_t * {
    // Address space only: PROT_NONE and MAP_NORESERVE commit no memory; the probe never touches it.
    void *p = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      reserved = false;
      return nullptr;
    }
    maps.emplace_back(p, bytes);
    return static_cast<uint8_t *>(p);
  };
  auto addTensors = [&](const std::vector<opgen_rt::TilingTensorDesc> &descs, bool output) {
    for (size_t i = 0; i < descs.size(); ++i) {
      const opgen_rt::TilingTensorDesc &d = descs[i];
      const int64_t elements = d.storageShape.GetShapeSize();
      const uint64_t bytes = d.present && elements > 0 ? static_cast<uint64_t>(elements) * op::TypeSize(d.dataType) : 0;
      uint8_t *base = bytes > 0 ? reserve(bytes) : nullptr;
      launch.args.push_back(d.present ? base : nullptr);
      if (base != nullptr) {
        std::string name = (output ? "output " : "input ") + std::to_string(i);
        if (def != nullptr) {
          const auto &params = output ? def->GetOutputs() : def->GetInputs();
          if (i < params.size()) {
            name += " (" + params[i].Name() + ")";
          }
        }
        launch.regions.push_back(opgen_rt::GmRegion{name, base, bytes, output});
      }
    }
  };
  addTensors(tiling.inputs, false);
  addTensors(tiling.outputs, true);
  uint64_t wsBytes = 0;
  for (uint64_t w : result.workspaceSizes) {
    wsBytes += w;
  }
  uint8_t *ws = wsBytes > 0 ? reserve(wsBytes) : nullptr;
  launch.args.push_back(ws);
  if (ws != nullptr) {
    const uint64_t sys = std::min<uint64_t>(opgen_rt::CurrentProduct().sysWorkspaceBytes, wsBytes);
    if (sys > 0) {
      launch.regions.push_back(opgen_rt::GmRegion{"system workspace", ws, sys, false});
    }
    if (wsBytes > sys) {
      launch.regions.push_back(opgen_rt::GmRegion{"workspace", ws + sys, wsBytes - sys, true});
    }
  }
  std::vector<uint8_t> tilingCopy(result.tilingData);  // real memory: the kernel's GET_TILING_DATA reads it
  launch.args.push_back(tilingCopy.empty() ? nullptr : tilingCopy.data());
  if (!tilingCopy.empty()) {
    launch.regions.push_back(opgen_rt::GmRegion{"tiling", tilingCopy.data(), tilingCopy.size(), false});
  }
  opgen_rt::LaunchResult run;
  if (reserved) {
    run = opgen_rt::RunKernel(launch);
  }
  for (const auto &m : maps) {
    munmap(m.first, m.second);
  }
  if (!reserved) {
    return Keep(buffer, ErrorJson(ACLNN_ERR_RUNTIME_ERROR, "cannot reserve the address space of the probe's tensors"));
  }
  auto span = [](uint64_t lo, uint64_t hi) {
    return lo > hi ? std::string("null") : "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  };
  std::string spans = "[";
  for (size_t k = 0; k < run.probe.size(); ++k) {
    const opgen_rt::ProbeSpan &p = run.probe[k];
    spans += std::string(k == 0 ? "" : ", ") + "{\"core\": " + std::to_string(p.core) +
             ", \"region\": " + opgen_rt::json::Quote(launch.regions[p.region].name) +
             ", \"read\": " + span(p.readLo, p.readHi) + ", \"write\": " + span(p.writeLo, p.writeHi) + "}";
  }
  spans += "]";
  std::string stopped = "[";
  for (size_t k = 0; k < run.probeStopped.size(); ++k) {
    stopped += (k == 0 ? "" : ", ") + std::to_string(run.probeStopped[k]);
  }
  stopped += "]";
  const std::string out =
      "{\"status\": 0, \"message\": \"\", \"block_dim\": " + std::to_string(result.blockDim) +
      ", \"tiling_key\": " + std::to_string(result.tilingKey) + ", \"tiling\": " +
      opgen_rt::TilingDataToJson(opgen_rt::FindTilingClassMeta(opType), result.tilingData.data(),
                                 result.tilingData.size()) +
      ", \"ok\": " + (run.ok ? "true" : "false") + ", \"fault\": " +
      (run.ok ? std::string("null") : opgen_rt::json::Quote(run.fault)) + ", \"spans\": " + spans +
      ", \"stopped\": " + stopped + "}";
  return Keep(buffer, out);
}

}  // extern "C"
