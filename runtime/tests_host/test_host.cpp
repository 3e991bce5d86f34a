// ascend-opgen runtime host tests: the aclnn/acl host emulation driven through the generated
// SoftMarginLossBackward op and the OpgenTestOp and OpgenListOp of opgen_test_op.h. Built and run by run.sh
// once per product; exits non-zero on any failure.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn_kernels/common/op_error_check.h"
#include "aclnn_soft_margin_loss_backward.h"
#include "dtype_convert.h"
#include "executor_state.h"
#include "opdev/data_type_utils.h"
#include "opdev/op_executor.h"
#include "opdev/shape_utils.h"
#include "opgen_rt/c_api.h"
#include "opgen_rt/core.h"
#include "opgen_rt/tiling_meta.h"
#include "opgen_test_op.h"
#include "soft_margin_loss_grad_tiling.h"
#include "tiling_runner.h"

// RESERVED_WORKSPACE of the product under test (asc-devkit impl/basic_api/utils/kernel_utils_constants.h):
// 2 MiB on NpuArch 1001, 16 MiB on 2201.
static uint64_t SysWorkspaceBytes() { return opgen_rt::CurrentProduct().npuArch == 1001 ? 2097152u : 16777216u; }

namespace {

int g_failures = 0;
int g_checks = 0;

#define EXPECT(cond, ...)                                         \
  do {                                                            \
    ++g_checks;                                                   \
    if (!(cond)) {                                                \
      ++g_failures;                                               \
      std::printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      std::printf(__VA_ARGS__);                                   \
      std::printf("\n");                                          \
    }                                                             \
  } while (0)

bool Contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

// A device buffer and a tensor viewing it.
struct DevTensor {
  void *dev = nullptr;
  aclTensor *tensor = nullptr;
  size_t bytes = 0;
  ~DevTensor() {
    if (tensor != nullptr) {
      aclDestroyTensor(tensor);
    }
    if (dev != nullptr) {
      aclrtFree(dev);
    }
  }
};

int64_t Numel(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    n *= d;
  }
  return n;
}

std::vector<int64_t> RowMajor(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i) {
    strides[i] = shape[i + 1] * strides[i + 1];
  }
  return strides;
}

// `storage` (raw element bytes) on the device, viewed with viewShape/strides/offset.
void MakeTensor(DevTensor &t, const std::vector<uint8_t> &storage, const std::vector<int64_t> &storageShape,
                const std::vector<int64_t> &viewShape, const std::vector<int64_t> &strides, int64_t offset,
                aclDataType dtype) {
  t.bytes = storage.size();
  if (t.bytes > 0) {
    aclrtMalloc(&t.dev, t.bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(t.dev, t.bytes, storage.data(), t.bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  }
  t.tensor = aclCreateTensor(viewShape.data(), viewShape.size(), dtype, strides.data(), offset, ACL_FORMAT_ND,
                             storageShape.data(), storageShape.size(), t.dev);
}

std::vector<uint8_t> Encode(const std::vector<double> &values, aclDataType dtype) {
  const size_t elem = aclDataTypeSize(dtype);
  std::vector<uint8_t> bytes(values.size() * elem);
  for (size_t i = 0; i < values.size(); ++i) {
    opgen_rt::ElementValue v;
    v.kind = opgen_rt::ElementValue::Kind::FLOATING;
    v.f = values[i];
    opgen_rt::WriteElement(bytes.data() + i * elem, static_cast<ge::DataType>(dtype), v);
  }
  return bytes;
}

std::vector<double> Decode(const void *dev, size_t count, aclDataType dtype) {
  const size_t elem = aclDataTypeSize(dtype);
  std::vector<uint8_t> bytes(count * elem);
  if (!bytes.empty()) {
    aclrtMemcpy(bytes.data(), bytes.size(), dev, bytes.size(), ACL_MEMCPY_DEVICE_TO_HOST);
  }
  std::vector<double> values(count);
  for (size_t i = 0; i < count; ++i) {
    const opgen_rt::ElementValue v = opgen_rt::ReadElement(bytes.data() + i * elem, static_cast<ge::DataType>(dtype));
    values[i] = v.kind == opgen_rt::ElementValue::Kind::FLOATING ? v.f
                : v.kind == opgen_rt::ElementValue::Kind::SIGNED ? static_cast<double>(v.i)
                                                                 : static_cast<double>(v.u);
  }
  return values;
}

void Contiguous(DevTensor &t, const std::vector<double> &values, const std::vector<int64_t> &shape, aclDataType dtype) {
  MakeTensor(t, Encode(values, dtype), shape, shape, RowMajor(shape), 0, dtype);
}

struct RunResult {
  aclnnStatus phase1 = -1;
  aclnnStatus phase2 = -1;
  uint64_t workspace = 0;
  std::string message;
};

RunResult RunSml(const aclTensor *g, const aclTensor *s, const aclTensor *t, int64_t reduction, aclTensor *out) {
  RunResult r;
  aclOpExecutor *executor = nullptr;
  r.phase1 = aclnnSoftMarginLossBackwardGetWorkspaceSize(g, s, t, reduction, out, &r.workspace, &executor);
  if (r.phase1 != 0) {
    r.message = aclGetRecentErrMsg();
    return r;
  }
  void *ws = nullptr;
  if (r.workspace > 0) {
    aclrtMalloc(&ws, r.workspace, ACL_MEM_MALLOC_HUGE_FIRST);
  }
  r.phase2 = aclnnSoftMarginLossBackward(ws, r.workspace, executor, nullptr);
  if (r.phase2 != 0) {
    r.message = aclGetRecentErrMsg();
  }
  const aclError sync = aclrtSynchronizeStream(nullptr);  // before the caller reads the output
  if (r.phase2 == 0 && sync != ACL_SUCCESS) {
    r.phase2 = sync;
    r.message = aclGetRecentErrMsg();
  }
  if (ws != nullptr) {
    aclrtFree(ws);
  }
  return r;
}

double Reference(double g, double x, double t, double scale) {
  return -t * g * (1.0 / (1.0 + std::exp(t * x))) * scale;
}

bool Close(double got, double want, double rtol, double atol) {
  return std::fabs(got - want) <= atol + rtol * std::fabs(want);
}

// Broadcast index helper for references: element `flat` of `outShape` read from a tensor of `shape`.
size_t BroadcastIndex(size_t flat, const std::vector<int64_t> &outShape, const std::vector<int64_t> &shape) {
  std::vector<int64_t> idx(outShape.size());
  for (size_t d = outShape.size(); d > 0; --d) {
    idx[d - 1] = static_cast<int64_t>(flat % static_cast<size_t>(outShape[d - 1]));
    flat /= static_cast<size_t>(outShape[d - 1]);
  }
  size_t offset = 0;
  const std::vector<int64_t> strides = RowMajor(shape);
  for (size_t k = 0; k < shape.size(); ++k) {
    const size_t od = outShape.size() - shape.size() + k;
    offset += static_cast<size_t>(shape[k] == 1 ? 0 : idx[od]) * static_cast<size_t>(strides[k]);
  }
  return offset;
}

std::vector<double> Ramp(size_t n, double start, double step) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) {
    v[i] = start + step * static_cast<double>(i % 17) - 0.03 * static_cast<double>(i % 5);
  }
  return v;
}

// One broadcasting case: compare against the double reference.
void CheckSmlCase(const char *name, const std::vector<int64_t> &gShape, const std::vector<int64_t> &sShape,
                  const std::vector<int64_t> &tShape, const std::vector<int64_t> &outShape, aclDataType dtype,
                  int64_t reduction, double rtol, double atol) {
  const auto gv = Ramp(static_cast<size_t>(Numel(gShape)), -1.0, 0.15);
  const auto sv = Ramp(static_cast<size_t>(Numel(sShape)), -2.0, 0.25);
  std::vector<double> tv = Ramp(static_cast<size_t>(Numel(tShape)), 0.5, -0.07);
  DevTensor g, s, t, out;
  Contiguous(g, gv, gShape, dtype);
  Contiguous(s, sv, sShape, dtype);
  Contiguous(t, tv, tShape, dtype);
  Contiguous(out, std::vector<double>(static_cast<size_t>(Numel(outShape)), 0.0), outShape, dtype);
  const RunResult r = RunSml(g.tensor, s.tensor, t.tensor, reduction, out.tensor);
  EXPECT(r.phase1 == 0 && r.phase2 == 0, "%s: statuses %d/%d: %s", name, r.phase1, r.phase2, r.message.c_str());
  const auto n = static_cast<size_t>(Numel(outShape));
  const auto got = Decode(out.dev, n, dtype);
  const auto ge = Decode(g.dev, gv.size(), dtype);  // inputs as stored (rounded to dtype)
  const auto se = Decode(s.dev, sv.size(), dtype);
  const auto te = Decode(t.dev, tv.size(), dtype);
  const double scale = reduction == 1 ? 1.0 / static_cast<double>(n) : 1.0;
  int bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const double want = Reference(ge[BroadcastIndex(i, outShape, gShape)], se[BroadcastIndex(i, outShape, sShape)],
                                  te[BroadcastIndex(i, outShape, tShape)], scale);
    if (!Close(got[i], want, rtol, atol) && bad++ < 3) {
      std::printf("  %s: out[%zu] = %.9g, expected %.9g\n", name, i, got[i], want);
    }
  }
  EXPECT(bad == 0, "%s: %d elements differ", name, bad);
}

