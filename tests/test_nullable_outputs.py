"""Nullable outputs (``nullable: true`` on an output, ``present()`` in constraints), the mechanism as a whole:

- the spec rules: the first output cannot be nullable, an input has no ``nullable`` key, ``present()`` is a
  constraint function only (file:line and field in each error);
- ``present()`` evaluated in Python (a null tensor, an output the call allocates) and printed in C++;
- the check's case rule: every set of null nullable outputs is a call of its own, a value case or the status
  of the constraint refusing it (AddRmsNorm's three modes and its 161001/161002 rows on Ascend910B);
- a kernel that ignores the tiling's ``writeMask`` writes an output launched with no element: ``opgen check``
  fails exactly the null-output cases (a GM fault), so the absent output's memory is never written.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from generated_mutant import check_mutant

from codegen.check.constraints import call_env
from codegen.families.row_reduce.cases import check_cases
from codegen.families.row_reduce.cases.null_outputs import absent_sets
from codegen.plan.constraints import constraint_view
from codegen.spec.errors import NO_LOC, SpecErrors
from codegen.spec.expr import evaluate, parse_expr
from codegen.spec.loader import load_op_spec
from codegen.spec.model import DType
from codegen.specs import load_project

CATALOGUE, SPECS = load_project()
SPEC = SPECS["add_rms_norm"]
SOURCE = (Path(__file__).resolve().parents[1] / "specs" / "add_rms_norm.yaml").read_text()


def _line(text: str) -> int:
    """The 1-based line of the spec where ``text`` starts."""
    return SOURCE[: SOURCE.index(text)].count("\n") + 1


def _errors(tmp_path: Path, *edits: tuple[str, str]) -> tuple[Path, list[str]]:
    text = SOURCE
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    f = tmp_path / "add_rms_norm.yaml"
    f.write_text(text)
    with pytest.raises(SpecErrors) as exc:
        load_op_spec(f, CATALOGUE)
    return f, [str(e) for e in exc.value.errors]


def test_the_first_output_cannot_be_nullable(tmp_path: Path) -> None:
    f, errs = _errors(tmp_path, ("  - name: yOut\n    dtypes:", "  - name: yOut\n    nullable: true\n    dtypes:"))
    assert errs == [
        f"{f}:{_line('  - name: yOut') + 1}: outputs[0].nullable: the first output cannot be nullable (the op's "
        "result; its shape decides whether a kernel runs); make a later output nullable"
    ]


def test_an_input_has_no_nullable_key(tmp_path: Path) -> None:
    f, errs = _errors(tmp_path, ("  - name: x2\n    dtypes:", "  - name: x2\n    nullable: true\n    dtypes:"))
    assert errs == [
        f"{f}:{_line('  - name: x2') + 1}: inputs[1].nullable: unknown key 'nullable'; allowed: default, "
        "description, dtypes, formats, header_name, list, name, optional, product_dtypes, rank"
    ]


def test_present_is_a_constraint_function_of_tensors_only(tmp_path: Path) -> None:
    f, errs = _errors(tmp_path, ('require: "present(xOut) or not present(rstdOut)"', 'require: "present(epsilon)"'))
    line = _line('    require: "present(xOut)')
    assert len(errs) == 1 and errs[0].startswith(f"{f}:{line}: constraints[0].require: "), errs
    assert "present" in errs[0] and "tensor" in errs[0]


def test_present_in_python_and_cpp() -> None:
    x = np.zeros((2, 8), np.float16)
    given = {"x1": x, "x2": x, "gamma": np.zeros(8, np.float16), "epsilon": 1e-6}
    product = CATALOGUE.get("Ascend910B")
    both = parse_expr("present(xOut) or not present(rstdOut)", NO_LOC, "require")
    # an output the call allocates (left out) is present; one passed as None is not
    assert evaluate(both, call_env(SPEC, product, given)) is True
    assert evaluate(both, call_env(SPEC, product, {**given, "xOut": None})) is False
    assert evaluate(both, call_env(SPEC, product, {**given, "xOut": None, "rstdOut": None})) is True
    checks = {c.name: c for c in constraint_view(SPEC, CATALOGUE).constraints}
    assert checks["rstd_needs_x"].require == "((xOut != nullptr) || (!(rstdOut != nullptr)))"
    assert checks["null_rstd_dtype"].guard == "(!(rstdOut != nullptr))"


def test_every_set_of_null_outputs_is_a_case_with_its_status() -> None:
    assert absent_sets(SPEC) == [("rstdOut",), ("xOut",), ("rstdOut", "xOut")]
    product = CATALOGUE.get("Ascend910B")
    cases = [
        c
        for c in check_cases(SPEC, product, [DType.FLOAT16, DType.FLOAT], quick=True)
        if c.name.startswith("null ") and c.shape != "error"
    ]
    got = {(c.dtype, c.name.split(":")[0], c.shape, c.expect_status) for c in cases}
    want = set()
    for dt in ("FLOAT16", "FLOAT"):
        for shape in ("[5, 33]", "[2, 3, 4, 5]"):
            want.add((dt, "null xOut", shape, 161001))  # rstdOut given without xOut
            for absent in ("null rstdOut", "null rstdOut, xOut"):
                # with rstdOut null: FLOAT refused, a gamma of 3 dims refused, else a value case
                status = 161002 if dt == "FLOAT" or shape == "[2, 3, 4, 5]" else None
                want.add((dt, absent, shape, status))
    assert got == want
    for c in cases:
        absent = c.name.split(":")[0].removeprefix("null ").split(", ")
        assert all(c.params[n] is None for n in absent)
        assert all(isinstance(c.params[n], np.ndarray) for n in SPEC.output_names if n not in absent)


@pytest.mark.heavy(150)
def test_a_kernel_writing_an_output_passed_as_null_fails_the_null_cases(tmp_path: Path) -> None:
    # CopyOut no longer skips an output whose writeMask bit is clear
    ignores_mask = ("    if (!Writes(o)) {\n      return;\n    }\n", "")
    failed = check_mutant(tmp_path, "add_rms_norm", "kernel_cpp", (ignores_mask,), dtype="FLOAT16")
    names = sorted(c["name"] for c in failed)
    assert names and all(n.startswith("null rstdOut") for n in names), names
    assert all("SetGlobalBuffer was never called" in c["message"] for c in failed), failed[0]["message"]
