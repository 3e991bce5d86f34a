"""Family conformance, generated from the family registry: for every registered family and every catalogue
product one of the family's specs runs on, `opgen explain` gives the generated tiling function's numbers,
the registered OpDef reads back as the spec says, the status cases return their exact statuses and a quick
check passes. A new family gets these tests by being registered; no list here names one.

Also: no shared module names a family (the registry is the only way to one)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from codegen import registry
from codegen.check.case_run import run_case
from codegen.check.cases import Case
from codegen.check.constraints import TensorStandIn
from codegen.check.driver import cases_for
from codegen.check.offsets import device_attrs
from codegen.check.reference import load_reference
from codegen.explain import explain
from codegen.runner import OpCallable
from codegen.spec.model import DType, OpSpec
from codegen.specs import load_project

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE, SPECS = load_project()


def _family_spec(family: str, product: str) -> OpSpec | None:
    """The first spec (by file name) of ``family`` that runs on ``product``."""
    return next((s for _, s in sorted(SPECS.items()) if s.family == family and product in s.products), None)


FAMILY_PRODUCTS = [
    pytest.param(f.name, p.name, id=f"{f.name}-{p.name}")
    for f in registry.families()
    for p in CATALOGUE.products
    if _family_spec(f.name, p.name) is not None
]


def test_every_family_has_a_spec_and_every_spec_a_family() -> None:
    names = registry.family_names()
    assert names, "no family is registered"
    assert {s.family for s in SPECS.values()} <= set(names)
    assert all(any(s.family == n for s in SPECS.values()) for n in names), "a family without a spec is untested"
    assert {f for f, _ in (p.values for p in FAMILY_PRODUCTS)} == set(names)


def test_unknown_family_is_named_with_the_known_ones() -> None:
    with pytest.raises(registry.UnknownFamily, match="unknown family 'nosuch'; known: "):
        registry.family("nosuch")


def _first_int(pattern: str, text: str) -> int:
    found = re.search(pattern, text)
    assert found, f"{pattern!r} not in:\n{text}"
    return int(found.group(1))


#: Shapes `opgen explain --shape` is asked for; a family rejects those of the wrong form (ValueError).
EXPLAIN_SHAPES = [(3, 40, 300), (1000, 32, 4096), (48, 8, 1025), (65_536, 128, 1 << 20), (4096, 256), (100, 1025)]


@pytest.mark.parametrize(("family", "product"), FAMILY_PRODUCTS)
def test_explain_equals_the_generated_tiling_function(
    family: str, product: str, built_op: Callable[[str, str], OpCallable]
) -> None:
    """blockDim, tiling key and workspace that `opgen explain` prints for a shape are those the generated
    tiling function returns for the call explain describes (its tensors, and its attrs: set by the shape,
    else their defaults)."""
    spec = _family_spec(family, product)
    assert spec is not None
    prod = CATALOGUE.get(product)
    fam = registry.family(family)
    fn = built_op(spec.snake, product)
    checked = 0
    for shape in EXPLAIN_SHAPES:
        try:
            text = explain(spec, prod, ",".join(map(str, shape)), None)
        except ValueError:
            continue  # not a shape of this family
        env, _, set_attrs = fam.shape_call(spec, prod, shape, None)
        tensor = {}
        for t in (*spec.inputs, *spec.outputs):
            stand_in = env[t.name]
            assert isinstance(stand_in, TensorStandIn)
            tensor[t.name] = {"shape": list(stand_in.shape), "dtype": stand_in.dtype.name}
        values = {a.name: set_attrs.get(a.name, a.default) for a in spec.attrs}
        dev = spec.device_interface
        # a device input carrying an int_array attr (the reduced dims' sizes): explain reduces the last dim
        # and one carrying a scalar attr: one element of its OpDef column's dtype for the tensor it is like
        request = {
            "inputs": [
                {"shape": [1], "dtype": d.dtype.name}
                if d.dtype is not None
                else {"shape": [1], "dtype": d.like_dtype(DType[tensor[d.like]["dtype"]]).name}
                if d.like is not None
                else tensor[d.source or ""]
                for d in dev.inputs
            ],
            "outputs": [tensor[d.source or ""] for d in dev.outputs],
            "attrs": device_attrs(spec, {k: v for k, v in values.items() if v is not None}),
            # explain prints the non-deterministic decision first; the library's option may linger from a
            # call an earlier test made in deterministic mode, so the request states the mode.
            "deterministic": 0,
        }
        got = fn.run_tiling(request)
        assert got.get("status") == 0, (shape, got)
        assert _first_int(r"blockDim\)?:? (\d+) of", text) == got["block_dim"], shape
        assert _first_int(r"tiling key (\d+)", text) == got["tiling_key"], shape
        assert _first_int(r"(?<!system )workspace:? (\d+) bytes", text) == got["workspace_sizes"][0], shape
        checked += 1
    assert checked >= 2, f"explain accepted only {checked} of the shapes"


@pytest.mark.parametrize(("family", "product"), FAMILY_PRODUCTS)
def test_opdef_reads_back_as_the_spec(family: str, product: str, built_op: Callable[[str, str], OpCallable]) -> None:
    """The OpDef the generated def.cpp registers: OpType, the device interface's inputs and outputs (names,
    REQUIRED/OPTIONAL), attrs (names, REQUIRED/OPTIONAL, defaults), one config per product of the spec, and
    on this product dtypes the spec lists for the tensor's aclnn source and the product supports."""
    spec = _family_spec(family, product)
    assert spec is not None
    prod = CATALOGUE.get(product)
    opdef = built_op(spec.snake, product).opdef()
    dev = spec.device_interface
    assert opdef["op_type"] == spec.op_type
    assert sorted(opdef["configs"]) == sorted(CATALOGUE.get(p).config_name for p in spec.products)
    config = opdef["configs"][prod.config_name] or opdef
    scratch = registry.family(spec.family).scratch_outputs(spec)
    for kind, tensors in (("inputs", dev.inputs), ("outputs", dev.outputs)):
        registered = config[kind]
        if kind == "outputs":  # the family's scratch outputs follow the spec's (the L0 API allocates them)
            assert len(registered) == len(tensors) + scratch
            registered = registered[: len(tensors)]
        assert [t["name"] for t in registered] == [t.name for t in tensors]
        for reg, t in zip(registered, tensors, strict=True):
            if t.dtype is not None:  # an int_array attr as a 1-d tensor: REQUIRED, of its one dtype
                assert (reg["param_type"], set(reg["dtypes"])) == ("REQUIRED", {t.dtype.ge_name}), t.name
                continue
            if t.like is not None:  # a scalar attr as a one-element tensor: REQUIRED, of its like tensor's dtypes
                like = spec.tensor(t.like)
                mapped = {t.like_dtype(d).ge_name for d in like.dtypes if prod.supports(d)}
                assert (reg["param_type"], set(reg["dtypes"])) == ("REQUIRED", mapped), t.name
                continue
            aclnn = spec.tensor(t.source)
            # a tensor list registers DYNAMIC (ops-nn's foreach OpDefs)
            assert reg["param_type"] == ("DYNAMIC" if aclnn.is_list else "OPTIONAL" if aclnn.optional else "REQUIRED")
            assert reg["dtypes"], (kind, t.name)
            allowed = {d.ge_name for d in aclnn.dtypes if prod.supports(d)} | {"DT_FLOAT"}
            assert set(reg["dtypes"]) <= allowed, (kind, t.name, reg["dtypes"])
    assert [a["name"] for a in opdef["attrs"]] == [a.name for a in dev.attrs]
    for reg, a in zip(opdef["attrs"], dev.attrs, strict=True):
        assert reg["attr_type"] == ("REQUIRED" if a.default is None else "OPTIONAL")
        want = list(a.default) if isinstance(a.default, tuple) else a.default  # a ListInt as a list
        if a.type == "float" and want is not None:  # a Float attr holds the fp32 value (1e-6 is not one)
            want = float(np.float32(want))
        assert reg["default"] == want


