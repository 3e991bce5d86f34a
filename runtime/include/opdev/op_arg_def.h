// ascend-opgen host emulation of CANN's opdev/op_arg_def.h: the argument groups of an L0 kernel launch.
//
//   ADD_TO_LAUNCHER_LIST_AICORE(OpType, OP_INPUT(x, y), OP_OUTPUT(out), OP_ATTR(reduction));
//
// OP_INPUT / OP_OUTPUT take tensors (const aclTensor *, aclTensor *, or nullptr for an absent optional
// input) and tensor lists (aclTensorList *, const aclTensorList *: an OpDef DYNAMIC input or output), OP_ATTR takes attribute values (integers, bool, float, double, const char * / std::string,
// aclIntArray *, aclFloatArray *, aclBoolArray *, op::DataType), OP_WORKSPACE takes tensors that serve as the
// kernel's workspace. OP_OPTION, OP_MODE and OP_EMPTY_ARG are accepted and ignored.
#ifndef OPGEN_OPDEV_OP_ARG_DEF_H
#define OPGEN_OPDEV_OP_ARG_DEF_H

#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "opdev/common_types.h"
#include "opgen_rt/attr_value.h"

namespace op {

enum OpArgDef {
  OP_INPUT_ARG = 0,
  OP_OUTPUT_ARG = 1,
  OP_ATTR_ARG = 2,
  OP_WORKSPACE_ARG = 3,
  OP_OUTSHAPE_ARG = 4,
  OP_OPTION_ARG = 5,
  OP_EXEC_MODE_ARG = 6,
  OP_MEMSET_ARG = 7,
  OP_EMPTY_ARG = 8,
  OP_ARG_DEF_BUTT = 9,
};

// Implementation modes (OP_OPTION); recorded nowhere in this emulation.
enum OpImplMode : uint32_t {
  IMPL_MODE_DEFAULT = 0x1,
  IMPL_MODE_HIGH_PERFORMANCE = 0x2,
  IMPL_MODE_HIGH_PRECISION = 0x4,
  IMPL_MODE_SUPER_PERFORMANCE = 0x8,
  IMPL_MODE_SUPPORT_OUT_OF_BOUND_INDEX = 0x10,
  IMPL_MODE_ENABLE_FLOAT32_EXECUTION = 0x20,
  IMPL_MODE_ENABLE_HI_FLOAT32_EXECUTION = 0x40,
  IMPL_MODE_KEEP_FP16 = 0x80,
  IMPL_MODE_RESERVED = 0xFFFFFFFF
};

#define OPGEN_DEFINE_OP_ARG(NAME, KIND)                    \
  template <typename... T>                                 \
  struct NAME {                                            \
    static constexpr int value = KIND;                     \
    std::tuple<T...> arg_;                                 \
    NAME(std::tuple<T...> &&arg) : arg_(std::move(arg)) {} \
    NAME(const std::tuple<T...> &arg) : arg_(arg) {}       \
    NAME() = default;                                      \
    constexpr size_t Size() const {                        \
      return sizeof...(T);                                 \
    }                                                      \
  };

OPGEN_DEFINE_OP_ARG(OpInput, OP_INPUT_ARG)
OPGEN_DEFINE_OP_ARG(OpOutput, OP_OUTPUT_ARG)
OPGEN_DEFINE_OP_ARG(OpAttr, OP_ATTR_ARG)
OPGEN_DEFINE_OP_ARG(OpWorkspace, OP_WORKSPACE_ARG)
OPGEN_DEFINE_OP_ARG(OpOutshape, OP_OUTSHAPE_ARG)
OPGEN_DEFINE_OP_ARG(OpOption, OP_OPTION_ARG)
OPGEN_DEFINE_OP_ARG(OpMode, OP_EXEC_MODE_ARG)
OPGEN_DEFINE_OP_ARG(OpEmpty, OP_EMPTY_ARG)
#undef OPGEN_DEFINE_OP_ARG

inline const OpEmpty<> EMPTY_OP_ARG{};

}  // namespace op

