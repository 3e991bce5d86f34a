// Tests of the emulated sort instructions (runtime/include/opgen_rt/device/sort.h): Sort32, MrgSort (both
// forms), Extract, Concat, GetSortLen / GetSortOffset. Values are checked against std::stable_sort of the same
// (score, index) pairs by descending score (a different algorithm from the emulation's insertion sort and
// queue merge) and against hand-worked cases; every fault rule the file names has a kernel. Each case runs on
// two cores in all four core orders (both cores sort the same input; their outputs must agree).
// Hand-written test code.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "harness.h"
#include "kernel_operator.h"

using namespace AscendC;

namespace {

constexpr uint32_t kBufBytes = 4096;  // each UB buffer of a case
constexpr uint32_t kOutBytes = kBufBytes;

// UB of one case: `scores` holds the GM scores (kBufBytes), `index` the GM uint32 indices (kBufBytes), `work` and
// `dst` are free (dst, filled with 0xff bytes first, is copied out).
struct Bufs {
  LocalTensor<float> scores;
  LocalTensor<uint32_t> index;
  LocalTensor<float> work;
  LocalTensor<float> dst;
};

std::function<void(const Bufs &)> g_body;  // set before each launch, run by every core
bool g_loadScores = true;                  // false: `scores` stays undefined

void SortKernel(uint8_t **args) {
  GlobalTensor<float> gs, gout;
  GlobalTensor<uint32_t> gi;
  gs.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(args[0]), kBufBytes / 4);
  gi.SetGlobalBuffer(reinterpret_cast<__gm__ uint32_t *>(args[1]), kBufBytes / 4);
  gout.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(args[2]) + GetBlockIdx() * (kOutBytes / 4), kOutBytes / 4);
  TPipe pipe;
  TBuf<> bs, bi, bw, bd;
  pipe.InitBuffer(bs, kBufBytes);
  pipe.InitBuffer(bi, kBufBytes);
  pipe.InitBuffer(bw, kBufBytes);
  pipe.InitBuffer(bd, kBufBytes);
  Bufs b{bs.Get<float>(), bi.Get<uint32_t>(), bw.Get<float>(), bd.Get<float>()};
  if (g_loadScores) {
    DataCopy(b.scores, gs, kBufBytes / 4);
  }
  DataCopy(b.index, gi, kBufBytes / 4);
  LocalTensor<uint32_t> dstBits = b.dst.ReinterpretCast<uint32_t>();
  Duplicate(dstBits, 0xffffffffu, static_cast<int32_t>(kBufBytes / 4));
  PipeBarrier<PIPE_ALL>();
  g_body(b);
  PipeBarrier<PIPE_ALL>();
  DataCopy(gout, b.dst, kOutBytes / 4);
}

// GM input of a case: scores (float bit patterns, or halves packed two per word) and indices.
struct Input {
  std::vector<uint32_t> scores = std::vector<uint32_t>(kBufBytes / 4, 0);
  std::vector<uint32_t> index = std::vector<uint32_t>(kBufBytes / 4, 0);
};

struct Outcome {
  opgen_rt::LaunchResult r[4];
  std::vector<uint8_t> out;  // core 0's dst bytes, IN_ORDER
};

Outcome Launch(const char *name, const Input &in, const opgen_rt::ProductInfo &p,
               const std::function<void(const Bufs &)> &body, bool loadScores = true) {
  Outcome res;
  th::UseProduct(p);
  g_body = body;
  g_loadScores = loadScores;
  for (int k = 0; k < 4; ++k) {
    th::Gm gs(kBufBytes, "scores", false), gi(kBufBytes, "index", false), out(2 * kOutBytes, "out");
    std::memcpy(gs.data(), in.scores.data(), kBufBytes);
    std::memcpy(gi.data(), in.index.data(), kBufBytes);
    th::KernelLaunch l;
    l.name = name;
    l.entry = SortKernel;
    l.args = {&gs, &gi, &out};
    l.blockDim = 2;
    res.r[k] = th::RunWithOrder(l, th::kAllOrders[k], 5);
    if (res.r[k].ok) {
      TH_CHECK(std::memcmp(out.data(), out.data() + kOutBytes, kOutBytes) == 0, "%s %s: cores 0 and 1 differ", name,
               th::OrderName(th::kAllOrders[k]));
      std::vector<uint8_t> o(out.data(), out.data() + kOutBytes);
      if (k == 0) {
        res.out = o;
      } else {
        TH_CHECK(o == res.out, "%s: %s differs from IN_ORDER", name, th::OrderName(th::kAllOrders[k]));
      }
    }
  }
  return res;
}

