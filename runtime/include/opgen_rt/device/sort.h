// ascend-opgen host emulation of the AscendC kernel API: sort instructions on the vector unit.
//
// Declarations mirror asc-devkit include/basic_api/kernel_operator_proposal_intf.h (Sort32, MrgSort in its
// MrgSort4Info and its elementCountList forms, Concat, Extract, GetSortOffset, GetSortLen) and
// include/basic_api/kernel_struct_proposal.h (MrgSort4Info, MrgSortSrcList): names, template parameters and
// defaults, parameter types, constness and order, return types. Semantics and limits follow the asc-devkit
// docs (docs/zh/api/SIMD-API/基础API/Memory矢量计算/排序组合（ISASI）/{Sort32,MrgSort}.md and
// 高阶API/排序操作/{Extract,Concat,GetSortLen,GetSortOffset}.md) and the implementation
// (impl/basic_api/kernel_operator_proposal_intf_impl.h, impl/basic_api/dav_c220/kernel_operator_proposal_impl.h):
//
//   * A sorted element ("proposal", 8 bytes): the score in the low 4 bytes (float) or the low 2 bytes (half,
//     the next 2 bytes reserved; the emulation writes them 0), the uint32_t index in the high 4 bytes.
//   * Sort32: repeat r sorts the 32 scores src0[32r, 32r + 32) with their indices src1[32r, 32r + 32) in
//     descending score order into dst proposals [32r, 32r + 32); equal scores keep their input order ("如果存在
//     score[i]==score[j]并且i>j，将优先选取score[j]排在前面"). Repeats are not sorted against each other.
//   * MrgSort: merges 2 to 4 queues of proposals (validBit 3, 7, 15: the first 2, 3 or 4 queues), each
//     elementLengths[i] in [0, 4095] proposals, into dst by descending score; equal scores come in queue order
//     (queue 1 first), then in order inside a queue. ifExhaustedSuspension stops the merge when the first queue
//     runs out (the elementCountList form reports the proposals taken from each queue in sortedNum).
//     repeatTimes > 1 repeats the merge over the next 4 queues, which the doc allows only for 4 contiguous
//     queues of equal length without suspension (validBit 15).
//   * Extract: repeat r reads 32 proposals (256 bytes) and writes their 32 scores to dstValue and 32 indices to
//     dstIndex (two GatherMask instructions on NpuArch 2201).
//   * Concat: on NpuArch 2201 and 3510 the scores already are Sort32's input (`concat = src`, no instruction).
//   * GetSortLen / GetSortOffset: the size or offset of `n` proposals in elements of T (n * 8 / sizeof(T));
//     the docs say bytes, the implementation returns elements of T.
//   * NaN scores: the docs do not order them; the emulation places a NaN after every number.
//
// Products (the docs' 产品支持情况): Sort32, MrgSort, Extract and Concat exist on Atlas A2/A3 (NpuArch 2201)
// and Ascend 950 (3510) with the 8-byte layout above; the Atlas training series (1001) has none of them; the
// Atlas inference series (2002) has only the region-proposal forms (16-element proposals of RpSort16 and
// MrgSort4), which the emulation does not offer. A call on such a product is a [vector unsupported] fault.
//
// Strictness (faults): repeatTime outside [0, 255] [vector params], and 0 on Ascend 950 (its doc: not
// guaranteed to be a no-op; on A2/A3 it is one); validBit not 3, 7 or 15, an element length above 4095, or
// repeatTimes > 1 without the four conditions [vector params]; an unaligned operand (dst and every operand of
// Sort32 and Extract 32 bytes, MrgSort queues 8 bytes) [UB alignment]; an operand past its buffer [UB bounds];
// a MrgSort queue that overlaps dst [vector overlap]; reading undefined UB [UB uninitialized read]. The
// instructions run on the vector pipe (PIPE_V) in the cost model's `sort` class (Sort32, MrgSort), Extract in
// the arithmetic class; the timeline charges 256 bytes of proposals as one repeat.
// Hand-written runtime code; not generated.
#ifndef OPGEN_RT_DEVICE_SORT_H
#define OPGEN_RT_DEVICE_SORT_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "opgen_rt/device/tensor.h"

