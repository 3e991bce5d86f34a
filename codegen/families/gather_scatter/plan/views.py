"""Every template view of a gather/scatter op: the family's view classes by kind (:data:`VIEWS`) and the
named values they are filled from (the ``build_views`` hook)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from codegen.families.gather_scatter.model import FILL_INDEX_DTYPE, GatherScatterCompute
from codegen.families.gather_scatter.plan.fields import TILING_FIELDS, VIEW_DIMS
from codegen.families.gather_scatter.plan.fill import FILL_TILES, MODE_FILL, REGBASE_NPU_ARCHS
from codegen.families.gather_scatter.plan.fill_docs import fill_constraint_lines, fill_status_rows, fill_tiling_lines
from codegen.families.gather_scatter.plan.scatter import (
    SCATTER_DTYPE_KEYS,
    SCATTER_FIELDS,
    SCATTER_INDEX_KEYS,
    scatter_key,
    sum_itemsize,
)
from codegen.families.gather_scatter.plan.scatter_docs import (
    scatter_constraint_lines,
    scatter_status_rows,
    scatter_tiling_lines,
)
from codegen.families.gather_scatter.plan.tiling import (
    ELEMENT_ALIGN,
    INDEX_KEYS,
    LINE_BYTES,
    MAX_BLOCK_COUNT,
    MIN_TILE_BYTES,
    MODE_ELEMENTS,
    MODE_ROWS,
    MODE_WINDOWS,
    TILE_BUFFERS,
    WIDTH_KEYS,
    WIDTH_TYPES,
    tiling_key,
)
from codegen.families.gather_scatter.plan.ut import ut_infer_cases, ut_tiling_cases
from codegen.plan import doc_lines
from codegen.plan.constraints import constraint_doc_lines
from codegen.plan.doc_tables import StatusRow, format_rule_text, status_table
from codegen.plan.opdef import OpDefConfig, OpDefParam, OpDefRegistration, OpDefTensors
from codegen.plan.products import ArchGroup, arch_groups
from codegen.plan.shared_views import family_views
from codegen.plan.signature import L0Attr, l0_params
from codegen.plan.tiling_fields import TilingField, tiling_field_views
from codegen.plan.view_bases import AclnnSourceBase, DocBase, KernelBase, L0SourceBase, TilingSourceBase
from codegen.plan.views import KindView, OpViews, views_by_kind
from codegen.spec.model import Catalogue, DType, OpSpec, Product


def compute_of(spec: OpSpec) -> GatherScatterCompute:
    """The spec's compute model.

    Raises:
        TypeError: the spec is not of the gather_scatter family.
    """
    return spec.compute_as(GatherScatterCompute)


@dataclass(frozen=True)
class Roles:
    """The names of the roles (``source``, ``index``, ``dest`` tensors, the ``dim`` attr) and the OpDef
    positions the host functions read: ``source_pos``/``index_pos`` (inputs), ``dim_pos`` (attrs).

    ``dim`` is the attr's name ('' when the dim is not an attr, ``dim_pos`` then -1); ``dim_const`` the
    constant dim (0 for a flattened source); ``flatten`` whether the source is read flattened; ``negative_wrap``
    whether a negative index counts from the end; ``elements`` whether one element is gathered per index element
    (``direction: gather_elements``); ``around`` the view's words for comments and documents. A fill
    (``direction: fill``): ``value`` the scalar attr and ``value_pos`` its device input (the device op's
    inputs are source, index, value; its one attr is dim)."""

    source: str
    index: str
    dest: str
    dim: str
    source_pos: int
    index_pos: int
    dim_pos: int
    dim_const: int
    flatten: bool
    negative_wrap: bool
    around: str
    elements: bool = False
    value: str = ""
    value_pos: int = -1
    src: str = ""
    src_pos: int = -1
    alpha: str = ""
    rows: bool = False

    @property
    def fill(self) -> bool:
        """Whether the op fills slices (``direction: fill``)."""
        return bool(self.value)

    @property
    def scatter(self) -> bool:
        """Whether the op adds src's elements at index's positions (``direction: scatter_add`` or ``index_add``;
        ``src`` and ``src_pos`` name its third input; an index_add's ``rows`` is set and ``alpha`` names its
        scalar attr, the device op's fourth input)."""
        return bool(self.src)


@dataclass(frozen=True)
class WidthKey:
    """A tiling-key width digit: ``key``, the element ``bytes``, the kernel's storage ``type`` and the
    ``ge_names`` (``DT_*``) of the op's dtypes of that width."""

    key: int
    bytes: int
    type: str
    ge_names: tuple[str, ...]


@dataclass(frozen=True)
class IndexKey:
    """A tiling-key index digit: ``key``, the ``ge_name`` and the kernel's ``type``."""

    key: int
    ge_name: str
    type: str


@dataclass(frozen=True)
class ScatterDtypeKey:
    """A scatter's tiling-key dtype digit: ``key``, the ``ge_name``, its ``bytes``, the bytes of the float copy a
    window sums it in (``sum_bytes``, 0: none) and the NpuArchs whose atomic add takes it (``atomic_archs``)."""

    key: int
    ge_name: str
    bytes: int
    sum_bytes: int
    atomic_archs: tuple[int, ...]


@dataclass(frozen=True)
class KernelBranch:
    """One branch of the kernel entry: its tiling ``key``, storage type ``width_type`` and ``index_type``."""

    key: int
    width_type: str
    index_type: str
    comment: str
    atomic: bool = False


@dataclass(frozen=True)
class AclnnSourceView(AclnnSourceBase):
    """``op_api/aclnn_<op>.cpp``: parameter checks in CANN's order and the L2 plan."""

    index_dtype_list: str
    l0_attrs: tuple[L0Attr, ...]
    regbase_archs: tuple[int, ...]
    roles: Roles


@dataclass(frozen=True)
class L0SourceView(L0SourceBase):
    """``op_api/<kernel>.cpp``: the L0 API (output allocation and launch)."""

    roles: Roles


@dataclass(frozen=True)
class InferShapeView(KindView):
    """``op_host/<kernel>_infershape.cpp``: out = source's shape with dim's extent the index count."""

    KIND: ClassVar[str] = "infershape_cpp"
    roles: Roles


@dataclass(frozen=True)
class TilingSourceView(TilingSourceBase):
    """``op_host/<kernel>_tiling.cpp``: the tiling function (:mod:`.tiling`)."""

    block_bytes: int
    index_keys: tuple[IndexKey, ...]
    line_bytes: int
    max_block_count: int
    min_tile_bytes: int
    mode_elements: int
    mode_fill: int
    fill_tiles: int
    mode_rows: int
    mode_windows: int
    element_align: int
    view_dims: int
    pad_archs: tuple[ArchGroup, ...]
    roles: Roles
    tile_buffers: int
    width_keys: tuple[WidthKey, ...]
    scatter_archs: tuple[ArchGroup, ...]
    scatter_dtype_keys: tuple[ScatterDtypeKey, ...]


@dataclass(frozen=True)
class KernelView(KernelBase):
    """``op_kernel/<kernel>.cpp``: one branch per tiling key."""

    branches: tuple[KernelBranch, ...]
    fill_tiles: int
    line_bytes: int
    roles: Roles
    tile_buffers: int
    view_dims: int


@dataclass(frozen=True)
class DocView(DocBase):
    """``docs/<aclnn>.md``: the API documentation."""

    roles: Roles


#: The views of the gather/scatter templates (every other kind renders the shared view).
VIEWS: dict[str, type[KindView]] = views_by_kind(
    AclnnSourceView, L0SourceView, InferShapeView, TilingSourceView, KernelView, DocView
)


def build_views(spec: OpSpec, catalogue: Catalogue) -> OpViews:
    """Every template view of a gather/scatter op (:data:`VIEWS` and the shared ones).

    Raises:
        TypeError: the spec is not of this family.
    """
    return family_views(spec, catalogue, VIEWS, _family_parts, ut_tiling_cases, ut_infer_cases)


def roles_of(spec: OpSpec) -> Roles:
    """The :class:`Roles` of ``spec`` (OpDef positions in the spec's input and attr order)."""
    comp = compute_of(spec)
    if comp.fill:
        assert comp.value is not None and comp.dim is not None
        return Roles(
            comp.source,
            comp.index,
            comp.dest,
            comp.dim,
            0,
            1,
            0,
            0,
            False,
            True,
            f"around {comp.dim}",
            value=comp.value,
            value_pos=2,
        )
    if comp.scatter:
        assert comp.src is not None and comp.dim is not None
        return Roles(
            comp.source,
            comp.index,
            comp.dest,
            comp.dim,
            spec.input_names.index(comp.source),
            spec.input_names.index(comp.index),
            spec.attr_names.index(comp.dim),
            0,
            False,
            False,
            f"around {comp.dim}",
            src=comp.src,
            src_pos=spec.input_names.index(comp.src),
            alpha=comp.alpha or "",
            rows=comp.rows,
        )
    if comp.flatten:
        around = f"flattened (P = Q = 1, A = numel({comp.source}))"
    elif comp.dim is None:
        around = f"around dim {comp.dim_const}"
    else:
        around = f"around {comp.dim}"
    return Roles(
        comp.source,
        comp.index,
        comp.dest,
        comp.dim or "",
        spec.input_names.index(comp.source),
        spec.input_names.index(comp.index),
        spec.attr_names.index(comp.dim) if comp.dim is not None else -1,
        comp.dim_const or 0,
        comp.flatten,
        comp.negative == "wrap",
        around,
        comp.elements,
    )


def _opdef(spec: OpSpec, products: list[Product], attrs: Any) -> OpDefRegistration:
    """The OpDef: one column per (source dtype, index dtype) pair the products take, the output of the source's
    dtype; a custom config for a product whose columns differ (BF16, a per-product dtype list)."""
    comp = compute_of(spec)
    src, idx = spec.tensor(comp.source), spec.tensor(comp.index)

    def tensors(p: Product | None) -> OpDefTensors:
        cols = [(d, i) for d in (src.all_dtypes if p is None else src.dtypes_for(p)) for i in idx.dtypes]

        def param(name: str, dts: list[DType]) -> OpDefParam:
            return OpDefParam(
                name=name,
                param_type="REQUIRED",
                dtypes=", ".join(f"ge::{d.ge_name}" for d in dts),
                formats=", ".join(["ge::FORMAT_ND"] * len(dts)),
            )

        ins = {
            comp.source: param(comp.source, [d for d, _ in cols]),
            comp.index: param(comp.index, [i for _, i in cols]),
        }
        for name in (comp.src, comp.alpha):
            if name is not None:
                ins[name] = param(name, [d for d, _ in cols])
        names = [t.name for t in spec.device_interface.inputs]
        return OpDefTensors(inputs=tuple(ins[n] for n in names), outputs=(param(comp.dest, [d for d, _ in cols]),))

    default = tensors(None)
    configs = tuple(
        OpDefConfig(
            p.config_name, f"{p.config_name}Config", tensors(p) != default, tensors(p).inputs, tensors(p).outputs
        )
        for p in products
    )
    return OpDefRegistration(default, configs, attrs)


def _shape_text(comp: GatherScatterCompute) -> str:
    """The output shape rule of ``comp``'s dim kind, in words (Markdown)."""
    s, i, o = comp.source, comp.index, comp.dest
    if comp.flatten or comp.elements:
        return f"`{o}` has the shape of `{i}`"
    if comp.dim is None:
        return f"`{o}` has the shape of `{s}` with dim {comp.dim_const} replaced by all the dims of `{i}`"
    return f"`{o}` has the shape of `{s}` with the extent of `{comp.dim}` replaced by `numel({i})`"


def _status_rows(spec: OpSpec) -> list[StatusRow]:
    comp = compute_of(spec)
    if comp.fill:
        return fill_status_rows(spec, comp)
    if comp.scatter:
        return scatter_status_rows(spec, comp)
    src, idx, dst = spec.tensor(comp.source), spec.tensor(comp.index), spec.tensor(comp.dest)
    s, i, o = comp.source, comp.index, comp.dest
    ranks = [f"`{t.name}` of rank above {t.rank[1]}" for t in (src, idx, dst)]
    ranks += [f"`{t.name}` of rank below {t.rank[0]}" for t in (src, idx, dst) if t.rank[0] > 0]
    if comp.elements:
        dim_rules = (
            f"`{comp.dim}` outside `[-rank, rank)`; `{s}` and `{i}` of different ranks (a 0-d tensor counts as rank "
            f"1); `{o}` of another shape than `{i}`'s; when `{i}` is not empty, an extent of `{i}` outside "
            f"`{comp.dim}` above `{s}`'s, or `{s}` without elements along `{comp.dim}`"
        )
    elif comp.dim is not None:
        dim_rules = (
            f"`{comp.dim}` outside `[-rank, rank)`; a 0-d `{s}` with an `{i}` of more than one element; "
            f"`{o}` of another shape than `{s}`'s with dim's extent `numel({i})` (checked when neither input is empty)"
        )
    else:
        dim_rules = f"`{o}` of another shape than: {_shape_text(comp)} (checked when neither input is empty)"
    return status_table(
        [s, i, o],
        f"A dtype of `{s}` or `{i}` not supported on this product; `{o}` of another dtype than `{s}`; "
        f"{'; '.join(ranks)}; {dim_rules}; {format_rule_text(spec)}.",
    )


def _constraint_lines(spec: OpSpec, catalogue: Catalogue) -> list[str]:
    comp = compute_of(spec)
    if comp.fill:
        return fill_constraint_lines(spec, comp)
    if comp.scatter:
        return scatter_constraint_lines(spec, comp, catalogue)
    s, i, o = comp.source, comp.index, comp.dest
    if comp.elements:
        view = (
            f"`{o}[c] = {s}[c']`, where `c'` is the coordinates `c` of `{i}` with the one of `{comp.dim}` replaced by "
            f"`{i}[c]`: one element of `{s}` per element of `{i}` (`A = {s}.shape[{comp.dim}]`)."
        )
    elif comp.flatten:
        view = f"`{s}` is read flattened, as `[1, A, 1]` with `A = numel({s})`; `{o}[k] = {s}.flat[{i}[k]]`."
    elif comp.dim is None:
        c = comp.dim_const
        view = (
            f"`{s}` is viewed as `[P, A, Q]` around dim {c} (`A = {s}.shape[{c}]`); with `k` running over the "
            f"elements of `{i}` in order, `{o}[p, k, q] = {s}[p, {i}[k], q]`."
        )
    else:
        d = comp.dim
        view = (
            f"`{s}` is viewed as `[P, A, Q]` around `{d}` (`A = {s}.shape[{d}]`); `{o}[p, k, q] = {s}[p, {i}[k], q]`."
        )
    what = "element" if comp.elements else "row"
    zero = "a zero" if comp.elements else "a row of zeros"
    if comp.negative == "wrap":
        like = "as CANN documents; `torch.gather` raises there" if comp.elements else "as PyTorch"
        policy = (
            f"An `{i}` value in `[-A, 0)` selects {what} `{i} + A` ({like}); any other value outside `[0, A)` "
            f"gives {zero} in `{o}`"
        )
    else:
        policy = f"An `{i}` value outside `[0, A)` (CANN documents only values inside it) gives {zero} in `{o}`"
    lines = [
        view,
        f"{policy}; no value of `{i}` makes the kernel read or write outside `{s}`, `{i}` and `{o}`.",
        f"An empty `{s}` or `{i}` returns success with workspace 0 and leaves `{o}` as it is; "
        + (
            f"a 0-d `{s}` and `{i}` give a 0-d `{o}`."
            if comp.elements
            else f"a 0-d `{i}` is one position; a 0-d `{s}` takes a one-element `{i}` and gives a 0-d `{o}`."
            if comp.dim is not None
            else f"a 0-d `{i}` is one position, and {_shape_text(comp)}."
        ),
        "Deterministic: every output element is a copy of one source element (or a zero), whatever the core order.",
    ]
    lines += [
        f"Product limit `{c.name}`: {line}"
        for c, line in zip(spec.constraints, constraint_doc_lines(spec, catalogue), strict=True)
    ]
    return lines


def _tiling_lines(spec: OpSpec) -> list[str]:
    comp = compute_of(spec)
    if comp.fill:
        return fill_tiling_lines(spec, comp)
    if comp.scatter:
        return scatter_tiling_lines(spec, comp)
    if comp.elements:
        return [
            "Every size and offset is int64; an index is "
            + ("wrapped when negative, then " if comp.negative == "wrap" else "")
            + "tested against `[0, A)` before it forms an address.",
            f"UB holds {TILE_BUFFERS} tiles (`copyMode` {MODE_ELEMENTS}); a tile holds `chunkLen` output elements "
            f"and their indices (a multiple of {ELEMENT_ALIGN} elements). A tile's indices are read with one "
            "DataCopyPad (the next tile's while this one is computed); the scalar unit reads one element of "
            f"`{comp.source}` per output element (only gathered elements are read) and one DataCopyPad writes "
            "the tile, overlapping the next tile's work.",
            f"Cores: the output elements are split evenly over at most coreNum cores, one per "
            f"{spec.tiling.min_bytes_per_core} bytes of `{comp.dest}` at least; each core walks its elements' "
            "coordinates in the index's dims, right-aligned to 8 (`extent0..7`, `stride0..7`).",
        ]
    return [
        "Every size and offset is int64; an index is "
        + ("wrapped when negative, then " if comp.negative == "wrap" else "")
        + "tested against `[0, A)` before it forms an address.",
        f"UB holds {TILE_BUFFERS} tiles (one is filled while the previous one is written). A tile holds up to "
        f"`tileRows` consecutive output rows (at most {MAX_BLOCK_COUNT}), each in a slot of its bytes rounded up "
        "to 32; each row is read with one DataCopyPad (a zero row is a Duplicate) and the tile is written with "
        "one DataCopyPad. A row larger than a tile is cut into `chunkNum` chunks of `chunkLen` elements.",
        f"Cores: the output rows (times their chunks) are split evenly over at most coreNum cores, one per "
        f"{spec.tiling.min_bytes_per_core} bytes of `{comp.dest}` at least.",
        "Without DataCopyPad (`copyMode` 1): the output is split over the cores in whole 64-byte lines; a core "
        "fills windows of `chunkLen` elements of its range in UB (a row segment that starts inside a block goes "
        "through a staging buffer and the scalar unit) and writes them by whole blocks, element by element only "
        "at the end of the tensor.",
    ]


def _family_parts(spec: OpSpec, catalogue: Catalogue, common: Mapping[str, Any]) -> dict[str, Any]:
    """The family's view entries of ``spec`` beside the ``common`` ones (its ``opdef`` replaces the shared one)."""
    comp = compute_of(spec)
    products: list[Product] = common["products"]
    src = spec.tensor(comp.source)
    index_dtypes = (FILL_INDEX_DTYPE,) if comp.fill else spec.tensor(comp.index).dtypes
    widths = sorted({d.itemsize for d in src.all_dtypes})
    width_keys = [
        WidthKey(WIDTH_KEYS[w], w, WIDTH_TYPES[w], tuple(d.ge_name for d in src.all_dtypes if d.itemsize == w))
        for w in widths
    ]
    index_keys = [IndexKey(INDEX_KEYS[d][0], d.ge_name, INDEX_KEYS[d][1]) for d in index_dtypes]
    branches = [
        KernelBranch(
            tiling_key(w.bytes, d),
            w.type,
            INDEX_KEYS[d][1],
            f"{w.bytes}-byte elements ({', '.join(n[3:] for n in w.ge_names)}), {comp.index} {d.name}",
        )
        for w in width_keys
        for d in index_dtypes
    ]
    if comp.scatter:
        atomic_dtypes = {d for p in products for d in p.atomic_add_dtypes if p.data_copy_pad and p.hw_sync_all}
        branches = [
            KernelBranch(
                scatter_key(d, i),
                SCATTER_DTYPE_KEYS[d][1],
                SCATTER_INDEX_KEYS[i][1],
                f"{d.name}, {comp.index} {i.name}",
                d in atomic_dtypes,
            )
            for d in src.all_dtypes
            for i in index_dtypes
        ]
    dim_attrs = [L0Attr(comp.dim, f"int64_t {comp.dim}", comp.dim)] if comp.dim is not None else []
    fields: tuple[TilingField[Any], ...] = SCATTER_FIELDS if comp.scatter else TILING_FIELDS
    scatter_parts: dict[str, Any] = {"scatter_archs": (), "scatter_dtype_keys": ()}
    if comp.scatter:
        scatter_parts = {
            "scatter_archs": arch_groups([p for p in products if p.data_copy_pad and p.hw_sync_all]),
            "scatter_dtype_keys": [
                ScatterDtypeKey(
                    SCATTER_DTYPE_KEYS[d][0],
                    d.ge_name,
                    d.itemsize,
                    sum_itemsize(d),
                    tuple(sorted({p.npu_arch for p in products if d in p.atomic_add_dtypes})),
                )
                for d in src.all_dtypes
            ],
        }
    return {
        **scatter_parts,
        "roles": roles_of(spec),
        "opdef": common["opdef"] if comp.fill else _opdef(spec, products, common["opdef"].attrs),
        "tiling_fields": tiling_field_views(
            fields, source=comp.source, index=comp.index, dest=comp.dest, src=comp.src or comp.source
        ),
        "tensor_groups": {comp.source: common["tensor_groups"][comp.source]},
        "index_dtype_list": ", ".join(f"op::DataType::{d.ge_name}" for d in index_dtypes),
        "l0_attrs": dim_attrs,
        "l0_params": [
            *l0_params(spec, []),
            *(f"const aclTensor *{n}" for n in (comp.index, comp.value) if comp.fill and n is not None),
            *(f"const aclTensor *{n}" for n in (comp.alpha,) if n is not None),
            *(a.decl for a in dim_attrs),
        ],
        "mode_fill": MODE_FILL,
        "regbase_archs": tuple(sorted({p.npu_arch for p in products if p.npu_arch in REGBASE_NPU_ARCHS})),
        "fill_tiles": FILL_TILES,
        "width_keys": width_keys,
        "index_keys": index_keys,
        "branches": branches,
        "tile_buffers": TILE_BUFFERS,
        "max_block_count": MAX_BLOCK_COUNT,
        "line_bytes": LINE_BYTES,
        "mode_rows": MODE_ROWS,
        "mode_windows": MODE_WINDOWS,
        "mode_elements": MODE_ELEMENTS,
        "element_align": ELEMENT_ALIGN,
        "view_dims": VIEW_DIMS,
        "pad_archs": arch_groups([p for p in products if p.data_copy_pad]),
        "min_tile_bytes": MIN_TILE_BYTES,
        "dfx_in": ", ".join([*spec.input_names, *spec.attr_names]),
        "status_rows": _status_rows(spec),
        "constraint_lines": _constraint_lines(spec, catalogue),
        "tiling_lines": _tiling_lines(spec),
        "example_lines": doc_lines.example_lines(spec, c_bools=True),
    }
