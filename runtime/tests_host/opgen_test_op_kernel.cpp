// ascend-opgen runtime host tests: the device side of OpgenTestOp (scalar GM accesses only).
#include "kernel_operator.h"
#include "kernel_operator_list_tensor_intf.h"
#include "opgen_test_op.h"

using namespace AscendC;

template <typename T>
__aicore__ inline void RunTestOp(GM_ADDR x, GM_ADDR idx, GM_ADDR y, GM_ADDR workspace,
                                 const optiling::OpgenTestOpTilingData &t) {
  GlobalTensor<T> xGm;
  GlobalTensor<T> yGm;
  xGm.SetGlobalBuffer((__gm__ T *)x, static_cast<uint64_t>(t.length));
  yGm.SetGlobalBuffer((__gm__ T *)y, static_cast<uint64_t>(t.length));
  int64_t bias = t.flag != 0 ? 1 : 0;
  if (t.hasIdx != 0) {
    GlobalTensor<int64_t> idxGm;
    idxGm.SetGlobalBuffer((__gm__ int64_t *)idx, 1);
    bias += idxGm.GetValue(0);
  }
  if (t.num == -2 && GetBlockIdx() == 0) {
    (void)xGm.GetValue(static_cast<uint64_t>(t.length) + 100000);  // past x: a kernel fault
  }
  if (t.num > 0 && GetBlockIdx() == 0) {
    GlobalTensor<uint8_t> wsGm;
    wsGm.SetGlobalBuffer((__gm__ uint8_t *)GetUserWorkspace(workspace), static_cast<uint64_t>(t.num));
    wsGm.SetValue(static_cast<uint64_t>(t.num - 1), 42);
  }
  for (int64_t i = GetBlockIdx(); i < t.length; i += GetBlockNum()) {
    if (t.num == -3 && i == 0) {
      continue;  // y[0] left unwritten
    }
    const T v = xGm.GetValue(static_cast<uint64_t>(i));
    yGm.SetValue(static_cast<uint64_t>(i), static_cast<T>(static_cast<float>(v) * t.scale + static_cast<float>(bias)));
#if !defined(__NPU_ARCH__) || __NPU_ARCH__ == 2201 || __NPU_ARCH__ == 3510
    // The cores interleave elements of y: write each one out of the scalar data cache (the line is shared).
    DataCacheCleanAndInvalid<T, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(yGm[static_cast<uint64_t>(i)]);
#endif
  }
}

extern "C" __global__ __aicore__ void opgen_test_op(GM_ADDR x, GM_ADDR idx, GM_ADDR y, GM_ADDR workspace,
                                                    GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(optiling::OpgenTestOpTilingData, tilingData, tiling);
  if (TILING_KEY_IS(0)) {
    RunTestOp<float>(x, idx, y, workspace, tilingData);
  } else {
    RunTestOp<int32_t>(x, idx, y, workspace, tilingData);
  }
}

// OpgenListOp: the tensors of the lists reach the kernel through ListTensorDesc.
extern "C" __global__ __aicore__ void opgen_list_op(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
  (void)workspace;
  GET_TILING_DATA_WITH_STRUCT(optiling::OpgenListOpTilingData, t, tiling);
  ListTensorDesc xs(x);
  ListTensorDesc ys(y);
  for (int64_t i = GetBlockIdx(); i < t.tensorCount; i += GetBlockNum()) {
    const int64_t n = t.counts[i];
    if (n == 0) {
      continue;
    }
    GlobalTensor<float> in;
    GlobalTensor<float> out;
    in.SetGlobalBuffer(xs.GetDataPtr<float>(static_cast<uint32_t>(i)), static_cast<uint64_t>(n));
    out.SetGlobalBuffer(ys.GetDataPtr<float>(static_cast<uint32_t>(i)), static_cast<uint64_t>(n));
    for (int64_t k = 0; k < n; ++k) {
      out.SetValue(static_cast<uint64_t>(k), in.GetValue(static_cast<uint64_t>(k)) + 1.0f);
    }
  }
}
