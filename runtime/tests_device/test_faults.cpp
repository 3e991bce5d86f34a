// One deliberately broken kernel per fault rule of the host emulation. Each must end its launch with
// ok=false and "kernel fault [<rule>] in kernel <name> on core <i>/<n> (<product>): <detail>", in every
// CoreOrder, without hanging. Hand-written test code.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "harness.h"
#include "kernel_operator.h"

using namespace AscendC;

namespace {

GlobalTensor<float> Gm(uint8_t *p, uint64_t n) {
  GlobalTensor<float> g;
  g.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(p), n);
  return g;
}

// ---- UB capacity ----
void UbCapacityTBuf(uint8_t **) {
  TPipe pipe;
  TBuf<> a, b;
  pipe.InitBuffer(a, 100000);
  pipe.InitBuffer(b, 100000);  // 200000 > 196608
}
void UbCapacityQueue(uint8_t **) {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> q;
  pipe.InitBuffer(q, 2, 98305);  // 2 x 98336 after rounding > 196608
}

// ---- UB alignment ----
void UbAlignment(uint8_t **) {
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 1024);
  LocalTensor<float> t = buf.Get<float>();
  Duplicate(t, 1.0f, 256);
  PipeBarrier<PIPE_ALL>();
  Add(t[3], t, t, 8);  // UB address 12
}

// ---- UB bounds ----
void UbBoundsVector(uint8_t **) {
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 1024);
  LocalTensor<float> t = buf.Get<float>();
  Duplicate(t, 1.0f, 300);  // 1200 bytes into a 1024-byte buffer
  PipeBarrier<PIPE_ALL>();
}
void UbBoundsScalar(uint8_t **) {
  TPipe pipe;
  TQue<TPosition::VECOUT, 1> q;
  pipe.InitBuffer(q, 1, 256);
  LocalTensor<float> t = q.AllocTensor<float>();
  t.SetValue(64, 1.0f);  // element 64 of 64
}
void UbBoundsView(uint8_t **) {
  TPipe pipe;
  TBuf<> a, b;
  pipe.InitBuffer(a, 256);
  pipe.InitBuffer(b, 256);
  LocalTensor<float> t = a.Get<float>();
  Duplicate(t[32], 0.0f, 64);  // a view 128 bytes in, 256 bytes long: runs into the next buffer
  PipeBarrier<PIPE_ALL>();
}

// ---- GM bounds ----
void GmBoundsRead(uint8_t **args) {
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 1024);
  DataCopy(buf.Get<float>(), Gm(args[0], 32), 64);  // region is 128 bytes
}
void GmBoundsReadOnly(uint8_t **args) {
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 1024);
  LocalTensor<float> t = buf.Get<float>();
  Duplicate(t, 2.0f, 32);
  PipeBarrier<PIPE_ALL>();
  DataCopy(Gm(args[0], 32), t, 32);  // args[0] is an input
}
void GmBoundsSetGlobalBuffer(uint8_t **args) {
  Gm(args[0] + 4096, 8);  // far past the 128-byte region
}
void GmBoundsScalar(uint8_t **args) {
  GlobalTensor<float> g = Gm(args[0], 32);
  (void)g.GetValue(32);  // one past the end
}

// ---- DataCopy truncation ----
void TruncationNothingCopied(uint8_t **args) {
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 1024);
  LocalTensor<float> t = buf.Get<float>();
  DataCopy(t, Gm(args[0], 32), 7);  // 28 bytes: rounds down to 0
  Exp(t, t, 7);
}
void TruncationPartial(uint8_t **args) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 1024);
  LocalTensor<float> t = q.AllocTensor<float>();
  DataCopy(t, Gm(args[0], 32), 12);  // 48 bytes: 32 copied
  q.EnQue(t);
  t = q.DeQue<float>();
  DataCopy(Gm(args[1], 32), t, 16);  // reads the 16 bytes that were never copied
  q.FreeTensor(t);
}

// ---- UB uninitialized read ----
void UninitVector(uint8_t **) {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> q;
  pipe.InitBuffer(q, 2, 256);
  LocalTensor<float> t = q.AllocTensor<float>();
  Exp(t, t, 64);
  q.FreeTensor(t);
}
void UninitGetValue(uint8_t **) {
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 256);
  LocalTensor<half> t = buf.Get<half>();
  Duplicate(t, half(1.0f), 16);
  PipeBarrier<PIPE_ALL>();
  (void)t.GetValue(16);
}
void UninitPadding(uint8_t **args) {
  // isPad = false: the right padding holds random values; copying it out reads undefined bytes.
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 256);
  LocalTensor<float> t = buf.Get<float>();
  DataCopyPad(t, Gm(args[0], 32), DataCopyExtParams{1, 20, 0, 0, 0}, DataCopyPadExtParams<float>{false, 0, 2, 0.0f});
  PipeBarrier<PIPE_ALL>();
  DataCopy(Gm(args[1], 32), t, 8);
}

// ---- DataCopyPad unavailable (run time: built for a product with DataCopyPad, run on one without) ----
void PadOnWrongProduct(uint8_t **args) {
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 256);
  DataCopyPad(buf.Get<float>(), Gm(args[0], 32), DataCopyExtParams{1, 20, 0, 0, 0},
              DataCopyPadExtParams<float>{false, 0, 0, 0.0f});
}

// ---- atomic dtype ----
void AtomicHalf(uint8_t **) { SetAtomicAdd<half>(); }
void AtomicInt64(uint8_t **) { SetAtomicAdd<int64_t>(); }
void AtomicMismatch(uint8_t **args) {
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 256);
  LocalTensor<float> t = buf.Get<float>();
  Duplicate(t, 1.0f, 64);
  PipeBarrier<PIPE_ALL>();
  SetAtomicAdd<half>();
  DataCopy(Gm(args[1], 32), t, 32);  // float data under a half atomic
}

