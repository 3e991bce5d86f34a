"""Every number of a spec that reaches generated code fits the type it becomes there, refused at its line:
an example value its tensor's dtype (an example program holding ``inf`` did not compile), an optional
input's ``default`` and a device attr's float ``default`` float32 (the one constant rule of
:func:`codegen.spec.expr.constant_beyond_fp32`); a wrong ``default`` is one error, not two."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegen.paths import project_paths
from codegen.spec.errors import SpecErrors
from codegen.spec.loader import load_op_spec, load_specs
from codegen.spec.model import Catalogue

FP32 = "is beyond float32's range (+-3.40282347e+38): the device computes in float32 and the tiling data holds "
FP32 += "host scalars as float32, where it is an infinity"

_CATALOGUE: list[Catalogue] = []


def _catalogue() -> Catalogue:
    if not _CATALOGUE:
        _CATALOGUE.append(load_specs(project_paths().specs)[0])
    return _CATALOGUE[0]


def _errors(tmp: Path, op: str, old: str, new: str, dtype: str = "FLOAT") -> tuple[list[str], Path, int]:
    """The errors of ``op``'s spec with ``old`` (once in it) replaced by ``new`` and its example's FLOAT
    tensors made ``dtype`` ones, its path and ``old``'s line."""
    path, line = _edited(tmp, op, old, new, dtype)
    with pytest.raises(SpecErrors) as info:
        load_op_spec(path, _catalogue())
    return str(info.value).splitlines(), path, line


def _edited(tmp: Path, op: str, old: str, new: str, dtype: str = "FLOAT") -> tuple[Path, int]:
    text = (project_paths().specs / f"{op}.yaml").read_text()
    assert text.count(old) == 1
    path = tmp / f"{op}.yaml"
    line = text[: text.index(old)].count("\n") + 1
    text = text.replace(old, new).replace("dtype: FLOAT", f"dtype: {dtype}")
    if dtype == "BF16":  # the example program runs on every product of the op: those with BF16
        text = text.replace("products: [Ascend910, Ascend910B, Ascend910_93, Ascend950, Ascend310P]", BF16_PRODUCTS)
    path.write_text(text)
    return path, line


BF16_PRODUCTS = "products: [Ascend910B, Ascend910_93, Ascend950]"
GRAD = "gradOutput: {shape: [2, 2], dtype: FLOAT, values: [0, 1, 2, 3]}"


@pytest.mark.parametrize(
    ("dtype", "value", "message"),
    [
        ("FLOAT", "1e39", "1e+39 is beyond FLOAT's range (+-3.40282347e+38)"),
        ("FLOAT", "-1e39", "-1e+39 is beyond FLOAT's range (+-3.40282347e+38)"),
        ("FLOAT16", "70000", "70000 is beyond FLOAT16's range (+-65504)"),
        ("BF16", "3.4e38", "3.4e+38 is beyond BF16's range (+-3.38953139e+38)"),
    ],
)
def test_an_example_value_beyond_its_dtype_is_refused_at_its_line(
    tmp_path: Path, dtype: str, value: str, message: str
) -> None:
    lines, path, line = _errors(tmp_path, "mse_loss_backward", GRAD, GRAD.replace("3]", f"{value}]"), dtype)
    assert lines == [f"{path}:{line}: example.inputs.gradOutput.values[3]: {message}"]


@pytest.mark.parametrize(
    ("dtype", "value"), [("FLOAT", 3.4028234663852886e38), ("FLOAT16", -65504.0), ("BF16", 3.3895313892515355e38)]
)
def test_example_values_at_their_dtype_limits_load(tmp_path: Path, dtype: str, value: float) -> None:
    path, _ = _edited(tmp_path, "mse_loss_backward", GRAD, GRAD.replace("3]", f"{value!r}]"), dtype)
    ex = load_op_spec(path, _catalogue()).example
    assert ex is not None and dict(ex.inputs)["gradOutput"].values == (0.0, 1.0, 2.0, value)


def test_an_example_scalar_attr_beyond_its_float_host_value_is_refused(tmp_path: Path) -> None:
    # the example program makes a scalar attr's aclScalar from a C float (its first dtype, FLOAT)
    lines, path, line = _errors(tmp_path, "hardshrink_backward", "attrs: {lambd: 2.0}", "attrs: {lambd: 1e39}")
    assert lines == [f"{path}:{line}: example.attrs.lambd: 1e+39 is beyond FLOAT's range (+-3.40282347e+38)"]


