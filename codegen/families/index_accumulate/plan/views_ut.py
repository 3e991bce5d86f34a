"""The op_host unit-test cases of an index-accumulate op: the tiling cases and the infershape cases."""

from __future__ import annotations

from codegen.families.index_accumulate.plan.roles import compute_of, index_dtypes, row_dtypes
from codegen.families.index_accumulate.plan.sync_counters import SYNC_INTS
from codegen.families.index_accumulate.plan.tiling import tiling_decision
from codegen.plan import unit_tests as ut
from codegen.spec.model import DType, OpSpec, Product

#: Cases of the op_host unit test: (rows shape [..., D], number of output rows, padding row, count scaling,
#: deterministic). A small atomic call, a deterministic call with padding and count scaling whose D is not a
#: whole accumulator block, and a large atomic call that spreads over every core.
UT_CASES: tuple[tuple[tuple[int, ...], int, int, bool, bool], ...] = (
    ((4, 5, 8), 7, -1, False, False),
    ((64, 1000), 5000, 3, True, True),
    ((4096, 1024), 100000, -1, False, False),
)


def ut_tiling_cases(spec: OpSpec, products: list[Product]) -> list[ut.UtTilingCase]:
    """The op_host unit-test cases of an index-accumulate op (see :func:`codegen.plan.unit_tests.ut_tiling_view`):
    every :data:`UT_CASES` entry on every product, with the first rows dtype and the widest index dtype
    (INT64 when listed, else the first), plus the first case with the second rows dtype the product has and
    INT32 indices when listed. The expected tiling key, block dim, workspace bytes (system workspace
    included) and tiling fields come from :func:`tiling_decision` (which falls back to the deterministic
    plan on a product without hardware SyncAll)."""
    comp = compute_of(spec)
    dev = spec.device_interface
    grads, idxs = row_dtypes(spec), index_dtypes(spec)
    wide = DType.INT64 if DType.INT64 in idxs else idxs[0]
    narrow = DType.INT32 if DType.INT32 in idxs else idxs[0]
    out_t = spec.tensor(comp.accumulate)
    out_dtype = DType.FLOAT if DType.FLOAT in out_t.dtypes else out_t.dtypes[0]
    cases: list[ut.UtTilingCase] = []
    for p in products:
        runs = [(c, grads[0], wide) for c in UT_CASES]
        runs += [(UT_CASES[0], g, narrow) for g in grads[1:2] if p.supports(g)]
        for (shape, rows, pad, scale, det), grad_dtype, index_dtype in runs:
            d = tiling_decision(spec, p, shape, rows, grad_dtype, index_dtype, det, pad, scale)
            n = d.num_indices
            by_source = {comp.rows: ut.ut_tensor(shape, grad_dtype), comp.index: ut.ut_tensor((n,), index_dtype)}
            values = ut.ut_attr_values(spec)
            values[comp.num_rows] = rows
            if comp.padding:
                values[comp.padding] = pad
            if comp.count_scaling:
                values[comp.count_scaling] = scale
            dims = "x".join(str(x) for x in shape)
            cases.append(
                ut.ut_tiling_case(
                    p,
                    [grad_dtype.name, index_dtype.name, dims, rows, d.strategy],
                    f"{comp.rows} {grad_dtype.name} [{', '.join(map(str, shape))}], {comp.index} "
                    f"{index_dtype.name} [{n}], {rows} rows, padding {pad}, scaling {scale}, "
                    f"{'deterministic' if det else 'atomic'} requested",
                    ut.ut_device_inputs(spec, by_source),
                    [
                        *(ut.ut_tensor((rows, shape[-1]), out_dtype) for _ in dev.outputs),
                        ut.ut_tensor((SYNC_INTS,), DType.INT32),
                    ],
                    ut.ut_device_attrs(spec, values),
                    d,
                    deterministic=det,
                )
            )
    return cases


def ut_infer_cases(spec: OpSpec) -> list[ut.UtInferCase]:
    """The infershape unit-test cases of an index-accumulate op: rows [4, 5, 8] with 20 indices into 7 rows
    (output [7, 8]), rows [3, 16] with 3 indices into 0 rows (output [0, 16]), both FLOAT (the family writes
    fp32 sums; the L2 API casts them to the output's dtype), and a negative row count (InferShape fails)."""
    comp = compute_of(spec)
    dev = spec.device_interface
    grads, idxs = row_dtypes(spec), index_dtypes(spec)
    index_dtype = DType.INT64 if DType.INT64 in idxs else idxs[0]
    out: list[ut.UtInferCase] = []
    for name, shape, rows in (
        ("Rows", (4, 5, 8), 7),
        ("ZeroRows", (3, 16), 0),
        ("RejectsNegativeRowCount", (2, 3), -5),
    ):
        n = 1
        for dim in shape[:-1]:
            n *= dim
        by_source = {comp.rows: ut.ut_tensor(shape, grads[0]), comp.index: ut.ut_tensor((n,), index_dtype)}
        values = ut.ut_attr_values(spec)
        values[comp.num_rows] = rows
        out_shape: tuple[int, ...] = (rows, shape[-1])
        expected = [(out_shape, DType.FLOAT)] * len(dev.outputs) + [((SYNC_INTS,), DType.INT32)] if rows >= 0 else None
        out.append(
            ut.ut_infer_case(
                name,
                ut.ut_device_inputs(spec, by_source),
                ut.ut_device_attrs(spec, values),
                expected,
                f"{comp.rows} {list(shape)}, {comp.index} [{n}], {rows} rows",
            )
        )
    return out
