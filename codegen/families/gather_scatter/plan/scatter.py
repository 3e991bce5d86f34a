"""The tiling of an element scatter-add (``direction: scatter_add``): the tiling struct's fields, the Python
mirror of the generated tiling function (:func:`scatter_decision`, built on :mod:`codegen.plan.scatter`), the
tiling keys and the op_host unit-test cases."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from codegen.families.gather_scatter.model import GatherScatterCompute
from codegen.plan import unit_tests as ut
from codegen.plan.scatter import SCATTER_DIMS, ScatterPlan, ScatterView, plan_scatter, scatter_view
from codegen.plan.tiling_decision import UbSplitDecision
from codegen.plan.tiling_fields import TilingField
from codegen.spec.model import DType, OpSpec, Product

#: Tiling-key dtype digit and kernel type of each dtype a scatter adds (key = digit * 10 + index digit).
SCATTER_DTYPE_KEYS: dict[DType, tuple[int, str]] = {
    DType.FLOAT: (0, "float"),
    DType.FLOAT16: (1, "half"),
    DType.BF16: (2, "bfloat16_t"),
    DType.INT32: (3, "int32_t"),
    DType.INT8: (4, "int8_t"),
    DType.UINT8: (5, "uint8_t"),
    DType.INT16: (6, "int16_t"),
}
#: Index digit of each index dtype.
SCATTER_INDEX_KEYS: dict[DType, tuple[int, str]] = {DType.INT32: (0, "int32_t"), DType.INT64: (1, "int64_t")}
#: ``strategy`` field values.
STRATEGY_CODES = {"owned": 0, "atomic": 1}


def scatter_key(dtype: DType, index: DType) -> int:
    """``dtype digit * 10 + index digit`` (:data:`SCATTER_DTYPE_KEYS`, :data:`SCATTER_INDEX_KEYS`)."""
    return SCATTER_DTYPE_KEYS[dtype][0] * 10 + SCATTER_INDEX_KEYS[index][0]


def sum_itemsize(dtype: DType) -> int:
    """Bytes of the float copy an owned window sums FLOAT16 and BF16 in (0 for the other dtypes)."""
    return 4 if dtype in (DType.FLOAT16, DType.BF16) else 0


def _word(name: str, i: int, d: ScatterDecision) -> int:
    value: tuple[int, ...] = getattr(d.view, name)
    return value[i]


def _view_fields(prefix: str, attr: str, comment: str) -> tuple[TilingField[ScatterDecision], ...]:
    return tuple(
        TilingField(f"{prefix}{i}", comment.format(i=i), partial(_word, attr, i), cpp=f"view.{_camel(attr)}[{i}]")
        for i in range(SCATTER_DIMS)
    )


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w.title() for w in rest)


SCATTER_FIELDS: tuple[TilingField[ScatterDecision], ...] = (
    TilingField.held("strategy", "0: owned (deterministic, each core sums its own lines of out); 1: atomic adds"),
    TilingField.held("usedCores", "cores the launch runs on"),
    TilingField.held("lineElems", "elements of a 64-byte line of {dest} (a core owns whole lines)"),
    TilingField.held("units", "64-byte lines of {dest}, split evenly over the cores (the first take one more)"),
    TilingField.held("windowLen", "elements of {dest} a core keeps in UB at once (whole lines)"),
    TilingField.held("tileLen", "elements of {index} read into UB at once"),
    *_view_fields("extent", "extents", "extent of view dim {i} of {{index}} (its dims right-aligned to 8, 1 before)"),
    *_view_fields("outStride", "out_strides", "elements of {{dest}} per step of view dim {i} (0 along dim)"),
    *_view_fields("srcStride", "src_strides", "elements of {{src}} per step of view dim {i}"),
    *_view_fields("outerExtent", "outer_extents", "extent of {{index}} at view dim {i} of the dims before dim"),
    *_view_fields("outerOut", "outer_out", "extent of {{dest}} at view dim {i} of the dims before dim"),
    *(
        TilingField(name, comment, partial(lambda a, d: getattr(d.view, a), attr), cpp=f"view.{_camel(attr)}")
        for name, attr, comment in (
            ("axisLen", "axis_len", "A: the extent of dim in {dest} (valid indices are [0, A))"),
            ("dimStride", "dim_stride", "elements of {dest} per step of dim"),
            ("indexNum", "index_num", "elements of {index}"),
            ("outNum", "out_num", "elements of {dest}"),
            ("srcNum", "src_num", "elements of {src}"),
            ("indexAxis", "index_axis", "-1: {index} has the view dims; else the view dim indexing {index}"),
            ("indexLen", "index_len", "elements of {index}"),
        )
    ),
)


@dataclass(frozen=True)
class ScatterDecision(UbSplitDecision):
    """What the tiling function decides for one scatter-add call on one product (element counts)."""

    FIELDS = SCATTER_FIELDS
    strategy: int
    used_cores: int
    line_elems: int
    units: int
    window_len: int
    tile_len: int
    reason: str
    view: ScatterView
    plan: ScatterPlan


def scatter_decision(
    spec: OpSpec,
    product: Product,
    shapes: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]],
    dim: int,
    dtype: DType,
    index: DType,
    deterministic: bool,
) -> ScatterDecision:
    """The tiling of a call with ``shapes`` (self, index, src) along ``dim`` on ``product`` (a row scatter when
    the spec's direction is index_add); ``deterministic``: whether the call runs with ACL_OPT_DETERMINISTIC.

    Raises:
        ValueError: the shapes or dim are invalid, the call has no element of out or of index (the L2 API
            launches nothing), or the plan does not fit UB.
    """
    comp = spec.compute
    view = scatter_view(*shapes, dim, rows=isinstance(comp, GatherScatterCompute) and comp.rows)
    if view.out_num == 0 or view.index_num == 0:
        raise ValueError("a call without elements of self or index launches no kernel")
    ub = product.ub_bytes - spec.tiling.ub_reserved_bytes
    plan = plan_scatter(
        view,
        dtype.itemsize,
        index.itemsize,
        core_num=product.vector_core_num,
        ub_bytes=ub,
        data_copy_pad=product.data_copy_pad and product.hw_sync_all,
        atomic_add=dtype in product.atomic_add_dtypes,
        deterministic=deterministic,
        sum_itemsize=sum_itemsize(dtype),
    )
    line = 64 // dtype.itemsize
    per = dtype.itemsize + plan.sum_itemsize
    return ScatterDecision(
        product=product.name,
        tiling_key=scatter_key(dtype, index),
        block_dim=len(plan.cores),
        workspace_bytes=product.sys_workspace_bytes,
        bytes_per_element=per,
        ub_budget_bytes=plan.ub_bytes(dtype.itemsize, index.itemsize),
        ub_split=(("window", 1, plan.window_len * per), ("index tile", 1, plan.tile_len * index.itemsize)),
        strategy=STRATEGY_CODES[plan.strategy],
        used_cores=len(plan.cores),
        line_elems=line,
        units=-(-view.out_num // line),
        window_len=plan.window_len,
        tile_len=plan.tile_len,
        reason=plan.reason,
        view=view,
        plan=plan,
    )


#: Tiling UT calls (self, index, src shapes, dim): a middle dim with src larger than index, dim 0 with many
#: repeats, the last dim of a rank-3 tensor, a 0-d self.
UT_CASES: tuple[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int], ...] = (
    ((4, 10, 7), (4, 12, 7), (4, 12, 8), 1),
    ((300, 20), (5000, 20), (5000, 20), 0),
    ((2, 3, 4096), (2, 3, 100), (2, 3, 100), -1),
    ((), (), (), 0),
)


#: The same for a row scatter (``direction: index_add``; self, a 1-d index, src with numel(index) along dim).
ROW_UT_CASES: tuple[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int], ...] = (
    ((4, 10, 7), (12,), (4, 12, 7), 1),
    ((300, 20), (5000,), (5000, 20), 0),
    ((2, 3, 4096), (100,), (2, 3, 100), -1),
    ((), (), (), 0),
)


def _ut_inputs(
    comp: GatherScatterCompute, shapes: tuple[tuple[int, ...], ...], dt: DType, it: DType
) -> dict[str, ut.UtTensor]:
    """The device inputs of a UT call by name: self, index, src of ``shapes`` and (index_add) a 0-d alpha."""
    assert comp.src is not None
    by_name = {
        comp.source: ut.ut_tensor(shapes[0], dt),
        comp.index: ut.ut_tensor(shapes[1], it),
        comp.src: ut.ut_tensor(shapes[2], dt),
    }
    if comp.alpha is not None:
        by_name[comp.alpha] = ut.ut_tensor((), dt)
    return by_name


def scatter_ut_tiling_cases(spec: OpSpec, comp: GatherScatterCompute, products: list[Product]) -> list[ut.UtTilingCase]:
    """Every :data:`UT_CASES` call on every product with the first dtype and INT64 indices (else the first
    index dtype), without and with ACL_OPT_DETERMINISTIC; expectations from :func:`scatter_decision`."""
    assert comp.src is not None and comp.dim is not None
    dt = spec.tensor(comp.source).dtypes[0]
    idxs = spec.tensor(comp.index).dtypes
    it = DType.INT64 if DType.INT64 in idxs else idxs[0]
    cases: list[ut.UtTilingCase] = []
    for p in products:
        for shape, index_shape, src_shape, dim in ROW_UT_CASES if comp.rows else UT_CASES:
            for det in (False, True):
                d = scatter_decision(spec, p, (shape, index_shape, src_shape), dim, dt, it, det)
                values = ut.ut_attr_values(spec)
                values[comp.dim] = dim
                by_name = _ut_inputs(comp, (shape, index_shape, src_shape), dt, it)
                cases.append(
                    ut.ut_tiling_case(
                        p,
                        [
                            dt.name,
                            it.name,
                            "x".join(map(str, shape)) or "scalar",
                            f"dim{dim % max(len(shape), 1)}",
                            "det" if det else "default",
                        ],
                        f"{comp.source} {list(shape)}, dim {dim}, {comp.index} {list(index_shape)}, {comp.src} "
                        f"{list(src_shape)}" + (", deterministic" if det else ""),
                        ut.ut_device_inputs(spec, by_name),
                        [ut.ut_tensor(shape, dt)],
                        ut.ut_device_attrs(spec, values),
                        d,
                        deterministic=det,
                    )
                )
    return cases


def scatter_ut_infer_cases(spec: OpSpec, comp: GatherScatterCompute) -> list[ut.UtInferCase]:
    """Infershape cases: out has self's shape ([4, 10, 7] with a smaller index and src), a 0-d self."""
    assert comp.src is not None and comp.dim is not None
    dt = spec.tensor(comp.source).dtypes[0]
    it = DType.INT64 if DType.INT64 in spec.tensor(comp.index).dtypes else spec.tensor(comp.index).dtypes[0]
    out: list[ut.UtInferCase] = []
    calls: tuple[tuple[str, tuple[int, ...], tuple[int, ...], int], ...] = (
        ("SelfShape", (4, 10, 7), (4, 3, 7), 1),
        ("ScalarSelf", (), (), 0),
    )
    for name, shape, src_shape, dim in calls:
        values = ut.ut_attr_values(spec)
        values[comp.dim] = dim
        # a row scatter's index is 1-d, of src's extent along dim
        index_shape = src_shape[dim : dim + 1] if comp.rows else src_shape
        by_name = _ut_inputs(comp, (shape, index_shape, src_shape), dt, it)
        out.append(
            ut.ut_infer_case(
                name,
                ut.ut_device_inputs(spec, by_name),
                ut.ut_device_attrs(spec, values),
                [(shape, dt)],
                f"{comp.source} {list(shape)}, dim {dim}, {comp.index} {list(index_shape)}",
            )
        )
    return out
