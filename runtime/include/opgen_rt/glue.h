// ascend-opgen host emulation: what the builder's glue translation unit uses (the role CANN's build system
// plays: binding a kernel binary to its OpType, and the SoC facts). Hand-written; not a CANN header.
//
// One glue TU per shared library (one library per (op, product)):
//
//   #include "opgen_rt/glue.h"
//   extern "C" void soft_margin_loss_grad(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
//   static void opgen_entry_soft_margin_loss_grad(uint8_t **a) {
//     soft_margin_loss_grad(a[0], a[1], a[2], a[3], a[4], a[5]);
//   }
//   OPGEN_RT_REGISTER_KERNEL(SoftMarginLossGrad, soft_margin_loss_grad, opgen_entry_soft_margin_loss_grad);
//   OPGEN_RT_DEFINE_PRODUCT("Ascend910B", "ascend910b", ASCEND910B, 2201, 196608, 0, 48, true, true,
//                           {opgen_rt::DtypeId::INT8, opgen_rt::DtypeId::FLOAT}, 8, true, 16777216, true);
//
// OPGEN_RT_REGISTER_KERNEL(OpType, kernel, entry)
//   OpType  the op's device OpType, an identifier (as in OP_TYPE_REGISTER / IMPL_OP_OPTILING / OP_ADD)
//   kernel  the extern "C" kernel function's name (an identifier; recorded as text)
//   entry   a `void (*)(uint8_t **args)` trampoline calling the kernel with args[0..n): the inputs, outputs,
//           workspace and tiling pointers, in that order
//   Several kernels may be registered in one library (one per OpType).
//
// OPGEN_RT_DEFINE_PRODUCT(name, configName, socVersion, npuArch, ubBytes, ubReservedBytes, vectorCoreNum,
//                         bf16, dataCopyPad, {atomicAddDtypes...}, queueBufferCap, hwSyncAll,
//                         sysWorkspaceBytes, vectorSort[, costModel])
//   Defines opgen_rt::CurrentProduct(); arguments in the order of opgen_rt::ProductInfo's fields:
//   name            catalogue name, a string literal ("Ascend910B"); must equal OPGEN_PRODUCT_NAME when that
//                   macro is defined for the glue TU
//   configName      OpDef AddConfig name, a string literal ("ascend910b")
//   socVersion      the product's op::SocVersion name, bare (ASCEND910, ASCEND910B, ASCEND910_93,
//                   ASCEND950, ASCEND310P); a name the enum lacks (a catalogue SoC newer than it) reads as
//                   RESERVED_VERSION, as on a CANN release that does not know the SoC
//   npuArch         integer (1001, 2201, 3510, 2002); must equal __NPU_ARCH__ when that macro is defined
//   ubBytes         UB bytes per core
//   ubReservedBytes UB bytes the framework keeps back (usually 0)
//   vectorCoreNum   cores a vector tiling launches on (GetCoreNumAiv)
//   bf16, dataCopyPad   true / false
//   {atomicAddDtypes}   braced list of opgen_rt::DtypeId values (may be {})
//   queueBufferCap  buffers per queue position
//   hwSyncAll       true / false: the no-argument SyncAll() exists on the product
//   sysWorkspaceBytes  RESERVED_WORKSPACE bytes (GetLibApiWorkSpaceSize())
//   vectorSort      true / false: Sort32, MrgSort, Extract and Concat on 8-byte proposals exist
//   costModel       optional opgen_rt::CostModel{true, clockMhz, chipGmBytesPerSecond, coreGmBytesPerCycle,
//                   dmaFixedCycles, {cycles per repeat by VectorClass}, {latency by VectorClass},
//                   scalarAccessCycles, scalarWaitCycles}; without it the emulator keeps no pipe timeline
//   Exactly one per library.
#ifndef OPGEN_RT_GLUE_H
#define OPGEN_RT_GLUE_H

#include <cstdint>

#include "opdev/platform.h"
#include "opgen_rt/core.h"

#ifndef GM_ADDR
#define GM_ADDR uint8_t *
#endif

namespace opgen_rt {

// Binds `entry` (the trampoline of kernel `kernelName`) to `opType`. Returns true.
bool RegisterKernel(const char *opType, const char *kernelName, KernelEntry entry);

// The op::SocVersion value named `name` ("ASCEND910B"), or RESERVED_VERSION for a name the enum lacks.
int32_t SocVersionId(const char *name);

constexpr bool GlueStringsEqual(const char *a, const char *b) {
  return *a == *b && (*a == '\0' || GlueStringsEqual(a + 1, b + 1));
}

}  // namespace opgen_rt

#define OPGEN_RT_REGISTER_KERNEL(OP_TYPE, KERNEL, ENTRY)                               \
  [[maybe_unused]] static const bool opgen_rt_kernel_registered_##OP_TYPE##_##KERNEL = \
      ::opgen_rt::RegisterKernel(#OP_TYPE, #KERNEL, (ENTRY))

#ifdef OPGEN_PRODUCT_NAME
#define OPGEN_RT_GLUE_CHECK_NAME(NAME)                                                               \
  static_assert(::opgen_rt::GlueStringsEqual(NAME, OPGEN_PRODUCT_NAME), "product name differs from " \
                                                                        "OPGEN_PRODUCT_NAME");
#else
#define OPGEN_RT_GLUE_CHECK_NAME(NAME)
#endif
#ifdef __NPU_ARCH__
#define OPGEN_RT_GLUE_CHECK_ARCH(ARCH) static_assert((ARCH) == __NPU_ARCH__, "npuArch differs from __NPU_ARCH__");
#else
#define OPGEN_RT_GLUE_CHECK_ARCH(ARCH)
#endif

#define OPGEN_RT_DEFINE_PRODUCT(NAME, CONFIG_NAME, SOC_VERSION, NPU_ARCH, UB_BYTES, UB_RESERVED, CORE_NUM, BF16, \
                                DATA_COPY_PAD, ...)                                                              \
  OPGEN_RT_GLUE_CHECK_NAME(NAME)                                                                                 \
  OPGEN_RT_GLUE_CHECK_ARCH(NPU_ARCH)                                                                             \
  const ::opgen_rt::ProductInfo &opgen_rt::CurrentProduct() {                                                    \
    static const ::opgen_rt::ProductInfo opgenProduct{                                                           \
        NAME,       CONFIG_NAME, ::opgen_rt::SocVersionId(#SOC_VERSION),                                         \
        NPU_ARCH,   UB_BYTES,    UB_RESERVED,                                                                    \
        CORE_NUM,   BF16,        DATA_COPY_PAD,                                                                  \
        __VA_ARGS__};                                                                                            \
    return opgenProduct;                                                                                         \
  }                                                                                                              \
  static_assert(true, "")

#endif  // OPGEN_RT_GLUE_H
