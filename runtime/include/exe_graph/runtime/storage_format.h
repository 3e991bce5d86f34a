// ascend-opgen host emulation of CANN's exe_graph/runtime/storage_format.h.
#ifndef OPGEN_EXE_GRAPH_RUNTIME_STORAGE_FORMAT_H
#define OPGEN_EXE_GRAPH_RUNTIME_STORAGE_FORMAT_H

#include "graph/types.h"

namespace gert {

class StorageFormat {
 public:
  StorageFormat() = default;
  StorageFormat(ge::Format originFormat, ge::Format storageFormat)
      : originFormat_(originFormat), storageFormat_(storageFormat) {}

  ge::Format GetOriginFormat() const {
    return originFormat_;
  }
  ge::Format GetStorageFormat() const {
    return storageFormat_;
  }
  void SetOriginFormat(ge::Format format) {
    originFormat_ = format;
  }
  void SetStorageFormat(ge::Format format) {
    storageFormat_ = format;
  }

  bool operator==(const StorageFormat &rhs) const {
    return originFormat_ == rhs.originFormat_ && storageFormat_ == rhs.storageFormat_;
  }
  bool operator!=(const StorageFormat &rhs) const {
    return !(*this == rhs);
  }

 private:
  ge::Format originFormat_ = ge::FORMAT_ND;
  ge::Format storageFormat_ = ge::FORMAT_ND;
};

}  // namespace gert

#endif  // OPGEN_EXE_GRAPH_RUNTIME_STORAGE_FORMAT_H
