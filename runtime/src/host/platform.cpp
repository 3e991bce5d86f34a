// ascend-opgen host emulation: platform facts (op::PlatformInfo, fe::PlatFormInfos,
// platform_ascendc::PlatformAscendC), all derived from the library's product (opgen_rt::CurrentProduct()).
#include <string>

#include "opdev/platform.h"
#include "opgen_rt/core.h"
#include "opgen_rt/glue.h"
#include "platform/platform_info.h"
#include "tiling/platform/platform_ascendc.h"

namespace {

const opgen_rt::ProductInfo &ProductOf(const fe::PlatFormInfos *infos) {
  return infos != nullptr && infos->Product() != nullptr ? *infos->Product() : opgen_rt::CurrentProduct();
}

// Split (AIC/AIV) architectures have separate vector cores, two per AI core.
bool IsSplitArch(const opgen_rt::ProductInfo &p) {
  return p.npuArch == 2201 || p.npuArch == 3510;
}

uint32_t AicCount(const opgen_rt::ProductInfo &p) {
  return IsSplitArch(p) ? (p.vectorCoreNum + 1) / 2 : p.vectorCoreNum;
}

fe::PlatFormInfos *CurrentPlatFormInfos() {
  static fe::PlatFormInfos infos(&opgen_rt::CurrentProduct());
  return &infos;
}

}  // namespace

namespace fe {

bool PlatFormInfos::Init() {
  product_ = &opgen_rt::CurrentProduct();
  return true;
}

uint32_t PlatFormInfos::GetCoreNum() const {
  return ProductOf(this).vectorCoreNum;
}

bool PlatFormInfos::GetPlatformRes(const std::string &label, const std::string &key, std::string &value) {
  const opgen_rt::ProductInfo &p = ProductOf(this);
  if (label == "SoCInfo") {
    if (key == "ai_core_cnt" || key == "cube_core_cnt") {
      value = std::to_string(AicCount(p));
      return true;
    }
    if (key == "vector_core_cnt") {
      value = std::to_string(IsSplitArch(p) ? p.vectorCoreNum : 0U);
      return true;
    }
    if (key == "core_type_list") {
      value = IsSplitArch(p) ? "CubeCore,VectorCore" : "AiCore";
      return true;
    }
  } else if (label == "AICoreSpec") {
    if (key == "ub_size") {
      value = std::to_string(p.ubBytes);
      return true;
    }
  } else if (label == "version") {
    if (key == "Short_SoC_version" || key == "SoC_version") {
      value = p.name;
      return true;
    }
    if (key == "NpuArch") {
      value = std::to_string(p.npuArch);
      return true;
    }
  }
  return false;
}

}  // namespace fe

namespace op {

SocVersion PlatformInfo::GetSocVersion() const {
  return static_cast<SocVersion>(opgen_rt::CurrentProduct().socVersion);
}

const std::string &PlatformInfo::GetSocLongVersion() const {
  static const std::string name = opgen_rt::CurrentProduct().name;
  return name;
}

uint32_t PlatformInfo::GetCubeCoreNum() const {
  return AicCount(opgen_rt::CurrentProduct());
}

uint32_t PlatformInfo::GetVectorCoreNum() const {
  return opgen_rt::CurrentProduct().vectorCoreNum;
}

NpuArch PlatformInfo::GetCurNpuArch() const {
  return static_cast<NpuArch>(opgen_rt::CurrentProduct().npuArch);
}

fe::PlatFormInfos *PlatformInfo::GetPlatformInfos() const {
  return CurrentPlatFormInfos();
}

const PlatformInfo &GetCurrentPlatformInfo() {
  static const PlatformInfo info(0);
  return info;
}

ge::AscendString ToString(SocVersion socVersion) {
  switch (socVersion) {
    case SocVersion::ASCEND910:
      return ge::AscendString("ASCEND910");
    case SocVersion::ASCEND910B:
      return ge::AscendString("ASCEND910B");
    case SocVersion::ASCEND910_93:
      return ge::AscendString("ASCEND910_93");
    case SocVersion::ASCEND910_95:
      return ge::AscendString("ASCEND950");
    case SocVersion::ASCEND910E:
      return ge::AscendString("ASCEND910E");
    case SocVersion::ASCEND310:
      return ge::AscendString("ASCEND310");
    case SocVersion::ASCEND310P:
      return ge::AscendString("ASCEND310P");
    case SocVersion::ASCEND310B:
      return ge::AscendString("ASCEND310B");
    case SocVersion::ASCEND310C:
      return ge::AscendString("ASCEND310C");
    case SocVersion::ASCEND610LITE:
      return ge::AscendString("ASCEND610LITE");
    case SocVersion::KIRINX90:
      return ge::AscendString("KIRINX90");
    case SocVersion::KIRIN9030:
      return ge::AscendString("KIRIN9030");
    case SocVersion::ASCEND350:
      return ge::AscendString("ASCEND350");
    case SocVersion::RESERVED_VERSION:
      break;
  }
  return ge::AscendString("RESERVED_VERSION");
}

}  // namespace op