std::vector<uint8_t> Ok(const char *name, const Input &in, const opgen_rt::ProductInfo &p,
                        const std::function<void(const Bufs &)> &body) {
  Outcome res = Launch(name, in, p, body);
  for (int k = 0; k < 4; ++k) {
    TH_CHECK(res.r[k].ok, "%s %s on %s: %s", name, th::OrderName(th::kAllOrders[k]), p.name, res.r[k].fault.c_str());
  }
  return res.out;
}

std::vector<std::string> g_rules;

void Fault(const char *name, const Input &in, const opgen_rt::ProductInfo &p,
           const std::function<void(const Bufs &)> &body, const char *rule, const char *detail,
           bool loadScores = true) {
  Outcome res = Launch(name, in, p, body, loadScores);
  for (int k = 0; k < 4; ++k) {
    const std::string where = std::string(name) + " " + th::OrderName(th::kAllOrders[k]);
    const int core = th::kAllOrders[k] == opgen_rt::CoreOrder::IN_ORDER ? 0 : -1;
    if (th::ExpectFault(res.r[k], rule, name, core, 2, where.c_str())) {
      TH_CHECK(th::Contains(res.r[k].fault, detail), "%s: fault lacks \"%s\": %s", where.c_str(), detail,
               res.r[k].fault.c_str());
    }
  }
  g_rules.push_back(rule);
}

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float FloatAt(const std::vector<uint8_t> &o, size_t byteOff) {
  float f;
  std::memcpy(&f, o.data() + byteOff, 4);
  return f;
}

uint32_t WordAt(const std::vector<uint8_t> &o, size_t byteOff) {
  uint32_t u;
  std::memcpy(&u, o.data() + byteOff, 4);
  return u;
}

// Scores with many ties (small integers), indices 1000 + position.
Input TiedInput(uint32_t n) {
  Input in;
  for (uint32_t i = 0; i < n; ++i) {
    in.scores[i] = Bits(static_cast<float>((i * 7 + 3) % 5));
    in.index[i] = 1000 + i;
  }
  return in;
}

