"""The row_reduce family (softmax-type ops): GM traffic from the emulator's counters, the planner's passes,
and mutants of the generated softmax killed by ``opgen check``.

Traffic definitions: ``gm_bytes_read`` of a core in the emulator's counters is every byte a DMA or scalar read
takes from GM, the tiling struct (``tiling_data_size`` bytes, read once by every core) included; the input
of Softmax is ``self`` alone, so a kernel that reads each input once
reads exactly ``self.nbytes``. A row "fits UB" when its length is at most the planner's fit limit
(:func:`codegen.families.row_reduce.cases.tiling_probes.fit_limit`); above it the row is cut into chunks.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from generated_mutant import kernel_mutant_results

from codegen.families.row_reduce.cases.tiling_probes import fit_limit
from codegen.families.row_reduce.plan.program import program
from codegen.families.row_reduce.plan.tiling import tiling_decision
from codegen.paths import project_paths
from codegen.runner import OpCallable
from codegen.spec.generated_names import op_files
from codegen.spec.model import DType
from codegen.specs import load_project

pytestmark = pytest.mark.heavy(60)  # about 60 s alone: scheduled before lighter files

CATALOGUE, SPECS = load_project()
PRODUCT = "Ascend910B"


def _read_bytes(fn: OpCallable) -> int:
    """GM bytes the launch's cores read besides the tiling struct (each core reads it once)."""
    launches = fn.last_stats["launches"]
    assert len(launches) == 1
    launch = launches[0]
    return sum(int(c["gm_bytes_read"]) - int(launch["tiling_data_size"]) for c in launch["cores"])