// ---- queue order ----
void DeQueEmpty(uint8_t **) {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> q;
  pipe.InitBuffer(q, 2, 256);
  LocalTensor<float> t = q.DeQue<float>();
  q.FreeTensor(t);
}
void EnQueTwice(uint8_t **) {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> q;
  pipe.InitBuffer(q, 2, 256);
  LocalTensor<float> t = q.AllocTensor<float>();
  q.EnQue(t);
  q.EnQue(t);
}
void FreeTwice(uint8_t **) {
  TPipe pipe;
  TQue<TPosition::VECOUT, 2> q;
  pipe.InitBuffer(q, 2, 256);
  LocalTensor<float> t = q.AllocTensor<float>();
  q.FreeTensor(t);
  q.FreeTensor(t);
}
void AllocBeyondNum(uint8_t **) {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> q;
  pipe.InitBuffer(q, 2, 256);
  LocalTensor<float> a = q.AllocTensor<float>();
  LocalTensor<float> b = q.AllocTensor<float>();
  LocalTensor<float> c = q.AllocTensor<float>();
  q.FreeTensor(a);
  q.FreeTensor(b);
  q.FreeTensor(c);
}
void EnQueBeyondDepth(uint8_t **) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 2, 256);
  LocalTensor<float> a = q.AllocTensor<float>();
  LocalTensor<float> b = q.AllocTensor<float>();
  q.EnQue(a);
  q.EnQue(b);
}
void EnQueForeign(uint8_t **) {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> q;
  TBuf<> buf;
  pipe.InitBuffer(q, 2, 256);
  pipe.InitBuffer(buf, 256);
  LocalTensor<float> t = buf.Get<float>();
  q.EnQue(t);
}
void FreeToOtherQueue(uint8_t **) {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> q1, q2;
  pipe.InitBuffer(q1, 1, 256);
  pipe.InitBuffer(q2, 1, 256);
  LocalTensor<float> t = q1.AllocTensor<float>();
  q2.FreeTensor(t);
}
void AllocUninitialized(uint8_t **) {
  TQue<TPosition::VECIN, 2> q;
  LocalTensor<float> t = q.AllocTensor<float>();
  q.FreeTensor(t);
}

// ---- queue buffer cap ----
void QueueCap(uint8_t **) {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> a, b;
  TQue<TPosition::VECOUT, 2> c;
  pipe.InitBuffer(c, 8, 64);  // VECOUT: 8 of 8
  pipe.InitBuffer(a, 5, 64);  // VECIN: 5
  pipe.InitBuffer(b, 4, 64);  // VECIN: 9 > 8
}
void QueueCapOk(uint8_t **) {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> a;
  TQue<TPosition::VECOUT, 2> c;
  pipe.InitBuffer(a, 8, 64);
  pipe.InitBuffer(c, 8, 64);
}
void QueueCapAfterDestroy(uint8_t **) {
  {
    TPipe pipe;
    TQue<TPosition::VECIN, 2> a;
    pipe.InitBuffer(a, 8, 64);
  }
  TPipe pipe2;  // the first pipe's buffers are gone: 8 more fit
  TQue<TPosition::VECIN, 2> b;
  pipe2.InitBuffer(b, 8, 64);
}

// ---- buffer leak ----
void LeakAllocated(uint8_t **) {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> q;
  pipe.InitBuffer(q, 2, 256);
  (void)q.AllocTensor<float>();
}
void LeakEnqueued(uint8_t **) {
  TPipe pipe;
  TQue<TPosition::VECOUT, 2> q;
  pipe.InitBuffer(q, 2, 256);
  LocalTensor<float> t = q.AllocTensor<float>();
  Duplicate(t, 0.0f, 64);
  PipeBarrier<PIPE_ALL>();
  q.EnQue(t);
}
void LeakAtDestroy(uint8_t **) {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> q;
  pipe.InitBuffer(q, 2, 256);
  (void)q.AllocTensor<float>();
  pipe.Destroy();
}

// ---- use after FreeTensor ----
void UseAfterFree(uint8_t **args) {
  TPipe pipe;
  TQue<TPosition::VECOUT, 1> q;
  pipe.InitBuffer(q, 1, 256);
  LocalTensor<float> t = q.AllocTensor<float>();
  Duplicate(t, 1.0f, 64);
  PipeBarrier<PIPE_ALL>();
  q.EnQue(t);
  LocalTensor<float> out = q.DeQue<float>();
  q.FreeTensor(out);
  DataCopy(Gm(args[1], 32), out, 32);  // copies out of a buffer the queue got back
}
void UseAfterRealloc(uint8_t **) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 256);
  LocalTensor<float> a = q.AllocTensor<float>();
  q.FreeTensor(a);
  LocalTensor<float> b = q.AllocTensor<float>();  // the same buffer, a new tile
  Duplicate(a[8], 0.0f, 8);                       // writes through the stale tensor
  PipeBarrier<PIPE_ALL>();
  q.FreeTensor(b);
}

// ---- SyncAll ----
std::atomic<int> g_unwound{0};
struct UnwindProbe {
  ~UnwindProbe() { ++g_unwound; }
};
void SyncEarlyExit(uint8_t **) {
  UnwindProbe probe;
  if (GetBlockIdx() == 2) {
    return;
  }
  SyncAll();
}
void SyncExtraCall(uint8_t **) {
  UnwindProbe probe;
  SyncAll();
  if (GetBlockIdx() == 0) {
    SyncAll();
  }
}
// Core 0 faults while the others wait at the barrier (in every order but IN_ORDER, where it runs first).
void FaultWhileOthersWait(uint8_t **) {
  UnwindProbe probe;
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 256);
  if (GetBlockIdx() == 0) {
    Duplicate(buf.Get<float>(), 0.0f, 65);
    PipeBarrier<PIPE_ALL>();
  }
  SyncAll();
}

// ---- GM data race ----
void RaceSameBlock(uint8_t **args) {
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 256);
  LocalTensor<float> t = buf.Get<float>();
  Duplicate(t, static_cast<float>(GetBlockIdx()), 8);
  PipeBarrier<PIPE_ALL>();
  DataCopy(Gm(args[1], 32), t, 8);  // every core writes out[0..8)
}
void NoRaceWithSync(uint8_t **args) {
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 256);
  LocalTensor<float> t = buf.Get<float>();
  Duplicate(t, static_cast<float>(GetBlockIdx()), 8);
  PipeBarrier<PIPE_ALL>();
  for (int64_t turn = 0; turn < GetBlockNum(); ++turn) {
    if (turn == GetBlockIdx()) {
      DataCopy(Gm(args[1], 32), t, 8);
    }
    SyncAll();
  }
}
void NoRaceAtomic(uint8_t **args) {
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 256);
  LocalTensor<float> t = buf.Get<float>();
  Duplicate(t, 1.0f, 8);
  PipeBarrier<PIPE_ALL>();
  SetAtomicAdd<float>();
  DataCopy(Gm(args[1], 32), t, 8);
  SetAtomicNone();
}