void TestExampleNumbers() {
  DevTensor g, s, t, out;
  Contiguous(g, {0, 1, 2, 3}, {2, 2}, ACL_FLOAT);
  Contiguous(s, {0, 1, 2, 3}, {2, 2}, ACL_FLOAT);
  Contiguous(t, {1, 1, 1, 1}, {2, 2}, ACL_FLOAT);
  Contiguous(out, {9, 9, 9, 9}, {2, 2}, ACL_FLOAT);
  const RunResult r = RunSml(g.tensor, s.tensor, t.tensor, 1, out.tensor);
  EXPECT(r.phase1 == 0 && r.phase2 == 0, "example run: %d/%d %s", r.phase1, r.phase2, r.message.c_str());
  // Only the system workspace (RESERVED_WORKSPACE: 2 MiB on NpuArch 1001, 16 MiB on 2201).
  EXPECT(r.workspace == SysWorkspaceBytes(), "workspace %llu", static_cast<unsigned long long>(r.workspace));
  const auto got = Decode(out.dev, 4, ACL_FLOAT);
  const double want[4] = {0.0, -0.0672353581, -0.0596014597, -0.0355694070};
  for (int i = 0; i < 4; ++i) {
    EXPECT(Close(got[i], want[i], 1e-6, 1e-9), "result[%d] = %.9g, expected %.9g", i, got[i], want[i]);
  }
  const std::string stats = opgen_rt_last_launch_stats();
  EXPECT(Contains(stats, "\"op_type\": \"SoftMarginLossGrad\"") &&
             Contains(stats, "\"kernel\": \"soft_margin_loss_grad\""),
         "stats: %s", stats.c_str());
  EXPECT(Contains(stats, "\"totalLength\": 4") && Contains(stats, "\"scalar0\": -0.25"), "stats tiling: %s",
         stats.c_str());
  EXPECT(Contains(stats, "\"cores\": [{\"gm_bytes_read\": "), "stats cores: %s", stats.c_str());
}

void TestNullArguments() {
  DevTensor g, s, t, out;
  Contiguous(g, {1, 2}, {2}, ACL_FLOAT);
  Contiguous(s, {1, 2}, {2}, ACL_FLOAT);
  Contiguous(t, {1, 2}, {2}, ACL_FLOAT);
  Contiguous(out, {0, 0}, {2}, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor *executor = nullptr;
  aclnnStatus st =
      aclnnSoftMarginLossBackwardGetWorkspaceSize(nullptr, s.tensor, t.tensor, 0, out.tensor, &ws, &executor);
  std::string msg = aclGetRecentErrMsg();
  EXPECT(st == 161001 && Contains(msg, "gradOutput"), "null gradOutput: %d '%s'", st, msg.c_str());
  st = aclnnSoftMarginLossBackwardGetWorkspaceSize(g.tensor, s.tensor, t.tensor, 0, nullptr, &ws, &executor);
  msg = aclGetRecentErrMsg();
  EXPECT(st == 161001 && Contains(msg, "out"), "null out: %d '%s'", st, msg.c_str());
  st = aclnnSoftMarginLossBackwardGetWorkspaceSize(g.tensor, s.tensor, t.tensor, 0, out.tensor, nullptr, &executor);
  msg = aclGetRecentErrMsg();
  EXPECT(st == 161001 && Contains(msg, "workspaceSize") && !Contains(msg, "executor"), "null workspaceSize: %d '%s'",
         st, msg.c_str());
  st = aclnnSoftMarginLossBackwardGetWorkspaceSize(g.tensor, s.tensor, t.tensor, 0, out.tensor, &ws, nullptr);
  msg = aclGetRecentErrMsg();
  EXPECT(st == 161001 && Contains(msg, "executor"), "null executor: %d '%s'", st, msg.c_str());
  st = aclnnSoftMarginLossBackward(nullptr, 0, nullptr, nullptr);
  msg = aclGetRecentErrMsg();
  EXPECT(st == 161001 && Contains(msg, "executor"), "phase 2 null executor: %d '%s'", st, msg.c_str());
  EXPECT(std::string(aclGetRecentErrMsg()).empty(), "the recent error is cleared once read");
}

void TestInvalidParams(bool is910) {
  // BF16: rejected on Ascend910, computed elsewhere.
  {
    DevTensor g, s, t, out;
    Contiguous(g, {1, 2}, {2}, ACL_BF16);
    Contiguous(s, {1, 2}, {2}, ACL_BF16);
    Contiguous(t, {1, 1}, {2}, ACL_BF16);
    Contiguous(out, {0, 0}, {2}, ACL_BF16);
    const RunResult r = RunSml(g.tensor, s.tensor, t.tensor, 0, out.tensor);
    if (is910) {
      EXPECT(r.phase1 == 161002 && Contains(r.message, "DT_BF16") && Contains(r.message, "DT_FLOAT16"),
             "BF16 on 910: %d '%s'", r.phase1, r.message.c_str());
    } else {
      EXPECT(r.phase1 == 0 && r.phase2 == 0, "BF16: %d/%d '%s'", r.phase1, r.phase2, r.message.c_str());
    }
  }
  // Rank 9.
  {
    const std::vector<int64_t> shape9 = {1, 1, 1, 1, 1, 1, 1, 2, 1};
    DevTensor g, s, t, out;
    Contiguous(g, {1, 2}, shape9, ACL_FLOAT);
    Contiguous(s, {1, 2}, shape9, ACL_FLOAT);
    Contiguous(t, {1, 2}, shape9, ACL_FLOAT);
    Contiguous(out, {0, 0}, shape9, ACL_FLOAT);
    const RunResult r = RunSml(g.tensor, s.tensor, t.tensor, 0, out.tensor);
    EXPECT(r.phase1 == 161002 && Contains(r.message, "9 dimensions"), "rank 9: %d '%s'", r.phase1, r.message.c_str());
  }
  // Shapes that do not broadcast; wrong out shape; reduction 3.
  {
    DevTensor g, s, t, out, badOut;
    Contiguous(g, std::vector<double>(6, 1.0), {2, 3}, ACL_FLOAT);
    Contiguous(s, std::vector<double>(12, 1.0), {4, 3}, ACL_FLOAT);
    Contiguous(t, std::vector<double>(6, 1.0), {2, 3}, ACL_FLOAT);
    Contiguous(out, std::vector<double>(6, 0.0), {2, 3}, ACL_FLOAT);
    RunResult r = RunSml(g.tensor, s.tensor, t.tensor, 0, out.tensor);
    EXPECT(r.phase1 == 161002 && Contains(r.message, "broadcast"), "no broadcast: %d '%s'", r.phase1,
           r.message.c_str());
    Contiguous(badOut, std::vector<double>(3, 0.0), {3}, ACL_FLOAT);
    r = RunSml(g.tensor, t.tensor, t.tensor, 0, badOut.tensor);
    EXPECT(r.phase1 == 161002 && Contains(r.message, "[3]") && Contains(r.message, "[2, 3]"), "out shape: %d '%s'",
           r.phase1, r.message.c_str());
    r = RunSml(g.tensor, t.tensor, t.tensor, 3, out.tensor);
    EXPECT(r.phase1 == 161002 && Contains(r.message, "reduction"), "reduction 3: %d '%s'", r.phase1, r.message.c_str());
  }
}

void TestPhaseTwoTwice() {
  DevTensor g, s, t, out;
  Contiguous(g, {1, 2, 3}, {3}, ACL_FLOAT);
  Contiguous(s, {1, 2, 3}, {3}, ACL_FLOAT);
  Contiguous(t, {1, -1, 1}, {3}, ACL_FLOAT);
  Contiguous(out, {0, 0, 0}, {3}, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor *executor = nullptr;
  aclnnStatus st =
      aclnnSoftMarginLossBackwardGetWorkspaceSize(g.tensor, s.tensor, t.tensor, 2, out.tensor, &ws, &executor);
  EXPECT(st == 0 && executor != nullptr, "phase 1: %d", st);
  void *wsMem = nullptr;  // the system workspace every tiling requests
  aclrtMalloc(&wsMem, ws, ACL_MEM_MALLOC_HUGE_FIRST);
  st = aclnnSoftMarginLossBackward(wsMem, ws, executor, nullptr);
  EXPECT(st == 0, "phase 2: %d %s", st, aclGetRecentErrMsg());
  st = aclnnSoftMarginLossBackward(wsMem, ws, executor, nullptr);
  const std::string msg = aclGetRecentErrMsg();
  EXPECT(st == 161002 && Contains(msg, "consumed"), "phase 2 again: %d '%s'", st, msg.c_str());
  int notAnExecutor = 0;
  st = aclnnSoftMarginLossBackward(nullptr, 0, reinterpret_cast<aclOpExecutor *>(&notAnExecutor), nullptr);
  EXPECT(st == 161002, "foreign executor: %d", st);
  // The caller may destroy its tensors between the phases.
  DevTensor g2, s2, t2, out2;
  Contiguous(g2, {1, 2, 3}, {3}, ACL_FLOAT);
  Contiguous(s2, {1, 2, 3}, {3}, ACL_FLOAT);
  Contiguous(t2, {1, -1, 1}, {3}, ACL_FLOAT);
  Contiguous(out2, {0, 0, 0}, {3}, ACL_FLOAT);
  st = aclnnSoftMarginLossBackwardGetWorkspaceSize(g2.tensor, s2.tensor, t2.tensor, 2, out2.tensor, &ws, &executor);
  aclDestroyTensor(g2.tensor);
  aclDestroyTensor(out2.tensor);
  g2.tensor = nullptr;
  out2.tensor = nullptr;
  st = aclnnSoftMarginLossBackward(wsMem, ws, executor, nullptr);
  EXPECT(aclrtSynchronizeStream(nullptr) == ACL_SUCCESS, "sync the default stream");
  aclrtFree(wsMem);
  const auto got = Decode(out2.dev, 3, ACL_FLOAT);
  EXPECT(st == 0 && Close(got[1], Reference(2, 2, -1, 1), 1e-6, 1e-7), "tensors destroyed before phase 2: %d %.9g", st,
         got[1]);
}

void TestViews() {
  // gradOutput: a transposed view (shape [2, 3], strides [1, 2]) of a [3, 2] storage, starting at offset 2
  // of a larger buffer; out: a transposed view too.
  const std::vector<double> gStore = {9, 9, 0.5, -1.0, 1.5, 2.0, -0.5, 3.0};  // 2 leading pad elements
  DevTensor g, s, t, out;
  MakeTensor(g, Encode(gStore, ACL_FLOAT), {8}, {2, 3}, {1, 2}, 2, ACL_FLOAT);
  const std::vector<double> sv = {0.1, 0.2, 0.3, -0.4, -0.5, 0.6};
  const std::vector<double> tv = {1, -1, 1, -1, 1, -1};
  Contiguous(s, sv, {2, 3}, ACL_FLOAT);
  Contiguous(t, tv, {2, 3}, ACL_FLOAT);
  MakeTensor(out, Encode(std::vector<double>(6, 7.0), ACL_FLOAT), {3, 2}, {2, 3}, {1, 2}, 0, ACL_FLOAT);
  EXPECT(g.tensor != nullptr && out.tensor != nullptr, "views created");
  const RunResult r = RunSml(g.tensor, s.tensor, t.tensor, 0, out.tensor);
  EXPECT(r.phase1 == 0 && r.phase2 == 0, "views: %d/%d %s", r.phase1, r.phase2, r.message.c_str());
  const auto storage = Decode(out.dev, 6, ACL_FLOAT);
  int bad = 0;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      const double gval = gStore[static_cast<size_t>(2 + i + 2 * j)];
      const double want = Reference(gval, sv[static_cast<size_t>(3 * i + j)], tv[static_cast<size_t>(3 * i + j)], 1.0);
      const double got = storage[static_cast<size_t>(i + 2 * j)];
      if (!Close(got, want, 1e-6, 1e-7)) {
        ++bad;
        std::printf("  view out[%d][%d] = %.9g, expected %.9g\n", i, j, got, want);
      }
    }
  }
  EXPECT(bad == 0, "non-contiguous views: %d wrong", bad);
  const std::string stats = opgen_rt_last_launch_stats();
  EXPECT(Contains(stats, "\"kind\": \"Contiguous\"") && Contains(stats, "\"kind\": \"ViewCopy\""), "host tasks: %s",
         stats.c_str());
  // A view reaching past its storage is refused at creation.
  const int64_t dims[2] = {2, 3};
  const int64_t strides[2] = {3, 1};
  const int64_t storageDims[1] = {5};
  float buffer[5] = {};
  aclTensor *bad2 = aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, storageDims, 1, buffer);
  const std::string msg = aclGetRecentErrMsg();
  EXPECT(bad2 == nullptr && Contains(msg, "past the storage"), "oversized view: '%s'", msg.c_str());
}

