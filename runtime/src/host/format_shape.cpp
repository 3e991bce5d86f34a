// ascend-opgen host emulation: format names, shape printing and NumPy broadcasting.
#include <string>

#include "opdev/format_utils.h"
#include "opdev/shape_utils.h"

namespace {

struct FormatEntry {
  ge::Format format;
  const char *name;
  bool isPrivate;
};

constexpr FormatEntry kFormats[] = {
    {ge::FORMAT_NCHW, "NCHW", false},
    {ge::FORMAT_NHWC, "NHWC", false},
    {ge::FORMAT_ND, "ND", false},
    {ge::FORMAT_NC1HWC0, "NC1HWC0", true},
    {ge::FORMAT_FRACTAL_Z, "FRACTAL_Z", true},
    {ge::FORMAT_NC1HWC0_C04, "NC1HWC0_C04", true},
    {ge::FORMAT_HWCN, "HWCN", false},
    {ge::FORMAT_NDHWC, "NDHWC", false},
    {ge::FORMAT_FRACTAL_ZZ, "FRACTAL_ZZ", true},
    {ge::FORMAT_FRACTAL_NZ, "FRACTAL_NZ", true},
    {ge::FORMAT_NCDHW, "NCDHW", false},
    {ge::FORMAT_DHWCN, "DHWCN", false},
    {ge::FORMAT_NDC1HWC0, "NDC1HWC0", true},
    {ge::FORMAT_FRACTAL_Z_3D, "FRACTAL_Z_3D", true},
    {ge::FORMAT_CN, "CN", false},
    {ge::FORMAT_NC, "NC", false},
    {ge::FORMAT_NCL, "NCL", false},
};

}  // namespace

namespace op {

ge::AscendString ToString(Format format) {
  for (const auto &e : kFormats) {
    if (e.format == format) {
      return ge::AscendString(e.name);
    }
  }
  return ge::AscendString("UNDEFINED");
}

Format ToFormat(const std::string &formatStr) {
  std::string name = formatStr;
  if (name.rfind("FORMAT_", 0) == 0) {
    name = name.substr(7);
  }
  for (const auto &e : kFormats) {
    if (name == e.name) {
      return e.format;
    }
  }
  return ge::FORMAT_RESERVED;
}

bool IsPrivateFormat(Format format) {
  for (const auto &e : kFormats) {
    if (e.format == format) {
      return e.isPrivate;
    }
  }
  return false;
}

ge::AscendString ToString(const op::Shape &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.GetDimNum(); ++i) {
    if (i != 0) {
      text += ", ";
    }
    text += std::to_string(shape.GetDim(i));
  }
  text += "]";
  return ge::AscendString(text);
}

ge::AscendString ToString(const op::Strides &strides) {
  std::string text = "[";
  for (size_t i = 0; i < strides.size(); ++i) {
    if (i != 0) {
      text += ", ";
    }
    text += std::to_string(strides[i]);
  }
  text += "]";
  return ge::AscendString(text);
}

void ToShape(const int64_t *dims, uint64_t dimNum, op::Shape &shape) {
  shape.SetDimNum(0);
  for (uint64_t i = 0; i < dimNum && dims != nullptr; ++i) {
    shape.AppendDim(dims[i]);
  }
}

void ToShape(const op::ShapeVector &shapeVector, op::Shape &shape) {
  ToShape(shapeVector.data(), shapeVector.size(), shape);
}

op::ShapeVector ToShapeVector(const op::Shape &shape) {
  op::ShapeVector dims(shape.GetDimNum());
  for (size_t i = 0; i < shape.GetDimNum(); ++i) {
    dims[i] = shape.GetDim(i);
  }
  return dims;
}

bool CheckBroadcastShape(const op::Shape &self, const op::Shape &other) {
  op::Shape unused;
  return BroadcastInferShape(self, other, unused);
}

bool BroadcastInferShape(const op::Shape &self, const op::Shape &other, op::Shape &broadcastShape) {
  const size_t rank = self.GetDimNum() > other.GetDimNum() ? self.GetDimNum() : other.GetDimNum();
  op::Shape result;
  for (size_t i = 0; i < rank; ++i) {
    // i counts dimensions from the left of the result; align both shapes at their last dimension.
    const size_t fromRight = rank - 1 - i;
    const int64_t a = fromRight < self.GetDimNum() ? self.GetDim(self.GetDimNum() - 1 - fromRight) : 1;
    const int64_t b = fromRight < other.GetDimNum() ? other.GetDim(other.GetDimNum() - 1 - fromRight) : 1;
    if (a == b || b == 1) {
      result.AppendDim(a);
    } else if (a == 1) {
      result.AppendDim(b);
    } else {
      return false;
    }
  }
  broadcastShape = result;
  return true;
}

}  // namespace op
