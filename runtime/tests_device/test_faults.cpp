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
  Add(t[3], t, t, 8);  // UB address 12
}

// ---- UB bounds ----
void UbBoundsVector(uint8_t **) {
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 1024);
  LocalTensor<float> t = buf.Get<float>();
  Duplicate(t, 1.0f, 300);  // 1200 bytes into a 1024-byte buffer
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
  (void)t.GetValue(16);
}
void UninitPadding(uint8_t **args) {
  // isPad = false: the right padding holds random values; copying it out reads undefined bytes.
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 256);
  LocalTensor<float> t = buf.Get<float>();
  DataCopyPad(t, Gm(args[0], 32), DataCopyExtParams{1, 20, 0, 0, 0}, DataCopyPadExtParams<float>{false, 0, 2, 0.0f});
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
  DataCopy(Gm(args[1], 32), t, 8);  // every core writes out[0..8)
}
void NoRaceWithSync(uint8_t **args) {
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 256);
  LocalTensor<float> t = buf.Get<float>();
  Duplicate(t, static_cast<float>(GetBlockIdx()), 8);
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
  Add(t, t, t, 32);
  DataCopy(Gm(args[1], 32), t, 32);
}

// ---- vector dtype ----
void Bf16Arithmetic(uint8_t **) {
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 256);
  LocalTensor<bfloat16_t> t = buf.Get<bfloat16_t>();
  Duplicate(t, bfloat16_t(1.0f), 128);
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
