"""Benchmark 4b, row-op input traffic from the emulator's counters (issue 16, item 4): how many times a row
kernel (family ``row_reduce``) reads its inputs from GM.

For one call, the **read ratio** is the kernel's GM bytes of data read ÷ the bytes of the inputs
(``Σ numel(input) · itemsize``). Data read is ``gm_bytes_read`` of ``last_stats`` summed over every launch and
core, less the tiling struct every core copies from GM once (``GET_TILING_DATA``: ``block_dim ·
tiling_data_size`` per launch, reported apart). Host tasks (l0op Contiguous and the like, outside the kernel)
are not counted. Two shapes per op, both reduced along the
last dim:

- **rows fit UB** (``[rows, R]`` with a short ``R``): a tile holds whole rows, each loaded once, so every
  input byte is read once: target ratio ``<= 1.00`` (the counters give exactly 1.00);
- **multi-chunk** (``R`` several times what fits UB): each row is cut into chunks and every pass reads them
  again; the family's ops need one reduction pass (softmax's max and sum share it through the online
  combine ``s = s * exp(m_old - m_new) + sum(exp(x - m_new))``) and one output pass, so each input byte is
  read exactly twice: target ratio ``<= 2.00``.

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


def row_inputs(op: str, shape: tuple[int, ...], seed: int = 0) -> dict[str, Any]:
    """Keyword arguments of one call of the row op ``op``: every input fp32 of ``shape`` (standard normal
    values, seeded; traffic does not depend on them, so a backward op's second input need not be a real
    forward output), every int64 attr (the reduced dim) -1.

    Raises:
        KeyError: ``op`` is not a spec.
    """
    from codegen.specs import load_project

    _, specs = load_project()
    spec = next(s for s in specs.values() if s.op == op)
    rng = np.random.default_rng(seed)
    params: dict[str, Any] = {t.name: rng.standard_normal(shape).astype(np.float32) for t in spec.inputs}
    for a in spec.attrs:
        if a.type == "int64":
            params[a.name] = -1
    return params


def read_ratio(stats: dict[str, Any], params: dict[str, Any]) -> tuple[float, int, int, int]:
    """``(ratio, data bytes read, input bytes, tiling bytes read)`` of one call: the data bytes (``gm_bytes_read``
    over every launch and core, less ``block_dim · tiling_data_size`` per launch, the tiling struct each core
    reads) ÷ the bytes of the array arguments in ``params``.

    Raises:
        ValueError: the inputs have no bytes.
    """
    launches = stats.get("launches", [])
    read = sum(int(c.get("gm_bytes_read", 0)) for launch in launches for c in launch.get("cores", []))
    tiling = sum(int(launch.get("block_dim") or 0) * int(launch.get("tiling_data_size") or 0) for launch in launches)
    inputs = sum(int(v.nbytes) for v in params.values() if isinstance(v, np.ndarray))
    if inputs <= 0:
        raise ValueError("the inputs have no bytes; the read ratio needs a non-empty shape")
    return (read - tiling) / inputs, read - tiling, inputs, tiling


def measure(op: str, product: str, shape: tuple[int, ...]) -> dict[str, Any]:
    """One call of ``op`` on ``product`` with fp32 inputs of ``shape``: the read ratio (see
    :func:`read_ratio`) and the launches' ``chunkNum`` / ``tileRows`` / ``blockDim``."""
    from codegen import compile_op

    fn = compile_op(op, product)
    params = row_inputs(op, shape)
    fn(core_order="in_order", **params)
    ratio, read, inputs, tiling_read = read_ratio(fn.last_stats, params)
    launches = fn.last_stats.get("launches", [])
    tiling = [launch.get("tiling") or {} for launch in launches]
    return {
        "op": op,
        "product": product,
        "shape": list(shape),
        "read_ratio": ratio,
        "kernel_read": read,
        "tiling_read": tiling_read,
        "input_bytes": inputs,
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
                label = f"{op} {product} {rs.name} {list(rs.shape)} fp32: kernel GM bytes read ÷ input bytes"
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
                    f"read {m['kernel_read']} data bytes for {m['input_bytes']} input bytes "
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
        "Kernel GM bytes read ÷ input bytes, fp32, reduced along the last dim. Targets: rows that fit UB ≤ 1.00× "
        "(read once); multi-chunk rows ≤ 2.00× (one reduction pass + the output pass).",
        "",
        "| op | product | shape | chunks per row | rows per tile | blockDim | read ÷ input |",
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
