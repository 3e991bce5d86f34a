// ascend-opgen host emulation of CANN's platform/soc_spec.h: the NPU architecture numbers.
#ifndef OPGEN_PLATFORM_SOC_SPEC_H
#define OPGEN_PLATFORM_SOC_SPEC_H

#include <cstdint>

enum class NpuArch : uint32_t {
  DAV_1001 = 1001,
  DAV_2002 = 2002,
  DAV_2201 = 2201,
  DAV_3510 = 3510,
};

#endif  // OPGEN_PLATFORM_SOC_SPEC_H