// The expected proposals of sorting `in` positions [from, from + n) by descending score, ties in position
// order: std::stable_sort.
std::vector<std::pair<float, uint32_t>> Expected(const Input &in, uint32_t from, uint32_t n) {
  std::vector<std::pair<float, uint32_t>> v;
  for (uint32_t i = from; i < from + n; ++i) {
    float f;
    std::memcpy(&f, &in.scores[i], 4);
    v.emplace_back(f, in.index[i]);
  }
  std::stable_sort(v.begin(), v.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
  return v;
}

void CheckProposals(const char *name, const std::vector<uint8_t> &o, size_t at,
                    const std::vector<std::pair<float, uint32_t>> &want) {
  for (size_t j = 0; j < want.size(); ++j) {
    const float s = FloatAt(o, at + 8 * j);
    const uint32_t idx = WordAt(o, at + 8 * j + 4);
    TH_CHECK(s == want[j].first && idx == want[j].second, "%s: proposal %zu is (%g, %u), want (%g, %u)", name, j,
             static_cast<double>(s), idx, static_cast<double>(want[j].first), want[j].second);
  }
}

void ValueTests() {
  const opgen_rt::ProductInfo &a2 = th::Ascend910B();
  // Sort32 float, 2 repeats: each group of 32 sorted on its own, ties in input order.
  {
    const Input in = TiedInput(64);
    const std::vector<uint8_t> o = Ok("sort32_float", in, a2, [](const Bufs &b) { Sort32(b.dst, b.scores, b.index, 2); });
    CheckProposals("sort32_float group 0", o, 0, Expected(in, 0, 32));
    CheckProposals("sort32_float group 1", o, 256, Expected(in, 32, 32));
    TH_CHECK(WordAt(o, 512) == 0xffffffffu, "sort32_float wrote past 2 repeats");
    // hand-worked: scores of group 0 are (2i + 3) % 5 over i = 0..31 -> 4 is the largest; its first positions
    // are i = 3 (index 1003), then i = 8 (1008)
    TH_CHECK(FloatAt(o, 0) == 4.0f && WordAt(o, 4) == 1003 && WordAt(o, 12) == 1008, "sort32_float head (%g, %u, %u)",
             static_cast<double>(FloatAt(o, 0)), WordAt(o, 4), WordAt(o, 12));
  }
  // Sort32 half: the score in the low 2 bytes, 2 reserved bytes (0), the index in the high 4 bytes.
  {
    Input in;
    const float hv[4] = {-1.5f, 2.0f, 0.25f, 2.0f};
    for (uint32_t i = 0; i < 32; ++i) {
      const half h(hv[i % 4]);
      uint16_t hb;
      std::memcpy(&hb, &h, 2);
      uint32_t &w = in.scores[i / 2];
      w |= static_cast<uint32_t>(hb) << (16 * (i % 2));
      in.index[i] = i;
    }
    const std::vector<uint8_t> o = Ok("sort32_half", in, a2, [](const Bufs &b) {
      Sort32(b.dst.ReinterpretCast<half>(), b.scores.ReinterpretCast<half>(), b.index, 1);
    });
    const uint32_t want[32] = {1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31,
                               2, 6, 10, 14, 18, 22, 26, 30, 0, 4, 8, 12, 16, 20, 24, 28};
    for (int j = 0; j < 32; ++j) {
      half h;
      std::memcpy(&h, o.data() + 8 * j, 2);
      uint16_t reserved;
      std::memcpy(&reserved, o.data() + 8 * j + 2, 2);
      TH_CHECK(WordAt(o, 8 * j + 4) == want[j] && static_cast<float>(h) == hv[want[j] % 4] && reserved == 0,
               "sort32_half proposal %d: (%g, %u) reserved %u", j, static_cast<double>(static_cast<float>(h)),
               WordAt(o, 8 * j + 4), reserved);
    }
  }
  // Sort32 then MrgSort of 4 queues of 32: 128 proposals in full descending order, ties in position order.
  {
    const Input in = TiedInput(128);
    const std::vector<uint8_t> o = Ok("mrgsort_4", in, a2, [](const Bufs &b) {
      Sort32(b.work, b.scores, b.index, 4);
      PipeBarrier<PIPE_V>();
      const uint16_t lengths[4] = {32, 32, 32, 32};
      MrgSort4Info info(lengths, false, 15, 1);
      MrgSort(b.dst, MrgSortSrcList<float>(b.work[0], b.work[64], b.work[128], b.work[192]), info);
    });
    CheckProposals("mrgsort_4", o, 0, Expected(in, 0, 128));
    TH_CHECK(WordAt(o, 1024) == 0xffffffffu, "mrgsort_4 wrote past 128 proposals");
  }
  // repeatTimes 2 over 8 contiguous queues of 32: two independent merges of 128.
  {
    const Input in = TiedInput(256);
    const std::vector<uint8_t> o = Ok("mrgsort_repeat", in, a2, [](const Bufs &b) {
      Sort32(b.work, b.scores, b.index, 8);
      PipeBarrier<PIPE_V>();
      const uint16_t lengths[4] = {32, 32, 32, 32};
      MrgSort4Info info(lengths, false, 15, 2);
      MrgSort(b.dst, MrgSortSrcList<float>(b.work[0], b.work[64], b.work[128], b.work[192]), info);
    });
    CheckProposals("mrgsort_repeat 0", o, 0, Expected(in, 0, 128));
    CheckProposals("mrgsort_repeat 1", o, 1024, Expected(in, 128, 128));
  }
  // elementCountList form, 3 queues, lengths 3 / 0 / 2 (an empty queue takes part as nothing).
  {
    Input in;
    const float s[5] = {9, 5, 1, 7, 5};  // queue 1: 9 5 1; queue 3: 7 5
    for (uint32_t i = 0; i < 5; ++i) {
      in.scores[2 * i] = Bits(s[i]);
      in.scores[2 * i + 1] = 10 + i;
    }
    const std::vector<uint8_t> o = Ok("mrgsort_list", in, a2, [](const Bufs &b) {
      const uint16_t counts[4] = {3, 0, 2, 0};
      uint32_t sorted[4] = {0, 0, 0, 0};
      MrgSort<float>(b.dst, MrgSortSrcList<float>(b.scores[0], b.scores[6], b.scores[6], b.scores[10]), counts, sorted,
                     7, 1);
    });
    // 9 (10), 7 (13), 5 (11, queue 1 before queue 3), 5 (14), 1 (12)
    const uint32_t want[5] = {10, 13, 11, 14, 12};
    for (int j = 0; j < 5; ++j) {
      TH_CHECK(WordAt(o, 8 * j + 4) == want[j], "mrgsort_list %d: index %u, want %u", j, WordAt(o, 8 * j + 4), want[j]);
    }
  }
  // Exhausted suspension: the merge stops when queue 2 (lengths 4 and 2) runs out; sortedNum says how far.
  {
    Input in;
    const float s[6] = {8, 6, 4, 2, 7, 5};  // queue 1: 8 6 4 2; queue 2: 7 5
    for (uint32_t i = 0; i < 6; ++i) {
      in.scores[2 * i] = Bits(s[i]);
      in.scores[2 * i + 1] = 20 + i;
    }
    uint32_t got[4] = {0, 0, 0, 0};
    const std::vector<uint8_t> o = Ok("mrgsort_suspend", in, a2, [&got](const Bufs &b) {
      const uint16_t counts[4] = {4, 2, 0, 0};
      uint32_t sorted[4] = {0, 0, 0, 0};
      MrgSort<float, true>(b.dst, MrgSortSrcList<float>(b.scores[0], b.scores[8], b.scores[0], b.scores[0]), counts,
                           sorted, 3, 1);
      if (GetBlockIdx() == 0) {
        std::memcpy(got, sorted, sizeof(got));
      }
    });
    // 8 7 6 5 taken, then queue 2 is empty: stop; 2 from queue 1 and 2 from queue 2
    const uint32_t want[4] = {20, 24, 21, 25};
    for (int j = 0; j < 4; ++j) {
      TH_CHECK(WordAt(o, 8 * j + 4) == want[j], "mrgsort_suspend %d: index %u", j, WordAt(o, 8 * j + 4));
    }
    TH_CHECK(WordAt(o, 36) == 0xffffffffu, "mrgsort_suspend merged past the suspension");
    TH_CHECK(got[0] == 2 && got[1] == 2 && got[2] == 0 && got[3] == 0, "sortedNum %u %u %u %u", got[0], got[1],
             got[2], got[3]);
  }
  // Extract: scores and indices back out of the proposals; Concat is the identity on A2.
  {
    const Input in = TiedInput(32);
    const std::vector<uint8_t> o = Ok("extract", in, a2, [](const Bufs &b) {
      LocalTensor<float> concat;
      Concat(concat, b.scores, b.work, 2);
      Sort32(b.work, concat, b.index, 1);
      PipeBarrier<PIPE_V>();
      Extract(b.dst, b.dst[64].ReinterpretCast<uint32_t>(), b.work, 1);
    });
    const auto want = Expected(in, 0, 32);
    for (int j = 0; j < 32; ++j) {
      TH_CHECK(FloatAt(o, 4 * j) == want[j].first && WordAt(o, 256 + 4 * j) == want[j].second,
               "extract %d: (%g, %u)", j, static_cast<double>(FloatAt(o, 4 * j)), WordAt(o, 256 + 4 * j));
    }
  }
  // repeatTime 0 is a no-op on A2.
  {
    const std::vector<uint8_t> o =
        Ok("sort32_zero", TiedInput(32), a2, [](const Bufs &b) { Sort32(b.dst, b.scores, b.index, 0); });
    TH_CHECK(WordAt(o, 0) == 0xffffffffu, "sort32 repeatTime 0 wrote dst");
  }
  // Ascend950 has the same instructions.
  {
    const Input in = TiedInput(32);
    const std::vector<uint8_t> o =
        Ok("sort32_950", in, th::Ascend950(), [](const Bufs &b) { Sort32(b.dst, b.scores, b.index, 1); });
    CheckProposals("sort32_950", o, 0, Expected(in, 0, 32));
  }
  // Sizes in elements of T (the implementation's unit).
  TH_CHECK(GetSortLen<float>(128) == 256 && GetSortLen<half>(128) == 512, "GetSortLen %u %u", GetSortLen<float>(128),
           GetSortLen<half>(128));
  TH_CHECK(GetSortOffset<float>(3) == 6 && GetSortOffset<half>(3) == 12, "GetSortOffset %u %u", GetSortOffset<float>(3),
           GetSortOffset<half>(3));
}

// Row keys as sort scores (ops-nn's EmbeddingDenseGradV2 small-dim kernel casts its int32 indices to float and
// sorts the floats): the cast is exact and strictly increasing for every row in [0, 2^24], so sorting the scores
// orders the rows exactly, with ties only between equal rows; 2^24 + 1 is the first row that collides (it rounds
// to 2^24). Checked exhaustively, then through Sort32 and Extract at the top of the exact range.
void RowKeyTests() {
  constexpr int64_t kExact = int64_t{1} << 24;
  int64_t inexact = -1;
  float previous = -1.0f;
  for (int64_t r = 0; r <= kExact + 1 && inexact < 0; ++r) {
    const float key = static_cast<float>(r);
    if (static_cast<int64_t>(key) != r || !(key > previous)) {
      inexact = r;
    }
    previous = key;
  }
  TH_CHECK(inexact == kExact + 1, "first row whose float key is not exact and increasing: %lld",
           static_cast<long long>(inexact));
  Input in;
  for (uint32_t i = 0; i < 32; ++i) {
    const int64_t row = kExact - static_cast<int64_t>((i * 13) % 32);  // 2^24 - 31 .. 2^24, shuffled
    in.scores[i] = Bits(static_cast<float>(row));
    in.index[i] = i;
  }
  const std::vector<uint8_t> o = Ok("row_keys", in, th::Ascend910B(), [](const Bufs &b) {
    Sort32(b.work, b.scores, b.index, 1);
    PipeBarrier<PIPE_V>();
    Extract(b.dst, b.dst[64].ReinterpretCast<uint32_t>(), b.work, 1);
  });
  for (int j = 0; j < 32; ++j) {
    const int64_t row = static_cast<int64_t>(FloatAt(o, 4 * j));
    const uint32_t at = WordAt(o, 256 + 4 * j);
    TH_CHECK(row == kExact - j && (at * 13) % 32 == static_cast<uint32_t>(j), "row_keys %d: row %lld from %u", j,
             static_cast<long long>(row), at);
  }
}

void FaultTests() {
  const opgen_rt::ProductInfo &a2 = th::Ascend910B();
  const Input in = TiedInput(256);
  const uint16_t len32[4] = {32, 32, 32, 32};
  Fault("sort32_910", in, th::Ascend910(), [](const Bufs &b) { Sort32(b.dst, b.scores, b.index, 1); },
        "vector unsupported", "Sort32 is not available on Ascend910 (NpuArch 1001)");
  Fault("mrgsort_310p", in, th::Ascend310P(),
        [&len32](const Bufs &b) {
          MrgSort(b.dst, MrgSortSrcList<float>(b.scores[0], b.scores[64], b.scores[128], b.scores[192]),
                  MrgSort4Info(len32, false, 15, 1));
        },
        "vector unsupported", "MrgSort is not available on Ascend310P (NpuArch 2002)");
  Fault("sort32_repeat", in, a2, [](const Bufs &b) { Sort32(b.dst, b.scores, b.index, 256); }, "vector params",
        "repeatTime 256 is outside [0, 255]");
  Fault("sort32_zero_950", in, th::Ascend950(), [](const Bufs &b) { Sort32(b.dst, b.scores, b.index, 0); },
        "vector params", "repeatTime 0 is not guaranteed to be a no-op on Ascend950");
  Fault("sort32_align", in, a2, [](const Bufs &b) { Sort32(b.dst, b.scores[1], b.index, 1); }, "UB alignment",
        "src0");
  Fault("sort32_bounds", in, a2, [](const Bufs &b) { Sort32(b.dst[1000], b.scores, b.index, 1); }, "UB bounds", "dst");
  Fault("sort32_undefined", in, a2, [](const Bufs &b) { Sort32(b.dst, b.scores, b.index, 1); },
        "UB uninitialized read", "src0", false);
  Fault("mrgsort_validbit", in, a2,
        [&len32](const Bufs &b) {
          MrgSort(b.dst, MrgSortSrcList<float>(b.scores[0], b.scores[64], b.scores[128], b.scores[192]),
                  MrgSort4Info(len32, false, 5, 1));
        },
        "vector params", "validBit 5 is not 3, 7 or 15");
  Fault("mrgsort_length", in, a2,
        [](const Bufs &b) {
          const uint16_t len[4] = {4096, 1, 0, 0};
          MrgSort(b.dst, MrgSortSrcList<float>(b.scores[0], b.scores[64], b.scores[0], b.scores[0]),
                  MrgSort4Info(len, false, 3, 1));
        },
        "vector params", "elementLengths 4096 is outside [0, 4095]");
  Fault("mrgsort_repeat_cond", in, a2,
        [](const Bufs &b) {
          const uint16_t len[4] = {32, 32, 0, 0};
          MrgSort(b.dst, MrgSortSrcList<float>(b.scores[0], b.scores[64], b.scores[0], b.scores[0]),
                  MrgSort4Info(len, false, 3, 2));
        },
        "vector params", "repeatTimes 2 needs 4 queues");
  Fault("mrgsort_overlap", in, a2,
        [&len32](const Bufs &b) {
          MrgSort(b.scores[224], MrgSortSrcList<float>(b.scores[0], b.scores[64], b.scores[128], b.scores[192]),
                  MrgSort4Info(len32, false, 15, 1));
        },
        "vector overlap", "src4");
  Fault("mrgsort_queue_align", in, a2,
        [&len32](const Bufs &b) {
          MrgSort(b.dst, MrgSortSrcList<float>(b.scores[1], b.scores[64], b.scores[128], b.scores[192]),
                  MrgSort4Info(len32, false, 15, 1));
        },
        "UB alignment", "src1 UB address");
  Fault("extract_910", in, th::Ascend910(),
        [](const Bufs &b) { Extract(b.dst, b.index, b.scores, 1); }, "vector unsupported", "Extract");
}

}  // namespace

int main() {
  ValueTests();
  RowKeyTests();
  FaultTests();
  for (const char *rule :
       {"vector unsupported", "vector params", "UB alignment", "UB bounds", "UB uninitialized read", "vector overlap"}) {
    bool seen = false;
    for (const std::string &s : g_rules) seen = seen || s == rule;
    TH_CHECK(seen, "no case for rule [%s]", rule);
  }
  return th::Finish("sort");
}
