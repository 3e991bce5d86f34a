// ascend-opgen host emulation of the AscendC kernel API: the enumerations kernels name.
// Names and values follow CANN's kernel_operator.h (asc-devkit basic API); see ascend-platform.md.
// Hand-written runtime code; not generated.
#ifndef OPGEN_RT_DEVICE_ENUMS_H
#define OPGEN_RT_DEVICE_ENUMS_H

#include <cstdint>

// Pipes of the AI core (a compiler builtin enum on the device, so it lives in the global namespace).
enum pipe_t : int32_t {
  PIPE_S = 0,
  PIPE_V,
  PIPE_M,
  PIPE_MTE1,
  PIPE_MTE2,
  PIPE_MTE3,
  PIPE_ALL,
  PIPE_MTE4,
  PIPE_MTE5,
  PIPE_V2,
  PIPE_FIX,
};

// Event ids for SetFlag/WaitFlag (also a device builtin enum).
enum event_t : int32_t {
  EVENT_ID0 = 0,
  EVENT_ID1,
  EVENT_ID2,
  EVENT_ID3,
  EVENT_ID4,
  EVENT_ID5,
  EVENT_ID6,
  EVENT_ID7,
};

namespace AscendC {

enum class TPosition : uint8_t {
  GM = 0,
  A1,
  A2,
  B1,
  B2,
  C1,
  C2,
  CO1,
  CO2,
  VECIN,
  VECOUT,
  VECCALC,
  LCM = VECCALC,
  SPM,
  SHM = SPM,
  TSCM,
  C2PIPE2GM,
  C2PIPE2LOCAL,
  MAX,
};
using QuePosition = TPosition;

enum class HardEvent : uint8_t {
  MTE2_MTE1 = 0,
  MTE1_MTE2,
  MTE1_M,
  M_MTE1,
  MTE2_V,
  V_MTE2,
  MTE3_V,
  V_MTE3,
  M_V,
  V_M,
  V_V,
  MTE3_MTE1,
  MTE1_MTE3,
  MTE1_V,
  MTE2_M,
  M_MTE2,
  V_MTE1,
  M_FIX,
  FIX_M,
  MTE3_MTE2,
  MTE2_MTE3,
  S_V,
  V_S,
  S_MTE2,
  MTE2_S,
  S_MTE3,
  MTE3_S,
  MTE2_FIX,
  FIX_MTE2,
  FIX_S,
  M_S,
  FIX_MTE3,
  MAX,
};

// Scalar data cache maintenance targets (asc-devkit impl/basic_api/kernel_reg.h).
enum class CacheLine : uint64_t {
  SINGLE_CACHE_LINE = 0,
  ENTIRE_DATA_CACHE,
};

enum class DcciDst : uint64_t {
  CACHELINE_ALL = 0,
  CACHELINE_UB,
  CACHELINE_OUT,
  CACHELINE_ATOMIC,
};

// ascend-platform.md: "RoundMode CAST_NONE 0, CAST_RINT 1, CAST_FLOOR 2, CAST_CEIL 3, CAST_ROUND 4,
// CAST_TRUNC 5, CAST_ODD 6".
enum class RoundMode : int32_t {
  CAST_NONE = 0,
  CAST_RINT = 1,
  CAST_FLOOR = 2,
  CAST_CEIL = 3,
  CAST_ROUND = 4,
  CAST_TRUNC = 5,
  CAST_ODD = 6,
};

enum class CMPMODE : uint8_t {
  LT = 0,
  GT,
  EQ,
  LE,
  GE,
  NE,
};

// asc-devkit kernel_operator_vec_cmpsel_intf.h: "select mode: 0/1/2"; mode 1 selects between a tensor and a
// scalar, modes 0 and 2 between two tensors.
enum class SELMODE : uint8_t {
  VSEL_CMPMASK_SPR = 0,
  VSEL_TENSOR_SCALAR_MODE = 1,
  VSEL_TENSOR_TENSOR_MODE = 2,
};

}  // namespace AscendC

#endif  // OPGEN_RT_DEVICE_ENUMS_H
