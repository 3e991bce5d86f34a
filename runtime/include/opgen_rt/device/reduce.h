// ascend-opgen host emulation of the AscendC kernel API: reduction instructions.
//
// Declarations mirror asc-devkit include/basic_api/kernel_operator_vec_reduce_intf.h (name, template
// parameters and defaults, parameter types and order, return type); ReduceOrder is that of
// impl/basic_api/utils/kernel_utils_mode.h. Semantics and limits follow the asc-devkit API docs
// (docs/api/SIMD-API/基础API/Memory矢量计算/归约计算/{ReduceSum,ReduceMax,ReduceRepeat,ReduceDataBlock}.md) and
// the dav_c220 implementation (impl/basic_api/dav_c220/kernel_operator_vec_reduce_impl.h):
//
//   * Within one repeat (256 bytes: 128 half or 64 float lanes) a sum is a binary tree over adjacent lanes
//     (lane 0 + lane 1, lane 2 + lane 3, ..., then the pairs of those): "二叉树累加" (ReduceDataBlock doc). A lane
//     the mask leaves out takes no part (the other operand passes through). Every addition is rounded to the
//     element type: half data is accumulated in half (a kernel that wants fp32 accumulation Casts to float
//     first). Non-saturating mode (the default): an fp16 overflow gives inf. NaN and inf propagate as in IEEE
//     addition (inf + -inf = NaN).
//   * ReduceSum across repeats, "方式一" (sequential: acc = r0 + r1, then + r2, ...) for the count form on
//     NpuArch 2201 (Atlas A2/A3: one vcadd in counter mode with accumulation, sharedTmpBuffer unused), "方式二"
//     (the repeat results reduced again by the same tree, 128 or 64 at a time, until one is left) for the
//     mask/repeat forms everywhere and for the count form on every other product.
//   * Max: the largest value and the smallest lane index holding it ("如果存在多个最大值，该指令会将最小索引写入");
//     the index is stored in the value's element type as raw integer bits (uint16_t for half, uint32_t for
//     float). NaN: the docs do not say; the emulation propagates it (a NaN anywhere gives a NaN result, the
//     index of the first NaN), the answer a softmax row with a NaN must give.
//
// Strictness (faults): repeatTime outside [0, 255] for the WholeReduce / BlockReduce forms and negative for
// the ReduceSum / ReduceMax forms, a mask outside [0, 128] (16-bit) / [0, 64] (32-bit) or a 32-bit mask[] with
// high bits, strides outside [0, 65535], dstRepStride 0 on Ascend910, the ReduceOrder values a product lacks,
// float data on Ascend910 (Atlas training series: half only) [vector params / vector dtype]; unaligned
// operands (src and sharedTmpBuffer 32 bytes, dst as the ReduceRepeat doc's table 3) [UB alignment]; a
// sharedTmpBuffer smaller than the documented size [reduce work buffer]; a dst that overlaps the source of a
// later repeat or partially overlaps the source of its own repeat [vector overlap]. mask 0 or repeatTime 0
// is a no-op (documented for A2/A3). The instructions run on the vector pipe (PIPE_V); the whole-tensor
// forms hand their result over through the scalar unit with the flags the dav_c220 implementation sets
// (see WholeTensorReduce).
// Hand-written runtime code; not generated.
#ifndef OPGEN_RT_DEVICE_REDUCE_H
#define OPGEN_RT_DEVICE_REDUCE_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "opgen_rt/device/tensor.h"