void TestBroadcastAndEmpty() {
  CheckSmlCase("0-d gradOutput", {}, {2, 3}, {2, 3}, {2, 3}, ACL_FLOAT, 1, 1e-6, 1e-8);
  CheckSmlCase("broadcast all", {3, 1}, {1, 4}, {4}, {3, 4}, ACL_FLOAT, 2, 1e-6, 1e-8);
  CheckSmlCase("1-d large", {70001}, {70001}, {70001}, {70001}, ACL_FLOAT, 1, 1e-5, 1e-12);
  CheckSmlCase("fp16", {5, 33}, {5, 33}, {1}, {5, 33}, ACL_FLOAT16, 0, 2e-3, 1e-4);
  // Empty tensors succeed without work.
  DevTensor g, s, t, out;
  Contiguous(g, {}, {0, 3}, ACL_FLOAT);
  Contiguous(s, {}, {0, 3}, ACL_FLOAT);
  Contiguous(t, {1, 1, 1}, {3}, ACL_FLOAT);
  Contiguous(out, {}, {0, 3}, ACL_FLOAT);
  const RunResult r = RunSml(g.tensor, s.tensor, t.tensor, 1, out.tensor);
  EXPECT(r.phase1 == 0 && r.phase2 == 0 && r.workspace == 0, "empty: %d/%d %s", r.phase1, r.phase2, r.message.c_str());
  const std::string stats = opgen_rt_last_launch_stats();
  EXPECT(Contains(stats, "\"launches\": []"), "empty run launches nothing: %s", stats.c_str());
}

void TestMixedDtypes(bool is910) {
  // FLOAT16 gradOutput with FLOAT self/target promotes to FLOAT; out FLOAT16 (Cast on the host).
  DevTensor g, s, t, out;
  Contiguous(g, {0.5, -1.25, 2.0}, {3}, ACL_FLOAT16);
  Contiguous(s, {0.1, 0.2, -3.0}, {3}, ACL_FLOAT);
  Contiguous(t, {1, -1, 1}, {3}, ACL_FLOAT);
  Contiguous(out, {0, 0, 0}, {3}, ACL_FLOAT16);
  const RunResult r = RunSml(g.tensor, s.tensor, t.tensor, 0, out.tensor);
  EXPECT(r.phase1 == 0 && r.phase2 == 0, "mixed: %d/%d %s", r.phase1, r.phase2, r.message.c_str());
  const auto got = Decode(out.dev, 3, ACL_FLOAT16);
  const double sv[3] = {0.1F, 0.2F, -3.0F};
  const double gv[3] = {0.5, -1.25, 2.0};
  const double tv[3] = {1, -1, 1};
  for (int i = 0; i < 3; ++i) {
    const double want =
        opgen_rt::HalfBitsToDouble(opgen_rt::DoubleToHalfBits(static_cast<float>(Reference(gv[i], sv[i], tv[i], 1.0))));
    EXPECT(Close(got[i], want, 1e-3, 1e-6), "mixed out[%d] = %.9g, expected %.9g", i, got[i], want);
  }
  const std::string stats = opgen_rt_last_launch_stats();
  EXPECT(Contains(stats, "\"kind\": \"Cast\""), "cast tasks: %s", stats.c_str());
  if (!is910) {
    CheckSmlCase("bf16", {4, 17}, {4, 17}, {4, 17}, {4, 17}, ACL_BF16, 1, 1.6e-2, 1e-5);
  }
}

void TestOpDefJson(bool is910) {
  const std::string def = opgen_rt_opdef_json("SoftMarginLossGrad");
  EXPECT(Contains(def, "\"op_type\": \"SoftMarginLossGrad\""), "%s", def.c_str());
  EXPECT(Contains(def,
                  "{\"name\": \"predict\", \"param_type\": \"REQUIRED\", \"dtypes\": [\"DT_FLOAT16\", "
                  "\"DT_FLOAT\", \"DT_BF16\"]"),
         "%s", def.c_str());
  EXPECT(Contains(def, "\"formats\": [\"FORMAT_ND\", \"FORMAT_ND\", \"FORMAT_ND\"]"), "%s", def.c_str());
  EXPECT(Contains(def,
                  "{\"name\": \"reduction\", \"attr_type\": \"OPTIONAL\", \"type\": \"string\", \"default\": \"mean\"}"),
         "%s", def.c_str());
  EXPECT(Contains(def,
                  "\"ascend910\": {\"inputs\": [{\"name\": \"predict\", \"param_type\": \"REQUIRED\", "
                  "\"dtypes\": [\"DT_FLOAT16\", \"DT_FLOAT\"]"),
         "%s", def.c_str());
  EXPECT(Contains(def, "\"ascend910b\": null") && Contains(def, "\"ascend950\": null"), "%s", def.c_str());
  EXPECT(std::string(opgen_rt_opdef_json("NoSuchOp")) == "null", "unknown op");
  const std::string product = opgen_rt_product_json();
  EXPECT(Contains(product, is910 ? "\"soc_version\": \"ASCEND910\"," : "\"soc_version\": \"ASCEND910B\""), "%s",
         product.c_str());
}

void TestRunTilingJson() {
  // 2^32 elements: far too many to allocate, fine for tiling.
  const std::string big = opgen_rt_run_tiling_json(
      "SoftMarginLossGrad",
      "{\"inputs\": [{\"shape\": [65536, 65536], \"dtype\": \"DT_FLOAT\"}, {\"shape\": [65536, 65536], \"dtype\": "
      "\"FLOAT\"}, {\"shape\": [65536, 65536], \"dtype\": 0}], \"outputs\": [{\"shape\": [65536, 65536], \"dtype\": "
      "\"DT_FLOAT\", \"format\": \"ND\"}], \"attrs\": {\"reduction\": \"mean\"}}");
  EXPECT(Contains(big, "\"status\": 0") && Contains(big, "\"totalLength\": 4294967296") &&
             Contains(big, "\"tiling_key\": 0"),
         "%s", big.c_str());
  const std::string dflt = opgen_rt_run_tiling_json(
      "SoftMarginLossGrad",
      "{\"inputs\": [{\"shape\": [8], \"dtype\": \"DT_FLOAT16\"}, {\"shape\": [8], \"dtype\": "
      "\"DT_FLOAT16\"}, {\"shape\": [8], \"dtype\": \"DT_FLOAT16\"}], \"outputs\": [{\"shape\": "
      "[8], \"dtype\": \"DT_FLOAT16\"}]}");
  EXPECT(Contains(dflt, "\"status\": 0") && Contains(dflt, "\"scalar0\": -0.125") &&
             Contains(dflt, "\"block_dim\": 1") && Contains(dflt, "\"tiling_key\": 1"),
         "default reduction (mean): %s", dflt.c_str());
  const std::string bad = opgen_rt_run_tiling_json("SoftMarginLossGrad", "{\"inputs\": [");
  EXPECT(Contains(bad, "\"status\": 161002"), "%s", bad.c_str());
  const std::string fail =
      opgen_rt_run_tiling_json("SoftMarginLossGrad",
                               "{\"inputs\": [{\"shape\": [8], \"dtype\": \"DT_INT32\"}], \"outputs\": [{\"shape\": "
                               "[8], \"dtype\": \"DT_INT32\"}], \"attrs\": [\"none\"]}");
  EXPECT(Contains(fail, "\"status\": 561002") && Contains(fail, "GRAPH_FAILED"), "%s", fail.c_str());
  const std::string none = opgen_rt_run_tiling_json("NoSuchOp", "{\"inputs\": []}");
  EXPECT(Contains(none, "\"status\": 561002") && Contains(none, "no tiling function"), "%s", none.c_str());
}

