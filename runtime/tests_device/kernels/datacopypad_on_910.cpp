// A kernel that uses DataCopyPad. Built for Ascend910 (OPGEN_HAS_DATACOPYPAD=0) it must fail to compile with
// "DataCopyPad is not available on Ascend910"; built for Ascend910B it must compile (runtime/tests_device/run.sh).
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void copy_tail(GM_ADDR x, GM_ADDR y) {
  GlobalTensor<float> gx, gy;
  gx.SetGlobalBuffer((__gm__ float *)x, 5);
  gy.SetGlobalBuffer((__gm__ float *)y, 5);
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 32);
  LocalTensor<float> t = q.AllocTensor<float>();
  DataCopyPad(t, gx, DataCopyExtParams{1, 5 * sizeof(float), 0, 0, 0}, DataCopyPadExtParams<float>{false, 0, 0, 0.0f});
  q.EnQue(t);
  t = q.DeQue<float>();
  DataCopyPad(gy, t, DataCopyExtParams{1, 5 * sizeof(float), 0, 0, 0});
  q.FreeTensor(t);
}
