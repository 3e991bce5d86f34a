"""The 64-bit offset cases of a row-reduce op: calls whose tensors reach past 2**31 elements, run through
the tiling function (checked against the planner in 64-bit arithmetic) and the probe launch (the ranges a
core owns: :func:`probe_ranges`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from codegen.check.cases import Case
from codegen.check.offsets import (
    PROBE_QUICK_MAX_ACCESSES,
    device_attrs,
    device_byte_ranges,
    field_difference,
    offset_case,
)
from codegen.families.row_reduce.plan.tensors import column_outputs, combos, compute_of, default_combo, row_outputs
from codegen.families.row_reduce.plan.tiling import tiling_decision, trailing_view_dims, view_dims
from codegen.spec.model import DType, OpSpec, Product

#: The shape of the 64-bit offset case along dim 0: R = 3 lines of 2**31 + 5 inner positions (line offsets
#: past 2**31, the strided mode).
OFFSET_SHAPE = (3, 2**31 + 5)

#: The shape of the 64-bit offset case of the ``rows`` form: 2**31 + 5 rows of R = 3 (row offsets past 2**31).
ROWS_OFFSET_SHAPE = (2**31 + 5, 3)

#: The shape of the long-row case of both forms, reduced over the last dim: 2 rows of 2**31 + 5 elements (the
#: second row starts past 2**31 and its chunks reach past 2**32).
LONG_ROW_SHAPE = (2, 2**31 + 5)


def offset_cases(spec: OpSpec, product: Product, dt: DType) -> Iterator[Case]:
    """The 64-bit offset cases (``tiling_2g``) of ``spec`` on ``product`` in ``dt``: :data:`OFFSET_SHAPE` along
    dim 0 (or :data:`ROWS_OFFSET_SHAPE` in the ``rows`` form), and :data:`LONG_ROW_SHAPE` over its last dim.
    The device tensors are the first input's shape, a per-row output (:func:`row_outputs`) or input
    (``compute.per_row``) that shape with the reduced dim set to 1, and the ``rows`` input and a column sum
    the reduced dim alone. The long row's probe stops its core
    at :data:`PROBE_QUICK_MAX_ACCESSES` GM accesses in the full check too."""
    comp = compute_of(spec)
    combo = default_combo(spec, dt, product)
    per_row = set(row_outputs(spec)) | set(comp.per_row_inputs)
    cols = set(column_outputs(spec))
    dev = spec.device_interface
    shapes = ((ROWS_OFFSET_SHAPE, 1, "rows past 2**31"),) if comp.rows else ((OFFSET_SHAPE, 0, "inner past 2**31"),)
    for shape, dim, what in (*shapes, (LONG_ROW_SHAPE, 1, "a row of 2**31 + 5 elements")):

        def tensor(source: str | None, shape: tuple[int, ...] = shape, dim: int = dim) -> dict[str, Any]:
            name = source or spec.input_names[0]
            carrier = next((d for d in dev.inputs if d.source == name and d.dtype is not None), None)
            if carrier is not None and carrier.dtype is not None:  # the int_array giving the reduced dims
                return {"shape": [len(shape) - 1], "dtype": carrier.dtype.name}
            if name in comp.row_inputs or name in cols:
                dims = list(shape[1:])
            elif name in per_row:
                dims = [1 if k == dim else n for k, n in enumerate(shape)]
            else:
                dims = list(shape)
            return {"shape": dims, "dtype": combo.dtype(name).name}

        request = {
            "inputs": [tensor(d.source) for d in dev.inputs],
            "outputs": [tensor(d.source) for d in dev.outputs],
            "attrs": device_attrs(spec, {} if comp.rows else {comp.dim: dim}),
        }
        params = {"request": request, "shape": shape, "dim": dim, "dtype": dt.name, "combo": combos(spec).index(combo)}
        if shape == LONG_ROW_SHAPE:
            # each access of a long row is a chunk of vector work (about 15 s of CPU at the full cap); the
            # first chunks hold what the probe judges of a row it cannot finish: the row's start
            params["probe_max_accesses"] = PROBE_QUICK_MAX_ACCESSES
        yield offset_case(spec, product, dt.name, str(list(shape)), f"{what}: tiling in 64 bits", params)


def check_offsets(fn: Any, case: Case, got: dict[str, Any], tiling: dict[str, int]) -> str:
    """A ``tiling_2g`` case's tiling result against :func:`tiling_decision` in 64-bit arithmetic: '' when
    every field, the block dim and the key agree and the tasks reach past 2**31 elements, else what differs."""
    p = case.params
    spec = fn.spec.launched()  # the device op's inputs (no host input)
    d = tiling_decision(spec, fn.product, tuple(p["shape"]), p["dim"], combos(spec)[p["combo"]])
    if fault := field_difference(tiling, d.tiling_fields()):
        return fault
    if (got["block_dim"], got["tiling_key"]) != (d.block_dim, d.tiling_key):
        return f"blockDim/key {got['block_dim']}/{got['tiling_key']}, want {d.block_dim}/{d.tiling_key}"
    rows = compute_of(spec).rows
    outer, r, inner = trailing_view_dims(tuple(p["shape"]), 1) if rows else view_dims(tuple(p["shape"]), p["dim"])
    if d.mode == 1:
        blocks = -(-inner // d.block_width)
        last_start = (outer - 1) * r * inner + (r - 1) * inner + (blocks - 1) * d.block_width
    else:
        last_start = (outer - 1) * r
    if last_start < 2**31:
        return f"the last line starts at element {last_start}: the case does not reach past 32 bits"
    return ""


def probe_ranges(fn: Any, case: Case, tiling: dict[str, int], core: int) -> dict[str, tuple[int, int]]:
    """The bytes ``[lo, hi)`` of every device tensor that core ``core`` owns under the tiling fields (the
    split of the tiling data and the shape's view ``outerNum x reduceLen x innerNum``, not the kernel's code).

    The core takes ``tasksPerCore`` tasks (one more below ``tasksFormerNum``), after those of the cores
    before it. Mode 0: task ``t`` is row ``t``, elements ``[t * R, (t + 1) * R)``. Mode 1: task ``t`` is
    outer index ``o = t // B`` and inner positions ``[b * W, min((b + 1) * W, inner))`` (``b = t % B``,
    ``W`` = ``blockWidth``, ``B = ceil(inner / W)``) of each of the ``R`` lines, lines ``inner`` apart. A full
    tensor's range runs from the first task's first element to the last task's last one; a per-row output
    (one value per outer x inner position) and a per-row input likewise over ``o * inner + i``; the ``rows``
    input is read whole and a column sum written whole (by core 0, after combining every core's partial).
    A core without tasks owns nothing (an empty dict)."""
    spec = fn.spec.launched()
    comp = compute_of(spec)
    per_row = set(row_outputs(spec)) | set(comp.per_row_inputs)
    cols = set(column_outputs(spec))
    r, inner = tiling["reduceLen"], tiling["innerNum"]
    per, former = tiling["tasksPerCore"], tiling["tasksFormerNum"]
    first = core * per + min(core, former)
    count = per + (1 if core < former else 0)
    if count <= 0:
        return {}
    last = first + count - 1
    if tiling["mode"] == 0:
        full, row = (first * r, (last + 1) * r), (first, last + 1)
    else:
        width = tiling["blockWidth"]
        blocks = -(-inner // width)
        o0, b0 = divmod(first, blocks)
        o1, b1 = divmod(last, blocks)
        end = min((b1 + 1) * width, inner)
        full = (o0 * r * inner + b0 * width, o1 * r * inner + (r - 1) * inner + end)
        row = (o0 * inner + b0 * width, o1 * inner + end)
    return device_byte_ranges(
        spec,
        case.params["request"],
        lambda param: (
            (0, r)
            if param.source in comp.row_inputs or param.source in cols
            else (0, 1)  # the int_array's tensor (one element in the offset cases): never read
            if param.source == comp.rows_attr and comp.rows_attr
            else row
            if param.source in per_row
            else full
        ),
    )
