// ascend-opgen host emulation: the L0 host ops (l0op::Contiguous, Cast, BroadcastTo, ViewCopy). Phase 1
// records them as executor tasks; phase 2 runs them on host memory (RunHostTask).
#include <algorithm>
#include <array>
#include <cstring>

#include "aclnn_kernels/cast.h"
#include "aclnn_kernels/contiguous.h"
#include "dtype_convert.h"
#include "executor_state.h"
#include "level0/broadcast_to.h"
#include "opdev/data_type_utils.h"
#include "opdev/op_log.h"
#include "opdev/shape_utils.h"

namespace {

using opgen_rt::ExecutorAccess;
using opgen_rt::ExecutorState;
using opgen_rt::HostTask;
using opgen_rt::HostTaskKind;

bool CheckArgs(const char *op, const aclTensor *x, aclOpExecutor *executor) {
  if (x == nullptr || executor == nullptr) {
    OP_LOGE(ACLNN_ERR_INNER_NULLPTR, "l0op::%s: %s is nullptr.", op, x == nullptr ? "the tensor" : "executor");
    return false;
  }
  if (op::TypeSize(x->GetDataType()) == 0) {
    OP_LOGE(ACLNN_ERR_INNER, "l0op::%s: dtype %s is not supported.", op, op::ToString(x->GetDataType()).GetString());
    return false;
  }
  return true;
}

// A new contiguous executor tensor with x's view shape and format, of `dtype`.
aclTensor *NewContiguousLike(ExecutorState &state, const aclTensor *x, op::DataType dtype) {
  const op::Shape &shape = x->GetViewShape();
  const auto bytes = static_cast<uint64_t>(shape.GetShapeSize()) * op::TypeSize(dtype);
  aclTensor *t =
      state.NewTensor(shape, opgen_rt::ContiguousStrides(shape), 0, dtype, x->GetStorageFormat(), shape, bytes);
  t->SetViewFormat(x->GetViewFormat());
  t->SetOriginalFormat(x->GetOriginalFormat());
  return t;
}

void AddTask(ExecutorState &state, HostTaskKind kind, const aclTensor *src, const aclTensor *dst,
             const op::Shape &srcShape, const op::Strides &srcStrides) {
  HostTask task;
  task.kind = kind;
  task.src = state.Pin(src);
  task.dst = state.Pin(dst);
  task.srcShape = srcShape;
  task.srcStrides = srcStrides;
  state.tasks.emplace_back(std::move(task));
}

// Walks the elements of a strided view in row-major order, yielding element offsets.
class ViewCursor {
 public:
  ViewCursor(const op::Shape &shape, const op::Strides &strides, int64_t offset)
      : shape_(shape), strides_(strides), offset_(offset) {}

  int64_t Offset() const {
    return offset_;
  }
  void Next() {
    for (size_t d = shape_.GetDimNum(); d > 0; --d) {
      const size_t i = d - 1;
      if (++index_[i] < shape_.GetDim(i)) {
        offset_ += strides_[i];
        return;
      }
      offset_ -= (index_[i] - 1) * strides_[i];
      index_[i] = 0;
    }
  }

 private:
  const op::Shape &shape_;
  const op::Strides &strides_;
  int64_t offset_;
  std::array<int64_t, gert::Shape::kMaxDimNum> index_{};
};

bool IsRowMajor(const op::Shape &shape, const op::Strides &strides) {
  int64_t expected = 1;
  for (size_t d = shape.GetDimNum(); d > 0; --d) {
    if (shape.GetDim(d - 1) != 1 && strides[d - 1] != expected) {
      return false;
    }
    expected *= shape.GetDim(d - 1);
  }
  return true;
}

}  // namespace

namespace {

// Whether `t` and `y` (caller tensors with storage) share bytes of their storage; false for a tensor without
// storage yet (an executor's intermediate) or for nullptr.
bool SharesMemory(const aclTensor *t, const aclTensor *y) {
  if (t == nullptr || y == nullptr || t->GetStorageAddr() == nullptr || y->GetStorageAddr() == nullptr) {
    return false;
  }
  const auto *a = static_cast<const uint8_t *>(t->GetStorageAddr());
  const auto *b = static_cast<const uint8_t *>(y->GetStorageAddr());
  const int64_t aBytes = t->GetStorageShape().GetShapeSize() * static_cast<int64_t>(op::TypeSize(t->GetDataType()));
  const int64_t bBytes = y->GetStorageShape().GetShapeSize() * static_cast<int64_t>(op::TypeSize(y->GetDataType()));
  return a < b + bBytes && b < a + aBytes;
}

}  // namespace

