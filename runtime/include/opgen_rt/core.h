// ascend-opgen host emulation: the interface between the host side (aclnn/opdev launcher) and the
// device side (AscendC kernel emulation). Hand-written runtime code; not generated.
#ifndef OPGEN_RT_CORE_H
#define OPGEN_RT_CORE_H

#include <cstdint>
#include <string>
#include <vector>

namespace opgen_rt {

// aclDataType values (CANN acl_base.h), used for the product's atomic-add dtype list.
enum class DtypeId : int32_t {
  FLOAT = 0, FLOAT16 = 1, INT8 = 2, INT32 = 3, UINT8 = 4, INT16 = 6, UINT16 = 7, UINT32 = 8,
  INT64 = 9, UINT64 = 10, DOUBLE = 11, BOOL = 12, BF16 = 27
};

// Vector instruction classes of the cost model (specs/products.yaml cost_model.vector, in this order).
enum VectorClass : uint8_t {
  kVecArithmetic = 0,     // Add Sub Mul Max Min Adds Muls Axpy Abs Relu Duplicate, UB->UB DataCopy, and any other
  kVecTranscendental = 1, // Exp Ln Sqrt
  kVecDivision = 2,       // Div Reciprocal Rsqrt
  kVecCast = 3,           // Cast
  kVecReduction = 4,      // WholeReduce*, BlockReduce*, ReduceSum / ReduceMax / ReduceMin
  kVecCompareSelect = 5,  // Compare, CompareScalar, Select
  kVecSort = 6,           // Sort32, MrgSort
  kVecClassCount = 7
};

// The product's performance model (specs/products.yaml `cost_model`; every figure's source is there). A
// product without one has `available` false (all fields zero): the emulator then keeps no pipe timeline.
struct CostModel {
  bool available;
  double clockMhz;                  // AI core clock, MHz
  double chipGmBytesPerSecond;      // GM (HBM) bandwidth of the whole chip, bytes per second
  double coreGmBytesPerCycle;       // GM bandwidth one core's MTE2/MTE3 reach alone, bytes per cycle
  double dmaFixedCycles;            // fixed cost of one DMA (DataCopy / DataCopyPad GM<->UB), cycles
  double vecCyclesPerRepeat[kVecClassCount];  // per class: cycles per 256-byte repeat
  double vecLatencyCycles[kVecClassCount];    // per class: fixed cycles per instruction
  double scalarAccessCycles;        // one scalar GetValue / SetValue (UB or GM) on the S pipe
  double scalarWaitCycles;          // one WaitFlag<X_S>: the scalar unit's stall beyond the other pipe's end
};

// One SoC of specs/products.yaml. The builder's glue translation unit defines exactly one per library
// with OPGEN_RT_DEFINE_PRODUCT; every limit the emulator enforces comes from here.
struct ProductInfo {
  const char *name;            // catalogue name, e.g. "Ascend910B"
  const char *configName;      // OpDef AddConfig name, e.g. "ascend910b"
  int32_t socVersion;          // value of op::SocVersion for this product
  int32_t npuArch;             // e.g. 2201
  uint64_t ubBytes;            // Unified Buffer bytes per core
  uint64_t ubReservedBytes;    // bytes of UB the framework keeps (not available to InitBuffer)
  uint32_t vectorCoreNum;      // cores a vector tiling launches on (GetCoreNumAiv)
  bool bf16;                   // BF16 supported
  bool dataCopyPad;            // DataCopyPad available
  std::vector<DtypeId> atomicAddDtypes;  // dtypes SetAtomicAdd<T> accepts
  uint32_t queueBufferCap;     // buffers per queue position (sum of TQue InitBuffer num per TPosition)
  // The no-argument (hardware) SyncAll exists. False on NpuArch 1001 and 2002: asc-devkit
  // impl/basic_api/dav_c100|dav_m200/kernel_operator_sync_impl.h SyncAllImpl is an ASSERT only.
  bool hwSyncAll;
  // RESERVED_WORKSPACE: system workspace bytes in front of the user workspace (asc-devkit
  // impl/basic_api/utils/kernel_utils_constants.h); GetLibApiWorkSpaceSize() returns it.
  uint64_t sysWorkspaceBytes;
  // The vector unit's sort instructions on 8-byte (score, index) proposals exist (Sort32, MrgSort, Extract,
  // Concat: catalogue `vector_sort`, from the asc-devkit docs' product tables); without them a call faults.
  bool vectorSort;
  // The performance model (zero-initialised, i.e. unavailable, when the glue gives none).
  CostModel cost{};
};

const ProductInfo &CurrentProduct();

// How the emulated cores of one launch are scheduled onto host threads.
enum class CoreOrder : int32_t {
  IN_ORDER = 0,    // cores run one at a time, 0..blockDim-1; a core yields only at SyncAll
  REVERSED = 1,    // one at a time, blockDim-1..0
  SHUFFLE = 2,     // one at a time, in a permutation drawn from the seed
  CONCURRENT = 3,  // all cores run freely at once
};

// One GM allocation a kernel may touch: every GlobalTensor access must fall inside one of these.
struct GmRegion {
  std::string name;     // e.g. "input 0 (gradOutput)", "workspace", "tiling"
  uint8_t *base = nullptr;
  uint64_t bytes = 0;
  bool writable = true;
  // A tensor list's descriptor (BuildListTensorDesc): the bytes from this offset to the region's end are GM
  // addresses, one uint64 each, that move with the regions they point into when the launch stages GM (as
  // kernel arguments do). UINT64_MAX: the region holds no addresses.
  uint64_t pointerTableOffset = UINT64_MAX;
};

// One tensor of a list as the launcher passes it: the address of its first element (nullptr for an absent
// tensor), its storage shape, and the GM bytes the kernel may touch from `data` (0: none).
struct ListElement {
  const void *data = nullptr;
  std::vector<int64_t> dims;
  uint64_t bytes = 0;
};

// The GM descriptor through which a tensor list (an OpDef DYNAMIC input or output) reaches a kernel, as
// hicann/opbase src/nnopbase/composite_op/aclnn_engine/rts_arg.cpp (RtsArg::AppendDevicePtrArg) lays it
// out, in uint64 words: word 0 the byte offset of the pointer table; then per tensor a record of
// (1 << 32 | rank) followed by its `rank` dimensions (an absent tensor: (1 << 32 | 0), no dimensions);
// then the pointer table, one address per tensor. The kernel decodes it with AscendC::ListTensorDesc
// (mirror-cann/asc-devkit include/basic_api/kernel_operator_list_tensor_intf.h). The returned words are the
// region's bytes; its pointerTableOffset is returned in `pointerTableOffset` (bytes).
std::vector<uint64_t> BuildListTensorDesc(const std::vector<ListElement> &elements, uint64_t &pointerTableOffset);

struct LaunchRequest;
// Adds a tensor list to `request`: one kernel argument, the address of its descriptor (built into `desc`, which
// the caller keeps until RunKernel returns), the descriptor's read-only region "<prefix> (<name>) list", and
// one region per element with bytes, "<prefix>[i] (<name>)", writable or not: each element is bounds-checked
// on its own, as separate device allocations are.
void AddListArgument(LaunchRequest &request, const std::string &prefix, const std::string &name,
                     const std::vector<ListElement> &elements, bool writable, std::vector<uint64_t> &desc);

using KernelEntry = void (*)(uint8_t **args);  // trampoline: calls the extern "C" kernel with args[0..n)

struct LaunchRequest {
  std::string kernelName;   // e.g. "soft_margin_loss_grad"
  std::string opType;       // e.g. "SoftMarginLossGrad"
  KernelEntry entry = nullptr;
  std::vector<uint8_t *> args;      // inputs, outputs, workspace, tiling (kernel parameter order)
  std::vector<GmRegion> regions;
  uint32_t blockDim = 1;
  uint64_t tilingKey = 0;
  // Probe mode (opgen_rt_probe_launch_json): the regions are reserved address space (no memory behind
  // them). Every GM access of the kernel is bounds-checked against its region and recorded
  // (LaunchResult::probe) but not performed: GM->UB copies fill UB with zero bytes (defined data),
  // GlobalTensor::GetValue returns 0, writes and atomic adds change nothing, SyncAll returns at once. Only the
  // cores listed in probeCores run (the others finish without running); nothing is staged.
  bool probe = false;
  std::vector<int32_t> probeCores;
  // Probe mode: a core stops (as if it had finished) at its probeMaxAccesses-th GM access; 0: no limit.
  uint64_t probeMaxAccesses = 0;
};

// Probe mode: the GM bytes one core touched in one region, as byte offsets from the region's start
// ([lo, hi), lo > hi when none). Reads are GM->UB copies and GetValue, writes UB->GM copies (plain or
// atomic) and SetValue.
struct ProbeSpan {
  int32_t core = 0;
  size_t region = 0;     // index into LaunchRequest::regions
  uint64_t readLo = UINT64_MAX;
  uint64_t readHi = 0;
  uint64_t writeLo = UINT64_MAX;
  uint64_t writeHi = 0;
};

struct CoreStats {
  uint64_t gmBytesRead = 0;
  uint64_t gmBytesWritten = 0;
  uint64_t gmBytesAtomicAdded = 0;
  uint64_t ubHighWaterBytes = 0;
  uint64_t vectorInstructions = 0;
  uint64_t vectorElements = 0;
  // DMA transfers: one per GM<->UB DataCopy / DataCopyPad instruction that moved bytes (a blockCount copy is
  // one transfer), and the GM bytes those moved (scalar GetValue/SetValue are not DMA and not counted here).
  uint64_t dmaTransfers = 0;
  uint64_t dmaBytes = 0;
  // Added by the device runtime: bytes that UB->GM DataCopy calls were asked to write but did not, because
  // DataCopy rounds lengths down to whole 32-byte blocks (not a fault by itself; the output check sees it).
  uint64_t gmBytesTruncated = 0;
  // The pipe timeline (ProductInfo::cost; all zero when the product has no cost model), in cycles. Each
  // instruction runs on its pipe for its modelled duration after the synchronisations that order it.
  double modelledCycles = 0;                 // the core's last pipe end
  double pipeBusyCycles[4] = {0, 0, 0, 0};   // per pipe, in PipeIndex order: S, V, MTE2, MTE3
  double copyCycles = 0;                     // time at least one of MTE2 / MTE3 is busy
  double copyHiddenCycles = 0;               // of that time, the time V is busy too
  double vectorWorkCycles = 0;               // sum of repeats x cycles per repeat (no latency) over V
  uint64_t scalarWaits = 0;                  // WaitFlag<X_S> calls (the scalar unit stalls)
};

struct LaunchResult {
  bool ok = true;
  std::string fault;   // "kernel fault [<rule>] in kernel <k> on core <i>/<n> (<product>): <detail>"
  std::vector<CoreStats> cores;  // one per core of blockDim
  // Added by the device runtime: diagnostics that are not faults (at most 32), e.g. "DataCopy UB->GM on
  // core 3 asked to write 28 bytes, wrote 0 (32-byte rounding): ... left unwritten".
  std::vector<std::string> notes;
  // Probe mode only: per core that ran, one entry per region it touched.
  std::vector<ProbeSpan> probe;
  // Probe mode only: the cores that stopped at LaunchRequest::probeMaxAccesses (their spans are a prefix).
  std::vector<int32_t> probeStopped;
};

// Runs one kernel launch: blockDim host threads, each with its own UB arena of the product's size. The kernel
// runs on staged copies of `regions` (each between red zones of canary bytes; `args` that point into a region
// are moved with it); writable regions are copied back before RunKernel returns, also after a fault. Arguments
// that point into no region are passed unchanged.
LaunchResult RunKernel(const LaunchRequest &request);

// Whether the tiling-key listing mode is on (environment variable OPGEN_RT_LIST_TILING_KEYS names a file): a
// launch then only records its tiling key, and the host writes nothing it would write for a kernel (the
// poisoning of a copy planned away, InitValue).
bool ListingTilingKeys();

// Process-wide scheduling settings, set from Python through opgen_rt_set_core_order.
void SetCoreOrder(CoreOrder order, uint64_t seed);
CoreOrder GetCoreOrder();
uint64_t GetCoreOrderSeed();

// ---- Host-side notes (added by the host runtime; declarations live in their own headers) ----
// * Kernels are bound to OpTypes by the glue with OPGEN_RT_REGISTER_KERNEL (opgen_rt/glue.h), which also
//   defines CurrentProduct() (OPGEN_RT_DEFINE_PRODUCT).
// * LaunchRequest as filled by the host launcher (runtime/src/host/launcher.cpp): args are the inputs
//   (nullptr for an absent optional input), the outputs, the workspace (nullptr when the tiling asked for
//   none) and the tiling data, in that order. Regions: one per non-empty tensor, exactly its bytes from the
//   view's first element ("input <i> (<name>)" read-only, "output <i> (<name>)" writable; an in-place op may
//   give the same bytes as both), "workspace" (the bytes the tiling asked for; writable) and "tiling"
//   (GetDataSize() bytes; read-only). The workspace argument points at the start of the launch's workspace,
//   system part included, as in CANN: its first min(sysWorkspaceBytes, workspace bytes) bytes are the region
//   "system workspace" (read-only to the kernel: a write there is a [system workspace] fault) and the rest is
//   the region "workspace"; GetUserWorkspace(workspace) is workspace + sysWorkspaceBytes.
// * Tiling field names for launch statistics: REGISTER_TILING_DATA_CLASS should describe the struct's
//   fields with opgen_rt::RegisterTilingClassMeta (opgen_rt/tiling_meta.h); without it the statistics show
//   the tiling bytes as hex.

}  // namespace opgen_rt

#endif  // OPGEN_RT_CORE_H