namespace AscendC {

// asc-devkit impl/basic_api/utils/kernel_utils_constants.h.
const uint8_t MRG_SORT_ELEMENT_LEN = 4;

// asc-devkit include/basic_api/kernel_struct_proposal.h.
struct MrgSort4Info {
  MrgSort4Info() {}

  MrgSort4Info(const uint16_t elementLengthsIn[MRG_SORT_ELEMENT_LEN], const bool ifExhaustedSuspensionIn,
               const uint16_t validBitIn, const uint16_t repeatTimesIn)
      : ifExhaustedSuspension(ifExhaustedSuspensionIn),
        validBit(validBitIn),
        repeatTimes(static_cast<uint8_t>(repeatTimesIn)) {
    for (int32_t i = 0; i < MRG_SORT_ELEMENT_LEN; ++i) {
      elementLengths[i] = elementLengthsIn[i];
    }
  }

  uint16_t elementLengths[MRG_SORT_ELEMENT_LEN] = {0};
  bool ifExhaustedSuspension = false;
  uint16_t validBit = 0;
  uint8_t repeatTimes = 1;
};

// asc-devkit include/basic_api/kernel_struct_proposal.h.
template <typename T>
struct MrgSortSrcList {
  MrgSortSrcList() {}

  MrgSortSrcList(const LocalTensor<T> &src1In, const LocalTensor<T> &src2In, const LocalTensor<T> &src3In,
                 const LocalTensor<T> &src4In) {
    src1 = src1In[0];
    src2 = src2In[0];
    src3 = src3In[0];
    src4 = src4In[0];
  }

