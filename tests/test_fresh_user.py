"""Defects a new user found by following the manual and trying to break each command: each test fails on
the code before its fix (the test's docstring quotes what the user saw). Covered: the row_reduce family's
lowest-rank check and its case, ``--dtype`` and the row_reduce status cases, the softmax tolerance in fp32's
subnormal range, ``opgen explain`` (non-ASCII digits, unsupported products, the UB budget line, an empty
rows input), the rows input's empty message, ``formats=`` types, a reduce op's example, unique case idents
(shards), ``nothing to check`` messages and the line of a non-UTF-8 byte in a spec.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from codegen.paths import project_paths
from codegen.runner import AclnnError, compile_op
from codegen.specs import load_project

pytestmark = pytest.mark.heavy(90)  # one op build of a spec copy

PROJECT = project_paths()


def _opgen(specs: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codegen", "--specs", str(specs), *args],
        env={**os.environ},
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


@pytest.fixture(scope="module")
def rank1_softmax(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(specs dir, generated dir) of a copy of the Softmax spec whose tensors have rank 1-8."""
    root = tmp_path_factory.mktemp("rank1")
    (root / "specs").mkdir()
    (root / "reference").mkdir()
    text = (PROJECT.specs / "softmax.yaml").read_text()
    assert text.count("rank: [0, 8]") == 2
    (root / "specs" / "softmax.yaml").write_text(text.replace("rank: [0, 8]", "rank: [1, 8]"))
    shutil.copy(PROJECT.specs / "products.yaml", root / "specs" / "products.yaml")
    shutil.copy(PROJECT.reference / "softmax.py", root / "reference" / "softmax.py")
    gen = _opgen(root / "specs", "generate", "--out", str(root / "generated"))
    assert gen.returncode == 0, gen.stderr
    return root / "specs", root / "generated"


def test_a_row_reduce_op_rejects_a_rank_below_its_spec(rank1_softmax: tuple[Path, Path]) -> None:
    specs, generated = rank1_softmax
    f = compile_op("softmax", "Ascend910B", generated=generated, specs_dir=specs)
    one = f(self=np.array([0.0, np.log(3.0)], np.float32), dim=0)
    np.testing.assert_allclose(one, [0.25, 0.75], rtol=1e-6)
    with pytest.raises(AclnnError) as e:
        f(self=np.ones((), np.float32), dim=-1)
    assert e.value.status == 161002
    assert "self" in e.value.message


def test_the_check_matrix_has_a_case_below_the_lowest_rank(rank1_softmax: tuple[Path, Path]) -> None:
    from codegen.check.driver import cases_for

    specs, _ = rank1_softmax
    catalogue, ops = load_project(specs)
    spec = ops["softmax"]
    cases = cases_for(spec, catalogue.get("Ascend910B"), {"FLOAT"}, True)
    below = [c for c in cases if c.name.startswith("rank 0 (below 1)")]
    assert len(below) == 1
    assert below[0].expect_status == 161002
    assert below[0].params["self"].shape == ()


def test_dtype_selection_keeps_only_cases_of_that_dtype() -> None:
    """``opgen check --dtype FLOAT`` keeps the cases whose compute dtype is FLOAT: aclnnRmsNorm's status
    cases ran in FLOAT16 (the first dtype of its combinations) whatever ``--dtype`` selected."""
    from codegen.check.driver import cases_for

    catalogue, ops = load_project()
    product = catalogue.get("Ascend910B")
    for op in ("rms_norm", "softmax"):
        for chosen in ("FLOAT", "FLOAT16"):
            cases = cases_for(ops[op], product, {chosen}, True)
            assert cases, (op, chosen)
            # the dtype column is the first input's dtype, with the combination's other tensors after it
            assert {c.dtype.split(" ")[0] for c in cases} == {chosen}, (op, chosen)
            assert any(c.expect_status == 161001 for c in cases), (op, chosen)  # the null cases still run


