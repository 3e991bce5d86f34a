"""Hostile shapes through the generated C ABI: a view may hold up to INT64_MAX elements (aclCreateTensor
refuses only an element count beyond int64), so phase 1 and the generated tiling functions see such counts
without any data behind them. Each test fails on the code before its fix; the expected numbers are worked
out by hand from the manual's tiling rules (32-byte blocks spread over the cores, the first ``blocks %
cores`` taking one more; one core per started ``min_bytes_per_core`` bytes, at most every vector core).
Also here: catalogue values a new product may hold that generated code cannot (``npu_arch`` beyond uint32,
a ``doc_term`` with a line break), and the index tiling under UBSan (a sanitized build, preloaded runtimes).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from codegen.paths import project_paths
from codegen.runner import OpCallable
from codegen.spec.errors import SpecErrors
from codegen.spec.loader import load_specs
from codegen.specs import load_project

#: a file-level mark (tests/conftest.py orders whole files): its UBSan test builds the sanitized runtime and
#: EmbeddingDenseBackward's host code for two products
pytestmark = pytest.mark.heavy(60)

CATALOGUE, SPECS = load_project()
INT64_MAX = 2**63 - 1


@pytest.mark.parametrize(
    ("length", "dtype", "elem_bytes"),
    [
        (2**61, "FLOAT", 4),  # 2**63 bytes: one past INT64_MAX
        (2**62, "FLOAT", 4),  # 2**64 bytes: wrapped to 0 before the fix
        (INT64_MAX, "FLOAT16", 2),  # the largest count aclCreateTensor accepts
        (2**62 + 1, "FLOAT16", 2),
    ],
)
def test_elementwise_tiling_of_a_count_whose_bytes_pass_int64_uses_every_core(
    length: int, dtype: str, elem_bytes: int, built_op: Callable[[str, str], OpCallable]
) -> None:
    """The user saw blockDim 1 (an 8 EiB tensor on one core, and signed overflow, which UBSan reports at
    `totalLength * info.elemBytes` in the generated tiling) for an output of 2**61 FLOAT elements."""
    product = "Ascend910B"
    cores = CATALOGUE.get(product).vector_core_num
    assert cores == 48
    tensor = {"shape": [length], "dtype": dtype}
    got = built_op("SigmoidBackward", product).run_tiling(
        {"inputs": [tensor, tensor], "outputs": [tensor], "attrs": {}}
    )
    assert got["status"] == 0, got
    block_elems = 32 // elem_bytes
    blocks = -(-length // block_elems)
    assert got["block_dim"] == 48
    t = got["tiling"]
    assert t["totalLength"] == length
    assert t["formerNum"] == blocks % 48
    assert t["formerLength"] == (blocks // 48 + 1) * block_elems
    assert t["tailLength"] == (blocks // 48) * block_elems


_ROW_TILING = """
import json, sys
from codegen.runner import compile_op
shape, dim = json.loads(sys.argv[1])
tensor = {"shape": shape, "dtype": "FLOAT"}
got = compile_op("softmax", "Ascend910B").run_tiling(
    {"inputs": [tensor], "outputs": [tensor], "attrs": {"axes": [dim], "half_to_float": False}}
)
print(json.dumps(got))
"""


@pytest.mark.parametrize(
    ("shape", "dim", "mode", "rows"),
    [
        ([2**62], -1, 0, 1),  # one row of 2**62: chunks (the process died of SIGFPE before the fix)
        ([INT64_MAX], -1, 0, 1),
        ([3, 2**61], 1, 0, 3),
        ([2**62, 2], 0, 1, 1),  # R = 2**62 lines of 2 inner positions: one block, lines in chunks
    ],
)
def test_row_reduce_tiling_of_a_row_longer_than_int64_bytes_chunks_it(
    shape: list[int], dim: int, mode: int, rows: int
) -> None:
    """The user's `aclnnSoftmaxGetWorkspaceSize` on a zero-stride [2**62] FLOAT view killed the process with
    SIGFPE: `rs * (tileBytes + lineBytes)` wrapped, the row "fit" UB, and the rows per tile divided by 0."""
    proc = subprocess.run(
        [sys.executable, "-c", _ROW_TILING, json.dumps([shape, dim])], capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["status"] == 0, got
    t = got["tiling"]
    reduce_len = shape[dim]
    assert (t["mode"], t["reduceLen"], t["taskNum"]) == (mode, reduce_len, rows)
    assert got["block_dim"] == rows  # one row (or block) per core, never more cores than rows
    if mode == 0:  # a row is cut into chunks of a multiple of 64 elements that fit Ascend910B's 192 KiB UB
        assert 0 < t["chunkLen"] <= 196608 // 4 and t["chunkLen"] % 64 == 0
        assert t["chunkNum"] == -(-reduce_len // t["chunkLen"])
        assert t["tileRows"] == 1
    else:  # blocks of 16 inner positions, the R lines cut into chunks of tileRows lines
        assert t["blockWidth"] == 16
        assert 0 < t["tileRows"] * 16 * 4 <= 196608
        assert t["chunkNum"] == -(-reduce_len // t["tileRows"])


_NEW_PRODUCT = (
    "  - name: AscendX\n    doc_term: {doc_term}\n    config_name: ascendx\n    soc_version: ASCENDX\n"
    "    npu_arch: {npu_arch}\n    ub_bytes: 196608\n    vector_core_num: 48\n    bf16: true\n"
    "    data_copy_pad: true\n    atomic_add_dtypes: [FLOAT]\n    queue_buffer_cap: 8\n    hw_sync_all: true\n"
    "    sys_workspace_bytes: 16777216\n    source: test\n"
)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        # NpuArch is `enum class NpuArch : uint32_t` (CANN platform/soc_spec.h); the generated L2 API and
        # tilings switch on it, and `case 99999999999:` does not compile (narrowing to unsigned int).
        ("npu_arch", "99999999999", "99999999999 is out of range; allowed: 1..4294967295"),
        ("npu_arch", "4294967296", "4294967296 is out of range; allowed: 1..4294967295"),
        # the API document's support table has one product per row: a line break split the row in two
        ("doc_term", '"Atlas\\nX"', "must be one line of printable text (got a line break or control character)"),
        ("doc_term", '"Atlas\\tX"', "must be one line of printable text (got a line break or control character)"),
    ],
)
def test_a_catalogue_value_generated_code_cannot_hold_is_a_spec_error(
    field: str, value: str, message: str, tmp_path: Path
) -> None:
    """`opgen generate` accepted them and wrote a tree whose build failed (npu_arch) or whose document's
    table broke (doc_term)."""
    src = project_paths().specs
    values = {"doc_term": "test", "npu_arch": "4000", field: value}
    (tmp_path / "products.yaml").write_text((src / "products.yaml").read_text() + _NEW_PRODUCT.format(**values))
    shutil.copy(src / "sigmoid_backward.yaml", tmp_path)
    with pytest.raises(SpecErrors) as info:
        load_specs(tmp_path)
    assert [(e.field, e.message) for e in info.value.errors] == [(f"products[5].{field}", message)]
    line = (tmp_path / "products.yaml").read_text().splitlines().index(f"    {field}: {value}") + 1
    assert [e.loc.line for e in info.value.errors] == [line]


def test_a_catalogue_npu_arch_at_the_uint32_limit_is_accepted(tmp_path: Path) -> None:
    src = project_paths().specs
    new = _NEW_PRODUCT.format(doc_term="test", npu_arch=2**32 - 1)
    (tmp_path / "products.yaml").write_text((src / "products.yaml").read_text() + new)
    shutil.copy(src / "sigmoid_backward.yaml", tmp_path)
    catalogue, _ = load_specs(tmp_path)
    assert catalogue.get("AscendX").npu_arch == 4294967295


def _zero_stride_tensor(op: OpCallable, shape: list[int], keep: list[object], acl_dtype: int = 0) -> object:
    """An aclTensor of `shape` (aclDataType ``acl_dtype``, FLOAT by default; every stride 0) over a one-element
    storage of 8 bytes, as a C caller may pass."""
    import ctypes

    import numpy as np

    from codegen.runner.acl_objects import TensorArg

    data = np.zeros(1, np.int64)
    n = len(shape)
    dims = (ctypes.c_int64 * max(1, n))(*shape)
    strides = (ctypes.c_int64 * max(1, n))(*([0] * n))
    storage = (ctypes.c_int64 * 1)(1)
    handle = op.lib.aclCreateTensor(dims, n, acl_dtype, strides, 0, 2, storage, 1, ctypes.c_void_p(data.ctypes.data))
    assert handle
    keep += [data, dims, strides, storage]
    return TensorArg(ctypes.c_void_p(handle), ())


@pytest.mark.parametrize("reduction", [1, 2])
def test_a_reduction_over_a_broadcast_shape_beyond_int64_elements_is_161002(
    reduction: int, built_op: Callable[[str, str], OpCallable]
) -> None:
    """aclnnMseLossGetWorkspaceSize(self [2**32, 1], target [1, 2**32], reduction sum, out 0-d) returned 0: the
    broadcast shape [2**32, 2**32] has 2**64 elements (its GetShapeSize() overflows), and no output tensor of
    that shape has to exist for a mean or sum. (The Python API refuses such a call before phase 1.)"""
    op = built_op("MseLoss", "Ascend910B")
    keep: list[object] = []
    tensors = {
        "self": _zero_stride_tensor(op, [2**32, 1], keep),
        "target": _zero_stride_tensor(op, [1, 2**32], keep),
        "out": _zero_stride_tensor(op, [], keep),
    }
    try:
        status, _, _ = op.phase1(tensors, {"reduction": reduction})  # type: ignore[arg-type]
        assert (status, op.recent_error()) == (
            161002,
            "self, target broadcast to [4294967296, 4294967296], whose element count overflows int64.",
        )
    finally:
        op._destroy(list(tensors.values()))  # type: ignore[arg-type]


_EDB_TILING_UBSAN = """
import json, sys
from codegen.build import build_op
from codegen.runner import OpCallable
from codegen.specs import load_project
catalogue, specs = load_project()
# the tiling only: the host units under the sanitizers (the quick sanitized lane compiles them the same way),
# no kernel
spec = specs["embedding_dense_backward"]
op = OpCallable(build_op(spec, catalogue.get(sys.argv[1]), sanitize=True, host_only=True))
out = []
for n, d, num_weights in json.loads(sys.argv[2]):
    for det in (0, 1):
        for index_dtype in ("INT64", "INT32"):
            request = {
                "inputs": [{"shape": [n, d], "dtype": "FLOAT"}, {"shape": [n], "dtype": index_dtype}],
                "outputs": [{"shape": [num_weights, d], "dtype": "FLOAT"}],
                "attrs": {"numWeights": num_weights, "paddingIdx": 2**63 - 1, "scaleGradByFreq": False},
                "deterministic": det,
            }
            out.append(op.run_tiling(request)["status"])
