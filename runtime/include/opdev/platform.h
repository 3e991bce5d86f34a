// ascend-opgen host emulation of CANN's opdev/platform.h: the SoC the aclnn API runs on.
// The library's product comes from the builder's glue (opgen_rt::CurrentProduct()).
#ifndef OPGEN_OPDEV_PLATFORM_H
#define OPGEN_OPDEV_PLATFORM_H

#include <cstdint>
#include <string>

#include "aclnn/aclnn_base.h"
#include "graph/ascend_string.h"
#include "platform/platform_info.h"
#include "platform/soc_spec.h"

namespace op {

enum class SocVersion {
  ASCEND910 = 0,
  ASCEND910B,
  ASCEND910_93,
  ASCEND910_95,
  ASCEND950 = ASCEND910_95,
  ASCEND910E,
  ASCEND310,
  ASCEND310P,
  ASCEND310B,
  ASCEND310C,
  ASCEND610LITE,
  KIRINX90,
  KIRIN9030,
  ASCEND350,
  RESERVED_VERSION = 99999
};

class PlatformInfo {
 public:
  PlatformInfo() = default;
  explicit PlatformInfo(int32_t deviceId) : deviceId_(deviceId) {}
  PlatformInfo(const PlatformInfo &) = delete;
  PlatformInfo &operator=(const PlatformInfo &) = delete;

  SocVersion GetSocVersion() const;
  // The catalogue name, e.g. "Ascend910B".
  const std::string &GetSocLongVersion() const;
  int32_t GetDeviceId() const {
    return deviceId_;
  }
  int64_t GetBlockSize() const {
    return 32;
  }
  uint32_t GetCubeCoreNum() const;
  uint32_t GetVectorCoreNum() const;
  bool Valid() const {
    return true;
  }
  bool GetFftsPlusMode() const {
    return false;
  }
  NpuArch GetCurNpuArch() const;
  fe::PlatFormInfos *GetPlatformInfos() const;

 private:
  int32_t deviceId_ = 0;
};

const PlatformInfo &GetCurrentPlatformInfo();
// "ASCEND910B", ...
ge::AscendString ToString(SocVersion socVersion);

}  // namespace op

#endif  // OPGEN_OPDEV_PLATFORM_H
