"""The 64-bit offset cases of a scatter-add (``direction: scatter_add`` or ``index_add``): calls whose self,
out and src reach past 2**32 elements, run through the tiling function (``tiling_2g``, checked against
:func:`~codegen.families.gather_scatter.plan.scatter.scatter_decision` in 64-bit arithmetic) and the probe
launch (the ranges a core owns: :func:`scatter_probe_ranges`), once per strategy the product has.

The call: self (and out) ``[P, A]`` along dim 1 (:data:`SCATTER_ROWS` x :data:`SCATTER_WIDTH`); src of self's
shape; an element scatter's index ``[P, 1]`` (one element per row: src is read at the start of each row,
so a window of out costs a few GM accesses), a row scatter's index ``[A]`` (every element of src is walked).
``P`` is a multiple of 192, so on 48 and 64 cores every core starts at a row and the atomic strategy's index
share of a core lands in its own rows; the last core's first element of out and of src is past 2**32.
"""

from __future__ import annotations

from collections.abc import Iterator
from math import prod
from typing import Any

from codegen.check.cases import Case
from codegen.check.offsets import device_attrs, device_byte_ranges, field_difference, launch_difference, offset_case
from codegen.families.gather_scatter.model import GatherScatterCompute
from codegen.families.gather_scatter.plan.scatter import scatter_decision
from codegen.plan.scatter import SCATTER_DIMS
from codegen.spec.model import DType, OpSpec, Product

#: Rows of self: a multiple of 192 (every core of a 48- or 64-core product takes whole rows, as many each),
#: with ``SCATTER_ROWS * SCATTER_WIDTH * 47 / 48`` past 2**32.
SCATTER_ROWS = 192 * 11500
#: Elements of a row of self (a whole number of 64-byte lines in every dtype; 8 rows fill a 16384-element window).
SCATTER_WIDTH = 2048
#: The fewest cores on which the last core's first row starts past 2**32 elements (``(c - 1) / c`` of
#: ``SCATTER_ROWS * SCATTER_WIDTH``); on fewer (a one-core product) its last line and src element are.
SCATTER_MIN_CORES = 20


def scatter_offset_shapes(comp: GatherScatterCompute) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """``(self, index, src)`` shapes of the offset case of ``comp``'s direction (see the module's text)."""
    self_shape = (SCATTER_ROWS, SCATTER_WIDTH)
    index_shape = (SCATTER_WIDTH,) if comp.rows else (SCATTER_ROWS, 1)
    return self_shape, index_shape, self_shape


def scatter_strategies(product: Product, dt: DType) -> tuple[bool, ...]:
    """The ``deterministic`` flags of the cases on ``product`` in ``dt``: False (the atomic strategy) where the
    product adds ``dt`` atomically with DataCopyPad and SyncAll, and True (the owned strategy) always."""
    atomic = product.data_copy_pad and product.hw_sync_all and dt in product.atomic_add_dtypes
    return (False, True) if atomic else (True,)


def scatter_offset_cases(spec: OpSpec, product: Product, dt: DType, index: DType, quick: bool) -> Iterator[Case]:
    """The ``tiling_2g`` cases of a scatter-add ``spec`` on ``product`` in ``dt`` with ``index`` indices: one per
    strategy (:func:`scatter_strategies`); ``quick`` keeps the deterministic one (whose first windows touch
    every tensor within the quick probe cap)."""
    comp = spec.compute
    assert isinstance(comp, GatherScatterCompute) and comp.src is not None and comp.dim is not None
    self_shape, index_shape, src_shape = scatter_offset_shapes(comp)
    by_name: dict[str, dict[str, Any]] = {
        comp.source: {"shape": list(self_shape), "dtype": dt.name},
        comp.index: {"shape": list(index_shape), "dtype": index.name},
        comp.src: {"shape": list(src_shape), "dtype": dt.name},
        comp.dest: {"shape": list(self_shape), "dtype": dt.name},
    }
    if comp.alpha is not None:  # a row scatter's alpha: one element of self's dtype
        by_name[comp.alpha] = {"shape": [], "dtype": dt.name}
    dev = spec.device_interface
    for deterministic in scatter_strategies(product, dt)[-1:] if quick else scatter_strategies(product, dt):
        request = {
            "inputs": [by_name[d.source] for d in dev.inputs if d.source],
            "outputs": [by_name[d.source] for d in dev.outputs if d.source],
            "attrs": device_attrs(spec, {comp.dim: 1}),
            "deterministic": int(deterministic),
        }
        params = {"request": request, "dtype": dt.name, "index": index.name, "deterministic": deterministic}
        mode = "deterministic" if deterministic else "atomic"
        yield offset_case(
            spec,
            product,
            f"{dt.name}/{index.name}",
            f"{list(self_shape)} by {list(index_shape)}",
            f"self and src past 2**32: tiling and per-core ranges in 64 bits [{mode}]",
            params,
            deterministic=deterministic,
        )


