"""Typed views: every generated file kind renders from a frozen view dataclass whose fields are exactly the
variables its template reads, and the renderer rejects a family whose view of a kind is anything else.

Generated from the family registry and the template folder; no list here names a family or a template."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

import jinja2
import pytest
from jinja2 import meta, nodes

from codegen import registry
from codegen.paths import ProjectPaths, project_paths
from codegen.plan.shared_views import SHARED_VIEWS, ProtoView
from codegen.plan.views import RENDERER_NAMES, BinaryJsonView, KindView, OpViews
from codegen.render import RenderError, make_environment, render_op, template_for
from codegen.spec.generated_names import op_files
from codegen.spec.model import OpSpec
from codegen.specs import load_project

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE, SPECS = load_project()
ENV = make_environment(ROOT / "templates")


def _family_spec(family: str) -> OpSpec:
    return next(s for _, s in sorted(SPECS.items()) if s.family == family)


def _context_closure(name: str) -> list[str]:
    """``name`` and the templates rendering in its context: those it extends or includes (recursively); a
    plain ``{% import %}`` gets no context and is left out."""
    out: list[str] = []
    todo = [name]
    while todo:
        current = todo.pop()
        if current in out:
            continue
        out.append(current)
        assert ENV.loader is not None
        tree = ENV.parse(ENV.loader.get_source(ENV, current)[0])
        for node in tree.find_all((nodes.Extends, nodes.Include, nodes.Import, nodes.FromImport)):
            if isinstance(node, (nodes.Import, nodes.FromImport)) and not node.with_context:
                continue
            assert isinstance(node.template, nodes.Const), f"{current}: a computed template name"  # type: ignore[attr-defined]
            todo.append(node.template.value)  # type: ignore[attr-defined]
    return out


def template_variables(name: str) -> set[str]:
    """The variables template ``name`` reads from its context (its own macros, the names its imports bind, which
    a child template's blocks read from the context, and the renderer's names left out)."""
    found: set[str] = set()
    macros: set[str] = set()
    for t in _context_closure(name):
        assert ENV.loader is not None
        tree = ENV.parse(ENV.loader.get_source(ENV, t)[0])
        found |= meta.find_undeclared_variables(tree)
        macros |= {m.name for m in tree.find_all(nodes.Macro)}
        macros |= {i.target for i in tree.find_all(nodes.Import)}
        for f in tree.find_all(nodes.FromImport):
            macros |= {n[1] if isinstance(n, tuple) else n for n in f.names}
    return found - macros - RENDERER_NAMES


FAMILY_KINDS = [
    pytest.param(f.name, kind, id=f"{f.name}-{kind}")
    for f in registry.families()
    for kind in dict.fromkeys(k.split(":")[0] for k in op_files(_family_spec(f.name), list(CATALOGUE.products)))
]


@pytest.mark.parametrize(("family", "kind"), FAMILY_KINDS)
def test_each_kind_renders_from_a_view_with_exactly_the_fields_its_template_reads(family: str, kind: str) -> None:
    spec = _family_spec(family)
    views = registry.family(family).build_views(spec, CATALOGUE)
    view = views.view_for(kind)
    declared = {f.name for f in dataclasses.fields(view)}
    assert set(view.context()) == declared
    read = template_variables(template_for(ENV, family, kind))
    assert declared - read == set(), f"{type(view).__name__} has fields its template does not read"
    assert read - declared == set(), f"the template of {kind} reads names {type(view).__name__} lacks"
    assert kind == type(view).KIND


def test_template_variables_see_extends_and_includes(tmp_path: Path) -> None:
    """The variable scan follows ``extends``/``include`` and skips plain imports and the template's macros
    (the basis of the test above)."""
    global ENV
    (tmp_path / "base.j2").write_text(
        "{% import 'mac.j2' as m %}{{ a }}{{ m.f() }}{% block b %}{% endblock %}{% include 'inc.j2' %}"
    )
    (tmp_path / "inc.j2").write_text("{{ c }}")
    (tmp_path / "mac.j2").write_text("{% macro f() %}{{ hidden }}{% endmacro %}")
    (tmp_path / "child.j2").write_text(
        "{% extends 'base.j2' %}{% macro own() %}{% endmacro %}"
        "{% block b %}{{ d.x }}{% call own() %}{% endcall %}{{ file_kind }}{% endblock %}"
    )
    saved, ENV = ENV, make_environment(tmp_path)
    try:
        assert template_variables("child.j2") == {"a", "c", "d"}
    finally:
        ENV = saved


@pytest.mark.parametrize("family", registry.family_names())
def test_views_are_frozen(family: str) -> None:
    views = registry.family(family).build_views(_family_spec(family), CATALOGUE)
    assert views.views, family
    for kind, view in views.views.items():
        assert dataclasses.is_dataclass(view) and type(view).__dataclass_params__.frozen, kind  # type: ignore[attr-defined]
        name = dataclasses.fields(view)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(view, name, None)
        for f in dataclasses.fields(view):
            value = getattr(view, f.name)
            assert not isinstance(value, (list, dict, set)), f"{kind}.{f.name} is a mutable {type(value).__name__}"
    with pytest.raises(TypeError):
        views.views["cmake"] = views.views["cmake"]  # type: ignore[index]
    proto = views.view_for("proto_h")
    assert isinstance(proto, ProtoView)
    with pytest.raises(TypeError):
        proto.proto["inputs"] = ()  # type: ignore[index]


def test_every_view_class_is_a_frozen_kind_view() -> None:
    classes: list[type] = list(SHARED_VIEWS.values())
    for fam in registry.families():
        classes += list(fam.stage("plan").VIEWS.values())
    for cls in classes:
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen, cls  # type: ignore[attr-defined]
        assert issubclass(cls, (KindView, BinaryJsonView)) and cls.KIND, cls
        assert cls.KIND in op_files(_family_spec(registry.family_names()[0])) or cls.KIND == "binary_json", cls


def _paths() -> ProjectPaths:
    return project_paths()


@pytest.mark.parametrize(
    "bad",
    [
        pytest.param(lambda v: {f.name: getattr(v, f.name) for f in dataclasses.fields(v)}, id="a-dict"),
        pytest.param(lambda v: ProtoView(v.op, MappingProxyType({})), id="another-kinds-view"),
    ],
)
def test_a_view_that_is_not_the_kinds_typed_view_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, bad) -> None:  # type: ignore[no-untyped-def]
    family = registry.family_names()[0]
    spec = _family_spec(family)
    real = registry.Family.build_views

    def broken(self: registry.Family, s: OpSpec, c: object) -> OpViews:
        views = real(self, s, c)  # type: ignore[arg-type]
        replaced = dict(views.views)
        replaced["cmake"] = bad(views.views["cmake"])
        return OpViews(views.files, MappingProxyType(replaced))

    monkeypatch.setattr(registry.Family, "build_views", broken)
    with pytest.raises(
        RenderError, match=r"view of file kind 'cmake' must be a frozen view dataclass with KIND 'cmake'"
    ):
        render_op(spec, CATALOGUE, _paths(), ENV)


def test_a_missing_view_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    family = registry.family_names()[0]
    real = registry.Family.build_views

    def missing(self: registry.Family, s: OpSpec, c: object) -> OpViews:
        views = real(self, s, c)  # type: ignore[arg-type]
        return OpViews(views.files, MappingProxyType({k: v for k, v in views.views.items() if k != "doc_md"}))

    monkeypatch.setattr(registry.Family, "build_views", missing)
    with pytest.raises(RenderError, match="no view for file kind 'doc_md'"):
        render_op(_family_spec(family), CATALOGUE, _paths(), ENV)


def test_rendering_a_view_gives_the_generated_file() -> None:
    """A view's context renders its template to the committed generated file (with the renderer's
    formatting), for one kind per family."""
    for fam in registry.families():
        spec = _family_spec(fam.name)
        rendered = render_op(spec, CATALOGUE, _paths(), ENV)
        rel = op_files(spec)["kernel_cpp"]
        assert rendered.files[rel] == (ROOT / "generated" / spec.folder / rel).read_text()


_ = jinja2  # the environment type the helpers above parse with


def _conforms(value: object, hint: object, where: str) -> list[str]:
    """Where ``value`` breaks the type ``hint`` (recursively through tuples, frozensets, mappings, unions and nested
    dataclasses); empty when it conforms."""
    import types
    import typing
    from collections.abc import Mapping

    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is typing.Any:
        return [f"{where}: typed Any"]
    if origin in (typing.Union, types.UnionType):
        found = [_conforms(value, a, where) for a in args]
        return [] if any(not f for f in found) else [f"{where}: {value!r} is none of {hint}"]
    if origin is tuple:
        if not isinstance(value, tuple):
            return [f"{where}: {type(value).__name__}, not a tuple"]
        if len(args) == 2 and args[1] is Ellipsis:  # tuple[X, ...]
            return [p for i, v in enumerate(value) for p in _conforms(v, args[0], f"{where}[{i}]")]
        if len(value) != len(args):  # tuple[X, Y, Z]: one type per position
            return [f"{where}: {len(value)} items, not {len(args)}"]
        return [p for i, (v, a) in enumerate(zip(value, args, strict=True)) for p in _conforms(v, a, f"{where}[{i}]")]
    if origin is frozenset:  # frozenset[X]: immutable, each member an X
        if not isinstance(value, frozenset):
            return [f"{where}: {type(value).__name__}, not a frozenset"]
        return [p for v in sorted(value, key=repr) for p in _conforms(v, args[0], f"{where}{{{v!r}}}")]
    if origin is not None and isinstance(origin, type) and issubclass(origin, Mapping):
        if not isinstance(value, Mapping) or isinstance(value, dict):
            return [f"{where}: {type(value).__name__}, not a read-only mapping"]
        return [p for k, v in value.items() for p in _conforms(v, args[1], f"{where}[{k!r}]")]
    if hint is type(None):
        return [] if value is None else [f"{where}: {value!r} is not None"]
    assert isinstance(hint, type), f"{where}: unsupported hint {hint!r}"
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return []
    if not isinstance(value, hint):
        return [f"{where}: {type(value).__name__}, not {hint.__name__}"]
    if dataclasses.is_dataclass(hint):
        hints = typing.get_type_hints(hint)
        return [
            p
            for f in dataclasses.fields(hint)
            for p in _conforms(getattr(value, f.name), hints[f.name], f"{where}.{f.name}")
        ]
    return []


@pytest.mark.parametrize("family", registry.family_names())
def test_every_view_field_holds_its_declared_type(family: str) -> None:
    """Each view field, and every nested row of it, holds a value of the type the view declares (no
    ``Any``, no plain dict or list), for every spec of the family."""
    for spec in (s for _, s in sorted(SPECS.items()) if s.family == family):
        views = registry.family(family).build_views(spec, CATALOGUE)
        for kind, view in views.views.items():
            assert dataclasses.is_dataclass(view)
            assert _conforms(view, type(view), f"{spec.op}:{kind}") == []


@dataclasses.dataclass(frozen=True)
class Row:
    name: str


@dataclasses.dataclass(frozen=True)
class Holder:
    rows: tuple[Row, ...]
    named: Mapping[str, int]
    maybe: int | None


def test_the_type_check_finds_a_wrong_value() -> None:
    assert _conforms(Holder((Row("a"),), MappingProxyType({"x": 1}), None), Holder, "h") == []
    assert _conforms(Holder((Row(1),), MappingProxyType({}), 2), Holder, "h") == ["h.rows[0].name: int, not str"]  # type: ignore[arg-type]
    assert _conforms(Holder([Row("a")], {"x": "y"}, "z"), Holder, "h") == [  # type: ignore[arg-type]
        "h.rows: list, not a tuple",
        "h.named: dict, not a read-only mapping",
        "h.maybe: 'z' is none of int | None",
    ]
