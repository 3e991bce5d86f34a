"""The family registry: every op family is one package under ``codegen/families/<name>/``, and this module is
what every shared stage asks (the spec loader, the renderer, ``opgen explain``, the check driver, ``opgen new`` and the
output allocation of a call). No shared module names a family.

A family package ``codegen/families/<name>/`` holds, by stage (each module is imported only when its
stage asks, so loading a spec imports a family's ``compute`` module and never its planner):

- ``__init__.py``: ``FAMILY``, a :class:`Family` (name, summary, whether a spec may have a ``device``
  section, the ``opgen new`` starter spec and reference parameters, if any).
- ``compute.py`` (spec stage): the frozen compute model and ``parse_compute(node, ctx)`` (a
  :data:`~codegen.spec.scopes.ComputeParser`); optionally ``division_sites(compute, compute_node)`` giving
  the family's own expressions the loader checks for a division by zero.
- ``plan.py`` (plan stage): ``validate(spec, catalogue)`` (plan-time checks, optional) and
  ``build_views(spec, catalogue)`` returning :class:`codegen.plan.common.OpViews`, one frozen view dataclass
  per generated file kind, each with exactly the fields that kind's template reads. The family declares a
  :class:`codegen.plan.common.KindView` subclass (``KIND`` = the kind) for each kind it has its own template
  of, in a ``VIEWS`` dict (kind -> class); every other kind gets its shared view
  (:data:`codegen.plan.common.SHARED_VIEWS`). :func:`codegen.plan.common.op_views` builds them all from one
  dict of named values (``common_view`` + ``ops_nn_view`` + ``ut_tiling_view`` + the family's own).
- ``explain.py``: ``shape_call``, ``check_shape`` and ``explain_tiling`` (``opgen explain``).
- ``cases.py`` (check stage): ``check_cases(spec, product, dtypes, quick)``, ``check_offsets(fn, case, got,
  tiling)``, ``infer_output(spec, arrays, attrs)`` and optionally ``derived_bound(spec, product, params,
  expected)``.

Templates named ``<kind dir>/<name>_<file>.j2`` are the family's (see :func:`codegen.render.template_for`).

The registry finds the families by listing the subpackages of :mod:`codegen.families`: adding a family adds
a package and changes no shared module. Family packages are imported with :mod:`importlib` only, each stage
module when its stage asks; nothing here imports a family at import time, and no shared module imports a
family package (an import contract in ``pyproject.toml``).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, Any, NewType

if TYPE_CHECKING:
    import numpy as np

    from codegen.check.cases import Case
    from codegen.plan.common import OpViews
    from codegen.spec.expr import Expr
    from codegen.spec.model import Catalogue, DType, OpSpec, Product, TensorSpec
    from codegen.spec.scopes import ComputeContext
    from codegen.spec.yaml_reader import YNode

__all__ = ["Family", "FamilyName", "UnknownFamily", "families", "family", "family_names"]

#: The name of a registered family (the value of a spec's ``family:``; checked by the loader).
FamilyName = NewType("FamilyName", str)


class UnknownFamily(KeyError):
    """No family package of that name exists under ``codegen/families/``."""


@dataclass(frozen=True)
class Family:
    """One op family: its descriptor and the stage hooks of its package (imported on first use).

    Attributes:
        name: the family name a spec's ``family:`` gives; equals the package name.
        summary: one line for ``opgen list`` and the docs.
        device_section: whether a spec of the family may have a ``device`` section (its own OpDef interface).
        dtype_combos: whether a spec of the family may list ``dtype_combos`` (its L2 check, kernel keys and
            check cases honour per-tensor dtype combinations).
        several_outputs: whether a spec of the family may list more than one output (its L0/L2 code, kernel
            and the runner handle each).
        shape_status: whether a spec of the family may set ``shape_status`` (its L2 checks and check cases
            use it for shape and rank errors).
        starter: the ``opgen new`` starter spec (a ``str.format`` template over ``op``, ``op_type``,
            ``kernel``, ``aclnn``), or None when the family has no starter.
        starter_params: the parameter list of the starter reference's ``reference()``.
    """

    name: str
    summary: str
    device_section: bool = False
    dtype_combos: bool = False
    several_outputs: bool = False
    shape_status: bool = False
    starter: str | None = None
    starter_params: str = ""

    @property
    def package(self) -> str:
        """The family's package, ``codegen.families.<name>``."""
        return f"{FAMILIES_PACKAGE}.{self.name}"

    def stage(self, module: str) -> ModuleType:
        """The family's stage module ``module`` (``compute``, ``plan``, ``explain``, ``cases``), imported now.

        Raises:
            ModuleNotFoundError: the family has no such module.
        """
        return importlib.import_module(f"{self.package}.{module}")

    def _hook(self, module: str, name: str) -> Any:
        hook = getattr(self.stage(module), name, None)
        if hook is None:
            raise NotImplementedError(f"family '{self.name}' defines no {name}() in {self.package}.{module}")
        return hook

    # -- spec stage
    def parse_compute(self, node: YNode, ctx: ComputeContext) -> object | None:
        """The family's compute model parsed from the spec's ``compute`` node (None when it could not be built;
        problems are recorded in ``ctx.reader``)."""
        return self._hook("compute", "parse_compute")(node, ctx)

    def division_sites(
        self, compute: object, compute_node: YNode, inputs: Sequence[TensorSpec], outputs: Sequence[TensorSpec]
    ) -> Iterable[tuple[YNode, Expr, dict[str, Any]]]:
        """The family's expressions the loader checks for a division by zero: ``(node, expr, report keyword
        arguments)`` (``defs``, ``nonzero``, ``opaque``; see the loader's zero-division check). Empty when
        the family's compute section has no expressions."""
        hook = getattr(self.stage("compute"), "division_sites", None)
        return () if hook is None else hook(compute, compute_node, inputs, outputs)

    # -- plan stage
    def validate(self, spec: OpSpec, catalogue: Catalogue) -> None:
        """Plan-time validation of ``spec`` on its products (the family's ``validate``, if it has one); the
        renderer calls it before :meth:`build_views`.

        Raises:
            SpecErrors: the op cannot be planned on a product.
            ValueError: a product's resources cannot hold the op (the renderer names the product).
        """
        hook = getattr(self.stage("plan"), "validate", None)
        if hook is not None:
            hook(spec, catalogue)

    def build_views(self, spec: OpSpec, catalogue: Catalogue) -> OpViews:
        """The typed template views of ``spec``: the family's ``build_views``, one frozen view dataclass per
        file kind (:class:`codegen.plan.common.OpViews`; the renderer rejects anything else).

        Raises:
            SpecErrors: the op cannot be planned on a product (validation at plan time).
            ValueError: a product's UB cannot hold one tile of the op.
        """
        return self._hook("plan", "build_views")(spec, catalogue)

    def scratch_outputs(self, spec: OpSpec) -> int:
        """Outputs the device op has beyond the spec's (scratch tensors its L0 API allocates and the kernel
        takes after the spec's outputs): the family plan's ``scratch_outputs(spec)``, or 0."""
        hook = getattr(self.stage("plan"), "scratch_outputs", None)
        return 0 if hook is None else int(hook(spec))

    # -- explain
    def shape_call(
        self, spec: OpSpec, product: Product, shape: tuple[int, ...], dtype_name: str | None
    ) -> tuple[dict[str, object], list[str], dict[str, object]]:
        """``(env, assumed, set_attrs)`` of the call ``opgen explain --shape`` describes (see
        :func:`codegen.explain.shape_call`)."""
        return self._hook("explain", "shape_call")(spec, product, shape, dtype_name)

    def explain_tensors(self, spec: OpSpec, shape: tuple[int, ...]) -> list[tuple[str, tuple[int, ...]]]:
        """The tensors an ``opgen explain --shape`` implies, ``(label, dims)``, checked to fit int64.

        Raises:
            ValueError: the shape breaks a rule of the family (rank, number of dims).
        """
        return self._hook("explain", "explain_tensors")(spec, shape)

    def explain_tiling(self, spec: OpSpec, product: Product, shape: tuple[int, ...], dtype_name: str | None) -> str:
        """The tiling section of ``opgen explain`` for ``shape`` on ``product``."""
        return self._hook("explain", "explain_tiling")(spec, product, shape, dtype_name)

    # -- check stage
    def check_cases(self, spec: OpSpec, product: Product, dtypes: list[DType], quick: bool) -> list[Case]:
        """The family's value, status and 64-bit offset cases of ``spec`` on ``product``."""
        return list(self._hook("cases", "check_cases")(spec, product, dtypes, quick))

    def check_offsets(self, fn: Any, case: Case, got: dict[str, Any], tiling: dict[str, int]) -> str:
        """'' when a ``tiling_2g`` case's tiling result ``got`` (fields ``tiling``) matches the planner in
        64-bit arithmetic and the per-core ranges cover the tensors; else what differs."""
        return self._hook("cases", "check_offsets")(fn, case, got, tiling)

    def infer_output(self, spec: OpSpec, arrays: dict[str, np.ndarray | None], attrs: dict[str, Any]) -> np.ndarray:
        """The output a call allocates when the caller passed none (poisoned, as device memory)."""
        return self._hook("cases", "infer_output")(spec, arrays, attrs)

    def infer_outputs(
        self, spec: OpSpec, arrays: dict[str, np.ndarray | None], attrs: dict[str, Any]
    ) -> dict[str, np.ndarray]:
        """Every output a call allocates when the caller passed none, by name: the family's ``infer_outputs``
        hook (an op with several outputs), else :meth:`infer_output` for the single output."""
        hook = getattr(self.stage("cases"), "infer_outputs", None)
        if hook is not None:
            return dict(hook(spec, arrays, attrs))
        return {spec.outputs[0].name: self.infer_output(spec, arrays, attrs)}

    def derived_bound(
        self, spec: OpSpec, product: Product, params: dict[str, Any], expected: np.ndarray, lazy: bool = False
    ) -> Any:
        """The family's per-element error bound of one call (float64 of the output shape), or None when the
        family derives none. With ``lazy`` the hook may return a :class:`codegen.check.compare.LazyAtol`
        instead, evaluated only where the comparison asks (a hook without the parameter is called without)."""
        hook = getattr(self.stage("cases"), "derived_bound", None)
        if hook is None:
            return None
        return hook(spec, product, params, expected, lazy=True) if lazy else hook(spec, product, params, expected)


