"""Whether an elementwise op fits its products: the formula compiles and every product's UB holds one repeat
of every live buffer (the plan stage's ``validate``)."""

from __future__ import annotations

from codegen.families.elementwise.plan.columns import column_problem, mixed_columns
from codegen.families.elementwise.plan.tiling import FP32_BYTES, REPEAT_BYTES, buffer_nums
from codegen.families.elementwise.plan.variants import (
    budget_temps,
    column_budget_temps,
    compile_all,
    compute_dtypes,
    compute_of,
    integer_program_problem,
)
from codegen.plan.products import spec_products
from codegen.spec.errors import SpecError, SpecErrors
from codegen.spec.model import Catalogue, OpSpec, Product


def check_ub(spec: OpSpec, catalogue: Catalogue, products: list[Product]) -> None:
    """Raises when a product's UB cannot hold one repeat of every live buffer of ``spec`` (for any compute
    dtype and any optional-input combination): the generated tiling function would fail on it.

    Raises:
        SpecErrors: one error per such product: at the spec's ``tiling.ub_reserved_bytes`` when the buffers
            alone fit and the op's reservation takes the rest, else at the product's catalogue entry
            (``products[i].ub_bytes``), naming the op and the bytes it needs.
    """
    errors: list[SpecError] = []
    repeat = REPEAT_BYTES // FP32_BYTES
    for p in products:
        need = 0
        for v in compile_all(spec):
            n_in, n_out = len(v.present), len(spec.outputs)
            in_num, out_num = buffer_nums(spec, p, n_in)
            for dt in compute_dtypes(spec):
                temps = budget_temps(v.formula, dt)
                bpe = (n_in * in_num + n_out * out_num) * dt.itemsize + temps * FP32_BYTES
                need = max(need, bpe * repeat + spec.tiling.ub_reserved_bytes)
        for m in mixed_columns(spec):  # each mixed column's own widths and temporaries
            in_num, out_num = buffer_nums(spec, p, len(spec.inputs))
            widths = [d.itemsize for d in m.dtypes]
            n_in = len(spec.inputs)
            bpe = sum(widths[:n_in]) * in_num + sum(widths[n_in:]) * out_num
            bpe += column_budget_temps(compile_all(spec)[0].formula, m.index) * FP32_BYTES
            need = max(need, bpe * repeat + spec.tiling.ub_reserved_bytes)
        reserved = spec.tiling.ub_reserved_bytes
        if p.ub_bytes < need and reserved and p.ub_bytes >= need - reserved:
            # the buffers fit the product's UB; the op's own reservation leaves too little of it
            errors.append(
                SpecError(
                    spec.tiling.loc,
                    "tiling.ub_reserved_bytes",
                    f"ub_reserved_bytes {reserved} leaves {p.name} ({p.ub_bytes} bytes of UB) too little for one "
                    f"repeat ({repeat} elements) of every buffer ({need - reserved} bytes); reserve at most "
                    f"{p.ub_bytes - need + reserved} bytes",
                )
            )
        elif p.ub_bytes < need:
            index = catalogue.names.index(p.name) if p.name in catalogue.names else 0
            errors.append(
                SpecError(
                    p.loc,
                    f"products[{index}].ub_bytes",
                    f"UB of {p.name} ({p.ub_bytes} bytes) cannot hold one repeat ({repeat} elements) of every "
                    f"buffer of {spec.op} ({spec.path}): it needs at least {need} bytes "
                    f"(ub_reserved_bytes {spec.tiling.ub_reserved_bytes} included); raise ub_bytes or drop "
                    f"{p.name} from the op's products",
                )
            )
    if errors:
        raise SpecErrors(errors)


def validate(spec: OpSpec, catalogue: Catalogue) -> None:
    """Plan-time validation of ``spec`` on its products, before any view is built: the formula compiles
    (:func:`.variants.compile_all`) and every product's UB holds one repeat of every buffer (:func:`check_ub`).

    Raises:
        SpecErrors: a product's UB is too small (at its catalogue entry), or a mixed dtype column has no
            kernel (:func:`.columns.column_problem`, at the column).
        codegen.spec.errors.SpecError: the formula has no vector-instruction lowering, a reduce op's formula
            has a where on a host condition, or the spec lists an integer dtype its formula has no kernel for
            (:func:`.variants.integer_program_problem`, at the first required input's dtypes).
    """
    problem_column = column_problem(spec)
    if problem_column is not None:
        raise SpecErrors([problem_column])
    variants = compile_all(spec)
    compute = compute_of(spec)
    if compute.reduce is not None and any(len(v.formula.cases) > 1 for v in variants):
        (output, _), *_ = compute.outputs
        raise SpecError(
            compute.loc,
            f"compute.{output}",
            "a where on a host condition (attributes and scalars only) is not supported with a reduce "
            "epilogue; move the condition into a host scalar or a tensor comparison",
        )
    problem = integer_program_problem(spec)
    if problem:
        first = next(t for t in spec.inputs if not t.optional)
        raise SpecError(first.loc, f"inputs[{spec.inputs.index(first)}].dtypes", problem)
    check_ub(spec, catalogue, spec_products(spec, catalogue))