def _family_cases(family: str, product: str, status: bool) -> tuple[OpSpec, list[Case]]:
    spec = _family_spec(family, product)
    assert spec is not None
    prod = CATALOGUE.get(product)
    first = spec.inputs[0].dtypes_for(prod)[0].name
    cases = [c for c in cases_for(spec, prod, {first}, True) if (c.expect_status is not None) == status]
    return spec, cases


@pytest.mark.parametrize(("family", "product"), FAMILY_PRODUCTS)
def test_status_matrix_returns_the_exact_statuses(
    family: str, product: str, built_op: Callable[[str, str], OpCallable]
) -> None:
    """Every status case of the family's quick matrix (null tensors, rejected dtypes, formats, shapes and
    constraint violations) returns its exact aclnnStatus."""
    spec, cases = _family_cases(family, product, status=True)
    assert len(cases) >= 10, "the status matrix is nearly empty"
    fn, ref = built_op(spec.snake, product), load_reference(spec)
    failed = [(c.name, r.message) for c in cases if not (r := run_case(fn, c, ref)).passed]
    assert not failed, failed[:5]


@pytest.mark.parametrize(("family", "product"), FAMILY_PRODUCTS)
def test_quick_check_passes(family: str, product: str, built_op: Callable[[str, str], OpCallable]) -> None:
    """The value cases of ``opgen check --quick`` in the first dtype pass (every core order of a case is
    ``opgen check``'s business; here each runs in its own order)."""
    spec, cases = _family_cases(family, product, status=False)
    assert len(cases) >= 10, "the quick matrix is nearly empty"
    fn, ref = built_op(spec.snake, product), load_reference(spec)
    failed = [(c.name, r.message) for c in cases if not (r := run_case(fn, c, ref)).passed]
    assert not failed, failed[:5]


