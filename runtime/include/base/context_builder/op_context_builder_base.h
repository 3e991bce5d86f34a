// ascend-opgen host emulation of CANN's base/context_builder/op_context_builder_base.h (hicann/metadef
// inc/external/base/context_builder/op_context_builder_base.h): the op description every context builder
// shares (type, name, IR input/output instance counts, attributes in IR order). The ExpandDimsType members
// are not emulated. Implemented in runtime/src/host/context_builder.cpp.
#ifndef OPGEN_BASE_CONTEXT_BUILDER_OP_CONTEXT_BUILDER_BASE_H
#define OPGEN_BASE_CONTEXT_BUILDER_OP_CONTEXT_BUILDER_BASE_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "exe_graph/runtime/shape.h"
#include "exe_graph/runtime/storage_shape.h"
#include "graph/ascend_string.h"
#include "graph/types.h"

namespace gert {
class ContextBuilderImpl;

template <typename T>
class OpContextBuilderBase {
 public:
  T &OpType(const ge::AscendString &op_type);
  T &OpName(const ge::AscendString &op_name);
  T &IONum(size_t input_ir_num, size_t output_ir_num);
  T &IOInstanceNum(const std::vector<uint32_t> &input_instance_num, const std::vector<uint32_t> &output_instance_num);
  // Attributes in IR order. A vector<AscendString> or vector<vector<int64_t>> attribute is not emulated: the
  // build then fails, naming it.
  T &AppendAttr(bool attr);
  T &AppendAttr(int64_t attr);
  T &AppendAttr(float attr);
  T &AppendAttr(const ge::AscendString &attr);
  T &AppendAttr(const std::vector<bool> &attr);
  T &AppendAttr(const std::vector<int64_t> &attr);
  T &AppendAttr(const std::vector<float> &attr);
  T &AppendAttr(const std::vector<ge::AscendString> &attr);
  T &AppendAttr(const std::vector<std::vector<int64_t>> &attr);

  OpContextBuilderBase(const OpContextBuilderBase &) = delete;
  OpContextBuilderBase &operator=(const OpContextBuilderBase &) = delete;
  OpContextBuilderBase(OpContextBuilderBase &&) = delete;
  OpContextBuilderBase &operator=(OpContextBuilderBase &&) = delete;
  virtual ~OpContextBuilderBase();

 protected:
  [[nodiscard]] ge::DataType &MutableInputDataType(size_t index);
  [[nodiscard]] ge::Format &MutableInputOriginalFormat(size_t index);
  [[nodiscard]] ge::Format &MutableInputStorageFormat(size_t index);
  [[nodiscard]] ge::DataType &MutableOutputDataType(size_t index);
  [[nodiscard]] ge::Format &MutableOutputOriginalFormat(size_t index);
  [[nodiscard]] ge::Format &MutableOutputStorageFormat(size_t index);
  std::unique_ptr<ContextBuilderImpl> impl_;
  OpContextBuilderBase();
};
}  // namespace gert

#endif  // OPGEN_BASE_CONTEXT_BUILDER_OP_CONTEXT_BUILDER_BASE_H
