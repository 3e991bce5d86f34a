// ascend-opgen host emulation of CANN's tiling/platform/platform_ascendc.h: platform facts for tilings.
#ifndef OPGEN_TILING_PLATFORM_PLATFORM_ASCENDC_H
#define OPGEN_TILING_PLATFORM_PLATFORM_ASCENDC_H

#include <cstdint>

#include "platform/platform_info.h"
#include "platform/soc_spec.h"

namespace platform_ascendc {

enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, FB = 7, BT = 8, RESERVED };

// CANN's platform_ascendc::SocVersion (note: a different enum from op::SocVersion). Atlas A3
// (Ascend910_93) reports ASCEND910B here, as CANN documents ("Ascend910B1~4, ... Ascend910_93 serials").
enum class SocVersion {
  ASCEND910 = 0,
  ASCEND910B,
  ASCEND310P,
  ASCEND310B,
  ASCEND950,
  ASCEND910_55,
  AS31XM1,
  ASCEND031,
  ASCEND035,
  ASCEND310,
  ASCEND610,
  ASCEND610Lite,
  ASCEND910_93,
  RESERVED_VERSION = 99999
};

class PlatformAscendC {
 public:
  PlatformAscendC() = delete;
  ~PlatformAscendC() = default;
  explicit PlatformAscendC(fe::PlatFormInfos *platformInfo) : platformInfo_(platformInfo) {}

  // Coupled products (Ascend910, Ascend310P): the AI-core count. Split products (A2, A3, 950): the AI-core
  // (cube) count, which is half the vector-core count.
  uint32_t GetCoreNum() const;
  uint32_t GetCoreNumAic() const;
  // Cores a vector kernel launches on: vector cores on split products, AI cores on coupled ones.
  uint32_t GetCoreNumAiv() const;
  uint32_t GetCoreNumVector() const {
    return GetCoreNumAiv();
  }
  // UB: the product's UB bytes minus what the framework reserves. Other memories are not emulated (0).
  void GetCoreMemSize(const CoreMemType &memType, uint64_t &size) const;
  SocVersion GetSocVersion() const;
  NpuArch GetCurNpuArch() const;
  // Bytes of system workspace AscendC reserves in front of the user workspace (RESERVED_WORKSPACE, asc-devkit
  // impl/basic_api/utils/kernel_utils_constants.h: 2 MiB on NpuArch 1001/2002, 16 MiB on 2201/3510). Tilings
  // add it to the workspace they request; kernels find their part with GetUserWorkspace(workspace).
  uint32_t GetLibApiWorkSpaceSize() const;
  // CANN's helper: cores to launch for `sliceNum` slices of a mixed/vector kernel.
  uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const;

 private:
  fe::PlatFormInfos *platformInfo_;
};

// The current product's platform, for code outside a tiling context.
class PlatformAscendCManager {
 public:
  static PlatformAscendC *GetInstance();
  static PlatformAscendC *GetInstance(const char *customSocVersion);
};

}  // namespace platform_ascendc

#endif  // OPGEN_TILING_PLATFORM_PLATFORM_ASCENDC_H
