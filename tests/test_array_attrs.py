"""Array host attrs (``int_array``: ``const aclIntArray *``, ``bool_array``: ``const aclBoolArray *``), for
every family through the shared spec reader, signature, L2 skeleton, example program, doc table and runner.

The spec is SoftMarginLossBackward with two array attrs added and listed in ``device.host_attrs``, written
to a temporary specs folder: no spec of the project uses the types yet.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from l2_model import Call, Tensor, predict

import codegen
from codegen.paths import project_paths
from codegen.plan.signature import signature
from codegen.spec.errors import SpecErrors
from codegen.spec.generated_names import op_files
from codegen.spec.loader import load_op_spec
from codegen.spec.model import DType
from codegen.specs import load_project

CATALOGUE, _ = load_project()
OP = "soft_margin_loss_backward"
_ANCHOR = "    description: Reduction of the forward loss; mean divides by the element count of the broadcast shape.\n"
_ARRAYS = (
    "  - name: normalizedShape\n"
    "    type: int_array\n"
    "    length: [1, 8]\n"
    "    description: Trailing dims.\n"
    "  - name: outputMask\n"
    "    type: bool_array\n"
    "    length: 2\n"
    "    default: [true, false]\n"
    "    description: Outputs to compute.\n"
)
_DEVICE_ATTR = "    - {name: reduction, from: reduction, type: string, default: mean}\n"
_EXAMPLE_ATTRS = "  attrs: {reduction: 1}\n"


def _spec_text(arrays: str = _ARRAYS, host_attrs: str = "  host_attrs: [normalizedShape, outputMask]\n") -> str:
    text = (project_paths().specs / f"{OP}.yaml").read_text()
    for old in (_ANCHOR, _DEVICE_ATTR, _EXAMPLE_ATTRS):
        assert text.count(old) == 1, old
    text = text.replace(_ANCHOR, _ANCHOR + arrays).replace(_DEVICE_ATTR, _DEVICE_ATTR + host_attrs)
    return text.replace(_EXAMPLE_ATTRS, "  attrs: {reduction: 1, normalizedShape: [2, 2]}\n")


def _line_of(text: str, needle: str) -> int:
    return text.splitlines().index(needle) + 1


def test_array_attrs_load_with_their_lengths_and_defaults(tmp_path: Path) -> None:
    path = tmp_path / f"{OP}.yaml"
    path.write_text(_spec_text())
    spec = load_op_spec(path, CATALOGUE)
    shape, mask = spec.attr("normalizedShape"), spec.attr("outputMask")
    assert (shape.type, shape.length, shape.default, shape.is_array) == ("int_array", (1, 8), None, True)
    assert (mask.type, mask.length, mask.default) == ("bool_array", (2, 2), (True, False))
    assert spec.device_interface.host_attrs == ("normalizedShape", "outputMask")
    assert spec.example is not None and ("normalizedShape", (2, 2)) in spec.example.attrs
    decls = {p.name: (p.header_decl, p.length_invalid, p.length_text) for p in signature(spec)}
    assert decls["normalizedShape"] == (
        "const aclIntArray *normalizedShape",
        "normalizedShape->Size() < 1 || normalizedShape->Size() > 8",
        "1 to 8",
    )
    assert decls["outputMask"] == ("const aclBoolArray *outputMask", "outputMask->Size() != 2", "2")


def test_the_l2_model_predicts_null_and_length_statuses(tmp_path: Path) -> None:
    path = tmp_path / f"{OP}.yaml"
    path.write_text(_spec_text())
    spec = load_op_spec(path, CATALOGUE)
    product = CATALOGUE.get("Ascend910B")
    tensors = {n: Tensor((2, 2)) for n in ("gradOutput", "self", "target", "out")}
    calls = {
        "ok": {"reduction": 0, "normalizedShape": (2,)},
        "null": {"reduction": 0, "normalizedShape": None},
        "omitted, no default": {"reduction": 0},
        "empty": {"reduction": 0, "normalizedShape": ()},
        "long mask": {"reduction": 0, "normalizedShape": (2,), "outputMask": (True, True, True)},
        "null mask and bad dtype": {"reduction": 0, "normalizedShape": (2,), "outputMask": None},
    }
    got = {}
    for name, attrs in calls.items():
        ts = dict(tensors, self=Tensor((2, 2), DType.INT8)) if "dtype" in name else tensors
        got[name] = predict(spec, product, Call(ts, attrs)).status
    assert got == {
        "ok": 0,
        "null": 161001,
        "omitted, no default": 161001,
        "empty": 161002,
        "long mask": 161002,
        "null mask and bad dtype": 161001,
    }


def test_bad_array_attrs_are_reported_at_their_lines(tmp_path: Path) -> None:
    arrays = (
        "  - name: normalizedShape\n"
        "    type: int_array\n"
        "    length: [0, 9]\n"
        "    description: Trailing dims.\n"
        "  - name: outputMask\n"
        "    type: bool_array\n"
        "    length: 2\n"
        "    default: [true, 1]\n"
        "    description: Outputs to compute.\n"
        "  - name: stride\n"
        "    type: int_array\n"
        "    values: {1: one}\n"
        "    default: [1, 2]\n"
        "    description: No length.\n"
    )
    text = _spec_text(arrays, "  host_attrs: [normalizedShape, outputMask, stride]\n")
    constraint = 'constraints:\n  - {name: shapeOk, require: "normalizedShape > 0", message: bad, status: 161002}\n'
    text = text.replace("\ncompute:\n", "\n" + constraint + "compute:\n")
    path = tmp_path / f"{OP}.yaml"
    path.write_text(text)
    with pytest.raises(SpecErrors) as info:
        load_op_spec(path, CATALOGUE)
    f = str(path)
    length = _line_of(text, "    length: [0, 9]")
    stride = _line_of(text, "  - name: stride")
    assert [str(e) for e in info.value.errors] == [
        f"{f}:{length}: attrs[1].length: length [0, 9] is invalid; need 1 <= lo <= hi <= 8",
        f"{f}:{length + 5}: attrs[2].default[1]: an element of default must be true or false for a bool attr, "
        "got integer 1",
        f"{f}:{stride}: attrs[3].length: int_array attr 'stride' needs length: an integer (a fixed length) or "
        "[lo, hi], within 1..8, or 'any'",
        f"{f}:{stride + 2}: attrs[3].values: values are not allowed for an int_array attr",
        f"{f}:{_line_of(text, 'constraints:') + 1}: constraints[0].require: unknown name 'normalizedShape'; allowed "
        "here: attrs: reduction; tensors (only inside dim, dtype, numel, rank): gradOutput, self, target, out; "
        "platform: coreNum, ubBytes; dtypes: BF16, BOOL, DOUBLE, FLOAT, FLOAT16, INT16, INT32, INT64, INT8, UINT16, "
        "UINT32, UINT64, UINT8",
    ]


def test_an_array_attr_the_device_op_would_take_is_an_error(tmp_path: Path) -> None:
    """The device op takes no array: a device section must list it in host_attrs, and a spec without one
    (the identity interface would carry every attr) is refused at the attr."""
    text = _spec_text(host_attrs="")
    path = tmp_path / f"{OP}.yaml"
    path.write_text(text)
    with pytest.raises(SpecErrors) as info:
        load_op_spec(path, CATALOGUE)
    assert [e.message for e in info.value.errors] == [
        "every aclnn attr must be carried by one device attr; missing: normalizedShape, outputMask (an array attr "
        "is checked by the L2 API only: list normalizedShape, outputMask in host_attrs)"
    ]
    start, end = text.index("\ndevice:"), text.index("\ncompute:")
    text = text[:start] + text[end:]
    path.write_text(text)
    with pytest.raises(SpecErrors) as info:
        load_op_spec(path, CATALOGUE)
    line = _line_of(text, "  - name: outputMask")
    expected = (
        f"{path}:{line}: attrs[2]: bool_array attr 'outputMask' is checked by the L2 API only: give a device "
        "section that lists it in host_attrs"
    )
    assert expected in [str(e) for e in info.value.errors]


@pytest.mark.heavy(15)  # one build of the spec copy and its quick check: about 12 s alone
def test_arrays_reach_the_l2_checks_through_the_c_abi(tmp_path: Path) -> None:
    """Generated text (header, L2 checks, example program, doc table) and the Python API round trip: lists
    pass as aclIntArray/aclBoolArray, None as a null pointer (161001), a wrong length is 161002."""
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / f"{OP}.yaml").write_text(_spec_text())
    shutil.copy(project_paths().specs / "products.yaml", specs / "products.yaml")
    gen = tmp_path / "gen"
    cmd = [sys.executable, "-m", "codegen", "--specs", str(specs), "generate", OP, "--out", str(gen)]
    subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=True)
    spec = load_op_spec(specs / f"{OP}.yaml", CATALOGUE)
    files = op_files(spec)
    folder = gen / spec.folder
    header = " ".join((folder / files["op_api_h"]).read_text().split())
    assert "int64_t reduction, const aclIntArray *normalizedShape, const aclBoolArray *outputMask, aclTensor *out" in (
        header
    )
    example = (folder / files["example_cpp"]).read_text()
    assert "bool outputMaskValues[] = {true, false};" in example and "aclDestroyIntArray(normalizedShape);" in example
    doc = (folder / files["doc_md"]).read_text()
    assert "| normalizedShape | input (host) |" in doc and "| aclIntArray (length 1 to 8) |" in doc

    f = codegen.compile_op(OP, "Ascend910B", generated=gen, specs_dir=specs)
    x = np.array([[0.5, -1.0], [2.0, 3.0]], np.float32)
    ones = np.ones((2, 2), np.float32)
    got = f(gradOutput=ones, self=x, target=ones, reduction=0, normalizedShape=(2,), outputMask=[False, True])
    np.testing.assert_allclose(got, -1.0 / (1.0 + np.exp(x)), rtol=1e-6)
    statuses = {}
    for name, value in [("normalizedShape", None), ("normalizedShape", []), ("normalizedShape", list(range(9)))]:
        with pytest.raises(codegen.AclnnError) as err:
            f(gradOutput=ones, self=x, target=ones, reduction=0, **{name: value})
        statuses[len(value) if value is not None else None] = (err.value.status, err.value.message)
    assert statuses == {
        None: (161001, "Expected a non-null argument for normalizedShape, but got nullptr."),
        0: (161002, "The length of normalizedShape must be 1 to 8, but got 0."),
        9: (161002, "The length of normalizedShape must be 1 to 8, but got 9."),
    }
    with pytest.raises(codegen.AclnnError) as err:
        f(gradOutput=ones, self=x, target=ones, reduction=0, normalizedShape=[2], outputMask=[True])
    assert (err.value.status, err.value.message) == (161002, "The length of outputMask must be 2, but got 1.")
    with pytest.raises(TypeError, match="takes a list of True/False"):
        f(gradOutput=ones, self=x, target=ones, reduction=0, normalizedShape=[2], outputMask=[1, 0])
    with pytest.raises(ValueError, match="outside"):
        f(gradOutput=ones, self=x, target=ones, reduction=0, normalizedShape=[2**63])

    # the status matrix derives the null and length cases of each array (and runs the example program)
    (tmp_path / "reference").mkdir()
    ref = (project_paths().root / "reference" / f"{OP}.py").read_text()
    for old in ("reduction: int) -> np.ndarray:", "compute_fp32: bool = True"):  # reference(), tolerance()
        assert ref.count(old) == 1, old
        ref = ref.replace(old, old.replace("int)", "int, **_host: object)").replace("True", "True, **_host: object"))
    (tmp_path / "reference" / f"{OP}.py").write_text(ref)
    report = tmp_path / "check.json"
    cmd = [sys.executable, "-m", "codegen", "--specs", str(specs), "check", OP, "--generated", str(gen), "--quick"]
    cmd += ["--product", "Ascend910B", "--dtype", "FLOAT", "-j", "1", "--json", str(report)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1200, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    cases = {c["name"]: c["passed"] for c in json.loads(report.read_text())["cases"]}
    assert {n: p for n, p in cases.items() if "outputMask" in n and "161" in n} == {
        "null outputMask -> 161001": True,
        "outputMask of length 1 (length 2) -> 161002": True,
        "outputMask of length 3 (length 2) -> 161002": True,
        "null outputMask with gradOutput INT8 -> 161001 (nulls first)": True,
    }
    assert cases["normalizedShape of length 9 (length 1 to 8) -> 161002"] and cases["example program"]
