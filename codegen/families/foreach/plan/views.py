"""Every template view of a foreach op: the family's view classes by kind (:data:`VIEWS`) and the named values
they are filled from (the ``build_views`` hook)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from codegen.families.foreach.compute import ForeachCompute
from codegen.families.foreach.plan.tiling import (
    DTYPE_KEYS,
    MAX_LIST_CORES,
    TILE_BUFFERS,
    TILING_FIELDS,
    list_buffers,
    op_compute_dtype,
    output_tiles,
    scalar_carrier,
)
from codegen.families.foreach.plan.ut import ut_infer_cases, ut_tiling_cases
from codegen.plan import doc_lines, doc_tables
from codegen.plan.constraints import ConstraintChecks
from codegen.plan.doc_tables import StatusRow, status_table
from codegen.plan.products import DtypeGroup, QueueCap, archs_condition, queue_caps
from codegen.plan.shared_views import TilingHeaderView, UtTilingDefView, family_views
from codegen.plan.signature import SignatureParam
from codegen.plan.tensor_lists import MAX_LIST_TENSORS
from codegen.plan.tiling_fields import tiling_field_views
from codegen.plan.view_bases import DocBase, KernelBase, L0SourceBase, TilingSourceBase
from codegen.plan.views import KindView, OpViews, views_by_kind
from codegen.spec.catalogue import UB_BLOCK_BYTES
from codegen.spec.model import Catalogue, OpSpec, Product


def compute_of(spec: OpSpec) -> ForeachCompute:
    """The spec's compute model.

    Raises:
        TypeError: the spec is not of the foreach family.
    """
    return spec.compute_as(ForeachCompute)


@dataclass(frozen=True)
class ScalarDtype:
    """The one-element tensor the L2 API makes of the aclScalar for a list of one dtype: ``list_dtype`` and the
    tensor's ``dtype`` (``DT_*`` names), as the device op's OpDef column pairs them; ``wide``, the other aclScalar
    dtype the API takes for that list and converts to ``dtype``: DT_DOUBLE for a floating list, DT_INT64 for an
    integer one (ops-nn's foreach V2 APIs: FLOAT or DOUBLE, FLOAT16 or DOUBLE, INT32 or INT64)."""

    list_dtype: str
    dtype: str
    wide: str = "DT_DOUBLE"


@dataclass(frozen=True)
class ListRoles:
    """The names the templates print: the aclnn input lists ``sources`` (``source``: the first, whose shapes every
    list has) and output list ``dest``, the device op's input lists ``device_ins`` (``device_in``: the first),
    every device input ``kernel_ins`` (the kernel entry's order) and ``device_out`` names, the AscendC
    ``instruction`` and the formula text ``formula``; for a scalar form, the aclnn ``scalar`` attr, the device
    input ``device_scalar`` carrying it and its dtype per list dtype ``scalar_dtypes`` (else None and empty);
    ``fused``, the one instruction a scaled form runs into the first list's tile where that tile is a scratch
    copy (BF16's fp32 tile; :attr:`codegen.families.foreach.compute.UnaryFunction.fused`), else None; ``steps``,
    the C++ statements of a list form's ``Apply`` (:attr:`~codegen.families.foreach.compute.UnaryFunction.steps`:
    the result lands in an input tile, the kernel has no output tiles), else empty; ``output_tiles``, the output
    tile lists the kernel and the tiling count (0 or 1)."""

    source: str
    sources: tuple[str, ...]
    dest: str
    device_in: str
    device_ins: tuple[str, ...]
    device_out: str
    instruction: str
    formula: str
    kernel_ins: tuple[str, ...] = ()
    scalar: str | None = None
    device_scalar: str | None = None
    scalar_dtypes: tuple[ScalarDtype, ...] = ()
    fused: str | None = None
    steps: tuple[str, ...] = ()
    output_tiles: int = 1


@dataclass(frozen=True)
class KernelBranch:
    """One branch of the kernel entry: its tiling ``key``, the dtype's ``ge_name``, the tensors' kernel ``type``
    and the ``compute_type`` a tile is computed in, and their bytes per element (``bytes``,
    ``compute_bytes``); ``scalar_type``: the kernel type the scalar's one-element tensor holds for this dtype ("" for
    an op without a scalar)."""

    key: int
    ge_name: str
    type: str
    compute_type: str
    bytes: int
    compute_bytes: int
    comment: str
    scalar_type: str = ""


@dataclass(frozen=True)
class ListSizes:
    """The list table's bounds: ``max_tensors`` per launch and ``max_cores`` per launch."""

    max_tensors: int
    max_cores: int


@dataclass(frozen=True)
class AclnnSourceView(KindView):
    """``op_api/aclnn_<op>.cpp``: the foreach checks in ops-nn's order (templates/common/list_checks.j2) and the
    L2 plan; ``tensor_groups``: the input list's dtypes per NpuArch group; ``checks``, ``dfx_in``, ``files``,
    ``signature`` as :class:`~codegen.plan.view_bases.AclnnSourceBase` has them (its per-tensor checks are the
    list checks' here)."""

    KIND: ClassVar[str] = "op_api_cpp"
    checks: ConstraintChecks
    dfx_in: str
    files: Mapping[str, str]
    signature: tuple[SignatureParam, ...]
    tensor_groups: Mapping[str, tuple[DtypeGroup, ...]]
    roles: ListRoles
    list_sizes: ListSizes


@dataclass(frozen=True)
class L0SourceView(L0SourceBase):
    """``op_api/<kernel>.cpp``: the L0 API (the launch of the device op on the two lists)."""

    roles: ListRoles


@dataclass(frozen=True)
class InferShapeView(KindView):
    """``op_host/<kernel>_infershape.cpp``: each output tensor of its input's shape and dtype."""

    KIND: ClassVar[str] = "infershape_cpp"
    roles: ListRoles


@dataclass(frozen=True)
class TilingSourceView(TilingSourceBase):
    """``op_host/<kernel>_tiling.cpp``: the tiling function (:mod:`.tiling`)."""

    block_bytes: int
    dtype_keys: tuple[KernelBranch, ...]
    list_sizes: ListSizes
    roles: ListRoles
    tile_buffers: int
    queue_caps: tuple[QueueCap, ...]


@dataclass(frozen=True)
class ListTilingHeaderView(TilingHeaderView):
    """``op_host/<kernel>_tiling.h``: the scalar fields, then the list table's arrays."""

    list_sizes: ListSizes


@dataclass(frozen=True)
class ListUtTilingDefView(UtTilingDefView):
    """``tests/ut/op_kernel/<kernel>_tiling_def.h``: the struct of :class:`ListTilingHeaderView`."""

    list_sizes: ListSizes


@dataclass(frozen=True)
class KernelView(KernelBase):
    """``op_kernel/<kernel>.cpp``: ListUnary (one input list) or ListBinary (two) per tiling key;
    ``single_buffer_condition``: the preprocessor condition of the NpuArchs whose list queues hold one buffer."""

    branches: tuple[KernelBranch, ...]
    roles: ListRoles
    single_buffer_condition: str


@dataclass(frozen=True)
class DocView(DocBase):
    """``docs/<aclnn>.md``: the API documentation (``indexed_formula``: the formula on tensor ``i`` of each
    list)."""

    indexed_formula: str
    roles: ListRoles


#: The views of the foreach templates (every other kind renders the shared view).
VIEWS: dict[str, type[KindView]] = views_by_kind(
    AclnnSourceView,
    L0SourceView,
    InferShapeView,
    TilingSourceView,
    ListTilingHeaderView,
    ListUtTilingDefView,
    KernelView,
    DocView,
)


def build_views(spec: OpSpec, catalogue: Catalogue) -> OpViews:
    """Every template view of a foreach op (:data:`VIEWS` and the shared ones).

    Raises:
        TypeError: the spec is not of this family.
    """
    return family_views(spec, catalogue, VIEWS, _family_parts, ut_tiling_cases, ut_infer_cases)


def roles_of(spec: OpSpec) -> ListRoles:
    """The :class:`ListRoles` of ``spec``."""
    comp = compute_of(spec)
    dev = spec.device_interface
    lists = [d for d in dev.inputs if d.like is None]
    carrier = scalar_carrier(spec)
    scalar_dtypes = (
        tuple(
            ScalarDtype(d.ge_name, carrier.like_dtype(d).ge_name, "DT_INT64" if d.is_integer else "DT_DOUBLE")
            for d in spec.tensor(comp.source).all_dtypes
        )
        if carrier is not None
        else ()
    )
    return ListRoles(
        comp.source,
        comp.sources,
        comp.dest,
        lists[0].name,
        tuple(d.name for d in lists),
        dev.outputs[0].name,
        comp.function.instruction,
        comp.formula,
        tuple(d.name for d in dev.inputs),
        comp.scalar,
        carrier.name if carrier is not None else None,
        scalar_dtypes,
        comp.function.fused if comp.scalar is not None else None,
        comp.function.steps,
        output_tiles(spec),
    )


def _branches(spec: OpSpec) -> list[KernelBranch]:
    comp = compute_of(spec)
    src = spec.tensor(comp.source)
    wide = {d: op_compute_dtype(spec, d) for d in src.dtypes}
    carrier = scalar_carrier(spec)
    return [
        KernelBranch(
            DTYPE_KEYS[d],
            d.ge_name,
            d.kernel_type,
            wide[d].kernel_type,
            d.itemsize,
            wide[d].itemsize,
            d.name + ("" if wide[d] is d else f", computed in {wide[d].name}"),
            carrier.like_dtype(d).kernel_type if carrier is not None else "",
        )
        for d in src.dtypes
    ]


def _status_rows(spec: OpSpec) -> list[StatusRow]:
    comp = compute_of(spec)
    s, o = comp.source, comp.dest
    lists = [*comp.sources, o]
    named = ", ".join(f"`{n}`" for n in lists)
    shapes = " and ".join(f"`{n}[i]`" for n in lists[1:])
    scalar = ""
    if comp.scalar is not None:
        pairs = ", ".join(
            f"{p.dtype.removeprefix('DT_')} or {p.wide.removeprefix('DT_')} for {p.list_dtype.removeprefix('DT_')}"
            for p in roles_of(spec).scalar_dtypes
        )
        scalar = f"; `{comp.scalar}` of another dtype than those its list takes ({pairs})"
    return status_table(
        [named, *doc_tables.null_pointer_attrs(spec), "a tensor of one of the lists"],
        f"The product has no kernel for the op; the first tensor of `{s}` of a dtype not supported; a tensor of "
        f"{named} of another dtype than the first tensor of `{s}`; {named} of different sizes; a tensor of `{s}` "
        f"of more than 8 dimensions; {shapes} of another shape than `{s}[i]`; a tensor of a private storage "
        f"format{scalar}.",
    )


def _indexed(comp: ForeachCompute) -> str:
    """The formula with each list written as its tensor ``[i]`` (``x1[i] * x2[i]``, ``x[i] * scalar``)."""
    if comp.function.pattern is not None:
        return comp.function.pattern.format(*(f"{n}[i]" for n in comp.sources), s=comp.scalar)
    if comp.scalar is not None and comp.function.arity == 2:
        return f"{comp.sources[0]}[i] {comp.function.name} {comp.scalar} * {comp.sources[1]}[i]"
    if comp.scalar is not None and comp.function.name.isidentifier():
        return f"{comp.function.name}({comp.source}[i], {comp.scalar})"
    if comp.scalar is not None:
        return f"{comp.source}[i] {comp.function.name} {comp.scalar}"
    if comp.function.arity == 1:
        return f"{comp.function.name}({comp.source}[i])"
    return f"{comp.sources[0]}[i] {comp.function.name} {comp.sources[1]}[i]"


def _constraint_lines(spec: OpSpec) -> list[str]:
    comp = compute_of(spec)
    s = comp.source
    return [
        f"`{comp.dest}[i] = {_indexed(comp)}` for every tensor `i` of `{s}`, element by element "
        f"({comp.function.words}).",
        f"`{s}` holds at most {MAX_LIST_TENSORS} tensors; each may be empty or 0-d, and may have a shape of its own.",
        f"An empty `{s}` (no tensor), or one whose tensors hold no element, returns success with workspace 0 and "
        "launches nothing.",
        _compute_line(spec),
        *(
            [
                f"`{comp.scalar}` reaches the kernel as a one-element tensor of the dtype the list is computed in "
                "(converted with ConvertToTensor: rounded to nearest); each core reads it once."
            ]
            if comp.scalar
            else []
        ),
        "Deterministic: every output element is computed from its input element alone, whatever the core order.",
    ]


def _compute_line(spec: OpSpec) -> str:
    """Which dtypes are computed in FLOAT (rounded once at the end) and which in their own."""
    dtypes = spec.tensor(compute_of(spec).source).dtypes
    wide = [d.name for d in dtypes if op_compute_dtype(spec, d) is not d]
    own = [d.name for d in dtypes if op_compute_dtype(spec, d) is d]
    parts = []
    if wide:
        parts.append(
            f"{' and '.join(wide)} {'is' if len(wide) == 1 else 'are'} computed in FLOAT and rounded once (CAST_RINT)"
        )
    if own:
        parts.append(f"{' and '.join(own)} in {'its' if len(own) == 1 else 'their'} own dtype")
    if any(d.is_integer for d in dtypes) and compute_of(spec).function.name in "+-*":
        parts[-1] += ", an integer result past its dtype's range wrapping around (two's complement)"
    return "; ".join(parts) + "."


def _tiling_lines(spec: OpSpec, products: list[Product]) -> list[str]:
    comp = compute_of(spec)
    single = [p.name for p in products if list_buffers(spec, p) < TILE_BUFFERS]
    buffers = (
        f"{TILE_BUFFERS} ({', '.join(single)}: 1, whose queue buffers per position hold no more)"
        if single
        else f"{TILE_BUFFERS}"
    )
    outs = (
        "as many output tiles"
        if output_tiles(spec)
        else "no output tile (the result is copied out of the input tile it lands in)"
    )
    return [
        f"The tensors of `{comp.source}` are read as one stream of 32-byte blocks (each tensor's own blocks, a "
        "tensor's tail block partial) and split over the cores in equal block counts (give or take one), a core's "
        "share starting and ending on a block boundary of its tensor, across tensor boundaries: the tiling hands "
        "the kernel each tensor's element count and, per core, the tensor and element its share starts and ends "
        "at.",
        f"Cores: one per {spec.tiling.min_bytes_per_core} bytes of `{comp.source}` at least, at most the product's "
        f"vector cores (and {MAX_LIST_CORES}).",
        f"UB holds {buffers} tiles per input list ({len(comp.sources)}) and {outs} (and one FLOAT tile per "
        "input list for a dtype computed in FLOAT); each tile is moved by one DataCopyPad of its exact bytes.",
    ]


def _family_parts(spec: OpSpec, catalogue: Catalogue, common: Mapping[str, Any]) -> dict[str, Any]:
    """The family's view entries of ``spec`` beside the ``common`` ones."""
    comp = compute_of(spec)
    roles = roles_of(spec)
    indexed = _indexed(comp)
    sizes = ListSizes(MAX_LIST_TENSORS, MAX_LIST_CORES)
    return {
        "roles": roles,
        "indexed_formula": indexed,
        "list_sizes": sizes,
        "tiling_fields": tiling_field_views(TILING_FIELDS),
        "tensor_groups": {comp.source: common["tensor_groups"][comp.source]},
        "l0_attrs": (),
        "l0_params": (
            *(f"const aclTensorList *{n}" for n in comp.sources),
            *((f"const aclTensor *{comp.scalar}",) if comp.scalar else ()),
            f"const aclTensorList *{comp.dest}",
        ),
        "l0_return": "const aclTensorList *",
        "branches": _branches(spec),
        "dtype_keys": _branches(spec),
        "tile_buffers": TILE_BUFFERS,
        # the NpuArchs whose list queues hold one buffer each (list_buffers), and each NpuArch's queue cap
        "single_buffer_condition": archs_condition(
            p.npu_arch for p in common["products"] if list_buffers(spec, p) < TILE_BUFFERS
        ),
        "queue_caps": tuple(queue_caps(common["products"])),
        "block_bytes": UB_BLOCK_BYTES,
        "dfx_in": ", ".join(comp.sources),
        "status_rows": _status_rows(spec),
        "constraint_lines": _constraint_lines(spec),
        "tiling_lines": _tiling_lines(spec, common["products"]),
        "example_lines": doc_lines.example_lines(spec, c_bools=True),
    }
