"""Benchmark 4d, tensor-list traffic from the emulator's counters (the foreach family): GM bytes against the
minimum and the balance over cores of one launch over a model-shaped list.

The list (:func:`model_list`) is a transformer block's parameters at 1/8 of the width of a 4096-wide block:
four ``512 x 512`` and three ``1376 x 512`` matrices, 60 vectors of 512, 30 of 1376, 20 of one element, a 0-d
and an empty tensor (119 tensors, 3 234 133 elements), FLOAT16. One call of aclnnForeachSqrt (one input list),
one of aclnnForeachMulList (two) and one of aclnnForeachMulScalarV2 (one list and an aclScalar, which each core
reads from its one-element FLOAT16 tensor: kernel bytes) per product, core order ``in_order``:

- **GM ÷ minimum**: the kernel's GM bytes (read + written, every core, less the tiling struct each core reads)
  over the bytes the math needs: every input tensor read once, every output tensor written once. The list
  descriptors each core reads (``ListTensorDesc``: a header word, each tensor's rank and dims, each tensor's
  address) count as kernel bytes. Target: ``<= 1.01``;
- **balance**: the largest core's output bytes over the mean core's (``1.00`` is perfect). Target: ``<= 1.05``
  (the split gives every core the same number of 32-byte blocks, give or take one);
- **blockDim** and the roofline fraction of the pipe timeline (:func:`codegen.perf.call_timeline`), as context.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from bench.common import Figure, Section, Target, fmt_num

#: The ops measured: (op, input lists, the scalar attr's name or None).
OPS: tuple[tuple[str, tuple[str, ...], str | None], ...] = (
    ("foreach_sqrt", ("x",), None),
    ("foreach_mul_list", ("x1", "x2"), None),
    ("foreach_mul_scalar_v2", ("x",), "scalar"),
)
#: The aclScalar of a scalar op's call (FLOAT16, the dtype its kernel reads for a FLOAT16 list).
SCALAR = 0.5
PRODUCTS = ("Ascend910B", "Ascend950")
GM_TARGET = Target("<=", 1.01)
BALANCE_TARGET = Target("<=", 1.05)


def model_list() -> list[tuple[int, ...]]:
    """The shapes of the model-shaped list (see the module doc), in a model's parameter order."""
    return [(512, 512)] * 4 + [(1376, 512)] * 3 + [(512,)] * 60 + [(1376,)] * 30 + [(1,)] * 20 + [(), (0,)]


def measure(op: str, inputs: tuple[str, ...], product: str, scalar: str | None = None) -> dict[str, Any]:
    """One call of ``op`` on ``product`` over :func:`model_list` in FLOAT16 (one list per name of ``inputs``,
    values in ``[1, 2)``; the attr ``scalar``, when named, :data:`SCALAR` as a FLOAT16 aclScalar): its
    counters."""
    from codegen import compile_op
    from codegen.perf import call_timeline
    from codegen.runner import ScalarArg
    from codegen.specs import load_project

    fn = compile_op(op, product)
    rng = np.random.default_rng(0)
    shapes = model_list()
    lists: dict[str, Any] = {
        n: [(1 + rng.random(s, dtype=np.float32)).astype(np.float16) for s in shapes] for n in inputs
    }
    if scalar is not None:
        lists[scalar] = ScalarArg(SCALAR, "FLOAT16")
    fn(core_order="in_order", **lists)
    launches = fn.last_stats.get("launches", [])
    cores = [c for launch in launches for c in launch.get("cores", [])]
    moved = sum(int(c.get("gm_bytes_read", 0)) + int(c.get("gm_bytes_written", 0)) for c in cores)
    tiling = sum(int(launch.get("block_dim") or 0) * int(launch.get("tiling_data_size") or 0) for launch in launches)
    elements = sum(int(np.prod(s, dtype=np.int64)) for s in shapes)
    minimum = (len(inputs) + 1) * elements * 2
    written = [int(c.get("gm_bytes_written", 0)) for c in cores]
    tl = call_timeline(fn.last_stats, load_project()[0].get(product))
    return {
        "op": op,
        "product": product,
        "tensors": len(shapes),
        "elements": elements,
        "gm_over_minimum": (moved - tiling) / minimum,
        "kernel_bytes": moved - tiling,
        "minimum_bytes": minimum,
        "balance": max(written) * len(written) / sum(written) if written and sum(written) else None,
        "block_dim": [launch.get("block_dim") for launch in launches],
        "roofline_fraction": tl.roofline_fraction if tl is not None else None,
    }


def run(products: tuple[str, ...] = PRODUCTS) -> Section:
    """Each op of :data:`OPS` on each product over the model-shaped list: GM ÷ minimum and balance (targeted),
    blockDim and roofline fraction (context)."""
    sec = Section("list_traffic", "4d. Tensor-list traffic (emulator counters)")
    rows: list[dict[str, Any]] = []
    for product in products:
        for op, inputs, scalar in OPS:
            fid = f"list_traffic.{op}.{product}"
            label = f"{op} {product}, model-shaped FLOAT16 list"
            try:
                m = measure(op, inputs, product, scalar)
            except Exception as exc:  # reported per row; the matrix goes on
                err = f"{type(exc).__name__}: {str(exc)[:300]}"
                sec.errors.append(f"{op} {product}: {err}")
                sec.figures.append(Figure(fid + ".gm_over_minimum", label, None, "x", GM_TARGET, error=err))
                continue
            rows.append(m)
            note = f"{m['kernel_bytes']} kernel bytes for {m['minimum_bytes']}, blockDim {m['block_dim']}"
            sec.figures.append(
                Figure(
                    fid + ".gm_over_minimum", f"{label}: GM ÷ minimum", m["gm_over_minimum"], "x", GM_TARGET, note=note
                )
            )
            sec.figures.append(Figure(fid + ".balance", f"{label}: core balance", m["balance"], "", BALANCE_TARGET))
    sec.details["rows"] = rows
    sec.markdown = _markdown(rows)
    return sec


def _markdown(rows: list[dict[str, Any]]) -> list[str]:
    lines = [
        "A transformer block's parameters at 1/8 width (four 512 x 512 and three 1376 x 512 matrices, 60 vectors of "
        "512, 30 of 1376, 20 of one element, a 0-d and an empty tensor), FLOAT16, one launch. Targets: GM ÷ "
        f"minimum ≤ {GM_TARGET.threshold:.2f}, balance ≤ {BALANCE_TARGET.threshold:.2f}.",
        "",
        "| op | product | tensors | GM ÷ minimum | balance | blockDim | roofline fraction |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        roof = fmt_num(r["roofline_fraction"]) if r["roofline_fraction"] is not None else "-"
        bal = fmt_num(r["balance"]) if r["balance"] is not None else "-"
        lines.append(
            f"| {r['op']} | {r['product']} | {r['tensors']} | {fmt_num(r['gm_over_minimum'])}× | {bal} | "
            f"{r['block_dim']} | {roof} |"
        )
    return lines


if __name__ == "__main__":
    sys.exit(f"{__file__} is one section of the benchmark suite: run `python bench/run.py --only list_traffic`")
