"""The view of the API documentation (``docs/<aclnn>.md``) and the lines of its status table, constraints
and tiling sections (the example's: :func:`codegen.plan.doc_lines.example_lines`)."""

from __future__ import annotations

from dataclasses import dataclass

from codegen.families.index_accumulate.plan.constants import (
    ACC_ALIGN,
    CHUNK_ALIGN,
    INDEX_UB_BYTES,
    SMALL_DIM_BYTES,
    SORT_PAIR_CHUNK,
    TILE_BUFFERS,
)
from codegen.families.index_accumulate.plan.roles import compute_of, index_dtypes, row_dtypes
from codegen.families.index_accumulate.plan.sync_counters import SYNC_OUTPUT
from codegen.families.index_accumulate.plan.tiling import buffer_num, tiling_decision
from codegen.plan.constraints import constraint_doc_lines
from codegen.plan.doc_lines import product_tiling_line
from codegen.plan.doc_tables import StatusRow, format_rule_text, null_pointer_attrs, status_table
from codegen.plan.view_bases import DocBase
from codegen.spec.model import Catalogue, OpSpec, Product


@dataclass(frozen=True)
class DocView(DocBase):
    """``docs/<aclnn>.md`` (``docs/index_accumulate_aclnn.md.j2``): the API documentation."""

    index: str
    num_rows: str
    out: str
    padding: str
    rows: str
    scaling: str


def doc_status_rows(spec: OpSpec) -> list[StatusRow]:
    """The status table of the API documentation: success, the null pointers, the invalid parameters and a
    failed tiling."""
    comp = compute_of(spec)
    rows_t, index_t, out_t = spec.tensor(comp.rows), spec.tensor(comp.index), spec.tensor(comp.accumulate)
    return status_table(
        [rows_t.name, index_t.name, out_t.name, *null_pointer_attrs(spec)],
        f"A dtype not supported on this product; a rank outside {rows_t.name} "
        f"{rows_t.rank[0]}-{rows_t.rank[1]}, "
        f"{index_t.name} {index_t.rank[0]}-{index_t.rank[1]}; {rows_t.name} rows (all axes but the last, "
        f"flattened) not equal to the element count of {index_t.name}; {out_t.name} not of shape "
        f"[{comp.num_rows}, D]; {format_rule_text(spec)}" + ("; a product limit below." if spec.constraints else "."),
    )


def doc_constraint_lines(spec: OpSpec, catalogue: Catalogue, products: list[Product]) -> list[str]:
    """The constraints section of the API documentation: the shapes, invalid indices, empty inputs,
    determinism on ``products`` and the spec's product limits."""
    comp = compute_of(spec)
    rows_t, index_t, out_t = spec.tensor(comp.rows), spec.tensor(comp.index), spec.tensor(comp.accumulate)
    return [
        f"`{rows_t.name}` is viewed as `[N, D]` (`D` its last axis, `N` the product of the others); `{index_t.name}` "
        f"has `N` elements of any shape; `{out_t.name}` is `[{comp.num_rows}, D]`.",
        f"Rows whose index is outside `[0, {comp.num_rows})`, NaN or infinite contribute nothing and write nothing.",
        f"Empty `{rows_t.name}` or `{index_t.name}` give an all-zero `{out_t.name}`; `{comp.num_rows}` = 0 gives an "
        f"empty `[0, D]` output.",
        "Determinism: by default rows are added with atomic fp32 adds, whose order depends on core timing; with "
        "`aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1)` the output is bit-identical for every run and core order."
        + (
            f" On {', '.join(p.name for p in products if not p.hw_sync_all)} (no hardware SyncAll) every call runs "
            "deterministically: the sorted-run strategy where the tiling picks it (software SyncAll), else the "
            "deterministic strategy with one index group, which needs no barrier between cores."
            if any(not p.hw_sync_all for p in products)
            else ""
        ),
        *(
            f"Product limit `{c.name}`: {line}"
            for c, line in zip(spec.constraints, constraint_doc_lines(spec, catalogue), strict=True)
        ),
    ]


