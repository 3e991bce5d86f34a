"""One mistake, one error: a spec mistake is reported at its own line and field, and the errors that would
only follow from it (a step, attr or tensor that later entries use, the device attr carrying a badly typed
attr, an output whose step was bad) are not reported again. Also: a ``list_int`` device attr's default must
be one element (the L0 API sends one aclnn integer; every generated tiling reads exactly one).

Each test edits one of the project's specs (copied to a temporary folder) and compares every reported error
verbatim; the line of each expected error is found in the edited text, not taken from the loader.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codegen.paths import project_paths
from codegen.spec.errors import SpecErrors
from codegen.spec.loader import load_op_spec
from codegen.specs import load_project

CATALOGUE, _ = load_project()


def _errors(tmp_path: Path, op: str, old: str, new: str) -> tuple[str, list[str]]:
    """The edited spec's text and every error loading it reports (the folder holds nothing else after)."""
    text = (project_paths().specs / f"{op}.yaml").read_text()
    assert text.count(old) == 1, old
    text = text.replace(old, new)
    path = tmp_path / f"{op}.yaml"
    path.write_text(text)
    with pytest.raises(SpecErrors) as err:
        load_op_spec(path, CATALOGUE)
    assert list(tmp_path.iterdir()) == [path]
    return text, [str(e) for e in err.value.errors]


def _at(tmp_path: Path, op: str, text: str, needle: str) -> str:
    """``<path>:<line>`` of the one line of ``text`` holding ``needle``."""
    lines = [i + 1 for i, line in enumerate(text.splitlines()) if needle in line]
    assert len(lines) == 1, (needle, lines)
    return f"{tmp_path / f'{op}.yaml'}:{lines[0]}"


@pytest.mark.parametrize("default", ["[-1, -2]", "[]"])
def test_a_list_int_default_of_other_than_one_element_is_one_error(tmp_path: Path, default: str) -> None:
    entry = "{name: axes, from: dim, type: list_int, default: "
    text, errs = _errors(tmp_path, "softmax", entry + "[-1]}", entry + default + "}")
    n = 2 if default == "[-1, -2]" else 0
    assert errs == [
        f"{_at(tmp_path, 'softmax', text, entry)}: device.attrs[0].default: default must be a one-element list for "
        "a list_int attr (it carries one aclnn integer as the list {value}; the tiling reads one element), got "
        f"{n} elements {default}"
    ]


STEP_ALLOWED = (
    "allowed: exp, log, sqrt (one argument, anywhere), sum, max, mean (one argument, as a step's whole formula) "
    "and colsum (one argument, as an output's whole formula, rows form)"
)


@pytest.mark.parametrize(
    ("old", "new", "line", "field_message"),
    [
        # an unknown function in a reduction step: no 'output has no step' nor 'no reduction'
        (
            "s: sum(exp(self - m))",
            "s: summ(exp(self - m))",
            "s: summ(",
            f"compute.steps[1].s: step 's': unknown function summ(); {STEP_ALLOWED}",
        ),
        # a known function with two arguments is not called unknown
        (
            "s: sum(exp(self - m))",
            "s: sum(exp(self, m))",
            "s: sum(",
            "compute.steps[1].s: step 's': exp() takes one argument, got 2",
        ),
        # an unknown name in the first step: the later steps using 'm' are not errors again
        (
            "m: max(self)",
            "m: max(selff)",
            "m: max(selff)",
            "compute.steps[0].m: step 'm': 'selff' is not an input, an earlier step or a float attr; allowed: self",
        ),
        # a step whose name cannot be read: the steps after it may use that name
        (
            "- m: max(self)",
            "- m max(self)",
            "- m max(self)",
            "compute.steps[0]: a step is a one-entry mapping 'name: formula'",
        ),
        # an unknown attr type: compute.dim does not report the attr again
        (
            "    type: int64\n",
            "    type: int46\n",
            "type: int46",
            "attrs[0].type: unknown attr type 'int46'; allowed: bool, bool_array, double, float, int64, int_array, "
            "scalar, string, uint64",
        ),
    ],
)
def test_a_row_reduce_compute_mistake_is_reported_once(
    tmp_path: Path, old: str, new: str, line: str, field_message: str
) -> None:
    text, errs = _errors(tmp_path, "softmax", old, new)
    assert errs == [f"{_at(tmp_path, 'softmax', text, line)}: {field_message}"]


