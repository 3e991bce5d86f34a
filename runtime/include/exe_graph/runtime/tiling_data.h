// ascend-opgen host emulation of CANN's exe_graph/runtime/tiling_data.h: the raw tiling buffer a tiling
// function fills (GetData/GetCapacity, then SetDataSize with the bytes it wrote).
#ifndef OPGEN_EXE_GRAPH_RUNTIME_TILING_DATA_H
#define OPGEN_EXE_GRAPH_RUNTIME_TILING_DATA_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>

#include "graph/ge_error_codes.h"

namespace gert {

class TilingData {
 public:
  TilingData(void *data, size_t capacity) : data_(data), capacity_(capacity) {}

  // One allocation holding a TilingData and, right after it, its `cap_size` bytes of data (zeroed);
  // nullptr when the size overflows. As hicann/metadef inc/external/exe_graph/runtime/tiling_data.h.
  static std::unique_ptr<uint8_t[]> CreateCap(const size_t cap_size) {
    if (cap_size > SIZE_MAX - sizeof(TilingData)) {
      return nullptr;
    }
    auto td_buf = std::unique_ptr<uint8_t[]>(new (std::nothrow) uint8_t[sizeof(TilingData) + cap_size]());
    if (td_buf == nullptr) {
      return nullptr;
    }
    new (td_buf.get()) TilingData(td_buf.get() + sizeof(TilingData), cap_size);
    return td_buf;
  }

  size_t GetCapacity() const {
    return capacity_;
  }
  size_t GetDataSize() const {
    return dataSize_;
  }
  void SetDataSize(size_t size) {
    dataSize_ = size;
  }
  void *GetData() {
    return data_;
  }
  const void *GetData() const {
    return data_;
  }

  // Appends the bytes of `value` after the data written so far.
  template <typename T>
  ge::graphStatus Append(const T &value) {
    static_assert(std::is_trivially_copyable_v<T>, "TilingData::Append needs a trivially copyable type");
    if (dataSize_ + sizeof(T) > capacity_ || dataSize_ + sizeof(T) < dataSize_) {
      return ge::GRAPH_FAILED;
    }
    std::memcpy(static_cast<uint8_t *>(data_) + dataSize_, &value, sizeof(T));
    dataSize_ += sizeof(T);
    return ge::GRAPH_SUCCESS;
  }

 private:
  void *data_;
  size_t capacity_;
  size_t dataSize_ = 0;
};

}  // namespace gert

#endif  // OPGEN_EXE_GRAPH_RUNTIME_TILING_DATA_H
