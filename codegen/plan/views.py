"""The typed view machinery: the op as every template sees it, the base of every per-kind view, how a view is
filled from a family's plan entries, and the set of views of one op."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, dataclass, fields
from types import MappingProxyType
from typing import Any, ClassVar, TypeVar

from codegen.spec.model import OpSpec


@dataclass(frozen=True)
class TilingParamsView:
    """The spec's ``tiling`` parameters as templates see them: bytes of UB reserved, bytes of output per core
    started, queue depth."""

    ub_reserved_bytes: int
    min_bytes_per_core: int
    buffer_num: int


@dataclass(frozen=True)
class OpView:
    """The op as every template sees it (view key ``op``; templates never see the spec).

    Attributes:
        op_type: the device OpType; aclnn_name: ``aclnn<Op>``; kernel: the kernel function and file stem;
        snake: the spec file stem; summary: one paragraph; notes: documentation notes; family: the family's
        name; input_names: aclnn input names in order; tiling: the tiling parameters; phase2_decl: phase 2's
        parameter list as CANN's header declares it (``void *workspace, uint64_t workspaceSize, ...``).
    """

    op_type: str
    aclnn_name: str
    kernel: str
    snake: str
    summary: str
    notes: tuple[str, ...]
    family: str
    input_names: tuple[str, ...]
    tiling: TilingParamsView
    phase2_decl: str

    @classmethod
    def of(cls, spec: OpSpec) -> OpView:
        """The view of ``spec``."""
        t = spec.tiling
        workspace, size, executor, stream = spec.phase2_header_names
        return cls(
            op_type=spec.op_type,
            aclnn_name=spec.aclnn_name,
            kernel=spec.kernel,
            snake=spec.snake,
            summary=spec.summary,
            notes=spec.notes,
            family=spec.family,
            input_names=spec.input_names,
            tiling=TilingParamsView(t.ub_reserved_bytes, t.min_bytes_per_core, t.buffer_num),
            phase2_decl=f"void *{workspace}, uint64_t {size}, aclOpExecutor *{executor}, "
            f"{'const ' if spec.const_stream else ''}aclrtStream {stream}",
        )


# -- typed views: one frozen dataclass per template kind ---------------------------------------------------------
#
# The renderer renders the template of every file kind of :func:`op_files` with that kind's view: the fields of
# the view are exactly the names the kind's template (with the templates it extends) reads, so a view carries no
# field its template ignores and a template reads nothing its view lacks (tests/test_views.py checks both, with
# ``jinja2.meta``). Jinja reads a dataclass attribute as it reads a dict key (``{{ x.name }}``, ``x["name"]``).

#: Names the renderer itself passes to every template besides the view's fields: ``file_kind`` (the kind being
#: rendered, ``binary_json:<config_name>`` for a binary config).
RENDERER_NAMES: frozenset[str] = frozenset({"file_kind"})


@dataclass(frozen=True)
class KindView:
    """Base of every per-kind view: a frozen dataclass whose fields are the template's variables.

    Subclasses set :attr:`KIND` to the file kind they render (a key of :func:`op_files`; ``binary_json`` for
    every ``binary_json:<config>``). A family subclasses a shared view to add the fields its own template of that
    kind reads.
    """

    KIND: ClassVar[str] = ""

    op: OpView

    def context(self) -> dict[str, Any]:
        """The template variables: every field by name (values as they are, not copied)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def views_by_kind(*classes: type[KindView]) -> dict[str, type[KindView]]:
    """A family's view classes keyed by the file kind each renders (``KIND``).

    Raises:
        ValueError: two classes render one kind.
    """
    kinds: dict[str, type[KindView]] = {}
    for c in classes:
        if c.KIND in kinds:
            raise ValueError(f"{c.__name__} and {kinds[c.KIND].__name__} both render {c.KIND}")
        kinds[c.KIND] = c
    return kinds


def freeze(value: Any) -> Any:
    """``value`` with lists turned into tuples and dicts into read-only mappings, recursively (dataclasses and
    scalars are kept): what a view field holds, so a template cannot change the plan it renders."""
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    if isinstance(value, Mapping):
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    return value


V = TypeVar("V", bound=KindView)


def view_from(cls: type[V], parts: Mapping[str, Any], **extra: Any) -> V:
    """An instance of the view ``cls`` taking each field from ``extra`` or, else, from ``parts`` (the family's
    plan entries by name), frozen with :func:`freeze`. Entries of ``parts`` the view does not declare are not
    taken.

    Raises:
        KeyError: a field of ``cls`` is in neither (names the view and the field).
    """
    values: dict[str, Any] = {}
    for f in fields(cls):
        if f.name in extra:
            values[f.name] = freeze(extra[f.name])
        elif f.name in parts:
            values[f.name] = freeze(parts[f.name])
        elif f.default is MISSING:
            raise KeyError(f"{cls.__name__}: no value for field '{f.name}'")
    return cls(**values)


@dataclass(frozen=True)
class BinaryJsonView:
    """``op_host/config/<config>/<kernel>_binary.json``: the texts by SoC config name (the renderer's
    ``file_kind`` names the config). The only view without ``op``."""

    KIND: ClassVar[str] = "binary_json"
    binary_configs: Mapping[str, str]

    def context(self) -> dict[str, Any]:
        """The template variables (see :meth:`KindView.context`)."""
        return {"binary_configs": self.binary_configs}


@dataclass(frozen=True)
class OpViews:
    """Every view of one op: ``files`` (kind -> path relative to the op folder, :func:`op_files` with the
    products) and ``views`` (kind -> its view; ``binary_json`` serves every ``binary_json:<config>``)."""

    files: Mapping[str, str]
    views: Mapping[str, KindView | BinaryJsonView]

    def view_for(self, kind: str) -> KindView | BinaryJsonView:
        """The view rendering file ``kind`` (``binary_json:<config>`` -> the ``binary_json`` view).

        Raises:
            TypeError: no view for the kind, or the view is not the frozen typed view of that kind.
        """
        base = kind.split(":")[0]
        view = self.views.get(base)
        if view is None:
            raise TypeError(f"no view for file kind '{base}' (views: {', '.join(self.views)})")
        if not (isinstance(view, (KindView, BinaryJsonView)) and base == view.KIND):
            raise TypeError(
                f"the view of file kind '{base}' must be a frozen view dataclass with KIND '{base}' "
                f"(a subclass of codegen.plan.views.KindView); got {type(view).__name__}"
            )
        if not getattr(type(view), "__dataclass_params__").frozen:  # noqa: B009 (the dataclass flags)
            raise TypeError(f"the view of file kind '{base}' ({type(view).__name__}) must be a frozen dataclass")
        return view