def _family_spellings() -> re.Pattern[str]:
    """Every registered family's name as words may spell it: ``a_b``, ``a-b``, ``a b``, ``AB``, and with a
    trailing ``e`` of a word dropped (``accumulation``). A spelling inside a longer name is not a mention of the
    family: after a letter, digit or ``_`` (PyTorch's ``torch._foreach_mul``), or followed by a letter or digit
    (an aclnn API such as ``ForeachSqrt``, named by the torch integration's table as ``Softmax`` is); before
    ``_`` it is (``row_reduce_plan``)."""
    spellings = []
    for name in registry.family_names():
        words = [w[:-1] if w.endswith("e") and len(w) > 3 else w for w in name.split("_")]
        spellings.append(r"[\s_-]?".join(map(re.escape, words)))
    # the spelling in any case, then the rest of its word in lower case: not a new CamelCase word or a digit
    # (the rest taken whole, by a lookahead and its backreference: no backtracking into it)
    return re.compile(r"(?<![A-Za-z0-9_])(?i:" + "|".join(spellings) + r")(?=([a-z]*))\1(?![A-Z0-9])")


def _shared_mentions(root: Path) -> list[str]:
    pattern = _family_spellings()
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent).as_posix()
        if rel.startswith("codegen/families/"):
            continue
        for lineno, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line):
                found.append(f"{rel}:{lineno}: {line.strip()}")
    return found


def test_no_shared_module_names_a_family() -> None:
    """Outside ``codegen/families/`` no Python module of codegen mentions a registered family (templates'
    file names and the specs are the other places a family's name may appear)."""
    assert _shared_mentions(ROOT / "codegen") == []