namespace l0op {

const aclTensor *Contiguous(const aclTensor *x, aclOpExecutor *executor) {
  if (!CheckArgs("Contiguous", x, executor)) {
    return nullptr;
  }
  if (x->IsContiguous()) {
    return x;
  }
  ExecutorState &state = *ExecutorAccess::State(executor);
  aclTensor *out = NewContiguousLike(state, x, x->GetDataType());
  AddTask(state, HostTaskKind::CONTIGUOUS, x, out, x->GetViewShape(), x->GetViewStrides());
  return out;
}

const aclTensor *Cast(const aclTensor *self, op::DataType dstDtype, aclOpExecutor *executor) {
  if (!CheckArgs("Cast", self, executor)) {
    return nullptr;
  }
  if (self->GetDataType() == dstDtype) {
    return self;
  }
  if (!opgen_rt::IsConvertibleDtype(self->GetDataType()) || !opgen_rt::IsConvertibleDtype(dstDtype)) {
    OP_LOGE(ACLNN_ERR_INNER, "l0op::Cast: casting %s to %s is not supported.",
            op::ToString(self->GetDataType()).GetString(), op::ToString(dstDtype).GetString());
    return nullptr;
  }
  ExecutorState &state = *ExecutorAccess::State(executor);
  aclTensor *out = NewContiguousLike(state, self, dstDtype);
  AddTask(state, HostTaskKind::CAST, self, out, self->GetViewShape(), self->GetViewStrides());
  return out;
}

const aclTensor *BroadcastTo(const aclTensor *x, const aclIntArray *shape, aclOpExecutor *executor) {
  if (!CheckArgs("BroadcastTo", x, executor)) {
    return nullptr;
  }
  if (shape == nullptr) {
    OP_LOGE(ACLNN_ERR_INNER_NULLPTR, "l0op::BroadcastTo: shape is nullptr.");
    return nullptr;
  }
  op::Shape target;
  op::ToShape(shape->GetData(), shape->Size(), target);
  const op::Shape &from = x->GetViewShape();
  const op::Strides &fromStrides = x->GetViewStrides();
  op::Strides strides(target.GetDimNum(), 0);
  bool ok = target.GetDimNum() >= from.GetDimNum() && shape->Size() <= gert::Shape::kMaxDimNum;
  for (size_t k = 0; ok && k < from.GetDimNum(); ++k) {
    const size_t fi = from.GetDimNum() - 1 - k;
    const size_t ti = target.GetDimNum() - 1 - k;
    if (from.GetDim(fi) == target.GetDim(ti)) {
      strides[ti] = fromStrides[fi];
    } else if (from.GetDim(fi) != 1) {
      ok = false;
    }
  }
  for (size_t i = 0; ok && i < target.GetDimNum(); ++i) {
    ok = target.GetDim(i) >= 0;
  }
  if (!ok) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "l0op::BroadcastTo: shape %s cannot be broadcast to %s.",
            op::ToString(from).GetString(), op::ToString(target).GetString());
    return nullptr;
  }
  ExecutorState &state = *ExecutorAccess::State(executor);
  const auto bytes = static_cast<uint64_t>(target.GetShapeSize()) * op::TypeSize(x->GetDataType());
  aclTensor *out = state.NewTensor(target, opgen_rt::ContiguousStrides(target), 0, x->GetDataType(),
                                   x->GetStorageFormat(), target, bytes);
  AddTask(state, HostTaskKind::BROADCAST_TO, x, out, target, strides);
  return out;
}

