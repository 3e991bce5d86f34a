"""The performance model's table: ``python bench/timeline.py [--product P ...] [--op OP ...] [--json FILE]``.

One row per op x dtype x product, each op at its bench shape (:data:`BENCH_SHAPES`, by family), the call of
``opgen explain --shape`` (:func:`codegen.explain.call_params`) run once on the emulator (core order
``in_order``), with:

- **modelled time** (us) and **roofline fraction** (roofline bound / modelled time) from the pipe timeline
  (:func:`codegen.perf.call_timeline`), and the **critical pipe** (most busy cycles on the slowest core);
- **element-ops / element**: the emulator's ``vector_elements`` over the element count of the op's main
  input (its first input);
- **V busy ÷ vector bound**: the vector pipe's busy cycles on the slowest core over the vector roofline in
  cycles (:func:`vector_busy_over_bound`): what each vector instruction's latency, charged once per tile,
  and partial repeats add to the vector work; a vector-bound row's roofline fraction is at most its inverse;
- **GM ÷ minimum**: kernel GM bytes (read + written + atomically added) over the bytes the math needs
  (every input read once, every output written once; EmbeddingDenseBackward: ``bench.traffic.minimum_bytes``;
  the gather family: ``bench.gather_traffic.minimum_bytes`` over its rows, with distinct indices in a random
  order);
- **ops-nn**: the element-ops per element of ops-nn's hand-written kernel for the same API and dtype, from
  ``bench/ops_nn_counts.yaml`` (its ``formula_minimum`` where ops-nn has no kernel) when that file exists,
  blank otherwise.

A product without a cost model gets one row per op saying the model is unavailable there. The Markdown table
goes to stdout, progress to stderr, rows to ``--json``. Nothing here asserts.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import yaml  # noqa: E402

#: The bench shape of each family: 2^22-element tensors ([4096, 1024], rows reduced along the last dim) and,
#: for the index family, numWeights = 16384, D = 128, N = 262144 (a typical large-vocabulary shape); the
#: gather family: a [16384, 256] source gathered along dim 0 with 16384 indices (rows of 1 KiB in fp32).
BENCH_SHAPES: dict[str, tuple[int, ...]] = {
    "elementwise": (4096, 1024),
    "row_reduce": (4096, 1024),
    "index_accumulate": (16384, 128, 262144),
    "gather_scatter": (16384, 256),
}
COUNTS_FILE = HERE / "ops_nn_counts.yaml"


def ops_nn_counts(path: Path = COUNTS_FILE) -> dict[str, Any]:
    """The entries of ``bench/ops_nn_counts.yaml`` by aclnn API name, or ``{}`` when the file does not exist."""
    if not path.is_file():
        return {}
    data = yaml.safe_load(path.read_text()) or {}
    return data if isinstance(data, dict) else {}


def ops_nn_value(entry: Any, dtype: str) -> str:
    """The ops-nn figure of one row: the hand-written kernel's count for ``dtype``, else the formula minimum
    (marked ``min``), else blank."""
    if not isinstance(entry, dict):
        return ""
    counts = entry.get("element_ops_per_element") or {}
    if isinstance(counts, dict) and dtype in counts:
        return f"{float(counts[dtype]):g}"
    if entry.get("formula_minimum") is not None:
        return f"{float(entry['formula_minimum']):g} (min)"
    return ""


def minimum_bytes(spec: Any, params: dict[str, Any], out: Any) -> int:
    """The GM bytes the call's math needs (see the module doc)."""
    if spec.family == "index_accumulate":
        from bench.traffic import minimum_bytes as edb_minimum

        return int(edb_minimum(spec.op, params, out))
    if spec.family == "gather_scatter":
        from bench.gather_traffic import minimum_bytes as gather_minimum

        src, index = params[spec.inputs[0].name], params[spec.inputs[1].name]
        comp = spec.compute  # rows of Q elements after the gathered dim (Take: the source flattened, Q = 1)
        view, axis = comp.view(src.shape, params.get(comp.dim) if comp.dim is not None else None)
        return int(gather_minimum(index, src.itemsize * int(np.prod(view[axis + 1 :], dtype=np.int64))))
    outs = out if isinstance(out, tuple) else (out,)
    arrays = [v for v in params.values() if isinstance(v, np.ndarray)] + [o for o in outs if isinstance(o, np.ndarray)]
    return int(sum(a.nbytes for a in arrays))


def vector_busy_over_bound(tl: Any, product: Any) -> float:
    """The vector pipe's busy cycles (``tl.pipe_busy_cycles["V"]``, the slowest core of each launch, summed)
    over the vector roofline in cycles (``tl.vector_bound_us`` at the catalogue clock, ``cost_model.clock_mhz``
    of ``product``); 0.0 when the call did no vector work.

    The vector roofline counts repeats x cycles per repeat only; the timeline also charges each vector
    instruction's latency (``cost_model.vector.<class>.latency_cycles`` in the catalogue) once, so once per
    tile, and a whole repeat for a partial one. Cores split the elements evenly at the bench shapes, so the
    slowest core's work is the roofline's to within a block per core, and a vector-bound call's roofline
    fraction is at most the inverse of this figure, whatever its copies do.

    Raises:
        ValueError: ``product`` has no cost model.
    """
    if product.cost_model is None:
        raise ValueError(f"{product.name} has no cost model in the product catalogue")
    bound_cycles = tl.vector_bound_us * product.cost_model.clock_mhz.value
    return float(tl.pipe_busy_cycles.get("V", 0.0)) / bound_cycles if bound_cycles > 0 else 0.0


