"""One op spec as a whole (:class:`OpSpec`): its sections, the family's compute model it holds
(:class:`FamilyCompute`), its tiling parameters and the names derived from the op's name."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from codegen.registry import FamilyName
from codegen.spec.errors import SourceLoc
from codegen.spec.model.call_rules import Constraint, DtypeCombo
from codegen.spec.model.device import DeviceAttr, DeviceInterface, DeviceTensor
from codegen.spec.model.example import Example
from codegen.spec.model.graph import GraphProto
from codegen.spec.model.params import AttrSpec, TensorSpec
from codegen.spec.model.products import Product
from codegen.types import ATTR_TYPE_INFO, AclnnStatus

#: a family's compute model class (:meth:`OpSpec.compute_as`)
ComputeT = TypeVar("ComputeT")

#: Phase 2's parameters as the aclnn headers usually name them: ``aclnnXxx(void *workspace, uint64_t
#: workspaceSize, aclOpExecutor *executor, aclrtStream stream)``.
PHASE2_NAMES: tuple[str, str, str, str] = ("workspace", "workspaceSize", "executor", "stream")


@dataclass(frozen=True)
class TilingSpec:
    """Tiling parameters of an op.

    Attributes:
        buffer_num: buffers per queue (1..8; 2 is double buffering).
        ub_reserved_bytes: Unified Buffer bytes left to the framework (>= 0, below every product's UB).
        min_bytes_per_core: data bytes per core used (> 0): the tiling runs on ceil(bytes / min_bytes_per_core)
            cores, at most the product's vector cores, so every started ``min_bytes_per_core`` bytes adds a core
            (a core may get fewer bytes than this; 32768 gives at least one core per 32 KiB).
        loc: the ``tiling`` entry.
    """

    buffer_num: int
    ub_reserved_bytes: int
    min_bytes_per_core: int
    loc: SourceLoc


_SNAKE_BOUNDARY = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z0-9])(?=[A-Z][a-z])")


def snake_case(name: str) -> str:
    """``SoftMarginLossBackward`` -> ``soft_margin_loss_backward``; ``Conv2DBackward`` -> ``conv2d_backward``."""
    return _SNAKE_BOUNDARY.sub("_", name).lower()


class FamilyCompute(Protocol):
    """The model of a family's ``compute`` section: a frozen dataclass defined in the family's package
    (``codegen.families.<family>.compute``); every such model records where its section is."""

    @property
    def loc(self) -> SourceLoc:
        """The ``compute`` entry of the spec."""
        ...

    def first_output_shape(self, shape: tuple[int, ...], attrs: Mapping[str, object]) -> tuple[int, ...]:
        """The first output's shape for a call whose output shape rule gives ``shape`` and whose attr values
        are ``attrs`` (a family whose compute changes the shape per call, e.g. a whole-tensor reduction to
        0-d, says so here; the others return ``shape``). Used to check a spec's worked example."""
        ...


@dataclass(frozen=True)
class OpSpec:
    """One op spec (``specs/<snake>.yaml``).

    Attributes:
        op: aclnn API name without the ``aclnn`` prefix, UpperCamelCase.
        op_type: device OpType (OpDef, tiling, kernel registration), UpperCamelCase.
        kernel: kernel function, file stem and op folder name, snake_case: the spec's ``kernel`` key, by
            default the OpType as ops-nn names its folder (:func:`codegen.spec.naming.ops_nn_folder`).
        family: the op's family, a key of the family registry (:mod:`codegen.registry`).
        summary: one-paragraph description.
        products: catalogue names of the products the op supports.
        deterministic: whether results are bit-identical across runs by default.
        deterministic_gm_atomics: whether a deterministic run (every run when ``deterministic``, else a run
            with ``ACL_OPT_DETERMINISTIC``) may add into GM atomically; False is a documented promise that
            ``opgen check`` enforces through the emulator's counters (``gm_bytes_atomic_added`` 0).
        inputs: input tensors in aclnn parameter order.
        attrs: attributes in aclnn parameter order.
        outputs: output tensors in aclnn parameter order.
        compute: the family's model of the ``compute`` section (:class:`FamilyCompute`; its type is defined
            in the family's package, ``codegen.families.<family>.compute``).
        tiling: tiling parameters.
        constraints: product-specific limits.
        notes: documentation notes.
        example: worked example or None.
        path: the spec file.
        loc: the document's first line.
        device: the ``device`` section (the OpDef interface where it differs from the aclnn one), or None.
        graph: the ``graph`` section (the IR registration as ops-nn's proto writes it, where it differs from
            what the OpDef gives), or None.
        signature: the ``signature`` key (aclnn parameter names in C order), or None for inputs, attrs,
            outputs; see :attr:`aclnn_order`.
        dtype_combos: the ``dtype_combos`` key: the allowed combinations of the tensors' dtypes (per
            product), or ``()`` when the family's own dtype rule applies (e.g. one dtype for every tensor).
        phase2_header_names: the ``phase2_header_names`` key: CANN's header names of phase 2's parameters
            (``workspace``, ``workspaceSize``, ``executor``, ``stream``, in that order) where the header does
            not use those, e.g. aclnnGeluBackward's ``workspace_size``).
        const_stream: the ``const_stream`` key: CANN's header declares phase 2's stream ``const aclrtStream``
            (aclnnGather); the generated header does too.
        shape_status: the ``shape_status`` key: the aclnnStatus the L2 API returns for a tensor of a wrong
            shape (default 161002, ACLNN_ERR_PARAM_INVALID; CANN's aclnnRmsNorm documents 561002).
        promote_type: the ``promote_type`` key: the dtype the device op runs in, CANN's ``promoteType``.
            ``"input"`` (the default): the inputs' own dtype; the device op's result is then cast to the
            first output's dtype. ``"out"``: the L2 API casts the inputs to the first output's dtype before
            the device op (``l0op::Cast(input, out->GetDataType())``; hicann/ops-nn
            activation/log_softmax_v2/op_api/aclnn_log_softmax.cpp), so its result needs no cast.
        category: the ``category`` key: the ops-nn category folder the op's folder sits in (one of the
            catalogue's ``op_categories``, e.g. ``loss``).
    """

    op: str
    op_type: str
    kernel: str
    family: FamilyName
    summary: str
    products: tuple[str, ...]
    deterministic: bool
    inputs: tuple[TensorSpec, ...]
    attrs: tuple[AttrSpec, ...]
    outputs: tuple[TensorSpec, ...]
    compute: FamilyCompute
    tiling: TilingSpec
    constraints: tuple[Constraint, ...]
    notes: tuple[str, ...]
    example: Example | None
    path: str
    loc: SourceLoc
    deterministic_gm_atomics: bool = True
    device: DeviceInterface | None = None
    graph: GraphProto | None = None
    signature: tuple[str, ...] | None = None
    dtype_combos: tuple[DtypeCombo, ...] = ()
    shape_status: int = int(AclnnStatus.ACLNN_ERR_PARAM_INVALID)
    phase2_header_names: tuple[str, str, str, str] = PHASE2_NAMES
    const_stream: bool = False
    category: str = ""
    promote_type: str = "input"

    def compute_as(self, kind: type[ComputeT]) -> ComputeT:
        """The spec's compute model as the family's model class ``kind`` (each family's ``compute_of``).

        Raises:
            TypeError: the compute model is of another class (the spec is of another family).
        """
        if not isinstance(self.compute, kind):
            raise TypeError(f"{self.op}: compute is {type(self.compute).__name__}, not {kind.__name__}")
        return self.compute

    def combos_for(self, product: Product) -> tuple[DtypeCombo, ...]:
        """The ``dtype_combos`` allowed on ``product`` (spec order; empty when the spec declares none)."""
        return tuple(c for c in self.dtype_combos if c.allowed_on(product))

    @property
    def aclnn_order(self) -> tuple[str, ...]:
        """The names of the aclnn phase-1 parameters in C order (before ``workspaceSize``/``executor``): the
        spec's ``signature`` key, or inputs, then attrs, then outputs."""
        if self.signature is not None:
            return self.signature
        return (*self.input_names, *(a.name for a in self.attrs), *(t.name for t in self.outputs))

    @property
    def host_input_names(self) -> tuple[str, ...]:
        """The optional aclnn inputs no device input carries (``device.host_inputs``; spec order): the L2 API
        checks them (dtype, and shape when given) and launches nothing with them."""
        listed = self.device.host_inputs if self.device is not None else ()
        return tuple(n for n in self.input_names if n in listed)

    def launched(self) -> OpSpec:
        """This spec as the device op sees it: without its :attr:`host_input_names` (what a family's kernel,
        tiling, L0 API and dtype combinations plan over); the spec itself when it has none. The aclnn
        signature stays the whole spec's."""
        if not self.host_input_names:
            return self
        return dataclasses.replace(
            self,
            inputs=tuple(t for t in self.inputs if t.name not in self.host_input_names),
            signature=self.aclnn_order,
        )

    @property
    def device_interface(self) -> DeviceInterface:
        """The device op's interface: the spec's ``device`` section, or the aclnn inputs, outputs and attrs
        under their own names (int64/uint64 attrs as ``int``, double as ``float``) with the spec's dtypes. A
        family's compute model may imply the interface instead (its ``device_interface(spec)`` method, when it
        returns one: aclnnIndexFillTensor's device op takes its index array and value as tensors)."""
        if self.device is not None:
            return self.device
        implied = getattr(self.compute, "device_interface", None)
        if callable(implied):
            derived = implied(self)
            if isinstance(derived, DeviceInterface):
                return derived
        return DeviceInterface(
            inputs=tuple(DeviceTensor(t.name, t.name, t.loc) for t in self.inputs),
            outputs=tuple(DeviceTensor(t.name, t.name, t.loc) for t in self.outputs),
            attrs=tuple(
                DeviceAttr(a.name, a.name, ATTR_TYPE_INFO[a.type].device_type, a.default, a.loc) for a in self.attrs
            ),
            dtypes=None,
            loc=self.loc,
        )

    @property
    def aclnn_name(self) -> str:
        """The aclnn API name, e.g. ``aclnnSoftMarginLossBackward``."""
        return "aclnn" + self.op

    @property
    def folder(self) -> str:
        """The op's folder in a generated tree, relative to its root, as ops-nn places it:
        ``<category>/<kernel>``, e.g. ``loss/soft_margin_loss_grad``."""
        return f"{self.category}/{self.kernel}"

    @property
    def snake(self) -> str:
        """snake_case of ``op`` (also the spec's file stem), e.g. ``soft_margin_loss_backward``."""
        return snake_case(self.op)

    @property
    def input_names(self) -> tuple[str, ...]:
        """Input names in parameter order."""
        return tuple(t.name for t in self.inputs)

    @property
    def output_names(self) -> tuple[str, ...]:
        """Output names in parameter order."""
        return tuple(t.name for t in self.outputs)

    @property
    def attr_names(self) -> tuple[str, ...]:
        """Attr names in parameter order."""
        return tuple(a.name for a in self.attrs)

    def tensor(self, name: str) -> TensorSpec:
        """The input or output called ``name``.

        Raises:
            KeyError: no such tensor; the message lists the tensor names.
        """
        for t in (*self.inputs, *self.outputs):
            if t.name == name:
                return t
        known = ", ".join((*self.input_names, *self.output_names))
        raise KeyError(f"{self.op} has no tensor '{name}'; tensors: {known}")

    def attr(self, name: str) -> AttrSpec:
        """The attr called ``name``.

        Raises:
            KeyError: no such attr; the message lists the attr names.
        """
        for a in self.attrs:
            if a.name == name:
                return a
        raise KeyError(f"{self.op} has no attr '{name}'; attrs: {', '.join(self.attr_names) or '(none)'}")

    @property
    def output_mask(self) -> str:
        """The ``bool_array`` attr gating the outputs (one entry per output, in output order; a family's
        ``compute.output_mask``, e.g. an ``outputMask`` attr), or "" when the op has none."""
        return str(getattr(self.compute, "output_mask", "") or "")

    def masked_off(self, attrs: Mapping[str, Any]) -> frozenset[str]:
        """The outputs a call's output mask switches off: those whose entry of ``attrs[self.output_mask]``
        (a sequence of bools, one per output) is false. Empty when the op has no output mask or the call's
        mask is null (None) or of another length than the outputs (the API answers that with a status).
        A caller that does not pass such an output gets no array for it: the aclnn call receives a null
        pointer, as CANN allows for a masked optional output."""
        mask = attrs.get(self.output_mask) if self.output_mask else None
        if mask is None or len(mask) != len(self.outputs):
            return frozenset()
        return frozenset(t.name for t, on in zip(self.outputs, mask) if not on)