struct TestOpRun {
  aclnnStatus phase1 = -1;
  aclnnStatus phase2 = -1;    // phase 2's status, else the stream synchronisation's
  aclnnStatus launched = -1;  // phase 2's own status
  uint64_t workspace = 0;
  std::string message;
  std::vector<double> y;
  std::vector<double> y2;  // queueAnother: the output of a plain run queued behind this one before the sync
};

TestOpRun RunTestOp(const std::vector<double> &xv, aclDataType dtype, const int64_t *idxValue, int64_t num,
                    uint64_t count, bool flag, float scale, int workspaceMode = 0, bool queueAnother = false) {
  TestOpRun r;
  DevTensor x, y, y2, idx;
  const std::vector<int64_t> shape = {static_cast<int64_t>(xv.size())};
  Contiguous(x, xv, shape, dtype);
  Contiguous(y, std::vector<double>(xv.size(), 0.0), shape, dtype);
  if (idxValue != nullptr) {
    std::vector<uint8_t> bytes(8);
    std::memcpy(bytes.data(), idxValue, 8);
    MakeTensor(idx, bytes, {1}, {1}, {1}, 0, ACL_INT64);
  }
  aclOpExecutor *executor = nullptr;
  r.phase1 = aclnnOpgenTestOpGetWorkspaceSize(x.tensor, idx.tensor, num, count, flag, scale, y.tensor, &r.workspace,
                                              &executor);
  if (r.phase1 != 0) {
    r.message = aclGetRecentErrMsg();
    return r;
  }
  void *ws = nullptr;
  if (r.workspace > 0) {
    aclrtMalloc(&ws, r.workspace, ACL_MEM_MALLOC_HUGE_FIRST);
  }
  uint64_t given = r.workspace;
  void *givenPtr = ws;
  if (workspaceMode == 1) {
    given = r.workspace - 1;
  } else if (workspaceMode == 2) {
    givenPtr = nullptr;
  }
  r.phase2 = aclnnOpgenTestOp(givenPtr, given, executor, nullptr);
  r.launched = r.phase2;
  if (queueAnother) {
    Contiguous(y2, std::vector<double>(xv.size(), 0.0), shape, dtype);
    uint64_t ws2 = 0;
    aclOpExecutor *executor2 = nullptr;
    EXPECT(aclnnOpgenTestOpGetWorkspaceSize(x.tensor, nullptr, 0, 3, false, 1.0F, y2.tensor, &ws2, &executor2) == 0 &&
               ws2 == 0 && aclnnOpgenTestOp(nullptr, 0, executor2, nullptr) == 0,
           "a second run queued: %s", aclGetRecentErrMsg());
  }
  // a kernel fault is the stream's error, reported by its synchronisation
  const aclError sync = aclrtSynchronizeStream(nullptr);
  if (r.phase2 == 0 && sync != ACL_SUCCESS) {
    r.phase2 = sync;
  }
  if (r.phase2 != 0) {
    r.message = aclGetRecentErrMsg();
  } else if (ws != nullptr) {
    std::vector<uint8_t> bytes(r.workspace);
    aclrtMemcpy(bytes.data(), bytes.size(), ws, bytes.size(), ACL_MEMCPY_DEVICE_TO_HOST);
    if (bytes[static_cast<size_t>(SysWorkspaceBytes() + num - 1)] != 42) {  // the user part follows the reserve
      r.message = "workspace byte not written";
    }
  }
  if (ws != nullptr) {
    aclrtFree(ws);
  }
  r.y = Decode(y.dev, xv.size(), dtype);
  if (queueAnother) {
    r.y2 = Decode(y2.dev, xv.size(), dtype);
  }
  return r;
}

void TestOpgenTestOp(bool is910) {
  const std::vector<double> xv = {1, 2, 3, 4, 5};
  // Attributes of every kind arrive in the tiling; the optional input may be absent.
  TestOpRun r = RunTestOp(xv, ACL_FLOAT, nullptr, 0, uint64_t{1} << 40, true, 2.0F);
  EXPECT(r.phase1 == 0 && r.phase2 == 0 && r.y[4] == 11.0, "test op: %d/%d y4=%g %s", r.phase1, r.phase2, r.y[4],
         r.message.c_str());
  std::string stats = opgen_rt_last_launch_stats();
  EXPECT(Contains(stats, "\"count\": 1099511627776") && Contains(stats, "\"flag\": 1") &&
             Contains(stats, "\"scale\": 2") && Contains(stats, "\"hasIdx\": 0") && Contains(stats, "\"block_dim\": 2"),
         "%s", stats.c_str());
  EXPECT(Contains(stats, "\"kind\": \"InitValue\""), "InitValue memset: %s", stats.c_str());
  const int64_t idxValue = 100;
  r = RunTestOp(xv, ACL_FLOAT, &idxValue, 0, 3, false, 1.0F);
  EXPECT(r.phase2 == 0 && r.y[0] == 101.0, "optional input present: y0=%g %s", r.y[0], r.message.c_str());
  // Deterministic mode reaches the tiling.
  aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1);
  r = RunTestOp(xv, ACL_FLOAT, nullptr, 0, 3, false, 1.0F);
  stats = opgen_rt_last_launch_stats();
  EXPECT(r.phase2 == 0 && Contains(stats, "\"deterministic\": 1"), "deterministic: %s", stats.c_str());
  aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0);
  int64_t det = -1;
  aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &det);
  EXPECT(det == 0, "deterministic read back %lld", static_cast<long long>(det));
  // Workspace: sized by the tiling, checked in phase 2.
  r = RunTestOp(xv, ACL_FLOAT, nullptr, 1000, 3, false, 1.0F);
  EXPECT(r.phase2 == 0 && r.workspace == SysWorkspaceBytes() + 1000 && r.message.empty(), "workspace run: %d ws=%llu %s", r.phase2,
         static_cast<unsigned long long>(r.workspace), r.message.c_str());
  r = RunTestOp(xv, ACL_FLOAT, nullptr, 1000, 3, false, 1.0F, 1);
  EXPECT(r.phase2 == 161002 && Contains(r.message, "smaller"), "small workspace: %d '%s'", r.phase2, r.message.c_str());
  r = RunTestOp(xv, ACL_FLOAT, nullptr, 1000, 3, false, 1.0F, 2);
  EXPECT(r.phase2 == 161002 && Contains(r.message, "workspace is nullptr"), "null workspace: %d '%s'", r.phase2,
         r.message.c_str());
  // Tiling failure and kernel fault.
  r = RunTestOp(xv, ACL_FLOAT, nullptr, -1, 3, false, 1.0F);
  EXPECT(r.phase1 == 561002 && Contains(r.message, "tiling of OpgenTestOp failed"), "tiling failure: %d '%s'", r.phase1,
         r.message.c_str());
  // A kernel fault is reported by the stream's sync (phase 2 only queued the launch), and the stream's later
  // work is not run: the output of the run queued behind it keeps its zeros.
  const TestOpRun plain = RunTestOp(xv, ACL_FLOAT, nullptr, 0, 3, false, 1.0F, 0, true);
  EXPECT(plain.phase2 == 0 && plain.y2 == plain.y && plain.y2[2] == 3.0, "a run queued behind a plain one: %d %g '%s'",
         plain.phase2, plain.y2[2], plain.message.c_str());
  r = RunTestOp(xv, ACL_FLOAT, nullptr, -2, 3, false, 1.0F, 0, true);
  EXPECT(r.y2 == std::vector<double>(xv.size(), 0.0), "a run queued behind a fault ran: y2[2] = %g", r.y2[2]);
  EXPECT(r.launched == 0 && r.phase2 == ACL_ERROR_RT_VECTOR_CORE_EXCEPTION && Contains(r.message, "opgen_test_op") &&
             Contains(r.message, "kernel fault ["),
         "kernel fault: %d '%s'", r.phase2, r.message.c_str());
  stats = opgen_rt_last_launch_stats();
  EXPECT(Contains(stats, "\"ok\": false") && Contains(stats, "\"status\": 361001"), "%s", stats.c_str());
  // The L2 API's ViewCopy into y is planned away (the kernel writes y itself); an element the kernel leaves
  // unwritten must arrive as the fresh output's garbage (the poison byte), not as y's earlier value (0 here).
  r = RunTestOp(xv, ACL_FLOAT, nullptr, -3, 3, false, 1.0F);
  uint32_t bits = 0;
  const float first = static_cast<float>(r.y[0]);
  std::memcpy(&bits, &first, sizeof(bits));
  EXPECT(r.phase2 == 0 && std::isnan(r.y[0]) && r.y[1] == 2.0, "unwritten element: %d y0=%g (bits %08x) y1=%g '%s'",
         r.phase2, r.y[0], bits, r.y[1], r.message.c_str());
  // INT32 has a kernel only where the OpDef's config says so.
  r = RunTestOp(xv, ACL_INT32, nullptr, 0, 3, false, 1.0F);
  if (is910) {
    EXPECT(r.phase1 == 561003 && Contains(r.message, "DT_INT32"), "int32 on 910: %d '%s'", r.phase1, r.message.c_str());
  } else {
    EXPECT(r.phase1 == 0 && r.phase2 == 0 && r.y[2] == 3.0, "int32: %d/%d '%s'", r.phase1, r.phase2, r.message.c_str());
  }
  // Tiling by JSON with attributes by name (defaults filled in) and by position.
  const std::string byName =
      opgen_rt_run_tiling_json("OpgenTestOp",
                               "{\"inputs\": [{\"shape\": [3000000000], \"dtype\": \"DT_FLOAT\"}, null], \"outputs\": "
                               "[{\"shape\": [3000000000], \"dtype\": \"DT_FLOAT\"}], \"attrs\": {\"num\": 64}, "
                               "\"deterministic\": 1}");
  EXPECT(Contains(byName, "\"length\": 3000000000") && Contains(byName, "\"count\": 7") &&
             Contains(byName, "\"scale\": 1.5") && Contains(byName, "\"deterministic\": 1") &&
             Contains(byName, "\"workspace_sizes\": [" + std::to_string(SysWorkspaceBytes() + 64) + "]"),
         "%s", byName.c_str());
  const std::string missing = opgen_rt_run_tiling_json("OpgenTestOp", "{\"inputs\": [], \"attrs\": {}}");
  EXPECT(Contains(missing, "\"status\": 161002") && Contains(missing, "num"), "%s", missing.c_str());
}

