// ascend-opgen host emulation: a small JSON writer and reader (internal, for the opgen_rt_* C API).
#include "json.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace opgen_rt {
namespace json {

void AppendString(std::string &out, const std::string &text) {
  out.push_back('"');
  for (unsigned char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out.push_back('"');
}

std::string Quote(const std::string &text) {
  std::string out;
  AppendString(out, text);
  return out;
}

std::string Number(double value) {
  if (!std::isfinite(value)) {
    return "null";
  }
  char buf[40];
  if (value == std::floor(value) && std::fabs(value) < 9.0e15) {
    std::snprintf(buf, sizeof(buf), "%.0f", value);
  } else {
    std::snprintf(buf, sizeof(buf), "%.17g", value);
  }
  return buf;
}

const Value *Value::Find(const std::string &key) const {
  for (const auto &m : members) {
    if (m.first == key) {
      return &m.second;
    }
  }
  return nullptr;
}

namespace {

class Parser {
 public:
  explicit Parser(const std::string &text) : text_(text) {}

  bool ParseDocument(Value &out, std::string &error) {
    if (!ParseValue(out, 0)) {
      error = error_;
      return false;
    }
    SkipSpace();
    if (pos_ != text_.size()) {
      error = "unexpected text after the JSON value at offset " + std::to_string(pos_);
      return false;
    }
    return true;
  }

 private:
  bool Fail(const std::string &what) {
    if (error_.empty()) {
      error_ = what + " at offset " + std::to_string(pos_);
    }
    return false;
  }
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])) != 0) {
      ++pos_;
    }
  }
  bool Literal(const char *word) {
    size_t n = 0;
    while (word[n] != '\0') {
      ++n;
    }
    if (text_.compare(pos_, n, word) != 0) {
      return false;
    }
    pos_ += n;
    return true;
  }
  bool ParseValue(Value &out, int depth) {
    if (depth > 64) {
      return Fail("nesting too deep");
    }
    SkipSpace();
    if (pos_ >= text_.size()) {
      return Fail("unexpected end of input");
    }
    const char c = text_[pos_];
    if (c == '{') {
      return ParseObject(out, depth);
    }
    if (c == '[') {
      return ParseArray(out, depth);
    }
    if (c == '"') {
      out.type = Value::Type::STRING;
      return ParseString(out.text);
    }
    if (Literal("true")) {
      out.type = Value::Type::BOOL;
      out.boolean = true;
      return true;
    }
    if (Literal("false")) {
      out.type = Value::Type::BOOL;
      out.boolean = false;
      return true;
    }
    if (Literal("null")) {
      out.type = Value::Type::NUL;
      return true;
    }
    return ParseNumber(out);
  }
  bool ParseObject(Value &out, int depth) {
    out.type = Value::Type::OBJECT;
    ++pos_;
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      return true;
    }
    while (true) {
      SkipSpace();
      std::string key;
      if (pos_ >= text_.size() || text_[pos_] != '"' || !ParseString(key)) {
        return Fail("expected a string key");
      }
      SkipSpace();
      if (pos_ >= text_.size() || text_[pos_] != ':') {
        return Fail("expected ':'");
      }
      ++pos_;
      Value v;
      if (!ParseValue(v, depth + 1)) {
        return false;
      }
      out.members.emplace_back(std::move(key), std::move(v));
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == '}') {
        ++pos_;
        return true;
      }
      return Fail("expected ',' or '}'");
    }
  }
  bool ParseArray(Value &out, int depth) {
    out.type = Value::Type::ARRAY;
    ++pos_;
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      return true;
    }
    while (true) {
      Value v;
      if (!ParseValue(v, depth + 1)) {
        return false;
      }
      out.items.push_back(std::move(v));
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == ']') {
        ++pos_;
        return true;
      }
      return Fail("expected ',' or ']'");
    }
  }
  static void AppendUtf8(std::string &out, unsigned cp) {
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }
  bool ParseString(std::string &out) {
    ++pos_;  // opening quote
    while (pos_ < text_.size()) {
      const char c = text_[pos_++];
      if (c == '"') {
        return true;
      }
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) {
        break;
      }
      const char e = text_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out.push_back(e);
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'u': {
          if (pos_ + 4 > text_.size()) {
            return Fail("truncated \\u escape");
          }
          const std::string hex = text_.substr(pos_, 4);
          pos_ += 4;
          char *end = nullptr;
          const unsigned long cp = std::strtoul(hex.c_str(), &end, 16);
          if (end != hex.c_str() + 4) {
            return Fail("bad \\u escape");
          }
          AppendUtf8(out, static_cast<unsigned>(cp));
          break;
        }
        default:
          return Fail("bad escape");
      }
    }
    return Fail("unterminated string");
  }
  bool ParseNumber(Value &out) {
    const size_t start = pos_;
    if (pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+')) {
      ++pos_;
    }
    bool integral = true;
    bool digits = false;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
        digits = true;
      } else if (c == '.' || c == 'e' || c == 'E' ||
                 ((c == '-' || c == '+') && pos_ > start && (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E'))) {
        integral = false;
      } else {
        break;
      }
      ++pos_;
    }
    if (!digits) {
      return Fail("expected a value");
    }
    const std::string token = text_.substr(start, pos_ - start);
    out.type = Value::Type::NUMBER;
    out.number = std::strtod(token.c_str(), nullptr);
    if (integral) {
      errno = 0;
      if (token[0] == '-') {
        char *end = nullptr;
        const long long v = std::strtoll(token.c_str(), &end, 10);
        if (errno == 0) {
          out.isInteger = true;
          out.integer = static_cast<int64_t>(v);
        }
      } else {
        char *end = nullptr;
        const unsigned long long v = std::strtoull(token.c_str(), &end, 10);
        if (errno == 0) {
          out.isInteger = true;
          out.uinteger = static_cast<uint64_t>(v);
          out.integer = static_cast<int64_t>(v);
        }
      }
    }
    return true;
  }

  const std::string &text_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace

bool Parse(const std::string &text, Value &out, std::string &error) {
  Parser parser(text);
  out = Value();
  return parser.ParseDocument(out, error);
}

}  // namespace json
}  // namespace opgen_rt