// A plain write by core 0 and atomic adds by the other cores to the same bytes, with no SyncAll between.
void RacePlainVsAtomic(uint8_t **args) {
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 256);
  LocalTensor<float> t = buf.Get<float>();
  Duplicate(t, 1.0f, 8);
  PipeBarrier<PIPE_ALL>();
  if (GetBlockIdx() == 0) {
    DataCopy(Gm(args[1], 32), t, 8);  // e.g. a zero fill that forgot its SyncAll
  } else {
    SetAtomicAdd<float>();
    DataCopy(Gm(args[1], 32), t, 8);
    SetAtomicNone();
  }
}
// A scalar SetValue by core 1 into bytes that core 0 adds to atomically.
void RaceSetValueVsAtomic(uint8_t **args) {
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 256);
  LocalTensor<float> t = buf.Get<float>();
  Duplicate(t, 1.0f, 8);
  PipeBarrier<PIPE_ALL>();
  if (GetBlockIdx() == 0) {
    SetAtomicAdd<float>();
    DataCopy(Gm(args[1], 32), t, 8);
    SetAtomicNone();
  } else if (GetBlockIdx() == 1) {
    Gm(args[1], 32).SetValue(3, 0.0f);
  }
}
// The correct form: the plain zero fill, SyncAll, then everyone adds atomically.
void NoRaceZeroThenAtomic(uint8_t **args) {
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 256);
  LocalTensor<float> t = buf.Get<float>();
  Duplicate(t, 1.0f, 8);
  PipeBarrier<PIPE_ALL>();
  if (GetBlockIdx() == 0) {
    DataCopy(Gm(args[1], 32), t, 8);
  }
  SyncAll();
  SetAtomicAdd<float>();
  DataCopy(Gm(args[1], 32), t, 8);
  SetAtomicNone();
}

// ---- GM bounds (raw pointer): writes through __gm__ pointers that no GlobalTensor checks ----
void RawWritePastEnd(uint8_t **args) {
  if (GetBlockIdx() == 1) {
    reinterpret_cast<__gm__ float *>(args[1])[32] = 0.0f;  // "out" holds 32 floats: one past the end
  }
}
void RawWriteBeforeStart(uint8_t **args) {
  if (GetBlockIdx() == 1) {
    reinterpret_cast<__gm__ float *>(args[1])[-3] = 0.0f;
  }
}
void RawWritePastInput(uint8_t **args) {
  if (GetBlockIdx() == 1) {
    reinterpret_cast<__gm__ int32_t *>(args[0])[33] = -1;  // past the read-only input "x"
  }
}
// Core 1 breaks the red zone, then waits at SyncAll: the fault names it, not a core that runs later.
void RawWriteBeforeSync(uint8_t **args) {
  if (GetBlockIdx() == 1) {
    reinterpret_cast<__gm__ float *>(args[1])[40] = 1.0f;
  }
  SyncAll();
}
// Raw writes inside the region are not faults, and reach the caller's memory.
void RawWriteInside(uint8_t **args) {
  if (GetBlockIdx() == 0) {
    for (int k = 0; k < 32; ++k) {
      reinterpret_cast<__gm__ float *>(args[1])[k] = static_cast<float>(k);
    }
  }
}

// In place: "x" and "out" are the same bytes; the kernel doubles them (read through one, write through the
// other), as an in-place op does.
void InPlaceDouble(uint8_t **args) {
  if (GetBlockIdx() != 0) {
    return;
  }
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 256);
  LocalTensor<float> t = buf.Get<float>();
  DataCopy(t, Gm(args[0], 32), 32);
  PipeBarrier<PIPE_ALL>();
  Add(t, t, t, 32);
  PipeBarrier<PIPE_ALL>();
  DataCopy(Gm(args[1], 32), t, 32);
}

