"""The elementwise API documentation's view entries: the status rows, the tiling paragraph and the
constraint lines (the example lines: :func:`codegen.plan.doc_lines.example_lines`)."""

from __future__ import annotations

from typing import Any

from codegen.families.elementwise.plan.columns import mixed_columns
from codegen.families.elementwise.plan.reduce import reduce_of
from codegen.families.elementwise.plan.tiling import tiling_decision
from codegen.families.elementwise.plan.variants import Variant, compute_of, optional_inputs
from codegen.families.elementwise.plan.view_records import DocColumn, ScalarDef, ShapeCheck
from codegen.plan.constraints import constraint_doc_lines
from codegen.plan.doc_lines import example_lines, product_tiling_line
from codegen.plan.doc_tables import StatusRow, format_rule_text, null_pointer_attrs, status_table
from codegen.spec.expr import to_source as unparse
from codegen.spec.model import Catalogue, DType, OpSpec, Product


def status_rows(spec: OpSpec, shape: ShapeCheck, max_rank: int) -> list[StatusRow]:
    """The return-status table: ``shape`` is the L2 shape check, ``max_rank`` the highest rank accepted."""
    output = spec.outputs[0]
    out_rule = "the broadcast shape" if shape.kind == "broadcast" else f"the shape of {shape.anchor}"
    epilogue = reduce_of(spec)
    if epilogue is not None:
        out_rule += f" for {epilogue.attr} {epilogue.none} (none) or not 0-d for the others"
    return status_table(
        ["A required tensor", *null_pointer_attrs(spec)],
        "A dtype not supported on this product, a rank above "
        f"{max_rank}, an attribute value outside its list, shapes that do not broadcast, "
        f"{output.name} not of {out_rule}, "
        f"or {format_rule_text(spec)}" + ("; a limit under Constraints." if spec.constraints else "."),
    )


def tiling_lines(spec: OpSpec, products: list[Product], variants: list[Variant], keys: list[DType]) -> list[str]:
    """The docs' tiling paragraph: the UB per element, queue depth and core split rule, the variants, and the
    tile of 2^24 elements of the first compute dtype (``keys[0]``) on each product."""
    compiled = variants[0].formula
    optional = optional_inputs(spec)
    lines = [
        f"Each core streams its range through UB in tiles; a tile needs, per element, one slot in each "
        f"input and output queue buffer plus the formula's fp32 temporaries "
        f"(FLOAT: {max(p.temps for p in compiled.programs(False))}, "
        f"16-bit: {max(p.temps for p in compiled.programs(True))}).",
        f"Queue depth {spec.tiling.buffer_num} (double buffering), capped per product by its queue buffers "
        "per position (selected by NpuArch).",
        f"Elements are split over cores in 32-byte blocks on one core per {spec.tiling.min_bytes_per_core} bytes "
        f"of output started (ceil(bytes / {spec.tiling.min_bytes_per_core}) cores, at most the product's vector "
        "cores and the number of blocks); the first `blocks % cores` cores take one block more.",
    ]
    if optional:
        lines.append(
            "A null optional input (" + ", ".join(t.name for t in optional) + ") selects a program compiled with its "
            "default in its place: the kernel neither reads nor buffers it (tiling key + "
            f"{len(keys)} per absent combination)."
        )
    for p in products:
        d = tiling_decision(spec, p, (1 << 24,), keys[0])
        lines.append(
            product_tiling_line(
                p,
                f"queue buffers {d.in_buffer_num}/{d.out_buffer_num} (in/out), {keys[0].name} tile "
                f"{d.tile_length} elements",
            )
        )
    return lines


def constraint_lines(spec: OpSpec, catalogue: Catalogue, shape: ShapeCheck) -> list[str]:
    """The docs' constraints: the shape rule, the optional inputs' defaults, empty tensors, determinism and
    the spec's limits."""
    return [
        shape.text,
        *(f"`{t.name}` may be null: every element is then {t.default:g}." for t in optional_inputs(spec)),
        "Empty tensors succeed and produce an empty output.",
        "Deterministic: every element is computed once.",
        *(f"Limit `{c.name}`: {line}" for c, line in zip(spec.constraints, constraint_doc_lines(spec, catalogue))),
    ]


def doc_parts(
    spec: OpSpec,
    catalogue: Catalogue,
    products: list[Product],
    variants: list[Variant],
    keys: list[DType],
    shape: ShapeCheck,
    max_rank: int,
) -> dict[str, Any]:
    """The view entries only the API documentation reads."""
    return {
        "status_rows": status_rows(spec, shape, max_rank),
        "constraint_lines": constraint_lines(spec, catalogue, shape),
        "tiling_lines": tiling_lines(spec, products, variants, keys),
        "example_lines": example_lines(spec),
        "scalar_defs": [ScalarDef(n, unparse(e)) for n, e in compute_of(spec).scalars],
        "column_names": (*spec.input_names, *(t.name for t in spec.outputs)),
        "mixed_columns": tuple(
            DocColumn(
                tuple(d.name for d in m.dtypes),
                ", ".join(p.name for p in products if p.name in m.column.combo.products),
                ", ".join(i.op for i in variants[0].formula.cases[0].columns[m.index].instructions),
            )
            for m in mixed_columns(spec)
        ),
    }
