"""The row_reduce family's lowering holds its structure (per family, on every row op): per-row values
computed once per row, one DMA per tile of contiguous rows, double-buffered tile queues wherever UB
allows.

Element-ops per element are the emulator's ``vector_elements`` (every element every vector instruction
touches, summed over the cores) over the elements of the first input. The expected counts are hand counts of
the lowering a CANN engineer writes for the formula (Ascend910B, rows of 1024 that fit UB), per element:

- Softmax: ReduceMax; Adds (x - m), Exp (kept in UB), ReduceSum; Muls (the kept exp by the row's 1 / s) = 5;
- LogSoftmax: ReduceMax; Adds (x - m, kept in UB), Exp, ReduceSum; Adds (the kept x - m, - log s) = 5;
- SoftmaxBackward: Mul, ReduceSum; Adds (gradOutput - s), Mul = 4;
- LogSoftmaxBackward: ReduceSum; Exp, Muls (by s), Sub = 4;
- RmsNorm: Mul, ReduceSum; Muls (by the row's rstd), Mul (by gamma) = 4;
- AddRmsNorm: Add (x1 + x2, kept in UB), Mul, ReduceSum; the kept sum copied into xOut's tile (one Muls by
  1), Muls (by the row's rstd), Mul (by gamma) = 6 (ops-nn's kernel: 7, its own copy of x included);
- LayerNorm: ReduceSum (the mean); Adds (x - mean, kept in UB), Mul, ReduceSum (the variance, two-pass); Muls
  (by the row's rstd), Mul (by weight), Add (bias) = 7 (ops-nn's LayerNormV4: 9);

plus, for FLOAT16 and BF16, one Cast per input element read (RmsNorm: x; AddRmsNorm: x1 and x2; an input
broadcast over the rows, gamma or weight and bias, is read and cast once per core) and one per output element
written (a per-row output such as rstd is FLOAT or one element per row). Each reduction of a row finishes in UB: one
WholeReduce result per 64-element repeat (counted above as the reduction's 1 per element), then one
WholeReduce of those 16 results per row, which the emulator counts as its whole 64-lane repeat: 64 / R per
element per reduction (Softmax and LogSoftmax have two reductions, the others one). A per-row value computed
per element (a Duplicate, a Div, a Ln over the row) adds at least one per element, so the counts hold no such
thing; other per-row work is below 0.01 per element at R = 1024.

The rows' reductions never go through the scalar unit: the scalar unit waits for the vector pipe once per
reduction level of a tile (Softmax: the max, then the sum of exp(x - max)), whatever the rows per tile.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from codegen.families.row_reduce.cases.tiling_probes import fit_limit
from codegen.families.row_reduce.plan.tensors import column_outputs, combos, compute_of, per_row_inputs
from codegen.families.row_reduce.plan.tiling import tiling_decision
from codegen.runner import OpCallable, numpy_dtype
from codegen.spec.model import DType
from codegen.specs import load_project

pytestmark = pytest.mark.heavy(20)

CATALOGUE, SPECS = load_project()
PRODUCT = "Ascend910B"
#: The row ops whose tiles hold whole rows of inputs of the first input's shape or broadcast over the rows. An op
#: with per-row inputs or column sums (LayerNormBackward: mean and rstd one value per row, gradWeightOut and
#: gradBiasOut summed over the rows into per-core fp32 partials) adds per-row loads and per-core partial work this
#: module's counts do not model; tests/test_row_reduce_per_row.py and tests/test_row_reduce_colsum.py hold that
#: lowering on their test ops.
ROW_SPECS = sorted(
    (s for s in SPECS.values() if s.family == "row_reduce" and not per_row_inputs(s) and not column_outputs(s)),
    key=lambda s: s.op,
)

#: Hand counts (see the module doc): fp32 element-ops per element, Casts of 16-bit inputs and outputs,
#: reductions per row.
HAND_COUNT = {
    "Softmax": (5, 2, 2),
    "LogSoftmax": (5, 2, 2),
    "SoftmaxBackward": (4, 3, 1),
    "LogSoftmaxBackward": (4, 3, 1),
    "RmsNorm": (4, 2, 1),
    "AddRmsNorm": (6, 4, 1),
    "LayerNorm": (7, 2, 2),
}


def _row_inputs(op: str) -> set[str]:
    """The inputs of ``op`` broadcast over the rows (RmsNorm's gamma; LayerNorm's weight and bias): one row."""
    spec = next(s for s in ROW_SPECS if s.op == op)
    return set(compute_of(spec).row_inputs)


def _call(fn: OpCallable, op: str, rows: int, r: int, dtype: DType) -> dict[str, np.ndarray]:
    """Calls ``op`` on ``[rows, r]`` inputs of ``dtype`` (an input broadcast over the rows ``[r]``) along the
    last dim (an int64 dim -1, an int_array row shape ``[r]``)."""
    spec = next(s for s in ROW_SPECS if s.op == op)
    rng = np.random.default_rng(1)
    params: dict[str, object] = {}
    for t in spec.inputs:
        shape = (r,) if t.name in _row_inputs(op) else (rows, r)
        params[t.name] = rng.standard_normal(shape).astype(numpy_dtype(dtype))
    for a in spec.attrs:
        if a.type == "int64":
            params[a.name] = -1
        elif a.type == "int_array":
            params[a.name] = [r]
    fn(core_order="in_order", **params)
    return {k: v for k, v in params.items() if isinstance(v, np.ndarray)}


def test_every_row_op_has_a_hand_count() -> None:
    assert sorted(HAND_COUNT) == [s.op for s in ROW_SPECS]


@pytest.mark.parametrize("dtype", [DType.FLOAT, DType.FLOAT16, DType.BF16], ids=lambda d: d.name)
@pytest.mark.parametrize("op", sorted(HAND_COUNT))
def test_element_ops_per_element_equal_the_hand_count(
    built_op: Callable[[str, str], OpCallable], op: str, dtype: DType
) -> None:
    fn = built_op(op, PRODUCT)
    rows, r = 480, 1024
    _call(fn, op, rows, r, dtype)
    cores = [c for launch in fn.last_stats["launches"] for c in launch["cores"]]
    per_elem = sum(int(c["vector_elements"]) for c in cores) / (rows * r)
    fp32, casts, reductions = HAND_COUNT[op]
    want = fp32 + (0 if dtype is DType.FLOAT else casts) + reductions * 64 / r
    if dtype is not DType.FLOAT:  # each row input's Cast, once per core
        want += len(_row_inputs(op)) * len(cores) * r / (rows * r)
    assert want <= per_elem < want + 0.01, f"{op} {dtype.name}: {per_elem:.4f} element-ops per element, want {want}"


@pytest.mark.parametrize("op", sorted(HAND_COUNT))
def test_one_dma_per_tensor_per_tile_of_contiguous_rows(built_op: Callable[[str, str], OpCallable], op: str) -> None:
    """Rows of 1024 (a multiple of 16: a tile of rows is one contiguous GM range): each core copies each input
    in and each output out once per tile, whatever the rows per tile."""
    fn = built_op(op, PRODUCT)
    rows, r = 960, 1024
    params = _call(fn, op, rows, r, DType.FLOAT16)
    spec = next(s for s in ROW_SPECS if s.op == op)
    (launch,) = fn.last_stats["launches"]
    t = launch["tiling"]
    assert t["chunkNum"] == 1 and t["tileRows"] > 1
    row_in = [n for n, v in params.items() if v.ndim == 1]  # gamma: one copy per core
    for core, c in enumerate(launch["cores"]):
        mine = t["tasksPerCore"] + (1 if core < t["tasksFormerNum"] else 0)
        tiles = -(-mine // t["tileRows"])
        want = tiles * (len(spec.inputs) - len(row_in) + len(spec.outputs)) + len(row_in)
        assert int(c["dma_transfers"]) == want, f"core {core}: {c['dma_transfers']} DMAs for {tiles} tiles"
    assert max(-(-(t["tasksPerCore"] + 1) // t["tileRows"]), 1) > 1  # several tiles per core


def test_no_vector_to_scalar_wait_per_row(built_op: Callable[[str, str], OpCallable]) -> None:
    """Softmax on rows of 1024 (several tiles of whole rows per core): the scalar unit waits for the vector
    pipe twice per tile (once per reduction level), not once per row and reduction."""
    fn = built_op("Softmax", PRODUCT)
    _call(fn, "Softmax", 960, 1024, DType.FLOAT16)
    (launch,) = fn.last_stats["launches"]
    t = launch["tiling"]
    assert t["chunkNum"] == 1 and t["tileRows"] > 1
    cores = len(launch["cores"])
    tiles = sum(-(-(t["tasksPerCore"] + (1 if c < t["tasksFormerNum"] else 0)) // t["tileRows"]) for c in range(cores))
    assert launch["timeline"]["scalar_waits"] == 2 * tiles


@pytest.mark.parametrize("spec", ROW_SPECS, ids=lambda s: s.op)
def test_tile_queues_are_double_buffered_wherever_ub_allows(spec: object) -> None:
    """Rows of 1024, a chunked row and line blocks: two buffers per tile queue; at the fit limit (the
    longest row that fits whole with one buffer) one buffer, and a second would not fit UB."""
    from codegen.spec.model import OpSpec

    assert isinstance(spec, OpSpec)
    for product in CATALOGUE.products:
        for combo in (c for c in combos(spec) if c.allowed_on(product)):
            two = [tiling_decision(spec, product, (4096, 1024), -1, combo)]
            two.append(tiling_decision(spec, product, (2, 10**6), -1, combo))
            if not spec.compute.rows:  # type: ignore[attr-defined]
                two.append(tiling_decision(spec, product, (8, 100, 40), 1, combo))
            assert [t.buffer_num for t in two] == [2] * len(two), (product.name, combo.text)
            fit = fit_limit(spec, product, combo)
            edge = tiling_decision(spec, product, (2, fit), -1, combo)
            assert edge.chunk_num == 1 and edge.buffer_num == 1, (product.name, combo.text, fit)
            doubled = edge.tile_bytes_per_elem + edge.queue_bytes_per_elem + edge.save_bytes_per_elem
            doubled += edge.line_bytes_per_elem
            assert fit * doubled > edge.budget_bytes, (product.name, combo.text)


@pytest.mark.parametrize(
    ("formula", "lines"),
    [
        # a computed into the destination, then one Axpy of the scaled line into it (Muls and Add would be 3)
        ("exp(output) + s * gradOutput", ["Exp(dst, ins[1], n);", "Axpy(dst, ins[0], sc[0], n);"]),
        ("gradOutput * s + exp(output)", ["Exp(dst, ins[1], n);", "Axpy(dst, ins[0], sc[0], n);"]),
        ("exp(output) - gradOutput / s", ["Exp(dst, ins[1], n);", "Axpy(dst, ins[0], -(1.0f / (sc[0])), n);"]),
        # the scaled line computed first, into a temporary
        (
            "exp(output) + s * exp(gradOutput)",
            ["Exp(tmp[0], ins[0], n);", "Exp(dst, ins[1], n);", "Axpy(dst, tmp[0], sc[0], n);"],
        ),
        # the addend is an input line: computing it into the destination would be a copy, nothing saved
        (
            "gradOutput - exp(output) * s",
            ["Exp(tmp[1], ins[1], n);", "Muls(tmp[0], tmp[1], sc[0], n);", "Sub(dst, ins[0], tmp[0], n);"],
        ),
        # s * y - a is no Axpy (a would need negating)
        (
            "s * gradOutput - exp(output)",
            ["Muls(tmp[0], ins[0], sc[0], n);", "Exp(tmp[1], ins[1], n);", "Sub(dst, tmp[0], tmp[1], n);"],
        ),
    ],
)
def test_a_scaled_line_added_to_a_computed_one_is_one_axpy(formula: str, lines: list[str]) -> None:
    """The row lowering's ``a + s * y`` (``s * y + a``, ``a - s * y``; ``s`` a row's scalar) with ``a`` computed:
    ``a`` into the destination and one ``Axpy(dst, y, s)`` (``dst[i] = y[i] * s + dst[i]``), as
    LayerNormBackward's gradInput subtracts ``(input - mean) * rstd * b`` from ``gradOut * weight - a``."""
    from codegen.families.row_reduce.plan.lowering import Lowering
    from codegen.spec.errors import SourceLoc
    from codegen.spec.expr import parse_expr

    spec = next(s for s in SPECS.values() if s.op == "LogSoftmaxBackward")
    lowering = Lowering(spec, {"s": 0}, 0)
    got = lowering.function("F", parse_expr(formula, SourceLoc("t.yaml", 1), "f"), scalar=True)
    assert list(got.lines) == lines