namespace AscendC {

// asc-devkit impl/basic_api/utils/kernel_utils_mode.h.
enum class ReduceOrder : uint8_t {
  ORDER_VALUE_INDEX = 0,
  ORDER_INDEX_VALUE,
  ORDER_ONLY_VALUE,
  ORDER_ONLY_INDEX,
};

namespace opgen_reduce {

enum class RedKind : uint8_t { kSum, kMax, kMin };

template <typename T>
constexpr bool kIsReduceType = std::is_same<T, half>::value || std::is_same<T, float>::value;

// Lanes of one repeat (256 bytes) and of one 32-byte block.
template <typename T>
constexpr int32_t kRepLanes = static_cast<int32_t>(opgen_rt::device::kRepeatBytes / sizeof(T));
template <typename T>
constexpr int32_t kBlkLanes = static_cast<int32_t>(opgen_rt::device::kUbBlockBytes / sizeof(T));

inline std::string ProductTag(const opgen_rt::device::Core *c) {
  return std::string(c->product->name) + " (NpuArch " + std::to_string(c->product->npuArch) + ")";
}

// Atlas training series (NpuArch 1001): half only (ReduceSum / ReduceMax / ReduceRepeat / ReduceDataBlock docs).
template <typename T>
inline void CheckReduceDtype(opgen_rt::device::Core *c, const char *op) {
  if (std::is_same<T, float>::value && c->product->npuArch == 1001) {
    c->Fault(opgen_rt::device::rule::kVectorDtype,
             std::string(op) + " on float tensors is not supported on " + ProductTag(c) +
                 ": the Atlas training series reduces half only (Cast to half, or reduce with Add)");
  }
}

inline void CheckRange(opgen_rt::device::Core *c, const char *op, const char *what, int64_t v, int64_t lo,
                       int64_t hi) {
  if (v < lo || v > hi) {
    c->Fault(opgen_rt::device::rule::kVectorParams, std::string(op) + ": " + what + " " + std::to_string(v) +
                                                        " is outside [" + std::to_string(lo) + ", " +
                                                        std::to_string(hi) + "]");
  }
}

// A lane mask of one repeat: bit j set = lane j takes part.
struct LaneMask {
  uint64_t lo = 0;
  uint64_t hi = 0;
  bool Has(int32_t j) const { return j < 64 ? ((lo >> j) & 1u) != 0 : ((hi >> (j - 64)) & 1u) != 0; }
  bool Empty() const { return lo == 0 && hi == 0; }
};

// Continuous mask: the first `mask` lanes; [0, lanes] (0 = no lane: the instruction is a no-op).
template <typename T>
inline LaneMask MaskFromCount(opgen_rt::device::Core *c, const char *op, int32_t mask) {
  CheckRange(c, op, "mask", mask, 0, kRepLanes<T>);
  LaneMask m;
  m.lo = mask >= 64 ? ~uint64_t{0} : ((uint64_t{1} << mask) - 1);
  m.hi = mask >= 128 ? ~uint64_t{0} : (mask > 64 ? ((uint64_t{1} << (mask - 64)) - 1) : 0);
  return m;
}

// Bit mask mask[0] (lanes 0..63), mask[1] (lanes 64..127, 16-bit types only: 0 for 32-bit types).
template <typename T>
inline LaneMask MaskFromBits(opgen_rt::device::Core *c, const char *op, const uint64_t mask[]) {
  LaneMask m{mask[0], mask[1]};
  if (sizeof(T) == 4 && m.hi != 0) {
    c->Fault(opgen_rt::device::rule::kVectorParams,
             std::string(op) + ": mask[1] is " + std::to_string(m.hi) +
                 " but a 32-bit type has 64 lanes per repeat: mask[1] must be 0");
  }
  return m;
}

template <typename T>
inline bool IsNan(const T &v) {
  return std::isnan(static_cast<float>(v));
}

// One rounded addition in the element type (half: the exact double sum rounded once to half).
template <typename T>
inline T AddRounded(const T &a, const T &b) {
  if constexpr (std::is_same<T, half>::value) {
    return half(static_cast<double>(static_cast<float>(a)) + static_cast<double>(static_cast<float>(b)));
  } else {
    return a + b;
  }
}

// A reduced lane: value, the lane index it came from (max/min), and whether any lane took part.
template <typename T>
struct Acc {
  T v{};
  uint32_t idx = 0;
  bool present = false;
};

template <typename T>
inline Acc<T> Combine(RedKind kind, const Acc<T> &a, const Acc<T> &b) {
  if (!a.present) {
    return b;
  }
  if (!b.present) {
    return a;
  }
  Acc<T> r;
  r.present = true;
  if (kind == RedKind::kSum) {
    r.v = AddRounded(a.v, b.v);
    return r;
  }
  // a holds the lower indices: it wins ties; NaN propagates (the first NaN wins).
  if (IsNan(a.v)) {
    return a;
  }
  if (IsNan(b.v)) {
    return b;
  }
  const float x = static_cast<float>(a.v), y = static_cast<float>(b.v);
  const bool takeB = kind == RedKind::kMax ? (y > x) : (y < x);
  return takeB ? b : a;
}

// Binary tree over adjacent lanes: (0,1), (2,3), ... then the pairs of those, until one is left.
// In place over lanes[0, n): a level's result k only overwrites a lane the level has already read.
template <typename T>
inline Acc<T> TreeInPlace(RedKind kind, Acc<T> *lanes, size_t n) {
  if (n == 0) {
    return Acc<T>{};
  }
  while (n > 1) {
    const size_t half = n / 2;
    for (size_t k = 0; k < half; ++k) {
      lanes[k] = Combine(kind, lanes[2 * k], lanes[2 * k + 1]);
    }
    if (n % 2 != 0) {
      lanes[half] = lanes[n - 1];  // the odd lane out passes through
    }
    n = half + n % 2;
  }
  return lanes[0];
}

template <typename T>
inline Acc<T> Tree(RedKind kind, std::vector<Acc<T>> lanes) {
  return TreeInPlace(kind, lanes.data(), lanes.size());
}

// The sum Tree gives over `n` lanes that all take part (values v[0, n), overwritten): the same pairs, the
// same rounding, without the lane bookkeeping.
template <typename T>
inline T TreeSumInPlace(T *v, size_t n) {
  while (n > 1) {
    const size_t half = n / 2;
    for (size_t k = 0; k < half; ++k) {
      v[k] = AddRounded(v[2 * k], v[2 * k + 1]);
    }
    if (n % 2 != 0) {
      v[half] = v[n - 1];
    }
    n = half + n % 2;
  }
  return v[0];
}

// A source of `repeats` repeats: repeat r, lane j at UB byte
//   off + r * srcRepStride * 32 + (j / blockLanes) * srcBlkStride * 32 + (j % blockLanes) * sizeof(T).
struct RepeatGeom {
  uint64_t off = 0;
  int64_t repeats = 0;
  int64_t blkStride = 1;
  int64_t repStride = 8;
};

template <typename T>
inline uint64_t LaneAddr(const RepeatGeom &g, int64_t r, int32_t j) {
  return g.off + static_cast<uint64_t>(r) * static_cast<uint64_t>(g.repStride) * 32u +
         static_cast<uint64_t>(j / kBlkLanes<T>) * static_cast<uint64_t>(g.blkStride) * 32u +
         static_cast<uint64_t>(j % kBlkLanes<T>) * sizeof(T);
}

// Bytes from g.off to the end of the last lane the mask selects (strides are >= 0).
template <typename T>
inline uint64_t SourceExtent(const RepeatGeom &g, const LaneMask &m) {
  int32_t last = -1;
  for (int32_t j = kRepLanes<T> - 1; j >= 0; --j) {
    if (m.Has(j)) {
      last = j;
      break;
    }
  }
  if (last < 0 || g.repeats <= 0) {
    return 0;
  }
  uint64_t ext = 0;
  // The last lane of the last repeat is not always the farthest (repStride may be 0): take the maximum.
  const uint64_t a = LaneAddr<T>(g, g.repeats - 1, last) + sizeof(T) - g.off;
  const uint64_t b = LaneAddr<T>(g, 0, last) + sizeof(T) - g.off;
  ext = a > b ? a : b;
  return ext;
}

// Checks the source operand (bounds of the whole extent, 32-byte alignment), records the pipe reads of every
// selected lane's block and checks that every selected lane is defined.
template <typename T>
inline void ReadLanes(opgen_rt::device::Core *c, const opgen_rt::device::PipeOp &o, const char *op,
                      const RepeatGeom &g, const LaneMask &m) {
  for (int64_t r = 0; r < g.repeats; ++r) {
    for (int32_t b = 0; b < kRepLanes<T> / kBlkLanes<T>; ++b) {
      int32_t first = -1, last = -1;
      for (int32_t j = b * kBlkLanes<T>; j < (b + 1) * kBlkLanes<T>; ++j) {
        if (m.Has(j)) {
          first = first < 0 ? j : first;
          last = j;
        }
      }
      if (first < 0) {
        continue;
      }
      const uint64_t a0 = LaneAddr<T>(g, r, first);
      const uint64_t a1 = LaneAddr<T>(g, r, last) + sizeof(T);
      c->PipeRead(o, a0, a1 - a0);
      for (int32_t j = first; j <= last; ++j) {
        if (m.Has(j)) {
          c->CheckDefined(op, "src", LaneAddr<T>(g, r, j), sizeof(T));
        }
      }
    }
  }
}

template <typename T>
inline void ReadSource(opgen_rt::device::Core *c, const opgen_rt::device::PipeOp &o, const char *op,
                       const LocalTensor<T> &src, const RepeatGeom &g, const LaneMask &m) {
  c->CheckOperand(op, "src", src.ref_, SourceExtent<T>(g, m), true);
  ReadLanes<T>(c, o, op, g, m);
}

template <typename T>
inline Acc<T> ReduceOneRepeat(RedKind kind, const uint8_t *ub, const RepeatGeom &g, int64_t r, const LaneMask &m,
                              int32_t lane0, int32_t lanes) {
  Acc<T> v[kRepLanes<T>];  // lanes <= kRepLanes<T>; lanes the mask leaves out stay absent
  for (int32_t j = lane0; j < lane0 + lanes; ++j) {
    if (m.Has(j)) {
      Acc<T> &a = v[static_cast<size_t>(j - lane0)];
      std::memcpy(&a.v, ub + LaneAddr<T>(g, r, j), sizeof(T));
      a.idx = static_cast<uint32_t>(j);
      a.present = true;
    }
  }
  return TreeInPlace(kind, v, static_cast<size_t>(lanes));
}

// Overlap rule of the repeat forms (TIK / AscendC general overlap constraint): dst of repeat r must not
// touch the source of a later repeat, and may touch the source of its own repeat only when both start at
// the same address ("100% 完全重叠").
template <typename T>
inline void CheckRepeatOverlap(opgen_rt::device::Core *c, const char *op, const RepeatGeom &g, const LaneMask &m,
                               uint64_t dstOff, uint64_t dstRepBytes, uint64_t dstOutBytes, uint64_t dstExtent) {
  const uint64_t srcExt = SourceExtent<T>(g, m);
  if (dstExtent == 0 || srcExt == 0 || dstOff >= g.off + srcExt || g.off >= dstOff + dstExtent) {
    return;
  }
  RepeatGeom one = g;
  one.repeats = 1;
  const uint64_t span = SourceExtent<T>(one, m);
  for (int64_t r = 0; r < g.repeats; ++r) {
    const uint64_t d0 = dstOff + static_cast<uint64_t>(r) * dstRepBytes, d1 = d0 + dstOutBytes;
    for (int64_t q = r; q < g.repeats; ++q) {
      const uint64_t s0 = g.off + static_cast<uint64_t>(q) * static_cast<uint64_t>(g.repStride) * 32u;
      const uint64_t s1 = s0 + span;
      if (d0 < s1 && s0 < d1 && !(q == r && d0 == s0)) {
        c->Fault(opgen_rt::device::rule::kVectorOverlap,
                 std::string(op) + ": the result of repeat " + std::to_string(r) + " (UB bytes [" +
                     std::to_string(d0) + ", " + std::to_string(d1) + ")) overlaps the source of repeat " +
                     std::to_string(q) + " (UB bytes [" + std::to_string(s0) + ", " + std::to_string(s1) +
                     "))" + (q == r ? " without starting at the same address" : ", which is read after it"));
      }
    }
  }
}

inline void CheckDstAlign(opgen_rt::device::Core *c, const char *op, const opgen_rt::device::UbRef &r,
                          uint64_t align) {
  if (r.off % align != 0) {
    c->Fault(opgen_rt::device::rule::kUbAlignment, std::string(op) + ": dst UB address " + std::to_string(r.off) +
                                                       " is not " + std::to_string(align) + "-byte aligned");
  }
}

inline const char *OrderName(ReduceOrder o) {
  switch (o) {
    case ReduceOrder::ORDER_VALUE_INDEX:
      return "ORDER_VALUE_INDEX";
    case ReduceOrder::ORDER_INDEX_VALUE:
      return "ORDER_INDEX_VALUE";
    case ReduceOrder::ORDER_ONLY_VALUE:
      return "ORDER_ONLY_VALUE";
    case ReduceOrder::ORDER_ONLY_INDEX:
      return "ORDER_ONLY_INDEX";
  }
  return "an unknown ReduceOrder";
}

// ReduceRepeat doc: 950 and A2/A3 all four orders; 310P VALUE_INDEX and INDEX_VALUE; 310B VALUE_INDEX and
// ONLY_VALUE; Atlas training series VALUE_INDEX only.
inline void CheckOrder(opgen_rt::device::Core *c, const char *op, ReduceOrder o) {
  bool ok = true;
  switch (c->product->npuArch) {
    case 1001:
      ok = o == ReduceOrder::ORDER_VALUE_INDEX;
      break;
    case 2002:
      ok = o == ReduceOrder::ORDER_VALUE_INDEX || o == ReduceOrder::ORDER_INDEX_VALUE;
      break;
    case 3002:
      ok = o == ReduceOrder::ORDER_VALUE_INDEX || o == ReduceOrder::ORDER_ONLY_VALUE;
      break;
    default:
      ok = static_cast<uint8_t>(o) <= 3;
      break;
  }
  if (!ok) {
    c->Fault(opgen_rt::device::rule::kVectorParams,
             std::string(op) + ": ReduceOrder::" + OrderName(o) + " is not supported on " + ProductTag(c));
  }
}

// Writes `bytes` bytes of `src` at UB byte `off` (the caller checked bounds and recorded the pipe write).
inline void Put(opgen_rt::device::Core *c, uint64_t off, const void *src, uint64_t bytes) {
  std::memcpy(c->ub + off, src, bytes);
  c->MarkDefined(off, bytes);
}

// The index, stored as raw bits in the element type (half: low 16 bits).
template <typename T>
inline T IndexBits(uint32_t idx) {
  T v;
  if constexpr (sizeof(T) == 2) {
    const uint16_t b = static_cast<uint16_t>(idx);
    std::memcpy(&v, &b, 2);
  } else {
    std::memcpy(&v, &idx, sizeof(T));
  }
  return v;
}

// WholeReduceSum / WholeReduceMax / WholeReduceMin: one result per repeat.
template <typename T>
inline void WholeReduce(const char *op, RedKind kind, const LocalTensor<T> &dst, const LocalTensor<T> &src,
                        const LaneMask &m, int32_t repeatTime, int32_t dstRepStride, int32_t srcBlkStride,
                        int32_t srcRepStride, ReduceOrder order) {
  opgen_rt::device::Core *c = dst.Bound();
  CheckReduceDtype<T>(c, op);
  CheckRange(c, op, "repeatTime", repeatTime, 0, 255);
  CheckRange(c, op, "dstRepStride", dstRepStride, 0, 65535);
  CheckRange(c, op, "srcBlkStride", srcBlkStride, 0, 65535);
  CheckRange(c, op, "srcRepStride", srcRepStride, 0, 65535);
  if (c->product->npuArch == 1001 && dstRepStride == 0) {
    c->Fault(opgen_rt::device::rule::kVectorParams,
             std::string(op) + ": dstRepStride 0 is not supported on " + ProductTag(c));
  }
  uint64_t unit = sizeof(T);  // dstRepStride unit and dst alignment (ReduceRepeat doc, table 3)
  if (kind != RedKind::kSum) {
    CheckOrder(c, op, order);
    unit = order == ReduceOrder::ORDER_ONLY_VALUE ? sizeof(T)
           : order == ReduceOrder::ORDER_ONLY_INDEX ? 4u
                                                    : 2 * sizeof(T);
  }
  CheckDstAlign(c, op, dst.ref_, unit);
  if (repeatTime == 0 || m.Empty()) {
    return;  // documented no-op on A2/A3
  }
  const RepeatGeom g{src.ref_.off, repeatTime, srcBlkStride, srcRepStride};
  const uint64_t dstRep = static_cast<uint64_t>(dstRepStride) * unit;
  const uint64_t dstExt = static_cast<uint64_t>(repeatTime - 1) * dstRep + unit;
  c->CheckOperand(op, "dst", dst.ref_, dstExt, false);
  CheckRepeatOverlap<T>(c, op, g, m, dst.ref_.off, dstRep, unit, dstExt);
  const opgen_rt::device::PipeOp o = c->Issue(opgen_rt::device::kPipeV, op);
  ReadSource(c, o, op, src, g, m);
  std::vector<Acc<T>> res(static_cast<size_t>(repeatTime));
  for (int64_t r = 0; r < repeatTime; ++r) {
    res[static_cast<size_t>(r)] = ReduceOneRepeat<T>(kind, c->ub, g, r, m, 0, kRepLanes<T>);
  }
  for (int64_t r = 0; r < repeatTime; ++r) {
    const uint64_t d = dst.ref_.off + static_cast<uint64_t>(r) * dstRep;
    c->PipeWrite(o, d, unit);
    const Acc<T> &a = res[static_cast<size_t>(r)];
    const T idx = IndexBits<T>(a.idx);
    if (kind == RedKind::kSum || order == ReduceOrder::ORDER_ONLY_VALUE) {
      Put(c, d, &a.v, sizeof(T));
    } else if (order == ReduceOrder::ORDER_VALUE_INDEX) {
      Put(c, d, &a.v, sizeof(T));
      Put(c, d + sizeof(T), &idx, sizeof(T));
    } else if (order == ReduceOrder::ORDER_INDEX_VALUE) {
      Put(c, d, &idx, sizeof(T));
      Put(c, d + sizeof(T), &a.v, sizeof(T));
    } else {
      Put(c, d, &a.idx, 4);  // ORDER_ONLY_INDEX: a uint32_t index (ReduceRepeat doc, A2/A3)
    }
  }
  c->CountVector(static_cast<uint64_t>(repeatTime) * static_cast<uint64_t>(kRepLanes<T>), sizeof(T));
}

// BlockReduceSum / BlockReduceMax / BlockReduceMin: one result per 32-byte block, 8 per repeat.
template <typename T>
inline void BlockReduce(const char *op, RedKind kind, const LocalTensor<T> &dst, const LocalTensor<T> &src,
                        int32_t repeatTime, const LaneMask &m, int32_t dstRepStride, int32_t srcBlkStride,
                        int32_t srcRepStride) {
  opgen_rt::device::Core *c = dst.Bound();
  CheckReduceDtype<T>(c, op);
  CheckRange(c, op, "repeatTime", repeatTime, 0, 255);
  CheckRange(c, op, "dstRepStride", dstRepStride, 0, 65535);
  CheckRange(c, op, "srcBlkStride", srcBlkStride, 0, 65535);
  CheckRange(c, op, "srcRepStride", srcRepStride, 0, 65535);
  if (c->product->npuArch == 1001 && dstRepStride == 0) {
    c->Fault(opgen_rt::device::rule::kVectorParams,
             std::string(op) + ": dstRepStride 0 is not supported on " + ProductTag(c));
  }
  constexpr int32_t kBlocks = kRepLanes<T> / kBlkLanes<T>;  // 8
  const uint64_t outBytes = kBlocks * sizeof(T);             // dstRepStride unit: 16 bytes half, 32 float
  CheckDstAlign(c, op, dst.ref_, outBytes);
  if (repeatTime == 0 || m.Empty()) {
    return;
  }
  const RepeatGeom g{src.ref_.off, repeatTime, srcBlkStride, srcRepStride};
  const uint64_t dstRep = static_cast<uint64_t>(dstRepStride) * outBytes;
  const uint64_t dstExt = static_cast<uint64_t>(repeatTime - 1) * dstRep + outBytes;
  c->CheckOperand(op, "dst", dst.ref_, dstExt, false);
  CheckRepeatOverlap<T>(c, op, g, m, dst.ref_.off, dstRep, outBytes, dstExt);
  const opgen_rt::device::PipeOp o = c->Issue(opgen_rt::device::kPipeV, op);
  ReadSource(c, o, op, src, g, m);
  std::vector<Acc<T>> res(static_cast<size_t>(repeatTime) * kBlocks);
  for (int64_t r = 0; r < repeatTime; ++r) {
    for (int32_t b = 0; b < kBlocks; ++b) {
      res[static_cast<size_t>(r * kBlocks + b)] = ReduceOneRepeat<T>(kind, c->ub, g, r, m, b * kBlkLanes<T>,
                                                                     kBlkLanes<T>);
    }
  }
  for (int64_t r = 0; r < repeatTime; ++r) {
    const uint64_t d = dst.ref_.off + static_cast<uint64_t>(r) * dstRep;
    c->PipeWrite(o, d, outBytes);
    for (int32_t b = 0; b < kBlocks; ++b) {
      const Acc<T> &a = res[static_cast<size_t>(r * kBlocks + b)];
      if (a.present) {  // A2/A3: a block with no selected lane keeps dst's old value
        Put(c, d + static_cast<uint64_t>(b) * sizeof(T), &a.v, sizeof(T));
      }
    }
  }
  c->CountVector(static_cast<uint64_t>(repeatTime) * static_cast<uint64_t>(kRepLanes<T>), sizeof(T));
}

// ---- ReduceSum / ReduceMax / ReduceMin (whole-tensor forms with sharedTmpBuffer) ----

inline int64_t DivCeil(int64_t a, int64_t b) { return (a + b - 1) / b; }

// A SetFlag/WaitFlag pair the real implementation issues inside the call, on an event id with no flag of the
// kernel pending (FetchEventID).
inline void InternalSync(opgen_rt::device::Core *c, HardEvent ev) {
  const int32_t e = static_cast<int32_t>(ev);
  int32_t id = 0;
  for (int32_t k = 0; k < c->EventIdLimit(); ++k) {
    if (c->flags[e][k].empty()) {
      id = k;
      break;
    }
  }
  c->SetFlag(e, id);
  c->WaitFlag(e, id);
}

// Documented sharedTmpBuffer size in elements (ReduceSum doc "方式二"; ReduceMax doc, with and without index).
// firstMaxRepeat: repeatTime (mask forms) or the number of repeats of the count form.
template <typename T>
inline int64_t ReduceTmpElems(RedKind kind, int64_t firstMaxRepeat, bool calIndex) {
  const int64_t blk = kBlkLanes<T>, rep = kRepLanes<T>;
  if (kind == RedKind::kSum) {
    return DivCeil(firstMaxRepeat, blk) * blk;
  }
  const int64_t iter1 = firstMaxRepeat * 2;
  if (!calIndex) {
    return DivCeil(iter1, blk) * blk;
  }
  const int64_t iter2Start = DivCeil(iter1, blk) * blk;
  const int64_t iter2Out = DivCeil(iter1, rep) * 2;
  const int64_t iter2End = DivCeil(iter2Out, blk) * blk;
  int64_t need = iter2Start + iter2End;
  if (iter2Out > 2) {
    const int64_t iter3Out = DivCeil(iter2Out, rep) * 2;
    need = iter2Start + iter2End + DivCeil(iter3Out, blk) * blk;
  }
  return need;
}

// Reduces per-repeat results `v` to one: sequentially (sum on A2/A3 count form) or by the tree, `rep` at a time.
template <typename T>
inline Acc<T> CombineRepeats(RedKind kind, std::vector<Acc<T>> v, bool sequential) {
  if (v.empty()) {
    return Acc<T>{};
  }
  if (sequential) {
    Acc<T> acc = v[0];
    for (size_t k = 1; k < v.size(); ++k) {
      acc = Combine(kind, acc, v[k]);
    }
    return acc;
  }
  const size_t rep = static_cast<size_t>(kRepLanes<T>);
  while (v.size() > 1) {
    std::vector<Acc<T>> next;
    for (size_t k = 0; k < v.size(); k += rep) {
      const size_t e = k + rep < v.size() ? k + rep : v.size();
      next.push_back(Tree(kind, std::vector<Acc<T>>(v.begin() + static_cast<std::ptrdiff_t>(k),
                                                    v.begin() + static_cast<std::ptrdiff_t>(e))));
    }
    v.swap(next);
  }
  return v[0];
}

// The whole-tensor reductions. count >= 0: the count form (count contiguous elements, repeats of 256 bytes,
// the last one partial); count < 0: the mask form with `m`, `repeatTime` and `srcRepStride`
// (srcBlkStride 1). dst[0] = the result; for max/min with calIndex, dst[1] = the index as raw bits.
template <typename T>
inline void WholeTensorReduce(const char *op, RedKind kind, const LocalTensor<T> &dst, const LocalTensor<T> &src,
                              const LocalTensor<T> &tmp, int64_t count, LaneMask m, int64_t repeatTime,
                              int32_t srcRepStride, bool calIndex) {
  opgen_rt::device::Core *c = dst.Bound();
  CheckReduceDtype<T>(c, op);
  const bool countForm = count >= 0;
  RepeatGeom g{src.ref_.off, repeatTime, 1, srcRepStride};
  int32_t tail = 0;  // count form: lanes of the last, partial repeat (0 = none)
  if (countForm) {
    g.repeats = DivCeil(count, kRepLanes<T>);
    g.repStride = 8;
    tail = static_cast<int32_t>(count % kRepLanes<T>);
    m = MaskFromCount<T>(c, op, kRepLanes<T>);  // every lane; the last repeat takes `tail` lanes
  } else {
    if (repeatTime < 0) {
      c->Fault(opgen_rt::device::rule::kVectorParams,
               std::string(op) + ": repeatTime " + std::to_string(repeatTime) + " is negative");
    }
    CheckRange(c, op, "srcRepStride", srcRepStride, 0, 65535);
  }
  if (kind != RedKind::kSum && calIndex && sizeof(T) == 2) {
    // ReduceMax doc: a half index cannot exceed 65535.
    const int64_t lastIndex = countForm ? count - 1 : (repeatTime - 1) * srcRepStride * kBlkLanes<T> + kRepLanes<T> - 1;
    if (lastIndex > 65535) {
      c->Fault(opgen_rt::device::rule::kVectorParams,
               std::string(op) + " with calIndex on half data: indices up to " + std::to_string(lastIndex) +
                   " exceed 65535, the largest a half-typed index can hold");
    }
  }
  const uint64_t outBytes = (kind != RedKind::kSum && calIndex) ? 2 * sizeof(T) : sizeof(T);
  CheckDstAlign(c, op, dst.ref_, kind == RedKind::kSum ? sizeof(T) : 2 * sizeof(T));
  if (g.repeats == 0 || m.Empty()) {
    return;  // count 0, repeatTime 0 or mask 0: nothing to reduce, dst is not written
  }
  // Method one (sequential, tmp unused) only for the ReduceSum count form on NpuArch 2201; ReduceMax needs no
  // tmp on NpuArch 3510 (ReduceMax doc); everything else uses the documented sharedTmpBuffer.
  const bool sequential = kind == RedKind::kSum && countForm && c->product->npuArch == 2201;
  const bool usesTmp = !sequential && !(kind != RedKind::kSum && c->product->npuArch == 3510);
  // firstMaxRepeat (ReduceSum / ReduceMax docs): repeatTime for the mask forms, count / elementsPerRepeat
  // (at least 1) for the count form, whose partial last repeat is reduced apart and then combined with the
  // body's result in the same buffer (dav_c220 ReduceTailCompute).
  const int64_t firstMaxRepeat = countForm ? (count / kRepLanes<T> > 0 ? count / kRepLanes<T> : 1) : g.repeats;
  const int64_t needElems = ReduceTmpElems<T>(kind, firstMaxRepeat, calIndex);
  // Source extent: the count form reads exactly count elements.
  const uint64_t srcBytes = countForm ? static_cast<uint64_t>(count) * sizeof(T) : SourceExtent<T>(g, m);
  c->CheckOperand(op, "src", src.ref_, srcBytes, true);
  c->CheckOperand(op, "dst", dst.ref_, outBytes, false);
  const uint64_t srcLo = src.ref_.off, srcHi = srcLo + srcBytes;
  const uint64_t dLo = dst.ref_.off, dHi = dLo + outBytes;
  if (dLo < srcHi && srcLo < dHi && dLo != srcLo) {
    c->Fault(opgen_rt::device::rule::kVectorOverlap,
             std::string(op) + ": dst (UB bytes [" + std::to_string(dLo) + ", " + std::to_string(dHi) +
                 ")) partially overlaps src (UB bytes [" + std::to_string(srcLo) + ", " + std::to_string(srcHi) +
                 "))");
  }
  uint64_t tmpBytes = 0;
  if (usesTmp) {
    tmpBytes = static_cast<uint64_t>(needElems) * sizeof(T);
    c->CheckOperand(op, "sharedTmpBuffer", tmp.ref_, 0, true);
    const uint64_t have = tmp.ref_.end > tmp.ref_.off ? tmp.ref_.end - tmp.ref_.off : 0;
    if (have < tmpBytes) {
      c->Fault(opgen_rt::device::rule::kReduceWorkBuffer,
               std::string(op) + ": sharedTmpBuffer holds " + std::to_string(have / sizeof(T)) + " elements (" +
                   std::to_string(have) + " bytes) but firstMaxRepeat " + std::to_string(firstMaxRepeat) +
                   (kind != RedKind::kSum ? (calIndex ? " with calIndex" : " without calIndex") : "") +
                   " need " + std::to_string(needElems) + " (" + std::to_string(tmpBytes) + " bytes) on " +
                   ProductTag(c));
    }
    const uint64_t tLo = tmp.ref_.off, tHi = tLo + tmpBytes;
    if (tLo < srcHi && srcLo < tHi && tLo != srcLo) {
      c->Fault(opgen_rt::device::rule::kVectorOverlap,
               std::string(op) + ": sharedTmpBuffer (UB bytes [" + std::to_string(tLo) + ", " + std::to_string(tHi) +
                   ")) partially overlaps src (UB bytes [" + std::to_string(srcLo) + ", " + std::to_string(srcHi) +
                   ")); it may reuse src only from src's first element");
    }
  }
  const opgen_rt::device::PipeOp o = c->Issue(opgen_rt::device::kPipeV, op);
  // Reads: every selected lane (the count form's last repeat only up to count).
  std::vector<Acc<T>> per(static_cast<size_t>(g.repeats));
  // The count form reads [srcLo, srcHi) contiguously: when that whole range is defined and free of pipe races,
  // it is recorded as one read and each repeat's sum is taken without the per-lane bookkeeping (the same tree,
  // the same roundings); otherwise every repeat goes through ReadLanes, which reports the fault.
  const bool wholeRange = countForm && kind == RedKind::kSum && c->ShadowAny(srcLo, srcBytes) == 0 &&
                          c->PipeReadClean(o, srcLo, srcBytes);
  if (wholeRange) {
    c->PipeRead(o, srcLo, srcBytes);
    T v[kRepLanes<T>];
    for (int64_t r = 0; r < g.repeats; ++r) {
      const int32_t lanes = (tail != 0 && r == g.repeats - 1) ? tail : kRepLanes<T>;
      std::memcpy(v, c->ub + srcLo + static_cast<uint64_t>(r) * opgen_rt::device::kRepeatBytes,
                  static_cast<size_t>(lanes) * sizeof(T));
      Acc<T> &a = per[static_cast<size_t>(r)];
      a.v = TreeSumInPlace(v, static_cast<size_t>(lanes));
      a.present = true;
      a.idx = static_cast<uint32_t>(r * g.repStride * kBlkLanes<T>);  // as below (a sum never reads it)
    }
  }
  for (int64_t r = 0; r < g.repeats && !wholeRange; ++r) {
    LaneMask rm = m;
    if (countForm && tail != 0 && r == g.repeats - 1) {
      rm = MaskFromCount<T>(c, op, tail);
    }
    RepeatGeom one = g;
    one.off = LaneAddr<T>(g, r, 0);
    one.repeats = 1;
    ReadLanes<T>(c, o, op, one, rm);  // bounds were checked for the whole extent above
    Acc<T> a = ReduceOneRepeat<T>(kind, c->ub, g, r, rm, 0, kRepLanes<T>);
    // The global index: repeat r starts srcRepStride blocks after repeat r-1 (count form: 256 bytes).
    a.idx += static_cast<uint32_t>(r * g.repStride * kBlkLanes<T>);
    per[static_cast<size_t>(r)] = a;
  }
  const Acc<T> res = CombineRepeats(kind, per, sequential);
  if (usesTmp) {
    // The first round's results land in sharedTmpBuffer (its contents are the instruction's scratch after it).
    c->PipeRead(o, tmp.ref_.off, tmpBytes);
    c->PipeWrite(o, tmp.ref_.off, tmpBytes);
    const uint64_t stride = kind == RedKind::kSum ? 1 : 2;
    for (int64_t r = 0; r < g.repeats && (static_cast<uint64_t>(r) + 1) * stride <= static_cast<uint64_t>(needElems);
         ++r) {
      const uint64_t d = tmp.ref_.off + static_cast<uint64_t>(r) * stride * sizeof(T);
      Put(c, d, &per[static_cast<size_t>(r)].v, sizeof(T));
      if (stride == 2) {
        const T ib = IndexBits<T>(per[static_cast<size_t>(r)].idx % static_cast<uint32_t>(kRepLanes<T>));
        Put(c, d + sizeof(T), &ib, sizeof(T));
      }
    }
    c->MarkDefined(tmp.ref_.off, tmpBytes);
  }
  // Where the implementation (dav_c220) hands the result over through the scalar unit - SetFlag/WaitFlag
  // V_S, a scalar store into dst, then S_V and S_MTE3 - the same orderings are made here, so a GetValue of the
  // result or a copy-out right after the call is as safe as on the device. Otherwise the vector pipe writes
  // dst: a ReduceSum whose repeat results need a last vector pass (more than one repeat's worth of them), and
  // a ReduceMax/Min with calIndex over exactly one repeat.
  const int64_t lastRound = DivCeil(g.repeats, kRepLanes<T>);
  const bool scalarFinal = kind == RedKind::kSum ? (sequential || lastRound == 1)
                                                 : !(calIndex && g.repeats == 1);
  if (!scalarFinal || !usesTmp) {
    c->PipeWrite(o, dst.ref_.off, outBytes);
  }
  if (scalarFinal) {
    InternalSync(c, HardEvent::V_S);
    c->PipeWrite(c->Issue(opgen_rt::device::kPipeS, op), dst.ref_.off, outBytes);
  }
  Put(c, dst.ref_.off, &res.v, sizeof(T));
  if (kind != RedKind::kSum && calIndex) {
    const T ib = IndexBits<T>(res.idx);
    Put(c, dst.ref_.off + sizeof(T), &ib, sizeof(T));
  }
  if (scalarFinal) {
    InternalSync(c, HardEvent::S_V);
    InternalSync(c, HardEvent::S_MTE3);
  }
  c->CountVector(countForm ? static_cast<uint64_t>(count)
                           : static_cast<uint64_t>(g.repeats) * static_cast<uint64_t>(kRepLanes<T>),
                 sizeof(T));
}

}  // namespace opgen_reduce

// ---------------------------------------------------------------------------------------------------------
// WholeReduceSum / WholeReduceMax / WholeReduceMin: one result per repeat.
// ---------------------------------------------------------------------------------------------------------

#define OPGEN_RT_REDUCE_TYPE_CHECK(OP)                                                                       \
  static_assert(opgen_reduce::kIsReduceType<T>, OP " is emulated for half and float");                      \
  static_assert(isSetMask, OP " with isSetMask = false reads a mask set by SetVectorMask, which the emulation " \
                              "does not model: pass the mask")

#if defined(__NPU_ARCH__) && ((__NPU_ARCH__ == 3510) || (__NPU_ARCH__ == 5102) || (__NPU_ARCH__ == 3003) || \
                              (__NPU_ARCH__ == 3113))