  LocalTensor<T> src1;
  LocalTensor<T> src2;
  LocalTensor<T> src3;
  LocalTensor<T> src4;
};

namespace opgen_sort {

constexpr uint64_t kProposalBytes = 8;     // one (score, index) element
constexpr int32_t kSortLanes = 32;         // scores per Sort32 / Extract repeat
constexpr uint32_t kMaxQueueLength = 4095;  // MrgSort elementLengths[i]

template <typename T>
constexpr bool kIsSortType = std::is_same<T, half>::value || std::is_same<T, float>::value;

inline std::string ProductTag(const opgen_rt::device::Core *c) {
  return std::string(c->product->name) + " (NpuArch " + std::to_string(c->product->npuArch) + ")";
}

// The 8-byte proposal layout exists on NpuArch 2201 and 3510 (see the file comment).
inline void CheckProduct(opgen_rt::device::Core *c, const char *op) {
  if (!c->product->vectorSort) {  // the catalogue's vector_sort: Atlas A2/A3 (NpuArch 2201) and Ascend 950 (3510)
    c->Fault(opgen_rt::device::rule::kVectorUnsupported,
             std::string(op) + " is not available on " + ProductTag(c) +
                 ": the 8-byte (score, index) sort instructions exist on Atlas A2/A3 (NpuArch 2201) and Ascend "
                 "950 (3510) only");
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

// repeatTime in [0, 255]; 0 is a no-op on A2/A3 and not guaranteed to be one on Ascend 950. Returns whether the
// instruction does anything.
inline bool CheckRepeat(opgen_rt::device::Core *c, const char *op, int64_t repeatTime) {
  CheckRange(c, op, "repeatTime", repeatTime, 0, 255);
  if (repeatTime == 0 && c->product->npuArch == 3510) {
    c->Fault(opgen_rt::device::rule::kVectorParams,
             std::string(op) + ": repeatTime 0 is not guaranteed to be a no-op on " + ProductTag(c) +
                 " (its doc); skip the call instead");
  }
  return repeatTime != 0;
}

inline void CheckAlign(opgen_rt::device::Core *c, const char *op, const char *role, const opgen_rt::device::UbRef &r,
                       uint64_t align) {
  if (!r.bound) {
    c->FaultUnbound(op, role);
  }
  if (r.off % align != 0) {
    c->Fault(opgen_rt::device::rule::kUbAlignment, std::string(op) + ": " + role + " UB address " +
                                                       std::to_string(r.off) + " is not " + std::to_string(align) +
                                                       "-byte aligned");
  }
}

// A UB read of `bytes` bytes at `off` by the instruction `o`: pipe order, then defined bytes.
inline void Read(opgen_rt::device::Core *c, const opgen_rt::device::PipeOp &o, const char *op, const char *role,
                 uint64_t off, uint64_t bytes) {
  c->PipeRead(o, off, bytes);
  c->CheckDefined(op, role, off, bytes);
}

// A UB write of `bytes` bytes at `off` (the caller checked bounds): pipe order, value, defined.
inline void Write(opgen_rt::device::Core *c, const opgen_rt::device::PipeOp &o, uint64_t off, const void *src,
                  uint64_t bytes) {
  c->PipeWrite(o, off, bytes);
  std::memcpy(c->ub + off, src, bytes);
  c->MarkDefined(off, bytes);
}

// The score of a proposal as a float (half: its low 2 bytes).
template <typename T>
inline float Score(const uint8_t *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return static_cast<float>(v);
}

// Whether score a is taken before score b when b came first in the input (descending; ties keep the input
// order; a NaN after every number).
inline bool Before(float a, float b) {
  if (std::isnan(a)) {
    return false;
  }
  return std::isnan(b) || a > b;
}

}  // namespace opgen_sort

// Sort32: see the file comment. dst holds 32 * repeatTime proposals, src0 32 * repeatTime scores, src1 as many
// uint32_t indices.
template <typename T>
inline void Sort32(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<uint32_t> &src1,
                   const int32_t repeatTime) {
  static_assert(opgen_sort::kIsSortType<T>, "Sort32 supports half and float scores");
  constexpr const char *op = "Sort32";
  opgen_rt::device::Core *c = dst.Bound();
  opgen_sort::CheckProduct(c, op);
  if (!opgen_sort::CheckRepeat(c, op, repeatTime)) {
    return;
  }
  const uint64_t n = static_cast<uint64_t>(repeatTime) * opgen_sort::kSortLanes;
  c->CheckOperand(op, "dst", dst.ref_, n * opgen_sort::kProposalBytes, true);
  c->CheckOperand(op, "src0", src0.ref_, n * sizeof(T), true);
  c->CheckOperand(op, "src1", src1.ref_, n * sizeof(uint32_t), true);
  const opgen_rt::device::PipeOp o = c->Issue(opgen_rt::device::kPipeV, op);
  opgen_sort::Read(c, o, op, "src0", src0.ref_.off, n * sizeof(T));
  opgen_sort::Read(c, o, op, "src1", src1.ref_.off, n * sizeof(uint32_t));
  std::vector<uint8_t> out(n * opgen_sort::kProposalBytes, 0);
  for (uint64_t r = 0; r < static_cast<uint64_t>(repeatTime); ++r) {
    uint32_t order[opgen_sort::kSortLanes];
    float score[opgen_sort::kSortLanes];
    for (int32_t j = 0; j < opgen_sort::kSortLanes; ++j) {
      order[j] = static_cast<uint32_t>(j);
      score[j] = opgen_sort::Score<T>(c->ub + src0.ref_.off + (r * opgen_sort::kSortLanes + j) * sizeof(T));
    }
    // stable insertion sort of the 32 lanes by descending score
    for (int32_t j = 1; j < opgen_sort::kSortLanes; ++j) {
      const uint32_t lane = order[j];
      int32_t k = j;
      while (k > 0 && opgen_sort::Before(score[lane], score[order[k - 1]])) {
        order[k] = order[k - 1];
        --k;
      }
      order[k] = lane;
    }
    for (int32_t j = 0; j < opgen_sort::kSortLanes; ++j) {
      const uint64_t from = r * opgen_sort::kSortLanes + order[j];
      uint8_t *p = out.data() + (r * opgen_sort::kSortLanes + j) * opgen_sort::kProposalBytes;
      std::memcpy(p, c->ub + src0.ref_.off + from * sizeof(T), sizeof(T));
      std::memcpy(p + 4, c->ub + src1.ref_.off + from * sizeof(uint32_t), sizeof(uint32_t));
    }
  }
  opgen_sort::Write(c, o, dst.ref_.off, out.data(), out.size());
  c->CountVector(n, opgen_sort::kProposalBytes);
}

// MrgSort, MrgSort4Info form: see the file comment.
template <typename T>
inline void MrgSort(const LocalTensor<T> &dst, const MrgSortSrcList<T> &src, const MrgSort4Info &params) {
  static_assert(opgen_sort::kIsSortType<T>, "MrgSort supports half and float scores");
  constexpr const char *op = "MrgSort";
  opgen_rt::device::Core *c = dst.Bound();
  opgen_sort::CheckProduct(c, op);
  if (params.validBit != 3 && params.validBit != 7 && params.validBit != 15) {
    c->Fault(opgen_rt::device::rule::kVectorParams,
             std::string(op) + ": validBit " + std::to_string(params.validBit) +
                 " is not 3, 7 or 15 (the first 2, 3 or 4 queues)");
  }
  if (!opgen_sort::CheckRepeat(c, op, params.repeatTimes)) {
    return;
  }
  const int32_t queues = params.validBit == 3 ? 2 : params.validBit == 7 ? 3 : 4;
  const LocalTensor<T> *list[MRG_SORT_ELEMENT_LEN] = {&src.src1, &src.src2, &src.src3, &src.src4};
  static const char *const kRole[MRG_SORT_ELEMENT_LEN] = {"src1", "src2", "src3", "src4"};
  uint64_t perRepeat = 0;
  for (int32_t q = 0; q < queues; ++q) {
    opgen_sort::CheckRange(c, op, "elementLengths", params.elementLengths[q], 0, opgen_sort::kMaxQueueLength);
    opgen_sort::CheckAlign(c, op, kRole[q], list[q]->ref_, opgen_sort::kProposalBytes);
    perRepeat += params.elementLengths[q];
  }
  opgen_sort::CheckAlign(c, op, "dst", dst.ref_, opgen_rt::device::kUbBlockBytes);
  const uint64_t repeats = params.repeatTimes;
  if (repeats > 1) {
    bool contiguous = queues == 4 && !params.ifExhaustedSuspension;
    for (int32_t q = 0; contiguous && q < 4; ++q) {
      contiguous = params.elementLengths[q] == params.elementLengths[0] &&
                   (q == 0 || list[q]->ref_.off == list[q - 1]->ref_.off +
                                                       params.elementLengths[q - 1] * opgen_sort::kProposalBytes);
    }
    if (!contiguous) {
      c->Fault(opgen_rt::device::rule::kVectorParams,
               std::string(op) + ": repeatTimes " + std::to_string(repeats) +
                   " needs 4 queues (validBit 15) of equal length stored one after the other and "
                   "ifExhaustedSuspension false");
    }
  }
  // Bounds: queue q of repeat r starts r * perRepeat proposals after its first address (contiguous repeats).
  const uint64_t dstBytes = repeats * perRepeat * opgen_sort::kProposalBytes;
  c->CheckOperand(op, "dst", dst.ref_, dstBytes, true);
  for (int32_t q = 0; q < queues; ++q) {
    const uint64_t bytes = ((repeats - 1) * perRepeat + params.elementLengths[q]) * opgen_sort::kProposalBytes;
    c->CheckOperand(op, kRole[q], list[q]->ref_, bytes, false);
    const uint64_t s0 = list[q]->ref_.off, s1 = s0 + bytes, d0 = dst.ref_.off, d1 = d0 + dstBytes;
    if (bytes != 0 && dstBytes != 0 && s0 < d1 && d0 < s1) {
      c->Fault(opgen_rt::device::rule::kVectorOverlap,
               std::string(op) + ": " + kRole[q] + " (UB bytes [" + std::to_string(s0) + ", " + std::to_string(s1) +
                   ")) overlaps dst (UB bytes [" + std::to_string(d0) + ", " + std::to_string(d1) + "))");
    }
  }
  const opgen_rt::device::PipeOp o = c->Issue(opgen_rt::device::kPipeV, op);
  std::vector<uint8_t> out;
  out.reserve(dstBytes);
  uint64_t taken[MRG_SORT_ELEMENT_LEN] = {0, 0, 0, 0};
  for (uint64_t r = 0; r < repeats; ++r) {
    uint64_t base[MRG_SORT_ELEMENT_LEN] = {0, 0, 0, 0};
    uint64_t head[MRG_SORT_ELEMENT_LEN] = {0, 0, 0, 0};
    for (int32_t q = 0; q < queues; ++q) {
      base[q] = list[q]->ref_.off + r * perRepeat * opgen_sort::kProposalBytes;
      opgen_sort::Read(c, o, op, kRole[q], base[q], params.elementLengths[q] * opgen_sort::kProposalBytes);
    }
    for (;;) {
      int32_t best = -1;
      bool exhausted = false;
      for (int32_t q = 0; q < queues; ++q) {
        if (head[q] >= params.elementLengths[q]) {
          exhausted = true;
          continue;
        }
        if (best < 0 || opgen_sort::Before(opgen_sort::Score<T>(c->ub + base[q] + head[q] * 8),
                                           opgen_sort::Score<T>(c->ub + base[best] + head[best] * 8))) {
          best = q;
        }
      }
      if (best < 0 || (exhausted && params.ifExhaustedSuspension)) {
        break;
      }
      const uint8_t *p = c->ub + base[best] + head[best] * opgen_sort::kProposalBytes;
      out.insert(out.end(), p, p + opgen_sort::kProposalBytes);
      ++head[best];
    }
    for (int32_t q = 0; q < queues; ++q) {
      taken[q] = head[q];
    }
  }
  if (!out.empty()) {
    opgen_sort::Write(c, o, dst.ref_.off, out.data(), out.size());
  }
  c->lastMrgSortTaken[0] = static_cast<uint16_t>(taken[0]);
  c->lastMrgSortTaken[1] = static_cast<uint16_t>(taken[1]);
  c->lastMrgSortTaken[2] = static_cast<uint16_t>(taken[2]);
  c->lastMrgSortTaken[3] = static_cast<uint16_t>(taken[3]);
  c->CountVector(out.size() / opgen_sort::kProposalBytes, opgen_sort::kProposalBytes);
}

// MrgSort, elementCountList form (asc-devkit impl/basic_api/kernel_operator_proposal_intf_impl.h: builds the
// MrgSort4Info and, with isExhaustedSuspension, reads back the proposals taken from each queue).
template <typename T, bool isExhaustedSuspension = false>
inline void MrgSort(const LocalTensor<T> &dst, const MrgSortSrcList<T> &sortList, const uint16_t elementCountList[4],
                    uint32_t sortedNum[4], uint16_t validBit, const int32_t repeatTime) {
  opgen_rt::device::Core *c = dst.Bound();
  opgen_sort::CheckRange(c, "MrgSort", "repeatTime", repeatTime, 0, 255);
  const MrgSort4Info info(elementCountList, isExhaustedSuspension, validBit, static_cast<uint16_t>(repeatTime));
  MrgSort(dst, sortList, info);
  if (isExhaustedSuspension) {
    for (int32_t q = 0; q < MRG_SORT_ELEMENT_LEN; ++q) {
      sortedNum[q] = c->lastMrgSortTaken[q];
    }
  }
}

// Concat: on NpuArch 2201 and 3510 the scores are Sort32's input as they are (`concat = src`).
template <typename T>
inline void Concat(LocalTensor<T> &concat, const LocalTensor<T> &src, const LocalTensor<T> &tmp,
                   const int32_t repeatTime) {
  static_assert(opgen_sort::kIsSortType<T>, "Concat supports half and float");
  (void)tmp;
  opgen_rt::device::Core *c = src.Bound();
  opgen_sort::CheckProduct(c, "Concat");
  opgen_sort::CheckRange(c, "Concat", "repeatTime", repeatTime, 0, 255);
  concat = src;
}

// Extract: see the file comment. sorted holds 32 * repeatTime proposals; dstValue and dstIndex receive
// 32 * repeatTime scores and indices.
template <typename T>
inline void Extract(const LocalTensor<T> &dstValue, const LocalTensor<uint32_t> &dstIndex, const LocalTensor<T> &sorted,
                    const int32_t repeatTime) {
  static_assert(opgen_sort::kIsSortType<T>, "Extract supports half and float");
  constexpr const char *op = "Extract";
  opgen_rt::device::Core *c = sorted.Bound();
  opgen_sort::CheckProduct(c, op);
  if (!opgen_sort::CheckRepeat(c, op, repeatTime)) {
    return;
  }
  const uint64_t n = static_cast<uint64_t>(repeatTime) * opgen_sort::kSortLanes;
  c->CheckOperand(op, "sorted", sorted.ref_, n * opgen_sort::kProposalBytes, true);
  c->CheckOperand(op, "dstValue", dstValue.ref_, n * sizeof(T), true);
  c->CheckOperand(op, "dstIndex", dstIndex.ref_, n * sizeof(uint32_t), true);
  const opgen_rt::device::PipeOp o = c->Issue(opgen_rt::device::kPipeV, op);
  std::vector<uint8_t> values(n * sizeof(T));
  std::vector<uint8_t> indices(n * sizeof(uint32_t));
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t p = sorted.ref_.off + i * opgen_sort::kProposalBytes;
    opgen_sort::Read(c, o, op, "sorted", p, sizeof(T));
    opgen_sort::Read(c, o, op, "sorted", p + 4, sizeof(uint32_t));
    std::memcpy(values.data() + i * sizeof(T), c->ub + p, sizeof(T));
    std::memcpy(indices.data() + i * sizeof(uint32_t), c->ub + p + 4, sizeof(uint32_t));
  }
  opgen_sort::Write(c, o, dstValue.ref_.off, values.data(), values.size());
  opgen_sort::Write(c, o, dstIndex.ref_.off, indices.data(), indices.size());
  c->CountVector(2 * n, opgen_sort::kProposalBytes);  // two GatherMask passes over the proposals
}

// Offset of proposal `elemOffset` in a sorted tensor, in elements of T (NpuArch 2201 / 3510: 8 bytes each;
// region proposals of 8 elements elsewhere).
template <typename T>
inline uint32_t GetSortOffset(const uint32_t elemOffset) {
  static_assert(opgen_sort::kIsSortType<T>, "GetSortOffset supports half and float");
#if defined(__NPU_ARCH__) && (__NPU_ARCH__ == 1001 || __NPU_ARCH__ == 2002)
  return elemOffset * 8;
#else
  return elemOffset * static_cast<uint32_t>(opgen_sort::kProposalBytes / sizeof(T));
#endif
}

// Size of `elemCount` proposals, in elements of T (as GetSortOffset).
template <typename T>
inline uint32_t GetSortLen(const uint32_t elemCount) {
  static_assert(opgen_sort::kIsSortType<T>, "GetSortLen supports half and float");
#if defined(__NPU_ARCH__) && (__NPU_ARCH__ == 1001 || __NPU_ARCH__ == 2002)
  return elemCount * 8;
#else
  return elemCount * static_cast<uint32_t>(opgen_sort::kProposalBytes / sizeof(T));
#endif
}

}  // namespace AscendC

#endif  // OPGEN_RT_DEVICE_SORT_H
