"""The status cases of a row-reduce op: null pointers, dtypes outside the product's lists or combinations,
rejected formats, shapes and ranks, a dim out of range, and the rows input of a wrong shape."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from codegen.check.cases import ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR, Case
from codegen.check.status_matrix import format_cases
from codegen.families.row_reduce.cases.outputs import infer_outputs
from codegen.families.row_reduce.plan.tensors import callable_combos, compute_of, default_combo, row_dtypes
from codegen.runner import numpy_dtype
from codegen.spec.model import DType, OpSpec, Product, fixed_inputs


def good_call(spec: OpSpec, product: Product, dt: DType, rng: np.random.Generator) -> dict[str, Any]:
    """The parameters of a call the L2 API accepts, in the first-input dtype ``dt``'s default combination on
    ``product``: inputs ``[4, 16]`` (a rows input ``[16]``, a per-row input ``[4, 1]``), the rows array or dim
    attr, zeroed outputs of the shapes the spec's rules give."""
    comp = compute_of(spec)
    inputs = spec.input_names
    combo = default_combo(spec, dt, product)
    good: dict[str, Any] = {n: rng.standard_normal((4, 16)).astype(numpy_dtype(combo.dtype(n))) for n in inputs}
    for n in comp.row_inputs:
        good[n] = rng.standard_normal((16,)).astype(numpy_dtype(combo.dtype(n)))
    for n in comp.per_row_inputs:  # one value per row of x [4, 16]
        good[n] = rng.uniform(0.01, 1.0, (4, 1)).astype(numpy_dtype(combo.dtype(n)))
    if comp.rows_attr:
        good[comp.rows_attr] = (16,)
    if not comp.rows:
        good[comp.dim] = -1
    allocated = infer_outputs(spec, {n: good[n] for n in inputs}, {n: v for n, v in good.items() if n not in inputs})
    good.update({n: np.zeros(a.shape, a.dtype) for n, a in allocated.items()})
    return good