def _softmax64(x: np.ndarray, dim: int) -> np.ndarray:
    v = x.astype(np.float64)
    e = np.exp(v - v.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


@pytest.mark.parametrize(("shape", "dim"), [((16, 100), -1), ((4, 33, 5), 1), ((40, 1), 1)])
def test_rows_that_fit_ub_read_the_input_once(
    built_op: Callable[[str, str], OpCallable], shape: tuple[int, ...], dim: int
) -> None:
    fn = built_op("softmax", PRODUCT)
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    got = fn(self=x, dim=dim)
    np.testing.assert_allclose(got, _softmax64(x, dim), rtol=1e-5, atol=1e-7)
    assert _read_bytes(fn) == x.nbytes


def test_a_multi_chunk_row_reads_the_input_twice(built_op: Callable[[str, str], OpCallable]) -> None:
    """One reduction pass (max and sum with the online combine) and the output pass: exactly two reads."""
    spec = SPECS["softmax"]
    fit = fit_limit(spec, CATALOGUE.get(PRODUCT), DType.FLOAT)
    shape = (2, 3 * fit + 77)
    assert tiling_decision(spec, CATALOGUE.get(PRODUCT), shape, -1, DType.FLOAT).chunk_num >= 4
    fn = built_op("softmax", PRODUCT)
    x = (np.random.default_rng(2).standard_normal(shape) * 30).astype(np.float32)
    got = fn(self=x, dim=-1)
    np.testing.assert_allclose(got, _softmax64(x, -1), rtol=1e-4, atol=1e-12)
    assert _read_bytes(fn) == 2 * x.nbytes


def test_the_row_at_the_fit_limit_is_whole_and_one_more_element_is_chunked() -> None:
    spec = SPECS["softmax"]
    p = CATALOGUE.get(PRODUCT)
    fit = fit_limit(spec, p, DType.FLOAT)
    assert tiling_decision(spec, p, (2, fit), -1, DType.FLOAT).chunk_num == 1
    assert tiling_decision(spec, p, (2, fit + 1), -1, DType.FLOAT).chunk_num == 2


def test_softmax_max_and_sum_share_one_pass_and_backward_needs_one() -> None:
    soft = program(SPECS["softmax"])
    assert soft.pass_num == 1 and [r.kind for r in soft.reductions] == ["max", "sum"]
    assert soft.reductions[1].online == 0  # the sum rescales with the running max
    back = program(SPECS["softmax_backward"])
    assert back.pass_num == 1 and back.reductions[0].online == -1


# --------------------------------------------------------------------------------------------- mutants

_KERNEL = op_files(SPECS["softmax"])["kernel_cpp"]
_TILING = op_files(SPECS["softmax"])["tiling_cpp"]
_API = op_files(SPECS["softmax"])["op_api_cpp"]
_COMBINE_HEAD = """\
  __aicore__ inline void Combine(int32_t k, bool first, int32_t n, float seen, float count) {
    const bool rescaled = Online(k, false);
"""
_CHUNK_N = "const int32_t n = static_cast<int32_t>((r_ - start < chunkLen_) ? (r_ - start) : chunkLen_);"

#: What follows the chunk length in the reduction pass only (the output pass's is indented less).
_PASS_LOAD = "\n        Load(base + start, 0, 1, n);\n        Lines("

#: (id, file, edits (anchor, replacement; each anchor occurs exactly once), text a failed case must show).
MUTANTS = [
    (
        "chunk-boundary-off-by-one",  # the reduction pass drops the last element of every full chunk
        _KERNEL,
        (
            (
                _CHUNK_N + _PASS_LOAD,
                _CHUNK_N.replace(": chunkLen_);", ": chunkLen_ - 1);") + _PASS_LOAD,
            ),
        ),
        "chunked",
    ),
    (
        "max-not-subtracted",  # exp(self) / sum(exp(self)): overflows on a large dynamic range
        _KERNEL,
        (
            ("Adds(tmp[0], ins[0], -(sc[0]), n);", "Adds(tmp[0], ins[0], 0.0f, n);"),
            ("Adds(tmp[1], ins[0], -(sc[0]), n);", "Adds(tmp[1], ins[0], 0.0f, n);"),
        ),
        "large dynamic range",
    ),
    (
        "chunk-four-repeats-over-ub",
        _TILING,
        (
            (
                "chunkLen = (wholeBudget - LINE_ALIGN * rowBytes) / (tileBytes + chunkLineBytes) / CHUNK_ALIGN * "
                "CHUNK_ALIGN;",
                "chunkLen = (wholeBudget - LINE_ALIGN * rowBytes) / (tileBytes + chunkLineBytes) / CHUNK_ALIGN * "
                "CHUNK_ALIGN + 4 * CHUNK_ALIGN;",
            ),
        ),
        "UB capacity",
    ),
    (
        # the line-chunked combine of a non-last dim skips the -FLT_MAX guard of the online max: a chunk of
        # only -inf gives exp(-inf - -inf) = NaN for its line (a mutant a review helper's hunt left alive)
        "line-chunk-combine-without-the-lowest-max-guard",
        _KERNEL,
        (
            (
                _COMBINE_HEAD,
                _COMBINE_HEAD.replace("float count) {", "float count, bool guard = true) {").replace(
                    "Online(k, false);", "Online(k, false) && guard;"
                ),
            ),
            (
                "          Combine(k, c == 0, n, static_cast<float>(first), static_cast<float>(first + lines));",
                "          Combine(k, c == 0, n, static_cast<float>(first), static_cast<float>(first + lines), false);",
            ),
        ),
        "-inf line chunks",
    ),
    (
        # the op_api hands a strided view to the kernel uncopied (the emulator refuses it: the kernel would
        # read the storage as contiguous on the device)
        "input-not-made-contiguous",
        _API,
        (("l0op::SoftmaxV2(selfContiguous, dim,", "l0op::SoftmaxV2(self, dim,"),),
        "non-contiguous",
    ),
]


@pytest.mark.parametrize(("ident", "path", "edits", "expect"), MUTANTS)
def test_mutant_of_the_generated_softmax_is_killed_by_opgen_check(
    tmp_path: Path, ident: str, path: str, edits: tuple[tuple[str, str], ...], expect: str
) -> None:
    root = tmp_path / ident
    folder = SPECS["softmax"].folder
    shutil.copytree(project_paths().generated / folder, root / folder)
    target = root / folder / path
    text = target.read_text()
    for anchor, replacement in edits:
        assert text.count(anchor) == 1, f"an anchor of {ident} occurs {text.count(anchor)} times"
        text = text.replace(anchor, replacement)
    target.write_text(text)
    if path == _KERNEL:  # the same check, the kernel at -O0 for the launched keys (tests/generated_mutant.py)
        results = kernel_mutant_results(root, "softmax", "FLOAT", PRODUCT)
        failed = [c for c in results if not c["passed"]]
        assert failed, f"{ident} SURVIVED"
        names = " ".join(c["name"] + " " + c["message"] for c in failed)
        assert expect in names, names[:2000]
        return
    report = tmp_path / "check.json"
    cmd = [sys.executable, "-m", "codegen", "check", "softmax", "--generated", str(root), "--quick"]
    cmd += ["--product", PRODUCT, "--dtype", "FLOAT", "-j", "1", "--json", str(report)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1200, check=False)
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    failed = [c for c in json.loads(report.read_text())["cases"] if not c["passed"]]
    assert failed
    names = " ".join(c["name"] + " " + c["message"] for c in failed)
    assert expect in names, names[:2000]


# ------------------------------------------------------------------------------------- compute errors

_SOFTMAX_SPEC = (project_paths().specs / "softmax.yaml").read_text()
_STEPS = """    - m: max(self)
    - s: sum(exp(self - m))
    - out: exp(self - m) / s
"""


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ("    - m: max(self)\n    - out: sum(self - m)\n", "output 'out' must be an elementwise step"),
        ("    - m: max(self)\n    - out: self - q\n", "'q' is not an input, an earlier step or a float attr"),
        ("    - m: max(self)\n    - out: exp(max(self) - m)\n", "max() may only be the whole formula of a step"),
        ("    - m: max(self)\n    - out: tanh(self - m)\n", "unknown function tanh()"),
        ("    - out: exp(self)\n", "the steps have no reduction"),
        ("    - m: max(self)\n    - s: sum(self)\n", "output 'out' has no step"),
        ("    - m: max(self)\n    - m: sum(self)\n    - out: self - m\n", "step name 'm' is already used"),
    ],
)
def test_a_bad_compute_section_names_the_line_and_writes_nothing(tmp_path: Path, steps: str, message: str) -> None:
    from codegen.spec.errors import SpecErrors
    from codegen.spec.loader import load_op_spec

    assert _STEPS in _SOFTMAX_SPEC
    path = tmp_path / "softmax.yaml"
    path.write_text(_SOFTMAX_SPEC.replace(_STEPS, steps))
    with pytest.raises(SpecErrors) as err:
        load_op_spec(path, CATALOGUE)
    text = str(err.value)
    assert message in text, text
    assert "softmax.yaml:" in text
    assert list(tmp_path.iterdir()) == [path]


