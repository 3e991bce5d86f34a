// Test harness for the device side of the ascend-opgen host emulation (runtime/tests_device).
// Defines products and CurrentProduct() (normally provided by the host glue), GM buffers, launches and
// checks. Hand-written test code.
#ifndef OPGEN_RT_TESTS_DEVICE_HARNESS_H
#define OPGEN_RT_TESTS_DEVICE_HARNESS_H

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "opgen_rt/core.h"

namespace th {

// Products as in specs/products.yaml (ubReservedBytes 0, as the contract tiling assumes).
const opgen_rt::ProductInfo &Ascend910B();
const opgen_rt::ProductInfo &Ascend910();
const opgen_rt::ProductInfo &Ascend950();
const opgen_rt::ProductInfo &Ascend310P();
void UseProduct(const opgen_rt::ProductInfo &p);

extern int g_checks;
extern int g_failures;

#define TH_CHECK(cond, ...)                                              \
  do {                                                                   \
    ++::th::g_checks;                                                    \
    if (!(cond)) {                                                       \
      ++::th::g_failures;                                                \
      std::fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                 \
      std::fprintf(stderr, "\n");                                        \
    }                                                                    \
  } while (0)

// A GM allocation (64-byte aligned, like a device allocation).
struct Gm {
  explicit Gm(uint64_t bytes, std::string name, bool writable = true);
  uint8_t *data() { return reinterpret_cast<uint8_t *>(store.get()); }
  template <typename T>
  T *as() {
    return reinterpret_cast<T *>(store.get());
  }
  opgen_rt::GmRegion Region() { return opgen_rt::GmRegion{name, data(), bytes, writable}; }
  std::unique_ptr<uint64_t[]> store;
  uint64_t bytes;
  std::string name;
  bool writable;
};

struct KernelLaunch {
  std::string name = "test_kernel";
  opgen_rt::KernelEntry entry = nullptr;
  std::vector<Gm *> args;       // kernel parameters, in order (nullptr for an absent one)
  std::vector<Gm *> extraRegions;
  uint32_t blockDim = 1;
  uint64_t tilingKey = 0;
};

opgen_rt::LaunchResult Run(const KernelLaunch &k);
opgen_rt::LaunchResult RunWithOrder(const KernelLaunch &k, opgen_rt::CoreOrder order, uint64_t seed = 0);

bool Contains(const std::string &s, const std::string &sub);

// Checks that `r` is a fault of `rule` in kernel `kernel` on core `core` (any core when -1) of `blockDim`
// cores on the current product. Returns true when it matched.
bool ExpectFault(const opgen_rt::LaunchResult &r, const std::string &rule, const std::string &kernel, int core,
                 uint32_t blockDim, const char *where);

const char *OrderName(opgen_rt::CoreOrder o);
extern const opgen_rt::CoreOrder kAllOrders[4];

double NowSeconds();
int Finish(const char *suite);

}  // namespace th

#endif  // OPGEN_RT_TESTS_DEVICE_HARNESS_H