def test_softmax_tolerance_admits_an_exp_ulp_in_the_subnormal_range() -> None:
    """A softmax output in fp32's subnormal range (``exp(-100)`` next to ``exp(0)``) comes from an ``Exp``
    whose few-ULP error is absolute there (units of ``2**-149``); the tolerance must accept a result one such
    unit off. It did not (an AscendNew catalogue product with 64 KiB UB failed 'large dynamic range, inner 3'
    with 8.41e-45 against 9.51e-45)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("softmax_ref", PROJECT.reference / "softmax.py")
    assert spec is not None and spec.loader is not None
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    x = np.array([0.0, -100.0], np.float32)
    exact = ref.reference(x, 0)
    assert 0 < exact[1] < np.finfo(np.float32).smallest_normal
    atol, rtol = ref.tolerance(x, 0)
    rounded = np.float32(exact[1])
    one_off = np.float32(rounded - np.float32(2.0**-149))
    bound = atol[1] + rtol * abs(exact[1]) + np.spacing(rounded) / 2
    assert abs(float(one_off) - exact[1]) <= bound
    # still tight for normal outputs: the first element's bound stays within a few ULPs
    assert atol[0] < 1e-4 * exact[0]


@pytest.mark.parametrize("text", ["²", "１,２", "4,٣"])
def test_explain_shape_takes_ascii_digits_only(text: str) -> None:
    """``opgen explain --shape '²'`` printed Python's ``invalid literal for int()``; ``'１,２'`` (full-width)
    was taken as ``[1, 2]``. Both are the documented one-line shape error, exit 2."""
    got = subprocess.run(
        [sys.executable, "-m", "codegen", "explain", "mse_loss", "--product", "Ascend910B", "--shape", text],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert got.returncode == 2
    assert got.stdout == ""
    assert got.stderr.strip() == (
        f"error: --shape {text!r}: expected non-negative integers separated by ',' or 'x', e.g. 1024,4096 or "
        "1024x4096, "
        "or 'scalar' (also '') for a 0-d tensor"
    )


@pytest.mark.parametrize(("op", "product"), [("rms_norm", "Ascend910"), ("softmax_backward", "Ascend310P")])
def test_explain_with_a_shape_on_a_product_the_row_op_does_not_list(op: str, product: str) -> None:
    """The manual (docs/commands.md): on a product the op does not support the report is marked NOT
    SUPPORTED and ends with ``no tiling: ...``. A row_reduce op with ``--shape`` there failed instead with
    ``RmsNorm takes FLOAT16, BF16, FLOAT; got FLOAT16``."""
    from codegen.explain import explain

    catalogue, ops = load_project()
    spec = ops[op]
    text = explain(spec, catalogue.get(product), "4,16", None)
    lines = text.splitlines()
    assert f"  NOT SUPPORTED on {product} (spec products: {', '.join(spec.products)})" in lines
    assert lines[-1] == f"no tiling: {spec.aclnn_name} does not run on {product}"


def test_explain_budget_line_adds_up_for_a_reduce_epilogue() -> None:
    """``opgen explain mse_loss --product Ascend910 --shape 1000,1000`` printed ``UB budget: 262112 bytes
    (262144 - 0 reserved)`` (the 32-byte tile sum block missing from the sum) and, on its one core,
    ``former cores 0 x 1000008 elements, others 1000000``."""
    from codegen.explain import explain

    catalogue, ops = load_project()
    lines = explain(ops["mse_loss"], catalogue.get("Ascend910"), "1000,1000", None).splitlines()
    assert "  UB budget: 262112 bytes (262144 - 0 reserved - 32 fp32 tile sum block)" in lines
    assert "  cores used (blockDim): 1 of 32; 1000000 elements each" in lines
    plain = explain(ops["soft_margin_loss_backward"], catalogue.get("Ascend910B"), "4096,4096", None).splitlines()
    assert "  UB budget: 196608 bytes (196608 - 0 reserved)" in plain


def test_rms_norm_empty_gamma_message_says_empty() -> None:
    """An empty ``gamma`` (with an ``x`` of an empty last dim) was refused with ``gamma must have the shape of
    the last 1 dims of x and not be empty, but dim 0 is 0 (want 0)``: the shapes agree, the message now
    names the emptiness; a gamma of another shape names the dim that differs."""
    f = compile_op("rms_norm", "Ascend910B")
    with pytest.raises(AclnnError) as e:
        f(x=np.ones((4, 0), np.float32), gamma=np.ones(0, np.float32))
    assert e.value.status == 561002
    assert e.value.message == "gamma must not be empty, but dim 0 is 0 (shape [0])."
    with pytest.raises(AclnnError) as e:
        f(x=np.ones((4, 16), np.float32), gamma=np.ones(8, np.float32))
    assert e.value.status == 561002
    assert e.value.message == "gamma must have the shape of the last 1 dims of x, but dim 0 is 8 (want 16)."


@pytest.mark.parametrize("formats", ["ND", ["self"], {"self": ["NCHW"]}, {"self": 3}])
def test_formats_of_the_wrong_type_is_a_type_error(formats: object) -> None:
    """``f(..., formats="ND")`` raised ``AttributeError: 'str' object has no attribute 'items'`` and a list
    as a format ``TypeError: unhashable type``; both are a TypeError naming ``formats``."""
    f = compile_op("mse_loss", "Ascend910B")
    a = np.ones((2, 3), np.float32)
    with pytest.raises(TypeError, match=r"^aclnnMseLoss: (formats takes a dict|the format of 'self' must be)"):
        f(self=a, target=a, reduction=0, formats=formats)
    assert f(self=a, target=a, reduction=2, formats={"self": "ND"}) == 0.0


@pytest.mark.parametrize("shape", ["3,0", "0"])
def test_explain_refuses_an_empty_rows_input(shape: str) -> None:
    """``opgen explain rms_norm --shape 3,0`` printed a tiling (3 cores) for a call whose gamma ``[0]`` the L2
    API refuses with 561002 (``f(x=np.ones((3, 0)), gamma=np.ones(0))``); it is now the shape error."""
    from codegen.explain import explain

    catalogue, ops = load_project()
    want = r"gamma \[0\] would be empty: aclnnRmsNorm refuses an empty gamma \(status 561002\)"
    with pytest.raises(ValueError, match=want):
        explain(ops["rms_norm"], catalogue.get("Ascend910B"), shape, None)
    assert "tiling" in explain(ops["rms_norm"], catalogue.get("Ascend910B"), "0,4", None)


def test_case_idents_are_unique_in_every_op_matrix() -> None:
    """Each case of an (op, product) matrix has its own ident (``op/product/dtype/name``): the shards, the
    JSON, the cost table and ``opgen report merge`` key on it. The loss forwards had two cases named
    ``reduction=3 -> 161002`` (and ``=-1``), so ``opgen check l1_loss --shard 1/2`` and ``2/2`` each ran one
    and ``opgen report merge`` refused the pair: ``case ... is in both ...: the shards overlap``."""
    import collections

    from codegen.check.driver import cases_for

    catalogue, ops = load_project()
    for name, spec in ops.items():
        cases = cases_for(spec, catalogue.get(spec.products[0]), None, True)
        seen = collections.Counter(f"{c.op}/{c.product}/{c.dtype}/{c.name}" for c in cases)
        assert [k for k, n in seen.items() if n > 1] == [], name


def test_check_on_a_product_no_selected_op_runs_on_names_their_products(tmp_path: Path) -> None:
    """``opgen check softmax --product Ascend310P`` said only ``nothing to check: no (op, product) matches``;
    it now names the ops' products (exit 2, nothing built). An empty spec directory says so."""
    got = _opgen(PROJECT.specs, "check", "softmax", "--product", "Ascend310P", "--quick")
    assert got.returncode == 2
    assert got.stderr.strip() == (
        "nothing to check: no selected op runs on --product Ascend310P "
        "(the ops' products: softmax: Ascend910, Ascend910B, Ascend910_93, Ascend950)"
    )
    (tmp_path / "specs").mkdir()
    shutil.copy(PROJECT.specs / "products.yaml", tmp_path / "specs" / "products.yaml")
    empty = _opgen(tmp_path / "specs", "check")
    assert empty.returncode == 2
    assert empty.stderr.strip() == "nothing to check: the spec directory holds no op spec"


def test_a_spec_that_is_not_utf8_names_the_line_of_the_bad_byte(tmp_path: Path) -> None:
    """A Latin-1 byte on the last line of a spec was reported at line 1; it is the line of that byte (as a
    NUL or a YAML syntax error already were). CRLF files still read as before."""
    from codegen.spec.errors import SpecError
    from codegen.spec.yaml_reader import read_yaml

    text = (PROJECT.specs / "mse_loss.yaml").read_bytes()
    lines = text.count(b"\n")
    bad = tmp_path / "mse_loss.yaml"
    bad.write_bytes(text + b"# caf\xe9\n")
    errors: list[SpecError] = []
    assert read_yaml(bad, errors) is None
    assert [(e.loc.line, e.field) for e in errors] == [(lines + 1, "yaml")]
    assert "can't decode byte 0xe9" in errors[0].message
    crlf = tmp_path / "crlf.yaml"
    crlf.write_bytes(text.replace(b"\n", b"\r\n"))
    errors = []
    node = read_yaml(crlf, errors)
    assert errors == [] and node is not None