# ------------------------------------------------------------------------------- the ListInt device attr

#: The device attr line of specs/softmax.yaml that carries the aclnn dim as SoftmaxV2's ListInt axes.
_AXES = "    - {name: axes, from: dim, type: list_int, default: [-1]}\n"


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            "    - {name: axes, from: dim, type: list_int, default: -1}\n",
            "default must be a list of integers for a list_int attr (e.g. [-1]), got -1",
        ),
        (
            "    - {name: axes, from: dim, type: list_int, default: [-1, 1.5]}\n",
            "each element of a list_int default must be an int64 integer, got 1.5",
        ),
        (
            "    - {name: axes, from: dim, type: list_int, default: [true]}\n",
            "each element of a list_int default must be an int64 integer, got True",
        ),
        (
            "    - {name: axes, from: dim, type: list_int, default: [9223372036854775808]}\n",
            "each element of a list_int default must be an int64 integer, got 9223372036854775808",
        ),
        (
            "    - {name: axes, value: [-1], type: list_int, default: [-1]}\n",
            "a constant list_int device attr is not supported; carry an aclnn attr with 'from'",
        ),
        (
            "    - {name: axes, from: dim, type: list_ints, default: [-1]}\n",
            "unknown device attr type 'list_ints'; allowed: int, bool, float, string, list_int",
        ),
    ],
)
def test_a_bad_list_int_device_attr_names_the_line_and_writes_nothing(tmp_path: Path, entry: str, message: str) -> None:
    from codegen.spec.errors import SpecErrors
    from codegen.spec.loader import load_op_spec

    assert _SOFTMAX_SPEC.count(_AXES) == 1
    line = _SOFTMAX_SPEC[: _SOFTMAX_SPEC.index(_AXES)].count("\n") + 1
    path = tmp_path / "softmax.yaml"
    path.write_text(_SOFTMAX_SPEC.replace(_AXES, entry))
    with pytest.raises(SpecErrors) as err:
        load_op_spec(path, CATALOGUE)
    text = str(err.value)
    assert message in text, text
    assert f"softmax.yaml:{line}:" in text, text
    assert list(tmp_path.iterdir()) == [path]


def test_a_list_int_attr_cannot_carry_a_non_integer_aclnn_attr(tmp_path: Path) -> None:
    from codegen.spec.errors import SpecErrors
    from codegen.spec.loader import load_op_spec

    text = _SOFTMAX_SPEC.replace("    type: int64\n", "    type: bool\n", 1)
    path = tmp_path / "softmax.yaml"
    path.write_text(text)
    with pytest.raises(SpecErrors) as err:
        load_op_spec(path, CATALOGUE)
    assert "a list_int device attr cannot carry aclnn attr 'dim' (bool)" in str(err.value)


