"""Vector element-ops per element of every elementwise op x dtype, from the emulator's counters.

Each op of the elementwise family is called once per dtype it lists on one product (default Ascend910B) with
every required input of ``--shape`` (default ``[4096, 1024]``, 2^22 elements; standard normal values, seeded)
and every attribute at its default. The figure is ``vector_elements`` summed over the launch's cores divided by
the element count of the broadcast shape: the element-ops the kernel's vector instructions ran per element
(``Compare``/``Compares`` count their rounded-up ``nCmp``; the reduce epilogue's own instructions are in it).
Beside it, GM bytes of the kernel (read + written + atomically added, over cores) per element.

Usage::

    .venv/bin/python bench/elementwise_ops.py [--product Ascend910B] [--shape 4096,1024] [--json FILE] [OP ...]

Prints one Markdown table (op, dtype, element-ops per element, vector instructions per tile-core, GM bytes per
element); ``--json`` writes the same rows. Nothing here asserts (tests hold the structure).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np


def measure(op: str, product: str, shape: tuple[int, ...]) -> list[dict[str, Any]]:
    """One row per dtype of ``op``: ``{op, dtype, ops_per_element, gm_bytes_per_element}`` from one call of
    ``shape`` (every required input of that shape, attributes at their defaults) on ``product``.

    Raises:
        codegen.AclnnError: the call failed.
    """
    import ml_dtypes  # noqa: F401  (registers bfloat16 with NumPy)

    from codegen import compile_op
    from codegen.specs import load_project, resolve_op
    from codegen.types import compute_dtypes

    _, specs = load_project()
    spec = resolve_op(op, specs)
    fn = compile_op(spec.op, product)
    n = int(np.prod(shape))
    rows = []
    for dtype in compute_dtypes(spec):
        rng = np.random.default_rng(0)
        params: dict[str, Any] = {
            t.name: rng.standard_normal(shape, dtype=np.float32).astype(dtype.numpy_name)
            for t in spec.inputs
            if not t.optional
        }
        fn(**params)
        cores = [c for launch in fn.last_stats["launches"] for c in launch["cores"]]
        elements = sum(int(c.get("vector_elements", 0)) for c in cores)
        gm = sum(
            int(c.get(k, 0)) for c in cores for k in ("gm_bytes_read", "gm_bytes_written", "gm_bytes_atomic_added")
        )
        rows.append(
            {
                "op": spec.op,
                "dtype": dtype.name,
                "ops_per_element": elements / n,
                "gm_bytes_per_element": gm / n,
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    """Command line: see the module docstring. Returns the exit status (0)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ops", nargs="*", help="ops (default: every elementwise op)")
    parser.add_argument("--product", default="Ascend910B")
    parser.add_argument("--shape", default="4096,1024")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    from codegen.specs import load_project

    _, specs = load_project()
    ops = args.ops or sorted(s.op for s in specs.values() if s.family == "elementwise")
    shape = tuple(int(x) for x in args.shape.split(","))
    rows: list[dict[str, Any]] = []
    for op in ops:
        rows += measure(op, args.product, shape)
    print(f"Element-ops per element on {args.product}, shape {list(shape)}\n")
    print("| op | dtype | element-ops / element | GM bytes / element |")
    print("|---|---|---:|---:|")
    for r in rows:
        print(f"| {r['op']} | {r['dtype']} | {r['ops_per_element']:.2f} | {r['gm_bytes_per_element']:.2f} |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