def status_cases(spec: OpSpec, product: Product, dt: DType, rng: np.random.Generator) -> Iterator[Case]:
    """Null pointers (161001), dtypes outside the product's lists or combinations (161002), each tensor in
    each device-private format it does not declare (161002), shapes and ranks
    (the spec's ``shape_status``; 161002 unless declared), a dim out of range (161002); on a call that is
    accepted otherwise (x ``[4, 16]``; in the ``rows`` form the rows input ``[16]``)."""
    comp = compute_of(spec)
    op = spec.snake
    inputs = spec.input_names
    outs = spec.output_names
    out = outs[0]
    shape_st = spec.shape_status
    npdt = numpy_dtype(dt)
    good = good_call(spec, product, dt, rng)
    row_ins = comp.row_inputs
    per_row = [n for n in outs if good[n].shape != good[inputs[0]].shape]

    def status(name: str, code: int, params: dict[str, Any], mode: str | None = None) -> Case:
        return Case(op, product.name, dt.name, "error", name, {**good, **params}, expect_status=code, mode=mode)

    # null is a call of its own (null_outputs)
    nullable = {t.name for t in spec.outputs if t.nullable} | {t.name for t in spec.inputs if t.optional}
    for n in [*inputs, *outs]:
        if n not in nullable:
            yield status(f"null {n} -> 161001", ACLNN_ERR_PARAM_NULLPTR, {n: None})
        elif comp.output_mask and n in outs:  # an output its mask entry asks for must be given
            every = tuple(True for _ in outs)
            yield status(
                f"null {n} with its {comp.output_mask} entry true -> 161001",
                ACLNN_ERR_PARAM_NULLPTR,
                {n: None, comp.output_mask: every},
            )
    yield status("null workspaceSize -> 161001", ACLNN_ERR_PARAM_NULLPTR, {}, "null_workspace_size")
    yield status("null executor -> 161001", ACLNN_ERR_PARAM_NULLPTR, {}, "null_executor")
    yield status(
        "null workspaceSize and executor -> 161001", ACLNN_ERR_PARAM_NULLPTR, {}, "null_workspace_size_and_executor"
    )
    yield status("phase 2 twice -> 161002", ACLNN_ERR_PARAM_INVALID, {}, "phase2_twice")
    if comp.rows_attr:
        g = comp.rows_attr
        for what, value in {
            "not the last dim": (4,),
            "the first dims": (4, 1),
            "longer than x's rank": (1, 4, 16),
        }.items():
            yield status(f"{g} {what} -> {shape_st}", shape_st, {g: value})
        for n in row_ins:
            yield status(f"{n} not of {g}'s shape -> {shape_st}", shape_st, {n: np.ones((8,), good[n].dtype)})
        # a row of no element: every tensor empty alike, the array holding 0
        empty = {n: np.zeros((4, 0), good[n].dtype) for n in inputs if n not in row_ins}
        empty.update({n: np.zeros((0,), good[n].dtype) for n in row_ins})
        empty.update({n: np.zeros((4, 1 if n in per_row else 0), good[n].dtype) for n in outs})
        yield status(f"{g} holding 0 -> {shape_st}", shape_st, {**empty, g: (0,)})
        for n in per_row:
            yield status(f"{n} of x's shape -> {shape_st}", shape_st, {n: np.zeros((4, 16), good[n].dtype)})
            yield status(f"{n} of 1 dim -> {shape_st}", shape_st, {n: np.zeros((4,), good[n].dtype)})
    elif comp.rows:
        g = comp.rows
        gdt = good[g].dtype
        bad_g = {
            "not the last dim's shape": np.ones((4,), gdt),
            "of the first dim's shape": np.ones((4, 1), gdt),
            "of rank above x's": np.ones((1, 4, 16), gdt),
            "0-d": np.asarray(1.0, gdt),
        }
        for what, arr in bad_g.items():
            yield status(f"{g} {what} -> {shape_st}", shape_st, {g: arr})
        # every input but the rows ones empty alike, so only the rows inputs' emptiness is wrong
        empty = {n: np.zeros((4, 0), good[n].dtype) for n in inputs if n not in row_ins}
        empty.update({n: np.zeros((0,), good[n].dtype) for n in row_ins})
        empty.update({n: np.zeros((4, 1 if n in per_row else 0), good[n].dtype) for n in outs})
        yield status(f"{g} empty -> {shape_st}", shape_st, empty)
        for n in row_ins[1:]:  # of the rank of the first rows input, not its shape
            yield status(f"{n} not of {g}'s shape -> {shape_st}", shape_st, {n: np.ones((8,), good[n].dtype)})
        for n in per_row:
            yield status(f"{n} of x's shape -> {shape_st}", shape_st, {n: np.zeros((4, 16), good[n].dtype)})
            yield status(f"{n} of 1 dim -> {shape_st}", shape_st, {n: np.zeros((4,), good[n].dtype)})
    else:
        for bad in (2, -3, 100):
            yield status(f"dim {bad} out of range -> 161002", ACLNN_ERR_PARAM_INVALID, {comp.dim: bad})
        yield status(
            "0-d tensor, dim 1 -> 161002",
            ACLNN_ERR_PARAM_INVALID,
            {**{n: np.asarray(1.0, dtype=npdt) for n in inputs}, out: np.zeros((), npdt), comp.dim: 1},
        )
    yield from _dtype_status_cases(spec, product, good, status)
    yield from format_cases(spec, product, good, dt.name)
    yield status("int32 input -> 161002", ACLNN_ERR_PARAM_INVALID, {inputs[0]: np.zeros((4, 16), np.int32)})
    yield status("int32 out -> 161002", ACLNN_ERR_PARAM_INVALID, {out: np.zeros(good[out].shape, np.int32)})
    if not spec.dtype_combos:  # with dtype_combos the outputs' dtypes are cases of _dtype_status_cases
        for missing in [d for d in row_dtypes(spec) if not product.supports(d)][:1]:
            yield status(
                f"out {missing.name} (not on {product.name}) -> 161002",
                ACLNN_ERR_PARAM_INVALID,
                {out: np.zeros(good[out].shape, numpy_dtype(missing))},
            )
    yield status(f"wrong out shape -> {shape_st}", shape_st, {out: np.zeros((4, 9), good[out].dtype)})
    same = [n for n in inputs[1:] if n not in row_ins and n not in comp.per_row_inputs]
    if same:
        yield status(f"input shapes differ -> {shape_st}", shape_st, {same[0]: np.zeros((4, 9), npdt)})
    for n in comp.per_row_inputs:  # its element count is not the rows' count
        yield status(f"{n} of x's shape -> {shape_st}", shape_st, {n: np.zeros((4, 16), good[n].dtype)})
    nine = (1,) * 8 + (2,)
    yield status(
        f"rank 9 -> {shape_st}",
        shape_st,
        {
            **{n: np.zeros(nine, good[n].dtype) for n in inputs if n not in row_ins and n not in comp.per_row_inputs},
            **{n: np.zeros((*nine[:-1], 1), good[n].dtype) for n in comp.per_row_inputs},
            **{n: np.zeros((*nine[:-1], 1) if n in per_row else nine, good[n].dtype) for n in outs},
            **{n: np.zeros((2,), good[n].dtype) for n in row_ins},
            **({comp.rows_attr: (2,)} if comp.rows_attr else {}),
        },
    )
    # below the spec's lowest rank: every tensor of the first input's shape one dim short of it
    low = max(t.rank[0] for t in (*spec.inputs, *spec.outputs) if t.name not in row_ins)
    if low > 0:
        short = (2,) * (low - 1)
        yield status(
            f"rank {low - 1} (below {low}) -> {shape_st}",
            shape_st,
            {
                **{n: np.zeros(short, good[n].dtype) for n in inputs if n not in row_ins},
                **{n: np.zeros(short, good[n].dtype) for n in outs},
                **({n: np.zeros((2,), good[n].dtype) for n in row_ins} if comp.rows else {comp.dim: -1}),
                **({comp.rows_attr: (2,)} if comp.rows_attr else {}),
            },
        )