namespace opgen_rt {

// Everything an L0 launch passes, gathered from its OP_* groups.
struct KernelLaunchArgs {
  std::vector<const aclTensor *> inputs;  // one per OP_INPUT argument (nullptr for a list)
  std::vector<const aclTensor *> outputs;
  std::vector<const aclTensorList *> inputLists;  // parallel to inputs: the list an argument is, else nullptr
  std::vector<const aclTensorList *> outputLists;
  std::vector<AttrValue> attrs;
  std::vector<const aclTensor *> workspaces;
  bool hasOutshape = false;
};

// One OP_INPUT / OP_OUTPUT argument: a tensor (or nullptr) into `into`, a list into `lists` (with nullptr in
// `into`); the two vectors stay parallel.
template <typename T>
inline void CollectLaunchTensor(std::vector<const aclTensor *> &into, std::vector<const aclTensorList *> &lists,
                                const T &value) {
  using D = std::decay_t<T>;
  if constexpr (std::is_same_v<D, std::nullptr_t>) {
    into.push_back(nullptr);
    lists.push_back(nullptr);
  } else if constexpr (std::is_convertible_v<D, const aclTensor *>) {
    into.push_back(value);
    lists.push_back(nullptr);
  } else if constexpr (std::is_convertible_v<D, const aclTensorList *>) {
    into.push_back(nullptr);
    lists.push_back(value);
  } else {
    static_assert(std::is_same_v<D, void>,
                  "OP_INPUT/OP_OUTPUT: only aclTensor pointers, aclTensorList pointers or nullptr are supported here");
  }
}

// One OP_WORKSPACE argument: a tensor.
template <typename T>
inline void CollectLaunchWorkspace(std::vector<const aclTensor *> &into, const T &value) {
  using D = std::decay_t<T>;
  if constexpr (std::is_same_v<D, std::nullptr_t>) {
    into.push_back(nullptr);
  } else if constexpr (std::is_convertible_v<D, const aclTensor *>) {
    into.push_back(value);
  } else {
    static_assert(std::is_same_v<D, void>, "OP_WORKSPACE: only aclTensor pointers (or nullptr) are supported here");
  }
}

template <typename T>
inline AttrValue MakeLaunchAttr(const T &value) {
  using D = std::decay_t<T>;
  if constexpr (std::is_same_v<D, bool>) {
    return AttrValue::FromBool(value);
  } else if constexpr (std::is_same_v<D, ge::DataType>) {
    return AttrValue::FromInt(static_cast<int64_t>(value));
  } else if constexpr (std::is_integral_v<D> && std::is_signed_v<D>) {
    return AttrValue::FromInt(static_cast<int64_t>(value));
  } else if constexpr (std::is_integral_v<D> && std::is_unsigned_v<D>) {
    return AttrValue::FromUint(static_cast<uint64_t>(value));
  } else if constexpr (std::is_same_v<D, float>) {
    return AttrValue::FromFloat(value);
  } else if constexpr (std::is_same_v<D, double>) {
    return AttrValue::FromDouble(value);
  } else if constexpr (std::is_same_v<D, const char *> || std::is_same_v<D, char *>) {
    return AttrValue::FromString(value == nullptr ? std::string() : std::string(value));
  } else if constexpr (std::is_same_v<D, std::string>) {
    return AttrValue::FromString(value);
  } else if constexpr (std::is_same_v<D, const aclIntArray *> || std::is_same_v<D, aclIntArray *>) {
    return AttrValue::FromListInt(value == nullptr
                                      ? std::vector<int64_t>()
                                      : std::vector<int64_t>(value->GetData(), value->GetData() + value->Size()));
  } else if constexpr (std::is_same_v<D, const aclFloatArray *> || std::is_same_v<D, aclFloatArray *>) {
    return AttrValue::FromListFloat(value == nullptr
                                        ? std::vector<float>()
                                        : std::vector<float>(value->GetData(), value->GetData() + value->Size()));
  } else if constexpr (std::is_same_v<D, const aclBoolArray *> || std::is_same_v<D, aclBoolArray *>) {
    return AttrValue::FromListBool(
        value == nullptr ? std::vector<bool>() : std::vector<bool>(value->GetData(), value->GetData() + value->Size()));
  } else if constexpr (std::is_enum_v<D>) {
    return AttrValue::FromInt(static_cast<int64_t>(value));
  } else {
    static_assert(std::is_same_v<D, void>, "OP_ATTR: unsupported attribute type");
    return AttrValue{};
  }
}

template <typename... T>
inline void CollectLaunchGroup(KernelLaunchArgs &args, const op::OpInput<T...> &group) {
  std::apply([&args](const auto &...v) { (CollectLaunchTensor(args.inputs, args.inputLists, v), ...); }, group.arg_);
}
template <typename... T>
inline void CollectLaunchGroup(KernelLaunchArgs &args, const op::OpOutput<T...> &group) {
  std::apply([&args](const auto &...v) { (CollectLaunchTensor(args.outputs, args.outputLists, v), ...); },
             group.arg_);
}
template <typename... T>
inline void CollectLaunchGroup(KernelLaunchArgs &args, const op::OpAttr<T...> &group) {
  std::apply([&args](const auto &...v) { (args.attrs.push_back(MakeLaunchAttr(v)), ...); }, group.arg_);
}
template <typename... T>
inline void CollectLaunchGroup(KernelLaunchArgs &args, const op::OpWorkspace<T...> &group) {
  std::apply([&args](const auto &...v) { (CollectLaunchWorkspace(args.workspaces, v), ...); }, group.arg_);
}
template <typename... T>
inline void CollectLaunchGroup(KernelLaunchArgs &args, const op::OpOutshape<T...> &) {
  args.hasOutshape = true;
}
template <typename... T>
inline void CollectLaunchGroup(KernelLaunchArgs &, const op::OpOption<T...> &) {}
template <typename... T>
inline void CollectLaunchGroup(KernelLaunchArgs &, const op::OpMode<T...> &) {}
template <typename... T>
inline void CollectLaunchGroup(KernelLaunchArgs &, const op::OpEmpty<T...> &) {}

template <typename... Groups>
inline KernelLaunchArgs CollectLaunchArgs(const Groups &...groups) {
  KernelLaunchArgs args;
  (CollectLaunchGroup(args, groups), ...);
  return args;
}

}  // namespace opgen_rt

#define OP_INPUT(...) ::op::OpInput(std::make_tuple(__VA_ARGS__))
#define OP_OUTPUT(...) ::op::OpOutput(std::make_tuple(__VA_ARGS__))
#define OP_ATTR(...) ::op::OpAttr(std::make_tuple(__VA_ARGS__))
#define OP_WORKSPACE(...) ::op::OpWorkspace(std::make_tuple(__VA_ARGS__))
#define OP_OUTSHAPE(...) ::op::OpOutshape(std::make_tuple(__VA_ARGS__))
#define OP_OPTION(...) ::op::OpOption(std::make_tuple(__VA_ARGS__))
#define OP_MODE(...) ::op::OpMode(std::make_tuple(__VA_ARGS__))
#define OP_EMPTY_ARG ::op::EMPTY_OP_ARG

#endif  // OPGEN_OPDEV_OP_ARG_DEF_H
