"""The op_host unit-test cases of a row-reduce op: tiling cases at the layouts' boundaries on every
product and the infershape case, with expected values from the planner."""

from __future__ import annotations

from dataclasses import replace

from codegen.families.row_reduce.plan.tensors import column_outputs, combos, compute_of, row_outputs
from codegen.families.row_reduce.plan.tiling import tiling_decision
from codegen.plan import unit_tests as ut
from codegen.spec.model import DeviceColumn, DeviceTensor, DtypeCombo, OpSpec, Product

#: op_host unit-test cases: (shape, dim): rows that fit, a chunked row, a non-last dim.
UT_CASES: tuple[tuple[tuple[int, ...], int], ...] = (((8, 100), -1), ((2, 100000), 1), ((4, 33, 5), 1))


def ut_tiling_cases(spec: OpSpec, products: list[Product]) -> list[ut.UtTilingCase]:
    """The op_host unit-test tiling cases: every :data:`UT_CASES` entry on every product with the product's
    first dtype combination (per-row outputs of the reduced shape); expected key, block dim and fields from
    :func:`tiling.tiling_decision`, and with nullable outputs ``writeMask`` with every bit set (the cases
    pass every output). On a product registering a column with an int_array carrier in another dtype than
    the L0 API sends (:attr:`DeviceColumn.arrays`), the first such column's tensors with the first entry's
    shape: its tiling key is that of the launched column of its other dtypes."""
    comp = compute_of(spec)
    dev = spec.device_interface
    mask = [ut.UtField("writeMask", (1 << len(spec.outputs)) - 1)] if any(t.nullable for t in spec.outputs) else []
    cases: list[ut.UtTilingCase] = []
    for p in products:
        combo = next((c for c in combos(spec) if c.allowed_on(p)), None)
        if combo is None:
            continue
        calls: list[tuple[DtypeCombo, DeviceColumn | None, tuple[int, ...], int]] = [
            (combo, None, shape, dim) for shape, dim in UT_CASES
        ]
        twin = next((c for c in dev.columns if c.arrays and c.combo.allowed_on(p)), None)
        if twin is not None:  # tiled as the launched column of its other dtypes
            calls.append((next(c for c in combos(spec) if c.dtypes == twin.combo.dtypes), twin, *UT_CASES[0]))
        for combo, column, shape, dim in calls:
            dtype = combo.dtype(spec.inputs[0].name)
            arrays: list[str] = [] if column is None else [f"{n}_{d.name}" for n, d in column.arrays]
            d = tiling_decision(spec, p, shape, dim, combo)
            values = ut.ut_attr_values(spec)
            if comp.dim:
                values[comp.dim] = dim
            cases.append(
                ut.ut_tiling_case(
                    p,
                    [dtype.name, *arrays, "x".join(map(str, shape)), f"dim{dim}".replace("-", "m")],
                    f"{combo.text if spec.dtype_combos else dtype.name}{''.join(f', {a}' for a in arrays)} "
                    f"{list(shape)}, dim {dim}",
                    [_ut_input(spec, d_in, shape, combo, column) for d_in in dev.inputs],
                    [
                        ut.ut_tensor(_ut_output_shape(spec, d_out.source or "", shape), combo.dtype(d_out.source or ""))
                        for d_out in dev.outputs
                    ],
                    ut.ut_device_attrs(spec, values),
                    d,
                    deterministic=False,
                )
            )
            cases[-1] = replace(cases[-1], fields=cases[-1].fields + tuple(mask))
    return cases


def ut_infer_cases(spec: OpSpec) -> list[ut.UtInferCase]:
    """The infershape unit-test case: the output has the first input's shape and dtype."""
    comp = compute_of(spec)
    dev = spec.device_interface
    combo = combos(spec)[0]
    values = ut.ut_attr_values(spec)
    if comp.dim:
        values[comp.dim] = -1
    shape = (4, 5, 8)
    first = spec.inputs[0].name
    return [
        ut.ut_infer_case(
            "SameShape",
            [_ut_input(spec, d, shape, combo) for d in dev.inputs],
            ut.ut_device_attrs(spec, values),
            [(_ut_output_shape(spec, d.source or first, shape), combo.dtype(d.source or first)) for d in dev.outputs],
            f"{list(shape)}, dim -1",
        )
    ]


def _ut_input(
    spec: OpSpec, d: DeviceTensor, shape: tuple[int, ...], combo: DtypeCombo, column: DeviceColumn | None = None
) -> ut.UtTensor:
    """The unit-test tensor of device input ``d`` for a call reducing the last dim of ``shape``: the first
    input's shape, a rows input's the last dim, and the 1-d tensor of an int_array attr its one element (of
    its dtype in ``column`` when given, else the one the L0 API sends)."""
    array_dtype = d.dtype if column is None else column.array_dtype(d)
    if array_dtype is not None:
        return ut.ut_tensor((1,), array_dtype)
    name = d.source or spec.inputs[0].name
    comp = compute_of(spec)
    if name in comp.per_row_inputs:  # one value per row
        return ut.ut_tensor((*shape[:-1], 1), combo.dtype(name))
    return ut.ut_tensor(shape[-1:] if name in comp.row_inputs else shape, combo.dtype(name))


def _ut_output_shape(spec: OpSpec, name: str, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The shape of output ``name`` for a call reducing the last dim of ``shape``: one value per row, the last
    dim (a column sum), else ``shape``."""
    if name in row_outputs(spec):
        return (*shape[:-1], 1)
    return shape[-1:] if name in column_outputs(spec) else shape