def scatter_check_offsets(fn: Any, case: Case, got: dict[str, Any], tiling: dict[str, int]) -> str:
    """The tiling result of a scatter-add's ``tiling_2g`` case against :func:`scatter_decision` in 64-bit
    arithmetic: '' when every field, the block dim, the key and the workspace agree and the last core's first
    element of out and of src (the first one it reads) are past 2**32 (on fewer than :data:`SCATTER_MIN_CORES`
    cores: its last ones)."""
    p = case.params
    comp = fn.spec.compute
    assert isinstance(comp, GatherScatterCompute)
    shapes = scatter_offset_shapes(comp)
    d = scatter_decision(fn.spec, fn.product, shapes, 1, DType[p["dtype"]], DType[p["index"]], p["deterministic"])
    if fault := field_difference(tiling, d.tiling_fields()):
        return fault
    if fault := launch_difference(got, d.block_dim, d.tiling_key, d.workspace_bytes):
        return fault
    share = _share(tiling, d.used_cores - 1)
    src = _src_elements(tiling, share)
    if d.used_cores < SCATTER_MIN_CORES:
        if share[1] - tiling["lineElems"] < 2**32 or src[1] - 1 < 2**32:
            return f"the last core ends at out element {share[1]}, src element {src[1]}: not past 32 bits"
    elif share[0] < 2**32 or src[0] < 2**32:
        return f"the last core starts at out element {share[0]}, src element {src[0]}: not past 32 bits"
    return ""


