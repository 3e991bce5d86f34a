"""The typed, frozen model of op specs and of the product catalogue.

The YAML is parsed once (:mod:`codegen.spec.loader`) into these dataclasses; later stages never see
dicts. Collections are tuples, mappings are tuples of ``(key, value)`` pairs in file order, and every
object that came from YAML carries the :class:`~codegen.spec.errors.SourceLoc` it came from.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from codegen.registry import FamilyName
from codegen.spec.errors import NO_LOC, SourceLoc
from codegen.spec.expr import Expr, ExprType
from codegen.types import ACLNN_STATUS_CODES, ATTR_TYPE_INFO, DEVICE_ATTR_TYPE_INFO, AclnnStatus, DType

__all__ = [
    "ACLNN_STATUS_CODES",
    "ACL_FORMATS",
    "ATTR_TYPES",
    "MAX_RANK",
    "PRIVATE_ACL_FORMATS",
    "AttrSpec",
    "Catalogue",
    "Constraint",
    "DType",
    "DeviceAttr",
    "DeviceInterface",
    "DeviceTensor",
    "DtypeCombo",
    "Example",
    "ExampleTensor",
    "OpSpec",
    "Product",
    "TensorSpec",
    "TilingSpec",
    "snake_case",
]

#: Highest tensor rank aclnn APIs accept (CANN checks ``GetDimNum() <= 8``; error 161002 above it).
MAX_RANK = 8

#: Attribute types a spec may declare, with the type their values have in expressions.
ATTR_TYPES: dict[str, ExprType] = {name: ExprType[info.expr_kind] for name, info in ATTR_TYPE_INFO.items()}

#: aclScalar dtypes a ``scalar`` attr accepts by default: every real and bool dtype CANN casts to a floating
#: tensor dtype (op::CanCast); the unsigned 16/32/64-bit types are not among the types CANN's activation
#: APIs list.
SCALAR_DTYPES_DEFAULT: tuple[str, ...] = (
    "FLOAT",
    "FLOAT16",
    "BF16",
    "DOUBLE",
    "INT8",
    "INT16",
    "INT32",
    "INT64",
    "UINT8",
    "BOOL",
)
#: aclDataType values of the dtypes an aclScalar may have (acl/acl_base.h, through the type table).
SCALAR_ACL_IDS: dict[str, int] = {d.name: d.acl_id for d in DType}


#: Vector instruction classes of a cost model, in the emulator's order (``opgen_rt::VectorClass``), with the
#: instructions each covers. An instruction not listed is arithmetic.
VECTOR_CLASSES: tuple[tuple[str, str], ...] = (
    ("arithmetic", "Add Sub Mul Max Min Adds Muls Abs Relu Duplicate, UB->UB DataCopy"),
    ("transcendental", "Exp Ln Sqrt"),
    ("division", "Div Reciprocal Rsqrt"),
    ("cast", "Cast"),
    ("reduction", "WholeReduce*, BlockReduce*, ReduceSum/ReduceMax/ReduceMin"),
    ("compare_select", "Compare CompareScalar Select"),
)


@dataclass(frozen=True)
class Figure:
    """One input number of a cost model and where it comes from.

    Attributes:
        value: the number (its unit is in the field's name).
        source: a public source (CANN file and key, vendor document) or a text starting with ``assumed``.
    """

    value: float
    source: str

    @property
    def assumed(self) -> bool:
        """Whether no public source gives the number."""
        return self.source.startswith("assumed")


@dataclass(frozen=True)
class VectorCost:
    """The cost of one vector instruction class: ``cycles_per_repeat`` per 256-byte repeat plus
    ``latency_cycles`` once per instruction, both from ``source`` (or ``assumed ...``)."""

    cycles_per_repeat: float
    latency_cycles: float
    source: str

    @property
    def assumed(self) -> bool:
        """Whether no public source gives the numbers."""
        return self.source.startswith("assumed")


@dataclass(frozen=True)
class CostModel:
    """A product's performance model (``cost_model`` of a catalogue product): what the emulator's pipe
    timeline charges per instruction. See README "Performance model".

    Attributes:
        clock_mhz: AI core clock, MHz.
        gm_bandwidth_gbps: GM (HBM) bandwidth of the whole chip, GB/s (1e9 bytes per second).
        core_gm_bytes_per_cycle: GM bandwidth one core's copy engines reach alone, bytes per cycle.
        dma_fixed_cycles: fixed cost of one GM<->UB DataCopy / DataCopyPad, cycles.
        vector: cost per vector instruction class, in :data:`VECTOR_CLASSES` order.
        scalar_access_cycles: one scalar GetValue / SetValue (UB or GM), cycles.
        scalar_wait_cycles: what one WaitFlag<X_S> (a vector-to-scalar wait) adds to the scalar unit's stall,
            cycles.
    """

    clock_mhz: Figure
    gm_bandwidth_gbps: Figure
    core_gm_bytes_per_cycle: Figure
    dma_fixed_cycles: Figure
    vector: tuple[VectorCost, ...]
    scalar_access_cycles: Figure
    scalar_wait_cycles: Figure

    def figures(self) -> list[tuple[str, str, str]]:
        """Every input number as ``(name, value as text, source)``, in catalogue order (for the docs)."""
        out = [
            (name, f"{fig.value:g}", fig.source)
            for name, fig in (
                ("clock_mhz", self.clock_mhz),
                ("gm_bandwidth_gbps", self.gm_bandwidth_gbps),
                ("core_gm_bytes_per_cycle", self.core_gm_bytes_per_cycle),
                ("dma_fixed_cycles", self.dma_fixed_cycles),
            )
        ]
        for (cls, _), cost in zip(VECTOR_CLASSES, self.vector, strict=True):
            out.append((f"vector.{cls}", f"{cost.cycles_per_repeat:g} / repeat + {cost.latency_cycles:g}", cost.source))
        out.append(("scalar_access_cycles", f"{self.scalar_access_cycles.value:g}", self.scalar_access_cycles.source))
        out.append(("scalar_wait_cycles", f"{self.scalar_wait_cycles.value:g}", self.scalar_wait_cycles.source))
        return out


@dataclass(frozen=True)
class Product:
    """One SoC of the product catalogue (``specs/products.yaml``).

    Facts and their sources: reference/ascend-platform.md (runtime platform config files).

    Attributes:
        name: catalogue name, e.g. ``Ascend910B``.
        doc_term: the product family as CANN documentation names it.
        config_name: OpDef ``AddConfig`` name, e.g. ``ascend910b``.
        soc_version: SocVersion name, e.g. ``ASCEND910B``.
        npu_arch: the ``__NPU_ARCH__`` value, e.g. 2201.
        ub_bytes: Unified Buffer bytes per core (a multiple of 32).
        vector_core_num: cores a vector tiling launches on (``GetCoreNumAiv()``).
        bf16: whether BF16 tensors are supported.
        data_copy_pad: whether ``DataCopyPad`` exists.
        atomic_add_dtypes: dtypes ``SetAtomicAdd<T>`` supports.
        queue_buffer_cap: most buffers one queue position may hold.
        hw_sync_all: whether the no-argument (hardware) ``SyncAll()`` exists; False on NpuArch 1001 and 2002,
            where asc-devkit ``impl/basic_api/dav_c100|dav_m200/kernel_operator_sync_impl.h`` has only an
            assert (kernels there need the software ``SyncAll(gmWorkspace, ubWorkspace, usedCores)`` or no
            in-kernel barrier).
        sys_workspace_bytes: bytes of system workspace AscendC reserves in front of the user workspace
            (``RESERVED_WORKSPACE``, asc-devkit ``impl/basic_api/utils/kernel_utils_constants.h``); what
            ``GetLibApiWorkSpaceSize()`` returns and every tiling adds to its workspace.
        source: where the facts come from.
        capability_source: where ``hw_sync_all`` and ``sys_workspace_bytes`` come from ("" when not given).
        loc: the catalogue entry.
        doc_aliases: other names API documents give the product (another wording of ``doc_term``, or the
            term of ops-nn's Chinese Markdown sources); ``opgen import`` maps a document's product terms
            through ``doc_term`` and these, compared without case and whitespace.
        cost_model: the product's performance model, or None when the catalogue gives none (then the
            emulator keeps no timeline and the model's figures are reported as unavailable).
    """

    name: str
    doc_term: str
    config_name: str
    soc_version: str
    npu_arch: int
    ub_bytes: int
    vector_core_num: int
    bf16: bool
    data_copy_pad: bool
    atomic_add_dtypes: tuple[DType, ...]
    queue_buffer_cap: int
    hw_sync_all: bool
    sys_workspace_bytes: int
    source: str
    loc: SourceLoc
    capability_source: str = ""
    doc_aliases: tuple[str, ...] = ()
    cost_model: CostModel | None = None

    def supports(self, dtype: DType) -> bool:
        """Whether tensors of ``dtype`` exist on this product (False only for BF16 without bf16 support)."""
        return self.bf16 or dtype is not DType.BF16


@dataclass(frozen=True)
class Catalogue:
    """The products of ``specs/products.yaml``, in file order.

    Attributes:
        products: the products.
        path: the catalogue file.
        categories: the ``op_categories`` key: the category folders an op folder may sit in (ops-nn's
            ``OP_CATEGORY_LIST``, ``cmake/variables.cmake``), in file order.
    """

    products: tuple[Product, ...]
    path: str
    categories: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        """Product names in file order."""
        return tuple(p.name for p in self.products)

    def get(self, name: str) -> Product:
        """The product called ``name``.

        Raises:
            KeyError: no such product; the message lists the known names.
        """
        for p in self.products:
            if p.name == name:
                return p
        raise KeyError(f"unknown product '{name}'; known: {', '.join(self.names)}")

    def __contains__(self, name: object) -> bool:
        return any(p.name == name for p in self.products)


#: Phase 2's parameters as the aclnn headers usually name them: ``aclnnXxx(void *workspace, uint64_t
#: workspaceSize, aclOpExecutor *executor, aclrtStream stream)``.
PHASE2_NAMES: tuple[str, str, str, str] = ("workspace", "workspaceSize", "executor", "stream")


@dataclass(frozen=True)
class TensorSpec:
    """An input or output tensor of an op.

    Attributes:
        name: aclnn parameter name (a C identifier).
        dtypes: dtypes the op accepts on products that support them all (spec order).
        rank: inclusive ``(lo, hi)`` with ``0 <= lo <= hi <= 8``.
        description: one-sentence documentation.
        optional: the tensor may be a null pointer (inputs only).
        shape: outputs: the shape expression (a tensor name, ``broadcast(...)`` or ``shape(...)``); inputs: None.
        loc: the tensor's entry.
        const: outputs only: the aclnn signature declares it ``const aclTensor *`` (as CANN does for some
            APIs, e.g. aclnnEmbeddingDenseBackward's ``out``).
        default: optional inputs only: the value every element takes when the tensor is null (e.g. 1.0 for a
            weight), or None; a family may require one on every optional input.
        header_name: the parameter's name in CANN's aclnn header where ``name`` cannot be it (a Python
            keyword, or a name the generated op API declares itself), else ``""``: the generated header and
            document use it (:attr:`c_name`); the definition, expressions and the Python API use ``name``.
    """

    name: str
    dtypes: tuple[DType, ...]
    rank: tuple[int, int]
    description: str
    optional: bool
    shape: Expr | None
    loc: SourceLoc
    const: bool = False
    default: float | None = None
    formats: tuple[str, ...] = ("ND",)
    header_name: str = ""

    @property
    def c_name(self) -> str:
        """The parameter's name in the aclnn header: :attr:`header_name`, else :attr:`name`."""
        return self.header_name or self.name

    def dtypes_for(self, product: Product) -> tuple[DType, ...]:
        """The dtypes of this tensor on ``product``: the spec's list without those the product lacks (BF16)."""
        return tuple(d for d in self.dtypes if product.supports(d))


@dataclass(frozen=True)
class AttrSpec:
    """A host attribute (scalar parameter) of an op.

    Attributes:
        name: aclnn parameter name (a C identifier).
        type: one of ``int64``, ``uint64``, ``bool``, ``double``, ``float`` (:data:`ATTR_TYPES`), or
            ``scalar``: a ``const aclScalar *`` parameter whose value (converted to double) the op uses as a
            float.
        values: for integer attrs, the allowed values with their names in spec order, e.g.
            ``((0, "none"), (1, "mean"), (2, "sum"))``; None when any value of the type is allowed.
        default: the default value (of the attr's type) or None when the attr is required.
        description: one-sentence documentation.
        loc: the attr's entry.

    In expressions, ``uint64`` attrs are read as ``int64`` (CANN's convention for e.g. ``paddingIdx``).
    ``header_name``: as :attr:`TensorSpec.header_name` (e.g. ``lambda``, a Python keyword, for ``lambd``).
    """

    name: str
    type: str
    values: tuple[tuple[int, str], ...] | None
    default: int | float | bool | str | None
    description: str
    loc: SourceLoc
    #: ``string`` attrs (a ``char *`` parameter) keep their allowed strings in ``values`` as
    #: ``((0, "none"), (1, "tanh"))``: expressions see the index, ``default`` is the string.
    #: ``scalar`` attrs: the aclScalar dtypes accepted (names of :data:`SCALAR_ACL_IDS`), the first one the
    #: dtype a Python number is passed as; empty for other types.
    scalar_dtypes: tuple[str, ...] = ()
    header_name: str = ""

    @property
    def c_name(self) -> str:
        """The parameter's name in the aclnn header: :attr:`header_name`, else :attr:`name`."""
        return self.header_name or self.name

    @property
    def cpp_type(self) -> str:
        """The C++ parameter type: ``int64_t``, ``uint64_t``, ``bool``, ``double`` or ``float``."""
        return ATTR_TYPE_INFO[self.type].c_type

    @property
    def expr_type(self) -> ExprType:
        """The type of the attr's value in expressions (INT, BOOL or FLOAT)."""
        return ATTR_TYPES[self.type]

    def expr_value(self, value: object) -> object:
        """``value`` as expressions see it: a ``string`` attr's text becomes the index of that value (-1 for a
        string outside ``values``); other values are returned unchanged."""
        if self.type == "string" and isinstance(value, str):
            return next((k for k, n in self.values or () if n == value), -1)
        return value


#: Storage formats a spec may list for a tensor, with their ``aclFormat`` values (acl/acl_base.h). ND-layout
#: formats only: a private format (FRACTAL_NZ, NC1HWC0, ...) stores the data in another layout, which the
#: generated kernels do not read.
ACL_FORMATS: dict[str, int] = {"ND": 2, "NCHW": 0, "NHWC": 1, "HWCN": 16, "NDHWC": 27, "NCDHW": 30}
#: Private formats (``aclFormat`` values) a check case may use as a format the op rejects.
PRIVATE_ACL_FORMATS: dict[str, int] = {"FRACTAL_NZ": 29, "NC1HWC0": 3, "FRACTAL_Z": 4, "NDC1HWC0": 32}

#: Value types of device (OpDef) attributes, as ``OpAttrDef`` setters name them (register/op_def.h).
DEVICE_ATTR_TYPES = tuple(DEVICE_ATTR_TYPE_INFO)


@dataclass(frozen=True)
class DeviceTensor:
    """One input or output of the device op (the OpDef), and the aclnn tensor it carries.

    Attributes:
        name: the OpDef name (e.g. ``predict``; snake_case or a C identifier).
        source: the aclnn input/output name whose data it gets (e.g. ``self``; several device inputs may carry
            one aclnn input), or None for an OPTIONAL device input no aclnn tensor feeds (the L0 API passes a
            null tensor; the kernel never reads it).
        loc: the entry in the spec.
    """

    name: str
    source: str | None
    loc: SourceLoc


@dataclass(frozen=True)
class DeviceAttr:
    """One attribute of the device op and the aclnn attr it comes from.

    Attributes:
        name: the OpDef attribute name (e.g. ``reduction``).
        source: the aclnn attr whose value it gets.
        type: ``int``, ``bool``, ``float``, ``string`` or ``list_int`` (:data:`DEVICE_ATTR_TYPES`). A ``string``
            attr carries the name of the aclnn integer's value (the aclnn attr's ``values``: 1 gives ``"mean"``);
            a ``list_int`` attr carries an aclnn integer as the one-element list ``{value}`` (SoftmaxV2's
            ``axes`` from aclnnSoftmax's ``dim``).
        default: the OpDef default (OPTIONAL attr; a tuple of ints for ``list_int``), or None for a REQUIRED
            attr.
        loc: the entry in the spec.
        value: for a constant attr (``source`` None), the value the L2 API always passes (``value:`` in the
            spec, of ``type``); None for an attr carried from an aclnn attr.
    """

    name: str
    source: str | None
    type: str
    default: int | float | bool | str | tuple[int, ...] | None
    loc: SourceLoc
    value: int | float | bool | str | None = None


@dataclass(frozen=True)
class DeviceInterface:
    """The device op's interface as the OpDef registers it: inputs, outputs and attrs in registration order,
    each naming the aclnn parameter it carries, and the dtype order of its lists (each product keeps the
    dtypes it supports, in this order). A spec without a ``device`` section gets the identity interface
    (:meth:`OpSpec.device_interface`). ``host_attrs`` names the aclnn attrs the device op does not take
    (checked by the L2 API only; the kernel's formula cannot read them)."""

    inputs: tuple[DeviceTensor, ...]
    outputs: tuple[DeviceTensor, ...]
    attrs: tuple[DeviceAttr, ...]
    dtypes: tuple[DType, ...] | None
    loc: SourceLoc
    host_attrs: tuple[str, ...] = ()

    def input_index(self, source: str) -> int:
        """The index of the first device input carrying aclnn input ``source`` (the one the kernel reads).

        Raises:
            StopIteration: no device input carries ``source`` (the loader rejects such a spec).
        """
        return next(i for i, d in enumerate(self.inputs) if d.source == source)


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


@dataclass(frozen=True)
class Constraint:
    """A product-specific limit, checked by the generated phase-1 function.

    When ``when`` holds (or is None), the ``let`` values are computed in order and ``require`` must be
    true; otherwise phase 1 fails with ``status`` and ``message`` (``{name}`` placeholders of let and attr
    names are filled with their values).

    Attributes:
        name: identifier of the constraint.
        products: products the limit applies to (a subset of the op's products).
        when: condition under which the limit applies; may not use let names.
        let: named intermediate values, each may use the earlier ones.
        require: the condition that must hold.
        message: error text with ``{name}`` placeholders.
        status: aclnnStatus returned on violation (default 161002, ACLNN_ERR_PARAM_INVALID).
        loc: the constraint's entry.
    """

    name: str
    products: tuple[str, ...]
    when: Expr | None
    let: tuple[tuple[str, Expr], ...]
    require: Expr
    message: str
    status: int = int(AclnnStatus.ACLNN_ERR_PARAM_INVALID)
    loc: SourceLoc = NO_LOC


@dataclass(frozen=True)
class DtypeCombo:
    """One allowed combination of tensor dtypes (a "dtype column" of a CANN doc's dtype table), from the
    spec's ``dtype_combos`` list.

    Attributes:
        dtypes: ``(tensor name, dtype)`` for every input and output, in inputs-then-outputs spec order.
        products: catalogue names of the products the combination is allowed on (the op's products when the
            entry lists none); a product without a dtype of the combination (BF16) never allows it.
        loc: the entry.
    """

    dtypes: tuple[tuple[str, DType], ...]
    products: tuple[str, ...]
    loc: SourceLoc = NO_LOC

    def dtype(self, name: str) -> DType:
        """The dtype of tensor ``name`` in this combination.

        Raises:
            KeyError: ``name`` is not a tensor of the combination.
        """
        return dict(self.dtypes)[name]

    def allowed_on(self, product: Product) -> bool:
        """Whether the combination is allowed on ``product`` (listed, and every dtype supported there)."""
        return product.name in self.products and all(product.supports(d) for _, d in self.dtypes)

    @property
    def text(self) -> str:
        """``x FLOAT16, gamma FLOAT, ...`` for messages and docs."""
        return ", ".join(f"{n} {d.name}" for n, d in self.dtypes)


@dataclass(frozen=True)
class ExampleTensor:
    """A tensor of a spec's worked example.

    Attributes:
        shape: dimensions (``()`` for a 0-d tensor).
        dtype: element type.
        values: the elements in row-major order (``prod(shape)`` of them), or None (outputs).
        loc: the entry.
    """

    shape: tuple[int, ...]
    dtype: DType
    values: tuple[float | int | bool, ...] | None
    loc: SourceLoc = NO_LOC


@dataclass(frozen=True)
class Example:
    """A spec's worked example, used by the generated doc and example program.

    Attributes:
        inputs: ``(input name, tensor)`` in the op's input order.
        attrs: ``(attr name, value)`` in the op's attr order (defaults filled in).
        output: the output tensor (values None unless the spec gives expected values).
        loc: the ``example`` entry.
    """

    inputs: tuple[tuple[str, ExampleTensor], ...]
    attrs: tuple[tuple[str, int | float | bool], ...]
    output: ExampleTensor
    loc: SourceLoc = NO_LOC


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
        signature: the ``signature`` key (aclnn parameter names in C order), or None for inputs, attrs,
            outputs; see :attr:`aclnn_order`.
        dtype_combos: the ``dtype_combos`` key: the allowed combinations of the tensors' dtypes (per
            product), or ``()`` when the family's own dtype rule applies (e.g. one dtype for every tensor).
        phase2_header_names: the ``phase2_header_names`` key: CANN's header names of phase 2's parameters
            (``workspace``, ``workspaceSize``, ``executor``, ``stream``, in that order) where the header does
            not use those, e.g. aclnnGeluBackward's ``workspace_size``).
        shape_status: the ``shape_status`` key: the aclnnStatus the L2 API returns for a tensor of a wrong
            shape (default 161002, ACLNN_ERR_PARAM_INVALID; CANN's aclnnRmsNorm documents 561002).
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
    signature: tuple[str, ...] | None = None
    dtype_combos: tuple[DtypeCombo, ...] = ()
    shape_status: int = int(AclnnStatus.ACLNN_ERR_PARAM_INVALID)
    phase2_header_names: tuple[str, str, str, str] = PHASE2_NAMES
    category: str = ""

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
    def device_interface(self) -> DeviceInterface:
        """The device op's interface: the spec's ``device`` section, or the aclnn inputs, outputs and attrs
        under their own names (int64/uint64 attrs as ``int``, double as ``float``) with the spec's dtypes."""
        if self.device is not None:
            return self.device
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


def absent_optional_shapes(inputs: Sequence[TensorSpec], present: Collection[str]) -> dict[str, tuple[int, ...]]:
    """The optional ``inputs`` not in ``present`` (null in a call), each bound to the 0-d shape ``()``, for
    evaluating a shape rule: a null optional input takes no part in ``broadcast(...)``, and a 0-d shape
    broadcasts with any shape to that shape (NumPy rules), so the rule's value is the one without it."""
    return {t.name: () for t in inputs if t.optional and t.name not in present}