def test_an_int_device_attr_that_cannot_carry_its_attr_is_named_with_its_article(tmp_path: Path) -> None:
    """Found by a review helper: the message said 'a int device attr'."""
    from codegen.spec.errors import SpecErrors
    from codegen.spec.loader import load_op_spec

    text = _SOFTMAX_SPEC.replace("    type: int64\n", "    type: bool\n", 1).replace(
        _AXES, "    - {name: axes, from: dim, type: int}\n"
    )
    path = tmp_path / "softmax.yaml"
    path.write_text(text)
    with pytest.raises(SpecErrors) as err:
        load_op_spec(path, CATALOGUE)
    assert "device.attrs[0].type: an int device attr cannot carry aclnn attr 'dim' (bool);" in str(err.value)


#: The OpDef attrs of the four OpTypes as hicann/ops-nn registers them (op_host/*_def.cpp, see the specs' notes).
_REGISTERED_ATTRS = {
    "softmax": [
        {"name": "axes", "attr_type": "OPTIONAL", "type": "list_int", "default": [-1]},
        {"name": "half_to_float", "attr_type": "OPTIONAL", "type": "bool", "default": False},
    ],
    "log_softmax": [{"name": "axes", "attr_type": "OPTIONAL", "type": "list_int", "default": [-1]}],
    "softmax_backward": [{"name": "axes", "attr_type": "OPTIONAL", "type": "list_int", "default": [-1]}],
    "log_softmax_backward": [{"name": "axis", "attr_type": "OPTIONAL", "type": "list_int", "default": [-1]}],
}


@pytest.mark.parametrize("op", sorted(_REGISTERED_ATTRS))
def test_opdef_read_back_registers_the_list_int_attr_and_its_default(
    op: str, built_op: Callable[[str, str], OpCallable]
) -> None:
    opdef = built_op(op, PRODUCT).opdef()
    assert opdef["attrs"] == _REGISTERED_ATTRS[op]
    text = (project_paths().generated / SPECS[op].folder / op_files(SPECS[op])["def_cpp"]).read_text()
    name = _REGISTERED_ATTRS[op][0]["name"]
    assert f'this->Attr("{name}").AttrType(OPTIONAL).ListInt({{-1}});' in text


@pytest.mark.parametrize(
    ("axes", "outer", "reduce_len", "inner"),
    [
        ([1], 4, 33, 5),
        ([-2], 4, 33, 5),
        ([2], 132, 5, 1),
        ([-1], 132, 5, 1),
        ([0], 1, 4, 165),
        ([-3], 1, 4, 165),
    ],
)
def test_the_tiling_reads_the_reduced_dim_from_the_list_int_attr(
    built_op: Callable[[str, str], OpCallable], axes: list[int], outer: int, reduce_len: int, inner: int
) -> None:
    tensor = {"shape": [4, 33, 5], "dtype": "FLOAT"}
    got = built_op("softmax", PRODUCT).run_tiling(
        {"inputs": [tensor], "outputs": [tensor], "attrs": {"axes": axes, "half_to_float": False}}
    )
    assert got["status"] == 0, got
    t = got["tiling"]
    assert (t["outerNum"], t["reduceLen"], t["innerNum"]) == (outer, reduce_len, inner)
    assert t["mode"] == (0 if inner == 1 else 1)


@pytest.mark.parametrize("axes", [[], [0, 1], [3], [-4]])
def test_the_tiling_fails_on_a_list_int_attr_it_cannot_reduce(
    built_op: Callable[[str, str], OpCallable], axes: list[int]
) -> None:
    """One axis in [-rank, rank): an empty list, two axes or an axis out of range fail the tiling."""
    tensor = {"shape": [4, 33, 5], "dtype": "FLOAT"}
    got = built_op("softmax", PRODUCT).run_tiling(
        {"inputs": [tensor], "outputs": [tensor], "attrs": {"axes": axes, "half_to_float": False}}
    )
    assert got["status"] != 0, got