#: The package whose subpackages are the families.
FAMILIES_PACKAGE = "codegen.families"


@cache
def _registry() -> dict[str, Family]:
    found: dict[str, Family] = {}
    package = importlib.import_module(FAMILIES_PACKAGE)
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if not info.ispkg:
            continue
        descriptor = getattr(importlib.import_module(f"{FAMILIES_PACKAGE}.{info.name}"), "FAMILY", None)
        if not isinstance(descriptor, Family) or descriptor.name != info.name:
            raise TypeError(
                f"{FAMILIES_PACKAGE}.{info.name} must define FAMILY = Family(name={info.name!r}, ...) in its "
                f"__init__.py; found {descriptor!r}"
            )
        found[info.name] = descriptor
    return found


def families() -> tuple[Family, ...]:
    """Every registered family, sorted by name.

    Raises:
        TypeError: a package under ``codegen/families/`` has no ``FAMILY`` of its own name.
    """
    return tuple(_registry().values())


def family_names() -> tuple[FamilyName, ...]:
    """The names of the registered families, sorted."""
    return tuple(FamilyName(n) for n in _registry())


def family(name: str) -> Family:
    """The family called ``name``.

    Raises:
        UnknownFamily: no family package of that name (the message lists the known ones).
    """
    try:
        return _registry()[name]
    except KeyError:
        raise UnknownFamily(f"unknown family '{name}'; known: {', '.join(_registry())}") from None