print(json.dumps(out))
"""

#: (product, [[n, D, numWeights], ...], phase-1 status of each case in both determinism modes, tiling status)
_EDB_HUGE_CASES = [
    # 2**63 - 1 output rows: CeilDiv(numRows, COUNTS_PER_LINE) * COUNTS_PER_LINE overflowed (2**60 * 8); their
    # fp32 accumulator or counts cannot be placed in int64 bytes, so the tiling fails (GRAPH_FAILED: the
    # runtime's 561002, which the L2 API reports as 561103)
    ("Ascend910B", [[3, 1, 2**63 - 1], [3, 1, 2**63 - 8]], 561103, 561002),
    # one grad row of D = 2**62: the sorted-run check `rowLength * rowsBytes` overflowed (2**62 * 4) on a
    # product without DataCopyPad; the other strategy takes it (phase 1 succeeds with the system workspace)
    ("Ascend910", [[1, 2**62, 1]], 0, 0),
]


@pytest.mark.parametrize(("product", "cases", "phase1", "tiling"), _EDB_HUGE_CASES)
def test_index_tiling_of_huge_rows_has_no_signed_overflow(
    product: str, cases: list[list[int]], phase1: int, tiling: int
) -> None:
    """UBSan reports in the generated index tiling (zero-stride views of int64-sized shapes). No -O2 build
    shows them (the results did not change), so the tiling runs in a library built with the sanitizers and
    run with them preloaded; no kernel is built for it."""
    from codegen.check.sanitize import _runtime

    env = {
        **os.environ,
        "LD_PRELOAD": " ".join(p for p in (_runtime("libasan.so"), _runtime("libubsan.so")) if os.path.isabs(p)),
        "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1",
        "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
    }
    proc = subprocess.run(
        [sys.executable, "-c", _EDB_TILING_UBSAN, product, json.dumps(cases)],
        capture_output=True,
        text=True,
        timeout=1800,
        env=env,
        check=False,
    )
    assert proc.returncode == 0 and "runtime error" not in proc.stderr, proc.stderr[-3000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == [tiling] * (4 * len(cases))


@pytest.mark.parametrize(("product", "cases", "phase1", "tiling"), _EDB_HUGE_CASES)
def test_phase_1_of_huge_index_rows_answers_the_tiling(
    product: str,
    cases: list[list[int]],
    phase1: int,
    tiling: int,
    built_op: Callable[[str, str], OpCallable],
) -> None:
    """The same calls through aclnnEmbeddingDenseBackwardGetWorkspaceSize (the C ABI, zero-stride views):
    a tiling failure is the L2 API's 561103; the case the other strategy takes succeeds."""
    op = built_op("EmbeddingDenseBackward", product)
    keep: list[object] = []
    statuses = []
    for n, d, num_weights in cases:
        for det in (False, True):
            op.set_run_options(det, "in_order", 0)
            tensors = {
                "grad": _zero_stride_tensor(op, [n, d], keep),
                "indices": _zero_stride_tensor(op, [n], keep, acl_dtype=9),  # INT64
                "out": _zero_stride_tensor(op, [num_weights, d], keep),
            }
            attrs = {"numWeights": num_weights, "paddingIdx": 2**64 - 1, "scaleGradByFreq": False}
            try:
                status, _, _ = op.phase1(tensors, attrs)
            finally:
                op._destroy(list(tensors.values()))  # type: ignore[arg-type]
            statuses.append(status)
    assert statuses == [phase1] * (2 * len(cases))