def test_a_scalar_attr_default_the_example_takes_must_fit_its_float_host_value(tmp_path: Path) -> None:
    text = (project_paths().specs / "hardshrink_backward.yaml").read_text()
    text = text.replace("attrs: {lambd: 2.0}", "attrs: {}").replace("    default: 0.5\n", "    default: 1e39\n")
    path = tmp_path / "hardshrink_backward.yaml"
    path.write_text(text)
    # the attr takes a DOUBLE aclScalar, which holds the default; the example program makes it from a C float
    # (its first dtype, FLOAT), which does not: refused at the example's attrs
    line = text.splitlines().index("  attrs: {}") + 1
    with pytest.raises(SpecErrors) as info:
        load_op_spec(path, _catalogue())
    assert str(info.value).splitlines() == [
        f"{path}:{line}: example.attrs: the default 1e+39 of 'lambd' is the example's value, and it is beyond "
        "FLOAT's range (+-3.40282347e+38); give 'lambd' an example value within it"
    ]


ALPHA = "    dtypes: [FLOAT, FLOAT16, DOUBLE, INT32, INT64]\n"


def test_a_scalar_attr_default_is_checked_against_the_dtype_a_call_passes_it_as(tmp_path: Path) -> None:
    """A call leaving a scalar attr out passes its default as a number: a DOUBLE aclScalar where the attr takes
    DOUBLE (a default beyond FLOAT was refused as if its first dtype, FLOAT, held it), else its first floating
    dtype."""
    path, _ = _edited(tmp_path, "foreach_add_list_v2", ALPHA, ALPHA + "    default: 1e39\n")
    spec = load_op_spec(path, _catalogue())
    assert spec.attr("alpha").default == 1e39
    assert spec.attr("alpha").number_dtype == "DOUBLE"
    for listed, value, message in [
        (
            "[FLOAT, FLOAT16]",
            "1e39",
            "1e+39 is beyond FLOAT's range (+-3.40282347e+38): a call leaving 'alpha' out "
            "passes its default as a FLOAT aclScalar",
        ),
        (
            "[FLOAT16, INT32]",
            "70000",
            "70000 is beyond FLOAT16's range (+-65504): a call leaving 'alpha' out "
            "passes its default as a FLOAT16 aclScalar",
        ),
    ]:
        lines, path, line = _errors(
            tmp_path, "foreach_add_list_v2", ALPHA, f"    dtypes: {listed}\n    default: {value}\n"
        )
        assert lines == [f"{path}:{line + 1}: attrs[0].default: {message}"]


def test_an_optional_input_default_beyond_float32_is_refused_by_the_constant_rule(tmp_path: Path) -> None:
    lines, path, line = _errors(tmp_path, "binary_cross_entropy_backward", "    default: 1\n", "    default: 1e39\n")
    assert lines == [f"{path}:{line}: inputs[3].default: the constant 1e+39 {FP32}"]


@pytest.mark.parametrize(("value", "shown"), [(".nan", "float nan"), ("x", "string 'x'"), ("true", "true")])
def test_a_wrong_optional_input_default_is_one_error(tmp_path: Path, value: str, shown: str) -> None:
    lines, path, line = _errors(
        tmp_path, "binary_cross_entropy_backward", "    default: 1\n", f"    default: {value}\n"
    )
    assert len(lines) == 1 and lines[0].startswith(f"{path}:{line}: inputs[3].default: expected a finite number, got ")
    assert shown in lines[0] and "needs a default" not in "\n".join(lines)


@pytest.mark.parametrize("value", ["1e39", ".nan"])
def test_a_device_attr_float_default_is_checked_by_the_constant_rule(tmp_path: Path, value: str) -> None:
    old = "{name: lambd, from: lambd, type: float, default: 0.5, attr_type: REQUIRED}"
    lines, path, line = _errors(tmp_path, "hardshrink_backward", old, old.replace("0.5", value))
    message = f"the constant 1e+39 {FP32}" if value == "1e39" else "expected a finite number, got float nan"
    assert lines == [f"{path}:{line}: device.attrs[0].default: {message}"]
