// Test copy of the contract kernel with the planned change: queue buffer counts come from tiling
// (inBufferNum / outBufferNum); TQue depth stays 2. Used by runtime/tests_device only.
// out = -target * gradOutput * sigmoid(-target * self) * scale
#include "kernel_operator.h"

using namespace AscendC;

namespace {
constexpr int32_t BUFFER_NUM = 2;
constexpr int64_t BLOCK_BYTES = 32;

// GM -> UB copy of `count` elements. Products without DataCopyPad copy whole 32-byte blocks with DataCopy
// and move the remaining elements one by one.
template <typename T>
__aicore__ inline void CopyGmToUb(const LocalTensor<T> &dst, const GlobalTensor<T> &src, int64_t count) {
#if __NPU_ARCH__ == 1001 || __NPU_ARCH__ == 2002
  constexpr int64_t blockElems = BLOCK_BYTES / static_cast<int64_t>(sizeof(T));
  const int64_t aligned = count / blockElems * blockElems;
  if (aligned > 0) {
    DataCopy(dst, src, static_cast<uint32_t>(aligned));
  }
  if (aligned < count) {
    PipeBarrier<PIPE_ALL>();
    for (int64_t i = aligned; i < count; ++i) {
      dst.SetValue(static_cast<uint32_t>(i), src.GetValue(static_cast<uint64_t>(i)));
    }
    PipeBarrier<PIPE_ALL>();
  }
#else
  DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * static_cast<int64_t>(sizeof(T))), 0, 0, 0};
  DataCopyPadExtParams<T> padParams{false, 0, 0, static_cast<T>(0)};
  DataCopyPad(dst, src, copyParams, padParams);
#endif
}

template <typename T>
__aicore__ inline void CopyUbToGm(GlobalTensor<T> dst, const LocalTensor<T> &src, int64_t count) {
#if __NPU_ARCH__ == 1001 || __NPU_ARCH__ == 2002
  constexpr int64_t blockElems = BLOCK_BYTES / static_cast<int64_t>(sizeof(T));
  const int64_t aligned = count / blockElems * blockElems;
  if (aligned > 0) {
    DataCopy(dst, src, static_cast<uint32_t>(aligned));
  }
  if (aligned < count) {
    PipeBarrier<PIPE_ALL>();
    for (int64_t i = aligned; i < count; ++i) {
      dst.SetValue(static_cast<uint64_t>(i), src.GetValue(static_cast<uint32_t>(i)));
    }
    PipeBarrier<PIPE_ALL>();
  }
#else
  DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * static_cast<int64_t>(sizeof(T))), 0, 0, 0};
  DataCopyPad(dst, src, copyParams);
#endif
}

template <typename T>
class KernelSoftMarginLossGrad {
 public:
  __aicore__ inline KernelSoftMarginLossGrad() {}

  __aicore__ inline void Init(GM_ADDR gradOutput, GM_ADDR self, GM_ADDR target, GM_ADDR out, int64_t totalLength,
                              int64_t formerNum, int64_t formerLength, int64_t tailLength, int64_t tileLength,
                              float scale0, int32_t inBufferNum, int32_t outBufferNum) {
    const int64_t blockIdx = GetBlockIdx();
    int64_t offset = 0;
    if (blockIdx < formerNum) {
      offset = blockIdx * formerLength;
      coreLength_ = formerLength;
    } else {
      offset = formerNum * formerLength + (blockIdx - formerNum) * tailLength;
      coreLength_ = tailLength;
    }
    if (offset + coreLength_ > totalLength) {
      coreLength_ = totalLength - offset;
    }
    if (coreLength_ < 0) {
      coreLength_ = 0;
    }
    tileLength_ = tileLength;
    scale0_ = scale0;
    gradOutputGm_.SetGlobalBuffer((__gm__ T *)gradOutput + offset, coreLength_);
    selfGm_.SetGlobalBuffer((__gm__ T *)self + offset, coreLength_);
    targetGm_.SetGlobalBuffer((__gm__ T *)target + offset, coreLength_);
    outGm_.SetGlobalBuffer((__gm__ T *)out + offset, coreLength_);
    pipe_.InitBuffer(gradOutputQueue_, inBufferNum, tileLength_ * sizeof(T));
    pipe_.InitBuffer(selfQueue_, inBufferNum, tileLength_ * sizeof(T));
    pipe_.InitBuffer(targetQueue_, inBufferNum, tileLength_ * sizeof(T));
    pipe_.InitBuffer(outQueue_, outBufferNum, tileLength_ * sizeof(T));
    if constexpr (!IsSameType<T, float>::value) {
      pipe_.InitBuffer(tmp0_, tileLength_ * sizeof(float));
      pipe_.InitBuffer(tmp1_, tileLength_ * sizeof(float));
    }
  }

  __aicore__ inline void Process() {
    for (int64_t done = 0; done < coreLength_; done += tileLength_) {
      const int64_t count = (coreLength_ - done < tileLength_) ? (coreLength_ - done) : tileLength_;
      CopyIn(done, count);
      Compute(count);
      CopyOut(done, count);
    }
  }

