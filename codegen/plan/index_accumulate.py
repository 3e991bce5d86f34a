"""Planning for the index_accumulate family: tiling rule, kernel variants, checks and the view model.

An index-accumulate op (EmbeddingDenseBackward is the first) adds row ``i`` of ``rows`` (``[N, D]``) into row
``index[i]`` of ``out`` (``[num_rows, D]``), skipping the padding row and invalid indices, optionally
dividing each row by the occurrence count of its index. The device op returns the fp32 sums; the L2 API
casts them once to the dtype of ``out`` and copies them into its (possibly strided) view.

Kernel strategies (chosen by the tiling from ``context->GetDeterministic()``; tiling key
``strategy * 100 + rows-dtype digit * 10 + index-dtype digit``):

- **atomic** (0): every core zero-fills the accumulator rows it owns (and, with scaling, counts the
  occurrences of those rows by scanning all indices), ``SyncAll``; the indices are split over cores and
  each valid row of grad is added with ``SetAtomicAdd<float>`` into the fp32 accumulator; ``SyncAll``; each
  core scales and writes its own rows.
- **deterministic** (1): each core owns a contiguous range of output rows, scans all indices in order and
  adds only its rows (read-modify-write of its own accumulator rows), so the sum of every row is formed in
  index order whatever the core timing; then it scales and writes its rows. No core touches another's
  rows, so no ``SyncAll`` is needed.

Accumulator: ``[num_rows, accStride]`` fp32 with ``accStride = D`` rounded up to a 32-byte block, so every
copy and atomic add moves whole blocks (Ascend910 has no DataCopyPad and only fp32 atomics). When
``D % 8 == 0`` the fp32 device output itself is the accumulator; otherwise it lives in the workspace.
Workspace: ``[accumulator (if not in the output)] [int64 counts (with scaling)]``; the counts start on a
64-byte line and each owning core's slice starts on a line of its own (the scalar data cache never holds
another core's counts or accumulator bytes).

Tiling rule (the generated C++ tiling function implements exactly :func:`tiling_decision`; all in int64):

- UB: ``bufferNum * INDEX_UB_BYTES`` for indices, then per row element ``bufferNum * (sizeof(T) + 4 + 4)``
  (grad, accumulator and output queues) plus 4 for the fp32 cast of 16-bit grads;
  ``dChunkMax = (ubBytes - ubReserved - bufferNum * INDEX_UB_BYTES) / bytesPerElement`` rounded down to
  64 elements; ``dChunk = min(dChunkMax, D rounded up to 64)``; ``indexChunk = INDEX_UB_BYTES / sizeof(index)``.
- Cores: atomic: ``rowCoreNum = clamp(ceil(num_rows * accStride * 4 / minBytesPerCore), 1, min(coreNum,
  num_rows))`` and ``indexCoreNum = clamp(ceil(N * D * sizeof(T) / minBytesPerCore), 1, min(coreNum, N))``;
  deterministic: ``rowCoreNum = clamp(num_rows, 1, coreNum)`` (the owners do all the adds), ``indexCoreNum = 1``;
  ``blockDim = max(rowCoreNum, indexCoreNum)``; rows and indices are split evenly, the first
  ``count % cores`` cores take one more.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codegen.plan.common import arch_condition, common_view, dtype_groups
from codegen.plan.constraints import constraint_doc_lines, constraint_view
from codegen.spec.index_accumulate import IndexAccumulateCompute
from codegen.spec.model import Catalogue, DType, OpSpec, Product

BLOCK_BYTES = 32
FP32_BYTES = 4
#: Occurrence counts are int64 (N may exceed 2^31).
COUNT_BYTES = 8
#: Bytes of a line of the AI core's scalar data cache (AscendC DataCacheCleanAndInvalid documentation:
#: SINGLE_CACHE_LINE works on 64-byte lines). Scalar GM accesses go through it, so the int64 counts of
#: different cores never share a line, and the counts never share one with the DMA-written accumulator.
CACHE_LINE_BYTES = 64
#: fp32 elements per 32-byte block: the accumulator's row alignment.
ACC_ALIGN = BLOCK_BYTES // FP32_BYTES
#: fp32 elements per 256-byte repeat: the granularity of dChunk.
CHUNK_ALIGN = 64
#: UB bytes of one buffer of the indices queue.
INDEX_UB_BYTES = 16384
#: VECIN queues of the kernel (indices, grad, accumulator); the product's per-position buffer cap bounds
#: bufferNum * VECIN_QUEUES.
VECIN_QUEUES = 3
STRATEGIES = (("atomic", False), ("deterministic", True))

#: The tiling struct, in order: every field is int64 (numRows and the row count may exceed 2^31). The
#: template declares these; :class:`TilingDecision` has the same values under snake_case names.
TILING_FIELDS: tuple[tuple[str, str], ...] = (
    ("numRows", "rows of the output"),
    ("rowLength", "D: elements per row of the rows input and of the output"),
    ("numIndices", "N: rows of the rows input = elements of the index input"),
    ("paddingRow", "output row that receives nothing; -1 for none"),
    ("countScaling", "1: divide each row by the occurrence count of its index"),
    ("accStride", "fp32 elements per accumulator row (D rounded up to a 32-byte block)"),
    ("accInWorkspace", "1: accumulator in the workspace; 0: in the fp32 output"),
    ("countsOffset", "workspace byte offset of the int64 occurrence counts"),
    ("dChunk", "elements of a row moved through UB at once"),
    ("indexChunk", "indices moved through UB at once"),
    ("rowCoreNum", "cores owning rows of the output"),
    ("rowsPerCore", "output rows per owning core"),
    ("rowsFormerNum", "owning cores that take one row more"),
    ("indexCoreNum", "cores splitting the indices (atomic strategy)"),
    ("indicesPerCore", "indices per splitting core"),
    ("indicesFormerNum", "splitting cores that take one index more"),
)

#: Kernel-side decoder of each index dtype (struct names of the family's kernel template).
INDEX_CODECS: dict[DType, str] = {
    DType.FLOAT: "IndexFloat",
    DType.FLOAT16: "IndexFloat16",
    DType.DOUBLE: "IndexDouble",
    DType.INT32: "IndexInteger<int32_t>",
    DType.INT64: "IndexInteger<int64_t>",
    DType.INT16: "IndexInteger<int16_t>",
    DType.INT8: "IndexInteger<int8_t>",
    DType.UINT8: "IndexInteger<uint8_t>",
    DType.BOOL: "IndexBool",
}


def compute_of(spec: OpSpec) -> IndexAccumulateCompute:
    """The spec's compute model.

    Raises:
        TypeError: the spec is not of the index_accumulate family (its compute is another model).
    """
    if not isinstance(spec.compute, IndexAccumulateCompute):
        raise TypeError(f"{spec.op}: compute is {type(spec.compute).__name__}, not IndexAccumulateCompute")
    return spec.compute


def row_dtypes(spec: OpSpec) -> list[DType]:
    """Dtypes of the rows input in spec order (the grad digit of the tiling key is the position)."""
    return list(spec.tensor(compute_of(spec).rows).dtypes)


def index_dtypes(spec: OpSpec) -> list[DType]:
    """Dtypes of the index input in spec order (the index digit of the tiling key is the position)."""
    return list(spec.tensor(compute_of(spec).index).dtypes)


def buffer_num(spec: OpSpec, products: list[Product]) -> int:
    """Buffers per queue (the spec's ``tiling.buffer_num``), one constant for every product.

    Raises:
        ValueError: the VECIN queues (indices, grad, accumulator) would exceed a product's buffers per position.
    """
    bufs = spec.tiling.buffer_num
    for p in products:
        if bufs * VECIN_QUEUES > p.queue_buffer_cap:
            raise ValueError(
                f"{spec.op}: tiling.buffer_num {bufs} needs {bufs * VECIN_QUEUES} VECIN buffers, but {p.name} has "
                f"{p.queue_buffer_cap} per position; use buffer_num <= {p.queue_buffer_cap // VECIN_QUEUES}"
            )
    return bufs


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _sat_mul(a: int, b: int) -> int:
    return min(a * b, (1 << 63) - 1)


def _cores_for(items: int, bytes_each: int, core_num: int, min_bytes: int) -> int:
    if items <= 0:
        return 1
    wanted = _ceil_div(_sat_mul(items, max(bytes_each, 1)), min_bytes)
    return max(1, min(wanted, core_num, items))


@dataclass(frozen=True)
class TilingDecision:
    """What the tiling function decides for one call on one product (units in the field names).

    ``ub_split`` lists ``(buffer, count, bytes_each)`` for every UB allocation of one core.
    """

    product: str
    grad_dtype: str
    index_dtype: str
    deterministic: bool
    tiling_key: int
    num_weights: int
    embedding_dim: int
    num_indices: int
    padding_row: int
    scale: bool
    acc_stride: int
    acc_in_workspace: bool
    counts_offset: int
    workspace_bytes: int
    buffer_num: int
    bytes_per_element: int
    ub_budget_bytes: int
    d_chunk_max: int
    d_chunk: int
    index_chunk: int
    row_core_num: int
    rows_per_core: int
    rows_former_num: int
    index_core_num: int
    indices_per_core: int
    indices_former_num: int
    block_dim: int
    ub_split: tuple[tuple[str, int, int], ...]

    @property
    def strategy(self) -> str:
        """``deterministic`` or ``atomic``."""
        return "deterministic" if self.deterministic else "atomic"

    def tiling_fields(self) -> dict[str, int]:
        """The values of the generated tiling struct, by the field names of :data:`TILING_FIELDS`."""
        return {
            "numRows": self.num_weights,
            "rowLength": self.embedding_dim,
            "numIndices": self.num_indices,
            "paddingRow": self.padding_row,
            "countScaling": int(self.scale),
            "accStride": self.acc_stride,
            "accInWorkspace": int(self.acc_in_workspace),
            "countsOffset": self.counts_offset,
            "dChunk": self.d_chunk,
            "indexChunk": self.index_chunk,
            "rowCoreNum": self.row_core_num,
            "rowsPerCore": self.rows_per_core,
            "rowsFormerNum": self.rows_former_num,
            "indexCoreNum": self.index_core_num,
            "indicesPerCore": self.indices_per_core,
            "indicesFormerNum": self.indices_former_num,
        }


def tiling_decision(
    spec: OpSpec,
    product: Product,
    grad_shape: tuple[int, ...],
    num_weights: int,
    grad_dtype: DType,
    index_dtype: DType,
    deterministic: bool,
    padding_idx: int = -1,
    scale: bool = False,
) -> TilingDecision:
    """The tiling of ``spec`` on ``product`` for grad of ``grad_shape`` (``[..., D]``, 64-bit sizes).

    Mirrors the generated C++ tiling function; ``tests/test_embedding_dense_backward.py`` compares the two
    through ``opgen_rt_run_tiling_json``.

    Raises:
        ValueError: a dtype the spec does not list, a grad of rank 0, a negative ``num_weights``, or a UB
            too small for one 64-element chunk.
    """
    grads, idxs = row_dtypes(spec), index_dtypes(spec)
    if grad_dtype not in grads or index_dtype not in idxs:
        raise ValueError(
            f"{spec.op} takes grad {', '.join(d.name for d in grads)} and indices {', '.join(d.name for d in idxs)}; "
            f"got {grad_dtype.name} and {index_dtype.name}"
        )
    if not grad_shape or num_weights < 0:
        raise ValueError(f"grad must have rank >= 1 and numWeights >= 0, got {list(grad_shape)} and {num_weights}")
    bufs = buffer_num(spec, [product])
    d = grad_shape[-1]
    n = 1
    for dim in grad_shape[:-1]:
        n = _sat_mul(n, dim)
    pad = padding_idx if 0 <= padding_idx < num_weights else -1
    acc_stride = _ceil_div(d, ACC_ALIGN) * ACC_ALIGN
    acc_in_ws = d % ACC_ALIGN != 0
    grad_bytes = grad_dtype.itemsize
    cast_bytes = FP32_BYTES if grad_dtype is not DType.FLOAT else 0
    bpe = bufs * (grad_bytes + FP32_BYTES + FP32_BYTES) + cast_bytes
    budget = product.ub_bytes - spec.tiling.ub_reserved_bytes - bufs * INDEX_UB_BYTES
    d_chunk_max = budget // bpe // CHUNK_ALIGN * CHUNK_ALIGN
    if d_chunk_max <= 0:
        raise ValueError(f"UB of {product.name} ({product.ub_bytes} bytes) cannot hold one chunk of {spec.op}")
    d_chunk = min(d_chunk_max, _ceil_div(max(d, 1), CHUNK_ALIGN) * CHUNK_ALIGN)
    index_chunk = INDEX_UB_BYTES // index_dtype.itemsize
    min_bytes = spec.tiling.min_bytes_per_core
    cores = product.vector_core_num
    if deterministic:  # the owners do all the adds: every row may get its own core
        row_cores = max(1, min(cores, num_weights))
    else:
        row_cores = _cores_for(num_weights, _sat_mul(acc_stride, FP32_BYTES), cores, min_bytes)
    index_cores = 1 if deterministic else _cores_for(n, _sat_mul(d, grad_bytes), cores, min_bytes)
    acc_bytes = _sat_mul(_sat_mul(num_weights, acc_stride), FP32_BYTES) if acc_in_ws else 0
    per_line = CACHE_LINE_BYTES // COUNT_BYTES
    count_slots = _ceil_div(num_weights, per_line) * per_line + per_line * row_cores if scale else 0
    counts_bytes = _sat_mul(count_slots, COUNT_BYTES)
    counts_offset = _ceil_div(acc_bytes, CACHE_LINE_BYTES) * CACHE_LINE_BYTES
    key = (1 if deterministic else 0) * 100 + grads.index(grad_dtype) * 10 + idxs.index(index_dtype)
    split = (
        ("indices queue", bufs, INDEX_UB_BYTES),
        ("grad queue", bufs, d_chunk * grad_bytes),
        ("fp32 cast of grad", 1 if cast_bytes else 0, d_chunk * FP32_BYTES),
        ("accumulator queue", bufs, d_chunk * FP32_BYTES),
        ("output queue", bufs, d_chunk * FP32_BYTES),
    )
    return TilingDecision(
        product=product.name,
        grad_dtype=grad_dtype.name,
        index_dtype=index_dtype.name,
        deterministic=deterministic,
        tiling_key=key,
        num_weights=num_weights,
        embedding_dim=d,
        num_indices=n,
        padding_row=pad,
        scale=scale,
        acc_stride=acc_stride,
        acc_in_workspace=acc_in_ws,
        counts_offset=counts_offset,
        workspace_bytes=counts_offset + counts_bytes,
        buffer_num=bufs,
        bytes_per_element=bpe,
        ub_budget_bytes=budget,
        d_chunk_max=d_chunk_max,
        d_chunk=d_chunk,
        index_chunk=index_chunk,
        row_core_num=row_cores,
        rows_per_core=num_weights // row_cores,
        rows_former_num=num_weights % row_cores,
        index_core_num=index_cores,
        indices_per_core=n // index_cores,
        indices_former_num=n % index_cores,
        block_dim=max(row_cores, index_cores),
        ub_split=split,
    )


def explain_tiling(spec: OpSpec, product: Product, shape: tuple[int, ...], dtype_name: str | None) -> str:
    """The tiling decision of both strategies as readable lines, for ``opgen explain``.

    Args:
        shape: ``(numWeights, D)`` or ``(numWeights, D, N)`` (N, the number of indices, defaults to numWeights).
        dtype_name: grad dtype (default the first the spec lists); indices are taken as INT64 when listed.

    Raises:
        ValueError: a shape of another length or a dtype the op does not take.
    """
    if len(shape) not in (2, 3):
        raise ValueError(f"give the shape as numWeights,D or numWeights,D,N; got {list(shape)}")
    num_weights, d = shape[0], shape[1]
    n = shape[2] if len(shape) == 3 else num_weights
    grad = DType[dtype_name] if dtype_name else row_dtypes(spec)[0]
    idxs = index_dtypes(spec)
    index = DType.INT64 if DType.INT64 in idxs else idxs[0]
    lines = [f"tiling for grad [{n}, {d}] ({grad.name}), indices [{n}] ({index.name}), numWeights {num_weights}:"]
    for _, det in STRATEGIES:
        t = tiling_decision(spec, product, (n, d), num_weights, grad, index, det, scale=True)
        lines += [
            f"  strategy {t.strategy} (tiling key {t.tiling_key}), "
            f"blockDim {t.block_dim} of {product.vector_core_num}:",
            f"    UB budget: {t.ub_budget_bytes} bytes after the indices queue; {t.bytes_per_element} bytes per row "
            f"element; dChunk {t.d_chunk} of at most {t.d_chunk_max} elements; indexChunk {t.index_chunk}",
        ]
        for name, count, each in t.ub_split:
            if count:
                lines.append(f"      {name}: {count} x {each} bytes")
        lines += [
            f"    rows of out: {t.row_core_num} owning cores, {t.rows_per_core} rows each (+1 on the first "
            f"{t.rows_former_num})",
            f"    indices: {t.index_core_num} cores, {t.indices_per_core} each (+1 on the first {t.indices_former_num})"
            if not det
            else "    indices: every owning core scans all of them in order",
            f"    accumulator: fp32 rows of {t.acc_stride} elements "
            + ("in the workspace" if t.acc_in_workspace else "in the fp32 output itself")
            + f"; workspace {t.workspace_bytes} bytes (counts at offset {t.counts_offset} with scaling)",
        ]
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------- the view


def device_opdef_dtypes(spec: OpSpec, products: list[Product] | None) -> dict[str, list[DType]]:
    """Dtype columns of the device op's OpDef, by tensor name: every (rows dtype, index dtype) pair the
    products all support, rows-major; the output (the fp32 sums) is FLOAT in every column. ``products``
    None gives the spec's full lists (the OpDef's default)."""
    comp = compute_of(spec)
    rows_t, index_t = spec.tensor(comp.rows), spec.tensor(comp.index)
    grads = [d for d in rows_t.dtypes if products is None or all(p.supports(d) for p in products)]
    idxs = [d for d in index_t.dtypes if products is None or all(p.supports(d) for p in products)]
    cols = [(g, i) for g in grads for i in idxs]
    out: dict[str, list[DType]] = {comp.rows: [g for g, _ in cols], comp.index: [i for _, i in cols]}
    out.update({t.name: [DType.FLOAT] * len(cols) for t in spec.outputs})
    return out


def _opdef_columns(spec: OpSpec, products: list[Product] | None) -> dict[str, Any]:
    """The OpDef entries (see :func:`device_opdef_dtypes`) as template strings."""
    cols = device_opdef_dtypes(spec, products)

    def entry(name: str) -> dict[str, str]:
        dts = cols[name]
        return {
            "name": name,
            "param_type": "REQUIRED",
            "dtypes": ", ".join(f"ge::{d.ge_name}" for d in dts),
            "formats": ", ".join(["ge::FORMAT_ND"] * len(dts)),
        }

    return {
        "inputs": [entry(t.name) for t in spec.inputs],
        "outputs": [entry(t.name) for t in spec.outputs],
        "key": tuple(tuple(cols[n]) for n in sorted(cols)),
    }


def build_view(spec: OpSpec, catalogue: Catalogue) -> dict[str, Any]:
    """The complete template view model of an index-accumulate op (see :func:`codegen.plan.common.common_view`).

    Raises:
        TypeError: the spec is not of this family.
        ValueError: more than 10 rows or index dtypes (one decimal digit each in the tiling key).
    """
    view = common_view(spec, catalogue)
    comp = compute_of(spec)
    products: list[Product] = view["products"]
    grads, idxs = row_dtypes(spec), index_dtypes(spec)
    if len(grads) > 10 or len(idxs) > 10:
        raise ValueError(f"{spec.op}: at most 10 rows and 10 index dtypes fit the tiling key's digits")
    no_bf16 = arch_condition(products, "bf16")
    bufs = buffer_num(spec, products)
    attr_index = {a.name: i for i, a in enumerate(spec.attrs)}

    grad_keys: list[dict[str, Any]] = [
        {
            "key": k,
            "dtype": d.name,
            "ge_name": d.ge_name,
            "kernel_type": d.kernel_type,
            "bytes": d.itemsize,
            "is_fp32": d is DType.FLOAT,
            "guard": no_bf16 if d is DType.BF16 and no_bf16 != "0" else "",
        }
        for k, d in enumerate(grads)
    ]
    index_keys: list[dict[str, Any]] = [
        {"key": k, "dtype": d.name, "ge_name": d.ge_name, "bytes": d.itemsize, "codec": INDEX_CODECS[d]}
        for k, d in enumerate(idxs)
    ]
    branches = []
    for s, (strategy, det) in enumerate(STRATEGIES):
        for g in grad_keys:
            for i in index_keys:
                branches.append(
                    {
                        "key": s * 100 + g["key"] * 10 + i["key"],
                        "grad_type": g["kernel_type"],
                        "codec": i["codec"],
                        "deterministic": "true" if det else "false",
                        "comment": f"{strategy}, {comp.rows} {g['dtype']}, {comp.index} {i['dtype']}",
                        "guard": g["guard"],
                    }
                )
    # Consecutive branches with the same guard share one #if block.
    branch_groups: list[dict[str, Any]] = []
    for b in branches:
        if branch_groups and branch_groups[-1]["guard"] == b["guard"]:
            branch_groups[-1]["branches"].append(b)
        else:
            branch_groups.append({"guard": b["guard"], "branches": [b]})

    default_cols = _opdef_columns(spec, None)
    configs = []
    for p in products:
        cols = _opdef_columns(spec, [p])
        configs.append(
            {
                "config_name": p.config_name,
                "var": f"{p.config_name}Config",
                "custom": cols["key"] != default_cols["key"],
                "inputs": cols["inputs"],
                "outputs": cols["outputs"],
            }
        )
    opdef = {"default": default_cols, "configs": configs, "attrs": view["opdef"]["attrs"]}

    checks = constraint_view(spec, catalogue)
    rows_t, index_t, out_t = spec.tensor(comp.rows), spec.tensor(comp.index), spec.tensor(comp.accumulate)
    num_rows_attr = spec.attr(comp.num_rows)
    padding_attr = spec.attr(comp.padding) if comp.padding else None
    scale_attr = spec.attr(comp.count_scaling) if comp.count_scaling else None
    l0_attrs = [
        {"name": comp.num_rows, "decl": f"int64_t {comp.num_rows}", "arg": f"static_cast<int64_t>({comp.num_rows})"}
    ]
    if padding_attr is not None:
        l0_attrs.append(
            {
                "name": padding_attr.name,
                "decl": f"int64_t {padding_attr.name}",
                "arg": f"static_cast<int64_t>({padding_attr.name})",
            }
        )
    if scale_attr is not None:
        l0_attrs.append({"name": scale_attr.name, "decl": f"bool {scale_attr.name}", "arg": scale_attr.name})
    l0_attrs.sort(key=lambda a: attr_index[a["name"]])

    tensor_groups = {t.name: dtype_groups(t, products) for t in (rows_t, out_t)}
    status_rows = [
        {"name": "ACLNN_SUCCESS", "value": 0, "when": "Success."},
        {
            "name": "ACLNN_ERR_PARAM_NULLPTR",
            "value": 161001,
            "when": f"{rows_t.name}, {index_t.name}, {out_t.name}, workspaceSize or executor is null.",
        },
        {
            "name": "ACLNN_ERR_PARAM_INVALID",
            "value": 161002,
            "when": (
                f"A dtype not supported on this product; a rank outside {rows_t.name} "
                f"{rows_t.rank[0]}-{rows_t.rank[1]}, "
                f"{index_t.name} {index_t.rank[0]}-{index_t.rank[1]}; {rows_t.name} rows (all axes but the last, "
                f"flattened) not equal to the element count of {index_t.name}; {out_t.name} not of shape "
                f"[{comp.num_rows}, D]; a format other than ND"
                + ("; a product limit below." if spec.constraints else ".")
            ),
        },
        {"name": "ACLNN_ERR_INNER_TILING_ERROR", "value": 561002, "when": "The tiling function failed."},
    ]
    constraint_lines = [
        f"`{rows_t.name}` is viewed as `[N, D]` (`D` its last axis, `N` the product of the others); `{index_t.name}` "
        f"has `N` elements of any shape; `{out_t.name}` is `[{comp.num_rows}, D]`.",
        f"Rows whose index is outside `[0, {comp.num_rows})`, NaN or infinite contribute nothing and write nothing.",
        f"Empty `{rows_t.name}` or `{index_t.name}` give an all-zero `{out_t.name}`; `{comp.num_rows}` = 0 gives an "
        f"empty `[0, D]` output.",
        "Determinism: by default rows are added with atomic fp32 adds, whose order depends on core timing; with "
        "`aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1)` the output is bit-identical for every run and core order.",
        *(
            f"Product limit `{c.name}`: {line}"
            for c, line in zip(spec.constraints, constraint_doc_lines(spec, catalogue), strict=True)
        ),
    ]
    tiling_lines = [
        "Every size in the tiling is int64 (numWeights and the row count may exceed 2^31).",
        f"UB: {bufs} x {INDEX_UB_BYTES} bytes of indices, then per element of a row chunk {bufs} x (grad + fp32 "
        f"accumulator + fp32 output) bytes, plus an fp32 cast buffer for 16-bit grads; `D` is cut into chunks of "
        f"at most `dChunk` elements (a multiple of {CHUNK_ALIGN}).",
        f"The fp32 accumulator has rows of `D` rounded up to {ACC_ALIGN} elements (whole 32-byte blocks); it is the "
        "fp32 device output itself when `D` is a multiple of 8, else it lives in the workspace, followed by int64 "
        f"occurrence counts when `{scale_attr.name if scale_attr else 'scaling'}` is set.",
        f"Cores: atomic strategy: rows of `{out_t.name}` are split over owning cores (zero fill, counts, final "
        f"pass; at least {spec.tiling.min_bytes_per_core} bytes each) and the indices over adding cores; "
        "deterministic strategy: one owning core per row, up to coreNum, each scanning every index.",
    ]
    for p in products:
        t = tiling_decision(spec, p, (1 << 20, 1 << 20), 1 << 20, grads[0], idxs[0], False)
        tiling_lines.append(
            f"{p.name}: UB {p.ub_bytes} bytes, {p.vector_core_num} cores, {grads[0].name} grad: dChunk up to "
            f"{t.d_chunk_max} elements."
        )
    example_lines = []
    if spec.example is not None:
        for name, et in spec.example.inputs:
            example_lines.append(f"`{name}`: {et.dtype.name} {list(et.shape)} = {list(et.values or [])}")
        for name, value in spec.example.attrs:
            example_lines.append(f"`{name}` = {str(value).lower() if isinstance(value, bool) else value}")
    view.update(
        {
            "rows": rows_t.name,
            "rows_position": spec.input_names.index(rows_t.name),
            "index_position": spec.input_names.index(index_t.name),
            "kernel_params": [*spec.input_names, *spec.output_names],
            "tiling_fields": [{"name": n, "comment": c} for n, c in TILING_FIELDS],
            "index": index_t.name,
            "out": out_t.name,
            "num_rows": num_rows_attr.name,
            "num_rows_index": attr_index[num_rows_attr.name],
            "padding": padding_attr.name if padding_attr else "",
            "padding_index": attr_index[padding_attr.name] if padding_attr else -1,
            "scaling": scale_attr.name if scale_attr else "",
            "scaling_index": attr_index[scale_attr.name] if scale_attr else -1,
            "l0_attrs": l0_attrs,
            "rows_min_rank": rows_t.rank[0],
            "rows_max_rank": rows_t.rank[1],
            "index_min_rank": index_t.rank[0],
            "index_max_rank": index_t.rank[1],
            "tensor_groups": tensor_groups,
            "index_dtype_list": ", ".join(f"op::DataType::{d.ge_name}" for d in idxs),
            "grad_keys": grad_keys,
            "index_keys": index_keys,
            "branch_groups": branch_groups,
            "buffer_num": bufs,
            "block_bytes": BLOCK_BYTES,
            "fp32_bytes": FP32_BYTES,
            "count_bytes": COUNT_BYTES,
            "cache_line_bytes": CACHE_LINE_BYTES,
            "acc_align": ACC_ALIGN,
            "chunk_align": CHUNK_ALIGN,
            "index_ub_bytes": INDEX_UB_BYTES,
            "ub_reserved_bytes": spec.tiling.ub_reserved_bytes,
            "min_bytes_per_core": spec.tiling.min_bytes_per_core,
            "no_pad_condition": arch_condition(products, "data_copy_pad"),
            "opdef": opdef,
            "checks": checks,
            "dfx_in": ", ".join([*spec.input_names, *spec.attr_names]),
            "status_rows": status_rows,
            "constraint_lines": constraint_lines,
            "tiling_lines": tiling_lines,
            "example_lines": example_lines,
        }
    )
    return view
