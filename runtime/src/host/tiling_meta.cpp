// ascend-opgen host emulation: the tiling-data layout registry and its JSON rendering.
#include "opgen_rt/tiling_meta.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "json.h"

namespace opgen_rt {
namespace {

struct MetaRegistry {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<TilingClassMeta>> metas;
};

MetaRegistry &Metas() {
  static MetaRegistry *registry = new MetaRegistry();
  return *registry;
}

template <typename T>
T Load(const uint8_t *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

std::string Hex(const uint8_t *p, size_t n) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(n * 2);
  for (size_t i = 0; i < n; ++i) {
    out.push_back(kDigits[p[i] >> 4]);
    out.push_back(kDigits[p[i] & 0xF]);
  }
  return out;
}

// One element of `type` at p (elemSize bytes) as JSON.
std::string ElementJson(const std::string &type, const uint8_t *p, size_t elemSize) {
  if ((type == "int8_t" || type == "char") && elemSize == 1) {
    return std::to_string(Load<int8_t>(p));
  }
  if (type == "uint8_t" && elemSize == 1) {
    return std::to_string(Load<uint8_t>(p));
  }
  if (type == "bool" && elemSize == 1) {
    return Load<uint8_t>(p) != 0 ? "true" : "false";
  }
  if (type == "int16_t" && elemSize == 2) {
    return std::to_string(Load<int16_t>(p));
  }
  if (type == "uint16_t" && elemSize == 2) {
    return std::to_string(Load<uint16_t>(p));
  }
  if ((type == "int32_t" || type == "int") && elemSize == 4) {
    return std::to_string(Load<int32_t>(p));
  }
  if ((type == "uint32_t" || type == "unsigned int") && elemSize == 4) {
    return std::to_string(Load<uint32_t>(p));
  }
  if (type == "int64_t" && elemSize == 8) {
    return std::to_string(Load<int64_t>(p));
  }
  if (type == "uint64_t" && elemSize == 8) {
    return std::to_string(Load<uint64_t>(p));
  }
  if (type == "float" && elemSize == 4) {
    char buf[32];
    const float v = Load<float>(p);
    if (v != v || v - v != 0.0F) {
      return "null";
    }
    std::snprintf(buf, sizeof(buf), "%.9g", static_cast<double>(v));
    return buf;
  }
  if (type == "double" && elemSize == 8) {
    return json::Number(Load<double>(p));
  }
  return json::Quote(Hex(p, elemSize));
}

}  // namespace

bool RegisterTilingClassMeta(const char *opType, const TilingClassMeta &meta) {
  MetaRegistry &r = Metas();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.metas[opType == nullptr ? "" : opType] = std::make_unique<TilingClassMeta>(meta);
  return true;
}

const TilingClassMeta *FindTilingClassMeta(const char *opType) {
  MetaRegistry &r = Metas();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.metas.find(opType == nullptr ? "" : opType);
  return it == r.metas.end() ? nullptr : it->second.get();
}

std::string TilingDataToJson(const TilingClassMeta *meta, const void *data, size_t size) {
  const auto *bytes = static_cast<const uint8_t *>(data);
  if (meta == nullptr) {
    return "{\"raw\": " + json::Quote(Hex(bytes, size)) + "}";
  }
  std::string out = "{";
  bool first = true;
  for (const TilingFieldMeta &f : meta->fields) {
    if (!first) {
      out += ", ";
    }
    first = false;
    json::AppendString(out, f.name);
    out += ": ";
    const size_t total = f.elemSize * f.count;
    if (f.offset + total > size || f.elemSize == 0) {
      out += "null";
      continue;
    }
    if (f.count == 1) {
      out += ElementJson(f.type, bytes + f.offset, f.elemSize);
      continue;
    }
    out += "[";
    for (size_t i = 0; i < f.count; ++i) {
      out += (i == 0 ? "" : ", ") + ElementJson(f.type, bytes + f.offset + i * f.elemSize, f.elemSize);
    }
    out += "]";
  }
  return out + "}";
}

}  // namespace opgen_rt
