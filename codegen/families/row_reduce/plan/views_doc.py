"""The row-reduce API documentation's view entries (``docs/<aclnn>.md``): its status table, constraints and
tiling notes (the example lines: :func:`codegen.plan.doc_lines.example_lines`)."""

from __future__ import annotations

from typing import Any

from codegen.families.row_reduce.plan.program import Program
from codegen.families.row_reduce.plan.tensors import compute_of, row_outputs
from codegen.plan.constraints import constraint_doc_lines
from codegen.plan.doc_lines import example_lines
from codegen.plan.doc_tables import StatusRow, format_rule_text, null_pointer_attrs, status_row, status_table
from codegen.spec.model import Catalogue, OpSpec, Product
from codegen.types import AclnnStatus


def _names(names: list[str] | tuple[str, ...]) -> str:
    """``a``, ``a and b``, ``a, b and c``: tensor names for the generated doc."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def doc_parts(spec: OpSpec, products: list[Product], prog: Program, catalogue: Catalogue) -> dict[str, Any]:
    """The view entries only the API documentation reads (:class:`view_kinds.DocView`), by name, for ``spec`` on
    ``products`` (of ``catalogue``) with its planned computation ``prog``."""
    return {
        "example_lines": example_lines(spec),
        "status_rows": status_rows(spec),
        "constraint_lines": [
            *constraint_lines(spec, products),
            *(f"Limit `{c.name}`: {line}" for c, line in zip(spec.constraints, constraint_doc_lines(spec, catalogue))),
        ],
        "tiling_lines": tiling_lines(prog),
    }


def status_rows(spec: OpSpec) -> list[StatusRow]:
    """The doc's status table: success, null pointers, invalid parameters (dtypes, and shapes when the spec's
    ``shape_status`` is 161002), the spec's own shape status when it is another, and the tiling error."""
    comp = compute_of(spec)
    first = spec.inputs[0]
    per_row = row_outputs(spec)
    # CANN's row ops (e.g. activation/softmax_v2/op_api/aclnn_softmax.cpp) require one dtype of the inputs only;
    # the output may take any listed dtype: the device op's result is cast to it (l0op::Cast).
    same_dtype_text = f" or {_names(spec.input_names)} of different dtypes" if len(spec.inputs) > 1 else ""
    dtype_text = (
        "A dtype not supported on this product, or tensor dtypes that are not one of the product's dtype "
        "combinations (see Constraints)"
        if spec.dtype_combos
        else f"A dtype not supported on this product{same_dtype_text}"
    )
    shape_text = f"a rank above {first.rank[1]}; shapes " + (
        f"that differ; `{comp.dim}` outside [-rank, rank) ([-1, 0] for a 0-d tensor)"
        if comp.dim
        else f"that differ from `{first.name}`'s; `{comp.rows}` longer than `{first.name}`'s rank, holding 0, or "
        f"not equal to `{first.name}`'s last dims"
        + "".join(f"; `{n}` not of the shape `{comp.rows}` gives" for n in comp.row_inputs)
        if comp.rows_attr
        else f"that differ from `{first.name}`'s; `{comp.rows}` of rank 0 or above `{first.name}`'s, empty, or not "
        f"of the shape of `{first.name}`'s last `{comp.rows}.dim()` dims"
        + "".join(f"; `{n}` not of `{comp.rows}`'s shape" for n in comp.row_inputs[1:])
        + "".join(f"; `{n}` not of `{first.name}`'s shape with those dims set to 1" for n in per_row)
    )
    invalid = f"{dtype_text}; "
    if spec.shape_status == int(AclnnStatus.ACLNN_ERR_PARAM_INVALID):
        invalid += f"{shape_text}; "
    tiling_text = "The tiling function failed."
    more: list[StatusRow] = []
    if spec.shape_status == int(AclnnStatus.ACLNN_ERR_INNER_TILING_ERROR):
        tiling_text = f"{shape_text[0].upper()}{shape_text[1:]}; the tiling function failed."
    elif spec.shape_status != int(AclnnStatus.ACLNN_ERR_PARAM_INVALID):
        more.append(status_row(AclnnStatus(spec.shape_status), f"{shape_text[0].upper()}{shape_text[1:]}."))
    return status_table(
        [
            *(t.name for t in spec.inputs if not t.optional),
            *(t.name for t in spec.outputs if not t.nullable),
            *null_pointer_attrs(spec),
        ],
        f"{invalid}{format_rule_text(spec)}.",
        more=more,
        tiling_failed=tiling_text,
    )


