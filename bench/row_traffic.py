"""Benchmark 4b, row-op input traffic from the emulator's counters: how many times a row
kernel (family ``row_reduce``) reads its inputs from GM.

For one call, the **read ratio** is the kernel's GM bytes of data read ÷ the least a kernel of the op must read
(:func:`minimum_read`): every input once (``numel · itemsize``), except that an input broadcast over the rows
(a gamma, a normalized-shape weight) is read once by every core that computes rows (``blockDim`` times), and
that the column sums' combine reads each core's fp32 partials once (``blockDim · R · 4`` bytes a column-sum
output). Data read is ``gm_bytes_read`` of ``last_stats`` summed over every launch and
core, less the tiling struct every core copies from GM once (``GET_TILING_DATA``: ``block_dim ·
tiling_data_size`` per launch, reported apart). Host tasks (l0op Contiguous and the like, outside the kernel)
are not counted. Two shapes per op, both reduced along the
last dim:

- **rows fit UB** (``[rows, R]`` with a short ``R``): a tile holds whole rows, each loaded once, so every
  input byte is read once: target ratio ``<= 1.00``;
- **multi-chunk** (``R`` several times what fits UB): each row is cut into chunks and every pass reads them
  again; the family's ops need one reduction pass (softmax's max and sum share it through the online
  combine ``s = s * exp(m_old - m_new) + sum(exp(x - m_new))``) and one output pass, so each input byte is
  read twice: target ratio ``<= 2.00``.

The tiling of each call (``chunkNum``, ``tileRows``) is reported next to the ratio, so a shape that stops
being multi-chunk (a larger UB) shows as such instead of passing silently.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from bench.common import Figure, Section, Target, fmt_num

#: Products of the section (the family's ops support them all).
PRODUCTS = ("Ascend910B",)
#: Read ratio bound when rows fit UB (each input byte read once).
FIT_TARGET = Target("<=", 1.0)
#: Read ratio bound for a multi-chunk row (one reduction pass + the output pass).
CHUNKED_TARGET = Target("<=", 2.0)


@dataclass(frozen=True)
class RowShape:
    """One shape class: its ``name`` (``fit`` or ``chunked``), the tensors' ``shape`` (reduced along the last
    dim) and the read-ratio ``target``."""

    name: str
    shape: tuple[int, ...]
    target: Target


#: ``fit``: 96 rows of 1000 fp32 elements (rows fit UB on every product); ``chunked``: 2 rows of 200000
#: (800 KB a row: several chunks on every product, UB being at most 256 KB).
SHAPES = (RowShape("fit", (96, 1000), FIT_TARGET), RowShape("chunked", (2, 200000), CHUNKED_TARGET))


def row_ops() -> list[str]:
    """The ops of the ``row_reduce`` family (their aclnn names, sorted)."""
    from codegen.specs import load_project

    _, specs = load_project()
    return sorted(s.op for s in specs.values() if s.family == "row_reduce")


def row_inputs(op: str, product: str, shape: tuple[int, ...]) -> dict[str, Any]:
    """Keyword arguments of one fp32 call of the row op ``op`` on ``product`` reduced along the last dim of
    ``shape``: the call ``opgen explain --shape`` runs (:func:`codegen.explain.call_params`, seeded), so each
    input has the shape the op's rules give it (an input broadcast over the rows, such as a gamma, the last dim
    alone; a per-row input, such as a saved mean, one value per row) and the attrs the shape sets (the reduced
    dim -1, a ``normalizedShape`` of the last dim).

    Raises:
        KeyError: ``op`` is not a spec, or ``product`` not in the catalogue.
    """
    from codegen.explain import call_params
    from codegen.specs import load_project

    catalogue, specs = load_project()
    spec = next(s for s in specs.values() if s.op == op)
    return call_params(spec, catalogue.get(product), shape, "FLOAT")


def minimum_read(op: str, params: dict[str, Any], block_dim: int) -> int:
    """The least GM bytes a kernel of the row op ``op`` reads for the call ``params`` on ``block_dim`` cores: each
    array argument's bytes once, an input broadcast over the rows (the family's ``row_inputs``) once per core,
    and for each column-sum output (``colsum`` steps) the combine's read of every core's fp32 partials
    (``block_dim · R · 4`` bytes, ``R`` the elements of a row: those of a broadcast input, else of the
    first input's last dim).

    Raises:
        KeyError: ``op`` is not a spec.
    """
    from codegen.families.row_reduce.plan.tensors import column_outputs, compute_of
    from codegen.specs import load_project

    _, specs = load_project()
    spec = next(s for s in specs.values() if s.op == op)
    broadcast = set(compute_of(spec).row_inputs)
    arrays = {k: v for k, v in params.items() if isinstance(v, np.ndarray)}
    least = sum(int(v.nbytes) * (block_dim if k in broadcast else 1) for k, v in arrays.items())
    row = next((v.size for k, v in arrays.items() if k in broadcast), None)
    if row is None:
        row = arrays[spec.inputs[0].name].shape[-1]
    return least + len(column_outputs(spec)) * block_dim * int(row) * 4


def read_ratio(stats: dict[str, Any], least: int) -> tuple[float, int, int]:
    """``(ratio, data bytes read, tiling bytes read)`` of one call: the data bytes (``gm_bytes_read`` over every
    launch and core, less ``block_dim · tiling_data_size`` per launch, the tiling struct each core reads) ÷
    ``least``, the fewest bytes the call must read (:func:`minimum_read`).

    Raises:
        ValueError: ``least`` is not positive (an empty call).
    """
    launches = stats.get("launches", [])
    read = sum(int(c.get("gm_bytes_read", 0)) for launch in launches for c in launch.get("cores", []))
    tiling = sum(int(launch.get("block_dim") or 0) * int(launch.get("tiling_data_size") or 0) for launch in launches)
    if least <= 0:
        raise ValueError("the call must read no bytes; the read ratio needs a non-empty shape")
    return (read - tiling) / least, read - tiling, tiling


def measure(op: str, product: str, shape: tuple[int, ...]) -> dict[str, Any]:
    """One call of ``op`` on ``product`` with fp32 inputs of ``shape`` (:func:`row_inputs`): the read ratio (see
    :func:`read_ratio`), the input bytes and the least bytes read (:func:`minimum_read`), and the launches'
    ``chunkNum`` / ``tileRows`` / ``blockDim``."""
    from codegen import compile_op

    fn = compile_op(op, product)
    params = row_inputs(op, product, shape)
    fn(core_order="in_order", **params)
    launches = fn.last_stats.get("launches", [])
    least = minimum_read(op, params, max(int(launch.get("block_dim") or 0) for launch in launches))
    ratio, read, tiling_read = read_ratio(fn.last_stats, least)
    tiling = [launch.get("tiling") or {} for launch in launches]
    return {
        "op": op,
        "product": product,
        "shape": list(shape),
        "read_ratio": ratio,
        "kernel_read": read,
        "tiling_read": tiling_read,
        "input_bytes": sum(int(v.nbytes) for v in params.values() if isinstance(v, np.ndarray)),
        "least_bytes": least,
        "chunk_num": [int(t.get("chunkNum", 0)) for t in tiling],
        "tile_rows": [int(t.get("tileRows", 0)) for t in tiling],
        "block_dim": [launch.get("block_dim") for launch in launches],
    }


def run(products: tuple[str, ...] = PRODUCTS, ops: list[str] | None = None) -> Section:
    """Every row op x ``products`` x :data:`SHAPES`: one figure per call (``row_traffic.<op>.<shape>.<product>``)."""
    sec = Section("row_traffic", "4b. Row-op input traffic (emulator counters)")
    rows: list[dict[str, Any]] = []
    for op in ops if ops is not None else row_ops():
        for product in products:
            for rs in SHAPES:
                fid = f"row_traffic.{op}.{rs.name}.{product}.read_ratio"
                label = f"{op} {product} {rs.name} {list(rs.shape)} fp32: kernel GM bytes read ÷ least"
                try:
                    m = measure(op, product, rs.shape)
                except Exception as exc:  # reported per row; the matrix goes on
                    err = f"{type(exc).__name__}: {str(exc)[:300]}"
                    sec.errors.append(f"{op} {rs.name} {product}: {err}")
                    sec.figures.append(Figure(fid, label, None, "x", rs.target, error=err))
                    continue
                m["shape_class"] = rs.name
                rows.append(m)
                note = (
                    f"read {m['kernel_read']} data bytes, least {m['least_bytes']} ({m['input_bytes']} input bytes) "
                    f"(+ {m['tiling_read']} tiling bytes); chunkNum {m['chunk_num']}, "
                    f"tileRows {m['tile_rows']}, blockDim {m['block_dim']}"
                )
                fig = Figure(fid, label, m["read_ratio"], "x", rs.target, note=note)
                if fig.met is False:
                    fig.why = (
                        f"the kernel reads its inputs {m['read_ratio']:.2f} times ({note}): every pass over a "
                        "chunked row reloads it; fewer passes (an online combine) or whole rows in UB would reach it"
                    )
                sec.figures.append(fig)
    sec.details["rows"] = rows
    sec.markdown = _markdown(rows)
    return sec


def _markdown(rows: list[dict[str, Any]]) -> list[str]:
    lines = [
        "Kernel GM bytes read ÷ the least the call must read (each input once, an input broadcast over the rows "
        "once per core, the column sums' partials once), fp32, reduced along the last dim. Targets: rows that fit "
        "UB ≤ 1.00× (read once); multi-chunk rows ≤ 2.00× (one reduction pass + the output pass).",
        "",
        "| op | product | shape | chunks per row | rows per tile | blockDim | read ÷ least |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['op']} | {r['product']} | {r['shape']} ({r['shape_class']}) | {r['chunk_num']} | {r['tile_rows']} "
            f"| {r['block_dim']} | {fmt_num(r['read_ratio'])}× |"
        )
    return lines


if __name__ == "__main__":
    sys.exit(f"{__file__} is one section of the benchmark suite: run `python bench/run.py --only row_traffic`")
