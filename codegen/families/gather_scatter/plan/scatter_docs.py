"""The API document's words for a scatter-add (``compute.direction: scatter_add``, aclnnScatterAdd, and the row
form ``index_add``, aclnnIndexAdd): its status table, its constraint lines and its tiling lines."""

from __future__ import annotations

from codegen.families.gather_scatter.model import GatherScatterCompute
from codegen.plan.constraints import constraint_doc_lines
from codegen.plan.doc_tables import StatusRow, format_rule_text, null_pointer_attrs, status_table
from codegen.plan.scatter import ATOMIC_SLOTS, LINE_BYTES
from codegen.spec.model import Catalogue, OpSpec


def scatter_status_rows(spec: OpSpec, comp: GatherScatterCompute) -> list[StatusRow]:
    """The status table: null self, index, src, a pointer attr (the row form's aclScalar alpha) or out
    (161001); 161002 for a dtype (index's only when it is not empty), src or out of another dtype than self,
    ranks that differ, an out of another shape, an index extent above src's or (outside dim) self's, a rank
    above 8, dim out of range, and the formats."""
    s, i, r, o, d = comp.source, comp.index, comp.src, comp.dest, comp.dim
    if comp.rows:
        return status_table(
            [s, i, f"{r}", *null_pointer_attrs(spec), o],
            f"A dtype of `{s}`, `{i}`, `{r}` or `{o}` not supported on this product; `{r}` or `{o}` of another "
            f"dtype than `{s}`; a rank above 8; `{d}` outside `[-rank, rank)` (0 or -1 for a 0-d `{s}`); `{s}` and "
            f"`{r}` of different ranks (unless `{s}` is 0-d) or of different extents outside `{d}`; `{i}` of rank "
            f"above 1, or of another element count than `{r}`'s extent along `{d}`; `{o}` of another shape than "
            f"`{s}`'s; {format_rule_text(spec)}.",
        )
    return status_table(
        [s, i, f"{r}", o],
        f"A dtype of `{s}` not supported on this product, or of a non-empty `{i}`; `{r}` or `{o}` of another "
        f"dtype than `{s}`; `{s}`, `{i}` and `{r}` of different ranks; `{o}` of another shape than `{s}`'s (unless "
        f"`{o}` is 0-d); an extent of `{i}` above `{r}`'s, or above `{s}`'s outside `{d}`; a rank above 8; `{d}` "
        f"outside `[-rank, rank)`; {format_rule_text(spec)}.",
    )


