"""The family registry: every op family is one package under ``codegen/families/<name>/``, and this package is
what every shared stage asks (the spec loader, the renderer, ``opgen explain``, the check driver, ``opgen new`` and the
output allocation of a call). No shared module names a family.

A family package ``codegen/families/<name>/`` holds, by stage (each module is imported only when its
stage asks, so loading a spec imports a family's ``compute`` module and never its planner):

- ``__init__.py``: ``FAMILY``, a :class:`Family` (name, summary, whether a spec may have a ``device``
  section, the ``opgen new`` starter spec and reference parameters, if any).
- ``compute`` (spec stage): the frozen compute model and its parser.
- ``plan`` (plan stage): the planner, returning :class:`codegen.plan.views.OpViews`, one frozen view dataclass
  per generated file kind, each with exactly the fields that kind's template reads. The family declares a
  :class:`codegen.plan.views.KindView` subclass (``KIND`` = the kind) for each kind it has its own template
  of, in a ``VIEWS`` dict (kind -> class); every other kind gets its shared view
  (:data:`codegen.plan.shared_views.SHARED_VIEWS`). :func:`codegen.plan.shared_views.op_views` builds them all
  from one dict of named values (``common_view`` + ``ops_nn_view`` + ``ut_tiling_view`` + the family's own).
- ``explain``: the family's part of ``opgen explain --shape``.
- ``cases`` (check stage): check cases, 64-bit offset checks, the outputs a call allocates, error bounds.

Each stage module (or package) provides the hooks of its stage's protocol, lists them in ``__all__`` and is
checked against the protocol when the registry loads it: :mod:`codegen.registry.contract` holds the contract
(the hooks, their signatures, which are optional and the rules). :class:`Family` calls the hooks through the
protocols.

Templates named ``<kind dir>/<name>_<file>.j2`` are the family's (see :func:`codegen.render.template_for`).

The registry finds the families by listing the subpackages of :mod:`codegen.families`: adding a family adds
a package and changes no shared module. Family packages are imported with :mod:`importlib` only, each stage
module when its stage asks; nothing here imports a family at import time, and no shared module imports a
family package (an import contract in ``pyproject.toml``).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, Any, NewType, cast

from codegen.registry.contract import (
    Cases,
    CasesDerivedBound,
    CasesInferOutputs,
    CasesProbeRanges,
    Compute,
    ComputeCallProblem,
    ComputeDivisionSites,
    Explain,
    FamilyContractError,
    Plan,
    PlanScratchOutputs,
    PlanValidate,
    check_stage,
)

if TYPE_CHECKING:
    import numpy as np

    from codegen.check.cases import Case
    from codegen.plan.views import OpViews
    from codegen.spec.expr import Expr
    from codegen.spec.model import Catalogue, DType, OpSpec, Product, TensorSpec
    from codegen.spec.scopes import ComputeContext
    from codegen.spec.yaml_reader import YNode

__all__ = ["Family", "FamilyContractError", "FamilyName", "UnknownFamily", "families", "family", "family_names"]

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
        dtype_columns: whether a spec of the family may list ``device.dtype_columns`` (its kernel, OpDef, L0 and
            L2 APIs and check cases honour OpDef columns whose tensors differ in dtype or that set attrs).
        fixed_inputs: whether a spec's ``device.dtype_columns`` may give an input after the first one dtype in
            every column while the first input's varies (:func:`codegen.spec.model.fixed_inputs`): the family's
            L2 API casts the caller's tensor to it before the launch and its check cases call with another.
        output_twins: whether a spec's ``device.dtype_columns`` may hold a column with the input dtypes and attrs
            of an earlier one but other output dtypes (LayerNormGradV3's FLOAT16 ``pd_gamma`` beside the FLOAT
            one of the same inputs): the family's L0 API allocates the earlier column's output dtypes (the L2
            API launches it and casts), the later one has a tiling key of its own.
        output_mask: whether a spec may gate its outputs by a ``bool_array`` attr (the family's ``compute``
            names it; its L2 API, tiling and check cases honour it) and carry it as a ``list_bool`` device attr.
        fill_inputs: whether a spec's device input may say ``fill: true`` (an optional aclnn input the device op
            takes as REQUIRED: the family's L2 API passes a tensor of its default in place of a null one).
        host_inputs: whether a spec's ``device.host_inputs`` may name optional aclnn inputs no device input
            carries (the family's L2 API checks them and launches nothing with them).
        shape_keys: the family's ``compute`` keys that only state shapes the L2 API checks (a host input may be
            named there, never in a formula).
        several_outputs: whether a spec of the family may list more than one output (its L0/L2 code, kernel
            and the runner handle each).
        shape_status: whether a spec of the family may set ``shape_status`` (its L2 checks and check cases
            use it for shape and rank errors).
        promote_type: whether a spec of the family may set ``promote_type: out`` (its L2 API casts the inputs
            to the output's dtype before the device op, and its check cases and reference follow).
        tensor_lists: whether a spec of the family may declare a tensor ``list: true`` (its L2 and L0 APIs,
            OpDef (a ``DYNAMIC`` parameter), tiling, kernel and check cases take ``aclTensorList``).
        product_dtypes: whether a spec's tensor may have ``product_dtypes`` (a dtype list per product): the
            family's kernel covers every product's dtypes and its OpDef, L2 checks and check cases read each
            product's own list.
        starter: the ``opgen new`` starter spec (a ``str.format`` template over ``op``, ``op_type``,
            ``kernel``, ``aclnn``), or None when the family has no starter.
        starter_params: the parameter list of the starter reference's ``reference()``.
    """

    name: str
    summary: str
    device_section: bool = False
    dtype_combos: bool = False
    dtype_columns: bool = False
    fixed_inputs: bool = False
    output_twins: bool = False
    output_mask: bool = False
    fill_inputs: bool = False
    host_inputs: bool = False
    shape_keys: tuple[str, ...] = ()
    several_outputs: bool = False
    shape_status: bool = False
    promote_type: bool = False
    tensor_lists: bool = False
    product_dtypes: bool = False
    starter: str | None = None
    starter_params: str = ""

    @property
    def package(self) -> str:
        """The family's package, ``codegen.families.<name>``."""
        return f"{FAMILIES_PACKAGE}.{self.name}"

    def stage(self, module: str) -> ModuleType:
        """The family's stage module ``module`` (``compute``, ``plan``, ``explain``, ``cases``), imported now and
        checked against its stage's contract on first use (:func:`codegen.registry.contract.check_stage`).

        Raises:
            ModuleNotFoundError: the family has no such module.
            FamilyContractError: the module breaks its stage's contract (names the family, stage and hook).
            KeyError: ``module`` is no stage name.
        """
        return _checked_stage(self.name, module)

    # Each stage module was checked against its protocol when loaded (:meth:`stage`): the casts below state what
    # that check established.
    @property
    def compute(self) -> Compute:
        """The family's ``compute`` stage module."""
        return cast("Compute", self.stage("compute"))

    @property
    def plan(self) -> Plan:
        """The family's ``plan`` stage module."""
        return cast("Plan", self.stage("plan"))

    @property
    def explain(self) -> Explain:
        """The family's ``explain`` stage module."""
        return cast("Explain", self.stage("explain"))

    @property
    def cases(self) -> Cases:
        """The family's ``cases`` stage module."""
        return cast("Cases", self.stage("cases"))

    # -- spec stage
    def parse_compute(self, node: YNode, ctx: ComputeContext) -> object | None:
        """The family's compute model parsed from the spec's ``compute`` node (None when it could not be built;
        problems are recorded in ``ctx.reader``)."""
        return self.compute.parse_compute(node, ctx)

    def division_sites(
        self, compute: object, compute_node: YNode, inputs: Sequence[TensorSpec], outputs: Sequence[TensorSpec]
    ) -> Iterable[tuple[YNode, Expr, dict[str, Any]]]:
        """The family's expressions the loader checks for a division by zero: ``(node, expr, report keyword
        arguments)`` (``defs``, ``nonzero``, ``opaque``; see the loader's zero-division check). Empty when
        the family's compute section has no expressions."""
        module = self.stage("compute")
        if not isinstance(module, ComputeDivisionSites):
            return ()
        return module.division_sites(compute, compute_node, inputs, outputs)

    def call_problem(
        self, compute: object, shapes: Mapping[str, tuple[int, ...]], attrs: Mapping[str, object]
    ) -> tuple[str, str] | None:
        """The first of the family's own phase-1 rules (beyond the spec's dtype lists, ranks, output shape rule
        and constraints) the call of ``shapes`` (tensor name -> dims) and ``attrs`` (attr name -> value) breaks:
        ``(the tensor or attr at fault, why)``; None when it breaks none or the family states no such rule."""
        module = self.stage("compute")
        if not isinstance(module, ComputeCallProblem):
            return None
        return module.call_problem(compute, shapes, attrs)

    # -- plan stage
    def validate(self, spec: OpSpec, catalogue: Catalogue) -> None:
        """Plan-time validation of ``spec`` on its products (the family's ``validate``, if it has one); the
        renderer calls it before :meth:`build_views`.

        Raises:
            SpecErrors: the op cannot be planned on a product.
            ValueError: a product's resources cannot hold the op (the renderer names the product).
        """
        module = self.stage("plan")
        if isinstance(module, PlanValidate):
            module.validate(spec, catalogue)

    def build_views(self, spec: OpSpec, catalogue: Catalogue) -> OpViews:
        """The typed template views of ``spec``: the family's ``build_views``, one frozen view dataclass per
        file kind (:class:`codegen.plan.views.OpViews`; the renderer rejects anything else).

        Raises:
            SpecErrors: the op cannot be planned on a product (validation at plan time).
            ValueError: a product's UB cannot hold one tile of the op.
        """
        return self.plan.build_views(spec, catalogue)

    def scratch_outputs(self, spec: OpSpec) -> int:
        """Outputs the device op has beyond the spec's (scratch tensors its L0 API allocates and the kernel
        takes after the spec's outputs): the family plan's ``scratch_outputs(spec)``, or 0."""
        module = self.stage("plan")
        return int(module.scratch_outputs(spec)) if isinstance(module, PlanScratchOutputs) else 0

    # -- explain
    def shape_call(
        self, spec: OpSpec, product: Product, shape: tuple[int, ...], dtype_name: str | None
    ) -> tuple[dict[str, object], list[str], dict[str, object]]:
        """``(env, assumed, set_attrs)`` of the call ``opgen explain --shape`` describes (see
        :func:`codegen.explain.shape_call`)."""
        return self.explain.shape_call(spec, product, shape, dtype_name)

    def explain_tensors(self, spec: OpSpec, shape: tuple[int, ...]) -> list[tuple[str, tuple[int, ...]]]:
        """The tensors an ``opgen explain --shape`` implies, ``(label, dims)``, checked to fit int64.

        Raises:
            ValueError: the shape breaks a rule of the family (rank, number of dims).
        """
        return self.explain.explain_tensors(spec, shape)

    def explain_tiling(self, spec: OpSpec, product: Product, shape: tuple[int, ...], dtype_name: str | None) -> str:
        """The tiling section of ``opgen explain`` for ``shape`` on ``product``."""
        return self.explain.explain_tiling(spec, product, shape, dtype_name)

    # -- check stage
    def check_cases(self, spec: OpSpec, product: Product, dtypes: list[DType], quick: bool) -> list[Case]:
        """The family's value, status and 64-bit offset cases of ``spec`` on ``product``."""
        return list(self.cases.check_cases(spec, product, dtypes, quick))

    def check_offsets(self, fn: Any, case: Case, got: dict[str, Any], tiling: dict[str, int]) -> str:
        """'' when a ``tiling_2g`` case's tiling result ``got`` (fields ``tiling``) matches the planner in
        64-bit arithmetic and the per-core ranges cover the tensors; else what differs."""
        return self.cases.check_offsets(fn, case, got, tiling)

    def probe_ranges(self, fn: Any, case: Case, tiling: dict[str, int], core: int) -> dict[str, tuple[int, int]] | None:
        """The byte ranges ``[lo, hi)`` per device tensor that core ``core`` of a ``tiling_2g`` case's probe
        launch owns (the family's ``probe_ranges`` hook), or None when the family has no such hook."""
        module = self.stage("cases")
        if isinstance(module, CasesProbeRanges):
            return dict(module.probe_ranges(fn, case, tiling, core))
        return None

    def infer_output(self, spec: OpSpec, arrays: dict[str, np.ndarray | None], attrs: dict[str, Any]) -> np.ndarray:
        """The output a call allocates when the caller passed none (poisoned, as device memory)."""
        return self.cases.infer_output(spec, arrays, attrs)

    def infer_outputs(
        self, spec: OpSpec, arrays: dict[str, np.ndarray | None], attrs: dict[str, Any]
    ) -> dict[str, np.ndarray]:
        """Every output a call allocates when the caller passed none, by name: the family's ``infer_outputs``
        hook (an op with several outputs), else :meth:`infer_output` for the single output."""
        module = self.stage("cases")
        if isinstance(module, CasesInferOutputs):
            return dict(module.infer_outputs(spec, arrays, attrs))
        return {spec.outputs[0].name: self.infer_output(spec, arrays, attrs)}

    def derived_bound(
        self, spec: OpSpec, product: Product, params: dict[str, Any], expected: np.ndarray, lazy: bool = False
    ) -> Any:
        """The family's per-element error bound of one call (float64 of the output shape), or None when the
        family derives none. With ``lazy`` the hook may return a :class:`codegen.check.compare.LazyAtol`
        instead, evaluated only where the comparison asks."""
        module = self.stage("cases")
        if not isinstance(module, CasesDerivedBound):
            return None
        return module.derived_bound(spec, product, params, expected, lazy=lazy)


#: The package whose subpackages are the families.
FAMILIES_PACKAGE = "codegen.families"


@cache
def _checked_stage(family: str, stage: str) -> ModuleType:
    """Stage module ``stage`` of family ``family``, imported and checked against its contract (once)."""
    module = importlib.import_module(f"{FAMILIES_PACKAGE}.{family}.{stage}")
    check_stage(family, stage, module)
    return module


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