@pytest.mark.parametrize(
    ("op", "old", "new", "line", "field_message"),
    [
        # an attr of an unknown type: the device attr carrying it reports neither its type nor 'missing'
        (
            "smooth_l1_loss_backward",
            "  - name: beta\n    type: float\n",
            "  - name: beta\n    type: flaot\n",
            "type: flaot",
            "attrs[1].type: unknown attr type 'flaot'; allowed: bool, bool_array, double, float, int64, int_array, "
            "scalar, string, uint64",
        ),
        # an unknown function in an elementwise formula
        (
            "gelu_backward",
            'gradInput: "gradOutput * (0.5 + 0.5 * erf(',
            'gradInput: "gradOutput * (0.5 + 0.5 * erff(',
            "erff(",
            "compute.gradInput: unknown function 'erff' (did you mean 'erf'?); allowed here: abs, clamp, erf, exp, "
            "log, log1p, max, min, pow, relu, rsqrt, sigmoid, sign, sqrt, tanh, where",
        ),
        # a bad host scalar: the formula using it is not an error again
        (
            "smooth_l1_loss_backward",
            'invBeta: "1 / beta',
            'invBeta: "1 / sqrtt(beta)',
            "sqrtt(beta)",
            "compute.scalars.invBeta: unknown function 'sqrtt'; allowed here: abs, dim, dtype, max, min, numel, rank",
        ),
    ],
)
def test_an_elementwise_mistake_is_reported_once(
    tmp_path: Path, op: str, old: str, new: str, line: str, field_message: str
) -> None:
    text, errs = _errors(tmp_path, op, old, new)
    assert errs == [f"{_at(tmp_path, op, text, line)}: {field_message}"]


def test_two_independent_mistakes_are_both_reported(tmp_path: Path) -> None:
    """Suppressing follow-on errors keeps independent ones: a bad step and a bad attr type elsewhere."""
    text = (project_paths().specs / "softmax.yaml").read_text()
    text = text.replace("s: sum(exp(self - m))", "s: summ(exp(self - m))").replace(
        "{name: half_to_float, value: false, type: bool, default: false}",
        "{name: half_to_float, value: false, type: bool, default: 3}",
    )
    path = tmp_path / "softmax.yaml"
    path.write_text(text)
    with pytest.raises(SpecErrors) as err:
        load_op_spec(path, CATALOGUE)
    fields = [str(e).split(": ")[1] for e in err.value.errors]
    assert fields == ["compute.steps[1].s", "device.attrs[1].default"], [str(e) for e in err.value.errors]


DTYPES = "BF16, BOOL, DOUBLE, FLOAT, FLOAT16, INT16, INT32, INT64, INT8, UINT16, UINT32, UINT64, UINT8"