namespace opgen_rt {

int32_t SocVersionId(const char *name) {
  const std::string text = name == nullptr ? "" : name;
  if (text == "ASCEND910_95") {  // the enum's other name of ASCEND950
    return static_cast<int32_t>(op::SocVersion::ASCEND910_95);
  }
  for (int32_t v = 0; v <= static_cast<int32_t>(op::SocVersion::ASCEND350); ++v) {
    if (text == op::ToString(static_cast<op::SocVersion>(v)).GetString()) {
      return v;
    }
  }
  return static_cast<int32_t>(op::SocVersion::RESERVED_VERSION);
}

}  // namespace opgen_rt

namespace platform_ascendc {

uint32_t PlatformAscendC::GetCoreNum() const {
  return AicCount(ProductOf(platformInfo_));
}

uint32_t PlatformAscendC::GetCoreNumAic() const {
  return AicCount(ProductOf(platformInfo_));
}

uint32_t PlatformAscendC::GetCoreNumAiv() const {
  return ProductOf(platformInfo_).vectorCoreNum;
}

void PlatformAscendC::GetCoreMemSize(const CoreMemType &memType, uint64_t &size) const {
  const opgen_rt::ProductInfo &p = ProductOf(platformInfo_);
  size = memType == CoreMemType::UB ? p.ubBytes - p.ubReservedBytes : 0;
}

SocVersion PlatformAscendC::GetSocVersion() const {
  switch (static_cast<op::SocVersion>(ProductOf(platformInfo_).socVersion)) {
    case op::SocVersion::ASCEND910:
      return SocVersion::ASCEND910;
    case op::SocVersion::ASCEND910B:
    case op::SocVersion::ASCEND910_93:
      return SocVersion::ASCEND910B;
    case op::SocVersion::ASCEND910_95:
      return SocVersion::ASCEND950;
    case op::SocVersion::ASCEND310P:
      return SocVersion::ASCEND310P;
    case op::SocVersion::ASCEND310B:
      return SocVersion::ASCEND310B;
    case op::SocVersion::ASCEND310:
      return SocVersion::ASCEND310;
    default:
      return SocVersion::RESERVED_VERSION;
  }
}

NpuArch PlatformAscendC::GetCurNpuArch() const {
  return static_cast<NpuArch>(ProductOf(platformInfo_).npuArch);
}

uint32_t PlatformAscendC::GetLibApiWorkSpaceSize() const {
  return static_cast<uint32_t>(ProductOf(platformInfo_).sysWorkspaceBytes);
}

uint32_t PlatformAscendC::CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
  if (aicCoreNum == 0 || aivCoreNum == 0 || aicCoreNum > aivCoreNum) {
    return sliceNum;
  }
  const uint32_t ratio = aivCoreNum / aicCoreNum;
  return ratio == 0 ? sliceNum : (sliceNum + ratio - 1) / ratio;
}

PlatformAscendC *PlatformAscendCManager::GetInstance() {
  static PlatformAscendC instance(CurrentPlatFormInfos());
  return &instance;
}

PlatformAscendC *PlatformAscendCManager::GetInstance(const char *customSocVersion) {
  (void)customSocVersion;
  return GetInstance();
}

}  // namespace platform_ascendc
