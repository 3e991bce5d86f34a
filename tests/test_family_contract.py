"""The family contract (:mod:`codegen.registry.contract`): the registry checks a family's stage module against its
stage's protocol when it loads it, and mypy checks the hooks' types through the protocols.

Fake families are packages written to a temporary folder that is added to :mod:`codegen.families`' path."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

import codegen.families
from codegen import registry
from codegen.registry import contract
from codegen.registry.contract import FamilyContractError

ROOT = Path(__file__).resolve().parents[1]

PLAN_OK = """\
__all__ = ["build_views", "scratch_outputs"]


def build_views(spec, catalogue):
    return "views of " + spec


def scratch_outputs(spec):
    return 3
"""


@pytest.fixture
def fake_family(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str, dict[str, str]], None]]:
    """Writes fake family packages (name -> {stage module: source}) that the registry then finds."""
    monkeypatch.setattr(codegen.families, "__path__", [*codegen.families.__path__, str(tmp_path)])
    written: list[str] = []

    def write(name: str, stages: dict[str, str]) -> None:
        package = tmp_path / name
        package.mkdir()
        (package / "__init__.py").write_text(
            f"from codegen.registry import Family\n\nFAMILY = Family(name={name!r}, summary='a fake family')\n"
        )
        for stage, source in stages.items():
            (package / f"{stage}.py").write_text(source)
        written.append(name)
        registry._registry.cache_clear()

    yield write
    for name in written:
        package = f"codegen.families.{name}"
        for key in [k for k in sys.modules if k == package or k.startswith(package + ".")]:
            del sys.modules[key]
    registry._registry.cache_clear()
    registry._checked_stage.cache_clear()


def test_a_conforming_fake_family_is_called_through_its_hooks(fake_family: Callable[..., None]) -> None:
    fake_family("fake_ok", {"plan": PLAN_OK})
    fam = registry.family("fake_ok")
    assert fam.build_views("x", None) == "views of x"  # type: ignore[arg-type]
    assert fam.scratch_outputs("x") == 3  # type: ignore[arg-type]
    fam.validate("x", None)  # type: ignore[arg-type]  # no validate hook: nothing to run


def test_an_absent_optional_hook_gets_its_default(fake_family: Callable[..., None]) -> None:
    plan = '__all__ = ["build_views"]\n\n\ndef build_views(spec, catalogue):\n    pass\n'
    fake_family("fake_no_scratch", {"plan": plan})
    assert registry.family("fake_no_scratch").scratch_outputs("x") == 0  # type: ignore[arg-type]


BROKEN_PLANS = {
    "missing": (
        '__all__ = ["validate"]\n\n\ndef validate(spec, catalogue):\n    pass\n',
        "family 'fake_missing': stage 'plan' (codegen.families.fake_missing.plan) lacks the required hook "
        "'build_views(spec, catalogue)'",
    ),
    "unknown": (
        '__all__ = ["build_views", "helper"]\n\n\ndef build_views(spec, catalogue):\n    pass\n\n\n'
        "def helper():\n    pass\n",
        "family 'fake_unknown': stage 'plan' (codegen.families.fake_unknown.plan) lists 'helper' in __all__, which "
        "is no hook of the stage (hooks: build_views, validate, scratch_outputs)",
    ),
    "unlisted": (
        '__all__ = ["build_views"]\n\n\ndef build_views(spec, catalogue):\n    pass\n\n\n'
        "def validate(spec, catalogue):\n    pass\n",
        "family 'fake_unlisted': stage 'plan' (codegen.families.fake_unlisted.plan) has the hook 'validate' but "
        "does not list it in __all__",
    ),
    "parameters": (
        '__all__ = ["build_views"]\n\n\ndef build_views(spec):\n    pass\n',
        "family 'fake_parameters': stage 'plan' (codegen.families.fake_parameters.plan): the hook 'build_views' "
        "takes (spec); the contract says (spec, catalogue)",
    ),
    "no_all": (
        "def build_views(spec, catalogue):\n    pass\n",
        "family 'fake_no_all': stage 'plan' (codegen.families.fake_no_all.plan) has no __all__; list its hooks "
        "there (build_views, validate, scratch_outputs)",
    ),
}


@pytest.mark.parametrize("broken", list(BROKEN_PLANS))
def test_a_stage_breaking_the_contract_fails_at_load_naming_the_family(
    broken: str, fake_family: Callable[..., None]
) -> None:
    source, message = BROKEN_PLANS[broken]
    fake_family(f"fake_{broken}", {"plan": source})
    fam = registry.family(f"fake_{broken}")
    with pytest.raises(FamilyContractError) as raised:
        fam.build_views("x", None)  # type: ignore[arg-type]
    assert str(raised.value) == message
    with pytest.raises(FamilyContractError):  # every hook of the stage: the check is not skipped a second time
        fam.scratch_outputs("x")  # type: ignore[arg-type]


def test_an_optional_hook_keeps_its_keyword_with_a_default(fake_family: Callable[..., None]) -> None:
    cases = (
        '__all__ = ["check_cases", "check_offsets", "infer_output", "derived_bound"]\n\n\n'
        "def check_cases(spec, product, dtypes, quick):\n    return []\n\n\n"
        "def check_offsets(fn, case, got, tiling):\n    return ''\n\n\n"
        "def infer_output(spec, arrays, attrs):\n    pass\n\n\n"
        "def derived_bound(spec, product, params, expected, lazy):\n    pass\n"
    )
    fake_family("fake_bound", {"cases": cases})
    with pytest.raises(FamilyContractError, match=re.escape("takes (spec, product, params, expected, lazy); ")):
        registry.family("fake_bound").derived_bound(None, None, {}, None)  # type: ignore[arg-type]


def test_every_family_stage_conforms() -> None:
    for fam in registry.families():
        for stage, rule in contract.STAGES.items():
            module = fam.stage(stage)
            assert set(rule.required_hooks) <= set(module.__all__), (fam.name, stage)


def _declared(module: ModuleType) -> set[str]:
    """The protocols a stage module declares itself as for mypy: each ``_x: contract.<Protocol> = _self`` under
    ``if TYPE_CHECKING:`` whose ``_self`` is the module itself (``from <its package> import <stage> as _self``)."""
    tree = ast.parse(Path(module.__file__ or "").read_text())
    package, _, stage = module.__name__.rpartition(".")
    out = set()
    for node in tree.body:
        if not (isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"):
            continue
        selves = {
            alias.asname or alias.name
            for stmt in node.body
            if isinstance(stmt, ast.ImportFrom) and stmt.module == package
            for alias in stmt.names
            if alias.name == stage
        }
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.value, ast.Name) and stmt.value.id in selves:
                out.add(ast.unparse(stmt.annotation).removeprefix("contract."))
    return out


@pytest.mark.parametrize("family", registry.family_names())
def test_every_hook_a_family_lists_is_declared_for_mypy(family: str) -> None:
    """Each stage module of a family assigns itself to its stage protocol and to the protocol of each optional
    hook it lists, so ``mypy codegen bench`` checks every hook's signature."""
    fam = registry.family(family)
    for stage, rule in contract.STAGES.items():
        module = fam.stage(stage)
        want = {rule.protocol.__name__}
        want |= {rule.hook_protocol(h).__name__ for h in module.__all__ if h in rule.optional_hooks}
        assert _declared(module) == want, (family, stage)