def test_the_family_name_scan_finds_a_mention(tmp_path: Path) -> None:
    pkg = tmp_path / "codegen"
    (pkg / "families" / "x").mkdir(parents=True)
    for name in registry.family_names():
        words = name.split("_")
        (pkg / "families" / "x" / "ok.py").write_text(f"# {name}\n")
        (pkg / "shared.py").write_text(f"# one\n# the {' '.join(words).title()} thing\n")
        assert _shared_mentions(pkg) == [f"codegen/shared.py:2: # the {' '.join(words).title()} thing"]
        (pkg / "shared.py").write_text(f"X = '{''.join(w.title() for w in words)}'\n")
        assert len(_shared_mentions(pkg)) == 1
        (pkg / "shared.py").write_text(f"import codegen.families.{name}\nY = {name}_plan\n")
        assert len(_shared_mentions(pkg)) == 2
        # inside a longer name: a PyTorch function (torch._<name>_x), an aclnn API (<Name>Sqrt)
        (pkg / "shared.py").write_text(f"f = torch._{name}_x\napi = '{''.join(w.title() for w in words)}Sqrt'\n")
        assert _shared_mentions(pkg) == []


def test_templates_see_views_only() -> None:
    """No template reads a ``spec`` variable, and no family's view carries an OpSpec (templates get the
    op's :class:`codegen.plan.views.OpView` as ``op``)."""
    from jinja2 import meta

    from codegen.render import make_environment

    env = make_environment(ROOT / "templates")
    for path in sorted((ROOT / "templates").rglob("*.j2")):
        source = path.read_text()
        assert "spec" not in meta.find_undeclared_variables(env.parse(source)), path

    import dataclasses
    from collections.abc import Mapping

    def walk(value: object) -> bool:
        if isinstance(value, OpSpec):
            return True
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return any(walk(getattr(value, f.name)) for f in dataclasses.fields(value))
        if isinstance(value, Mapping):
            return any(walk(v) for v in value.values())
        if isinstance(value, (list, tuple)):
            return any(walk(v) for v in value)
        return False

    for fam in registry.families():
        spec = next(s for _, s in sorted(SPECS.items()) if s.family == fam.name)
        views = fam.build_views(spec, CATALOGUE)
        for kind, view in views.views.items():
            assert "spec" not in view.context() and not walk(view), (fam.name, kind)
        op = views.view_for("kernel_cpp").op  # type: ignore[union-attr]
        assert op.op_type == spec.op_type and op.tiling.buffer_num == spec.tiling.buffer_num


@pytest.mark.parametrize("family", registry.family_names())
def test_validation_happens_at_plan_time(family: str) -> None:
    """A catalogue whose products have 64 bytes of UB and one queue buffer per position cannot hold any op:
    the family's plan-time validation rejects it, before a view is built."""
    import dataclasses

    from codegen.spec.errors import SpecErrors

    spec = next(s for _, s in sorted(SPECS.items()) if s.family == family)
    tiny = dataclasses.replace(
        CATALOGUE,
        products=tuple(dataclasses.replace(p, ub_bytes=64, queue_buffer_cap=1) for p in CATALOGUE.products),
    )
    with pytest.raises((SpecErrors, ValueError)):
        registry.family(family).validate(spec, tiny)
    registry.family(family).validate(spec, CATALOGUE)  # the real catalogue holds it


def test_an_elementwise_formula_is_compiled_once_per_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    """Validating, planning and viewing an op compiles its formula once (all optional-input variants in
    one compiler call), however many products and dtypes the view covers."""
    from codegen.families.elementwise.plan import tiling
    from codegen.families.elementwise.plan import variants as plan

    calls: list[str] = []
    real = plan.compile_variants

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(str(args[0]))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    plan._compile_variants.cache_clear()
    monkeypatch.setattr(plan, "compile_variants", counting)
    fam = registry.family("elementwise")
    spec = next(s for _, s in sorted(SPECS.items()) if s.family == "elementwise")
    fam.validate(spec, CATALOGUE)
    fam.build_views(spec, CATALOGUE)
    for p in spec.products:
        tiling.tiling_decision(spec, CATALOGUE.get(p), (1 << 20,), plan.compute_dtypes(spec)[0])
    plan._compile_variants.cache_clear()
    assert len(calls) == 1
