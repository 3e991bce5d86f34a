// ascend-opgen host emulation: logging, the per-thread recent error text, API scopes and OpType ids.
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "acl/acl_base.h"
#include "opdev/op_dfx.h"
#include "opdev/op_log.h"

namespace {

thread_local std::string g_recentError;
thread_local std::string g_recentErrorReturned;
thread_local const char *g_currentL2Api = nullptr;
thread_local const char *g_currentL0Op = nullptr;

struct LogSettings {
  bool toStdout = false;
  int level = OP_LOG_ERROR;
};

const LogSettings &Settings() {
  static const LogSettings settings = [] {
    LogSettings s;
    const char *print = std::getenv("ASCEND_SLOG_PRINT_TO_STDOUT");
    s.toStdout = print != nullptr && std::strcmp(print, "1") == 0;
    const char *level = std::getenv("ASCEND_GLOBAL_LOG_LEVEL");
    if (level != nullptr && level[0] >= '0' && level[0] <= '4') {
      s.level = level[0] - '0';
    }
    return s;
  }();
  return settings;
}

std::string FormatV(const char *fmt, va_list args) {
  va_list copy;
  va_copy(copy, args);
  const int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  if (n <= 0) {
    return std::string();
  }
  std::string text(static_cast<size_t>(n) + 1, '\0');
  std::vsnprintf(&text[0], text.size(), fmt, args);
  text.resize(static_cast<size_t>(n));
  return text;
}

const char *BaseName(const char *path) {
  const char *base = path;
  for (const char *p = path; *p != '\0'; ++p) {
    if (*p == '/') {
      base = p + 1;
    }
  }
  return base;
}

void Emit(int level, const char *file, int line, const std::string &text) {
  const LogSettings &s = Settings();
  if (!s.toStdout || level < s.level) {
    return;
  }
  static const char *const kNames[] = {"DEBUG", "INFO", "WARNING", "ERROR", "EVENT"};
  const char *name = level >= 0 && level <= 3 ? kNames[level] : kNames[4];
  std::printf("[%s] OPGEN_RT(%s:%d) %s%s%s\n", name, BaseName(file), line,
              g_currentL2Api != nullptr ? g_currentL2Api : "", g_currentL2Api != nullptr ? ": " : "", text.c_str());
  std::fflush(stdout);
}

}  // namespace

namespace op {
namespace internal {

void ReportError(aclnnStatus code, const char *file, int line, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::string text = FormatV(fmt, args);
  va_end(args);
  if (!g_recentError.empty()) {
    g_recentError += "\n";
  }
  g_recentError += text;
  Emit(OP_LOG_ERROR, file, line, "errno[" + std::to_string(code) + "] " + text);
}

void LogMessage(int level, const char *file, int line, const char *fmt, ...) {
  const LogSettings &s = Settings();
  if (!s.toStdout || level < s.level) {
    return;
  }
  va_list args;
  va_start(args, fmt);
  std::string text = FormatV(fmt, args);
  va_end(args);
  Emit(level, file, line, text);
}

void ClearRecentError() {
  g_recentError.clear();
}

const std::string &PeekRecentError() {
  return g_recentError;
}

ApiScope::ApiScope(int level, const char *name, bool clearError) : level_(level) {
  if (level_ == 2) {
    previous_ = g_currentL2Api;
    g_currentL2Api = name;
  } else {
    previous_ = g_currentL0Op;
    g_currentL0Op = name;
  }
  if (clearError) {
    ClearRecentError();
  }
  LogMessage(OP_LOG_DEBUG, __FILE__, __LINE__, "entering %s", name);
}

ApiScope::~ApiScope() {
  if (level_ == 2) {
    g_currentL2Api = previous_;
  } else {
    g_currentL0Op = previous_;
  }
}

const char *CurrentApiName() {
  return g_currentL2Api != nullptr ? g_currentL2Api : "";
}

}  // namespace internal

ge::AscendString ToString(const std::string &str) {
  return ge::AscendString(str);
}

uint32_t GenOpTypeId(const char *opName) {
  static std::mutex mutex;
  static std::map<std::string, uint32_t> ids;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = ids.find(opName);
  if (it != ids.end()) {
    return it->second;
  }
  const auto id = static_cast<uint32_t>(ids.size() + 1);
  ids.emplace(opName, id);
  return id;
}

}  // namespace op

extern "C" const char *aclGetRecentErrMsg() {
  g_recentErrorReturned = g_recentError;
  g_recentError.clear();
  return g_recentErrorReturned.c_str();
}
