"""The tiling side of a tensor list (templates/common/list_tiling.j2): the list table in a tiling struct (named as
ops-nn's ForeachCommonTilingData) filled by ``FillListTiling`` from the tiling context's DYNAMIC input shapes
through ``SplitList``. A program describes each call with gert::TilingContextFaker (one input instance per
tensor) and prints the table; the expected shares are the planner's (codegen.plan.tensor_lists.split_list,
itself checked by hand counts in tests/test_list_split.py) of the shapes' element counts counted here."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import pytest

from codegen.build.library import _runtime_objects, _tree_digest
from codegen.build.toolchain import BASE_FLAGS
from codegen.paths import project_paths
from codegen.plan.tensor_lists import split_list
from codegen.render import make_environment

ROOT = Path(__file__).resolve().parents[1]
RUNTIME = ROOT / "runtime"

#: Per line of stdin "coreCount blockElements shape..." (a shape is dims joined by "x", "-" for 0-d), one line
#: "status needCoreNum totalTensorCount counts... | startTensor startOffset endTensor endOffset ...".
PROGRAM = """
#include <cstdint>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "exe_graph/runtime/storage_shape.h"
#include "exe_graph/runtime/tiling_context.h"
#include "platform/platform_info.h"
#include "register/tilingdata_base.h"
#include "tests/ut/common/tiling_context_faker.h"

{{ ls.split_list_function() }}

BEGIN_TILING_DATA_DEF(ListTilingData)
{{ lt.list_tiling_fields() }}
END_TILING_DATA_DEF;

{{ lt.list_tiling_function("ListTilingData") }}

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    int64_t coreCount = 0, blockElements = 0;
    in >> coreCount >> blockElements;
    std::vector<std::unique_ptr<gert::StorageShape>> shapes;
    std::string item;
    while (in >> item) {
      gert::Shape s;
      std::istringstream ds(item);
      std::string d;
      while (item != "-" && std::getline(ds, d, 'x')) {
        s.AppendDim(std::stoll(d));
      }
      shapes.push_back(std::make_unique<gert::StorageShape>(s, s));
    }
    std::vector<gert::StorageShape *> ins, outs;
    for (auto &s : shapes) {
      ins.push_back(s.get());
      outs.push_back(s.get());
    }
    const uint32_t n = static_cast<uint32_t>(shapes.size());
    auto tilingData = gert::TilingData::CreateCap(8192);
    auto workspaceHolder = gert::ContinuousVector::Create<size_t>(16);
    auto *workspace = reinterpret_cast<gert::ContinuousVector *>(workspaceHolder.get());
    gert::TilingContextFaker faker;
    uint8_t compileInfo = 0;
    fe::PlatFormInfos platformInfo;
    faker.SetOpType("ListOp").NodeIoNum(n, n).IrInstanceNum({n}, {n}).InputShapes(ins).OutputShapes(outs);
    faker.NodeInputTd(0, ge::DT_FLOAT, ge::FORMAT_ND, ge::FORMAT_ND);
    faker.NodeOutputTd(0, ge::DT_FLOAT, ge::FORMAT_ND, ge::FORMAT_ND);
    faker.TilingData(tilingData.get()).Workspace(workspace).CompileInfo(&compileInfo).PlatformInfo(&platformInfo);
    auto holder = faker.Build();
    gert::TilingContext *context = holder.GetContext<gert::TilingContext>();
    static ListTilingData tiling;
    tiling = ListTilingData();
    const ge::graphStatus status = FillListTiling(context, coreCount, blockElements, 1024, tiling);
    std::cout << (status == ge::GRAPH_SUCCESS ? 0 : 1) << " " << tiling.needCoreNum << " " << tiling.totalTensorCount;
    for (int64_t i = 0; i < tiling.totalTensorCount; ++i) {
      std::cout << " " << tiling.tensorDataCountList[i];
    }
    std::cout << " |";
    for (int64_t c = 0; c < tiling.needCoreNum; ++c) {
      std::cout << " " << tiling.tensorStartList[c] << " " << tiling.tensorStartOffsetList[c] << " "
                << tiling.tensorEndList[c] << " " << tiling.tensorEndOffsetList[c];
    }
    std::cout << std::endl;
  }
  return 0;
}
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The compiled program: the rendered tiling pieces and the device test harness (which defines the current
    product the host runtime reads), linked with the runtime objects every op library build shares (the build
    cache's; the C ABI unit, which needs an op's glue, left out)."""
    env = make_environment(ROOT / "templates")
    source = env.from_string(
        '{% import "common/list_split.j2" as ls %}{% import "common/list_tiling.j2" as lt %}' + PROGRAM
    ).render()
    work = tmp_path_factory.mktemp("list_tiling")
    (work / "tiling.cpp").write_text(source)
    paths = project_paths()
    digest = _tree_digest([paths.runtime / "include", paths.runtime / "src"])
    objects = [o for o in _runtime_objects(paths, list(BASE_FLAGS), digest, 2) if o.name != "host__c_api.o"]
    binary = work / "tiling"
    includes = [f"-I{RUNTIME / 'include'}", f"-I{RUNTIME / 'tests_device'}"]
    sources = [work / "tiling.cpp", RUNTIME / "tests_device" / "harness.cpp"]
    subprocess.run(
        ["g++", *BASE_FLAGS, "-O0", "-Werror", *includes, *map(str, [*sources, *objects]), "-o", str(binary), "-ldl"],
        check=True,
    )
    return binary


def _shape_text(shape: tuple[int, ...]) -> str:
    return "x".join(map(str, shape)) if shape else "-"


@pytest.mark.parametrize(
    ("cores", "block", "shapes"),
    [
        (2, 8, [(3, 5), (0, 4), (), (40,), (1, 1, 7)]),  # tests/test_list_split.py's hand-counted list
        (48, 8, [(3, 5), (0, 4), (), (40,), (1, 1, 7)]),  # more cores than blocks: a core per block
        (1, 16, [(7,)]),  # one tensor, one core
        (48, 16, [(64, 33)] * 3 + [(5,)] * 200 + [(), (0,)]),  # 205 tensors, straddling the cut
        (8, 8, [(0,), (0, 3)]),  # no element: no core
    ],
)
def test_fill_list_tiling(program: Path, cores: int, block: int, shapes: list[tuple[int, ...]]) -> None:
    """The table FillListTiling writes from a context of one DYNAMIC input: the tensor count, each tensor's
    element count (its shape's product, counted here) and the planner's shares."""
    line = f"{cores} {block} {' '.join(_shape_text(s) for s in shapes)}\n"
    out = subprocess.run([str(program)], input=line, capture_output=True, text=True, check=True).stdout.split()
    counts = [math.prod(s) for s in shapes]
    split = split_list(counts, block, cores)
    shares = [v for s in split.cores for v in (s.start_tensor, s.start_offset, s.end_tensor, s.end_offset)]
    assert out == [str(v) for v in [0, split.block_dim, len(shapes), *counts]] + ["|"] + [str(v) for v in shares]


def test_fill_list_tiling_refuses_more_than_256_tensors(program: Path) -> None:
    """ops-nn's foreach tiling holds at most 256 tensors: 257 is GRAPH_FAILED and no table."""
    out = subprocess.run([str(program)], input="48 8 " + "4 " * 257 + "\n", capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.split() == ["1", "0", "0", "|"]