def constraint_lines(spec: OpSpec, products: list[Product]) -> list[str]:
    """The doc's constraints: the tensors' shapes and dtypes (``dim`` or ``rows`` form), each dtype
    combination with the products taking it, and empty tensors."""
    comp = compute_of(spec)
    first = spec.inputs[0]
    per_row = row_outputs(spec)
    out_names = _names(spec.output_names)
    return [
        f"All tensors have the same shape{'; the inputs have one dtype' if len(spec.inputs) > 1 else ''}; "
        f"{out_names} may take any of its listed dtypes, not only {first.name}'s: "
        + (
            f"{_names(spec.input_names)} {'is' if len(spec.inputs) == 1 else 'are'} cast to it first and the "
            "result computed in it"
            if spec.promote_type == "out"
            else f"the result, computed in {first.name}'s dtype, is cast to it"
        )
        + f"; `{comp.dim}` is in [-rank, rank)."
        if comp.dim
        else ("Tensor dtypes as listed below" if spec.dtype_combos else "Tensor dtypes as the dtype table lists them")
        + f"; `{comp.rows}` gives the sizes of `{first.name}`'s last dims (1 to its rank), which are reduced as "
        "one row"
        + "".join(f"; `{n}` has the shape `{comp.rows}` gives" for n in comp.row_inputs)
        + "".join(f"; `{n}` has one value per row: `{first.name}`'s shape with those dims set to 1" for n in per_row)
        + "."
        if comp.rows_attr
        else ("Tensor dtypes as listed below" if spec.dtype_combos else "All tensors have the same dtype")
        + f"; every tensor but `{comp.rows}`"
        + "".join(f" and `{n}`" for n in (*comp.row_inputs[1:], *per_row))
        + f" has the shape of `{first.name}`; `{comp.rows}` has the shape of `{first.name}`'s last "
        f"`{comp.rows}.dim()` dims (1 to the rank of `{first.name}`), which are reduced as one row"
        + "".join(f"; `{n}` has the shape of `{comp.rows}`" for n in comp.row_inputs[1:])
        + "".join(f"; `{n}` has one value per row: `{first.name}`'s shape with those dims set to 1" for n in per_row)
        + ".",
        *(
            f"Dtype combination ({c.text}) on {', '.join(p.name for p in products if c.allowed_on(p))}."
            for c in spec.dtype_combos
            if any(c.allowed_on(p) for p in products)
        ),
        *(
            f"`{t.name}` may be null: every element is then {t.default:g} (the kernel never reads it)."
            for t in spec.inputs
            if t.optional and t.default is not None
        ),
        *(
            f"`{t.name}` may be null: it is then not produced (the kernel writes none of it)."
            for t in spec.outputs
            if t.nullable
        ),
        "Empty tensors give an empty output.",
    ]


def tiling_lines(prog: Program) -> list[str]:
    """The doc's tiling notes: int64 sizes, the ``[outer, R, inner]`` layouts with the passes of ``prog``, and
    the split over cores."""
    return [
        "Every size in the tiling is int64.",
        "Tensors are viewed as `[outer, R, inner]` around the reduced dim. With `inner` = 1 whole rows are "
        "loaded per tile when they fit UB (read once), else each row is cut into chunks of a multiple of 64 "
        f"elements and read once per pass ({prog.pass_num} reduction pass(es) + the output pass). With `inner` > "
        "1 a task is a block of inner positions (a multiple of 16) whose R lines are reduced line by line.",
        "Cores: rows (or outer x inner blocks) split evenly over at most coreNum cores; a row is never split "
        "across cores, so results are bit-identical for every run.",
    ]
