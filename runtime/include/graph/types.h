// ascend-opgen host emulation of CANN's graph/types.h: ge::DataType and ge::Format.
// Values match CANN (and aclDataType / aclFormat, which share them).
#ifndef OPGEN_GRAPH_TYPES_H
#define OPGEN_GRAPH_TYPES_H

#include <cstdint>

#include "graph/ge_error_codes.h"

namespace ge {

enum DataType {
  DT_FLOAT = 0,
  DT_FLOAT16 = 1,
  DT_INT8 = 2,
  DT_INT32 = 3,
  DT_UINT8 = 4,
  DT_INT16 = 6,
  DT_UINT16 = 7,
  DT_UINT32 = 8,
  DT_INT64 = 9,
  DT_UINT64 = 10,
  DT_DOUBLE = 11,
  DT_BOOL = 12,
  DT_STRING = 13,
  DT_DUAL_SUB_INT8 = 14,
  DT_DUAL_SUB_UINT8 = 15,
  DT_COMPLEX64 = 16,
  DT_COMPLEX128 = 17,
  DT_QINT8 = 18,
  DT_QINT16 = 19,
  DT_QINT32 = 20,
  DT_QUINT8 = 21,
  DT_QUINT16 = 22,
  DT_RESOURCE = 23,
  DT_STRING_REF = 24,
  DT_DUAL = 25,
  DT_VARIANT = 26,
  DT_BF16 = 27,
  DT_UNDEFINED = 28,
  DT_INT4 = 29,
  DT_UINT1 = 30,
  DT_INT2 = 31,
  DT_UINT2 = 32,
  DT_COMPLEX32 = 33,
  DT_HIFLOAT8 = 34,
  DT_FLOAT8_E5M2 = 35,
  DT_FLOAT8_E4M3FN = 36,
  DT_FLOAT8_E8M0 = 37,
  DT_FLOAT6_E3M2 = 38,
  DT_FLOAT6_E2M3 = 39,
  DT_FLOAT4_E2M1 = 40,
  DT_FLOAT4_E1M2 = 41,
  DT_MAX
};

enum Format {
  FORMAT_NCHW = 0,
  FORMAT_NHWC = 1,
  FORMAT_ND = 2,
  FORMAT_NC1HWC0 = 3,
  FORMAT_FRACTAL_Z = 4,
  FORMAT_NC1HWC0_C04 = 12,
  FORMAT_HWCN = 16,
  FORMAT_NDHWC = 27,
  FORMAT_FRACTAL_ZZ = 28,
  FORMAT_FRACTAL_NZ = 29,
  FORMAT_NCDHW = 30,
  FORMAT_DHWCN = 31,
  FORMAT_NDC1HWC0 = 32,
  FORMAT_FRACTAL_Z_3D = 33,
  FORMAT_CN = 34,
  FORMAT_NC = 35,
  FORMAT_NCL = 47,
  FORMAT_RESERVED = 254,
  FORMAT_MAX = 0xff
};

}  // namespace ge

#endif  // OPGEN_GRAPH_TYPES_H