def _share(t: dict[str, int], c: int) -> tuple[int, int, int, int]:
    """Core ``c``'s out elements ``[ob, oe)`` and (atomic) walk elements ``[ib, ie)`` of the tiling's split:
    ``units`` lines of ``lineElems`` and ``indexNum`` elements over ``usedCores``, the first ones one more."""
    cores, line, units, out_num, index_num = t["usedCores"], t["lineElems"], t["units"], t["outNum"], t["indexNum"]
    u0 = c * (units // cores) + min(c, units % cores)
    u1 = u0 + units // cores + (1 if c < units % cores else 0)
    ob, oe = min(u0 * line, out_num), min(u1 * line, out_num)
    if t["strategy"] == 0:
        return ob, oe, 0, 0
    ib = c * (index_num // cores) + min(c, index_num % cores)
    return ob, oe, ib, ib + index_num // cores + (1 if c < index_num % cores else 0)


def _bases(t: dict[str, int], e: int) -> tuple[int, int]:
    """``(out, src)`` element offsets of walk element ``e`` with every index 0 (its coordinates in the view's
    extents times ``outStride``/``srcStride``, dim's term 0)."""
    out = src = 0
    for i in reversed(range(SCATTER_DIMS)):
        e, c = divmod(e, t[f"extent{i}"])
        out += c * t[f"outStride{i}"]
        src += c * t[f"srcStride{i}"]
    return out, src


def _outer_begin(t: dict[str, int], p: int) -> int:
    """How many index coordinates before dim come before out's coordinate ``p`` there (from ``outerOut`` and
    ``outerExtent``: index's extents are at most out's, so the count grows with ``p``)."""
    outer = [t[f"outerExtent{i}"] for i in range(SCATTER_DIMS)]
    out = [t[f"outerOut{i}"] for i in range(SCATTER_DIMS)]
    if p >= prod(out):
        return prod(outer)
    count = 0
    for i in range(SCATTER_DIMS):
        digit = p // prod(out[i + 1 :]) % out[i]
        if digit >= outer[i]:
            return count + outer[i] * prod(outer[i + 1 :])
        count += digit * prod(outer[i + 1 :])
    return count


def _walk(t: dict[str, int], share: tuple[int, int, int, int]) -> tuple[int, int]:
    """The walk elements ``[first, last)`` the core visits: its index share (atomic), or (owned) those whose
    coordinates before dim are those of its out elements (``sliceLen`` = ``axisLen * dimStride`` a coordinate)."""
    ob, oe, ib, ie = share
    if t["strategy"] != 0:
        return ib, ie
    if ob >= oe:
        return 0, 0
    inner = t["indexNum"] // max(1, prod(t[f"outerExtent{i}"] for i in range(SCATTER_DIMS)))
    slice_len = t["axisLen"] * t["dimStride"]
    return _outer_begin(t, ob // slice_len) * inner, _outer_begin(t, (oe - 1) // slice_len + 1) * inner


def _src_elements(t: dict[str, int], share: tuple[int, int, int, int]) -> tuple[int, int]:
    """src's elements ``[lo, hi)`` the core reads with every index 0: those of its walk's elements (atomic), or
    (owned) of those whose target (out offset with position 0, growing with the element) is its own."""
    first, last = _walk(t, share)
    if t["strategy"] == 0:
        first = _first_at_least(t, first, last, share[0])
        last = _first_at_least(t, first, last, share[1])
    if first >= last:
        return 0, 0
    return _bases(t, first)[1], _bases(t, last - 1)[1] + 1


def _first_at_least(t: dict[str, int], lo: int, hi: int, target: int) -> int:
    """The first walk element in ``[lo, hi)`` whose out offset is at least ``target`` (``hi`` when none)."""
    while lo < hi:
        mid = (lo + hi) // 2
        if _bases(t, mid)[0] >= target:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _index_elements(t: dict[str, int], first: int, last: int) -> tuple[int, int]:
    """index's elements ``[lo, hi)`` a walk over ``[first, last)`` reads: the same elements (an element scatter),
    or (a row scatter) the coordinates along ``indexAxis`` it passes (all of them once the walk wraps)."""
    if first >= last:
        return 0, 0
    axis = t["indexAxis"]
    if axis < 0:
        return first, last
    inner = prod(t[f"extent{i}"] for i in range(axis + 1, SCATTER_DIMS))
    k = t[f"extent{axis}"]
    j0, j1 = first // inner, (last - 1) // inner
    if j1 - j0 + 1 >= k or j0 % k > j1 % k:
        return 0, k
    return j0 % k, j1 % k + 1


def scatter_probe_ranges(fn: Any, case: Case, tiling: dict[str, int], core: int) -> dict[str, tuple[int, int]]:
    """The bytes ``[lo, hi)`` of every device tensor core ``core`` owns under the tiling fields (the split, not
    the kernel's code), with every index the probe reads being 0. Its share (``ScatterShare``): out elements
    ``[ob, oe)`` of ``units`` 64-byte lines over ``usedCores`` (the first ones one more) and, atomic, walk
    elements ``[ib, ie)`` of ``indexNum``. It reads self and writes out over ``[ob, oe)``; atomic, it then adds
    into out at each walk element's offset with position 0 (out's range is the hull of both), reads its walk
    elements' index elements and their src elements; owned, it walks the elements whose coordinates before
    dim are those of its out elements, reads their index elements, and reads src for those whose offset with
    position 0 is its own. A row scatter reads index at the walk's coordinate along dim and the one alpha. A
    core without out elements owns nothing (an empty dict)."""
    comp = fn.spec.compute
    assert isinstance(comp, GatherScatterCompute) and comp.src is not None
    if core >= tiling["usedCores"]:
        return {}
    share = _share(tiling, core)
    ob, oe, ib, ie = share
    if ob >= oe:
        return {}
    first, last = _walk(tiling, share)
    out_lo, out_hi = ob, oe
    if tiling["strategy"] != 0 and ib < ie:
        out_lo, out_hi = min(ob, _bases(tiling, ib)[0]), max(oe, _bases(tiling, ie - 1)[0] + 1)
    by_source = {
        comp.source: (ob, oe),
        comp.dest: (out_lo, out_hi),
        comp.index: _index_elements(tiling, first, last),
        comp.src: _src_elements(tiling, share),
    }
    if comp.alpha is not None:
        by_source[comp.alpha] = (0, 1)
    ranges = device_byte_ranges(
        fn.spec, case.params["request"], lambda param: by_source.get(param.source or "", (0, 0))
    )
    return {name: r for name, r in ranges.items() if r != (0, 0)}
