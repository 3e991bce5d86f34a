"""The L2 checks of a unary op over tensor lists (templates/common/list_checks.j2 ``CheckListParams``), compiled
against the emulated opbase (aclCreateTensor / aclCreateTensorList) and run on hand-made lists. The expected
statuses are read from ops-nn's aclnnForeachSqrt (foreach/foreach_sqrt/op_host/op_api/aclnn_foreach_sqrt.cpp:
null lists 161001; the first tensor's dtype, every tensor's dtype, list sizes, ranks, shapes and private
formats 161002) and, for a null element, this project's rule (161001 where ops-nn would dereference it)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from codegen.render import make_environment

ROOT = Path(__file__).resolve().parents[1]
RUNTIME = ROOT / "runtime"

#: Per line of stdin "<k|none>|<x>|<out>", where a list is "null" or tensors "dtype:format:dims" (dims comma
#: separated, "-" for a 0-d tensor; a tensor "nulltensor" is a null element), one status per line.
PROGRAM = """
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "aclnn/acl_meta.h"
#include "aclnn_kernels/common/op_error_check.h"
#include "opdev/common_types.h"
#include "opdev/format_utils.h"
#include "opdev/op_log.h"

using namespace op;

{{ lc.list_unary_checks() }}

static float g_storage[64];

static aclTensorList *MakeList(const std::string &text) {
  if (text == "null") {
    return nullptr;
  }
  std::vector<aclTensor *> tensors;
  std::istringstream in(text);
  std::string item;
  while (in >> item) {
    if (item == "nulltensor") {
      tensors.push_back(nullptr);
      continue;
    }
    const size_t a = item.find(':');
    const size_t b = item.find(':', a + 1);
    const int dtype = std::stoi(item.substr(0, a));
    const int format = std::stoi(item.substr(a + 1, b - a - 1));
    std::vector<int64_t> dims;
    std::istringstream ds(item.substr(b + 1));
    std::string d;
    while (item.substr(b + 1) != "-" && std::getline(ds, d, ',')) {
      dims.push_back(std::stoll(d));
    }
    std::vector<int64_t> strides(dims.size(), 1);
    for (size_t i = dims.size(); i-- > 1;) {
      strides[i - 1] = strides[i] * (dims[i] > 0 ? dims[i] : 1);
    }
    tensors.push_back(aclCreateTensor(dims.data(), dims.size(), static_cast<aclDataType>(dtype), strides.data(), 0,
                                      static_cast<aclFormat>(format), dims.data(), dims.size(), g_storage));
  }
  return aclCreateTensorList(tensors.data(), tensors.size());
}

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    const size_t a = line.find('|');
    const size_t b = line.find('|', a + 1);
    aclTensorList *x = MakeList(line.substr(a + 1, b - a - 1));
    aclTensorList *out = MakeList(line.substr(b + 1));
    const aclnnStatus status =
        line.substr(0, a) == "k"
            ? CheckListParams(x, out, {DataType::DT_FLOAT, DataType::DT_FLOAT16, DataType::DT_BF16})
            : CheckListParams(x, out, {});
    std::cout << status << std::endl;
    if (x != nullptr) {
      aclDestroyTensorList(x);
    }
    if (out != nullptr) {
      aclDestroyTensorList(out);
    }
  }
  return 0;
}
"""

# aclDataType and aclFormat values (hicann/opbase acl_base.h)
F32, F16, I32, BF16 = "0", "1", "3", "27"
ND, NCHW, NZ = "2", "0", "29"

#: (case, "<k|none>|<x>|<out>", status): the statuses as ops-nn's CheckParams gives them.
CASES = [
    ("a null x", f"k|null|{F32}:{ND}:2,3", 161001),
    ("a null out", f"k|{F32}:{ND}:2,3|null", 161001),
    ("a null element of x", f"k|{F32}:{ND}:2,3 nulltensor|{F32}:{ND}:2,3 {F32}:{ND}:4", 161001),
    ("a null element of out", f"k|{F32}:{ND}:2,3|nulltensor", 161001),
    ("one tensor", f"k|{F32}:{ND}:2,3|{F32}:{ND}:2,3", 0),
    ("two empty lists", "k||", 0),
    ("0-d and empty tensors", f"k|{BF16}:{ND}:- {BF16}:{ND}:0,4|{BF16}:{ND}:- {BF16}:{ND}:0,4", 0),
    ("the first tensor's dtype unsupported", f"k|{I32}:{ND}:2|{I32}:{ND}:2", 161002),
    ("a later tensor of x of another dtype", f"k|{F32}:{ND}:2 {F16}:{ND}:2|{F32}:{ND}:2 {F32}:{ND}:2", 161002),
    ("out of another dtype", f"k|{F16}:{ND}:2|{F32}:{ND}:2", 161002),
    ("a product without a kernel", f"none|{F32}:{ND}:2|{F32}:{ND}:2", 161002),
    ("a product without a kernel, empty lists", "none||", 161002),
    ("x longer than out", f"k|{F32}:{ND}:2 {F32}:{ND}:3|{F32}:{ND}:2", 161002),
    ("an empty x, a non-empty out", f"k||{F32}:{ND}:2", 161002),
    ("rank 9", f"k|{F32}:{ND}:1,1,1,1,1,1,1,1,2|{F32}:{ND}:1,1,1,1,1,1,1,1,2", 161002),
    ("rank 8", f"k|{F32}:{ND}:1,1,1,1,1,1,1,2|{F32}:{ND}:1,1,1,1,1,1,1,2", 0),
    ("shapes differ at one position", f"k|{F32}:{ND}:2,3 {F32}:{ND}:4|{F32}:{ND}:2,3 {F32}:{ND}:2,2", 161002),
    ("a private format (FRACTAL_NZ) in out", f"k|{F32}:{ND}:2,3|{F32}:{NZ}:2,3", 161002),
    ("NCHW", f"k|{F16}:{NCHW}:1,2,1,1|{F16}:{NCHW}:1,2,1,1", 0),
]


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The compiled program (the rendered checks and the emulated opbase's tensor, dtype, format and log
    sources, -O0)."""
    env = make_environment(ROOT / "templates")
    source = env.from_string('{% import "common/list_checks.j2" as lc %}' + PROGRAM).render()
    work = tmp_path_factory.mktemp("list_checks")
    (work / "checks.cpp").write_text(source)
    binary = work / "checks"
    host = RUNTIME / "src" / "host"
    sources = [work / "checks.cpp", *(host / f for f in ("tensor.cpp", "dtype.cpp", "log.cpp", "format_shape.cpp"))]
    flags = ["-std=c++17", "-O0", "-Wall", "-Wextra", "-Werror", f"-I{RUNTIME / 'include'}"]
    subprocess.run(["g++", *flags, *map(str, sources), "-o", str(binary)], check=True)
    return binary


def test_list_check_statuses(program: Path) -> None:
    stdin = "".join(line + "\n" for _, line, _ in CASES)
    got = subprocess.run([str(program)], input=stdin, capture_output=True, text=True, check=True).stdout.split()
    assert len(got) == len(CASES)
    wrong = [(name, int(g), want) for (name, _, want), g in zip(CASES, got, strict=True) if int(g) != want]
    assert not wrong
