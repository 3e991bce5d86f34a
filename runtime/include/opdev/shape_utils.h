// ascend-opgen host emulation of CANN's opdev/shape_utils.h.
#ifndef OPGEN_OPDEV_SHAPE_UTILS_H
#define OPGEN_OPDEV_SHAPE_UTILS_H

#include <cstdint>

#include "exe_graph/runtime/shape.h"
#include "graph/ascend_string.h"
#include "opdev/common_types.h"
#include "opdev/data_type_utils.h"

namespace op {

// "[2, 3]"; "[]" for a scalar.
ge::AscendString ToString(const op::Shape &shape);
ge::AscendString ToString(const op::Strides &strides);
void ToShape(const int64_t *dims, uint64_t dimNum, op::Shape &shape);
void ToShape(const op::ShapeVector &shapeVector, op::Shape &shape);
op::ShapeVector ToShapeVector(const op::Shape &shape);
// True when `self` and `other` broadcast together (NumPy rules, aligned at the last dimension).
bool CheckBroadcastShape(const op::Shape &self, const op::Shape &other);
// The broadcast shape of `self` and `other`; false (broadcastShape unchanged) when they do not broadcast.
bool BroadcastInferShape(const op::Shape &self, const op::Shape &other, op::Shape &broadcastShape);

}  // namespace op

#endif  // OPGEN_OPDEV_SHAPE_UTILS_H
