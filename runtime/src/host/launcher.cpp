// ascend-opgen host emulation: AICore kernel launches (ADD_TO_LAUNCHER_LIST_AICORE). Phase 1 checks the
// launch against the OpDef, runs the tiling and records the launch; phase 2 hands it to
// opgen_rt::RunKernel (the device side) with one GM region per tensor, the workspace and the tiling data.
#include <algorithm>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "dtype_convert.h"
#include "executor_state.h"
#include "infer_context.h"
#include "opdev/data_type_utils.h"
#include "opdev/format_utils.h"
#include "opdev/op_executor.h"
#include "opdev/op_log.h"
#include "opdev/shape_utils.h"
#include "opgen_rt/core.h"
#include "register/op_def_registry.h"
#include "registry.h"
#include "tiling_runner.h"

namespace opgen_rt {
namespace {

constexpr uint64_t kWorkspaceAlignment = 512;

bool AttrMatches(ops::AttrDataType declared, AttrValue::Kind given) {
  using K = AttrValue::Kind;
  switch (declared) {
    case ops::AttrDataType::ATTR_DT_INT:
      return given == K::INT || given == K::UINT;
    case ops::AttrDataType::ATTR_DT_BOOL:
      return given == K::BOOL;
    case ops::AttrDataType::ATTR_DT_FLOAT:
      return given == K::FLOAT || given == K::DOUBLE;
    case ops::AttrDataType::ATTR_DT_STR:
      return given == K::STRING;
    case ops::AttrDataType::ATTR_DT_LIST_INT:
      return given == K::LIST_INT;
    case ops::AttrDataType::ATTR_DT_LIST_FLOAT:
      return given == K::LIST_FLOAT;
    case ops::AttrDataType::ATTR_DT_LIST_BOOL:
      return given == K::LIST_BOOL;
    default:
      return true;
  }
}

std::string Names(const std::deque<ops::OpParamDef> &params) {
  std::string out;
  for (const auto &p : params) {
    out += (out.empty() ? "" : ", ") + p.Name();
  }
  return out;
}

const ops::OpParamDef &ConfigParam(const std::deque<ops::OpParamDef> &configParams, const ops::OpParamDef &opParam) {
  for (const auto &p : configParams) {
    if (p.Name() == opParam.Name()) {
      return p;
    }
  }
  return opParam;
}

bool FormatsCompatible(ge::Format declared, ge::Format given) {
  return declared == given || (!op::IsPrivateFormat(declared) && !op::IsPrivateFormat(given));
}

// Does `tensor` fit column `col` of `param`?
bool ParamAccepts(const ops::OpParamDef &param, size_t col, const aclTensor *tensor) {
  const ge::DataType dtype = tensor->GetDataType();
  if (!param.GetDataTypeList().empty()) {
    const auto &list = param.GetDataTypeList();
    if (std::find(list.begin(), list.end(), dtype) == list.end()) {
      return false;
    }
  } else if (col >= param.GetDataTypes().size() || param.GetDataTypes()[col] != dtype) {
    return false;
  }
  const ge::Format format = tensor->GetStorageFormat();
  if (!param.GetFormatList().empty()) {
    for (ge::Format f : param.GetFormatList()) {
      if (FormatsCompatible(f, format)) {
        return true;
      }
    }
    return false;
  }
  if (col < param.GetFormats().size()) {
    return FormatsCompatible(param.GetFormats()[col], format);
  }
  return true;
}

const aclTensorList *ListAt(const std::vector<const aclTensorList *> &lists, size_t i) {
  return i < lists.size() ? lists[i] : nullptr;
}

std::string ComboText(const KernelLaunchArgs &args) {
  const auto &ins = args.inputs;
  const auto &outs = args.outputs;
  std::string text = "(";
  for (size_t i = 0; i < ins.size() + outs.size(); ++i) {
    const bool in = i < ins.size();
    const aclTensor *t = in ? ins[i] : outs[i - ins.size()];
    const aclTensorList *list = in ? ListAt(args.inputLists, i) : ListAt(args.outputLists, i - ins.size());
    std::string item = t == nullptr ? "absent" : op::ToString(t->GetDataType()).GetString();
    if (list != nullptr) {
      item = "list of " + std::to_string(list->Size());
      for (uint64_t k = 0; k < list->Size(); ++k) {
        const aclTensor *e = (*list)[k];
        item += (k == 0 ? " " : "/") + std::string(e == nullptr ? "null" : op::ToString(e->GetDataType()).GetString());
        if (k == 3 && list->Size() > 4) {
          item += "/...";
          break;
        }
      }
    }
    text += (i == 0 ? "" : ", ") + item;
    if (i + 1 == ins.size()) {
      text += " ->";
    }
  }
  return text + ")";
}

// Does argument `t` (or, for a list, every tensor of `list`) fit column `col` of `param`?
bool ArgAccepts(const ops::OpParamDef &param, size_t col, const aclTensor *t, const aclTensorList *list) {
  if (list == nullptr) {
    return t == nullptr || ParamAccepts(param, col, t);
  }
  for (uint64_t k = 0; k < list->Size(); ++k) {
    if (!ParamAccepts(param, col, (*list)[k])) {
      return false;
    }
  }
  return true;
}

// A DYNAMIC parameter takes a tensor list (OP_INPUT / OP_OUTPUT of an aclTensorList) with no null element,
// any other parameter a tensor.
aclnnStatus CheckListArgument(const char *opType, const char *role, size_t i, const ops::OpParamDef &param,
                              const aclTensorList *list) {
  const bool dynamic = param.GetParamType() == ops::DYNAMIC;
  if (dynamic != (list != nullptr)) {
    OP_LOGE(ACLNN_ERR_INNER, "%s %s %zu (%s) is %s, but ADD_TO_LAUNCHER_LIST_AICORE passes %s.", opType, role, i,
            param.Name().c_str(), dynamic ? "DYNAMIC (a tensor list)" : "not DYNAMIC",
            dynamic ? "no aclTensorList" : "an aclTensorList");
    return ACLNN_ERR_INNER;
  }
  for (uint64_t k = 0; list != nullptr && k < list->Size(); ++k) {
    if ((*list)[k] == nullptr) {
      OP_LOGE(ACLNN_ERR_INNER, "%s %s %zu (%s): tensor %llu of the list is nullptr.", opType, role, i,
              param.Name().c_str(), static_cast<unsigned long long>(k));
      return ACLNN_ERR_INNER;
    }
  }
  return ACLNN_SUCCESS;
}

// Checks the launch against the op's OpDef; on mismatch reports and returns the status.
aclnnStatus CheckAgainstOpDef(const char *opType, const KernelLaunchArgs &args, const ops::OpDef &def,
                              std::vector<std::pair<size_t, uint64_t>> &initValues, std::vector<std::string> &inNames,
                              std::vector<std::string> &outNames) {
  const auto &defIns = def.GetInputs();
  const auto &defOuts = def.GetOutputs();
  const auto &defAttrs = def.GetAttrs();
  if (args.inputs.size() != defIns.size() || args.outputs.size() != defOuts.size()) {
    OP_LOGE(ACLNN_ERR_INNER,
            "ADD_TO_LAUNCHER_LIST_AICORE(%s) passes %zu inputs and %zu outputs, but the OpDef declares %zu inputs "
            "(%s) and %zu outputs (%s).",
            opType, args.inputs.size(), args.outputs.size(), defIns.size(), Names(defIns).c_str(), defOuts.size(),
            Names(defOuts).c_str());
    return ACLNN_ERR_INNER;
  }
  if (args.attrs.size() != defAttrs.size()) {
    OP_LOGE(ACLNN_ERR_INNER, "ADD_TO_LAUNCHER_LIST_AICORE(%s) passes %zu attributes, but the OpDef declares %zu.",
            opType, args.attrs.size(), defAttrs.size());
    return ACLNN_ERR_INNER;
  }
  for (size_t i = 0; i < defAttrs.size(); ++i) {
    if (!AttrMatches(defAttrs[i].GetDataType(), args.attrs[i].kind)) {
      OP_LOGE(ACLNN_ERR_INNER, "%s attribute %zu (%s) is given as %s, which does not match its OpDef type.", opType, i,
              defAttrs[i].Name().c_str(), args.attrs[i].KindName());
      return ACLNN_ERR_INNER;
    }
  }
  for (size_t i = 0; i < defIns.size(); ++i) {
    inNames.push_back(defIns[i].Name());
    const aclnnStatus listStatus = CheckListArgument(opType, "input", i, defIns[i], ListAt(args.inputLists, i));
    if (listStatus != ACLNN_SUCCESS) {
      return listStatus;
    }
    if (args.inputs[i] == nullptr && defIns[i].GetParamType() == ops::REQUIRED) {
      OP_LOGE(ACLNN_ERR_INNER, "%s input %zu (%s) is REQUIRED but nullptr was passed.", opType, i,
              defIns[i].Name().c_str());
      return ACLNN_ERR_INNER;
    }
  }
  for (size_t i = 0; i < defOuts.size(); ++i) {
    outNames.push_back(defOuts[i].Name());
    const aclnnStatus listStatus = CheckListArgument(opType, "output", i, defOuts[i], ListAt(args.outputLists, i));
    if (listStatus != ACLNN_SUCCESS) {
      return listStatus;
    }
    if (args.outputs[i] == nullptr && ListAt(args.outputLists, i) == nullptr) {
      OP_LOGE(ACLNN_ERR_INNER, "%s output %zu (%s) is nullptr.", opType, i, defOuts[i].Name().c_str());
      return ACLNN_ERR_INNER;
    }
  }
  const ProductInfo &product = CurrentProduct();
  const ops::OpAICoreDef::Config *config = def.GetAICore().FindConfig(product.configName);
  if (config == nullptr) {
    OP_LOGE(ACLNN_ERR_INNER_FIND_KERNEL_ERROR,
            "%s has no AICore config for %s (%s): the OpDef never calls "
            "AICore().AddConfig(\"%s\").",
            opType, product.name, product.configName, product.configName);
    return ACLNN_ERR_INNER_FIND_KERNEL_ERROR;
  }
  const std::deque<ops::OpParamDef> empty;
  const auto &cfgIns = config->hasConfig ? config->config.GetInputs() : empty;
  const auto &cfgOuts = config->hasConfig ? config->config.GetOutputs() : empty;
  size_t columns = 0;
  for (size_t i = 0; i < defIns.size() + defOuts.size(); ++i) {
    const ops::OpParamDef &p =
        i < defIns.size() ? ConfigParam(cfgIns, defIns[i]) : ConfigParam(cfgOuts, defOuts[i - defIns.size()]);
    columns = std::max(columns, p.GetDataTypes().size());
  }
  columns = std::max<size_t>(columns, 1);
  bool found = false;
  for (size_t col = 0; col < columns && !found; ++col) {
    found = true;
    for (size_t i = 0; i < defIns.size() && found; ++i) {
      found = ArgAccepts(ConfigParam(cfgIns, defIns[i]), col, args.inputs[i], ListAt(args.inputLists, i));
    }
    for (size_t i = 0; i < defOuts.size() && found; ++i) {
      found = ArgAccepts(ConfigParam(cfgOuts, defOuts[i]), col, args.outputs[i], ListAt(args.outputLists, i));
    }
  }
  if (!found) {
    std::string supported;
    for (size_t col = 0; col < columns; ++col) {
      supported += col == 0 ? "(" : "; (";
      for (size_t i = 0; i < defIns.size() + defOuts.size(); ++i) {
        const ops::OpParamDef &p =
            i < defIns.size() ? ConfigParam(cfgIns, defIns[i]) : ConfigParam(cfgOuts, defOuts[i - defIns.size()]);
        const auto &types = p.GetDataTypes();
        supported +=
            (i == 0 ? "" : ", ") + std::string(col < types.size() ? op::ToString(types[col]).GetString() : "any");
        if (i + 1 == defIns.size()) {
          supported += " ->";
        }
      }
      supported += ")";
    }
    OP_LOGE(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, "no %s kernel for dtypes %s on %s; the OpDef supports %s.", opType,
            ComboText(args).c_str(), product.name, supported.c_str());
    return ACLNN_ERR_INNER_FIND_KERNEL_ERROR;
  }
  for (size_t i = 0; i < defOuts.size(); ++i) {
    const ops::OpParamDef &p = ConfigParam(cfgOuts, defOuts[i]);
    if (p.HasInitValue()) {
      initValues.emplace_back(i, p.GetInitValue());
    }
  }
  return ACLNN_SUCCESS;
}

TilingTensorDesc DescOf(const aclTensor *t) {
  TilingTensorDesc d;
  if (t == nullptr) {
    return d;
  }
  d.present = true;
  d.originShape = t->GetViewShape();
  d.storageShape = t->GetViewShape();
  d.dataType = t->GetDataType();
  d.originFormat = t->GetOriginalFormat();
  d.storageFormat = t->GetStorageFormat();
  return d;
}

uint64_t TensorBytes(const aclTensor *t) {
  return static_cast<uint64_t>(t->Size()) * op::TypeSize(t->GetDataType());
}

std::string DimsText(const gert::Shape &s) {
  std::string out = "[";
  for (size_t k = 0; k < s.GetDimNum(); ++k) {
    out += (k == 0 ? "" : ", ") + std::to_string(s.GetDim(k));
  }
  return out + "]";
}

bool SameDims(const gert::Shape &a, const gert::Shape &b) {
  if (a.GetDimNum() != b.GetDimNum()) {
    return false;
  }
  for (size_t k = 0; k < a.GetDimNum(); ++k) {
    if (a.GetDim(k) != b.GetDim(k)) {
      return false;
    }
  }
  return true;
}

// The op's registered InferShape and InferDataType (IMPL_OP_INFERSHAPE), run on the launch's inputs and
// attributes, must give the outputs the L0 API allocated: in graph mode those functions, not the L0 API,
// decide the output tensors the kernel writes, so a mismatch is a wrong shape (or an out-of-bounds write)
// there. An op without them (no graph mode) is not checked. An output the L0 API launches with no element
// is one the aclnn caller passed as null (ops-nn's AddRmsNorm L0 allocates such outputs with shape {0}) or an
// empty one: graph mode always has it, the kernel must not write it (any write is out of the GM bounds of
// zero bytes), so its shape is not compared (an inferred shape with no element, [0, 1] beside a launched
// {0}, holds no byte either); its dtype is.
aclnnStatus CheckAgainstInferShape(const char *opType, const KernelLaunchArgs &args,
                                   const std::vector<std::string> &outNames) {
  const auto inferShape = FindInferShapeFunc(opType);
  const auto inferDtype = FindInferDataTypeFunc(opType);
  if (inferShape == nullptr || inferDtype == nullptr) {
    return ACLNN_SUCCESS;
  }
  // Instances: a tensor argument is one, a list argument (a DYNAMIC input or output) one per tensor, in order.
  std::vector<TilingTensorDesc> inputs;
  std::vector<size_t> instances;
  for (size_t i = 0; i < args.inputs.size(); ++i) {
    const aclTensorList *list = ListAt(args.inputLists, i);
    if (list == nullptr) {
      inputs.push_back(DescOf(args.inputs[i]));
      instances.push_back(1);
      continue;
    }
    for (uint64_t k = 0; k < list->Size(); ++k) {
      inputs.push_back(DescOf((*list)[k]));
    }
    instances.push_back(static_cast<size_t>(list->Size()));
  }
  std::vector<const aclTensor *> outs;  // every output instance
  std::vector<std::string> outLabels;
  for (size_t i = 0; i < args.outputs.size(); ++i) {
    const std::string name = i < outNames.size() ? outNames[i] : "output" + std::to_string(i);
    const aclTensorList *list = ListAt(args.outputLists, i);
    if (list == nullptr) {
      outs.push_back(args.outputs[i]);
      outLabels.push_back(name);
      continue;
    }
    for (uint64_t k = 0; k < list->Size(); ++k) {
      outs.push_back((*list)[k]);
      outLabels.push_back(name + "[" + std::to_string(k) + "]");
    }
  }
  gert::InferShapeContext shapes;
  gert::InferDataTypeContext dtypes;
  InferContextBuilder::FillInstances(shapes, dtypes, opType, inputs, instances, args.attrs, outs.size());
  if (inferShape(&shapes) != ge::GRAPH_SUCCESS || inferDtype(&dtypes) != ge::GRAPH_SUCCESS) {
    OP_LOGE(ACLNN_ERR_INNER_INFERSHAPE_ERROR,
            "%s: the registered InferShape or InferDataType fails on the inputs of a launch the L0 API makes "
            "(%s); graph mode could not run this call.",
            opType, ComboText(args).c_str());
    return ACLNN_ERR_INNER_INFERSHAPE_ERROR;
  }
  const auto &gotShapes = InferContextBuilder::Outputs(shapes);
  const auto &gotDtypes = InferContextBuilder::Outputs(dtypes);
  for (size_t i = 0; i < outs.size() && i < gotShapes.size(); ++i) {
    const aclTensor *out = outs[i];
    if (out == nullptr) {
      continue;
    }
    const std::string &name = outLabels[i];
    const bool absent = out->GetViewShape().GetShapeSize() == 0;
    if ((!absent && !SameDims(gotShapes[i], out->GetViewShape())) || gotDtypes[i] != out->GetDataType()) {
      OP_LOGE(ACLNN_ERR_INNER_INFERSHAPE_ERROR,
              "%s output %s: the registered InferShape/InferDataType give %s %s, the L0 API launches %s %s (in "
              "graph mode the kernel would write the inferred tensor).",
              opType, name.c_str(), DimsText(gotShapes[i]).c_str(), op::ToString(gotDtypes[i]).GetString(),
              DimsText(out->GetViewShape()).c_str(), op::ToString(out->GetDataType()).GetString());
      return ACLNN_ERR_INNER_INFERSHAPE_ERROR;
    }
  }
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus AddAiCoreKernelLaunch(const char *opType, aclOpExecutor *executor, KernelLaunchArgs &&args) {
  if (executor == nullptr) {
    OP_LOGE(ACLNN_ERR_INNER_NULLPTR, "ADD_TO_LAUNCHER_LIST_AICORE(%s): executor is nullptr.", opType);
    return ACLNN_ERR_INNER_NULLPTR;
  }
  if (args.hasOutshape) {
    OP_LOGE(ACLNN_ERR_INNER, "ADD_TO_LAUNCHER_LIST_AICORE(%s): OP_OUTSHAPE is not supported by this emulation.",
            opType);
    return ACLNN_ERR_INNER;
  }
  const KernelInfo *kernel = FindKernel(opType);
  if (kernel == nullptr || kernel->entry == nullptr) {
    OP_LOGE(ACLNN_ERR_INNER_FIND_KERNEL_ERROR,
            "no kernel is registered for OpType %s (the library's glue must OPGEN_RT_REGISTER_KERNEL it).", opType);
    return ACLNN_ERR_INNER_FIND_KERNEL_ERROR;
  }
  LaunchTask task;
  task.opType = opType;
  task.kernelName = kernel->kernelName;
  task.entry = kernel->entry;
  const ops::OpDef *def = ops::FindOpDef(opType);
  if (def != nullptr) {
    aclnnStatus ret = CheckAgainstOpDef(opType, args, *def, task.outputInitValues, task.inputNames, task.outputNames);
    if (ret == ACLNN_SUCCESS) {
      ret = CheckAgainstInferShape(opType, args, task.outputNames);
    }
    if (ret != ACLNN_SUCCESS) {
      return ret;
    }
  } else {
    OP_LOGW("%s has no registered OpDef; the launch is not checked against one.", opType);
    for (size_t i = 0; i < args.inputs.size(); ++i) {
      task.inputNames.push_back("input" + std::to_string(i));
    }
    for (size_t i = 0; i < args.outputs.size(); ++i) {
      task.outputNames.push_back("output" + std::to_string(i));
    }
  }
  for (size_t i = 0; i < args.inputs.size() + args.outputs.size(); ++i) {
    const bool isInput = i < args.inputs.size();
    const size_t slot = isInput ? i : i - args.inputs.size();
    const aclTensorList *list = isInput ? ListAt(args.inputLists, slot) : ListAt(args.outputLists, slot);
    const std::string &base = isInput ? task.inputNames[slot] : task.outputNames[slot];
    const uint64_t count = list != nullptr ? list->Size() : 1;
    for (uint64_t k = 0; k < count; ++k) {
      const aclTensor *t = list != nullptr ? (*list)[k] : (isInput ? args.inputs[slot] : args.outputs[slot]);
      if (t == nullptr) {
        continue;
      }
      const std::string name = list != nullptr ? base + "[" + std::to_string(k) + "]" : base;
      if (op::TypeSize(t->GetDataType()) == 0) {
        OP_LOGE(ACLNN_ERR_INNER, "%s %s has unsupported dtype %s.", opType, name.c_str(),
                op::ToString(t->GetDataType()).GetString());
        return ACLNN_ERR_INNER;
      }
      if (!t->IsContiguous()) {
        OP_LOGE(ACLNN_ERR_INNER,
                "%s %s is not contiguous (shape %s, strides %s): kernels read tensors as contiguous memory; pass "
                "it through l0op::Contiguous first.",
                opType, name.c_str(), op::ToString(t->GetViewShape()).GetString(),
                op::ToString(t->GetViewStrides()).GetString());
        return ACLNN_ERR_INNER;
      }
    }
  }

  TilingRequest request;
  request.opType = opType;
  // One instance per tensor, a list's tensors in order (instance counts only when the launch has a list).
  auto addDescs = [](std::vector<TilingTensorDesc> &into, std::vector<uint32_t> &counts,
                     const std::vector<const aclTensor *> &tensors, const std::vector<const aclTensorList *> &lists) {
    for (size_t i = 0; i < tensors.size(); ++i) {
      const aclTensorList *list = ListAt(lists, i);
      if (list == nullptr) {
        into.push_back(DescOf(tensors[i]));
        counts.push_back(1);
        continue;
      }
      for (uint64_t k = 0; k < list->Size(); ++k) {
        into.push_back(DescOf((*list)[k]));
      }
      counts.push_back(static_cast<uint32_t>(list->Size()));
    }
    const auto isList = [](const aclTensorList *l) { return l != nullptr; };
    if (std::none_of(lists.begin(), lists.end(), isList)) {
      counts.clear();
    }
  };
  addDescs(request.inputs, request.inputInstances, args.inputs, args.inputLists);
  addDescs(request.outputs, request.outputInstances, args.outputs, args.outputLists);
  request.attrs = args.attrs;
  request.deterministic = static_cast<int32_t>(DeterministicOption());
  TilingResult tiling;
  RunTiling(request, tiling);
  if (tiling.status != ACLNN_SUCCESS) {
    OP_LOGE(tiling.status, "%s", tiling.message.c_str());
    return tiling.status;
  }

  ExecutorState &state = *ExecutorAccess::State(executor);
  task.blockDim = tiling.blockDim;
  task.tilingKey = tiling.tilingKey;
  task.scheduleMode = tiling.scheduleMode;
  task.needAtomic = tiling.needAtomic;
  task.tilingData = std::move(tiling.tilingData);
  task.workspaceSizes = tiling.workspaceSizes;
  for (uint64_t w : task.workspaceSizes) {
    task.workspaceBytes += w;
  }
  if (!args.workspaces.empty()) {
    const aclTensor *ws = args.workspaces.front();
    if (ws == nullptr || TensorBytes(ws) < task.workspaceBytes) {
      OP_LOGE(ACLNN_ERR_INNER_TILING_ERROR,
              "%s: the tiling asks for %llu workspace bytes, but OP_WORKSPACE gives %llu.", opType,
              static_cast<unsigned long long>(task.workspaceBytes),
              static_cast<unsigned long long>(ws == nullptr ? 0 : TensorBytes(ws)));
      return ACLNN_ERR_INNER_TILING_ERROR;
    }
    task.workspaceTensor = state.Pin(ws);
  } else if (task.workspaceBytes > 0) {
    task.workspaceOffset = (state.workspaceSize + kWorkspaceAlignment - 1) / kWorkspaceAlignment * kWorkspaceAlignment;
    state.workspaceSize = task.workspaceOffset + task.workspaceBytes;
  }
  auto pin = [&state](std::vector<const aclTensor *> &into, std::vector<bool> &isList,
                      std::vector<std::vector<const aclTensor *>> &elements, const std::vector<const aclTensor *> &from,
                      const std::vector<const aclTensorList *> &lists) {
    for (size_t i = 0; i < from.size(); ++i) {
      const aclTensorList *list = ListAt(lists, i);
      into.push_back(state.Pin(from[i]));
      isList.push_back(list != nullptr);
      elements.emplace_back();
      for (uint64_t k = 0; list != nullptr && k < list->Size(); ++k) {
        elements.back().push_back(state.Pin((*list)[k]));
      }
    }
  };
  pin(task.inputs, task.inputIsList, task.inputLists, args.inputs, args.inputLists);
  pin(task.outputs, task.outputIsList, task.outputLists, args.outputs, args.outputLists);
  state.tasks.emplace_back(std::move(task));
  return ACLNN_SUCCESS;
}

aclnnStatus RunLaunchTask(const LaunchTask &task, uint8_t *workspace, LaunchStatsRecord &stats,
                          std::vector<HostTaskStatsRecord> &hostStats) {
  stats.opType = task.opType;
  stats.kernelName = task.kernelName;
  stats.blockDim = task.blockDim;
  stats.tilingKey = task.tilingKey;
  stats.workspaceBytes = task.workspaceBytes;
  stats.tilingData = task.tilingData;

  const bool listing = ListingTilingKeys();  // no kernel runs, so nothing is written for one
  for (const aclTensor *out : task.poisonFirst) {  // a copy planned away: the fresh output it replaces
    if (out->GetData() != nullptr && !listing) {
      std::memset(out->GetData(), 0xFF, static_cast<size_t>(TensorBytes(out)));
    }
  }
  // InitValue initialises an output only when the tiling called SetNeedAtomic(true) (CANN's InitValue and
  // SetNeedAtomic documentation: used together, otherwise the initialisation does not take effect).
  for (const auto &init : task.outputInitValues) {
    if (!task.needAtomic || listing) {
      break;
    }
    std::vector<const aclTensor *> targets{task.outputs[init.first]};
    if (task.outputIsList[init.first]) {
      targets = task.outputLists[init.first];
    }
    for (const aclTensor *out : targets) {
      const size_t elem = op::TypeSize(out->GetDataType());
      auto *data = static_cast<uint8_t *>(out->GetData());
      ElementValue value;
      value.kind = ElementValue::Kind::UNSIGNED;
      value.u = init.second;
      for (int64_t i = 0; data != nullptr && i < out->Size(); ++i) {
        WriteElement(data + i * static_cast<int64_t>(elem), out->GetDataType(), value);
      }
      HostTaskStatsRecord record;
      record.kind = "InitValue";
      record.bytesWritten = TensorBytes(out);
      hostStats.push_back(record);
    }
  }

  LaunchRequest request;
  request.kernelName = task.kernelName;
  request.opType = task.opType;
  request.entry = task.entry;
  request.blockDim = task.blockDim;
  request.tilingKey = task.tilingKey;
  auto addTensor = [&request](const aclTensor *t, const std::string &label, bool writable) {
    uint8_t *data = t == nullptr ? nullptr : static_cast<uint8_t *>(t->GetData());
    request.args.push_back(data);
    if (t != nullptr && data != nullptr && TensorBytes(t) > 0) {
      GmRegion region;
      region.name = label;
      region.base = data;
      region.bytes = TensorBytes(t);
      region.writable = writable;
      request.regions.push_back(region);
    }
  };
  // A list: its descriptor (kept here until the launch returns) and one region per tensor.
  std::deque<std::vector<uint64_t>> descriptors;
  auto addList = [&request, &descriptors](const std::vector<const aclTensor *> &tensors, const std::string &prefix,
                                          const std::string &name, bool writable) {
    std::vector<ListElement> elements;
    for (const aclTensor *t : tensors) {
      ListElement e;
      e.data = t->GetData();
      for (size_t d = 0; d < t->GetStorageShape().GetDimNum(); ++d) {
        e.dims.push_back(t->GetStorageShape().GetDim(d));
      }
      e.bytes = TensorBytes(t);
      elements.push_back(std::move(e));
    }
    descriptors.emplace_back();
    AddListArgument(request, prefix, name, elements, writable, descriptors.back());
  };
  for (size_t i = 0; i < task.inputs.size(); ++i) {
    if (task.inputIsList[i]) {
      addList(task.inputLists[i], "input " + std::to_string(i), task.inputNames[i], false);
      continue;
    }
    addTensor(task.inputs[i], "input " + std::to_string(i) + " (" + task.inputNames[i] + ")", false);
  }
  for (size_t i = 0; i < task.outputs.size(); ++i) {
    if (task.outputIsList[i]) {
      addList(task.outputLists[i], "output " + std::to_string(i), task.outputNames[i], true);
      continue;
    }
    addTensor(task.outputs[i], "output " + std::to_string(i) + " (" + task.outputNames[i] + ")", true);
  }
  uint8_t *ws = nullptr;
  if (task.workspaceTensor != nullptr) {
    ws = static_cast<uint8_t *>(task.workspaceTensor->GetData());
  } else if (task.workspaceBytes > 0) {
    ws = workspace + task.workspaceOffset;
  }
  request.args.push_back(ws);
  if (ws != nullptr && task.workspaceBytes > 0) {
    // The workspace argument points at the system workspace (RESERVED_WORKSPACE bytes, which the tiling adds
    // through GetLibApiWorkSpaceSize()); it belongs to the AscendC library, so it is read-only to the kernel.
    const uint64_t sys = std::min<uint64_t>(opgen_rt::CurrentProduct().sysWorkspaceBytes, task.workspaceBytes);
    if (sys > 0) {
      GmRegion region;
      region.name = "system workspace";
      region.base = ws;
      region.bytes = sys;
      region.writable = false;
      request.regions.push_back(region);
    }
    if (task.workspaceBytes > sys) {
      GmRegion region;
      region.name = "workspace";
      region.base = ws + sys;
      region.bytes = task.workspaceBytes - sys;
      region.writable = true;
      request.regions.push_back(region);
    }
  }
  // The kernel reads a private copy of the tiling data.
  std::vector<uint8_t> tilingCopy(task.tilingData);
  request.args.push_back(tilingCopy.empty() ? nullptr : tilingCopy.data());
  if (!tilingCopy.empty()) {
    GmRegion region;
    region.name = "tiling";
    region.base = tilingCopy.data();
    region.bytes = tilingCopy.size();
    region.writable = false;
    request.regions.push_back(region);
  }

  LaunchResult result = RunKernel(request);
  stats.ok = result.ok;
  stats.fault = result.fault;
  stats.cores = result.cores;
  stats.notes = result.notes;
  if (!result.ok) {
    OP_LOGE(ACLNN_ERR_RUNTIME_ERROR, "%s", result.fault.c_str());
    return ACLNN_ERR_RUNTIME_ERROR;
  }
  return ACLNN_SUCCESS;
}

}  // namespace opgen_rt
