// ascend-opgen host emulation of CANN's graph/ascend_string.h: ge::AscendString, an owned string.
#ifndef OPGEN_GRAPH_ASCEND_STRING_H
#define OPGEN_GRAPH_ASCEND_STRING_H

#include <cstddef>
#include <string>

namespace ge {

class AscendString {
 public:
  AscendString() = default;
  AscendString(const char *name) : text_(name == nullptr ? "" : name) {}  // NOLINT: implicit, as in CANN
  explicit AscendString(std::string text) : text_(std::move(text)) {}

  // The text; valid while this object lives (use it within the full expression of a temporary).
  const char *GetString() const {
    return text_.c_str();
  }
  size_t GetLength() const {
    return text_.size();
  }

  bool operator<(const AscendString &other) const {
    return text_ < other.text_;
  }
  bool operator==(const AscendString &other) const {
    return text_ == other.text_;
  }
  bool operator!=(const AscendString &other) const {
    return text_ != other.text_;
  }

 private:
  std::string text_;
};

}  // namespace ge

#endif  // OPGEN_GRAPH_ASCEND_STRING_H