def scatter_constraint_lines(spec: OpSpec, comp: GatherScatterCompute, catalogue: Catalogue) -> list[str]:
    """The semantics: the formula, repeated and invalid positions, empty and 0-d calls, determinism."""
    s, i, r, o, d = comp.source, comp.index, comp.src, comp.dest, comp.dim
    if comp.rows:
        lines = [
            f"`{o} = {s}`, then `{o}[..., {i}[k], ...] += {comp.alpha} * {r}[..., k, ...]` along `{d}` for every `k` "
            f"(`A = {s}.shape[{d}]`); positions named more than once add up. `{comp.alpha}` is converted to "
            f"`{s}`'s dtype and each element of `{r}` multiplied by it before its add.",
            f"An `{i}` value outside `[0, A)` (CANN documents only values inside it) adds nothing; no value of `{i}` "
            f"makes the kernel read or write outside `{s}`, `{i}`, `{r}`, `{comp.alpha}` and `{o}`.",
            f"An empty `{s}` or `{r}` returns success with workspace 0 and leaves `{o}` as it is; a 0-d `{i}` is one "
            f"position and a 0-d `{r}` one element of rank 1.",
            "Determinism: with ACL_OPT_DETERMINISTIC, and on products or dtypes without atomic adds, each core sums "
            "the additions into its own elements in index order (FLOAT16 and BF16 in float32, rounded once): the "
            "same bits on every run. Otherwise the additions are atomic and their order into one element follows "
            "the cores' timing, so a floating-point sum may differ in its last bits from run to run.",
        ]
        return lines + [
            f"Product limit `{c.name}`: {line}"
            for c, line in zip(spec.constraints, constraint_doc_lines(spec, catalogue), strict=True)
        ]
    lines = [
        f"`{o} = {s}`, then `{o}[c'] += {r}[c]` for every element `c` of `{i}`, where `c'` is `c` with the "
        f"coordinate of `{d}` replaced by `{i}[c]` (`A = {s}.shape[{d}]`); positions named more than once add up.",
        f"An `{i}` value outside `[0, A)` (CANN documents only values inside it) adds nothing; no value of `{i}` "
        f"makes the kernel read or write outside `{s}`, `{i}`, `{r}` and `{o}`.",
        f"An empty `{i}` copies `{s}` to `{o}`; an empty `{s}` returns success with workspace 0 and leaves `{o}` as "
        f"it is; a 0-d `{s}`, `{i}` and `{r}` count as rank 1.",
        "Determinism: with ACL_OPT_DETERMINISTIC, and on products or dtypes without atomic adds, each core sums "
        "the additions into its own elements in index order (FLOAT16 and BF16 in float32, rounded once): the "
        "same bits on every run, equal to a sequential scatter_add. Otherwise the additions are atomic and their "
        "order into one element follows the cores' timing, so a floating-point sum may differ in its last bits "
        "from run to run.",
    ]
    lines += [
        f"Product limit `{c.name}`: {line}"
        for c, line in zip(spec.constraints, constraint_doc_lines(spec, catalogue), strict=True)
    ]
    return lines


def scatter_tiling_lines(spec: OpSpec, comp: GatherScatterCompute) -> list[str]:
    """The kernel's plan: the two strategies, the core split and the UB window."""
    if comp.rows:
        return [
            "Every size and offset is int64; an index is tested against `[0, A)` before it forms an address.",
            f"The kernel walks the elements of `{comp.src}` (the view's dims are its dims, right-aligned to 8) and "
            f"reads the position of each from `{comp.index}` at its coordinate along `{comp.dim}` (`indexAxis`; one "
            f"scalar load); `{comp.alpha}` is read once per core.",
            f"Owned strategy (deterministic): `{comp.dest}` is split over the cores in whole {LINE_BYTES}-byte lines; "
            f"a core reads a window of `windowLen` elements of `{comp.source}` into UB, walks the elements of "
            f"`{comp.src}` whose coordinates before `{comp.dim}` are the window's, adds `{comp.alpha}` times each one "
            "that lands in the window and writes the window once.",
            f"Atomic strategy: a core copies its lines of `{comp.source}` to `{comp.dest}`, all cores meet at SyncAll, "
            f"then each adds its share of `{comp.src}`'s elements times `{comp.alpha}` into `{comp.dest}` with "
            f"one-element DataCopyPad writes under SetAtomicAdd ({ATOMIC_SLOTS} in flight). `opgen explain` says "
            "which strategy a call takes and why.",
        ]
    return [
        "Every size and offset is int64; an index is tested against `[0, A)` before it forms an address.",
        f"Owned strategy (deterministic): `{comp.dest}` is split over the cores in whole {LINE_BYTES}-byte lines; a "
        f"core reads a window of `windowLen` elements of `{comp.source}` into UB, reads in tiles of `tileLen` the "
        f"elements of `{comp.index}` whose coordinates before `{comp.dim}` are the window's, adds each "
        f"`{comp.src}` element that lands in the window (one scalar load) and writes the window once.",
        f"Atomic strategy: a core copies its lines of `{comp.source}` to `{comp.dest}`, all cores meet at SyncAll, "
        f"then each adds its share of `{comp.index}`'s elements into `{comp.dest}` with one-element DataCopyPad "
        f"writes under SetAtomicAdd ({ATOMIC_SLOTS} in flight). `opgen explain` says which strategy a call takes "
        "and why.",
    ]
