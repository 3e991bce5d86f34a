"""``opgen check --coverage``: one op, one product, the quick matrix (every dtype), on a copy of the op's
generated folder whose kernel has a planted branch no call takes (a core index past the core count). The
report counts the kernel's lines, lists the planted line with its text as unreached and the planted ``if``
among the lines with an untaken branch, and names only files of the op's folder. The instrumentation, the
per-job counts and the report do not depend on the family (every family's units build and run through the
same build and worker code), so one elementwise op stands for all of them. It also holds the floor of the
quick matrix: every other line of the kernel is reached and every branch it states but one guard, the L2's
empty-output return too, the TilingParse callback and the NpuArch switch's outcomes are allowlisted rather
than unreached, and the branches of the tiling data macros are left out as statements without a condition."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codegen.check.coverage import allowed_lines
from codegen.check.driver import cases_for
from codegen.paths import project_paths
from codegen.spec.generated_names import op_files
from codegen.specs import load_project

pytestmark = pytest.mark.heavy(60)

CATALOGUE, SPECS = load_project()

#: The planted branch: no core's index exceeds the launch's core count, so its body never runs.
ANCHOR = "GET_TILING_DATA(tilingData, tiling);"
PLANTED_IF = "if (AscendC::GetBlockIdx() > AscendC::GetBlockNum()) {"
PLANTED_BODY = "AscendC::PipeBarrier<PIPE_ALL>();"


@pytest.mark.parametrize("op", ["sigmoid_backward"])
def test_coverage_reports_kernel_lines_and_a_planted_unreached_branch(tmp_path: Path, op: str) -> None:
    spec = SPECS[op]
    root = tmp_path / "gen"
    shutil.copytree(project_paths().generated / spec.folder, root / spec.folder)
    kernel_rel = op_files(spec)["kernel_cpp"]
    kernel = root / spec.folder / kernel_rel
    text = kernel.read_text()
    assert text.count(ANCHOR) == 1
    kernel.write_text(text.replace(ANCHOR, f"{ANCHOR}\n  {PLANTED_IF}\n    {PLANTED_BODY}\n  }}"))
    lines = kernel.read_text().splitlines()
    if_line = next(i for i, t in enumerate(lines, 1) if t.strip() == PLANTED_IF)
    anchor_line = if_line - 1
    report = tmp_path / "coverage.json"
    cmd = [sys.executable, "-m", "codegen", "check", op, "--generated", str(root), "--quick"]
    cmd += ["--product", "Ascend910B", "-j", "1", "--coverage", "--coverage-json", str(report)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1200, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    data = json.loads(report.read_text())
    assert list(data) == [f"{op}/Ascend910B"]
    files = data[f"{op}/Ascend910B"]["files"]
    assert set(files) <= {str(rel) for rel in op_files(spec).values()}, files.keys()
    k = files[kernel_rel]
    assert 0 < k["lines"]["reached"] < k["lines"]["total"]
    # the quick matrix reaches every other line of the kernel (the floor this test holds)
    assert k["unreached_lines"] == [[if_line + 1, PLANTED_BODY]]
    assert if_line in k["unreached_branch_lines"]
    assert anchor_line not in [n for n, _ in k["unreached_lines"]]
    # the L2's empty-output return is reached (the quick empty case)
    l2_rel = op_files(spec)["op_api_cpp"]
    l2_text = (root / spec.folder / l2_rel).read_text().splitlines()
    empty_return = next(i for i, t in enumerate(l2_text, 1) if t.strip() == "*workspaceSize = 0;")
    assert empty_return not in [n for n, _ in files[l2_rel]["unreached_lines"]]
    # the TilingParse callback is allowlisted, not counted as unreached
    tiling = files[op_files(spec)["tiling_cpp"]]
    assert "tiling-parse" in {kind for _, kind in tiling["allowed"]}
    assert not any("TilingParseFor" in t for _, t in tiling["unreached_lines"])
    # the terminal table has a row for the kernel with its counts
    row = next(t for t in proc.stdout.splitlines() if kernel_rel in t)
    assert f"{k['lines']['reached']}/{k['lines']['total']}" in row
    # the kernel's branches: all taken but the planted one's and those of the one-element inputs' guard of an
    # empty core (no core is empty outside a reduction epilogue): the floor of the quick matrix
    guards = {i for i, t in enumerate(lines, 1) if t.strip() == "if (coreLength_ > 0) {"}
    assert guards and set(k["unreached_branch_lines"]) <= {if_line} | guards, k["unreached_branch_lines"]
    # the tiling data header is TILING_DATA_FIELD_DEF lines: their branches are the emulated metadef macro's
    # own code, left out as statements without a condition (when counted, 6 of its 21 were never taken)
    header = files[op_files(spec)["tiling_h"]]
    assert header["branches"]["total"] == 0 and header["lines"]["reached"] == header["lines"]["total"] > 0
    assert {kind for _, kind in header["allowed"]} == {"no-decision"}
    # the switch over the NpuArch in the tiling: its outcomes are left out, its line counts
    tiling_text = (root / spec.folder / op_files(spec)["tiling_cpp"]).read_text().splitlines()
    switch = next(i for i, t in enumerate(tiling_text, 1) if t.strip() == "switch (npuArch) {")
    assert [switch, "npu-arch-switch"] in tiling["allowed"]
    assert switch not in tiling["unreached_branch_lines"]
    # under the table, one line per kind left out, with its count
    kinds = {t.split(":")[0].strip() for t in proc.stdout.splitlines() if t.startswith("  ") and "line(s)" in t}
    assert {"no-decision", "npu-arch-switch", "tiling-parse", "null-result-check"} <= kinds, proc.stdout[-3000:]


ALLOW_TEXT = """\
int64_t Cap(uint32_t npuArch) {
  switch (npuArch) {
    case 1001:
    case 2002:
      return 4;
    case 2201:
      return 8;
    default:
      return 0;
  }
}
int64_t Index(int64_t key) {
  switch (key) {
    case 0:
      return 1;
    default:
      return -1;
  }
}
static ge::graphStatus TilingParseForAbs([[maybe_unused]] gert::TilingParseContext *context) {
  return ge::GRAPH_SUCCESS;
}
void F() {
  CHECK_RET(selfCasted != nullptr, ACLNN_ERR_INNER_NULLPTR);
  CHECK_RET(ret == ACLNN_SUCCESS, ret);
}
static ge::graphStatus TilingFunc(gert::TilingContext *context) {
  const gert::StorageShape *s = context->GetOutputShape(0);
  if (s == nullptr ||
      s->GetStorageShape().GetDimNum() == 0) {
    return ge::GRAPH_FAILED;
  }
  if (s->GetStorageShape().GetShapeSize() > 4) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "more than 4? %s", "no");  // a || b
    return ge::GRAPH_FAILED;
  }
  const int64_t n = s->GetStorageShape().GetShapeSize() > 2 ? 2
                                                             : 1;
  return ge::GRAPH_SUCCESS;
}
const aclTensor *Abs(const aclTensor *x, aclOpExecutor *executor) {
  auto ret = ADD_TO_LAUNCHER_LIST_AICORE(Abs, OP_INPUT(x),
                                         OP_OUTPUT(x));
  CHECK_RET(ret == ACLNN_SUCCESS, nullptr);
  return x;
}
"""


def test_allowlist_finds_device_only_constructs_and_statements_without_a_decision() -> None:
    # the NpuArch switch's own outcomes (2), the default of that switch and its body (8-9), not the other
    # switch's (16-17); the TilingParse function (20-22); the null-pointer CHECK_RET (24), not the status one
    # (25); the guard whose only statement returns GRAPH_FAILED, its condition over two lines (29-32), not the
    # guard that also logs (33); the status check of the launch (44)
    common = {
        2: "npu-arch-switch",
        8: "npu-arch-default",
        9: "npu-arch-default",
        20: "tiling-parse",
        21: "tiling-parse",
        22: "tiling-parse",
        24: "null-result-check",
        29: "graph-failed-guard",
        30: "graph-failed-guard",
        31: "graph-failed-guard",
        32: "graph-failed-guard",
        44: "launch-status-check",
    }
    # statements with no condition of their own: function heads, returns, closing braces, a log call whose
    # string and comment hold a '?' and a '||'; not the switch, case and if lines, the CHECK_RETs, nor both
    # lines of the statement with a conditional expression (37-38)
    plain = {1, 5, 7, 10, 11, 12, 15, 17, 18, 19, 23, 26, 27, 28, 34, 35, 36, 39, 40, 41, 42, 43, 45, 46}
    text = ALLOW_TEXT.splitlines()
    found = allowed_lines(text)
    assert {n: k for n, k in found.items() if k != "no-decision"} == common
    assert {n for n, k in found.items() if k == "no-decision"} == plain
    # on a product of NpuArch 2201 the group of 1001 and 2002 is another product's; on 1001, the 2201 group
    other = "other-npu-arch-case"
    assert allowed_lines(text, 2201) == {**found, 3: other, 4: other, 5: other}
    assert allowed_lines(text, 1001) == {**found, 6: other, 7: other}


@pytest.mark.parametrize("product", ["Ascend910B", "Ascend910"])
def test_quick_index_matrix_launches_every_key_of_both_plain_strategies(product: str) -> None:
    """An index_accumulate kernel has a tiling key per rows dtype, index dtype and strategy: the quick matrix
    has a value case of every (rows dtype, index dtype) pair the product supports in the atomic and in the
    deterministic strategy (before, its quick cases left 24 of those 54 keys of Ascend910B unlaunched). The
    pairs come from the spec's tensor dtype lists; on a product with bf16 and one without."""
    catalogue_product = CATALOGUE.get(product)
    for spec in [s for s in SPECS.values() if s.family == "index_accumulate" and product in s.products]:
        rows, index = spec.compute.rows, spec.compute.index
        want = {
            (f"{g.name}/{i.name}", det)
            for g in spec.tensor(rows).dtypes
            for i in spec.tensor(index).dtypes
            if catalogue_product.supports(g) and catalogue_product.supports(i)
            for det in (False, True)
        }
        cases = cases_for(spec, catalogue_product, None, True)
        have = {(c.dtype, c.deterministic) for c in cases if c.expect_status is None}
        assert want and want <= have, sorted(want - have)
