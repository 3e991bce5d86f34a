// ascend-opgen host emulation of CANN's exe_graph/runtime/tensor.h and the compile-time tensor description
// (CANN: compute_node_info.h): what a tiling function learns about an input or output.
#ifndef OPGEN_EXE_GRAPH_RUNTIME_TENSOR_H
#define OPGEN_EXE_GRAPH_RUNTIME_TENSOR_H

#include <cstdint>

#include "exe_graph/runtime/storage_format.h"
#include "exe_graph/runtime/storage_shape.h"
#include "graph/types.h"

namespace opgen_rt {
class TilingContextBuilder;
}

namespace gert {

class CompileTimeTensorDesc {
 public:
  ge::DataType GetDataType() const {
    return dataType_;
  }
  ge::Format GetStorageFormat() const {
    return format_.GetStorageFormat();
  }
  ge::Format GetOriginFormat() const {
    return format_.GetOriginFormat();
  }
  const StorageFormat &GetFormat() const {
    return format_;
  }

  void SetDataType(ge::DataType dataType) {
    dataType_ = dataType;
  }
  void SetStorageFormat(ge::Format format) {
    format_.SetStorageFormat(format);
  }
  void SetOriginFormat(ge::Format format) {
    format_.SetOriginFormat(format);
  }

 private:
  ge::DataType dataType_ = ge::DT_UNDEFINED;
  StorageFormat format_;
};

// A tensor as a tiling sees it. In this emulation the data address is always nullptr during tiling (no
// input is value-dependent), so tilings must work from shapes, dtypes, formats and attributes.
class Tensor {
 public:
  const StorageShape &GetShape() const {
    return shape_;
  }
  const Shape &GetStorageShape() const {
    return shape_.GetStorageShape();
  }
  const Shape &GetOriginShape() const {
    return shape_.GetOriginShape();
  }
  int64_t GetShapeSize() const {
    return shape_.GetStorageShape().GetShapeSize();
  }
  ge::DataType GetDataType() const {
    return dataType_;
  }
  const StorageFormat &GetFormat() const {
    return format_;
  }
  ge::Format GetStorageFormat() const {
    return format_.GetStorageFormat();
  }
  ge::Format GetOriginFormat() const {
    return format_.GetOriginFormat();
  }
  const void *GetAddr() const {
    return addr_;
  }
  template <typename T>
  const T *GetData() const {
    return static_cast<const T *>(addr_);
  }
  // What a unit test's context faker describes a tensor with (hicann/metadef exe_graph/runtime/tensor.h).
  Shape &MutableOriginShape() {
    return shape_.MutableOriginShape();
  }
  Shape &MutableStorageShape() {
    return shape_.MutableStorageShape();
  }
  void SetDataType(const ge::DataType data_type) {
    dataType_ = data_type;
  }
  void SetOriginFormat(const ge::Format origin_format) {
    format_.SetOriginFormat(origin_format);
  }
  void SetStorageFormat(const ge::Format storage_format) {
    format_.SetStorageFormat(storage_format);
  }

 private:
  friend class opgen_rt::TilingContextBuilder;
  StorageShape shape_;
  ge::DataType dataType_ = ge::DT_UNDEFINED;
  StorageFormat format_;
  const void *addr_ = nullptr;
};

}  // namespace gert

#endif  // OPGEN_EXE_GRAPH_RUNTIME_TENSOR_H
