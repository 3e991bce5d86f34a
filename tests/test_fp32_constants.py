"""One constant rule: a constant beyond float32's range is refused wherever it stands, as a literal or folded
from literals that fit (``1e20 * 1e19``), in a host scalar, an elementwise formula or a row-reduce step, at
its line. (Formulas once generated kernels computing with inf, or a ``1e+39f`` literal that did not
compile.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from codegen.paths import project_paths
from codegen.spec.errors import SpecErrors
from codegen.spec.loader import load_op_spec, load_specs

LIMIT = "is beyond float32's range (+-3.40282347e+38): the device computes in float32 and the tiling data holds "
LIMIT += "host scalars as float32, where it is an infinity"


def _edited(tmp: Path, op: str, old: str, new: str) -> tuple[Path, int]:
    text = (project_paths().specs / f"{op}.yaml").read_text()
    assert text.count(old) == 1
    path = tmp / f"{op}.yaml"
    path.write_text(text.replace(old, new))
    line = next(i for i, t in enumerate(text.splitlines(), 1) if old in t)
    return path, line


CASES = [
    # elementwise formula: a literal, a folded product of literals that fit, a folded part inside a larger one
    (
        "mse_loss_backward",
        'gradOutput * norm"',
        'gradOutput * norm * 1e39"',
        "compute.out",
        "the formula of 'out': ",
        "1e+39",
    ),
    (
        "mse_loss_backward",
        'gradOutput * norm"',
        'gradOutput * norm * (1e20 * 1e19)"',
        "compute.out",
        "the formula of 'out': ",
        "1e+20 * 1e+19 = 1e+39",
    ),
    (
        "mse_loss_backward",
        'gradOutput * norm"',
        'gradOutput * norm * (1e20 * 1e19 / 1e10)"',
        "compute.out",
        "the formula of 'out': ",
        "1e+20 * 1e+19 = 1e+39",
    ),
    # row-reduce step
    (
        "softmax",
        "- out: exp(self - m) / s",
        "- out: exp(self - m) / s * 1e39",
        "compute.steps[2].out",
        "step 'out': ",
        "1e+39",
    ),
]


@pytest.mark.parametrize(("op", "old", "new", "field", "prefix", "shown"), CASES)
def test_a_constant_beyond_float32_is_refused_wherever_it_stands(
    tmp_path: Path, op: str, old: str, new: str, field: str, prefix: str, shown: str
) -> None:
    catalogue = load_specs(project_paths().specs)[0]
    path, line = _edited(tmp_path, op, old, new)
    with pytest.raises(SpecErrors) as info:
        load_op_spec(path, catalogue)
    assert f"{path}:{line}: {field}: {prefix}the constant {shown} {LIMIT}" in str(info.value).splitlines()


def test_constants_within_float32_are_accepted(tmp_path: Path) -> None:
    catalogue = load_specs(project_paths().specs)[0]
    path, _ = _edited(tmp_path, "mse_loss_backward", 'gradOutput * norm"', 'gradOutput * norm * (1e20 * 1e18)"')
    assert load_op_spec(path, catalogue).op == "MseLossBackward"


TINY = "is too small for float32 (its least positive value is 1.40129846e-45): the device computes in float32 and "
TINY += "the tiling data holds host scalars as float32, where it is 0"


@pytest.mark.parametrize(
    ("op", "old", "new", "field"),
    [
        ("layer_norm", "1 / sqrt(v + eps)", "1 / sqrt(v + 1e-50)", "compute.steps[3].rstdOutOptional"),
        ("mse_loss_backward", 'gradOutput * norm"', 'gradOutput * norm * (1e-30 * 1e-30)"', "compute.out"),
    ],
)
def test_a_nonzero_constant_float32_rounds_to_zero_is_refused(
    tmp_path: Path, op: str, old: str, new: str, field: str
) -> None:
    """``sqrt(v + 1e-50)`` would add 0 on the device; a folded product of literals that fit is the same."""
    catalogue = load_specs(project_paths().specs)[0]
    path, line = _edited(tmp_path, op, old, new)
    with pytest.raises(SpecErrors) as info:
        load_op_spec(path, catalogue)
    text = str(info.value)
    assert f"{path}:{line}: {field}: " in text and TINY in text, text


def test_the_least_float32_constant_is_accepted(tmp_path: Path) -> None:
    catalogue = load_specs(project_paths().specs)[0]
    path, _ = _edited(tmp_path, "mse_loss_backward", 'gradOutput * norm"', 'gradOutput * norm * 1.5e-45"')
    assert load_op_spec(path, catalogue).op == "MseLossBackward"
