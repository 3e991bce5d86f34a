"""The views of a row-reduce op assembled: the common entries, the entries several file kinds read, each
kind's own entries, the ops-nn and unit-test entries, into one frozen view per file kind."""

from __future__ import annotations

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
from codegen.plan.common_view import common_view
from codegen.plan.ops_nn import ops_nn_view
from codegen.plan.shared_views import op_views
from codegen.plan.unit_tests import ut_tiling_view
from codegen.plan.views import OpViews
from codegen.spec.model import Catalogue, OpSpec, Product


def build_views(spec: OpSpec, catalogue: Catalogue) -> OpViews:
    """Every template view of a row-reduce op (:data:`view_kinds.VIEWS` and the shared ones).

    Raises:
        TypeError, ValueError: as :func:`validation.validate`.
    """
    return op_views(spec, catalogue, _view_parts(spec, catalogue), VIEWS)


def _view_parts(spec: OpSpec, catalogue: Catalogue) -> dict[str, Any]:
    """The view entries of a row-reduce op by name (see :func:`codegen.plan.common_view.common_view`).

    Raises:
        TypeError, ValueError: as :func:`validation.validate`.
    """
    validate(spec, catalogue)
    view = common_view(spec, catalogue)
    products: list[Product] = view["products"]
    prog = program(spec)
    view.update(_shared_parts(spec, products))
    view.update(l0_parts(spec))
    view.update(aclnn_parts(spec, catalogue, products))
    view.update(host_parts(spec, prog))
    view.update(kernel_parts(spec, products, prog))
    view.update(doc_parts(spec, products, prog))
    view.update(ops_nn_view(spec, products, view["opdef"]))
    view.update(ut_tiling_view(spec, ut_tiling_cases(spec, products), ut_infer_cases(spec)))
    return view


def _shared_parts(spec: OpSpec, products: list[Product]) -> dict[str, Any]:
    """The view entries several file kinds read: the dim attr or rows input, the first input, the DFX input
    list, the steps' text, the tiling keys and the reduce work buffer's elements."""
    comp = compute_of(spec)
    return {
        "dim_attr": comp.dim,
        "rows_input": comp.rows or "",
        "first_input": spec.inputs[0].name,
        "dfx_in": ", ".join([*spec.input_names, *([comp.dim] if comp.dim else [])]),
        "steps_text": [
            f"{s.name} = {s.reduction + '(' + str(s.expr) + ')' if s.reduction else str(s.expr)}" for s in comp.steps
        ],
        "dtype_keys": dtype_keys(spec, products),
        "work_elems": WORK_ELEMS,
    }