def _dtype_status_cases(spec: OpSpec, product: Product, good: dict[str, Any], status: Any) -> Iterator[Case]:
    """161002 for tensor dtypes the product does not take together: a second input of another float dtype
    (the combination of the inputs is not allowed on ``product``; for an input cast to its one device dtype,
    one outside its ``dtypes``), and with ``dtype_combos`` each output of
    another float dtype."""
    inputs = spec.input_names
    allowed = callable_combos(spec, product)
    floats = [d for d in (DType.FLOAT, DType.FLOAT16, DType.BF16) if product.supports(d)]
    first_dt = next(c.dtype(inputs[0]) for c in allowed if numpy_dtype(c.dtype(inputs[0])) == good[inputs[0]].dtype)
    # an input of one dtype in every device column is cast to it: any of its dtypes goes with any call
    fixed = fixed_inputs(spec.device_interface.launched_columns, spec.inputs)
    for n in inputs[1:]:
        for d in floats:
            if n in fixed and d in spec.tensor(n).dtypes:
                continue
            trial = {
                m: (d if m == n else next(c.dtype(m) for c in allowed if c.dtype(inputs[0]) is first_dt))
                for m in inputs
            }
            if any(all(c.dtype(m) is trial[m] for m in inputs) for c in allowed):
                continue
            arr = np.asarray(good[n]).astype(numpy_dtype(d))
            yield status(f"{n} {d.name} with {inputs[0]} {first_dt.name} -> 161002", ACLNN_ERR_PARAM_INVALID, {n: arr})
            break
    if spec.dtype_combos:
        for n in spec.output_names:
            taken = {c.dtype(n) for c in allowed if c.dtype(inputs[0]) is first_dt}
            other = next((d for d in floats if d not in taken), None)
            if other is not None:
                arr = np.zeros(good[n].shape, numpy_dtype(other))
                yield status(f"{n} {other.name} -> 161002", ACLNN_ERR_PARAM_INVALID, {n: arr})