// A host array converted with ConvertToTensor reaches the kernel as a device input; a null array is refused.
void TestConvertToTensor() {
  const std::vector<double> xv = {1, 2, 3};
  const std::vector<int64_t> shape = {3};
  DevTensor x, y;
  Contiguous(x, xv, shape, ACL_FLOAT);
  Contiguous(y, std::vector<double>(xv.size(), 0.0), shape, ACL_FLOAT);
  const int64_t values[] = {40, 7};
  aclIntArray *idx = aclCreateIntArray(values, 2);
  uint64_t ws = 0;
  aclOpExecutor *executor = nullptr;
  aclnnStatus st = aclnnOpgenTestOpIdxArrayGetWorkspaceSize(x.tensor, idx, y.tensor, &ws, &executor);
  EXPECT(st == 0 && aclnnOpgenTestOp(nullptr, ws, executor, nullptr) == 0 && aclrtSynchronizeStream(nullptr) == 0,
         "ConvertToTensor run: %d %s", st, aclGetRecentErrMsg());
  const std::vector<double> got = Decode(y.dev, xv.size(), ACL_FLOAT);
  EXPECT(got == std::vector<double>({41, 42, 43}), "ConvertToTensor values: %g %g %g", got[0], got[1], got[2]);
  const std::string stats = opgen_rt_last_launch_stats();
  EXPECT(Contains(stats, "\"hasIdx\": 1"), "ConvertToTensor input: %s", stats.c_str());
  aclDestroyIntArray(idx);
  st = aclnnOpgenTestOpIdxArrayGetWorkspaceSize(x.tensor, nullptr, y.tensor, &ws, &executor);
  EXPECT(st == ACLNN_ERR_PARAM_NULLPTR, "null aclIntArray: %d", st);
}

// aclTensorList / aclScalarList: the C API, the C++ accessors, executor-owned lists, and CANN's ownership
// rule (destroying a list destroys its elements), with a second destroy of an element reported.
aclnnStatus CheckSameLength(const aclTensorList *a, const aclTensorList *b) {
  OP_CHECK_TENSORLIST_SIZE_EQUAL(a, b, return ACLNN_ERR_PARAM_INVALID);
  return ACLNN_SUCCESS;
}

void TestTensorLists() {
  static float storage[16] = {};
  const int64_t dims[3][2] = {{2, 3}, {0, 4}, {1, 1}};
  const uint64_t ranks[3] = {2, 2, 0};  // the third is 0-d
  auto make = [&](int i) {
    const int64_t strides[2] = {dims[i][1], 1};
    return aclCreateTensor(dims[i], ranks[i], ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims[i], ranks[i], storage);
  };
  aclTensor *t[3] = {make(0), make(1), make(2)};
  EXPECT(t[0] != nullptr && t[1] != nullptr && t[2] != nullptr, "tensors: %s", aclGetRecentErrMsg());
  aclTensorList *list = aclCreateTensorList(t, 3);
  uint64_t n = 0;
  EXPECT(aclGetTensorListSize(list, &n) == ACLNN_SUCCESS && n == 3, "list size %llu", (unsigned long long)n);
  EXPECT(aclGetTensorListSize(nullptr, &n) == ACLNN_ERR_PARAM_NULLPTR, "null list");
  EXPECT(aclGetTensorListSize(list, nullptr) == ACLNN_ERR_PARAM_NULLPTR, "null size");
  const aclTensorList *constList = list;
  EXPECT(list->Size() == 3 && (*list)[1] == t[1] && (*constList)[2] == t[2] && list->GetData()[0] == t[0],
         "list elements");
  EXPECT((*constList)[2]->GetViewShape().GetDimNum() == 0 && (*constList)[1]->IsEmpty(), "0-d and empty");
  (*list)[0] = t[0];  // the mutable operator[] gives a reference to the slot

  aclTensorList *empty = aclCreateTensorList(nullptr, 2);
  EXPECT(empty != nullptr && empty->Size() == 0 && empty->GetData() == nullptr, "a null array gives an empty list");
  EXPECT(CheckSameLength(list, empty) == ACLNN_ERR_PARAM_INVALID &&
             Contains(aclGetRecentErrMsg(), "a (3 tensors) and b (0 tensors) must have the same length"),
         "OP_CHECK_TENSORLIST_SIZE_EQUAL");
  EXPECT(CheckSameLength(list, list) == ACLNN_SUCCESS, "equal lengths");
  EXPECT(aclDestroyTensorList(empty) == ACLNN_SUCCESS, "destroy an empty list");

  {  // an executor's list frees itself with the executor, never the caller's tensors
    UniqueExecutor executor("TestTensorLists");
    aclTensorList *owned = executor->AllocTensorList(t, 2);
    const aclScalarList *scalars = executor->AllocScalarList(nullptr, 0);
    EXPECT(owned != nullptr && owned->Size() == 2 && (*owned)[1] == t[1] && scalars != nullptr &&
               scalars->Size() == 0,
           "AllocTensorList / AllocScalarList");
    // ConvertToTensor of an aclScalar: a 0-d tensor of the requested dtype (fp16 2.5 is 0x4100; 2.5 as INT32 is
    // 2, as C++'s conversion and aclScalar::ToInt32 give)
    float value = 2.5f;
    aclScalar *scalar = aclCreateScalar(&value, ACL_FLOAT);
    const aclTensor *half = executor->ConvertToTensor(scalar, op::DataType::DT_FLOAT16);
    const aclTensor *int32 = executor->ConvertToTensor(scalar, op::DataType::DT_INT32);
    // phase 1: the host bytes are in the executor's storage block (the tensor gets its address in phase 2)
    auto bytes = [&executor](const aclTensor *c) -> const uint8_t * {
      const int64_t id = opgen_rt::TensorAccess::StorageId(c);
      return id < 0 ? nullptr : opgen_rt::ExecutorAccess::State(executor.get())->storages[id].data.get();
    };
    uint16_t halfBits = 0;
    int32_t intValue = 0;
    if (half != nullptr && int32 != nullptr && bytes(half) != nullptr && bytes(int32) != nullptr) {
      std::memcpy(&halfBits, bytes(half), 2);
      std::memcpy(&intValue, bytes(int32), 4);
    }
    EXPECT(half != nullptr && half->GetViewShape().GetDimNum() == 0 && half->Size() == 1 &&
               half->GetDataType() == ge::DT_FLOAT16 && halfBits == 0x4100,
           "ConvertToTensor(aclScalar, FLOAT16): 0x%x", halfBits);
    EXPECT(int32 != nullptr && int32->GetDataType() == ge::DT_INT32 && intValue == 2,
           "ConvertToTensor(aclScalar, INT32): %d", intValue);
    EXPECT(executor->ConvertToTensor(static_cast<const aclScalar *>(nullptr), op::DataType::DT_FLOAT) == nullptr,
           "ConvertToTensor of a null scalar");
    aclDestroyScalar(scalar);
  }
  EXPECT(aclDestroyTensorList(list) == ACLNN_SUCCESS, "destroy the list and its elements: %s", aclGetRecentErrMsg());
  EXPECT(aclDestroyTensor(t[1]) == ACLNN_ERR_PARAM_INVALID && Contains(aclGetRecentErrMsg(), "already destroyed"),
         "an element destroyed again after its list is reported");
  EXPECT(aclDestroyTensorList(list) == ACLNN_ERR_PARAM_INVALID, "a list destroyed twice is reported");
  const std::string twice = aclGetRecentErrMsg();
  EXPECT(Contains(twice, "aclDestroyTensorList: list ") && Contains(twice, "was already destroyed"), "%s",
         twice.c_str());

  // the same aclTensor in two lists that are both destroyed (an in-place call must use two tensors)
  aclTensor *shared = make(0);
  aclTensor *other = make(2);
  aclTensor *first[1] = {shared};
  aclTensor *second[2] = {other, shared};
  aclTensorList *a = aclCreateTensorList(first, 1);
  aclTensorList *b = aclCreateTensorList(second, 2);
  EXPECT(aclDestroyTensorList(a) == ACLNN_SUCCESS, "first list");
  EXPECT(aclDestroyTensorList(b) == ACLNN_ERR_PARAM_INVALID, "a tensor in two destroyed lists is reported");
  const std::string shared2 = aclGetRecentErrMsg();
  EXPECT(Contains(shared2, "aclDestroyTensorList: tensor 1 of the list") && Contains(shared2, "sit in a second list"),
         "%s", shared2.c_str());
  EXPECT(aclDestroyTensor(other) == ACLNN_ERR_PARAM_INVALID, "the live element of the second list was destroyed");

  float v = 2.5f;
  aclScalar *s[2] = {aclCreateScalar(&v, ACL_FLOAT), aclCreateScalar(&v, ACL_FLOAT)};
  aclScalarList *sl = aclCreateScalarList(s, 2);
  EXPECT(aclGetScalarListSize(sl, &n) == ACLNN_SUCCESS && n == 2 && (*sl)[1] == s[1] &&
             static_cast<const aclScalarList *>(sl)->GetData()[0] == s[0] && (*sl)[0]->ToFloat() == 2.5f,
         "scalar list");
  EXPECT(aclGetScalarListSize(nullptr, &n) == ACLNN_ERR_PARAM_NULLPTR, "null scalar list");
  EXPECT(aclDestroyScalarList(sl) == ACLNN_SUCCESS, "destroy the scalar list");
  EXPECT(aclDestroyScalar(s[0]) == ACLNN_ERR_PARAM_INVALID && Contains(aclGetRecentErrMsg(), "already destroyed"),
         "a scalar destroyed again after its list is reported");
}

