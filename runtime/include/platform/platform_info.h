// ascend-opgen host emulation of CANN's platform/platform_info.h: fe::PlatFormInfos, the platform facts a
// tiling receives (context->GetPlatformInfo()). Here it is a view of the library's product
// (opgen_rt::CurrentProduct(), from specs/products.yaml through the builder's glue).
#ifndef OPGEN_PLATFORM_PLATFORM_INFO_H
#define OPGEN_PLATFORM_PLATFORM_INFO_H

#include <cstdint>
#include <string>

namespace opgen_rt {
struct ProductInfo;
}

namespace fe {

class PlatFormInfos {
 public:
  // CANN's PlatFormInfos is default-constructed and Init() loads the platform of the SoC the process runs
  // on; here that is the product the library under test was built for (opgen_rt::CurrentProduct()).
  PlatFormInfos() = default;
  explicit PlatFormInfos(const opgen_rt::ProductInfo *product) : product_(product) {}
  // Always true: the library's product is known.
  bool Init();

  // AI cores a tiling may launch on (the vector-core count for vector kernels).
  uint32_t GetCoreNum() const;
  // Platform-config lookups, as in the SoC .ini files. Known keys: ("SoCInfo", "ai_core_cnt" |
  // "cube_core_cnt" | "vector_core_cnt" | "core_type_list"), ("AICoreSpec", "ub_size"), ("version",
  // "Short_SoC_version" | "SoC_version" | "NpuArch"). Returns false for anything else.
  bool GetPlatformRes(const std::string &label, const std::string &key, std::string &value);
  bool GetPlatformResWithLock(const std::string &label, const std::string &key, std::string &value) {
    return GetPlatformRes(label, key, value);
  }

  const opgen_rt::ProductInfo *Product() const {
    return product_;
  }

 private:
  const opgen_rt::ProductInfo *product_ = nullptr;
};

}  // namespace fe

#endif  // OPGEN_PLATFORM_PLATFORM_INFO_H
