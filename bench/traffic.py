"""Benchmark 4, data movement from the emulator's counters: each seed kernel x product x small/medium/large shape.

Per call (core order ``in_order``; the counters do not depend on it):

* **GM traffic ÷ minimum.** Kernel bytes are summed over every kernel launch and core:
  ``gm_bytes_read + gm_bytes_written + gm_bytes_atomic_added`` (an atomic add moves its bytes to GM once).
  Host tasks (l0op Contiguous, Cast, BroadcastTo, ViewCopy run by the aclnn layer outside the kernel) are
  reported separately as ``bytes_read + bytes_written`` and are not in the ratio.
  The minimum is what the math needs:

  - elementwise (SoftMarginLossBackward): every input element read once and every output element written
    once, ``sum(numel(input) * itemsize) + numel(out) * itemsize`` (a broadcast input counts with its own,
    smaller, element count);
  - EmbeddingDenseBackward, ``N`` indices, ``D`` = embedding dimension, ``W`` = numWeights, ``s_g``,
    ``s_i``, ``s_o`` the element sizes of grad, indices and out:
    ``N_c*D*s_g`` (read once the grad rows that contribute: ``N_c`` indices valid and not the padding row)
    ``+ N*s_i`` (read indices once) ``+ W*D*s_o`` (write out once)
    ``+ W*D*s_o`` (the zero fill any accumulation into GM starts from; only when ``N_c > 0``: with nothing to
    add, writing zeros once is the whole output); with scaleGradByFreq add the count
    pass ``N*s_i + 2*W*4`` (read the indices again, write and read back an int32 count per row).

* **Balance**: per kernel launch, the largest per-core GM byte count ÷ the mean over the launch's cores
  (``block_dim`` of them); the worst launch is reported.
* **UB high-water**: the largest ``ub_high_water_bytes`` over cores and launches ÷ the product's UB bytes.

* **DMA transfers** (``dma_transfers``: GM<->UB DataCopy / DataCopyPad instructions that moved bytes, a
  blockCount copy being one) and their **mean size** in bytes (``dma_bytes / dma_transfers``).

Targets (issues 6 and 17) apply to the judged variants of each op at the large shape (elementwise: the
default, and a 0-d gradOutput, which the kernel reads once per core; EmbeddingDenseBackward: the default mode
with uniform and with Zipf indices): GM ÷ minimum <= 1.05 (elementwise) and <= 1.15 (EmbeddingDenseBackward),
balance <= 1.05, UB high-water >= 60%, and for EmbeddingDenseBackward a mean DMA size >= 512 bytes; UB
high-water <= 100% applies to every row.
"""

from __future__ import annotations

import gc
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from bench.common import Figure, Section, Target, fmt_num
from bench.workloads import DISTRIBUTIONS, EDB, SMLB, edb_inputs, smlb_inputs

PRODUCTS = ("Ascend910", "Ascend910B", "Ascend910_93", "Ascend950")
GM_TARGET = {SMLB: Target("<=", 1.05), EDB: Target("<=", 1.15)}
#: Mean bytes per DMA transfer (EmbeddingDenseBackward, judged rows at the large shape).
DMA_TARGET = Target(">=", 512.0)
BALANCE_TARGET = Target("<=", 1.05)
UB_LARGE_TARGET = Target(">=", 60.0)
UB_MAX_TARGET = Target("<=", 100.0)
MB = 1e6


@dataclass(frozen=True)
class Workload:
    """One row family: an op, a variant (``judged`` marks the one the targets apply to), a shape class."""

    op: str
    variant: str
    judged: bool
    size: str
    shape_text: str
    make: Callable[[], dict[str, Any]]
    deterministic: bool = False


def _smlb(size: str, shape: tuple[int, ...]) -> list[Workload]:
    text = "x".join(map(str, shape))
    return [
        Workload(SMLB, "fp32", True, size, text, lambda: smlb_inputs(shape)),
        Workload(
            SMLB,
            "fp32, target [1, C] broadcast",
            False,
            size,
            text,
            lambda: smlb_inputs(shape, broadcast_target=True),
        ),
        Workload(SMLB, "fp32, gradOutput 0-d", True, size, text, lambda: smlb_inputs(shape, scalar_grad=True)),
    ]


