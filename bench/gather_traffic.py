"""Benchmark 4c, gather traffic from the emulator's counters (the gather_scatter family's IndexSelect): GM
bytes against the minimum, mean DMA size, and the modelled time against the roofline.

One call per (row size, index pattern, product), a source ``[A, Q]`` fp32 gathered along dim 0 with ``K``
INT64 indices (``A`` = :data:`ROWS`, ``K`` = :data:`INDICES`), core order ``in_order``:

- **GM ÷ minimum**: the kernel's GM bytes (read + written, every launch and core, less the tiling struct each
  core reads) over the bytes the math needs: each *distinct* selected row read once, every index read once,
  the output written once (``distinct · Q · 4 + K · 8 + K · Q · 4``). The kernel copies a row whose position
  repeats the previous row's inside UB; a row read again from GM puts it above 1 by those reads. Target (the
  issue): ``<= 1.10`` at rows of at least 128 bytes;
- **mean DMA size**: ``dma_bytes / dma_transfers`` (a DataCopyPad of a tile of rows is one transfer);
- **roofline fraction**: the roofline bound ÷ the modelled time of the pipe timeline
  (:func:`codegen.perf.call_timeline`; Ascend910B's cost model).

Index patterns (:func:`indices`): ``random`` (distinct positions in a random order), ``sorted`` (the same,
ascending) and ``repeated`` (``K / 8`` random positions, each repeated 8 times in a row).

Take (:data:`TAKE`) runs the same kernel on a flattened ``[A]`` source, rows of one element: one call per
product with ``random`` indices, reported beside IndexSelect's 4-byte rows (no target: the issue's applies
from 128-byte rows; its roofline fraction shows how far one DMA per element is from the bandwidth).

Gather (:data:`GATHER`, the element gather) takes the source ``[A, 1]`` along dim 0 with an index ``[K, 1]``
of ``random`` positions: one call per product, its minimum the same formula with 4-byte "rows" (each
distinct element read once, every index read once, the output written once); its kernel reads each gathered
element with one scalar load, so its GM ÷ minimum is 1 exactly when the positions are distinct (no target:
a figure beside Take's).

ScatterAdd (:data:`SCATTER`, the element scatter-add) adds a fp32 src ``[K_s, Q_s]`` into a copy of self
``[A_s, Q_s]`` along dim 0 (:data:`SCATTER_SHAPE`), the index ``[K_s, Q_s]`` (INT64) repeating one position of
each ``pattern`` per row: one call per pattern, product and strategy (atomic: the default; deterministic:
``ACL_OPT_DETERMINISTIC``). Its minimum reads self, the index and src once and writes out once
(:func:`scatter_minimum_bytes`); the atomic strategy adds one more write per index element (its atomic adds),
the deterministic one reads the index once per window of each core whose rows it can reach (along dim 0: the
whole index on every core), so its GM ÷ minimum grows with the cores (a figure, no target).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from bench.common import Figure, Section, Target, fmt_num

OP = "index_select"
#: The flattened gather measured beside IndexSelect (rows of one element).
TAKE = "take"
#: The element gather measured beside them (one scalar load per gathered element).
GATHER = "gather"
#: The element scatter-add measured beside them, in both strategies.
SCATTER = "scatter_add"
#: ``(A_s, K_s, Q_s)``: self ``[A_s, Q_s]``, index and src ``[K_s, Q_s]``.
SCATTER_SHAPE = (4096, 2048, 16)
PRODUCTS = ("Ascend910B",)
#: Source rows ``A`` and indices ``K`` of every call.
ROWS = 16384
INDICES = 8192
#: Row sizes in fp32 elements: 1 (4 bytes), 32 (128 bytes, the issue's bound) and 256 (1 KiB).
ROW_ELEMENTS = (1, 32, 256)
PATTERNS = ("random", "sorted", "repeated")
#: Consecutive repeats of each position in the ``repeated`` pattern.
REPEATS = 8
#: GM ÷ minimum at rows of at least 128 bytes (issue 39).
GM_TARGET = Target("<=", 1.10)
TARGET_ROW_BYTES = 128


def indices(pattern: str, rows: int = ROWS, k: int = INDICES, seed: int = 0) -> np.ndarray:
    """``k`` INT64 positions in ``[0, rows)`` of ``pattern`` (see the module doc).

    Raises:
        ValueError: an unknown pattern, or ``k`` above ``rows`` for the distinct patterns.
    """
    rng = np.random.default_rng(seed)
    if pattern in ("random", "sorted"):
        if k > rows:
            raise ValueError(f"{k} distinct positions do not fit {rows} rows")
        picked = rng.permutation(rows)[:k]
        return np.sort(picked) if pattern == "sorted" else picked
    if pattern == "repeated":
        return np.repeat(rng.integers(0, rows, -(-k // REPEATS)), REPEATS)[:k]
    raise ValueError(f"unknown index pattern {pattern!r}; allowed: {', '.join(PATTERNS)}")


def minimum_bytes(index: np.ndarray, row_bytes: int) -> int:
    """The GM bytes a gather of ``index`` (INT64) over rows of ``row_bytes`` needs: each distinct row read
    once, every index read once, every output row written once."""
    distinct = int(np.unique(index).size)
    return distinct * row_bytes + int(index.nbytes) + int(index.size) * row_bytes


def scatter_minimum_bytes(a: int, k: int, q: int) -> int:
    """The GM bytes a fp32 scatter-add of src ``[k, q]`` into self ``[a, q]`` with an INT64 index ``[k, q]``
    needs: self read and out written once, every index and src element read once."""
    return 2 * a * q * 4 + k * q * (8 + 4)


def measure_scatter(product: str, pattern: str, deterministic: bool) -> dict[str, Any]:
    """One ScatterAdd call (:data:`SCATTER_SHAPE`, positions of ``pattern`` repeated along each row) on
    ``product``: its GM bytes (read, written and atomically added, less the tiling structs) over the minimum."""
    from codegen import compile_op

    a, k, q = SCATTER_SHAPE
    fn = compile_op(SCATTER, product)
    rng = np.random.default_rng(2)
    self_ = rng.standard_normal((a, q)).astype(np.float32)
    src = rng.standard_normal((k, q)).astype(np.float32)
    index = np.repeat(indices(pattern, rows=a, k=k)[:, None], q, axis=1)
    fn(core_order="in_order", deterministic=deterministic, self=self_, dim=0, index=index, src=src)
    launches = fn.last_stats.get("launches", [])
    cores = [c for launch in launches for c in launch.get("cores", [])]
    keys = ("gm_bytes_read", "gm_bytes_written", "gm_bytes_atomic_added")
    moved = sum(int(c.get(key, 0)) for c in cores for key in keys)
    tiling = sum(int(launch.get("block_dim") or 0) * int(launch.get("tiling_data_size") or 0) for launch in launches)
    return {
        "op": SCATTER,
        "product": product,
        "pattern": pattern,
        "strategy": "deterministic" if deterministic else "default",
        "gm_over_minimum": (moved - tiling) / scatter_minimum_bytes(a, k, q),
        "kernel_bytes": moved - tiling,
        "block_dim": [launch.get("block_dim") for launch in launches],
    }


def measure(product: str, q: int, pattern: str, op: str = OP) -> dict[str, Any]:
    """One call on ``product`` with rows of ``q`` fp32 elements and the index ``pattern``: its counters. ``op``
    :data:`TAKE` gathers from the flattened source, :data:`GATHER` element by element from ``[A, 1]`` (``q``
    must be 1 for both)."""
    from codegen import compile_op
    from codegen.perf import call_timeline
    from codegen.specs import load_project

    fn = compile_op(op, product)
    src = np.random.default_rng(1).standard_normal((ROWS, q)).astype(np.float32)
    idx = indices(pattern)
    if op == TAKE:
        fn(core_order="in_order", self=src.reshape(-1), index=idx)
    elif op == GATHER:
        fn(core_order="in_order", self=src, index=idx.reshape(-1, 1), dim=0)
    else:
        fn(core_order="in_order", self=src, index=idx, dim=0)
    launches = fn.last_stats.get("launches", [])
    cores = [c for launch in launches for c in launch.get("cores", [])]
    moved = sum(int(c.get("gm_bytes_read", 0)) + int(c.get("gm_bytes_written", 0)) for c in cores)
    tiling = sum(int(launch.get("block_dim") or 0) * int(launch.get("tiling_data_size") or 0) for launch in launches)
    transfers = sum(int(c.get("dma_transfers", 0)) for c in cores)
    dma = sum(int(c.get("dma_bytes", 0)) for c in cores)
    tl = call_timeline(fn.last_stats, load_project()[0].get(product))
    return {
        "op": op,
        "product": product,
        "row_bytes": q * 4,
        "pattern": pattern,
        "gm_over_minimum": (moved - tiling) / minimum_bytes(idx, q * 4),
        "kernel_bytes": moved - tiling,
        "dma_transfers": transfers,
        "dma_mean_bytes": dma / transfers if transfers else None,
        "roofline_fraction": tl.roofline_fraction if tl is not None else None,
        "modelled_us": tl.modelled_us if tl is not None else None,
        "block_dim": [launch.get("block_dim") for launch in launches],
    }


def run(products: tuple[str, ...] = PRODUCTS) -> Section:
    """Every row size x pattern x product of IndexSelect and one Take and one Gather call per product: GM ÷
    minimum (targeted at IndexSelect rows of at least 128 bytes), mean DMA size and roofline fraction (context;
    a figure for Take and Gather)."""
    sec = Section("gather_traffic", "4c. Gather traffic (emulator counters)")
    rows: list[dict[str, Any]] = []
    runs = [(OP, q, pattern) for q in ROW_ELEMENTS for pattern in PATTERNS]
    runs += [(TAKE, 1, "random"), (GATHER, 1, "random")]
    for product in products:
        for op, q, pattern in runs:
            fid = f"gather_traffic.{op}.{q * 4}B.{pattern}.{product}"
            label = f"{op} {product} rows of {q * 4} bytes, {pattern} indices: GM ÷ minimum"
            target = GM_TARGET if q * 4 >= TARGET_ROW_BYTES and op == OP else None
            try:
                m = measure(product, q, pattern, op)
            except Exception as exc:  # reported per row; the matrix goes on
                err = f"{type(exc).__name__}: {str(exc)[:300]}"
                sec.errors.append(f"{op} {product} {q * 4}B {pattern}: {err}")
                sec.figures.append(Figure(fid + ".gm_over_minimum", label, None, "x", target, error=err))
                continue
            rows.append(m)
            note = f"{m['kernel_bytes']} kernel bytes, {m['dma_transfers']} DMA transfers"
            fig = Figure(fid + ".gm_over_minimum", label, m["gm_over_minimum"], "x", target, note=note)
            if fig.met is False:
                fig.why = (
                    f"the kernel reads a row again when its position repeats one other than the previous row's "
                    f"({note}); keeping more recent rows in UB (ops-nn's GatherV2 keeps three) would reach it"
                )
            sec.figures.append(fig)
            if m["roofline_fraction"] is not None and op in (TAKE, GATHER):
                sec.figures.append(
                    Figure(fid + ".roofline_fraction", f"{op} {product}: roofline fraction", m["roofline_fraction"], "")
                )
            if m["dma_mean_bytes"] is not None:
                sec.figures.append(
                    Figure(
                        fid + ".dma_mean_bytes",
                        f"{label[: label.index(':')]}: mean DMA size",
                        m["dma_mean_bytes"],
                        "B",
                    )
                )
    scatter_rows: list[dict[str, Any]] = []
    for product in products:
        for pattern in PATTERNS:
            for det in (False, True):
                mode = "deterministic" if det else "default"
                fid = f"gather_traffic.{SCATTER}.{pattern}.{mode}.{product}"
                label = f"{SCATTER} {product} {pattern} indices, {mode}: GM ÷ minimum"
                try:
                    sm = measure_scatter(product, pattern, det)
                except Exception as exc:  # reported per row; the matrix goes on
                    err = f"{type(exc).__name__}: {str(exc)[:300]}"
                    sec.errors.append(f"{SCATTER} {product} {pattern} {mode}: {err}")
                    sec.figures.append(Figure(fid + ".gm_over_minimum", label, None, "x", None, error=err))
                    continue
                scatter_rows.append(sm)
                note = f"{sm['kernel_bytes']} kernel bytes, blockDim {sm['block_dim']}"
                sec.figures.append(Figure(fid + ".gm_over_minimum", label, sm["gm_over_minimum"], "x", None, note=note))
    sec.details["rows"] = rows
    sec.details["scatter_rows"] = scatter_rows
    sec.markdown = _markdown(rows) + _scatter_markdown(scatter_rows)
    return sec


def _scatter_markdown(rows: list[dict[str, Any]]) -> list[str]:
    a, k, q = SCATTER_SHAPE
    lines = [
        "",
        f"ScatterAdd, fp32 self [{a}, {q}] along dim 0, INT64 index and src [{k}, {q}] (a position per row); "
        "minimum: self, index and src read once, out written once. The deterministic strategy re-reads the index "
        "on every core along dim 0.",
        "",
        "| op | product | indices | strategy | GM ÷ minimum | blockDim |",
        "|---|---|---|---|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['op']} | {r['product']} | {r['pattern']} | {r['strategy']} | {fmt_num(r['gm_over_minimum'])}× | "
            f"{r['block_dim']} |"
        )
    return lines


def _markdown(rows: list[dict[str, Any]]) -> list[str]:
    lines = [
        f"IndexSelect, fp32 source [{ROWS}, Q] along dim 0, {INDICES} INT64 indices; Take, the source flattened "
        f"(rows of one element); Gather, [{ROWS}, 1] along dim 0 by a [{INDICES}, 1] index. Target: GM ÷ "
        f"minimum ≤ {GM_TARGET.threshold:.2f} at IndexSelect rows of at least {TARGET_ROW_BYTES} bytes (minimum: "
        "each distinct row read once).",
        "",
        "| op | product | row bytes | indices | GM ÷ minimum | mean DMA bytes | roofline fraction | blockDim |",
        "|---|---|---:|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        dma = fmt_num(r["dma_mean_bytes"]) if r["dma_mean_bytes"] is not None else "-"
        roof = fmt_num(r["roofline_fraction"]) if r["roofline_fraction"] is not None else "-"
        gm = fmt_num(r["gm_over_minimum"])
        lines.append(
            f"| {r['op']} | {r['product']} | {r['row_bytes']} | {r['pattern']} | {gm}× | {dma} | {roof} | "
            f"{r['block_dim']} |"
        )
    return lines


if __name__ == "__main__":
    sys.exit(f"{__file__} is one section of the benchmark suite: run `python bench/run.py --only gather_traffic`")
