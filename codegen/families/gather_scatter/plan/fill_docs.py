"""The API document's words for a fill (``compute.direction: fill``, aclnnIndexFillTensor): its status table,
its constraint lines and its tiling lines."""

from __future__ import annotations

from codegen.families.gather_scatter.model import GatherScatterCompute
from codegen.families.gather_scatter.plan.fill import FILL_TILES, MODE_FILL
from codegen.plan.doc_tables import StatusRow, format_rule_text, null_pointer_attrs, status_table
from codegen.spec.model import OpSpec


def fill_status_rows(spec: OpSpec, comp: GatherScatterCompute) -> list[StatusRow]:
    """The status table: null self, index, value or out (161001); 161002 for a dtype, an out of another dtype,
    a rank above the limit and, for a non-empty self only, an out of another shape, dim or an index value out
    of range (CANN's CheckShape returns early for an empty self), and the formats."""
    s, o, d, i, v = comp.source, comp.dest, comp.dim, comp.index, comp.value
    rank = spec.tensor(s).rank[1]
    return status_table(
        [f"`{s}`", *null_pointer_attrs(spec), f"`{o}`"],
        f"A dtype of `{s}` not supported on this product; `{o}` of another dtype than `{s}`; `{s}` or `{o}` of rank "
        f"above {rank}; when `{s}` is not empty: `{o}` of another shape than `{s}`'s, `{d}` outside `[-rank, rank)` "
        f"(a 0-d `{s}` counts as rank 1), a value of `{i}` outside `[-A, A)` (`A = {s}.shape[{d}]`, 1 for a 0-d "
        f"`{s}`); a `{v}` dtype outside its list; {format_rule_text(spec)}.",
    )


def fill_constraint_lines(spec: OpSpec, comp: GatherScatterCompute) -> list[str]:
    """The semantics: the view, negative and repeated positions, the value's conversion, empty and 0-d calls."""
    s, o, d, i, v = comp.source, comp.dest, comp.dim, comp.index, comp.value
    return [
        f"`{s}` is viewed as `[P, A, Q]` around `{d}` (`A = {s}.shape[{d}]`); `{o}[p, a, q] = {v}` when `a` is a "
        f"position `{i}` names, `{s}[p, a, q]` otherwise.",
        f"A value of `{i}` in `[-A, 0)` names the position `{i} + A` (as PyTorch); a position named twice is "
        f"filled once. Any other value outside `[0, A)` returns 161002 in phase 1.",
        f"`{v}` is converted to `{s}`'s dtype: on Ascend910B and Ascend910_93 after rounding to float32 (CANN fills "
        "with `value->ToFloat()` there), on Ascend950 directly; FLOAT16 and BF16 round to nearest, the integer "
        "dtypes truncate toward zero, BOOL takes nonzero as true.",
        f"An empty `{i}` copies `{s}` to `{o}`; an empty `{s}` returns success with workspace 0 and leaves `{o}` as "
        f"it is; a 0-d `{s}` is one element along `{d}` 0 or -1.",
        f"Deterministic: every output element is a copy of one element of `{s}` or the value, whatever the core order.",
    ]


def fill_tiling_lines(spec: OpSpec, comp: GatherScatterCompute) -> list[str]:
    """The kernel's plan: the host's positions, the core split, the copy and fill runs."""
    return [
        f"The L2 API wraps the positions of `{comp.index}`, sorts them and drops duplicates, and hands them to "
        f"the device op as an INT64 tensor; `{comp.value}` goes as one element of `{comp.source}`'s dtype. Every "
        "size and offset is int64; the kernel tests each position against `[0, A)` before it uses it.",
        f"UB holds {FILL_TILES} tiles (`copyMode` {MODE_FILL}): two copy tiles in flight and a value tile filled "
        "once per core. The output, in whole 32-byte blocks, is split evenly over at most coreNum cores, one per "
        f"{spec.tiling.min_bytes_per_core} bytes of `{comp.dest}` at least.",
        "Each core walks its range as runs: a run outside the filled slices is read from "
        f"`{comp.source}` and written back (one DataCopyPad each way, a tile at a time), a run inside them is "
        "written from the value tile; `self` is read only where it is not overwritten. A binary search over the "
        "positions finds where each run ends.",
    ]