template <typename T, bool isSetMask = true, typename U = T>
inline void WholeReduceSum(const LocalTensor<U> &dst, const LocalTensor<T> &src, const uint64_t mask[],
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride) {
  OPGEN_RT_REDUCE_TYPE_CHECK("WholeReduceSum");
  static_assert(std::is_same<T, U>::value, "WholeReduceSum with a dst type other than the src type is not emulated");
  opgen_reduce::WholeReduce<T>("WholeReduceSum", opgen_reduce::RedKind::kSum, dst, src,
                               opgen_reduce::MaskFromBits<T>(dst.Bound(), "WholeReduceSum", mask), repeatTime,
                               dstRepStride, srcBlkStride, srcRepStride, ReduceOrder::ORDER_VALUE_INDEX);
}
template <typename T, bool isSetMask = true, typename U = T>
inline void WholeReduceSum(const LocalTensor<U> &dst, const LocalTensor<T> &src, const int32_t mask,
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride) {
  OPGEN_RT_REDUCE_TYPE_CHECK("WholeReduceSum");
  static_assert(std::is_same<T, U>::value, "WholeReduceSum with a dst type other than the src type is not emulated");
  opgen_reduce::WholeReduce<T>("WholeReduceSum", opgen_reduce::RedKind::kSum, dst, src,
                               opgen_reduce::MaskFromCount<T>(dst.Bound(), "WholeReduceSum", mask), repeatTime,
                               dstRepStride, srcBlkStride, srcRepStride, ReduceOrder::ORDER_VALUE_INDEX);
}
#else
template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[],
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride) {
  OPGEN_RT_REDUCE_TYPE_CHECK("WholeReduceSum");
  opgen_reduce::WholeReduce<T>("WholeReduceSum", opgen_reduce::RedKind::kSum, dst, src,
                               opgen_reduce::MaskFromBits<T>(dst.Bound(), "WholeReduceSum", mask), repeatTime,
                               dstRepStride, srcBlkStride, srcRepStride, ReduceOrder::ORDER_VALUE_INDEX);
}
template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t mask,
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride) {
  OPGEN_RT_REDUCE_TYPE_CHECK("WholeReduceSum");
  opgen_reduce::WholeReduce<T>("WholeReduceSum", opgen_reduce::RedKind::kSum, dst, src,
                               opgen_reduce::MaskFromCount<T>(dst.Bound(), "WholeReduceSum", mask), repeatTime,
                               dstRepStride, srcBlkStride, srcRepStride, ReduceOrder::ORDER_VALUE_INDEX);
}
#endif

