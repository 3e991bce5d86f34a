// Test harness for the device side of the host emulation. Hand-written test code.
#include "harness.h"

#include <chrono>
#include <cstdio>
#include <string>

namespace th {

namespace {
using opgen_rt::DtypeId;
const opgen_rt::ProductInfo *g_product = nullptr;
}  // namespace

int g_checks = 0;
int g_failures = 0;

const opgen_rt::ProductInfo &Ascend910B() {
  static const opgen_rt::ProductInfo p{
      "Ascend910B", "ascend910b", 2, 2201, 196608, 0, 48, true, true,
      {DtypeId::INT8, DtypeId::INT16, DtypeId::FLOAT16, DtypeId::BF16, DtypeId::INT32, DtypeId::FLOAT}, 8, true, 16777216, true};
  return p;
}

const opgen_rt::ProductInfo &Ascend910() {
  static const opgen_rt::ProductInfo p{"Ascend910", "ascend910", 1, 1001, 262144, 0, 32, false, false,
                                       {DtypeId::FLOAT}, 4, false, 2097152, false};
  return p;
}

const opgen_rt::ProductInfo &Ascend950() {
  static const opgen_rt::ProductInfo p{
      "Ascend950", "ascend950", 4, 3510, 253952, 0, 64, true, true,
      {DtypeId::INT8, DtypeId::INT16, DtypeId::FLOAT16, DtypeId::BF16, DtypeId::INT32, DtypeId::FLOAT}, 8, true, 16777216, true};
  return p;
}

const opgen_rt::ProductInfo &Ascend310P() {
  static const opgen_rt::ProductInfo p{"Ascend310P", "ascend310p", 5, 2002, 262144, 0, 8, false, false,
                                       {DtypeId::INT16, DtypeId::FLOAT16, DtypeId::FLOAT}, 8, false, 2097152, false};
  return p;
}

void UseProduct(const opgen_rt::ProductInfo &p) { g_product = &p; }

Gm::Gm(uint64_t n, std::string nm, bool w)
    : store(new uint64_t[(n + 7) / 8 + 1]()), bytes(n), name(std::move(nm)), writable(w) {}

opgen_rt::LaunchResult RunWithOrder(const KernelLaunch &k, opgen_rt::CoreOrder order, uint64_t seed) {
  opgen_rt::SetCoreOrder(order, seed);
  return Run(k);
}

opgen_rt::LaunchResult Run(const KernelLaunch &k) {
  opgen_rt::LaunchRequest req;
  req.kernelName = k.name;
  req.opType = k.name;
  req.entry = k.entry;
  req.blockDim = k.blockDim;
  req.tilingKey = k.tilingKey;
  for (Gm *g : k.args) {
    req.args.push_back(g != nullptr ? g->data() : nullptr);
    if (g != nullptr) {
      req.regions.push_back(g->Region());
    }
  }
  for (Gm *g : k.extraRegions) {
    req.regions.push_back(g->Region());
  }
  return opgen_rt::RunKernel(req);
}

bool Contains(const std::string &s, const std::string &sub) { return s.find(sub) != std::string::npos; }

bool ExpectFault(const opgen_rt::LaunchResult &r, const std::string &rule, const std::string &kernel, int core,
                 uint32_t blockDim, const char *where) {
  const std::string product = opgen_rt::CurrentProduct().name;
  bool ok = !r.ok;
  ok = ok && Contains(r.fault, "kernel fault [" + rule + "]");
  ok = ok && Contains(r.fault, "in kernel " + kernel + " ");
  ok = ok && Contains(r.fault, "(" + product + "): ");
  if (core >= 0) {
    ok = ok && Contains(r.fault, "on core " + std::to_string(core) + "/" + std::to_string(blockDim) + " ");
  } else {
    ok = ok && Contains(r.fault, "/" + std::to_string(blockDim) + " (");
  }
  TH_CHECK(ok, "%s: expected [%s] fault in %s on core %d/%u (%s), got ok=%d fault=\"%s\"", where, rule.c_str(),
           kernel.c_str(), core, blockDim, product.c_str(), r.ok ? 1 : 0, r.fault.c_str());
  return ok;
}

const char *OrderName(opgen_rt::CoreOrder o) {
  switch (o) {
    case opgen_rt::CoreOrder::IN_ORDER:
      return "IN_ORDER";
    case opgen_rt::CoreOrder::REVERSED:
      return "REVERSED";
    case opgen_rt::CoreOrder::SHUFFLE:
      return "SHUFFLE";
    case opgen_rt::CoreOrder::CONCURRENT:
      return "CONCURRENT";
  }
  return "?";
}

const opgen_rt::CoreOrder kAllOrders[4] = {opgen_rt::CoreOrder::IN_ORDER, opgen_rt::CoreOrder::REVERSED,
                                           opgen_rt::CoreOrder::SHUFFLE, opgen_rt::CoreOrder::CONCURRENT};

double NowSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int Finish(const char *suite) {
  std::printf("%s: %d checks, %d failed\n", suite, g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}

}  // namespace th

namespace opgen_rt {
const ProductInfo &CurrentProduct() {
  if (th::g_product == nullptr) {
    th::UseProduct(th::Ascend910B());
  }
  return *th::g_product;
}
}  // namespace opgen_rt