// ---- pipe race: instructions of different pipes touching the same UB bytes with no ordering ----
// MTE2 writes a TBuf tile, V reads it: no queue, flag or barrier in between.
void PipeRaceRaw(uint8_t **args) {
  TPipe pipe;
  TBuf<> in, out;
  pipe.InitBuffer(in, 128);
  pipe.InitBuffer(out, 128);
  DataCopy(in.Get<float>(), Gm(args[0], 32), 32);
  Adds(out.Get<float>(), in.Get<float>(), 1.0f, 32);
}
// PipeBarrier<PIPE_V> orders V after V only, not V after MTE2.
void PipeRaceBarrierV(uint8_t **args) {
  TPipe pipe;
  TBuf<> in, out;
  pipe.InitBuffer(in, 128);
  pipe.InitBuffer(out, 128);
  DataCopy(in.Get<float>(), Gm(args[0], 32), 32);
  PipeBarrier<PIPE_V>();
  Adds(out.Get<float>(), in.Get<float>(), 1.0f, 32);
}
// The flag orders MTE2 before V, but the scalar read needs MTE2 -> S.
void PipeRaceScalar(uint8_t **args) {
  TPipe pipe;
  TBuf<> in;
  pipe.InitBuffer(in, 128);
  LocalTensor<float> t = in.Get<float>();
  DataCopy(t, Gm(args[0], 32), 32);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  (void)t.GetValue(3);
}
// Write-after-read: MTE2 reloads the tile while V may still read it (no V -> MTE2 ordering).
void PipeRaceWar(uint8_t **args) {
  TPipe pipe;
  TBuf<> in, out;
  pipe.InitBuffer(in, 128);
  pipe.InitBuffer(out, 128);
  DataCopy(in.Get<float>(), Gm(args[0], 32), 32);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  Adds(out.Get<float>(), in.Get<float>(), 1.0f, 32);
  DataCopy(in.Get<float>(), Gm(args[0], 32), 32);
}
// A queue tensor written by the scalar pipe: EnQue/DeQue of a VECOUT queue orders V before MTE3, not S.
void PipeRaceQueueScalar(uint8_t **args) {
  TPipe pipe;
  TQue<TPosition::VECOUT, 1> q;
  pipe.InitBuffer(q, 1, 128);
  LocalTensor<float> t = q.AllocTensor<float>();
  for (uint32_t i = 0; i < 32; ++i) {
    t.SetValue(i, 1.0f);
  }
  q.EnQue(t);
  t = q.DeQue<float>();
  DataCopy(Gm(args[1], 32), t, 32);
  q.FreeTensor(t);
}
// MTE2 reads back GM bytes this core just wrote with MTE3, with no MTE3 -> MTE2 ordering.
void PipeRaceGm(uint8_t **args) {
  TPipe pipe;
  TBuf<> a, b;
  pipe.InitBuffer(a, 128);
  pipe.InitBuffer(b, 128);
  Duplicate(a.Get<float>(), 2.0f, 32);
  PipeBarrier<PIPE_ALL>();
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(Gm(args[1], 32), a.Get<float>(), 32);
  DataCopy(b.Get<float>(), Gm(args[1], 32), 32);
}
// MTE2 reads a GM line this core wrote with SetValue: the value is still in the scalar data cache.
void PipeRaceGmScalar(uint8_t **args) {
  TPipe pipe;
  TBuf<> b;
  pipe.InitBuffer(b, 128);
  Gm(args[1], 32).SetValue(5, 1.0f);
  PipeBarrier<PIPE_ALL>();
  DataCopy(b.Get<float>(), Gm(args[1], 32), 32);
}
// Every ordering in place: queues, flags, a flush and barriers (no fault).
// Write-after-write by the scalar pipe: SetValue into bytes MTE2 filled, with no MTE2 -> S ordering.
void PipeRaceScalarWaw(uint8_t **args) {
  TPipe pipe;
  TBuf<> in;
  pipe.InitBuffer(in, 128);
  LocalTensor<float> t = in.Get<float>();
  DataCopy(t, Gm(args[0], 32), 32);
  t.SetValue(9, 0.0f);
}
// Write-after-read by the scalar pipe: V's write is known to S (V_S), its later read is not.
void PipeRaceScalarWar(uint8_t **) {
  TPipe pipe;
  TBuf<> in, out;
  pipe.InitBuffer(in, 128);
  pipe.InitBuffer(out, 128);
  LocalTensor<float> t = in.Get<float>();
  Duplicate(t, 1.0f, 32);
  SetFlag<HardEvent::V_S>(EVENT_ID0);
  WaitFlag<HardEvent::V_S>(EVENT_ID0);
  Adds(out.Get<float>(), t, 1.0f, 32);
  t.SetValue(2, 0.0f);
}
// A scalar read that straddles two 32-byte blocks (UB bytes [30, 34)): the first block was written by
// the scalar pipe itself, the second by MTE2 with no MTE2 -> S ordering.
void PipeRaceScalarStraddle(uint8_t **args) {
  TPipe pipe;
  TBuf<> in;
  pipe.InitBuffer(in, 128);
  LocalTensor<float> t = in.Get<float>();
  for (uint32_t i = 0; i < 8; ++i) {
    t.SetValue(i, 1.0f);
  }
  DataCopy(t[8], Gm(args[0], 32), 8);
  LocalTensor<float> straddle = t.ReinterpretCast<uint8_t>()[30].ReinterpretCast<float>();
  (void)straddle.GetValue(0);
}
// Scalar reads and writes between MTE2 and MTE3, each ordered by its flag: no fault.
void PipesOrderedScalar(uint8_t **args) {
  TPipe pipe;
  TBuf<> in;
  pipe.InitBuffer(in, 128);
  LocalTensor<float> t = in.Get<float>();
  DataCopy(t, Gm(args[0], 32), 32);
  SetFlag<HardEvent::MTE2_S>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_S>(EVENT_ID0);
  for (uint32_t i = 0; i < 32; ++i) {
    t.SetValue(i, t.GetValue(i) + 1.0f);
  }
  SetFlag<HardEvent::S_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::S_MTE3>(EVENT_ID0);
  DataCopy(Gm(args[1], 32), t, 32);
}
void PipesOrdered(uint8_t **args) {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> qin;
  TQue<TPosition::VECOUT, 2> qout;
  TBuf<> tmp;
  pipe.InitBuffer(qin, 2, 128);
  pipe.InitBuffer(qout, 2, 128);
  pipe.InitBuffer(tmp, 128);
  for (int round = 0; round < 3; ++round) {
    LocalTensor<float> in = qin.AllocTensor<float>();
    DataCopy(in, Gm(args[0], 32), 32);
    qin.EnQue(in);
    in = qin.DeQue<float>();
    LocalTensor<float> out = qout.AllocTensor<float>();
    Adds(tmp.Get<float>(), in, 1.0f, 32);
    Muls(out, tmp.Get<float>(), 2.0f, 32);  // V after V: in order
    qout.EnQue(out);
    qin.FreeTensor(in);
    out = qout.DeQue<float>();
    DataCopy(Gm(args[1], 32), out, 32);
    qout.FreeTensor(out);
  }
}
void PipesOrderedGm(uint8_t **args) {
  TPipe pipe;
  TBuf<> a, b;
  pipe.InitBuffer(a, 128);
  pipe.InitBuffer(b, 128);
  Duplicate(a.Get<float>(), 2.0f, 32);
  PipeBarrier<PIPE_ALL>();
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(Gm(args[1], 32), a.Get<float>(), 32);
  SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID1);
  WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID1);
  DataCopy(b.Get<float>(), Gm(args[1], 32), 32);
  GlobalTensor<float> g = Gm(args[1], 32);
  g.SetValue(20, 3.0f);
  DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(g[20]);
  SetFlag<HardEvent::S_MTE2>(EVENT_ID2);
  WaitFlag<HardEvent::S_MTE2>(EVENT_ID2);
  DataCopy(a.Get<float>(), g, 32);
  SetFlag<HardEvent::MTE2_S>(EVENT_ID3);
  WaitFlag<HardEvent::MTE2_S>(EVENT_ID3);
  (void)a.Get<float>().GetValue(20);
}