// A tiling context of a node with a DYNAMIC input of 3 tensors and a REQUIRED one: the dynamic-instance
// accessors of metadef's TilingContext / ComputeNodeInfo map the IR index and the index in the list to the
// instance.
void TestDynamicInstances() {
  opgen_rt::TilingRequest request;
  request.opType = "ListOp";
  const std::vector<std::vector<int64_t>> shapes = {{2, 3}, {0}, {}, {1}};
  for (const auto &dims : shapes) {
    opgen_rt::TilingTensorDesc d;
    d.present = true;
    for (int64_t v : dims) {
      d.storageShape.AppendDim(v);
    }
    d.originShape = d.storageShape;
    d.dataType = dims.size() == 1 && dims[0] == 1 ? ge::DT_INT32 : ge::DT_FLOAT;
    request.inputs.push_back(d);
  }
  request.inputInstances = {3, 1};
  request.outputs.push_back(request.inputs[0]);
  std::vector<uint8_t> buffer(64);
  gert::TilingContext *context = opgen_rt::TilingContextBuilder::Create(buffer.data(), buffer.size());
  opgen_rt::TilingContextBuilder::Fill(*context, request, nullptr);
  const gert::ComputeNodeInfo *node = context->GetComputeNodeInfo();
  EXPECT(node->GetIrInputsNum() == 2 && node->GetInputsNum() == 4 && node->GetIrOutputsNum() == 1,
         "IR inputs %zu, inputs %zu", node->GetIrInputsNum(), node->GetInputsNum());
  EXPECT(node->GetInputInstanceInfo(0)->GetInstanceNum() == 3 && node->GetInputInstanceInfo(1)->GetInstanceStart() == 3 &&
             node->GetInputInstanceInfo(1)->GetInstanceNum() == 1 && node->GetInputInstanceInfo(2) == nullptr,
         "instance info");
  EXPECT(context->GetDynamicInputTensor(0, 0)->GetStorageShape().GetShapeSize() == 6 &&
             context->GetDynamicInputShape(0, 1)->GetStorageShape().GetShapeSize() == 0 &&
             context->GetDynamicInputShape(0, 2)->GetStorageShape().GetDimNum() == 0,
         "list tensors by index in the list");
  EXPECT(context->GetDynamicInputTensor(0, 3) == nullptr && context->GetDynamicInputDesc(2, 0) == nullptr,
         "past the list's end, past the OpDef's inputs");
  EXPECT(context->GetDynamicInputDesc(1, 0)->GetDataType() == ge::DT_INT32 &&
             context->GetOptionalInputTensor(1) == context->GetInputTensor(3) &&
             context->GetIrInputInstanceInfo(0) == node->GetInputInstanceInfo(0),
         "the input after the list is instance 3");
  delete context;
}

// OpgenListOp through the aclnn path: OP_INPUT / OP_OUTPUT of tensor lists reach the tiling as instances and
// the kernel as list descriptors, with an empty and a 0-d tensor among them.
int64_t ElementCount(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    n *= d;
  }
  return n;
}

