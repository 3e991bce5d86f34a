"""An elementwise op's template views (the plan stage's ``build_views``): the family's entries, those several
kinds read, then each kind's own and the reduce epilogue's, assembled with the shared ones by
:func:`codegen.plan.shared_views.family_views`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from codegen.families.elementwise.plan.shape import one_element_inputs, shape_check
from codegen.families.elementwise.plan.tiling import REPEAT_BYTES
from codegen.families.elementwise.plan.variants import compile_all, compute_dtypes, dtype_input, optional_inputs
from codegen.families.elementwise.plan.view_kinds import VIEWS
from codegen.families.elementwise.plan.view_records import InputView
from codegen.families.elementwise.plan.views_aclnn import aclnn_parts, column_parts
from codegen.families.elementwise.plan.views_doc import doc_parts
from codegen.families.elementwise.plan.views_host import host_parts, host_scalars, infer_rule
from codegen.families.elementwise.plan.views_kernel import kernel_parts
from codegen.families.elementwise.plan.views_reduce import reduce_parts
from codegen.families.elementwise.plan.views_ut import ut_infer_cases, ut_tiling_cases
from codegen.plan.shared_views import family_views
from codegen.plan.views import OpViews
from codegen.spec.model import Catalogue, OpSpec, Product


def build_views(spec: OpSpec, catalogue: Catalogue) -> OpViews:
    """Every template view of an elementwise op (:data:`VIEWS` and the shared ones); :func:`.products.validate` has
    passed."""
    return family_views(spec, catalogue, VIEWS, _family_parts, ut_tiling_cases, ut_infer_cases)


def _input_views(spec: OpSpec) -> list[InputView]:
    """The aclnn inputs with their variant bit, OpDef index and device input."""
    optional = optional_inputs(spec)
    dev = spec.device_interface
    single = one_element_inputs(spec)
    return [
        InputView(
            name=t.name,
            optional=t.optional,
            bit=1 << optional.index(t) if t.optional else 0,
            index=dev.input_index(t.name),
            device_name=dev.inputs[dev.input_index(t.name)].name,
            default=t.default,
            scalar_bit=1 << k,
            one_element=t.name in single,
        )
        for k, t in enumerate(spec.inputs)
    ]


def _family_parts(spec: OpSpec, catalogue: Catalogue, common: Mapping[str, Any]) -> dict[str, Any]:
    """The elementwise view entries of an op by name, beside the ``common`` ones every family shares
    (:data:`codegen.plan.shared_views.FamilyParts`)."""
    products: list[Product] = common["products"]
    variants = compile_all(spec)
    keys = compute_dtypes(spec)
    inputs = _input_views(spec)
    by_name = {t.name: t for t in inputs}
    shape = shape_check(spec)
    scalars = host_scalars(spec, variants[0].formula)
    parts: dict[str, Any] = {
        "dtype_input": by_name[dtype_input(spec).name],
        "inputs": inputs,
        "optional_inputs": [t.name for t in inputs if t.optional],
        "output": spec.outputs[0].name,
        "num_outputs": len(spec.outputs),
        "repeat_bytes": REPEAT_BYTES,
        "shape": shape,
        "infer": infer_rule(spec, by_name),
    }
    parts.update(aclnn_parts(spec))
    parts.update(column_parts(spec, products))
    parts.update(host_parts(spec, products, variants, keys, scalars))
    parts.update(kernel_parts(spec, variants, scalars))
    parts.update(doc_parts(spec, catalogue, products, variants, keys, shape, common["max_rank"]))
    parts.update(reduce_parts(spec, products, parts))
    return parts