// ---- flags ----
void SyncUnpaired(uint8_t **) {
  SetFlag<HardEvent::MTE2_V>(EVENT_ID1);
}
// The wait names another event than the set: nothing can satisfy it.
void SyncWrongEvent(uint8_t **) {
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
}
// The wait names another id than the set.
void SyncWrongId(uint8_t **) {
  SetFlag<HardEvent::S_V>(EVENT_ID2);
  WaitFlag<HardEvent::S_V>(EVENT_ID3);
}
// A wait before its set in program order: the waiting pipe never sees the set.
void SyncWaitFirst(uint8_t **) {
  WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
  SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
}
void SyncIdRange(uint8_t **) {
  SetFlag<HardEvent::MTE2_V>(8);
  WaitFlag<HardEvent::MTE2_V>(8);
}
// Ascend910 (NpuArch 1001) has QUE_MAX_EVENT 4.
void SyncIdRange910(uint8_t **) {
  SetFlag<HardEvent::V_MTE3>(EVENT_ID5);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID5);
}
void SyncPipeS(uint8_t **) { PipeBarrier<PIPE_S>(); }
// Event ids from the TPipe allocator, set and waited, released: no fault.
void SyncAllocOk(uint8_t **) {
  TPipe pipe;
  for (int round = 0; round < 10; ++round) {
    const TEventID a = pipe.AllocEventID<HardEvent::V_MTE3>();
    const TEventID b = pipe.AllocEventID<HardEvent::V_MTE3>();
    SetFlag<HardEvent::V_MTE3>(a);
    SetFlag<HardEvent::V_MTE3>(b);
    WaitFlag<HardEvent::V_MTE3>(a);
    WaitFlag<HardEvent::V_MTE3>(b);
    pipe.ReleaseEventID<HardEvent::V_MTE3>(a);
    pipe.ReleaseEventID<HardEvent::V_MTE3>(b);
  }
}
void SyncAllocExhausted(uint8_t **) {
  TPipe pipe;
  for (int k = 0; k < 9; ++k) {
    (void)pipe.AllocEventID<HardEvent::MTE2_V>();
  }
}

// ---- scalar data cache ----
// Cores 0 and 1 each SetValue one int64 of the same 64-byte line.
void CacheSharedLine(uint8_t **args) {
  GlobalTensor<int64_t> g;
  g.SetGlobalBuffer(reinterpret_cast<__gm__ int64_t *>(args[1]), 16);
  g.SetValue(static_cast<uint64_t>(GetBlockIdx()), GetBlockIdx() + 1);
}
// Both cores flush the line right after writing it: no fault.
void CacheSharedLineFlushed(uint8_t **args) {
  GlobalTensor<int64_t> g;
  g.SetGlobalBuffer(reinterpret_cast<__gm__ int64_t *>(args[1]), 16);
  g.SetValue(static_cast<uint64_t>(GetBlockIdx()), GetBlockIdx() + 1);
  DataCacheCleanAndInvalid<int64_t, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(g[GetBlockIdx()]);
}
// Only core 0 flushes: core 1's later write-back of the whole line can clobber core 0's value.
void CacheSharedLineOneFlush(uint8_t **args) {
  GlobalTensor<int64_t> g;
  g.SetGlobalBuffer(reinterpret_cast<__gm__ int64_t *>(args[1]), 16);
  g.SetValue(static_cast<uint64_t>(GetBlockIdx()), GetBlockIdx() + 1);
  if (GetBlockIdx() == 0) {
    DataCacheCleanAndInvalid<int64_t, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(g);
  }
}
// One line per core (64 bytes = 8 int64 apart): no fault.
void CacheOwnLines(uint8_t **args) {
  GlobalTensor<int64_t> g;
  g.SetGlobalBuffer(reinterpret_cast<__gm__ int64_t *>(args[1]), 16);
  g.SetValue(static_cast<uint64_t>(GetBlockIdx() * 8), GetBlockIdx() + 1);
}
// Core 0 writes, SyncAll, core 1 reads the line: core 0 never flushed it.
void CacheStaleRead(uint8_t **args) {
  GlobalTensor<int64_t> g;
  g.SetGlobalBuffer(reinterpret_cast<__gm__ int64_t *>(args[1]), 16);
  if (GetBlockIdx() == 0) {
    g.SetValue(0, 42);
  }
  SyncAll();
  if (GetBlockIdx() == 1) {
    (void)g.GetValue(1);
  }
}
// The same with DataCacheCleanAndInvalid before SyncAll: no fault.
void CacheFlushedRead(uint8_t **args) {
  GlobalTensor<int64_t> g;
  g.SetGlobalBuffer(reinterpret_cast<__gm__ int64_t *>(args[1]), 16);
  if (GetBlockIdx() == 0) {
    g.SetValue(0, 42);
    DataCacheCleanAndInvalid<int64_t, CacheLine::ENTIRE_DATA_CACHE>(g);
  }
  SyncAll();
  if (GetBlockIdx() == 1) {
    (void)g.GetValue(1);
  }
}

// ---- vector dtype ----
void Bf16Arithmetic(uint8_t **) {
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 256);
  LocalTensor<bfloat16_t> t = buf.Get<bfloat16_t>();
  Duplicate(t, bfloat16_t(1.0f), 128);
  PipeBarrier<PIPE_ALL>();
  Add(t, t, t, 128);
}

struct Case {
  const char *name;
  opgen_rt::KernelEntry entry;
  uint32_t blockDim;
  const opgen_rt::ProductInfo &(*product)();
  const char *rule;  // nullptr: must succeed
  int core;          // expected faulting core in IN_ORDER (-1: any)
  const char *detail;
  bool everyCore = false;  // every core breaks the rule: in REVERSED order the last core faults first
};

}  // namespace