def doc_tiling_lines(spec: OpSpec, products: list[Product]) -> list[str]:
    """The tiling section of the API documentation: UB, accumulator, workspace, core split and the sorted-run
    strategy, then the longest D-chunk of the first rows dtype on each of ``products``."""
    comp = compute_of(spec)
    rows_t, out_t = spec.tensor(comp.rows), spec.tensor(comp.accumulate)
    scale_attr = spec.attr(comp.count_scaling) if comp.count_scaling else None
    grads, idxs = row_dtypes(spec), index_dtypes(spec)
    bufs = buffer_num(spec, products)
    tiling_lines = [
        "Every size in the tiling is int64 (numWeights and the row count may exceed 2^31).",
        f"UB: {bufs} x {INDEX_UB_BYTES} bytes of indices, then per element of a row chunk {bufs} x (fp32 "
        f"accumulator + fp32 output) + {TILE_BUFFERS} x grad bytes, plus an fp32 cast buffer for 16-bit grads; `D` "
        f"is cut into chunks of at most `dChunk` elements (a multiple of {CHUNK_ALIGN}). Grad moves in tiles of up "
        f"to `tileRows` consecutive rows x one chunk per DataCopy, {TILE_BUFFERS} tiles in flight (the next tile's "
        "copy overlaps the current tile's adds), sized from what the other queues leave of UB; in the "
        "deterministic strategy the owners sum their rows in UB and write them once when they take at most half "
        "of it (`ubAccumulate`).",
        f"The fp32 accumulator has rows of `D` rounded up to {ACC_ALIGN} elements (whole 32-byte blocks); it is the "
        "fp32 device output itself when `D` is a multiple of 8, else it lives in the workspace, followed by int64 "
        f"occurrence counts when `{scale_attr.name if scale_attr else 'scaling'}` is set. The workspace the tiling "
        "requests starts with the system workspace (`GetLibApiWorkSpaceSize()`); the kernel's part begins at "
        "`GetUserWorkspace(workspace)`.",
        f"Cores: every phase splits its items into groups and `D` into D-slices (whole 32-byte blocks of "
        f"`{rows_t.name}` and of the fp32 accumulator), cores = groups x D-slices, so a launch runs on at least one "
        f"core per {spec.tiling.min_bytes_per_core} bytes of `{rows_t.name}` (and of the accumulator), up to "
        "coreNum, even with few rows and a large `D`. Atomic strategy: (row group x D-slice) cores zero-fill, "
        "count and write the output, (index group x D-slice) cores add; the fp32 atomic adds of different "
        "D-slices touch disjoint blocks. Deterministic strategy: one owning core per (row group x D-slice), at "
        "least one row per core up to coreNum; it scans every index in order and adds only into what it owns, so "
        f"each element of `{out_t.name}` is summed by one core in index order (then scaled once), whatever the "
        "core timing. When that gives too few cores (few rows, a small `D`, many indices), the indices are also "
        "split into groups: each (index group x row group x D-slice) core sums its index range in order into an "
        "fp32 partial in the workspace (zero-filled by that core), and after SyncAll the owners add the partials "
        "in group order: a fixed summation order per element.",
        "The split tries every group count: it reaches the most cores it can (up to the wanted count), then uses "
        "the fewest, then balances the largest per-core share; `opgen explain` prints it for a shape.",
        *(
            [
                "Sorted-run strategy (every product, at every number of indices): chosen when its transfer cost "
                f"(GM bytes, every DMA counted as at least {SMALL_DIM_BYTES} bytes) is below the other strategy's "
                "and it moves fewer GM bytes, or, once every core's indices fill its bucket staging slots (N >= "
                "cores x buckets x slot entries), on the lower transfer cost alone; the cost model "
                "picks records (row key + fp32 values, grad read contiguously) over pairs for short rows; without "
                "DataCopyPad only for rows of whole 32-byte blocks, with pairs. Workspace: the [cores, buckets] "
                "int32 count matrix, then N sorted entries (int32 pairs or records; without DataCopyPad each "
                "core's segment of a bucket padded to whole blocks), then in deterministic mode 2 x cores fp32 "
                "partial slots of a bucket's rows for the buckets split between cores. UB: indices buffer, "
                f"{SORT_PAIR_CHUNK} pairs, a work buffer of half the rest (staging slots, then the fp32 bucket "
                "accumulator), three int32 bucket arrays, and the grad tile with everything left (up to 4095 "
                "consecutive rows per copy). Without hardware SyncAll the barriers are the software SyncAll on "
                f"the `{SYNC_OUTPUT}` output, which the launch zero-fills (OpDef InitValue(0)).",
            ]
            if products
            else []
        ),
    ]
    for p in products:
        t = tiling_decision(spec, p, (1 << 20, 1 << 20), 1 << 20, grads[0], idxs[0], False)
        tiling_lines.append(product_tiling_line(p, f"{grads[0].name} grad: dChunk up to {t.d_chunk_max} elements"))
    return tiling_lines
