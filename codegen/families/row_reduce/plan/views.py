"""The views of a row-reduce op (the plan stage's ``build_views``): the family's entries, those several file
kinds read, then each kind's own, assembled with the shared ones into one frozen view per file kind by
:func:`codegen.plan.shared_views.family_views`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from codegen.families.row_reduce.plan.program import program
from codegen.families.row_reduce.plan.tensors import compute_of
from codegen.families.row_reduce.plan.tiling import WORK_ELEMS
from codegen.families.row_reduce.plan.validation import validate
from codegen.families.row_reduce.plan.view_kinds import VIEWS
from codegen.families.row_reduce.plan.views_aclnn import aclnn_parts
from codegen.families.row_reduce.plan.views_doc import doc_parts
from codegen.families.row_reduce.plan.views_host import dtype_keys, host_parts
from codegen.families.row_reduce.plan.views_kernel import kernel_parts
from codegen.families.row_reduce.plan.views_l0 import l0_parts
from codegen.families.row_reduce.plan.views_ut import ut_infer_cases, ut_tiling_cases
from codegen.plan.shared_views import family_views
from codegen.plan.views import OpViews
from codegen.spec.model import Catalogue, OpSpec, Product


def build_views(spec: OpSpec, catalogue: Catalogue) -> OpViews:
    """Every template view of a row-reduce op (:data:`view_kinds.VIEWS` and the shared ones).

    Raises:
        TypeError, ValueError: as :func:`validation.validate`.
    """
    validate(spec.launched(), catalogue)
    return family_views(
        spec,
        catalogue,
        VIEWS,
        _family_parts,
        lambda s, products: ut_tiling_cases(s.launched(), products),
        lambda s: ut_infer_cases(s.launched()),
    )


def _family_parts(spec: OpSpec, catalogue: Catalogue, common: Mapping[str, Any]) -> dict[str, Any]:
    """The row-reduce view entries of a validated op by name, beside the ``common`` ones every family shares
    (:data:`codegen.plan.shared_views.FamilyParts`). Every part but the L2 API's checks plans over the
    device op's inputs (:meth:`OpSpec.launched`: no host input)."""
    products: list[Product] = common["products"]
    host = spec.host_input_names
    dfx_in = ", ".join([*spec.input_names, *([compute_of(spec).dim] if compute_of(spec).dim else [])])
    spec = spec.launched()
    prog = program(spec)
    parts = _shared_parts(spec, products)
    parts["l0_dfx_in"], parts["dfx_in"] = parts["dfx_in"], dfx_in
    parts["l0_input_names"] = spec.input_names
    parts.update(l0_parts(spec, products))
    parts.update(aclnn_parts(spec, products, host))
    parts.update(host_parts(spec, prog, products))
    parts.update(kernel_parts(spec, products, prog))
    parts.update(doc_parts(spec, products, prog, catalogue))
    return parts


def _shared_parts(spec: OpSpec, products: list[Product]) -> dict[str, Any]:
    """The view entries several file kinds read: the dim attr or rows input, the first input, the DFX input
    list, the steps' text, the tiling keys and the reduce work buffer's elements."""
    comp = compute_of(spec)
    return {
        "dim_attr": comp.dim,
        "rows_input": comp.rows or "",
        "rows_attr": comp.rows_attr,
        # the count of reduced dims as the C++ of ``rows_input`` reads it (a tensor's dim(), an array's Size())
        "rows_len": "Size()" if comp.rows_attr else "dim()",
        "row_inputs_text": ", ".join(f"`{n}`" for n in comp.row_inputs) or "no input",
        "row_inputs_n": len(comp.row_inputs),
        "first_input": spec.inputs[0].name,
        "dfx_in": ", ".join([*spec.input_names, *([comp.dim] if comp.dim else [])]),
        "steps_text": [
            f"{s.name} = {_call_text(s.reduction or ('colsum' if s.column else ''), str(s.expr))}" for s in comp.steps
        ],
        "dtype_keys": dtype_keys(spec, products),
        "work_elems": WORK_ELEMS,
    }


def _call_text(func: str, arg: str) -> str:
    """``func(arg)``, or ``arg`` when ``func`` is empty (an elementwise step)."""
    return f"{func}({arg})" if func else arg