int main() {
  const Case cases[] = {
      {"ub_capacity_tbuf", UbCapacityTBuf, 3, th::Ascend910B, "UB capacity", 0,
       "200000 bytes exceed the core's UB capacity of 196608 bytes", true},
      {"ub_capacity_queue", UbCapacityQueue, 1, th::Ascend910B, "UB capacity", 0, "2 x 98336 bytes"},
      {"ub_alignment", UbAlignment, 1, th::Ascend910B, "UB alignment", 0, "dst UB address 12 is not 32-byte aligned"},
      {"ub_bounds_vector", UbBoundsVector, 1, th::Ascend910B, "UB bounds", 0, "touches 1200 bytes at UB address 0"},
      {"ub_bounds_scalar", UbBoundsScalar, 1, th::Ascend910B, "UB bounds", 0, "LocalTensor::SetValue"},
      {"ub_bounds_view", UbBoundsView, 1, th::Ascend910B, "UB bounds", 0, "(128 bytes past its end)"},
      {"gm_bounds_read", GmBoundsRead, 2, th::Ascend910B, "GM bounds", 0,
       "read of 256 bytes at byte offset 0 of region \"x\" (128 bytes, read-only)", true},
      {"gm_bounds_read_only", GmBoundsReadOnly, 1, th::Ascend910B, "GM bounds", 0, "the region is read-only"},
      {"gm_bounds_set_global_buffer", GmBoundsSetGlobalBuffer, 1, th::Ascend910B, "GM bounds", 0,
       "is outside every GM region of the launch"},
      {"gm_bounds_scalar", GmBoundsScalar, 1, th::Ascend910B, "GM bounds", 0, "byte offset 128 of region \"x\""},
      {"truncation_nothing_copied", TruncationNothingCopied, 1, th::Ascend910B, "DataCopy truncation", 0,
       "asked 28 bytes, copied 0"},
      {"truncation_partial", TruncationPartial, 1, th::Ascend910B, "DataCopy truncation", 0,
       "asked 48 bytes, copied 32"},
      {"uninit_vector", UninitVector, 1, th::Ascend910B, "UB uninitialized read", 0, "Exp: src reads 256 bytes"},
      {"uninit_get_value", UninitGetValue, 1, th::Ascend910B, "UB uninitialized read", 0, "LocalTensor::GetValue"},
      {"uninit_padding", UninitPadding, 1, th::Ascend910B, "UB uninitialized read", 0, "first at UB address 20"},
      {"pad_on_wrong_product", PadOnWrongProduct, 1, th::Ascend910, "DataCopyPad unavailable", 0,
       "DataCopyPad is not available on Ascend910"},
      {"atomic_half_on_910", AtomicHalf, 2, th::Ascend910, "atomic dtype", 0, "supports float", true},
      {"atomic_int64_on_910b", AtomicInt64, 1, th::Ascend910B, "atomic dtype", 0, "SetAtomicAdd<int64_t>"},
      {"atomic_mismatch", AtomicMismatch, 1, th::Ascend910B, "atomic dtype", 0,
       "float data while SetAtomicAdd<half> is active"},
      {"deque_empty", DeQueEmpty, 1, th::Ascend910B, "queue order", 0, "DeQue on TQue #0"},
      {"enque_twice", EnQueTwice, 1, th::Ascend910B, "queue order", 0, "that is enqueued"},
      {"free_twice", FreeTwice, 1, th::Ascend910B, "queue order", 0, "that is free"},
      {"alloc_beyond_num", AllocBeyondNum, 1, th::Ascend910B, "queue order", 0, "all 2 buffers are in use"},
      {"enque_beyond_depth", EnQueBeyondDepth, 1, th::Ascend910B, "queue order", 0, "beyond its depth"},
      {"enque_foreign", EnQueForeign, 1, th::Ascend910B, "queue order", 0, "a TBuf tensor"},
      {"free_to_other_queue", FreeToOtherQueue, 1, th::Ascend910B, "queue order", 0, "not allocated from it"},
      {"alloc_uninitialized_queue", AllocUninitialized, 1, th::Ascend910B, "queue order", 0,
       "TPipe::InitBuffer was not called"},
      {"queue_cap", QueueCap, 1, th::Ascend910B, "queue buffer cap", 0,
       "5 queue buffer(s) already at VECIN; 9 exceed Ascend910B's 8"},
      {"queue_cap_ok", QueueCapOk, 1, th::Ascend910B, nullptr, 0, nullptr},
      {"queue_cap_after_destroy", QueueCapAfterDestroy, 1, th::Ascend910B, nullptr, 0, nullptr},
      {"leak_allocated", LeakAllocated, 2, th::Ascend910B, "buffer leak", -1, "1 allocated, 0 enqueued"},
      {"leak_enqueued", LeakEnqueued, 1, th::Ascend910B, "buffer leak", 0, "0 allocated, 1 enqueued"},
      {"leak_at_destroy", LeakAtDestroy, 1, th::Ascend910B, "buffer leak", 0, "TPipe::Destroy"},
      {"use_after_free", UseAfterFree, 1, th::Ascend910B, "use after FreeTensor", 0,
       "DataCopy UB->GM: src is a LocalTensor of buffer 0 of TQue #0 that was freed by FreeTensor (the buffer is free "
       "now)"},
      {"use_after_realloc", UseAfterRealloc, 1, th::Ascend910B, "use after FreeTensor", 0,
       "Duplicate: dst is a LocalTensor of buffer 0 of TQue #0 that was freed by FreeTensor and handed out again (it "
       "is allocated (not enqueued) now)"},
      {"sync_early_exit", SyncEarlyExit, 4, th::Ascend910B, "SyncAll", -1, "SyncAll"},
      {"sync_extra_call", SyncExtraCall, 3, th::Ascend910B, "SyncAll", -1, "SyncAll #2"},
      {"fault_while_others_wait", FaultWhileOthersWait, 8, th::Ascend910B, "UB bounds", 0, "Duplicate"},
      {"race_same_block", RaceSameBlock, 3, th::Ascend910B, "GM data race", -1,
       "byte offset 0 of region \"out\""},
      {"no_race_with_sync", NoRaceWithSync, 5, th::Ascend910B, nullptr, 0, nullptr},
      {"no_race_atomic", NoRaceAtomic, 5, th::Ascend910B, nullptr, 0, nullptr},
      {"race_plain_vs_atomic", RacePlainVsAtomic, 3, th::Ascend910B, "GM data race", -1,
       "with a plain (non-atomic) write while core"},
      {"race_set_value_vs_atomic", RaceSetValueVsAtomic, 3, th::Ascend910B, "GM data race", 1,
       "core 1 wrote 4 GM byte(s) at byte offset 12 of region \"out\""},
      {"no_race_zero_then_atomic", NoRaceZeroThenAtomic, 4, th::Ascend910B, nullptr, 0, nullptr},
      {"raw_write_past_end", RawWritePastEnd, 3, th::Ascend910B, "GM bounds (raw pointer)", 1,
       "changed 4 byte(s) past the end of region \"out\" (128 bytes), at byte offsets 128..131 (0 bytes past its "
       "end)"},
      {"raw_write_before_start", RawWriteBeforeStart, 3, th::Ascend910B, "GM bounds (raw pointer)", 1,
       "changed 4 byte(s) before the start of region \"out\" (128 bytes), at byte offsets -12..-9"},
      {"raw_write_past_input", RawWritePastInput, 2, th::Ascend910B, "GM bounds (raw pointer)", 1,
       "past the end of region \"x\" (128 bytes), at byte offsets 132..135"},
      {"raw_write_before_sync", RawWriteBeforeSync, 4, th::Ascend910B, "GM bounds (raw pointer)", 1,
       "written by core 1 before SyncAll #1"},
      {"raw_write_inside", RawWriteInside, 2, th::Ascend910B, nullptr, 0, nullptr},
      {"bf16_arithmetic", Bf16Arithmetic, 1, th::Ascend910B, "vector dtype", 0,
       "Add on bfloat16_t tensors is not supported on Ascend910B"},
      {"bf16_arithmetic_on_950", Bf16Arithmetic, 1, th::Ascend950, nullptr, 0, nullptr},
      {"pipe_race_raw", PipeRaceRaw, 1, th::Ascend910B, "pipe race", 0,
       "Adds (PIPE_V) reads UB bytes [0, 32) written by DataCopy GM->UB (PIPE_MTE2) with no synchronisation "
       "ordering PIPE_MTE2 before PIPE_V"},
      {"pipe_race_barrier_v", PipeRaceBarrierV, 3, th::Ascend910B, "pipe race", 0,
       "Adds (PIPE_V) reads UB bytes [0, 32) written by DataCopy GM->UB (PIPE_MTE2)", true},
      {"pipe_race_scalar", PipeRaceScalar, 1, th::Ascend910B, "pipe race", 0,
       "LocalTensor::GetValue (PIPE_S) reads UB bytes [12, 16) written by DataCopy GM->UB (PIPE_MTE2)"},
      {"pipe_race_war", PipeRaceWar, 1, th::Ascend910B, "pipe race", 0,
       "DataCopy GM->UB (PIPE_MTE2) overwrites UB bytes [0, 32) read by Adds (PIPE_V) with no synchronisation "
       "ordering PIPE_V before PIPE_MTE2 (use the queue's EnQue/DeQue, SetFlag/WaitFlag<HardEvent::V_MTE2>"},
      {"pipe_race_queue_scalar", PipeRaceQueueScalar, 1, th::Ascend910B, "pipe race", 0,
       "DataCopy UB->GM (PIPE_MTE3) reads UB bytes [0, 32) written by LocalTensor::SetValue (PIPE_S)"},
      {"pipe_race_gm", PipeRaceGm, 1, th::Ascend910B, "pipe race", 0,
       "DataCopy GM->UB (PIPE_MTE2) reads 128 GM byte(s) at byte offset 0 of region \"out\" (128 bytes) that this "
       "core wrote with DataCopy UB->GM (PIPE_MTE3)"},
      {"pipe_race_gm_scalar", PipeRaceGmScalar, 1, th::Ascend910B, "pipe race", 0,
       "that this core wrote with GlobalTensor::SetValue (PIPE_S, through its data cache) with no "
       "DataCacheCleanAndInvalid"},
      {"pipes_ordered", PipesOrdered, 1, th::Ascend910B, nullptr, 0, nullptr},
      {"pipe_race_scalar_waw", PipeRaceScalarWaw, 1, th::Ascend910B, "pipe race", 0,
       "LocalTensor::SetValue (PIPE_S) overwrites UB bytes [36, 40) written by DataCopy GM->UB (PIPE_MTE2) with no "
       "synchronisation ordering PIPE_MTE2 before PIPE_S"},
      {"pipe_race_scalar_war", PipeRaceScalarWar, 1, th::Ascend910B, "pipe race", 0,
       "LocalTensor::SetValue (PIPE_S) overwrites UB bytes [8, 12) read by Adds (PIPE_V) with no synchronisation "
       "ordering PIPE_V before PIPE_S"},
      {"pipe_race_scalar_straddle", PipeRaceScalarStraddle, 1, th::Ascend910B, "pipe race", 0,
       "LocalTensor::GetValue (PIPE_S) reads UB bytes [32, 34) written by DataCopy GM->UB (PIPE_MTE2)"},
      {"pipes_ordered_scalar", PipesOrderedScalar, 1, th::Ascend910B, nullptr, 0, nullptr},
      {"pipes_ordered_gm", PipesOrderedGm, 1, th::Ascend910B, nullptr, 0, nullptr},
      {"sync_unpaired", SyncUnpaired, 2, th::Ascend910B, "sync unpaired", 0,
       "at kernel exit SetFlag<HardEvent::MTE2_V>(1) was set 1 time(s) more than WaitFlag", true},
      {"sync_wrong_event", SyncWrongEvent, 1, th::Ascend910B, "sync deadlock", 0,
       "WaitFlag<HardEvent::MTE2_V>(0) with no SetFlag<HardEvent::MTE2_V>(0) before it: the waiting pipe would hang "
       "(flags set and not waited: V_MTE3 id 0)"},
      {"sync_wrong_id", SyncWrongId, 3, th::Ascend910B, "sync deadlock", 0, "WaitFlag<HardEvent::S_V>(3)", true},
      {"sync_wait_first", SyncWaitFirst, 1, th::Ascend910B, "sync deadlock", 0, "WaitFlag<HardEvent::MTE3_MTE2>(0)"},
      {"sync_id_range", SyncIdRange, 1, th::Ascend910B, "sync params", 0,
       "SetFlag<HardEvent::MTE2_V>: event id 8 is outside 0..7 (QUE_MAX_EVENT is 8 on Ascend910B, NpuArch 2201)"},
      {"sync_id_range_910", SyncIdRange910, 1, th::Ascend910, "sync params", 0,
       "event id 5 is outside 0..3 (QUE_MAX_EVENT is 4 on Ascend910, NpuArch 1001)"},
      {"sync_pipe_s", SyncPipeS, 1, th::Ascend910B, "sync params", 0, "PipeBarrier<PIPE_S>()"},
      {"sync_alloc_ok", SyncAllocOk, 2, th::Ascend910B, nullptr, 0, nullptr},
      {"sync_alloc_exhausted", SyncAllocExhausted, 1, th::Ascend910B, "sync params", 0,
       "AllocEventID<HardEvent::MTE2_V>: all 8 event ids are allocated"},
      {"cache_shared_line", CacheSharedLine, 2, th::Ascend910B, "cache line shared", 1,
       "cores 0 and 1 both wrote the 64-byte GM line at byte offset 0 of region \"out\" (128 bytes) with "
       "GlobalTensor::SetValue between the same SyncAll barriers"},
      {"cache_shared_line_flushed", CacheSharedLineFlushed, 2, th::Ascend910B, nullptr, 0, nullptr},
      {"cache_shared_line_one_flush", CacheSharedLineOneFlush, 2, th::Ascend910B, "cache line shared", 1,
       "cores 0 and 1 both wrote the 64-byte GM line at byte offset 0 of region \"out\" (128 bytes) with "
       "GlobalTensor::SetValue between the same SyncAll barriers, and core 1 did not flush it"},
      {"cache_shared_line_950", CacheSharedLine, 2, th::Ascend950, "cache line shared", 1, "cores 0 and 1 both wrote"},
      // Ascend910 offers no DataCacheCleanAndInvalid: the cache rules are not applied there.
      {"cache_not_modelled_910", CacheSharedLine, 2, th::Ascend910, nullptr, 0, nullptr},
      {"cache_own_lines", CacheOwnLines, 2, th::Ascend910B, nullptr, 0, nullptr},
      {"cache_stale_read", CacheStaleRead, 2, th::Ascend910B, "cache line shared", 1,
       "core 1 read the 64-byte GM line at byte offset 0 of region \"out\" (128 bytes) after SyncAll #1, but core 0 "
       "wrote it with GlobalTensor::SetValue before that SyncAll and did not flush it"},
      {"cache_flushed_read", CacheFlushedRead, 2, th::Ascend910B, nullptr, 0, nullptr},
  };
  std::vector<std::string> seenRules;
  for (const Case &c : cases) {
    for (opgen_rt::CoreOrder order : th::kAllOrders) {
      th::UseProduct(c.product());
      th::Gm x(128, "x", false), out(128, "out");
      th::KernelLaunch k;
      k.name = c.name;
      k.entry = c.entry;
      k.args = {&x, &out};
      k.blockDim = c.blockDim;
      g_unwound = 0;
      const double t0 = th::NowSeconds();
      const opgen_rt::LaunchResult r = th::RunWithOrder(k, order, 42);
      const std::string where = std::string(c.name) + " " + th::OrderName(order);
      TH_CHECK(th::NowSeconds() - t0 < 5.0, "%s took too long", where.c_str());
      TH_CHECK(r.cores.size() == c.blockDim, "%s: one CoreStats per core", where.c_str());
      if (c.rule == nullptr) {
        TH_CHECK(r.ok, "%s: %s", where.c_str(), r.fault.c_str());
        continue;
      }
      int core = c.blockDim == 1 ? c.core : -1;
      const bool raw = std::string(c.rule) == "GM bounds (raw pointer)";
      const bool concurrent = order == opgen_rt::CoreOrder::CONCURRENT;
      if (order == opgen_rt::CoreOrder::IN_ORDER || (raw && !concurrent)) {
        core = c.core;  // red zones are checked whenever a core hands over: the writer is named in every order
      } else if (order == opgen_rt::CoreOrder::REVERSED && c.everyCore) {
        core = static_cast<int>(c.blockDim) - 1;
      } else if (order == opgen_rt::CoreOrder::REVERSED && c.core == 0 && c.entry == FaultWhileOthersWait) {
        core = 0;  // cores 7..1 wait at the barrier, then core 0 faults
      }
      if (th::ExpectFault(r, c.rule, c.name, core, c.blockDim, where.c_str())) {
        if (raw && concurrent) {
          // After a concurrent launch the red zones are checked once: the core is not known.
          TH_CHECK(th::Contains(r.fault, " on core ?/") && th::Contains(r.fault, "the writing core is not known"),
                   "%s: %s", where.c_str(), r.fault.c_str());
          TH_CHECK(th::Contains(r.fault, "a write through a raw __gm__ pointer changed"), "%s: %s", where.c_str(),
                   r.fault.c_str());
        } else {
          TH_CHECK(th::Contains(r.fault, c.detail), "%s: fault lacks \"%s\": %s", where.c_str(), c.detail,
                   r.fault.c_str());
        }
        seenRules.push_back(c.rule);
      }
      if (order == opgen_rt::CoreOrder::IN_ORDER) {
        std::printf("  %-28s %s\n", c.name, r.fault.c_str());
      }
      if (c.entry == FaultWhileOthersWait || c.entry == SyncEarlyExit || c.entry == SyncExtraCall) {
        // Every core that started has unwound (its probe destructor ran): nobody is left waiting.
        TH_CHECK(g_unwound.load() >= 1 && g_unwound.load() <= static_cast<int>(c.blockDim), "%s: %d cores unwound",
                 where.c_str(), g_unwound.load());
        if (order == opgen_rt::CoreOrder::REVERSED && c.entry == FaultWhileOthersWait) {
          TH_CHECK(g_unwound.load() == static_cast<int>(c.blockDim), "%s: waiting cores unwound: %d",
                   where.c_str(), g_unwound.load());
        }
      }
    }
  }
  th::UseProduct(th::Ascend910B());
  // The kernel runs on staged copies of the GM regions: raw writes inside a region reach the caller's
  // memory after the launch, in every order.
  for (opgen_rt::CoreOrder order : th::kAllOrders) {
    th::Gm x(128, "x", false), out(128, "out");
    th::KernelLaunch k;
    k.name = "raw_write_inside";
    k.entry = RawWriteInside;
    k.args = {&x, &out};
    k.blockDim = 2;
    const opgen_rt::LaunchResult r = th::RunWithOrder(k, order, 7);
    TH_CHECK(r.ok, "raw_write_inside %s: %s", th::OrderName(order), r.fault.c_str());
    for (int i = 0; i < 32; ++i) {
      TH_CHECK(out.as<float>()[i] == static_cast<float>(i), "raw_write_inside %s: out[%d] = %g",
               th::OrderName(order), i, static_cast<double>(out.as<float>()[i]));
    }
  }
  // Overlapping regions (an in-place op) are staged as one: writes through one are seen through the other.
  {
    th::Gm data(128, "self");
    for (int i = 0; i < 32; ++i) {
      data.as<float>()[i] = static_cast<float>(i);
    }
    opgen_rt::LaunchRequest req;
    req.kernelName = "in_place_double";
    req.opType = "InPlaceDouble";
    req.entry = InPlaceDouble;
    req.blockDim = 2;
    req.args = {data.data(), data.data()};
    req.regions = {opgen_rt::GmRegion{"input 0 (self)", data.data(), 128, false},
                   opgen_rt::GmRegion{"output 0 (self)", data.data(), 128, true}};
    const opgen_rt::LaunchResult r = opgen_rt::RunKernel(req);
    TH_CHECK(r.ok, "in_place_double: %s", r.fault.c_str());
    for (int i = 0; i < 32; ++i) {
      TH_CHECK(data.as<float>()[i] == 2.0f * static_cast<float>(i), "in_place_double: self[%d] = %g", i,
               static_cast<double>(data.as<float>()[i]));
    }
  }
  return th::Finish("faults");
}