MYPY_PLAN_WRONG = """\
from typing import TYPE_CHECKING

from codegen.plan.views import OpViews
from codegen.spec.model import Catalogue, OpSpec

__all__ = ["build_views", "validate"]


def build_views(spec: OpSpec, catalogue: Catalogue) -> OpViews:
    raise NotImplementedError


def validate(spec: OpSpec, catalogue: Catalogue) -> bool:
    return True


if TYPE_CHECKING:
    from fakefam import plan as _self

    from codegen.registry import contract

    _contract: contract.Plan = _self
    _validate: contract.PlanValidate = _self
"""

MYPY_EXPLAIN_MISSING = """\
from typing import TYPE_CHECKING

from codegen.spec.model import OpSpec, Product

__all__ = ["explain_tensors", "explain_tiling"]


def explain_tensors(spec: OpSpec, shape: tuple[int, ...]) -> list[tuple[str, tuple[int, ...]]]:
    return []


def explain_tiling(spec: OpSpec, product: Product, shape: tuple[int, ...], dtype_name: str | None) -> str:
    return ""


if TYPE_CHECKING:
    from fakefam import explain as _self

    from codegen.registry import contract

    _contract: contract.Explain = _self
"""


def test_mypy_rejects_a_hook_of_the_wrong_signature_and_a_missing_required_hook(tmp_path: Path) -> None:
    """A stage module's declaration of itself fails mypy for a hook of another return type and for a stage
    without a required hook, and passes for a conforming stage (plan's ``_contract``, line 22)."""
    package = tmp_path / "fakefam"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "plan.py").write_text(MYPY_PLAN_WRONG)
    (package / "explain.py").write_text(MYPY_EXPLAIN_MISSING)
    env = {**os.environ, "MYPYPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "--cache-dir", str(tmp_path / "cache"), "-p", "fakefam"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert done.returncode == 1, done.stdout + done.stderr
    assert [(Path(e.split(":")[0]).name, e.split(":")[1]) for e in errors] == [
        ("plan.py", "23"),
        ("explain.py", "21"),
    ], done.stdout
    assert 'variable has type "PlanValidate"' in errors[0]
    assert 'variable has type "Explain"' in errors[1]
    assert "def validate(spec: OpSpec, catalogue: Catalogue) -> bool" in done.stdout  # the hook mypy rejects
    assert re.search(r'missing following "Explain" protocol member:\n.*shape_call', done.stdout), done.stdout
