// Tests of tensor lists on the device side: the GM list descriptor (opgen_rt::AddListArgument, laid out as
// hicann/opbase's RtsArg::AppendDevicePtrArg writes it) read through AscendC::ListTensorDesc / TensorDesc, one
// GM region per element, and the faults of a read past one element's end, past the list's end, and of GetDesc
// on a list of mixed ranks. Expected values are computed here from the inputs (x + 1), never by the emulation.
// Hand-written test code.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "harness.h"
#include "kernel_operator.h"
#include "kernel_operator_list_tensor_intf.h"

using namespace AscendC;

namespace {

constexpr int kTensors = 5;

// args: x list, y list, counts (int64 per tensor). Core b adds 1 to the tensors b, b + blockNum, ... of x
// into y, element by element; the list length comes from `counts` as in ops-nn's foreach kernels.
void AddOneKernel(uint8_t **args) {
  ListTensorDesc x(args[0]);
  ListTensorDesc y(args[1]);
  GlobalTensor<int64_t> counts;
  counts.SetGlobalBuffer(reinterpret_cast<__gm__ int64_t *>(args[2]), kTensors);
  for (int64_t i = GetBlockIdx(); i < kTensors; i += GetBlockNum()) {
    const int64_t n = counts.GetValue(i);
    if (n == 0) {
      continue;  // an empty tensor: its address is never used
    }
    GlobalTensor<float> in;
    GlobalTensor<float> out;
    in.SetGlobalBuffer(x.GetDataPtr<float>(static_cast<uint32_t>(i)), n);
    out.SetGlobalBuffer(y.GetDataPtr<float>(static_cast<uint32_t>(i)), n);
    for (int64_t k = 0; k < n; ++k) {
      out.SetValue(k, in.GetValue(k) + 1.0f);
    }
  }
}

// args: x list, out (int64: GetSize(), then per tensor rank, dims..., and whether GetDataPtr agrees).
void ReadDescKernel(uint8_t **args) {
  ListTensorDesc x;
  x.Init(args[0]);
  GlobalTensor<int64_t> out;
  out.SetGlobalBuffer(reinterpret_cast<__gm__ int64_t *>(args[1]), 16);
  out.SetValue(0, x.GetSize());
  uint64_t shape[8] = {};
  TensorDesc<float> d;
  d.SetShapeAddr(shape);
  int64_t w = 1;
  for (uint32_t i = 0; i < 2; ++i) {
    x.GetDesc(d, i);
    out.SetValue(w++, static_cast<int64_t>(d.GetDim()));
    for (uint32_t k = 0; k < d.GetDim(); ++k) {
      out.SetValue(w++, static_cast<int64_t>(d.GetShape(k)));
    }
    out.SetValue(w++, d.GetDataPtr() == x.GetDataPtr<float>(i) && d.GetIndex() == i ? 1 : 0);
    out.SetValue(w++, static_cast<int64_t>(d.GetDataObj().GetValue(0)));
  }
}

// Reads 16 floats (two 32-byte blocks) of tensor 0, which has 15: 4 bytes past its end.
void ReadPastElementKernel(uint8_t **args) {
  ListTensorDesc x(args[0]);
  GlobalTensor<float> in;
  in.SetGlobalBuffer(x.GetDataPtr<float>(0));
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 64);
  LocalTensor<float> t = buf.Get<float>();
  DataCopy(t, in, 16);
}

// Asks for the address of tensor kTensors of a list of kTensors.
void PastListKernel(uint8_t **args) {
  ListTensorDesc x(args[0]);
  (void)x.GetDataPtr<float>(kTensors);
}

// GetDesc on a list whose tensors have ranks 2, 0, 1, ...
void MixedRankDescKernel(uint8_t **args) {
  ListTensorDesc x(args[0]);
  uint64_t shape[8] = {};
  TensorDesc<float> d;
  d.SetShapeAddr(shape);
  x.GetDesc(d, 2);
}

struct Tensor {
  std::vector<int64_t> dims;
  std::vector<float> data;
};

int64_t Count(const std::vector<int64_t> &dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    n *= d;
  }
  return n;
}

std::vector<opgen_rt::ListElement> Elements(std::vector<Tensor> &ts) {
  std::vector<opgen_rt::ListElement> e;
  for (Tensor &t : ts) {
    const uint64_t bytes = t.data.size() * sizeof(float);
    e.push_back(opgen_rt::ListElement{bytes > 0 ? t.data.data() : nullptr, t.dims, bytes});
  }
  return e;
}

// Five tensors of different sizes: [3, 5], empty [0, 4], 0-d, [40], [1, 1, 7].
std::vector<Tensor> MakeList(float base) {
  std::vector<Tensor> ts{{{3, 5}, {}}, {{0, 4}, {}}, {{}, {}}, {{40}, {}}, {{1, 1, 7}, {}}};
  for (size_t i = 0; i < ts.size(); ++i) {
    ts[i].data.resize(static_cast<size_t>(Count(ts[i].dims)));
    for (size_t k = 0; k < ts[i].data.size(); ++k) {
      ts[i].data[k] = base + static_cast<float>(100 * i + k) * 0.5f;
    }
  }
  return ts;
}

opgen_rt::LaunchRequest Request(const char *name, opgen_rt::KernelEntry entry, uint32_t blockDim) {
  opgen_rt::LaunchRequest req;
  req.kernelName = name;
  req.opType = name;
  req.entry = entry;
  req.blockDim = blockDim;
  return req;
}

