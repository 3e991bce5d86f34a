"""The family contract: what each stage module of a family package provides, as one :class:`typing.Protocol`
per stage (its required hooks) and one per optional hook, and the check the registry runs when it loads a stage
module.

A family package ``codegen/families/<name>/`` has four stage modules (each may be a package of the same name
whose ``__init__`` imports the hooks from its submodules):

==========  ==================  ===============================================  ==============================
stage       protocol            required hooks                                   optional hooks
==========  ==================  ===============================================  ==============================
compute     :class:`Compute`    ``parse_compute``                                ``division_sites``,
                                                                                 ``call_problem``
plan        :class:`Plan`       ``build_views``                                  ``validate``, ``scratch_outputs``
explain     :class:`Explain`    ``shape_call``, ``explain_tensors``,             (none)
                                ``explain_tiling``
cases       :class:`Cases`      ``check_cases``, ``check_offsets``,              ``infer_outputs``,
                                ``infer_output``                                 ``derived_bound``
==========  ==================  ===============================================  ==============================

Each protocol method gives the hook's full signature (its ``self`` stands for the module); the hook is a
module-level function of those parameters, names included, in that order.

Rules, checked when the registry first loads a stage module (:func:`check_stage`, raising
:class:`FamilyContractError` naming the family, the stage and the hook):

- the module lists its hooks, and only them, in ``__all__``: a name there that is no hook of the stage is an
  error, and so is a hook of the stage the module has but does not list (the registry would not call it);
- every required hook is listed; an optional hook the module does not list is replaced by the registry's
  default (no validation, no scratch outputs, no division sites, one output from ``infer_output``, no derived
  bound);
- each listed hook is a function whose parameters (names, kinds, defaults present) are the protocol's.

mypy checks the types: each stage module declares itself, under ``if TYPE_CHECKING:``, as its stage's protocol
and, for each optional hook it lists, as that hook's protocol (``from codegen.families.<name> import plan as
_self``, then ``_contract: Plan = _self``, ``_validate: PlanValidate = _self``). A hook of the wrong signature,
or a stage missing a required hook, then fails ``mypy codegen bench``; ``tests/test_family_contract.py`` checks
that every stage module declares every hook it lists.

This module imports nothing at run time beyond the standard library: the types its protocols name are
imported for type checking only, so the registry stays below the spec and plan stages (``pyproject.toml``'s
layer contract).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

    from codegen.check.cases import Case
    from codegen.plan.views import OpViews
    from codegen.spec.expr import Expr
    from codegen.spec.model import Catalogue, DType, OpSpec, Product, TensorSpec
    from codegen.spec.scopes import ComputeContext
    from codegen.spec.yaml_reader import YNode

__all__ = [
    "STAGES",
    "Cases",
    "CasesDerivedBound",
    "CasesInferOutputs",
    "CasesProbeRanges",
    "Compute",
    "ComputeCallProblem",
    "ComputeDivisionSites",
    "Explain",
    "FamilyContractError",
    "Plan",
    "PlanScratchOutputs",
    "PlanValidate",
    "StageContract",
    "check_stage",
]


class FamilyContractError(TypeError):
    """A family's stage module breaks the family contract (a required hook missing, a name in ``__all__`` that
    is no hook of the stage, a hook not listed, or a hook of other parameters); the message names the family,
    the stage and the hook."""


# -- compute (spec stage) -----------------------------------------------------------------------------------------


class Compute(Protocol):
    """The ``compute`` stage module: the family's compute model, parsed from a spec's ``compute`` section."""

    def parse_compute(self, node: YNode, ctx: ComputeContext) -> object | None:
        """The family's frozen compute model of the ``compute`` node, or None when it could not be built (every
        problem recorded in ``ctx.reader`` at its line)."""
        ...


@runtime_checkable
class ComputeDivisionSites(Protocol):
    """Optional ``compute`` hook: the family's own expressions the loader checks for a division by zero."""

    def division_sites(
        self, compute: object, compute_node: YNode, inputs: Sequence[TensorSpec], outputs: Sequence[TensorSpec]
    ) -> Iterable[tuple[YNode, Expr, dict[str, Any]]]:
        """``(node, expr, report keyword arguments)`` per expression of ``compute`` (the model
        :meth:`Compute.parse_compute` gave; any other object yields nothing): ``defs``, ``nonzero``,
        ``opaque`` as the loader's zero-division check takes them."""
        ...