def _edb(size: str, w: int, d: int, n: int) -> list[Workload]:
    text = f"W={w} D={d} N={n}"
    return [
        Workload(EDB, "default", True, size, text, lambda: edb_inputs(w, d, n)),
        Workload(EDB, "default, zipf", True, size, text, lambda: edb_inputs(w, d, n, dist="zipf")),
        Workload(EDB, "deterministic", False, size, text, lambda: edb_inputs(w, d, n), deterministic=True),
        Workload(
            EDB, "deterministic, zipf", False, size, text, lambda: edb_inputs(w, d, n, dist="zipf"), deterministic=True
        ),
        Workload(EDB, "default, scaleGradByFreq", False, size, text, lambda: edb_inputs(w, d, n, scale=True)),
    ]


#: The index distributions x embedding dimensions of the "dist" rows: W fixed, N = min(2^20, 2^24 / D) so that
#: every grad is at most 64 MB.
DIST_W = 8192
DIST_DIMS = (1, 8, 128, 4096)


def _dist_maker(d: int, n: int, dist: str) -> Callable[[], dict[str, Any]]:
    return lambda: edb_inputs(DIST_W, d, n, dist=dist)


def _edb_dists() -> list[Workload]:
    rows: list[Workload] = []
    for d in DIST_DIMS:
        n = min(1 << 20, (1 << 24) // d)
        for dist in DISTRIBUTIONS:
            text = f"W={DIST_W} D={d} N={n}"
            rows.append(Workload(EDB, f"default, {dist}, D={d}", False, "dist", text, _dist_maker(d, n, dist)))
    return rows


def workloads() -> list[Workload]:
    """Every (op, variant, shape class); shapes: elementwise 4099 / 1024x1000 / 4096x4096 fp32 elements,
    embedding W/D/N = 1000/32/4096, 8192/64/65536, 65536/128/2^20 (fp32 grad, int64 indices, fp32 out;
    uniform and Zipf indices), and the "dist" class: every index distribution x D in :data:`DIST_DIMS`."""
    rows: list[Workload] = []
    for size, shape in (("small", (4099,)), ("medium", (1024, 1000)), ("large", (4096, 4096))):
        rows += _smlb(size, shape)
    for size, (w, d, n) in (
        ("small", (1000, 32, 4096)),
        ("medium", (8192, 64, 65536)),
        ("large", (65536, 128, 1 << 20)),
    ):
        rows += _edb(size, w, d, n)
    return rows + _edb_dists()


def minimum_parts(op: str, params: dict[str, Any], out: np.ndarray) -> dict[str, int]:
    """The GM bytes the math needs (see the module docstring for the formulas), split into ``read`` (inputs
    read once, and the count read-back of scaleGradByFreq) and ``write`` (output written once, the zero fill
    and the counts)."""
    if op == SMLB:
        inputs = sum(int(params[k].nbytes) for k in ("gradOutput", "self", "target"))
        return {"read": inputs, "write": int(out.nbytes)}
    grad, idx = params["grad"], params["indices"]
    n = int(idx.size)
    d = int(grad.shape[-1])
    w = int(params["numWeights"])
    pad = int(np.int64(np.uint64(params["paddingIdx"])))  # negative as int64: no padding row
    contributing = int(np.count_nonzero((idx >= 0) & (idx < w) & (idx != pad)))
    read = contributing * d * grad.itemsize + n * idx.itemsize
    write = (2 if contributing else 1) * w * d * out.itemsize  # no zero fill to count when nothing is added
    if params["scaleGradByFreq"]:
        read += n * idx.itemsize + w * 4
        write += w * 4
    return {"read": read, "write": write}


def minimum_bytes(op: str, params: dict[str, Any], out: np.ndarray) -> int:
    """The GM bytes the math needs: read plus write of :func:`minimum_parts`."""
    return sum(minimum_parts(op, params, out).values())


def core_bytes(core: dict[str, Any]) -> int:
    """GM bytes one core moved: read + written + atomically added."""
    return (
        int(core.get("gm_bytes_read", 0))
        + int(core.get("gm_bytes_written", 0))
        + int(core.get("gm_bytes_atomic_added", 0))
    )


def measure(stats: dict[str, Any], ub_bytes: int) -> dict[str, Any]:
    """Kernel and host-task bytes, balance and UB high-water from one call's ``last_stats``."""
    launches = stats.get("launches", [])
    read = written = atomic = 0
    balance = 1.0
    worst: dict[str, Any] = {}
    ub_high = 0
    dma_transfers = dma_bytes = 0
    for launch in launches:
        dma_transfers += sum(int(c.get("dma_transfers", 0)) for c in launch.get("cores", []))
        dma_bytes += sum(int(c.get("dma_bytes", 0)) for c in launch.get("cores", []))
        cores = launch.get("cores", [])
        per_core = [core_bytes(c) for c in cores]
        read += sum(int(c.get("gm_bytes_read", 0)) for c in cores)
        written += sum(int(c.get("gm_bytes_written", 0)) for c in cores)
        atomic += sum(int(c.get("gm_bytes_atomic_added", 0)) for c in cores)
        ub_high = max([ub_high, *(int(c.get("ub_high_water_bytes", 0)) for c in cores)])
        if per_core and sum(per_core) > 0:
            mean = sum(per_core) / len(per_core)
            b = max(per_core) / mean
            if b >= balance:
                balance = b
                worst = {"max_core_bytes": max(per_core), "mean_core_bytes": mean, "cores": len(per_core)}
    host = stats.get("host_tasks", [])
    return {
        "kernel_read": read,
        "kernel_written": written,
        "kernel_atomic": atomic,
        "kernel_bytes": read + written + atomic,
        "host_bytes": sum(int(h.get("bytes_read", 0)) + int(h.get("bytes_written", 0)) for h in host),
        "host_tasks": host,
        "balance": balance,
        "balance_detail": worst,
        "ub_high_water_bytes": ub_high,
        "dma_transfers": dma_transfers,
        "dma_mean_bytes": dma_bytes / dma_transfers if dma_transfers else None,
        "ub_fraction_pct": 100.0 * ub_high / ub_bytes if ub_bytes else None,
        "launches": [
            {
                "kernel": launch.get("kernel"),
                "block_dim": launch.get("block_dim"),
                "tiling_key": launch.get("tiling_key"),
                "tiling": launch.get("tiling"),
                "ok": launch.get("ok"),
                "fault": launch.get("fault"),
                "vector_instructions": sum(int(c.get("vector_instructions", 0)) for c in launch.get("cores", [])),
            }
            for launch in launches
        ],
    }


def _gm_note(op: str, m: dict[str, Any], minimum: int, params: dict[str, Any]) -> str:
    parts = [
        f"kernel read {m['kernel_read'] / MB:.1f} MB, written {m['kernel_written'] / MB:.1f} MB, "
        f"atomic {m['kernel_atomic'] / MB:.1f} MB vs minimum {minimum / MB:.1f} MB"
    ]
    if op == EDB:
        grad = params["grad"]
        out_mb = params["numWeights"] * grad.shape[-1] * 4 / MB
        parts.append(f"grad {grad.nbytes / MB:.1f} MB, out {out_mb:.1f} MB")
    if m["host_bytes"]:
        kinds = ", ".join(f"{h['kind']} {(h['bytes_read'] + h['bytes_written']) / MB:.1f} MB" for h in m["host_tasks"])
        parts.append(f"host tasks: {kinds}")
    return "; ".join(parts)


def _tiling_note(m: dict[str, Any]) -> str:
    keys = ("tileLength", "dChunk", "indexChunk", "rowSliceNum", "indexGroupNum", "inBufferNum", "outBufferNum")
    sort_keys = ("sortBuckets", "sortBucketRows", "sortStage", "sortDChunk", "sortTileRows")
    parts = []
    for launch in m["launches"]:
        tiling = launch.get("tiling") or {}
        chosen = sort_keys if int(tiling.get("sortCores", 0) or 0) > 0 else keys
        fields = ", ".join(f"{k} {tiling[k]}" for k in chosen if k in tiling)
        parts.append(
            f"blockDim {launch.get('block_dim')}, key {launch.get('tiling_key')}" + (f", {fields}" if fields else "")
        )
    return "; ".join(parts)


def run(products: tuple[str, ...] = PRODUCTS, sizes: tuple[str, ...] = ("small", "medium", "large", "dist")) -> Section:
    """Runs every workload of ``sizes`` on every product in ``products`` and judges the targets."""
    from codegen import compile_op
    from codegen.specs import load_project

    sec = Section("traffic", "4. Data movement (emulator counters)")
    catalogue, _ = load_project()
    callables: dict[tuple[str, str], Any] = {}
    rows: list[dict[str, Any]] = []
    for wl in workloads():
        if wl.size not in sizes:
            continue
        try:
            params = wl.make()
        except Exception as exc:
            sec.errors.append(f"{wl.op} {wl.variant} {wl.size}: inputs: {type(exc).__name__}: {exc}")
            continue
        for product in products:
            row: dict[str, Any] = {
                "op": wl.op,
                "variant": wl.variant,
                "judged": wl.judged,
                "size": wl.size,
                "shape": wl.shape_text,
                "product": product,
            }
            try:
                key = (wl.op, product)
                if key not in callables:
                    callables[key] = compile_op(wl.op, product)
                fn = callables[key]
                out = fn(core_order="in_order", deterministic=wl.deterministic, **params)
                ub = catalogue.get(product).ub_bytes
                m = measure(fn.last_stats, ub)
                parts = minimum_parts(wl.op, params, out)
                minimum = sum(parts.values())
                row.update(m)
                row.update(
                    {
                        "vector_cores": catalogue.get(product).vector_core_num,
                        "ub_bytes": ub,
                        "min_bytes": minimum,
                        "min_read_bytes": parts["read"],
                        "min_write_bytes": parts["write"],
                        "gm_ratio": m["kernel_bytes"] / minimum if minimum else None,
                        "gm_note": _gm_note(wl.op, m, minimum, params),
                        "tiling_note": _tiling_note(m),
                    }
                )
                del out
            except Exception as exc:  # reported per row; the matrix goes on
                row["error"] = f"{type(exc).__name__}: {str(exc)[:500]}"
                sec.errors.append(f"{wl.op} {wl.variant} {wl.size} {product}: {row['error']}")
            rows.append(row)
        del params
        gc.collect()
    sec.details["rows"] = rows
    _figures(sec, rows)
    sec.markdown = _markdown(rows)
    return sec


def _row_id(r: dict[str, Any]) -> str:
    variant = re.sub(r"[^A-Za-z0-9]+", "_", r["variant"]).strip("_")
    return f"traffic.{r['op']}.{variant}.{r['product']}.{r['size']}"


def _figures(sec: Section, rows: list[dict[str, Any]]) -> None:
    ub_all: list[float] = []
    for r in rows:
        if "error" in r:
            continue
        judged_large = r["judged"] and r["size"] == "large"
        base = _row_id(r)
        what = f"{r['op']} {r['variant']} {r['product']} {r['size']} ({r['shape']})"
        gm = Figure(
            f"{base}.gm_ratio",
            f"{what}: kernel GM bytes ÷ minimum",
            r["gm_ratio"],
            "x",
            GM_TARGET[r["op"]] if judged_large else None,
            note=r["gm_note"],
        )
        if gm.met is False:
            gm.why = gm_why(r, GM_TARGET[r["op"]])
        sec.figures.append(gm)
        sec.figures.append(Figure(f"{base}.host_mb", f"{what}: host-task bytes", r["host_bytes"] / MB, "MB"))
        bd = r["balance_detail"]
        balance = Figure(
            f"{base}.balance",
            f"{what}: largest ÷ mean GM bytes over cores",
            r["balance"],
            "x",
            BALANCE_TARGET if judged_large else None,
            note=(
                f"max core {bd['max_core_bytes'] / MB:.2f} MB, mean {bd['mean_core_bytes'] / MB:.2f} MB over "
                f"{bd['cores']} of {r['vector_cores']} cores"
                if bd
                else ""
            ),
        )
        if balance.met is False:
            balance.why = balance_why(r)
        sec.figures.append(balance)
        ub = Figure(
            f"{base}.ub_pct",
            f"{what}: UB high-water ÷ UB",
            r["ub_fraction_pct"],
            "%",
            UB_LARGE_TARGET if judged_large else None,
            note=f"{r['ub_high_water_bytes']} of {r['ub_bytes']} bytes; {r['tiling_note']}",
        )
        if ub.met is False:
            ub.why = ub_why(r)
        sec.figures.append(ub)
        dma_target = DMA_TARGET if judged_large and r["op"] == EDB else None
        dma = Figure(
            f"{base}.dma_mean_bytes",
            f"{what}: mean bytes per DMA transfer",
            r["dma_mean_bytes"],
            "B",
            dma_target,
            note=f"{r['dma_transfers']} transfers; {r['tiling_note']}",
        )
        if dma.met is False:
            dma.why = (
                f"{r['dma_transfers']} DataCopy/DataCopyPad transfers move {r['kernel_bytes'] / MB:.1f} MB "
                "(counters): the kernel moves rows one short copy at a time; gathering consecutive rows in one "
                "transfer (blockCount) or longer tiles would raise it"
            )
        sec.figures.append(dma)
        if r["ub_fraction_pct"] is not None:
            ub_all.append(r["ub_fraction_pct"])
    if ub_all:
        worst = max((r for r in rows if "error" not in r), key=lambda r: r["ub_fraction_pct"] or 0.0)
        fig = Figure(
            "traffic.ub_pct_max_all",
            "UB high-water ÷ UB, largest over every row",
            max(ub_all),
            "%",
            UB_MAX_TARGET,
            note=f"{worst['op']} {worst['variant']} {worst['product']} {worst['size']}",
        )
        if fig.met is False:
            fig.why = (
                f"{worst['ub_high_water_bytes']} bytes of UB used where the product has {worst['ub_bytes']} "
                f"({worst['tiling_note']}): the tiling sizes its buffers beyond UB, which the hardware would "
                "reject; the tiling's UB budget must count every buffer of that kernel"
            )
        sec.figures.append(fig)


def gm_why(r: dict[str, Any], target: Target) -> str:
    """Why a row's kernel GM bytes exceed the target ratio and what would reach it: the read side (against
    the inputs read once) and the write side (output, zero fill, atomics) each against its minimum."""
    read, write = r["kernel_read"], r["kernel_written"] + r["kernel_atomic"]
    min_read, min_write = r["min_read_bytes"], r["min_write_bytes"]
    minimum = r["min_bytes"]
    extra_read, extra_write = max(read - min_read, 0), max(write - min_write, 0)
    text = (
        f"read {read / MB:.1f} MB where the math needs {min_read / MB:.1f} MB ({read / min_read:.2f}×), "
        f"written + atomically added {write / MB:.1f} MB where it needs {min_write / MB:.1f} MB "
        f"({write / min_write:.2f}×)"
    )
    side, extra = ("read", extra_read) if extra_read >= extra_write else ("write", extra_write)
    allowance = (target.threshold - 1.0) * minimum
    text += (
        f"; the target leaves {allowance / MB:.1f} MB above the minimum, the kernel moves "
        f"{(r['kernel_bytes'] - minimum) / MB:.1f} MB more, mostly on the {side} side ({extra / MB:.1f} MB)"
    )
    if side == "write" and r["kernel_atomic"] > allowance:
        return text + (
            f"; the atomic adds alone move {r['kernel_atomic'] / MB:.1f} MB (every contribution is added in GM): "
            "reaching the target needs the contributions to each output row summed on chip and written once "
            "(the indices grouped by row first, e.g. sorted), with the grouping's own traffic inside the allowance"
        )
    without = (r["kernel_bytes"] - extra) / minimum
    if target.met(without):
        return text + f"; moving each {side} byte once would reach it (ratio {without:.2f})"
    return text + "; both sides must come down: each input byte read once and each output byte written once"


def balance_why(r: dict[str, Any]) -> str:
    """Why a row's core balance misses the target and what would reach it (per-core bytes of the worst launch)."""
    bd = r["balance_detail"]
    if not bd:
        return "no per-core bytes recorded"
    return (
        f"the busiest core moved {bd['max_core_bytes'] / MB:.2f} MB, the mean over {bd['cores']} cores is "
        f"{bd['mean_core_bytes'] / MB:.2f} MB ({r['tiling_note']}): a split that gives every core the same bytes "
        f"within 5% would reach it"
    )


def ub_why(r: dict[str, Any]) -> str:
    """Why a row's UB high-water is below the 60% target and what would reach it."""
    pct = r["ub_fraction_pct"] or 0.0
    factor = UB_LARGE_TARGET.threshold / pct if pct else float("inf")
    return (
        f"the kernel's buffers peak at {r['ub_high_water_bytes']} of {r['ub_bytes']} UB bytes ({r['tiling_note']}): "
        f"a tiling that sizes its buffers ≈ {factor:.1f}× larger (longer tiles, or more buffers for double "
        "buffering) would reach it"
    )


def _mark(value: float | None, target: Target | None, text: str) -> str:
    if target is None or value is None:
        return text
    return f"{text} {'✅' if target.met(value) else '❌ MISSED'} ({target.op} {target.threshold:g})"


def _markdown(rows: list[dict[str, Any]]) -> list[str]:
    lines = [
        "Targets apply to the first variant of each op at the large shape (marked ✅/❌ with the bound);"
        " UB ≤ 100% applies to every row. MB = 10^6 bytes; cores = blockDim of the (largest) launch / vector cores.",
        "",
        "Minimum GM bytes: elementwise `Σ numel(in)·s + numel(out)·s`; EmbeddingDenseBackward "
        "`N_c·D·s_g + N·s_i + 2·W·D·s_o` (read the contributing grad rows, read indices, write out, zero-fill out; "
        "one `W·D·s_o` when `N_c` = 0), "
        "with scaleGradByFreq `+ N·s_i + 2·W·4` (count pass).",
        "",
        "| op | variant | product | size | shape | cores | kernel GM MB | min MB | GM ÷ min | host-task MB |"
        " (kernel + host) ÷ min | balance | UB high-water | DMA transfers | mean DMA B |",
        "|---|---|---|---|---|---|---:|---:|---|---:|---:|---|---|---:|---|",
    ]
    for r in rows:
        head = f"| {r['op']} | {r['variant']} | {r['product']} | {r['size']} | {r['shape']} "
        if "error" in r:
            lines.append(head + f"| ERROR: {r['error'][:120]} | | | | | | | | | |")
            continue
        judged = r["judged"] and r["size"] == "large"
        dma_target = DMA_TARGET if judged and r["op"] == EDB else None
        bd = max((launch.get("block_dim") or 0 for launch in r["launches"]), default=0)
        host = f"{r['host_bytes'] / MB:.1f}"
        if r["host_tasks"]:
            host += " (" + ", ".join(sorted({h["kind"] for h in r["host_tasks"]})) + ")"
        ub = r["ub_fraction_pct"]
        ub_text = _mark(ub, UB_LARGE_TARGET if judged else None, f"{fmt_num(ub)}%")
        if ub is not None and not UB_MAX_TARGET.met(ub):
            ub_text += " ❌ OVER 100%"
        lines.append(
            head + f"| {bd}/{r['vector_cores']} | {r['kernel_bytes'] / MB:.2f} | {r['min_bytes'] / MB:.2f} "
            f"| {_mark(r['gm_ratio'], GM_TARGET[r['op']] if judged else None, fmt_num(r['gm_ratio']))} "
            f"| {host} | {fmt_num((r['kernel_bytes'] + r['host_bytes']) / r['min_bytes'] if r['min_bytes'] else None)} "
            f"| {_mark(r['balance'], BALANCE_TARGET if judged else None, fmt_num(r['balance']))} "
            f"| {ub_text} | {r['dma_transfers']} "
            f"| {_mark(r['dma_mean_bytes'], dma_target, fmt_num(r['dma_mean_bytes']))} |"
        )
    return lines


if __name__ == "__main__":
    sys.exit(f"{__file__} is one section of the benchmark suite: run `python bench/run.py --only traffic`")