@pytest.mark.parametrize(
    ("op", "old", "new", "line", "field_message"),
    [
        # found by a review helper: an unknown dtype of the first input also gave 'device.dtypes: the device
        # dtype order must list exactly the tensors' dtypes (FLOAT)'
        (
            "mse_loss",
            "  - name: self\n    dtypes: [FLOAT, FLOAT16, BF16]\n",
            "  - name: self\n    dtypes: [FLOAT, FLOAT17]\n",
            "dtypes: [FLOAT, FLOAT17]",
            f"inputs[0].dtypes[1]: unknown dtype 'FLOAT17'; allowed: {DTYPES}",
        ),
        # an unknown dtype in device.dtypes itself: not the comparison with the tensors' dtypes again
        (
            "mse_loss",
            "  dtypes: [BF16, FLOAT16, FLOAT]\n",
            "  dtypes: [BF16, FLOAT16, FLAOT]\n",
            "FLAOT",
            f"device.dtypes[2]: unknown dtype 'FLAOT'; allowed: {DTYPES}",
        ),
        # the dtype the example uses was the mistyped one: neither device.dtypes nor the example's dtype
        (
            "binary_cross_entropy",
            "  - name: self\n    dtypes: [FLOAT, FLOAT16, BF16]\n",
            "  - name: self\n    dtypes: [FLAOT, FLOAT16, BF16]\n",
            "FLAOT",
            f"inputs[0].dtypes[0]: unknown dtype 'FLAOT'; allowed: {DTYPES}",
        ),
        # nor the dtype_combos entries using it
        (
            "rms_norm",
            "  - name: gamma\n    dtypes: [FLOAT, FLOAT16, BF16]\n",
            "  - name: gamma\n    dtypes: [FLAOT, FLOAT16, BF16]\n",
            "FLAOT",
            f"inputs[1].dtypes[0]: unknown dtype 'FLAOT'; allowed: {DTYPES}",
        ),
    ],
)
def test_an_unknown_dtype_is_reported_once(
    tmp_path: Path, op: str, old: str, new: str, line: str, field_message: str
) -> None:
    text, errs = _errors(tmp_path, op, old, new)
    assert errs == [f"{_at(tmp_path, op, text, line)}: {field_message}"]


def test_an_unknown_dtype_keeps_the_other_errors(tmp_path: Path) -> None:
    """Only what the unknown dtype may explain is left out: a bad device attr default elsewhere is reported,
    and so is an example dtype that a tensor whose dtypes were all read does not take."""
    old_self = "  - name: self\n    dtypes: [FLOAT, FLOAT16, BF16]\n"
    text = (project_paths().specs / "mse_loss.yaml").read_text()
    for old, new in [
        (old_self, "  - name: self\n    dtypes: [FLOAT, FLOAT17]\n"),
        ("type: string, default: mean}", "type: string, default: meen}"),
        ("    target: {shape: [2, 2], dtype: FLOAT,", "    target: {shape: [2, 2], dtype: INT32,"),
    ]:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / "mse_loss.yaml"
    path.write_text(text)
    with pytest.raises(SpecErrors) as err:
        load_op_spec(path, CATALOGUE)
    assert [str(e) for e in err.value.errors] == [
        f"{_at(tmp_path, 'mse_loss', text, 'FLOAT17')}: inputs[0].dtypes[1]: unknown dtype 'FLOAT17'; allowed: "
        f"{DTYPES}",
        f"{_at(tmp_path, 'mse_loss', text, 'meen')}: device.attrs[0].default: default must be one of the names of "
        "'reduction': none, mean, sum",
        f"{_at(tmp_path, 'mse_loss', text, 'dtype: INT32')}: example.inputs.target.dtype: dtype INT32 is not accepted "
        "by 'target'; allowed: FLOAT, FLOAT16, BF16",
    ]


def test_a_plan_error_the_same_on_every_product_is_one_error_at_the_op(tmp_path: Path) -> None:
    """A planner's error that names no product (log-softmax's output taking fewer dtypes than its input, which a
    row-reduce op without dtype_combos refuses) is a fault of the op: reported once, at the op, with advice
    to change the spec, not once per product with advice to change the catalogue."""
    import shutil
    import subprocess
    import sys

    src = project_paths().specs
    shutil.copy(src / "products.yaml", tmp_path / "products.yaml")
    text = (src / "log_softmax.yaml").read_text()
    outputs = text.index("outputs:")
    old = "dtypes: [FLOAT, FLOAT16, BF16]"
    at = text.index(old, outputs)
    (tmp_path / "log_softmax.yaml").write_text(text[:at] + "dtypes: [FLOAT, FLOAT16]" + text[at + len(old) :])
    cmd = [sys.executable, "-m", "codegen", "--specs", str(tmp_path), "generate", "--out", str(tmp_path / "gen")]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        f"{tmp_path / 'log_softmax.yaml'}:4: op: LogSoftmax: every tensor of a row-reduce op takes the same dtypes "
        "unless the spec lists dtype_combos; 'out' differs; change the op's spec (the same on every product of the op)",
        "1 spec error(s); nothing was written",
    ]
    assert not (tmp_path / "gen").exists()