@pytest.mark.parametrize("dim", [-3, -2, -1, 0, 1, 2])
def test_the_aclnn_dim_reaches_the_kernel_through_the_list_int_attr(
    built_op: Callable[[str, str], OpCallable], dim: int
) -> None:
    """aclnnLogSoftmaxBackward(dim) -> l0op::LogSoftmaxGrad -> axis {dim} -> the tiling: the result is the
    gradient along ``dim`` (negative dims included), computed here in float64 from its formula."""
    rng = np.random.default_rng(7)
    shape = (3, 4, 6)
    grad = rng.standard_normal(shape).astype(np.float32)
    logits = rng.standard_normal(shape)
    out = (logits - np.log(np.exp(logits).sum(axis=dim, keepdims=True))).astype(np.float32)
    g, y = grad.astype(np.float64), out.astype(np.float64)
    want = g - np.exp(y) * g.sum(axis=dim, keepdims=True)
    got = built_op("log_softmax_backward", PRODUCT)(gradOutput=grad, output=out, dim=dim)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_a_null_only_input_is_161001_not_a_python_error(built_op: Callable[[str, str], OpCallable]) -> None:
    """A one-input row op called with ``None`` and no ``out``: the output allocation does not need an input
    array, and phase 1 answers the null tensor."""
    from codegen.runner import AclnnError

    softmax = built_op("softmax", "Ascend910B")
    with pytest.raises(AclnnError) as info:
        softmax(self=None, dim=-1)
    assert info.value.status == 161001


def test_dim_form_dtype_combos_each_get_value_cases_of_their_own_dtypes(tmp_path: Path) -> None:
    """A dim-form row op whose spec lists a combination with a second input in FLOAT (gradOutput FLOAT16,
    output FLOAT): its value cases pass that input as FLOAT and the output as FLOAT16, the table tells the two
    FLOAT16 combinations apart, and no 'out of another dtype' case is made outside the table."""
    from codegen.families.row_reduce.cases import check_cases
    from codegen.spec.loader import load_op_spec

    text = (project_paths().specs / "softmax_backward.yaml").read_text()
    combos = (
        "dtype_combos:\n"
        "  - {gradOutput: FLOAT, output: FLOAT, out: FLOAT}\n"
        "  - {gradOutput: FLOAT16, output: FLOAT16, out: FLOAT16}\n"
        "  - {gradOutput: BF16, output: BF16, out: BF16, products: [Ascend910B, Ascend910_93, Ascend950]}\n"
        "  - {gradOutput: FLOAT16, output: FLOAT, out: FLOAT16}\n"
    )
    assert text.count("compute:\n  dim: dim") == 1
    path = tmp_path / "softmax_backward.yaml"
    path.write_text(text.replace("compute:\n  dim: dim", combos + "compute:\n  dim: dim"))
    spec = load_op_spec(path, CATALOGUE)
    cases = list(check_cases(spec, CATALOGUE.get("Ascend910B"), [DType.FLOAT, DType.FLOAT16], True))
    mixed = [c for c in cases if c.dtype == "FLOAT16 (output FLOAT)"]
    assert len(mixed) == 3 and all(c.expect_status is None for c in mixed)
    for c in mixed:
        assert c.params["gradOutput"].dtype == np.float16 and c.params["output"].dtype == np.float32
        assert c.params["out"].dtype == np.float16
    same = [c for c in cases if c.dtype == "FLOAT16 (output FLOAT16)" and c.expect_status is None]
    assert same and all(c.params["output"].dtype == np.float16 for c in same)
    assert not [c for c in cases if "the result cast" in c.name]


def test_a_case_with_another_output_dtype_has_its_own_row_in_the_check_table() -> None:
    """The check table's rows group cases by dtype label: a FLOAT input written to a FLOAT16 out (the result
    cast, fp16-rounded) must not be reported in the FLOAT row, nor a 16-bit input cast to a FLOAT out in the
    16-bit row."""
    from codegen.families.row_reduce.cases import check_cases

    product = CATALOGUE.get("Ascend910B")
    softmax = next(s for s in SPECS.values() if s.op == "Softmax")
    cases = list(check_cases(softmax, product, [DType.FLOAT], True))
    cast = [c for c in cases if c.name.startswith("out FLOAT16: the result cast")]
    assert [c.dtype for c in cast] == ["FLOAT (out FLOAT16)"]
    out = softmax.output_names[0]
    outs = [
        c.params[out] for c in cases if c.dtype == "FLOAT" and c.expect_status is None and c.params.get(out) is not None
    ]
    assert outs and all(o.dtype == np.float32 for o in outs)
    log_softmax = next(s for s in SPECS.values() if s.op == "LogSoftmax")
    cases = list(check_cases(log_softmax, product, [DType.FLOAT16], True))
    promoted = [c for c in cases if c.name.startswith("out FLOAT: the inputs cast to it first")]
    assert [c.dtype for c in promoted] == ["FLOAT16 (out FLOAT)"]