def measure(spec: Any, product: Any, dtype: str) -> dict[str, Any]:
    """One row: ``spec`` on ``product`` in ``dtype`` at its family's bench shape (see the module doc)."""
    from codegen import compile_op
    from codegen.explain import call_params
    from codegen.perf import call_timeline

    shape = BENCH_SHAPES[spec.family]
    row: dict[str, Any] = {"op": spec.aclnn_name, "dtype": dtype, "product": product.name, "shape": list(shape)}
    if product.cost_model is None:
        row["note"] = "model unavailable (no cost_model in the catalogue)"
        return row
    params = call_params(spec, product, shape, dtype)
    if spec.family == "gather_scatter":  # distinct positions in a random order (the explain call's are all 0)
        index = spec.inputs[1].name
        params[index] = np.random.default_rng(0).permutation(shape[0]).astype(params[index].dtype)
    fn = compile_op(spec.op, product.name)
    out = fn(core_order="in_order", **params)
    tl = call_timeline(fn.last_stats, product)
    if tl is None:
        row["note"] = "no timeline in the counters"
        return row
    main = params[spec.inputs[0].name]
    row.update(
        modelled_us=tl.modelled_us,
        roofline_us=tl.roofline_us,
        roofline_fraction=tl.roofline_fraction,
        bound=tl.bound,
        critical_pipe=tl.critical_pipe,
        copy_hidden_fraction=tl.copy_hidden_fraction,
        element_ops_per_element=tl.vector_elements / main.size if main.size else 0.0,
        vector_busy_over_bound=vector_busy_over_bound(tl, product),
        gm_over_minimum=tl.gm_bytes / max(1, minimum_bytes(spec, params, out)),
    )
    return row


def markdown(rows: list[dict[str, Any]], counts: dict[str, Any]) -> list[str]:
    """The table (one line per row)."""
    lines = [
        "| op | dtype | product | modelled time (us) | roofline fraction | bound | critical pipe | "
        "element-ops / element | ops-nn element-ops / element | V busy ÷ vector bound | GM ÷ minimum |",
        "|---|---|---|---:|---:|---|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        if "modelled_us" not in r:
            note = r.get("note", r.get("error", ""))
            lines.append(f"| {r['op']} | {r['dtype']} | {r['product']} | {note} | | | | | | | |")
            continue
        lines.append(
            f"| {r['op']} | {r['dtype']} | {r['product']} | {r['modelled_us']:.1f} | {r['roofline_fraction']:.2f} | "
            f"{r['bound']} | {r['critical_pipe']} | {r['element_ops_per_element']:.2f} | "
            f"{ops_nn_value(counts.get(r['op']), r['dtype'])} | {r['vector_busy_over_bound']:.3f} | "
            f"{r['gm_over_minimum']:.2f} |"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    """Runs the table for the selected products and ops (default: every product and op); prints Markdown."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--product", action="append", help="catalogue product (repeatable; default all)")
    parser.add_argument("--op", action="append", help="spec name, OpType or aclnn name (repeatable; default all)")
    parser.add_argument("--json", type=Path, help="write the rows here")
    args = parser.parse_args(argv)
    from codegen.specs import load_project

    catalogue, specs = load_project()
    products = [p for p in catalogue.products if not args.product or p.name in args.product]
    missing = sorted(set(args.product or []) - {p.name for p in catalogue.products})
    if missing:
        parser.error(
            f"unknown product: {', '.join(missing)} (the catalogue has {', '.join(p.name for p in catalogue.products)})"
        )
    wanted = set(args.op or [])
    chosen = [s for key, s in specs.items() if not wanted or wanted & {key, s.op, s.aclnn_name}]
    unknown = sorted(w for w in wanted if not any(w in {key, s.op, s.aclnn_name} for key, s in specs.items()))
    if unknown:
        parser.error(f"unknown op: {', '.join(unknown)} (give a spec name, an OpType or an aclnn name)")
    rows: list[dict[str, Any]] = []
    for spec in sorted(chosen, key=lambda s: s.aclnn_name):
        for product in products:
            if product.name not in spec.products:
                continue
            for dtype in [d.name for d in spec.inputs[0].dtypes_for(product)]:
                print(f"{spec.aclnn_name} {dtype} {product.name}", file=sys.stderr, flush=True)
                try:
                    rows.append(measure(spec, product, dtype))
                except Exception as exc:  # reported in its row; the table goes on
                    rows.append(
                        {"op": spec.aclnn_name, "dtype": dtype, "product": product.name, "error": f"{exc}"[:200]}
                    )
    print("\n".join(markdown(rows, ops_nn_counts())))
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
