// ascend-opgen host emulation of CANN's exe_graph/runtime/storage_shape.h.
#ifndef OPGEN_EXE_GRAPH_RUNTIME_STORAGE_SHAPE_H
#define OPGEN_EXE_GRAPH_RUNTIME_STORAGE_SHAPE_H

#include "exe_graph/runtime/shape.h"

namespace gert {

// A tensor's shape before (origin) and after (storage) any private-format transform; equal for ND.
class StorageShape {
 public:
  StorageShape() = default;
  StorageShape(std::initializer_list<int64_t> originShape, std::initializer_list<int64_t> storageShape)
      : originShape_(originShape), storageShape_(storageShape) {}
  StorageShape(const Shape &originShape, const Shape &storageShape)
      : originShape_(originShape), storageShape_(storageShape) {}

  const Shape &GetOriginShape() const {
    return originShape_;
  }
  const Shape &GetStorageShape() const {
    return storageShape_;
  }
  Shape &MutableOriginShape() {
    return originShape_;
  }
  Shape &MutableStorageShape() {
    return storageShape_;
  }

  bool operator==(const StorageShape &rhs) const {
    return originShape_ == rhs.originShape_ && storageShape_ == rhs.storageShape_;
  }
  bool operator!=(const StorageShape &rhs) const {
    return !(*this == rhs);
  }

 private:
  Shape originShape_;
  Shape storageShape_;
};

}  // namespace gert

#endif  // OPGEN_EXE_GRAPH_RUNTIME_STORAGE_SHAPE_H