const aclTensor *ViewCopy(const aclTensor *x, const aclTensor *y, aclOpExecutor *executor) {
  if (!CheckArgs("ViewCopy", x, executor) || !CheckArgs("ViewCopy", y, executor)) {
    return nullptr;
  }
  if (x == y) {
    return y;
  }
  if (x->GetDataType() != y->GetDataType()) {
    OP_LOGE(ACLNN_ERR_INNER, "l0op::ViewCopy: source dtype %s differs from destination dtype %s.",
            op::ToString(x->GetDataType()).GetString(), op::ToString(y->GetDataType()).GetString());
    return nullptr;
  }
  if (x->Size() != y->Size()) {
    OP_LOGE(ACLNN_ERR_INNER, "l0op::ViewCopy: source shape %s and destination shape %s differ in element count.",
            op::ToString(x->GetViewShape()).GetString(), op::ToString(y->GetViewShape()).GetString());
    return nullptr;
  }
  op::Shape srcShape = x->GetViewShape();
  op::Strides srcStrides = x->GetViewStrides();
  if (srcShape != y->GetViewShape()) {
    if (!x->IsContiguous()) {
      OP_LOGE(ACLNN_ERR_INNER, "l0op::ViewCopy: the source (shape %s) must be contiguous.",
              op::ToString(srcShape).GetString());
      return nullptr;
    }
    srcShape = y->GetViewShape();
    srcStrides = opgen_rt::ContiguousStrides(srcShape);
  }
  ExecutorState &state = *ExecutorAccess::State(executor);
  // When the destination is a plain contiguous tensor of the same shape and the source is what the previous
  // task produced, that task writes the destination directly: the copy (one extra read and write of the
  // whole output) is planned away.
  // Not onto a destination whose memory a tensor the task reads shares (an in-place call): the kernel would
  // read what it has already written.
  if (y->IsContiguous() && y->GetViewOffset() == 0 && x->GetViewShape() == y->GetViewShape() && state.Owns(x) &&
      !state.tasks.empty()) {
    bool redirected = false;
    if (auto *launch = std::get_if<opgen_rt::LaunchTask>(&state.tasks.back())) {
      const bool shared =
          std::any_of(launch->inputs.begin(), launch->inputs.end(),
                      [y](const aclTensor *t) { return SharesMemory(t, y); }) ||
          std::any_of(launch->inputLists.begin(), launch->inputLists.end(), [y](const auto &list) {
            return std::any_of(list.begin(), list.end(), [y](const aclTensor *t) { return SharesMemory(t, y); });
          });
      for (const aclTensor *&output : launch->outputs) {
        if (output == x && !shared) {
          output = state.Pin(y);
          launch->poisonFirst.push_back(output);
          redirected = true;
        }
      }
    } else if (auto *host = std::get_if<opgen_rt::HostTask>(&state.tasks.back())) {
      if (host->dst == x) {
        host->dst = state.Pin(y);
        redirected = true;
      }
    }
    if (redirected) {
      return y;
    }
  }
  AddTask(state, HostTaskKind::VIEW_COPY, x, y, srcShape, srcStrides);
  return y;
}

}  // namespace l0op

namespace opgen_rt {

aclnnStatus RunHostTask(const HostTask &task, HostTaskStatsRecord &stats) {
  const aclTensor *src = task.src;
  const aclTensor *dst = task.dst;
  const int64_t count = dst->Size();
  const size_t srcElem = op::TypeSize(src->GetDataType());
  const size_t dstElem = op::TypeSize(dst->GetDataType());
  stats.kind = HostTaskKindName(task.kind);
  stats.bytesRead = static_cast<uint64_t>(count) * srcElem;
  stats.bytesWritten = static_cast<uint64_t>(count) * dstElem;
  if (count == 0) {
    return ACLNN_SUCCESS;
  }
  const auto *srcBase = static_cast<const uint8_t *>(src->GetStorageAddr());
  auto *dstBase = static_cast<uint8_t *>(dst->GetStorageAddr());
  if (srcBase == nullptr || dstBase == nullptr) {
    OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "%s: a tensor has no data address.", stats.kind.c_str());
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  const bool sameType = src->GetDataType() == dst->GetDataType();
  if (sameType && IsRowMajor(task.srcShape, task.srcStrides) && dst->IsContiguous()) {
    std::memmove(dstBase + dst->GetViewOffset() * static_cast<int64_t>(dstElem),
                 srcBase + src->GetViewOffset() * static_cast<int64_t>(srcElem), static_cast<size_t>(count) * dstElem);
    return ACLNN_SUCCESS;
  }
  ViewCursor in(task.srcShape, task.srcStrides, src->GetViewOffset());
  ViewCursor out(dst->GetViewShape(), dst->GetViewStrides(), dst->GetViewOffset());
  for (int64_t i = 0; i < count; ++i) {
    const uint8_t *from = srcBase + in.Offset() * static_cast<int64_t>(srcElem);
    uint8_t *to = dstBase + out.Offset() * static_cast<int64_t>(dstElem);
    if (sameType) {
      std::memcpy(to, from, dstElem);
    } else {
      WriteElement(to, dst->GetDataType(), ReadElement(from, src->GetDataType()));
    }
    in.Next();
    out.Next();
  }
  return ACLNN_SUCCESS;
}

}  // namespace opgen_rt
