// ascend-opgen host emulation, internal: a small JSON writer and reader for the opgen_rt_* C API.
#ifndef OPGEN_RT_HOST_JSON_H
#define OPGEN_RT_HOST_JSON_H

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace opgen_rt {
namespace json {

// Appends `text` as a quoted JSON string.
void AppendString(std::string &out, const std::string &text);
std::string Quote(const std::string &text);
// A double as JSON (NaN and infinities as null; integral values without a fraction).
std::string Number(double value);

// A parsed JSON value.
struct Value {
  enum class Type { NUL, BOOL, NUMBER, STRING, ARRAY, OBJECT };
  Type type = Type::NUL;
  bool boolean = false;
  double number = 0.0;
  bool isInteger = false;  // the number was written without fraction or exponent
  int64_t integer = 0;     // valid when isInteger (and within int64)
  uint64_t uinteger = 0;   // valid when isInteger and non-negative
  std::string text;
  std::vector<Value> items;
  std::vector<std::pair<std::string, Value>> members;

  const Value *Find(const std::string &key) const;
};

// Parses `text`; false with `error` set on malformed input.
bool Parse(const std::string &text, Value &out, std::string &error);

}  // namespace json
}  // namespace opgen_rt

#endif  // OPGEN_RT_HOST_JSON_H