#define OPGEN_RT_WHOLE_REDUCE_MINMAX(NAME, KIND)                                                              \
  template <typename T, bool isSetMask = true>                                                               \
  inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[],              \
                   const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,         \
                   const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {         \
    OPGEN_RT_REDUCE_TYPE_CHECK(#NAME);                                                                       \
    opgen_reduce::WholeReduce<T>(#NAME, KIND, dst, src, opgen_reduce::MaskFromBits<T>(dst.Bound(), #NAME, mask), \
                                 repeatTime, dstRepStride, srcBlkStride, srcRepStride, order);               \
  }                                                                                                          \
  template <typename T, bool isSetMask = true>                                                               \
  inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t mask,                 \
                   const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,         \
                   const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {         \
    OPGEN_RT_REDUCE_TYPE_CHECK(#NAME);                                                                       \
    opgen_reduce::WholeReduce<T>(#NAME, KIND, dst, src, opgen_reduce::MaskFromCount<T>(dst.Bound(), #NAME, mask), \
                                 repeatTime, dstRepStride, srcBlkStride, srcRepStride, order);               \
  }

OPGEN_RT_WHOLE_REDUCE_MINMAX(WholeReduceMax, opgen_reduce::RedKind::kMax)
OPGEN_RT_WHOLE_REDUCE_MINMAX(WholeReduceMin, opgen_reduce::RedKind::kMin)
#undef OPGEN_RT_WHOLE_REDUCE_MINMAX

// ---------------------------------------------------------------------------------------------------------
// BlockReduceSum / BlockReduceMax / BlockReduceMin: one result per 32-byte block (note: repeatTime comes
// before mask here, unlike WholeReduce*).
// ---------------------------------------------------------------------------------------------------------

#define OPGEN_RT_BLOCK_REDUCE(NAME, KIND)                                                                     \
  template <typename T, bool isSetMask = true>                                                               \
  inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTime,           \
                   const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,               \
                   const int32_t srcRepStride) {                                                             \
    OPGEN_RT_REDUCE_TYPE_CHECK(#NAME);                                                                       \
    opgen_reduce::BlockReduce<T>(#NAME, KIND, dst, src, repeatTime,                                          \
                                 opgen_reduce::MaskFromCount<T>(dst.Bound(), #NAME, mask), dstRepStride,     \
                                 srcBlkStride, srcRepStride);                                                \
  }                                                                                                          \
  template <typename T, bool isSetMask = true>                                                               \
  inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTime,           \
                   const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,            \
                   const int32_t srcRepStride) {                                                             \
    OPGEN_RT_REDUCE_TYPE_CHECK(#NAME);                                                                       \
    opgen_reduce::BlockReduce<T>(#NAME, KIND, dst, src, repeatTime,                                          \
                                 opgen_reduce::MaskFromBits<T>(dst.Bound(), #NAME, mask), dstRepStride,      \
                                 srcBlkStride, srcRepStride);                                                \
  }

OPGEN_RT_BLOCK_REDUCE(BlockReduceSum, opgen_reduce::RedKind::kSum)
OPGEN_RT_BLOCK_REDUCE(BlockReduceMax, opgen_reduce::RedKind::kMax)
OPGEN_RT_BLOCK_REDUCE(BlockReduceMin, opgen_reduce::RedKind::kMin)
#undef OPGEN_RT_BLOCK_REDUCE
#undef OPGEN_RT_REDUCE_TYPE_CHECK

// ---------------------------------------------------------------------------------------------------------
// ReduceSum / ReduceMax / ReduceMin over a whole tensor: the count form ("tensor前n个数据") and the mask forms
// ("tensor高维切分", srcBlkStride 1, repeatTime up to INT32_MAX). dst[0] = the result; ReduceMax/Min with
// calIndex also write dst[1] = the index (raw bits of an integer in the element type).
// ---------------------------------------------------------------------------------------------------------

#define OPGEN_RT_WHOLE_TENSOR_CHECK(OP) static_assert(opgen_reduce::kIsReduceType<T>, OP " is emulated for half and float")

template <typename T>
inline void ReduceMax(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,
                      const int32_t mask, const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = 0) {
  OPGEN_RT_WHOLE_TENSOR_CHECK("ReduceMax");
  opgen_reduce::WholeTensorReduce<T>("ReduceMax", opgen_reduce::RedKind::kMax, dst, src, sharedTmpBuffer, -1,
                                     opgen_reduce::MaskFromCount<T>(dst.Bound(), "ReduceMax", mask), repeatTime,
                                     srcRepStride, calIndex);
}

template <typename T>
inline void ReduceMin(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,
                      const int32_t mask, const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = 0) {
  OPGEN_RT_WHOLE_TENSOR_CHECK("ReduceMin");
  opgen_reduce::WholeTensorReduce<T>("ReduceMin", opgen_reduce::RedKind::kMin, dst, src, sharedTmpBuffer, -1,
                                     opgen_reduce::MaskFromCount<T>(dst.Bound(), "ReduceMin", mask), repeatTime,
                                     srcRepStride, calIndex);
}

template <typename T>
inline void ReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,
                      const int32_t mask, const int32_t repeatTime, const int32_t srcRepStride) {
  OPGEN_RT_WHOLE_TENSOR_CHECK("ReduceSum");
  opgen_reduce::WholeTensorReduce<T>("ReduceSum", opgen_reduce::RedKind::kSum, dst, src, sharedTmpBuffer, -1,
                                     opgen_reduce::MaskFromCount<T>(dst.Bound(), "ReduceSum", mask), repeatTime,
                                     srcRepStride, false);
}

template <typename T>
inline void ReduceMax(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,
                      const uint64_t mask[], const int32_t repeatTime, const int32_t srcRepStride,
                      bool calIndex = 0) {
  OPGEN_RT_WHOLE_TENSOR_CHECK("ReduceMax");
  opgen_reduce::WholeTensorReduce<T>("ReduceMax", opgen_reduce::RedKind::kMax, dst, src, sharedTmpBuffer, -1,
                                     opgen_reduce::MaskFromBits<T>(dst.Bound(), "ReduceMax", mask), repeatTime,
                                     srcRepStride, calIndex);
}

template <typename T>
inline void ReduceMin(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,
                      const uint64_t mask[], const int32_t repeatTime, const int32_t srcRepStride,
                      bool calIndex = 0) {
  OPGEN_RT_WHOLE_TENSOR_CHECK("ReduceMin");
  opgen_reduce::WholeTensorReduce<T>("ReduceMin", opgen_reduce::RedKind::kMin, dst, src, sharedTmpBuffer, -1,
                                     opgen_reduce::MaskFromBits<T>(dst.Bound(), "ReduceMin", mask), repeatTime,
                                     srcRepStride, calIndex);
}

template <typename T>
inline void ReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,
                      const uint64_t mask[], const int32_t repeatTime, const int32_t srcRepStride) {
  OPGEN_RT_WHOLE_TENSOR_CHECK("ReduceSum");
  opgen_reduce::WholeTensorReduce<T>("ReduceSum", opgen_reduce::RedKind::kSum, dst, src, sharedTmpBuffer, -1,
                                     opgen_reduce::MaskFromBits<T>(dst.Bound(), "ReduceSum", mask), repeatTime,
                                     srcRepStride, false);
}

template <typename T>
inline void ReduceMin(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,
                      const int32_t count, bool calIndex = 0) {
  OPGEN_RT_WHOLE_TENSOR_CHECK("ReduceMin");
  opgen_reduce::CheckRange(dst.Bound(), "ReduceMin", "count", count, 0, INT32_MAX);
  opgen_reduce::WholeTensorReduce<T>("ReduceMin", opgen_reduce::RedKind::kMin, dst, src, sharedTmpBuffer, count,
                                     opgen_reduce::LaneMask{}, 0, 8, calIndex);
}

template <typename T>
inline void ReduceMax(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,
                      const int32_t count, bool calIndex = 0) {
  OPGEN_RT_WHOLE_TENSOR_CHECK("ReduceMax");
  opgen_reduce::CheckRange(dst.Bound(), "ReduceMax", "count", count, 0, INT32_MAX);
  opgen_reduce::WholeTensorReduce<T>("ReduceMax", opgen_reduce::RedKind::kMax, dst, src, sharedTmpBuffer, count,
                                     opgen_reduce::LaneMask{}, 0, 8, calIndex);
}

template <typename T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,
                      const int32_t count) {
  OPGEN_RT_WHOLE_TENSOR_CHECK("ReduceSum");
  static_assert(isSetMask, "ReduceSum with isSetMask = false reads a mask set by SetVectorMask, which the emulation "
                           "does not model: pass the count");
  opgen_reduce::CheckRange(dst.Bound(), "ReduceSum", "count", count, 0, INT32_MAX);
  opgen_reduce::WholeTensorReduce<T>("ReduceSum", opgen_reduce::RedKind::kSum, dst, src, sharedTmpBuffer, count,
                                     opgen_reduce::LaneMask{}, 0, 8, false);
}
#undef OPGEN_RT_WHOLE_TENSOR_CHECK

}  // namespace AscendC

#endif  // OPGEN_RT_DEVICE_REDUCE_H
