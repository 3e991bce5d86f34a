// ascend-opgen host emulation of CANN's graph/ge_error_codes.h.
#ifndef OPGEN_GRAPH_GE_ERROR_CODES_H
#define OPGEN_GRAPH_GE_ERROR_CODES_H

#include <cstdint>

namespace ge {
using graphStatus = uint32_t;
const graphStatus GRAPH_SUCCESS = 0;
const graphStatus GRAPH_FAILED = 0xFFFFFFFF;
const graphStatus GRAPH_PARAM_INVALID = 50331649;
const graphStatus GRAPH_PARAM_OUT_OF_RANGE = 50331644;
}  // namespace ge

#endif  // OPGEN_GRAPH_GE_ERROR_CODES_H
