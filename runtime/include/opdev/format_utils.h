// ascend-opgen host emulation of CANN's opdev/format_utils.h.
#ifndef OPGEN_OPDEV_FORMAT_UTILS_H
#define OPGEN_OPDEV_FORMAT_UTILS_H

#include <string>

#include "graph/ascend_string.h"
#include "opdev/common_types.h"

namespace op {

// "ND", "NCHW", "FRACTAL_NZ", ...; "UNDEFINED" for unknown values.
ge::AscendString ToString(Format format);
// Parses "ND" or "FORMAT_ND"; FORMAT_RESERVED when unknown.
Format ToFormat(const std::string &formatStr);
// True for device-private layouts (NC1HWC0, FRACTAL_Z, FRACTAL_NZ, ...); false for ND, NCHW, NHWC, ....
bool IsPrivateFormat(Format format);
inline Format GetPrimaryFormat(Format format) {
  return format;
}

}  // namespace op

#endif  // OPGEN_OPDEV_FORMAT_UTILS_H