 private:
  __aicore__ inline void CopyIn(int64_t offset, int64_t count) {
    LocalTensor<T> gradOutputLocal = gradOutputQueue_.AllocTensor<T>();
    LocalTensor<T> selfLocal = selfQueue_.AllocTensor<T>();
    LocalTensor<T> targetLocal = targetQueue_.AllocTensor<T>();
    CopyGmToUb(gradOutputLocal, gradOutputGm_[offset], count);
    CopyGmToUb(selfLocal, selfGm_[offset], count);
    CopyGmToUb(targetLocal, targetGm_[offset], count);
    gradOutputQueue_.EnQue(gradOutputLocal);
    selfQueue_.EnQue(selfLocal);
    targetQueue_.EnQue(targetLocal);
  }

  __aicore__ inline void Compute(int64_t count) {
    LocalTensor<T> gradOutputLocal = gradOutputQueue_.DeQue<T>();
    LocalTensor<T> selfLocal = selfQueue_.DeQue<T>();
    LocalTensor<T> targetLocal = targetQueue_.DeQue<T>();
    LocalTensor<T> outLocal = outQueue_.AllocTensor<T>();
    const uint32_t n = static_cast<uint32_t>(count);
    if constexpr (IsSameType<T, float>::value) {
      Mul(outLocal, targetLocal, selfLocal, n);
      Exp(outLocal, outLocal, n);
      Adds(outLocal, outLocal, 1.0f, n);
      Reciprocal(outLocal, outLocal, n);
      Mul(outLocal, outLocal, targetLocal, n);
      Mul(outLocal, outLocal, gradOutputLocal, n);
      Muls(outLocal, outLocal, scale0_, n);
    } else {
      LocalTensor<float> t0 = tmp0_.Get<float>();
      LocalTensor<float> t1 = tmp1_.Get<float>();
      Cast(t0, targetLocal, RoundMode::CAST_NONE, n);
      Cast(t1, selfLocal, RoundMode::CAST_NONE, n);
      Mul(t1, t0, t1, n);
      Exp(t1, t1, n);
      Adds(t1, t1, 1.0f, n);
      Reciprocal(t1, t1, n);
      Mul(t1, t1, t0, n);
      Cast(t0, gradOutputLocal, RoundMode::CAST_NONE, n);
      Mul(t1, t1, t0, n);
      Muls(t1, t1, scale0_, n);
      Cast(outLocal, t1, RoundMode::CAST_RINT, n);
    }
    outQueue_.EnQue(outLocal);
    gradOutputQueue_.FreeTensor(gradOutputLocal);
    selfQueue_.FreeTensor(selfLocal);
    targetQueue_.FreeTensor(targetLocal);
  }

  __aicore__ inline void CopyOut(int64_t offset, int64_t count) {
    LocalTensor<T> outLocal = outQueue_.DeQue<T>();
    CopyUbToGm(outGm_[offset], outLocal, count);
    outQueue_.FreeTensor(outLocal);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, BUFFER_NUM> gradOutputQueue_;
  TQue<TPosition::VECIN, BUFFER_NUM> selfQueue_;
  TQue<TPosition::VECIN, BUFFER_NUM> targetQueue_;
  TQue<TPosition::VECOUT, BUFFER_NUM> outQueue_;
  TBuf<TPosition::VECCALC> tmp0_;
  TBuf<TPosition::VECCALC> tmp1_;
  GlobalTensor<T> gradOutputGm_;
  GlobalTensor<T> selfGm_;
  GlobalTensor<T> targetGm_;
  GlobalTensor<T> outGm_;
  int64_t coreLength_ = 0;
  int64_t tileLength_ = 0;
  float scale0_ = 0.0f;
};
}  // namespace

extern "C" __global__ __aicore__ void soft_margin_loss_grad(GM_ADDR gradOutput, GM_ADDR self, GM_ADDR target,
                                                            GM_ADDR out, GM_ADDR workspace, GM_ADDR tiling) {
  (void)workspace;
  GET_TILING_DATA(tilingData, tiling);
  if (TILING_KEY_IS(0)) {
    KernelSoftMarginLossGrad<float> op;
    op.Init(gradOutput, self, target, out, tilingData.totalLength, tilingData.formerNum, tilingData.formerLength,
            tilingData.tailLength, tilingData.tileLength, tilingData.scale0,
            tilingData.inBufferNum, tilingData.outBufferNum);
    op.Process();
  } else if (TILING_KEY_IS(1)) {
    KernelSoftMarginLossGrad<half> op;
    op.Init(gradOutput, self, target, out, tilingData.totalLength, tilingData.formerNum, tilingData.formerLength,
            tilingData.tailLength, tilingData.tileLength, tilingData.scale0,
            tilingData.inBufferNum, tilingData.outBufferNum);
    op.Process();
  } else if (TILING_KEY_IS(2)) {
    KernelSoftMarginLossGrad<bfloat16_t> op;
    op.Init(gradOutput, self, target, out, tilingData.totalLength, tilingData.formerNum, tilingData.formerLength,
            tilingData.tailLength, tilingData.tileLength, tilingData.scale0,
            tilingData.inBufferNum, tilingData.outBufferNum);
    op.Process();
  }
}
