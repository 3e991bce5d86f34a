"""The elementwise op_host unit-test cases: the tiling cases (expected values from the tiling rule) and the
InferShape cases."""

from __future__ import annotations

import numpy as np

from codegen.families.elementwise.plan.columns import mixed_columns
from codegen.families.elementwise.plan.reduce import REDUCE_KIND_NONE, reduce_kind
from codegen.families.elementwise.plan.shape import shape_rule
from codegen.families.elementwise.plan.tiling import tiling_decision
from codegen.families.elementwise.plan.variants import compute_dtypes, optional_inputs
from codegen.plan import unit_tests as ut
from codegen.spec.model import DType, OpSpec, Product

#: Output shapes of the op_host unit test: a few elements (one core), a row-major block that splits unevenly
#: over the cores, and 2^24 elements (every core, many tiles).
UT_SHAPES: tuple[tuple[int, ...], ...] = ((2, 3), (96, 1023), (1 << 24,))


def ut_tiling_cases(spec: OpSpec, products: list[Product]) -> list[ut.UtTilingCase]:
    """The op_host unit-test cases of an elementwise op (see :func:`codegen.plan.unit_tests.ut_tiling_view`):
    on each product, each shape of :data:`UT_SHAPES` in the first compute dtype, the 2^24 shape in every
    other compute dtype the product has, with optional inputs the first shape with all of them absent, and the
    2^24 shape in each mixed dtype column the product registers (:mod:`.columns`; its own tiling key).
    Every input gets the compute dtype where it lists it (else its first dtype); the expected tiling key,
    block dim, workspace bytes and tiling fields come from :func:`tiling_decision`."""
    dev = spec.device_interface
    keys = compute_dtypes(spec)
    optional = [t.name for t in optional_inputs(spec)]
    attrs = ut.ut_device_attrs(spec, ut.ut_attr_values(spec))
    cases: list[ut.UtTilingCase] = []
    for p in products:
        runs: list[tuple[tuple[int, ...], DType, tuple[str, ...]]] = [(s, keys[0], ()) for s in UT_SHAPES]
        runs += [(UT_SHAPES[-1], d, ()) for d in keys[1:] if p.supports(d)]
        if optional:
            runs.append((UT_SHAPES[0], keys[0], tuple(optional)))
        for shape, dtype, absent in runs:
            d = tiling_decision(spec, p, shape, dtype, absent)
            inputs = ut.ut_device_inputs(
                spec,
                {
                    t.name: ut.ut_tensor(None, None)
                    if t.name in absent
                    else ut.ut_tensor(shape, dtype if dtype in t.dtypes else t.dtypes[0])
                    for t in spec.inputs
                },
            )
            outputs = [ut.ut_tensor(shape, dtype) for _ in dev.outputs]
            dims = "x".join(str(n) for n in shape)
            cases.append(
                ut.ut_tiling_case(
                    p,
                    [dtype.name, dims, *(["no", *absent] if absent else [])],
                    f"{dtype.name} [{', '.join(map(str, shape))}]"
                    + (f", {', '.join(absent)} absent" if absent else ""),
                    inputs,
                    outputs,
                    attrs,
                    d,
                    deterministic=False,
                )
            )
        for m in mixed_columns(spec):  # each mixed column the product registers: its own key, the 2^24 shape
            if p.name not in m.column.combo.products:
                continue
            shape = UT_SHAPES[-1]
            *in_dtypes, out_dtype = m.dtypes
            d = tiling_decision(spec, p, shape, DType.FLOAT, column=m.index)
            inputs = ut.ut_device_inputs(
                spec, {t.name: ut.ut_tensor(shape, dt) for t, dt in zip(spec.inputs, in_dtypes, strict=True)}
            )
            names = [d_.name for d_ in m.dtypes]
            cases.append(
                ut.ut_tiling_case(
                    p,
                    ["column", *names, "x".join(str(n) for n in shape)],
                    f"mixed column {m.text} [{', '.join(map(str, shape))}]",
                    inputs,
                    [ut.ut_tensor(shape, out_dtype) for _ in dev.outputs],
                    attrs,
                    d,
                    deterministic=False,
                )
            )
    return cases


#: Input shapes of the broadcast infershape case, by position among the shape rule's arguments (cyclic).
UT_BROADCAST_SHAPES: tuple[tuple[int, ...], ...] = ((4, 1, 3), (5, 1), (3,))


def ut_infer_cases(spec: OpSpec) -> list[ut.UtInferCase]:
    """The infershape unit-test cases of an elementwise op: every input [2, 3] (output [2, 3]); for a
    ``broadcast(...)`` rule also its arguments of shapes :data:`UT_BROADCAST_SHAPES` (output NumPy's
    broadcast shape; the other inputs take that shape) and, with two or more arguments, [2, 3] against [3, 2]
    (InferShape fails). Inputs take the compute dtype where they list it; the output dtype is the compute
    dtype (of the input selecting the kernel)."""
    dev = spec.device_interface
    dtype = compute_dtypes(spec)[0]
    aclnn_attrs = ut.ut_attr_values(spec)
    attrs = ut.ut_device_attrs(spec, aclnn_attrs)
    kind, args = shape_rule(spec)
    # a reduce epilogue's mean or sum (under the test's attrs) infers a 0-d output
    reduced = reduce_kind(spec, aclnn_attrs) != REDUCE_KIND_NONE

    def tensors(shapes: dict[str, tuple[int, ...]], rest: tuple[int, ...]) -> list[ut.UtTensor]:
        return ut.ut_device_inputs(
            spec,
            {
                t.name: ut.ut_tensor(shapes.get(t.name, rest), dtype if dtype in t.dtypes else t.dtypes[0])
                for t in spec.inputs
            },
        )

    n_out = len(dev.outputs)
    same: tuple[int, ...] = () if reduced else (2, 3)
    cases = [ut.ut_infer_case("SameShapes", tensors({}, (2, 3)), attrs, [(same, dtype)] * n_out, "every input [2, 3]")]
    if kind == "broadcast":
        shapes = {a: UT_BROADCAST_SHAPES[i % len(UT_BROADCAST_SHAPES)] for i, a in enumerate(args)}
        want = tuple(int(d) for d in np.broadcast_shapes(*shapes.values()))
        note = ", ".join(f"{a} {list(s)}" for a, s in shapes.items())
        out_shape = () if reduced else want
        cases.append(ut.ut_infer_case("Broadcasts", tensors(shapes, want), attrs, [(out_shape, dtype)] * n_out, note))
        if len(args) >= 2:
            bad: dict[str, tuple[int, ...]] = {args[0]: (2, 3), args[1]: (3, 2)}
            cases.append(
                ut.ut_infer_case(
                    "RejectsShapesThatDoNotBroadcast",
                    tensors(bad, (2, 3)),
                    attrs,
                    None,
                    f"{args[0]} [2, 3], {args[1]} [3, 2]",
                )
            )
    return cases
