"""The plan of an element scatter-add: ``out = self``, then ``out[c with dim's coordinate replaced by index[c]]
+= src[c]`` for every element ``c`` of ``index`` (``torch.Tensor.scatter_add``), for a kernel built on
``templates/common/scatter_kernel.j2``.

Two strategies, shared by any family whose op scatters elements with duplicates:

- ``owned`` (deterministic): a core owns a contiguous range of ``out`` in whole 64-byte lines (no two cores
  write a byte of one line, so no product needs byte-exact copies at a cut) and walks it in windows of
  ``window_len`` elements held in UB. For each window it reads the index elements that can land in it (those
  whose coordinates before ``dim`` are the window's: a contiguous range of ``index``) and adds the ones that
  do, in index order. Every element of ``out`` is summed by one core in index order, so the result is the
  same bit for bit under every core order and equals a sequential ``scatter_add``. Index elements are read
  once per window whose coordinates before ``dim`` they share: once in all when ``dim`` is the last dim,
  up to once per window when ``dim`` is 0.
- ``atomic``: a core copies its range of ``self`` to ``out``, all cores meet at ``SyncAll``, then each core
  adds its contiguous share of ``index``'s elements into ``out`` with ``SetAtomicAdd`` (one DataCopyPad of one
  element per valid index). ``index`` and ``src`` are read once, but the order of the adds into one element
  follows the cores' timing (a float sum may change in its last bits from run to run), and it needs
  DataCopyPad (a one-element write) and the product's atomic add of the dtype (specs/products.yaml
  ``atomic_add_dtypes``; ascend-platform.md).

:func:`plan_scatter` chooses (``atomic`` only where it is allowed and the caller does not ask for
determinism) and says why; :func:`gm_traffic` models the bytes each moves.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

#: Dims of the kernel's right-aligned view (``SCATTER_DIMS``).
SCATTER_DIMS = 8
#: A core owns whole lines of ``out`` of this many bytes.
LINE_BYTES = 64
#: One UB block; a one-element atomic add is staged in a slot of this many bytes.
BLOCK_BYTES = 32
#: One-element adds in flight per core in the atomic strategy (``SCATTER_SLOTS``).
ATOMIC_SLOTS = 64
#: Largest window of ``out`` a core keeps in UB, in elements (and largest index tile).
MAX_WINDOW = 16384
MAX_TILE = 2048
STRATEGIES: tuple[str, ...] = ("owned", "atomic")


@dataclass(frozen=True)
class ScatterView:
    """The kernel's ``ScatterView``: ``index``'s dims right-aligned to :data:`SCATTER_DIMS` (extent 1 before
    them), with the element strides of ``out`` (0 along ``dim``) and ``src`` along each; the extents of
    ``index`` and ``out`` before ``dim`` (right-aligned, 1 before them); ``A`` = ``out``'s extent along ``dim``,
    ``out``'s stride along ``dim`` and the three element counts. All values are element counts (int64)."""

    extents: tuple[int, ...]
    out_strides: tuple[int, ...]
    src_strides: tuple[int, ...]
    outer_extents: tuple[int, ...]
    outer_out: tuple[int, ...]
    axis_len: int
    dim_stride: int
    index_num: int
    out_num: int
    src_num: int
    index_axis: int = -1
    index_len: int = 0

    def words(self) -> tuple[int, ...]:
        """The struct's int64 words in declaration order (47 of them)."""
        return (
            *self.extents,
            *self.out_strides,
            *self.src_strides,
            *self.outer_extents,
            *self.outer_out,
            self.axis_len,
            self.dim_stride,
            self.index_num,
            self.out_num,
            self.src_num,
            self.index_axis,
            self.index_len,
        )