void TestAddOne() {
  for (opgen_rt::CoreOrder order : th::kAllOrders) {
    opgen_rt::SetCoreOrder(order, 7);
    std::vector<Tensor> x = MakeList(-3.0f);
    std::vector<Tensor> y = MakeList(1000.0f);  // overwritten where the kernel writes
    std::vector<int64_t> counts;
    for (const Tensor &t : x) {
      counts.push_back(Count(t.dims));
    }
    TH_CHECK(counts[1] == 0 && counts[2] == 1, "the list holds an empty and a 0-d tensor");
    opgen_rt::LaunchRequest req = Request("list_add_one", AddOneKernel, 2);
    std::vector<uint64_t> xDesc, yDesc;
    opgen_rt::AddListArgument(req, "input 0", "x", Elements(x), false, xDesc);
    opgen_rt::AddListArgument(req, "output 0", "y", Elements(y), true, yDesc);
    req.args.push_back(reinterpret_cast<uint8_t *>(counts.data()));
    req.regions.push_back(opgen_rt::GmRegion{"tiling", reinterpret_cast<uint8_t *>(counts.data()),
                                             counts.size() * sizeof(int64_t), false});
    // the launch moves the regions; the caller's descriptor keeps the caller's addresses
    const uint64_t firstAddress = xDesc[xDesc[0] / 8];
    const opgen_rt::LaunchResult r = opgen_rt::RunKernel(req);
    TH_CHECK(r.ok, "%s: %s", th::OrderName(order), r.fault.c_str());
    TH_CHECK(xDesc[xDesc[0] / 8] == firstAddress, "the caller's descriptor is not changed");
    std::vector<Tensor> x0 = MakeList(-3.0f);
    for (size_t i = 0; i < x.size(); ++i) {
      TH_CHECK(x[i].data == x0[i].data, "x[%zu] unchanged", i);
      for (size_t k = 0; k < y[i].data.size(); ++k) {
        TH_CHECK(y[i].data[k] == x0[i].data[k] + 1.0f, "%s: y[%zu][%zu] = %g, want %g", th::OrderName(order), i, k,
                 static_cast<double>(y[i].data[k]), static_cast<double>(x0[i].data[k] + 1.0f));
      }
    }
  }
  opgen_rt::SetCoreOrder(opgen_rt::CoreOrder::IN_ORDER, 0);
}

void TestDescriptorLayoutAndGetDesc() {
  // The words the launcher writes (rts_arg.cpp): offset of the table, (1 << 32 | rank) + dims per tensor,
  // then the addresses.
  std::vector<Tensor> x{{{2, 3}, {}}, {{4, 1}, {}}};
  x[0].data = {5, 6, 7, 8, 9, 10};
  x[1].data = {-2, -3, -4, -5};
  uint64_t table = 0;
  const std::vector<uint64_t> words = opgen_rt::BuildListTensorDesc(Elements(x), table);
  const uint64_t hi = uint64_t{1} << 32;
  const std::vector<uint64_t> want{56,
                                   hi | 2, 2, 3,
                                   hi | 2, 4, 1,
                                   reinterpret_cast<uintptr_t>(x[0].data.data()),
                                   reinterpret_cast<uintptr_t>(x[1].data.data())};  // fmt: off
  TH_CHECK(words == want && table == 56, "descriptor words");

  std::vector<int64_t> out(16, -1);
  opgen_rt::LaunchRequest req = Request("list_read_desc", ReadDescKernel, 1);
  std::vector<uint64_t> desc;
  opgen_rt::AddListArgument(req, "input 0", "x", Elements(x), false, desc);
  req.args.push_back(reinterpret_cast<uint8_t *>(out.data()));
  req.regions.push_back(
      opgen_rt::GmRegion{"output 0 (out)", reinterpret_cast<uint8_t *>(out.data()), out.size() * 8, true});
  const opgen_rt::LaunchResult r = opgen_rt::RunKernel(req);
  TH_CHECK(r.ok, "%s", r.fault.c_str());
  // GetSize() is the first record's high word: 1 in every record the launcher writes
  const std::vector<int64_t> expect{1, 2, 2, 3, 1, 5, 2, 4, 1, 1, -2, -1, -1, -1, -1, -1};
  TH_CHECK(out == expect, "GetSize / GetDesc / GetDataObj read back");
}

void TestFaults() {
  struct Case {
    const char *name;
    opgen_rt::KernelEntry entry;
    const char *detail;
  };
  const Case cases[] = {
      {"list_read_past_element", ReadPastElementKernel,
       "read of 64 bytes at byte offset 0 of region \"input 0[0] (x)\" (60 bytes, read-only)"},
      {"list_past_end", PastListKernel, "of region \"input 0 (x) list\""},
      {"list_get_desc_mixed_ranks", MixedRankDescKernel, "do not all have the first tensor's rank (2)"},
  };
  for (const Case &c : cases) {
    std::vector<Tensor> x = MakeList(0.0f);
    opgen_rt::LaunchRequest req = Request(c.name, c.entry, 1);
    std::vector<uint64_t> desc;
    opgen_rt::AddListArgument(req, "input 0", "x", Elements(x), false, desc);
    const opgen_rt::LaunchResult r = opgen_rt::RunKernel(req);
    if (th::ExpectFault(r, "GM bounds", c.name, 0, 1, c.name)) {
      TH_CHECK(th::Contains(r.fault, c.detail), "%s: %s", c.name, r.fault.c_str());
    }
  }
}

}  // namespace

int main() {
  th::UseProduct(th::Ascend910B());
  TestAddOne();
  TestDescriptorLayoutAndGetDesc();
  TestFaults();
  return th::Finish("test_list");
}
