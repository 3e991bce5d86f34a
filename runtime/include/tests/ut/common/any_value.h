// ascend-opgen host emulation of ops-nn's tests/ut/common/any_value.h (hicann/ops-nn): an attribute value of
// a unit test (NodeAttrs({{"name", Ops::NN::AnyValue::CreateFrom<T>(v)}})), handed to the context faker's
// Attr in IR order.
#ifndef OPGEN_OPS_NN_TESTS_UT_COMMON_ANY_VALUE_H
#define OPGEN_OPS_NN_TESTS_UT_COMMON_ANY_VALUE_H

#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "graph/ascend_string.h"

using ge::AscendString;

namespace Ops {
namespace NN {
class AnyValue {
 public:
  enum ValueType {
    VT_STRING = 1,
    VT_FLOAT = 2,
    VT_BOOL = 3,
    VT_INT = 4,
    VT_LIST_LIST_INT = 10,
    VT_LIST_BASE = 1000,

    VT_LIST_FLOAT = static_cast<int32_t>(VT_LIST_BASE) + static_cast<int32_t>(VT_FLOAT),
    VT_LIST_BOOL = static_cast<int32_t>(VT_LIST_BASE) + static_cast<int32_t>(VT_BOOL),
    VT_LIST_INT = static_cast<int32_t>(VT_LIST_BASE) + static_cast<int32_t>(VT_INT),
  };

  AnyValue(ValueType type, const std::shared_ptr<void> &valuePtr) : type_(type), valuePtr_(valuePtr) {}
  ~AnyValue() = default;
  AnyValue(const AnyValue &anyValue) : type_(anyValue.type_), valuePtr_(anyValue.valuePtr_) {}

  template <typename T>
  static inline AnyValue CreateFrom(const T &value);

  // Calls faker.Attr(item, value) with the value as its type.
  template <typename T>
  void SetAttr(const std::string &item, T &faker) const {
    void *p = valuePtr_.get();
    switch (type_) {
      case ValueType::VT_BOOL:
        faker.Attr(item, *static_cast<bool *>(p));
        break;
      case ValueType::VT_INT:
        faker.Attr(item, *static_cast<int64_t *>(p));
        break;
      case ValueType::VT_FLOAT:
        faker.Attr(item, *static_cast<float *>(p));
        break;
      case ValueType::VT_STRING:
        faker.Attr(item, AscendString(static_cast<std::string *>(p)->c_str()));
        break;
      case ValueType::VT_LIST_BOOL:
        faker.Attr(item, *static_cast<std::vector<bool> *>(p));
        break;
      case ValueType::VT_LIST_INT:
        faker.Attr(item, *static_cast<std::vector<int64_t> *>(p));
        break;
      case ValueType::VT_LIST_LIST_INT:
        faker.Attr(item, *static_cast<std::vector<std::vector<int64_t>> *>(p));
        break;
      case ValueType::VT_LIST_FLOAT:
        faker.Attr(item, *static_cast<std::vector<float> *>(p));
        break;
      default:
        std::cout << "[ERROR]" << __FILE__ << ":" << __LINE__ << "The ValueType is not supported!" << std::endl;
    }
  }

  ValueType type_;
  std::shared_ptr<void> valuePtr_;
};

template <>
inline AnyValue AnyValue::CreateFrom<std::string>(const std::string &value) {
  return AnyValue(VT_STRING, std::make_shared<std::string>(value));
}

template <>
inline AnyValue AnyValue::CreateFrom<float>(const float &value) {
  return AnyValue(VT_FLOAT, std::make_shared<float>(value));
}

template <>
inline AnyValue AnyValue::CreateFrom<bool>(const bool &value) {
  return AnyValue(VT_BOOL, std::make_shared<bool>(value));
}

template <>
inline AnyValue AnyValue::CreateFrom<int64_t>(const int64_t &value) {
  return AnyValue(VT_INT, std::make_shared<int64_t>(value));
}

template <>
inline AnyValue AnyValue::CreateFrom<std::vector<float>>(const std::vector<float> &value) {
  return AnyValue(VT_LIST_FLOAT, std::make_shared<std::vector<float>>(value));
}

template <>
inline AnyValue AnyValue::CreateFrom<std::vector<bool>>(const std::vector<bool> &value) {
  return AnyValue(VT_LIST_BOOL, std::make_shared<std::vector<bool>>(value));
}

template <>
inline AnyValue AnyValue::CreateFrom<std::vector<int64_t>>(const std::vector<int64_t> &value) {
  return AnyValue(VT_LIST_INT, std::make_shared<std::vector<int64_t>>(value));
}

template <>
inline AnyValue AnyValue::CreateFrom<std::vector<std::vector<int64_t>>>(const std::vector<std::vector<int64_t>> &value) {
  return AnyValue(VT_LIST_LIST_INT, std::make_shared<std::vector<std::vector<int64_t>>>(value));
}
}  // namespace NN
}  // namespace Ops

#endif  // OPGEN_OPS_NN_TESTS_UT_COMMON_ANY_VALUE_H