void TestListLaunch() {
  const std::vector<std::vector<int64_t>> shapes = {{2, 3}, {0}, {}, {33}};
  auto run = [&](aclDataType lastDtype, size_t yCount, std::vector<std::vector<double>> &got) {
    std::vector<DevTensor> xs(shapes.size());
    std::vector<DevTensor> ys(shapes.size());
    std::vector<aclTensor *> xt;
    std::vector<aclTensor *> yt;
    for (size_t i = 0; i < shapes.size(); ++i) {
      const int64_t n = ElementCount(shapes[i]);
      std::vector<double> v(static_cast<size_t>(n));
      for (size_t k = 0; k < v.size(); ++k) {
        v[k] = static_cast<double>(10 * i + k) - 7.5;
      }
      const aclDataType dt = i + 1 == shapes.size() ? lastDtype : ACL_FLOAT;
      Contiguous(xs[i], v, shapes[i], dt);
      Contiguous(ys[i], std::vector<double>(v.size(), 99.0), shapes[i], ACL_FLOAT);
      xt.push_back(xs[i].tensor);
      yt.push_back(ys[i].tensor);
      xs[i].tensor = nullptr;  // the lists own the tensors
      ys[i].tensor = nullptr;
    }
    aclTensorList *x = aclCreateTensorList(xt.data(), xt.size());
    aclTensorList *y = aclCreateTensorList(yt.data(), yCount);
    for (size_t i = yCount; i < yt.size(); ++i) {
      aclDestroyTensor(yt[i]);
    }
    uint64_t ws = 0;
    aclOpExecutor *executor = nullptr;
    aclnnStatus st = aclnnOpgenListOpGetWorkspaceSize(x, y, &ws, &executor);
    const std::string message = st == 0 ? "" : aclGetRecentErrMsg();
    if (st == 0) {
      st = aclnnOpgenListOp(nullptr, ws, executor, nullptr);
      EXPECT(st == 0 && aclrtSynchronizeStream(nullptr) == 0, "list launch: %d %s", st, aclGetRecentErrMsg());
      for (size_t i = 0; i < shapes.size(); ++i) {
        got.push_back(Decode(ys[i].dev, static_cast<size_t>(ElementCount(shapes[i])), ACL_FLOAT));
      }
    }
    EXPECT(aclDestroyTensorList(x) == 0 && aclDestroyTensorList(y) == 0, "destroy the lists");
    got.push_back({static_cast<double>(st)});
    return message;
  };
  std::vector<std::vector<double>> got;
  run(ACL_FLOAT, shapes.size(), got);
  EXPECT(got.size() == shapes.size() + 1 && got.back()[0] == 0, "list launch status");
  for (size_t i = 0; i < shapes.size() && i < got.size(); ++i) {
    for (size_t k = 0; k < got[i].size(); ++k) {
      EXPECT(got[i][k] == static_cast<double>(10 * i + k) - 6.5, "y[%zu][%zu] = %g", i, k, got[i][k]);
    }
  }
  EXPECT(got.size() > 3 && got[2].size() == 1 && got[1].empty(), "0-d and empty tensors");
  got.clear();
  std::string message = run(ACL_FLOAT, shapes.size() - 1, got);
  EXPECT(got.back()[0] == ACLNN_ERR_PARAM_INVALID && Contains(message, "must have the same length"), "lengths: %s",
         message.c_str());
  got.clear();
  message = run(ACL_INT32, shapes.size(), got);
  EXPECT(got.back()[0] == ACLNN_ERR_INNER_FIND_KERNEL_ERROR &&
             Contains(message, "list of 4 DT_FLOAT/DT_FLOAT/DT_FLOAT/DT_INT32"),
         "a list element of a dtype the OpDef does not take: %s", message.c_str());

  DevTensor a, b;
  Contiguous(a, {1, 2}, {2}, ACL_FLOAT);
  Contiguous(b, {0, 0}, {2}, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor *executor = nullptr;
  const aclnnStatus st = aclnnOpgenListOpWithTensorsGetWorkspaceSize(a.tensor, b.tensor, &ws, &executor);
  message = aclGetRecentErrMsg();
  EXPECT(st == ACLNN_ERR_INNER &&
             Contains(message, "OpgenListOp input 0 (x) is DYNAMIC (a tensor list), but ADD_TO_LAUNCHER_LIST_AICORE "
                               "passes no aclTensorList"),
         "a tensor for a DYNAMIC input: %d %s", st, message.c_str());
}

// In place over lists: `y`'s tensors are other aclTensor objects over `x`'s storage (one tensor in two lists
// would be destroyed twice); each element is a read-only region for x and a writable one for y over the same
// bytes, and the result lands in x's memory.
void TestInPlaceListLaunch() {
  const std::vector<std::vector<int64_t>> shapes = {{5}, {}, {2, 4}};
  std::vector<DevTensor> xs(shapes.size());
  std::vector<aclTensor *> xt;
  std::vector<aclTensor *> yt;
  for (size_t i = 0; i < shapes.size(); ++i) {
    std::vector<double> v(static_cast<size_t>(ElementCount(shapes[i])));
    for (size_t k = 0; k < v.size(); ++k) {
      v[k] = 3.0 * static_cast<double>(i) - static_cast<double>(k);
    }
    Contiguous(xs[i], v, shapes[i], ACL_FLOAT);
    xt.push_back(xs[i].tensor);
    xs[i].tensor = nullptr;  // the list owns it
    const std::vector<int64_t> strides = RowMajor(shapes[i]);
    yt.push_back(aclCreateTensor(shapes[i].data(), shapes[i].size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND,
                                 shapes[i].data(), shapes[i].size(), xs[i].dev));
  }
  aclTensorList *x = aclCreateTensorList(xt.data(), xt.size());
  aclTensorList *y = aclCreateTensorList(yt.data(), yt.size());
  uint64_t ws = 0;
  aclOpExecutor *executor = nullptr;
  aclnnStatus st = aclnnOpgenListOpGetWorkspaceSize(x, y, &ws, &executor);
  if (st == 0) {
    st = aclnnOpgenListOp(nullptr, ws, executor, nullptr);
  }
  EXPECT(st == 0 && aclrtSynchronizeStream(nullptr) == 0, "in-place list launch: %d %s", st, aclGetRecentErrMsg());
  for (size_t i = 0; i < shapes.size(); ++i) {
    const std::vector<double> got = Decode(xs[i].dev, static_cast<size_t>(ElementCount(shapes[i])), ACL_FLOAT);
    for (size_t k = 0; k < got.size(); ++k) {
      EXPECT(got[k] == 3.0 * static_cast<double>(i) - static_cast<double>(k) + 1.0, "x[%zu][%zu] = %g", i, k, got[k]);
    }
  }
  EXPECT(aclDestroyTensorList(x) == 0 && aclDestroyTensorList(y) == 0, "two lists of distinct tensors");
}

void TestCoreOrders() {
  for (int32_t mode = 0; mode <= 3; ++mode) {
    EXPECT(opgen_rt_set_core_order(mode, 1234) == 0, "core order %d", mode);
    CheckSmlCase("core order", {40000}, {40000}, {40000}, {40000}, ACL_FLOAT, 0, 1e-5, 1e-9);
  }
  EXPECT(opgen_rt_set_core_order(7, 0) == -1, "bad core order");
  EXPECT(Contains(aclGetRecentErrMsg(), "mode 7"), "bad core order message");
  opgen_rt_set_core_order(0, 0);
}

void TestConversionsAndUtils() {
  using opgen_rt::DoubleToBf16Bits;
  using opgen_rt::DoubleToHalfBits;
  EXPECT(DoubleToHalfBits(1.0) == 0x3C00, "half 1");
  EXPECT(DoubleToHalfBits(-2.0) == 0xC000, "half -2");
  EXPECT(DoubleToHalfBits(65504.0) == 0x7BFF, "half max");
  EXPECT(DoubleToHalfBits(65519.0) == 0x7BFF, "half just below the rounding boundary");
  EXPECT(DoubleToHalfBits(65520.0) == 0x7C00, "half overflow by rounding");
  EXPECT(DoubleToHalfBits(std::ldexp(1.0, -24)) == 0x0001, "half smallest subnormal");
  EXPECT(DoubleToHalfBits(std::ldexp(1.0, -25)) == 0x0000, "half tie to even (0)");
  EXPECT(DoubleToHalfBits(std::ldexp(3.0, -25)) == 0x0002, "half tie to even (2)");
  EXPECT(DoubleToHalfBits(std::ldexp(1023.5, -24)) == 0x0400, "half subnormal rounds up to the smallest normal");
  EXPECT(DoubleToHalfBits(1.0 + std::ldexp(1.0, -11)) == 0x3C00, "half tie down to even");
  EXPECT(DoubleToHalfBits(1.0 + std::ldexp(3.0, -11)) == 0x3C02, "half tie up to even");
  EXPECT((DoubleToHalfBits(std::nan("")) & 0x7C00) == 0x7C00 && (DoubleToHalfBits(std::nan("")) & 0x3FF) != 0,
         "half NaN");
  EXPECT(DoubleToHalfBits(-0.0) == 0x8000, "half -0");
  EXPECT(DoubleToBf16Bits(1.0) == 0x3F80, "bf16 1");
  EXPECT(DoubleToBf16Bits(1.0 + std::ldexp(1.0, -8)) == 0x3F80, "bf16 tie to even (down)");
  EXPECT(DoubleToBf16Bits(1.0 + std::ldexp(3.0, -8)) == 0x3F82, "bf16 tie to even (up)");
  EXPECT(DoubleToBf16Bits(3.0e38) == 0x7F62, "bf16 large");
  EXPECT(DoubleToBf16Bits(4.0e38) == 0x7F80, "bf16 overflow");
  EXPECT(opgen_rt::Bf16BitsToDouble(0x3F82) == 1.015625, "bf16 decode");
  EXPECT(aclFloat16ToFloat(aclFloatToFloat16(0.1F)) == static_cast<float>(opgen_rt::HalfBitsToDouble(0x2E66)),
         "aclFloatToFloat16");
  opgen_rt::ElementValue v;
  v.kind = opgen_rt::ElementValue::Kind::FLOATING;
  v.f = -3.7;
  int32_t i32 = 0;
  opgen_rt::WriteElement(&i32, ge::DT_INT32, v);
  EXPECT(i32 == -3, "float to int truncates: %d", i32);
  v.f = 1e20;
  int8_t i8 = 0;
  opgen_rt::WriteElement(&i8, ge::DT_INT8, v);
  EXPECT(i8 == 127, "float to int8 saturates: %d", i8);

  using op::PromoteType;
  EXPECT(PromoteType(ge::DT_FLOAT16, ge::DT_BF16) == ge::DT_FLOAT, "f16+bf16");
  EXPECT(PromoteType(ge::DT_FLOAT, ge::DT_FLOAT16) == ge::DT_FLOAT, "f32+f16");
  EXPECT(PromoteType(ge::DT_BF16, ge::DT_BF16) == ge::DT_BF16, "bf16+bf16");
  EXPECT(PromoteType(ge::DT_INT8, ge::DT_UINT8) == ge::DT_INT16, "i8+u8");
  EXPECT(PromoteType(ge::DT_BOOL, ge::DT_INT32) == ge::DT_INT32, "bool+i32");
  EXPECT(PromoteType(ge::DT_INT64, ge::DT_FLOAT16) == ge::DT_FLOAT16, "i64+f16");
  EXPECT(PromoteType(ge::DT_DOUBLE, ge::DT_FLOAT) == ge::DT_DOUBLE, "f64+f32");
  EXPECT(PromoteType(ge::DT_UINT16, ge::DT_FLOAT) == ge::DT_UNDEFINED, "u16+f32");

  op::Shape out;
  EXPECT(op::BroadcastInferShape(op::Shape{}, op::Shape{2, 3}, out) && out == op::Shape({2, 3}), "[] with [2,3]");
  EXPECT(op::BroadcastInferShape(op::Shape{2, 1}, op::Shape{1, 3}, out) && out == op::Shape({2, 3}), "[2,1]x[1,3]");
  EXPECT(op::BroadcastInferShape(op::Shape{0, 1}, op::Shape{1, 3}, out) && out == op::Shape({0, 3}), "[0,1]x[1,3]");
  EXPECT(!op::BroadcastInferShape(op::Shape{2}, op::Shape{3}, out), "[2]x[3]");
  EXPECT(std::string(op::ToString(op::Shape{2, 3}).GetString()) == "[2, 3]", "shape text");
}

// aclrtMalloc does not clear memory on a device: fresh allocations come back poisoned (0xFF bytes: NaN as
// float, -1 as int), so a kernel that relies on zeroed workspace or output gives wrong values here too.
void TestDeviceMemoryPoisoned() {
  void *dev = nullptr;
  EXPECT(aclrtMalloc(&dev, 13, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS && dev != nullptr, "aclrtMalloc");
  if (dev == nullptr) {
    return;
  }
  uint8_t bytes[13];
  EXPECT(aclrtMemcpy(bytes, sizeof(bytes), dev, sizeof(bytes), ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS, "copy");
  bool poisoned = true;
  for (uint8_t b : bytes) {
    poisoned = poisoned && b == 0xFF;
  }
  EXPECT(poisoned, "fresh device memory is poisoned with 0xFF, not zeroed");
  float f = 0.0F;
  int32_t i = 0;
  std::memcpy(&f, bytes, sizeof(f));
  std::memcpy(&i, bytes, sizeof(i));
  EXPECT(std::isnan(f) && i == -1, "poison reads as NaN (%g) and -1 (%d)", static_cast<double>(f), i);
  aclrtFree(dev);
}

// Phase 2 of SoftMarginLossBackward (reduction none) on `stream`, without synchronising it.
aclnnStatus LaunchSml(const DevTensor &g, const DevTensor &s, const DevTensor &t, const DevTensor &out,
                      aclrtStream stream) {
  uint64_t ws = 0;
  aclOpExecutor *executor = nullptr;
  aclnnStatus st = aclnnSoftMarginLossBackwardGetWorkspaceSize(g.tensor, s.tensor, t.tensor, 0, out.tensor, &ws,
                                                               &executor);
  if (st != 0) {
    return st;
  }
  void *wsMem = nullptr;
  if (ws > 0) {
    aclrtMalloc(&wsMem, ws, ACL_MEM_MALLOC_HUGE_FIRST);
  }
  st = aclnnSoftMarginLossBackward(wsMem, ws, executor, stream);
  if (wsMem != nullptr) {
    aclrtFree(wsMem);
  }
  return st;
}

// The stream: work a phase-2 call queued may still write its outputs and read its inputs until the host
// synchronises the stream (aclrtSynchronizeStream, aclrtSynchronizeDevice or aclrtDestroyStream), so a
// host access before that is refused by the API call, naming the buffer; launches run in stream order.
void TestStream() {
  int notAStream = 0;
  EXPECT(aclrtSynchronizeStream(&notAStream) == ACL_ERROR_INVALID_PARAM, "sync of a foreign handle");
  std::string msg = aclGetRecentErrMsg();
  EXPECT(Contains(msg, "not a live stream"), "sync of a foreign handle: '%s'", msg.c_str());
  EXPECT(aclrtSynchronizeStream(nullptr) == ACL_SUCCESS, "sync of the default stream");
  EXPECT(aclrtSynchronizeDevice() == ACL_SUCCESS, "sync of the device");

  aclrtStream a = nullptr;
  aclrtStream b = nullptr;
  EXPECT(aclrtCreateStream(&a) == ACL_SUCCESS && aclrtCreateStream(&b) == ACL_SUCCESS, "two streams");
  DevTensor g, s, t, out, out2;
  Contiguous(g, {1, 2, 3}, {3}, ACL_FLOAT);
  Contiguous(s, {1, 2, 3}, {3}, ACL_FLOAT);
  Contiguous(t, {1, -1, 1}, {3}, ACL_FLOAT);
  Contiguous(out, {0, 0, 0}, {3}, ACL_FLOAT);
  Contiguous(out2, {0, 0, 0}, {3}, ACL_FLOAT);
  EXPECT(LaunchSml(g, s, t, out, a) == 0, "launch on stream a: %s", aclGetRecentErrMsg());
  // In stream order: the second launch reads the first one's output as its gradOutput.
  EXPECT(LaunchSml(out, s, t, out2, a) == 0, "second launch on stream a: %s", aclGetRecentErrMsg());

  float host[3] = {7, 7, 7};
  EXPECT(aclrtMemcpy(host, sizeof(host), out2.dev, sizeof(host), ACL_MEMCPY_DEVICE_TO_HOST) == ACL_ERROR_FAILURE,
         "read of an unsynchronised output");
  msg = aclGetRecentErrMsg();
  EXPECT(Contains(msg, "aclrtMemcpy(ACL_MEMCPY_DEVICE_TO_HOST): host read of") &&
             Contains(msg, "of SoftMarginLossGrad (kernel soft_margin_loss_grad) launched by aclnnSoftMarginLossBackward") &&
             Contains(msg, "call aclrtSynchronizeStream"),
         "read message: '%s'", msg.c_str());
  EXPECT(host[0] == 7 && host[2] == 7, "a refused copy copies nothing");
  EXPECT(aclrtMemcpy(g.dev, g.bytes, host, sizeof(host), ACL_MEMCPY_HOST_TO_DEVICE) == ACL_ERROR_FAILURE,
         "write into an input a pending launch reads");
  msg = aclGetRecentErrMsg();
  EXPECT(Contains(msg, "aclrtMemcpy(ACL_MEMCPY_HOST_TO_DEVICE): host write of") && Contains(msg, "input "),
         "write message: '%s'", msg.c_str());
  EXPECT(aclrtMemset(out2.dev, out2.bytes, 0, out2.bytes) == ACL_ERROR_FAILURE, "memset of a pending output");
  msg = aclGetRecentErrMsg();
  EXPECT(Contains(msg, "aclrtMemset: host write of") && Contains(msg, "output "), "memset message: '%s'", msg.c_str());
  EXPECT(aclrtMemcpy(host, sizeof(host), g.dev, sizeof(host), ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS,
         "a host read of an input a launch only reads");
  EXPECT(aclrtMemcpyAsync(host, sizeof(host), out2.dev, sizeof(host), ACL_MEMCPY_DEVICE_TO_HOST, a) == ACL_SUCCESS,
         "an async copy queued behind the launch on its stream");
  EXPECT(aclrtMemcpyAsync(host, sizeof(host), out2.dev, sizeof(host), ACL_MEMCPY_DEVICE_TO_HOST, b) ==
             ACL_ERROR_FAILURE,
         "an async copy on another stream");
  (void)aclGetRecentErrMsg();
  EXPECT(aclrtSynchronizeStream(b) == ACL_SUCCESS, "sync of stream b");
  EXPECT(aclrtMemcpy(host, sizeof(host), out2.dev, sizeof(host), ACL_MEMCPY_DEVICE_TO_HOST) == ACL_ERROR_FAILURE,
         "syncing another stream does not wait for stream a");
  (void)aclGetRecentErrMsg();
  EXPECT(aclrtSynchronizeStream(a) == ACL_SUCCESS, "sync of stream a");
  const auto first = Decode(out.dev, 3, ACL_FLOAT);
  const auto second = Decode(out2.dev, 3, ACL_FLOAT);
  for (int i = 0; i < 3; ++i) {
    const double sv = i + 1.0;
    const double tv = i == 1 ? -1.0 : 1.0;
    EXPECT(Close(first[i], Reference(sv, sv, tv, 1), 1e-6, 1e-7) &&
               Close(second[i], Reference(first[i], sv, tv, 1), 1e-6, 1e-7),
           "stream order [%d]: %.9g then %.9g", i, first[i], second[i]);
  }
  EXPECT(aclrtMemset(out2.dev, out2.bytes, 0, out2.bytes) == ACL_SUCCESS, "memset after the sync");

  // An aclrtMemcpyAsync runs on its stream's thread like a launch: the launch queued behind it reads the copy,
  // and the host may not read its destination before the sync.
  const float newGrad[3] = {2, 2, 2};
  EXPECT(aclrtMemcpyAsync(g.dev, g.bytes, newGrad, sizeof(newGrad), ACL_MEMCPY_HOST_TO_DEVICE, a) == ACL_SUCCESS,
         "async copy into an input: %s", aclGetRecentErrMsg());
  EXPECT(aclrtMemcpy(host, sizeof(host), g.dev, sizeof(host), ACL_MEMCPY_DEVICE_TO_HOST) == ACL_ERROR_FAILURE,
         "read of an async copy's destination");
  msg = aclGetRecentErrMsg();
  EXPECT(Contains(msg, "the destination of an aclrtMemcpyAsync"), "async copy message: '%s'", msg.c_str());
  EXPECT(LaunchSml(g, s, t, out, a) == 0, "launch behind the copy: %s", aclGetRecentErrMsg());
  EXPECT(aclrtSynchronizeStream(a) == ACL_SUCCESS, "sync of stream a: %s", aclGetRecentErrMsg());
  const auto third = Decode(out.dev, 3, ACL_FLOAT);
  for (int i = 0; i < 3; ++i) {
    const double sv = i + 1.0;
    const double tv = i == 1 ? -1.0 : 1.0;
    EXPECT(Close(third[i], Reference(2.0, sv, tv, 1), 1e-6, 1e-7), "launch after the async copy [%d]: %.9g", i,
           third[i]);
  }

  // aclrtDestroyStream and aclrtSynchronizeDevice wait for the stream's work too; so does a sync of the
  // default stream (nullptr) for work launched there.
  EXPECT(LaunchSml(g, s, t, out, b) == 0, "launch on stream b: %s", aclGetRecentErrMsg());
  EXPECT(aclrtDestroyStream(b) == ACL_SUCCESS, "destroy stream b");
  EXPECT(aclrtMemcpy(host, sizeof(host), out.dev, sizeof(host), ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS,
         "read after aclrtDestroyStream: %s", aclGetRecentErrMsg());
  EXPECT(aclrtSynchronizeStream(b) == ACL_ERROR_INVALID_PARAM, "sync of a destroyed stream");
  (void)aclGetRecentErrMsg();
  EXPECT(LaunchSml(g, s, t, out, b) == ACLNN_ERR_RUNTIME_ERROR, "launch on a destroyed stream");
  msg = aclGetRecentErrMsg();
  EXPECT(Contains(msg, "is not a live stream") && opgen_rt_pending_host_access("read", out.dev, 4, 0)[0] == '\0',
         "a launch on a destroyed stream queues nothing: '%s'", msg.c_str());
  EXPECT(LaunchSml(g, s, t, out, a) == 0, "launch on stream a: %s", aclGetRecentErrMsg());
  EXPECT(aclrtSynchronizeDevice() == ACL_SUCCESS, "device sync");
  EXPECT(aclrtMemcpy(host, sizeof(host), out.dev, sizeof(host), ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS,
         "read after aclrtSynchronizeDevice: %s", aclGetRecentErrMsg());
  EXPECT(LaunchSml(g, s, t, out, nullptr) == 0, "launch on the default stream: %s", aclGetRecentErrMsg());
  EXPECT(opgen_rt_pending_host_access("read", out.dev, 4, 0)[0] != '\0', "pending on the default stream");
  EXPECT(opgen_rt_pending_host_access("read", g.dev, 4, 0)[0] == '\0', "an input is readable");
  EXPECT(opgen_rt_pending_host_access("write", g.dev, 4, 1)[0] != '\0', "an input is not writable");
  EXPECT(aclrtSynchronizeStream(nullptr) == ACL_SUCCESS, "sync of the default stream");
  EXPECT(opgen_rt_pending_host_access("read", out.dev, 4, 0)[0] == '\0', "synchronised");
  EXPECT(aclrtDestroyStream(a) == ACL_SUCCESS, "destroy stream a");
}

// Registers the test op's tiling layout when its REGISTER_TILING_DATA_CLASS did not, so statistics name fields.
void EnsureTilingMeta() {
  if (opgen_rt::FindTilingClassMeta("OpgenTestOp") == nullptr) {
    using T = optiling::OpgenTestOpTilingData;
    opgen_rt::TilingClassMeta meta;
    meta.className = "OpgenTestOpTilingData";
    meta.dataSize = sizeof(T);
    meta.fields = {{"length", "int64_t", offsetof(T, length), 8, 1},
                   {"num", "int64_t", offsetof(T, num), 8, 1},
                   {"count", "uint64_t", offsetof(T, count), 8, 1},
                   {"flag", "uint32_t", offsetof(T, flag), 4, 1},
                   {"scale", "float", offsetof(T, scale), 4, 1},
                   {"deterministic", "int32_t", offsetof(T, deterministic), 4, 1},
                   {"hasIdx", "int32_t", offsetof(T, hasIdx), 4, 1},
                   {"coreNum", "int32_t", offsetof(T, coreNum), 4, 1}};
    opgen_rt::RegisterTilingClassMeta("OpgenTestOp", meta);
  }
}

}  // namespace

int main() {
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
    std::printf("FAIL: acl init\n");
    return 1;
  }
  EXPECT(aclInit(nullptr) == ACL_ERROR_REPEAT_INITIALIZE, "second aclInit");
  (void)aclGetRecentErrMsg();
  aclrtStream stream = nullptr;
  EXPECT(aclrtCreateStream(&stream) == ACL_SUCCESS, "stream");
  const bool is910 = Contains(opgen_rt_product_json(), "\"name\": \"Ascend910\",");
  EnsureTilingMeta();

  TestConversionsAndUtils();
  TestDeviceMemoryPoisoned();
  TestExampleNumbers();
  TestNullArguments();
  TestInvalidParams(is910);
  TestPhaseTwoTwice();
  TestViews();
  TestBroadcastAndEmpty();
  TestMixedDtypes(is910);
  TestOpDefJson(is910);
  TestRunTilingJson();
  TestOpgenTestOp(is910);
  TestConvertToTensor();
  TestTensorLists();
  TestDynamicInstances();
  TestListLaunch();
  TestInPlaceListLaunch();
  TestCoreOrders();
  TestStream();

  EXPECT(aclrtDestroyStream(stream) == ACL_SUCCESS, "destroy stream");
  aclrtResetDevice(0);
  aclFinalize();
  std::printf("%s: %d checks, %d failures\n", is910 ? "Ascend910" : "Ascend910B", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
