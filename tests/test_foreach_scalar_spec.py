"""The scalar carrier of a device op (``device.inputs``: ``{name, from: <scalar attr>, like, dtype_map}``), on
aclnnForeachMulScalarV2: the OpDef registers the one-element tensor in ops-nn's columns (ForeachMulScalar's
``scalar``: FLOAT16 beside a FLOAT16 ``x``, FLOAT beside FLOAT and BF16, INT32 beside INT32; hicann/ops-nn
foreach/foreach_mul_scalar/op_host/foreach_mul_scalar_def.cpp), and a wrong ``like`` or ``dtype_map`` is one
error at its own line and field; an integer list the kernels do not compute is one error at the compute
entry; a formula of three lists that is no list form (aclnnForeachAddcmulScalarV2's
with another operator or the lists in another order) is one error at its line naming the forms it could be.
Expected texts are written out here, never produced by the generator."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from codegen.families.foreach.plan.tiling import op_compute_dtype
from codegen.paths import project_paths
from codegen.plan.opdef import opdef_view
from codegen.spec.errors import SpecErrors
from codegen.spec.loader import load_op_spec
from codegen.spec.model import DType
from codegen.specs import load_project

CATALOGUE, SPECS = load_project()
OP = "foreach_mul_scalar_v2"
ENTRY = "{name: scalar, from: scalar, like: x, dtype_map: {BF16: FLOAT}, auto_contiguous: true}"


def test_the_opdef_registers_ops_nn_scalar_columns() -> None:
    spec = SPECS[OP]
    reg = opdef_view(spec, [CATALOGUE.get(p) for p in spec.products])
    x, scalar = reg.default.inputs
    assert (x.name, x.param_type) == ("x", "DYNAMIC")
    assert x.dtypes == "ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_INT32, ge::DT_BF16"
    assert (scalar.name, scalar.param_type, scalar.auto_contiguous) == ("scalar", "REQUIRED", True)
    assert scalar.dtypes == "ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_INT32, ge::DT_FLOAT"
    assert reg.default.outputs[0].param_type == "DYNAMIC"


def _errors(tmp_path: Path, new: str) -> tuple[str, list[str]]:
    text = (project_paths().specs / f"{OP}.yaml").read_text()
    assert text.count(ENTRY) == 1
    text = text.replace(ENTRY, new)
    path = tmp_path / f"{OP}.yaml"
    path.write_text(text)
    with pytest.raises(SpecErrors) as err:
        load_op_spec(path, CATALOGUE)
    assert list(tmp_path.iterdir()) == [path]
    return text, [str(e) for e in err.value.errors]


def _line(tmp_path: Path, text: str, needle: str) -> str:
    lines = [i + 1 for i, line in enumerate(text.splitlines()) if needle in line]
    assert len(lines) == 1
    return f"{tmp_path / f'{OP}.yaml'}:{lines[0]}"


@pytest.mark.parametrize(
    ("entry", "field", "message"),
    [
        (
            "{name: scalar, from: scalar, like: y, auto_contiguous: true}",
            "device.inputs[1].like",
            "'like' must name an aclnn input; allowed: x",
        ),
        (
            "{name: scalar, from: scalar, dtype_map: {INT8: FLOAT}, auto_contiguous: true}",
            "device.inputs[1].dtype_map.INT8",
            "dtype_map maps a dtype of 'x' to another; INT8 -> FLOAT does not",
        ),
        (
            "{name: scalar, from: scalar, dtype: FLOAT, auto_contiguous: true}",
            "device.inputs[1].dtype",
            "a device input carrying a scalar attr takes its dtypes from 'like' and 'dtype_map'",
        ),
    ],
)
def test_a_wrong_scalar_carrier_is_one_error_at_its_field(tmp_path: Path, entry: str, field: str, message: str) -> None:
    text, errs = _errors(tmp_path, entry)
    assert errs == [f"{_line(tmp_path, text, entry)}: {field}: {message}"]


@pytest.mark.parametrize(
    ("formula", "message"),
    [
        # a formula of three lists and the scalar that is no list form: the forms it could be, at its line
        (
            '"x1 + scalar * x2 - x3"',
            "the foreach family computes x1 + scalar * x2 * x3; got 'x1 + scalar * x2 - x3'",
        ),
        # the lists in another order than the spec's
        (
            '"x2 + scalar * x1 * x3"',
            "the foreach family computes x1 + scalar * x2 * x3; got 'x2 + scalar * x1 * x3'",
        ),
    ],
)
def test_a_three_list_formula_outside_the_list_forms_is_one_error_at_its_line(
    tmp_path: Path, formula: str, message: str
) -> None:
    op = "foreach_addcmul_scalar_v2"
    text = (project_paths().specs / f"{op}.yaml").read_text()
    entry = 'out: "x1 + scalar * x2 * x3"'
    assert text.count(entry) == 1
    text = text.replace(entry, f"out: {formula}")
    path = tmp_path / f"{op}.yaml"
    path.write_text(text)
    with pytest.raises(SpecErrors) as err:
        load_op_spec(path, CATALOGUE)
    assert list(tmp_path.iterdir()) == [path]
    line = next(i + 1 for i, t in enumerate(text.splitlines()) if t.strip() == f"out: {formula}")
    assert [str(e) for e in err.value.errors] == [f"{path}:{line}: compute.out: {message}"]


@pytest.mark.parametrize(
    ("listed", "message"),
    [
        (
            "[BF16]",
            "computed_in_float lists FLOAT16, a dtype of 'x1'; got 'BF16' (BF16 is always computed in FLOAT, "
            "FLOAT in itself)",
        ),
        (
            "[FLOAT]",
            "computed_in_float lists FLOAT16, a dtype of 'x1'; got 'FLOAT' (BF16 is always computed in "
            "FLOAT, FLOAT in itself)",
        ),
    ],
)
def test_computed_in_float_takes_float16_only(tmp_path: Path, listed: str, message: str) -> None:
    """``computed_in_float`` names the FLOAT16 lists a kernel casts up (ops-nn's half path of the op); another
    dtype is an error at its line, and nothing is written."""
    op = "foreach_addcmul_scalar_v2"
    text = (project_paths().specs / f"{op}.yaml").read_text()
    entry = "computed_in_float: [FLOAT16]"
    assert text.count(entry) == 1
    text = text.replace(entry, f"computed_in_float: {listed}")
    path = tmp_path / f"{op}.yaml"
    path.write_text(text)
    with pytest.raises(SpecErrors) as err:
        load_op_spec(path, CATALOGUE)
    assert list(tmp_path.iterdir()) == [path]
    line = next(i + 1 for i, t in enumerate(text.splitlines()) if "computed_in_float:" in t)
    assert [str(e) for e in err.value.errors] == [f"{path}:{line}: compute.computed_in_float[0]: {message}"]


def test_computed_in_float_casts_float16_tiles_up() -> None:
    """The FLOAT16 branch of aclnnForeachAddcmulScalarV2's kernel computes in float and reads its FLOAT16 scalar
    tensor as half (ops-nn's AddcMulScalarAdapter<half>); the spec without the key would compute in half."""
    _, specs = load_project()
    spec = specs["foreach_addcmul_scalar_v2"]
    assert op_compute_dtype(spec, DType.FLOAT16) is DType.FLOAT
    kernel = (project_paths().generated / spec.folder / "op_kernel" / f"{spec.kernel}.cpp").read_text()
    assert "<half, float, half>(" in kernel and "<bfloat16_t, float, float>(" in kernel
    plain = dataclasses.replace(spec, compute=dataclasses.replace(spec.compute, in_float=()))
    assert op_compute_dtype(plain, DType.FLOAT16) is DType.FLOAT16


@pytest.mark.parametrize(
    ("op", "device", "added", "message"),
    [
        (
            "foreach_pow_scalar_v2",
            "[FLOAT16, FLOAT, BF16]",
            "INT32",
            "'x' lists INT32, but Power (the lowering of 'pow(x, scalar)') takes floating tiles only",
        ),
        (
            "foreach_mul_scalar_v2",
            "[FLOAT16, FLOAT, INT32, BF16]",
            "INT16",
            "'x' lists INT16, but a scalar form's integer lists are INT32 (the scalar is a tensor of the list's dtype)",
        ),
    ],
)
def test_an_integer_list_the_kernels_do_not_compute_is_one_error_at_the_compute(
    tmp_path: Path, op: str, device: str, added: str, message: str
) -> None:
    """A foreach spec listing an integer dtype for a formula whose instruction takes floating tiles only (the
    emulated Power takes half and float), or INT16 for a scalar form (ops-nn's APIs pass an INT16 list's scalar
    as INT32, a column the family has no kernel for), is one error at its ``compute`` entry naming the list, the
    dtype and the reason, and nothing is written."""
    text = (project_paths().specs / f"{op}.yaml").read_text()
    listed = device.removeprefix("[").removesuffix("]").split(", ")
    floating = f"    dtypes: [{', '.join(sorted(listed, key=['FLOAT', 'FLOAT16', 'BF16', 'INT32'].index))}]\n"
    assert text.count(floating) == 2  # the input list and the output list
    text = text.replace(floating, floating.replace("]", f", {added}]"))
    text = text.replace(f"  dtypes: {device}\n", f"  dtypes: {device[:-1]}, {added}]\n")  # the OpDef's order
    path = tmp_path / f"{op}.yaml"
    path.write_text(text)
    with pytest.raises(SpecErrors) as err:
        load_op_spec(path, CATALOGUE)
    assert list(tmp_path.iterdir()) == [path]
    line = next(i + 1 for i, t in enumerate(text.splitlines()) if t.startswith("compute:"))
    assert [str(e) for e in err.value.errors] == [f"{path}:{line}: compute: {message}"]


@pytest.mark.parametrize(("entry", "field"), [("  - name: out\n", "outputs[0]"), ("  - name: weight\n", "attrs[0]")])
def test_an_entry_without_a_name_is_reported_at_its_line(tmp_path: Path, entry: str, field: str) -> None:
    """A list or attr entry whose ``name`` is misspelt: the first error is that key, at its line; the formula is
    not read against the placeholder name (no error without a location, no crash)."""
    op = "foreach_lerp_scalar"
    text = (project_paths().specs / f"{op}.yaml").read_text()
    assert text.count(entry) == 1
    text = text.replace(entry, entry.replace("name:", "nmae:"))
    path = tmp_path / f"{op}.yaml"
    path.write_text(text)
    with pytest.raises(SpecErrors) as err:
        load_op_spec(path, CATALOGUE)
    assert list(tmp_path.iterdir()) == [path]
    line = next(i + 1 for i, t in enumerate(text.splitlines()) if "nmae:" in t)
    messages = [str(e) for e in err.value.errors]
    assert messages[0].startswith(f"{path}:{line}: {field}.nmae: unknown key 'nmae' (did you mean 'name'?)")
    assert all(m.startswith(f"{path}:") for m in messages), messages