def _strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major element strides of ``shape``."""
    out, step = [], 1
    for d in reversed(shape):
        out.append(step)
        step *= d
    return tuple(reversed(out))


def _pad(values: tuple[int, ...], fill: int) -> tuple[int, ...]:
    """``values`` right-aligned to :data:`SCATTER_DIMS`, ``fill`` before them."""
    return (fill,) * (SCATTER_DIMS - len(values)) + values


def scatter_view(
    out_shape: tuple[int, ...],
    index_shape: tuple[int, ...],
    src_shape: tuple[int, ...],
    dim: int,
    *,
    rows: bool = False,
) -> ScatterView:
    """The view of a scatter into ``out_shape`` (``self``'s shape) by ``index_shape`` from ``src_shape``
    along ``dim`` (a 0-d tensor counts as rank 1).

    ``rows``: a row scatter (``Tensor.index_add``): ``index`` is 0-d or 1-d with ``K`` elements, ``src`` has
    ``out``'s rank and extents except ``K`` along ``dim``, and ``src[..., k, ...]`` is added at
    ``index[k]``; the view walks ``src``'s elements (``extents`` are src's) and reads ``index`` at the
    coordinate along ``dim`` (``index_axis``, the view dim; ``index_len`` = ``K``). Otherwise ``index_axis``
    is -1 and ``index_len`` = ``index_num``.

    Raises:
        ValueError: the ranks differ or exceed :data:`SCATTER_DIMS`, ``dim`` is outside ``[-rank, rank)``, an
            extent of index is above src's, or above out's outside ``dim`` (CANN's aclnnScatterAdd rules); for
            ``rows``: index has rank above 1, or src's extents are not out's outside ``dim`` and ``K`` along it
            (CANN's aclnnIndexAdd rules).
    """
    out_s, idx_s, src_s = (tuple(s) or (1,) for s in (out_shape, index_shape, src_shape))
    rank = len(out_s)
    if rows:
        if len(index_shape) > 1:
            raise ValueError(f"a row scatter takes a 0-d or 1-d index, got rank {len(index_shape)}")
        if len(src_s) != rank:
            raise ValueError(f"self and src must have one rank, got {len(out_s)} and {len(src_s)}")
        if -rank <= dim < rank:
            axis = dim % rank
            want = tuple(idx_s[0] if i == axis else e for i, e in enumerate(out_s))
            if src_s != want:
                raise ValueError(f"src must have shape {list(want)} (self's with dim's extent numel(index))")
        idx_s = src_s
    if not len(idx_s) == len(src_s) == rank:
        raise ValueError(f"self, index and src must have one rank, got {len(out_s)}, {len(idx_s)}, {len(src_s)}")
    if rank > SCATTER_DIMS:
        raise ValueError(f"rank {rank} is above {SCATTER_DIMS}")
    if not -rank <= dim < rank:
        raise ValueError(f"dim {dim} is outside [{-rank}, {rank})")
    axis = dim % rank
    for i in range(rank):
        if idx_s[i] > src_s[i] or (i != axis and idx_s[i] > out_s[i]):
            raise ValueError(f"index extent {idx_s[i]} of dim {i} is above src's or (outside dim) self's")
    out_st, src_st = _strides(out_s), _strides(src_s)
    return ScatterView(
        extents=_pad(idx_s, 1),
        out_strides=_pad(tuple(0 if i == axis else out_st[i] for i in range(rank)), 0),
        src_strides=_pad(src_st, 0),
        outer_extents=_pad(idx_s[:axis], 1),
        outer_out=_pad(out_s[:axis], 1),
        axis_len=out_s[axis],
        dim_stride=out_st[axis],
        index_num=prod(idx_s),
        out_num=prod(out_s),
        src_num=prod(src_s),
        index_axis=SCATTER_DIMS - rank + axis if rows else -1,
        index_len=src_s[axis] if rows else prod(idx_s),
    )


@dataclass(frozen=True)
class CoreRange:
    """One core's share: ``out``'s elements ``[own_begin, own_end)`` and, for the atomic strategy, ``index``'s
    elements ``[index_begin, index_end)`` (both empty ranges for the other strategy's unused one)."""

    own_begin: int
    own_end: int
    index_begin: int
    index_end: int


@dataclass(frozen=True)
class ScatterPlan:
    """What the tiling hands the kernel: the ``strategy`` (:data:`STRATEGIES`), one :class:`CoreRange` per
    launched core, the window of ``out`` a core keeps in UB (``window_len`` elements, a whole number of
    64-byte lines) and the index tile (``tile_len`` elements), and ``reason``: why this strategy (one
    sentence, for ``opgen explain``)."""

    strategy: str
    cores: tuple[CoreRange, ...]
    window_len: int
    tile_len: int
    reason: str
    sum_itemsize: int = 0

    def ub_bytes(self, itemsize: int, index_itemsize: int) -> int:
        """UB bytes a core uses: the window (and, owned, its float copy when ``sum_itemsize`` is set), the index
        tile and (atomic) the staging slots."""
        slots = ATOMIC_SLOTS * BLOCK_BYTES if self.strategy == "atomic" else 0
        wide = self.sum_itemsize if self.strategy == "owned" else 0
        return self.window_len * (itemsize + wide) + self.tile_len * index_itemsize + slots


def _even(total: int, parts: int, unit: int, end: int) -> list[tuple[int, int]]:
    """``[begin, end)`` of each of ``parts`` shares of ``total`` units of ``unit`` elements (the first ones take
    one unit more), clipped to ``end`` elements."""
    base, extra = divmod(total, parts)
    out, at = [], 0
    for c in range(parts):
        n = base + (1 if c < extra else 0)
        out.append((min(at * unit, end), min((at + n) * unit, end)))
        at += n
    return out


def plan_scatter(
    view: ScatterView,
    itemsize: int,
    index_itemsize: int,
    *,
    core_num: int,
    ub_bytes: int,
    data_copy_pad: bool,
    atomic_add: bool,
    deterministic: bool,
    sum_itemsize: int = 0,
    window_len: int | None = None,
    tile_len: int | None = None,
) -> ScatterPlan:
    """The plan of a scatter-add of ``view`` with elements of ``itemsize`` bytes and indices of
    ``index_itemsize`` bytes on a product with ``core_num`` vector cores and ``ub_bytes`` of UB per core.

    ``atomic`` is chosen when the caller does not ask for ``deterministic`` results, the product has
    DataCopyPad (``data_copy_pad``) and its atomic add takes the dtype (``atomic_add``) and index is not
    empty; ``owned`` otherwise. ``sum_itemsize``: bytes of the type an owned window sums in when it is not the
    dtype (4: FLOAT16 and BF16 sum in float), 0 otherwise. ``window_len``/``tile_len`` override the sizes
    (whole lines / any count >= 1); by default the window is the largest whole number of lines, at most
    :data:`MAX_WINDOW` elements and the core's range, that fits UB beside a tile of at most :data:`MAX_TILE`
    indices. An empty ``out`` launches no core.

    Raises:
        ValueError: ``window_len`` is not a positive number of whole lines, or the sizes do not fit UB.
    """
    line = LINE_BYTES // itemsize
    reasons = []
    if deterministic:
        reasons.append("the caller asks for deterministic results")
    if not data_copy_pad:
        reasons.append("the product has no DataCopyPad for one-element adds")
    if not atomic_add:
        reasons.append("the product's atomic add does not take the dtype")
    if view.index_num == 0:
        reasons.append("index is empty")
    strategy = "owned" if reasons else "atomic"
    if strategy == "owned":
        reason = "owned (deterministic, each out element summed by one core in index order): " + "; ".join(reasons)
    else:
        reason = (
            "atomic: the caller does not ask for determinism and the product adds the dtype atomically with "
            "DataCopyPad; index and src are read once, the order of adds into an element follows core timing"
        )
    units = -(-view.out_num // line)
    cores = min(core_num, units)
    wide = sum_itemsize if strategy == "owned" else 0
    if cores == 0:
        return ScatterPlan(strategy, (), 0, 0, reason, wide)
    own = _even(units, cores, line, view.out_num)
    idx = _even(view.index_num, cores, 1, view.index_num) if strategy == "atomic" else [(0, 0)] * cores
    tile = tile_len or max(1, min(MAX_TILE, view.index_num))
    slots = ATOMIC_SLOTS * BLOCK_BYTES if strategy == "atomic" else 0
    if window_len is None:
        largest = max(e - b for b, e in own)
        free = ub_bytes - slots - -(-tile * index_itemsize // BLOCK_BYTES) * BLOCK_BYTES
        room = free // ((itemsize + wide) * line) * line
        window_len = min(MAX_WINDOW // line * line, -(-largest // line) * line, room)
    if window_len <= 0 or window_len % line:
        raise ValueError(f"window_len {window_len} is not a positive number of {line}-element lines")
    plan = ScatterPlan(
        strategy,
        tuple(CoreRange(ob, oe, ib, ie) for (ob, oe), (ib, ie) in zip(own, idx, strict=True)),
        window_len,
        tile,
        reason,
        wide,
    )
    if plan.ub_bytes(itemsize, index_itemsize) > ub_bytes:
        raise ValueError(f"the plan needs {plan.ub_bytes(itemsize, index_itemsize)} UB bytes, above {ub_bytes}")
    return plan


def _index_outer_begin(view: ScatterView, p: int) -> int:
    """How many of index's coordinates before dim come before out's coordinate number ``p`` (the kernel's
    ``IndexOuterBegin``)."""
    outer_all = prod(view.outer_extents)
    if p >= prod(view.outer_out):
        return outer_all
    digits = []
    for e in reversed(view.outer_out):
        digits.append(p % e)
        p //= e
    digits.reverse()
    count = 0
    for i, d in enumerate(digits):
        below = prod(view.outer_extents[i + 1 :])
        if d >= view.outer_extents[i]:
            return count + view.outer_extents[i] * below
        count += d * below
    return count


def gm_traffic(plan: ScatterPlan, view: ScatterView, itemsize: int, index_itemsize: int) -> tuple[int, int]:
    """``(modelled, minimum)`` GM bytes of the launch when every index is valid: ``self`` read and ``out``
    written once each, the index read as the strategy reads it (owned: once per window whose coordinates
    before dim it shares; atomic: once; a row scatter reads one index element per element of the walk), one
    ``src`` element read per index element, and (atomic) ``out`` written once more per index element. The
    minimum reads self, index (``index_len`` elements) and the indexed src elements once and writes out once."""
    minimum = 2 * view.out_num * itemsize + view.index_len * index_itemsize + view.index_num * itemsize
    if plan.strategy == "atomic":
        once = 2 * view.out_num * itemsize + view.index_num * (index_itemsize + 2 * itemsize)
        return once, minimum
    slice_len = view.axis_len * view.dim_stride
    inner = view.index_num // max(1, prod(view.outer_extents))
    index_reads = 0
    for c in plan.cores:
        for w0 in range(c.own_begin, c.own_end, plan.window_len):
            n = min(plan.window_len, c.own_end - w0)
            first = _index_outer_begin(view, w0 // slice_len) * inner
            last = _index_outer_begin(view, (w0 + n - 1) // slice_len + 1) * inner
            index_reads += last - first
    return 2 * view.out_num * itemsize + index_reads * index_itemsize + view.index_num * itemsize, minimum