@runtime_checkable
class ComputeCallProblem(Protocol):
    """Optional ``compute`` hook: the family's own phase-1 rules of a call (beyond the spec's dtype lists, ranks,
    output shape rule and constraints), which the loader applies to the spec's example call."""

    def call_problem(
        self, compute: object, shapes: Mapping[str, tuple[int, ...]], attrs: Mapping[str, object]
    ) -> tuple[str, str] | None:
        """The first rule the call of ``shapes`` (the inputs given: name -> dims, in the op's input order) and
        ``attrs`` (attr name -> value) breaks, as ``(the tensor or attr at fault, why)``, or None (also for a
        compute object not the family's)."""
        ...


# -- plan stage ---------------------------------------------------------------------------------------------------


class Plan(Protocol):
    """The ``plan`` stage module: the family's planner and view builder."""

    def build_views(self, spec: OpSpec, catalogue: Catalogue) -> OpViews:
        """The typed template views of ``spec``, one frozen view dataclass per generated file kind.

        Raises:
            SpecErrors: the op cannot be planned on a product.
            ValueError: a product's UB cannot hold one tile of the op.
        """
        ...


@runtime_checkable
class PlanValidate(Protocol):
    """Optional ``plan`` hook: plan-time checks, run by the renderer before :meth:`Plan.build_views`."""

    def validate(self, spec: OpSpec, catalogue: Catalogue) -> None:
        """Returns when ``spec`` can be planned on each of its products.

        Raises:
            SpecErrors: the op cannot be planned on a product.
            ValueError: a product's resources cannot hold the op (the renderer names the product).
        """
        ...


@runtime_checkable
class PlanScratchOutputs(Protocol):
    """Optional ``plan`` hook: the device op's outputs beyond the spec's (default 0)."""

    def scratch_outputs(self, spec: OpSpec) -> int:
        """The number of scratch tensors the L0 API allocates and the kernel takes after the spec's outputs."""
        ...


# -- explain ------------------------------------------------------------------------------------------------------


class Explain(Protocol):
    """The ``explain`` stage module: the family's part of ``opgen explain --shape``."""

    def shape_call(
        self, spec: OpSpec, product: Product, shape: tuple[int, ...], dtype_name: str | None
    ) -> tuple[dict[str, object], list[str], dict[str, object]]:
        """``(env, assumed, set_attrs)`` of the call ``opgen explain --shape`` describes: the tensors as
        stand-ins and the attrs by name, the assumptions made (text lines), and the attrs the shape set."""
        ...

    def explain_tensors(self, spec: OpSpec, shape: tuple[int, ...]) -> list[tuple[str, tuple[int, ...]]]:
        """The tensors ``shape`` implies, ``(label, dims)`` (elements per axis).

        Raises:
            ValueError: the shape breaks a rule of the family (rank, number of dims).
        """
        ...

    def explain_tiling(self, spec: OpSpec, product: Product, shape: tuple[int, ...], dtype_name: str | None) -> str:
        """The tiling section of ``opgen explain`` for ``shape`` on ``product`` (text)."""
        ...


# -- cases (check stage) ------------------------------------------------------------------------------------------


class Cases(Protocol):
    """The ``cases`` stage module: the family's check cases and the outputs a call allocates."""

    def check_cases(self, spec: OpSpec, product: Product, dtypes: list[DType], quick: bool) -> Iterable[Case]:
        """The value, status and 64-bit offset cases of ``spec`` on ``product`` for ``dtypes``."""
        ...

    def check_offsets(self, fn: Any, case: Case, got: dict[str, Any], tiling: dict[str, int]) -> str:
        """'' when a ``tiling_2g`` case's tiling result ``got`` matches the planner in 64-bit arithmetic and the
        per-core ranges cover the tensors; else what differs."""
        ...

    def infer_output(self, spec: OpSpec, arrays: dict[str, np.ndarray | None], attrs: dict[str, Any]) -> np.ndarray:
        """The output a call allocates when the caller passed none (poisoned, as device memory)."""
        ...


@runtime_checkable
class CasesInferOutputs(Protocol):
    """Optional ``cases`` hook of a family whose ops may have several outputs (default: the one output of
    :meth:`Cases.infer_output`)."""

    def infer_outputs(
        self, spec: OpSpec, arrays: dict[str, np.ndarray | None], attrs: dict[str, Any]
    ) -> dict[str, np.ndarray]:
        """Every output a call allocates when the caller passed none, by output name."""
        ...


@runtime_checkable
class CasesProbeRanges(Protocol):
    """Optional ``cases`` hook: the GM bytes one core of a ``tiling_2g`` case's probe launch owns (default:
    none, and the case's kernel is not probed)."""

    def probe_ranges(self, fn: Any, case: Case, tiling: dict[str, int], core: int) -> dict[str, tuple[int, int]]:
        """Per device tensor name, the byte offsets ``[lo, hi)`` that core ``core`` reads (an input) or writes
        (an output) under the tiling fields ``tiling``, from the spec's shape and the tiling's split alone (a
        tensor left out is not judged), with every index the kernel reads from GM being 0."""
        ...


@runtime_checkable
class CasesDerivedBound(Protocol):
    """Optional ``cases`` hook: the family's per-element error bound of one call (default: none)."""

    def derived_bound(
        self, spec: OpSpec, product: Product, params: dict[str, Any], expected: np.ndarray, lazy: bool = False
    ) -> Any:
        """A float64 array of the output's shape, or None when the family derives no bound for the call; with
        ``lazy`` possibly a :class:`codegen.check.compare.LazyAtol` evaluated only where the comparison asks."""
        ...


# -- the check at load --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StageContract:
    """One stage module's contract: its ``name`` (the module name in a family package), the ``protocol`` of its
    required hooks and the protocols of its ``optional`` hooks (one hook each)."""

    name: str
    protocol: type
    optional: tuple[type, ...] = ()

    @property
    def required_hooks(self) -> tuple[str, ...]:
        """The names of the required hooks, in the protocol's order."""
        return _members(self.protocol)

    @property
    def optional_hooks(self) -> tuple[str, ...]:
        """The names of the optional hooks."""
        return tuple(name for p in self.optional for name in _members(p))

    def hook_protocol(self, hook: str) -> type:
        """The protocol declaring ``hook`` (the stage's for a required hook, the hook's own for an optional one).

        Raises:
            KeyError: ``hook`` is no hook of the stage.
        """
        for p in (self.protocol, *self.optional):
            if hook in _members(p):
                return p
        raise KeyError(hook)


#: The contract of each stage module, by module name.
STAGES: Mapping[str, StageContract] = {
    c.name: c
    for c in (
        StageContract("compute", Compute, (ComputeDivisionSites, ComputeCallProblem)),
        StageContract("plan", Plan, (PlanValidate, PlanScratchOutputs)),
        StageContract("explain", Explain),
        StageContract("cases", Cases, (CasesInferOutputs, CasesDerivedBound, CasesProbeRanges)),
    )
}


def check_stage(family: str, stage: str, module: ModuleType) -> None:
    """Checks the stage module ``module`` of family ``family`` against the contract of ``stage`` (see the
    module docstring for the rules).

    Raises:
        FamilyContractError: the module has no ``__all__``, lists a name that is no hook of the stage, has a
            hook it does not list, lacks a required hook, or a hook is not a function of the protocol's
            parameters.
        KeyError: ``stage`` is not a stage name of :data:`STAGES`.
    """
    contract = STAGES[stage]
    where = f"family '{family}': stage '{stage}' ({module.__name__})"
    hooks = (*contract.required_hooks, *contract.optional_hooks)
    listed = getattr(module, "__all__", None)
    if listed is None:
        raise FamilyContractError(f"{where} has no __all__; list its hooks there ({', '.join(hooks)})")
    for name in listed:
        if name not in hooks:
            raise FamilyContractError(
                f"{where} lists '{name}' in __all__, which is no hook of the stage (hooks: {', '.join(hooks)})"
            )
    for name in hooks:
        if name not in listed and hasattr(module, name):
            raise FamilyContractError(f"{where} has the hook '{name}' but does not list it in __all__")
    for name in contract.required_hooks:
        if name not in listed:
            raise FamilyContractError(f"{where} lacks the required hook '{name}{_parameters(contract, name)}'")
    for name in listed:
        hook = getattr(module, name, None)
        if not inspect.isfunction(hook):
            raise FamilyContractError(f"{where} lists the hook '{name}' in __all__ but defines no function of it")
        want = _parameters(contract, name)
        got = _shape(inspect.signature(hook))
        if got != want:
            raise FamilyContractError(f"{where}: the hook '{name}' takes {got}; the contract says {want}")


def _members(protocol: type) -> tuple[str, ...]:
    return tuple(n for n, v in vars(protocol).items() if inspect.isfunction(v) and not n.startswith("_"))


def _parameters(contract: StageContract, hook: str) -> str:
    method = vars(contract.hook_protocol(hook))[hook]
    return _shape(inspect.signature(method), drop_self=True)


class _Default:
    """Stands for a parameter's default in :func:`_shape`: whether there is one is part of the contract, its value
    is not."""

    def __repr__(self) -> str:
        return "..."


def _shape(sig: inspect.Signature, drop_self: bool = False) -> str:
    """The parameter list of ``sig``: names, kinds and whether each has a default, without annotations
    (``(spec, product, params, expected, lazy=...)``)."""
    params = list(sig.parameters.values())[1 if drop_self else 0 :]
    shown = [p.replace(annotation=p.empty, default=p.empty if p.default is p.empty else _Default()) for p in params]
    return str(sig.replace(parameters=shown, return_annotation=sig.empty))
