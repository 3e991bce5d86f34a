"""Every template view of an index-accumulate op: the family's view classes by kind (:data:`VIEWS`) and
the named values they are filled from (the ``build_views`` hook)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from codegen.families.index_accumulate.plan.constants import (
    MRG_SORT_QUEUE_MAX,
    MRG_SORT_QUEUES,
    PAD_PAIR,
    PROPOSAL_BYTES,
    SORT32_ELEMENTS,
    VECTOR_SORT_CHUNK_MIN,
    VECTOR_SORT_KEY_ROWS,
    VECTOR_SORT_SEARCH_STRIDE,
)
from codegen.families.index_accumulate.plan.dtype_keys import KeyDigits, index_dtype_keys, rows_dtype_keys
from codegen.families.index_accumulate.plan.fixed_sizes import FIXED_SIZES, SORT_SIZES, VectorSortSizes
from codegen.families.index_accumulate.plan.opdef import opdef_registration
from codegen.families.index_accumulate.plan.roles import compute_of, index_dtypes, role_positions, row_dtypes
from codegen.families.index_accumulate.plan.sync_counters import SYNC_COUNTERS
from codegen.families.index_accumulate.plan.tiling_fields import TILING_FIELDS
from codegen.families.index_accumulate.plan.vector_sort import VECTOR_SORT_CHUNK_MAX
from codegen.families.index_accumulate.plan.views_aclnn import AclnnSourceView
from codegen.families.index_accumulate.plan.views_doc import (
    DocView,
    doc_constraint_lines,
    doc_status_rows,
    doc_tiling_lines,
)
from codegen.families.index_accumulate.plan.views_host import IndexTilingHeaderView, InferShapeView, TilingSourceView
from codegen.families.index_accumulate.plan.views_kernel import KernelView, kernel_branch_groups
from codegen.families.index_accumulate.plan.views_l0 import L0SourceView, l0_api_attrs
from codegen.families.index_accumulate.plan.views_ut import ut_infer_cases, ut_tiling_cases
from codegen.plan import doc_lines
from codegen.plan.products import arch_condition, arch_groups, archs_condition, dtype_groups
from codegen.plan.shared_views import family_views
from codegen.plan.signature import l0_params
from codegen.plan.tiling_fields import tiling_field_views
from codegen.plan.views import KindView, OpViews, views_by_kind
from codegen.spec.model import Catalogue, OpSpec, Product

#: The views of the index-accumulate templates (every other kind renders the shared view).
VIEWS: dict[str, type[KindView]] = views_by_kind(
    AclnnSourceView, L0SourceView, InferShapeView, IndexTilingHeaderView, TilingSourceView, KernelView, DocView
)


def build_views(spec: OpSpec, catalogue: Catalogue) -> OpViews:
    """Every template view of an index-accumulate op (:data:`VIEWS` and the shared ones).

    Raises:
        TypeError: the spec is not of this family.
        ValueError: more than 10 rows or index dtypes (one decimal digit each in the tiling key).
    """
    return family_views(spec, catalogue, VIEWS, _family_parts, ut_tiling_cases, ut_infer_cases)


def _family_parts(spec: OpSpec, catalogue: Catalogue, common: Mapping[str, Any]) -> dict[str, Any]:
    """The index-accumulate view entries of an op by name, beside the ``common`` ones every family shares
    (:data:`codegen.plan.shared_views.FamilyParts`); its ``opdef`` and ``kernel_params`` replace the shared ones.

    Raises:
        TypeError: the spec is not of this family.
        ValueError: more than 10 rows or index dtypes (one decimal digit each in the tiling key).
    """
    comp = compute_of(spec)
    products: list[Product] = common["products"]
    grads, idxs = row_dtypes(spec), index_dtypes(spec)
    if len(grads) > 10 or len(idxs) > 10:
        raise ValueError(f"{spec.op}: at most 10 rows and 10 index dtypes fit the tiling key's digits")

    grad_keys = rows_dtype_keys(spec, products)
    index_keys = index_dtype_keys(spec)
    # The sorted-run strategy runs on every product: without DataCopyPad it copies whole 32-byte blocks (rows of
    # whole blocks only), without hardware SyncAll its barriers are the software SyncAll on the counters output;
    # its atomic mode (SetAtomicAdd across cores) is left out where the tiling never picks it (no hardware
    # SyncAll: every call is deterministic there).
    sorted_products = list(products)
    sorted_guard = ""
    branch_groups = kernel_branch_groups(spec, products, grad_keys, index_keys, bool(sorted_products))

    opdef = opdef_registration(spec, products, common["opdef"].attrs)

    rows_t, index_t, out_t = spec.tensor(comp.rows), spec.tensor(comp.index), spec.tensor(comp.accumulate)
    num_rows_attr = spec.attr(comp.num_rows)
    padding_attr = spec.attr(comp.padding) if comp.padding else None
    scale_attr = spec.attr(comp.count_scaling) if comp.count_scaling else None
    l0_attrs = l0_api_attrs(spec)

    # the L2 API checks the index tensor's dtype on its own (index_dtype_list): groups of the rows and out only
    tensor_groups = {t.name: dtype_groups(t, products) for t in (rows_t, out_t)}
    status_rows = doc_status_rows(spec)
    constraint_lines = doc_constraint_lines(spec, catalogue, products)
    tiling_lines = doc_tiling_lines(spec, products)
    example_lines = doc_lines.example_lines(spec, c_bools=True)
    return {
        "rows": rows_t.name,
        "positions": role_positions(spec),
        # the kernel takes the software SyncAll's counters after the op's tensors (replaces the shared entry)
        "kernel_params": [*spec.input_names, *spec.output_names, SYNC_COUNTERS.name],
        "sync_counters": SYNC_COUNTERS,
        "pad_pair": PAD_PAIR,
        "pad_archs": arch_groups([p for p in products if p.data_copy_pad]),
        "sort_archs": arch_groups([p for p in products if p.vector_sort]),
        # the vector sort also copies its segments with DataCopyPad
        "no_sort_condition": archs_condition(p.npu_arch for p in products if not (p.vector_sort and p.data_copy_pad)),
        "vector_sort_sizes": VectorSortSizes(
            VECTOR_SORT_CHUNK_MIN,
            VECTOR_SORT_CHUNK_MAX,
            VECTOR_SORT_KEY_ROWS,
            PROPOSAL_BYTES,
            SORT32_ELEMENTS,
            MRG_SORT_QUEUES,
            VECTOR_SORT_SEARCH_STRIDE,
            MRG_SORT_QUEUE_MAX,
        ),
        "tiling_fields": tiling_field_views(TILING_FIELDS),
        "index": index_t.name,
        "out": out_t.name,
        "num_rows": num_rows_attr.name,
        "padding": padding_attr.name if padding_attr else "",
        "scaling": scale_attr.name if scale_attr else "",
        "l0_attrs": l0_attrs,
        "l0_params": l0_params(spec, (a.decl for a in l0_attrs)),
        "rows_min_rank": rows_t.rank[0],
        "rows_max_rank": rows_t.rank[1],
        "index_min_rank": index_t.rank[0],
        "index_max_rank": index_t.rank[1],
        "tensor_groups": tensor_groups,
        "index_dtype_list": ", ".join(f"op::DataType::{d.ge_name}" for d in idxs),
        "key_digits": KeyDigits(tuple(grad_keys), tuple(index_keys)),
        "branch_groups": branch_groups,
        "fixed_sizes": FIXED_SIZES,
        "no_sync_condition": arch_condition(products, "hw_sync_all"),
        "hw_sync_archs": arch_groups([p for p in products if p.hw_sync_all]),
        "sorted_strategy": bool(sorted_products),
        "sorted_guard": sorted_guard,
        "sort_sizes": SORT_SIZES,
        "opdef": opdef,
        "dfx_in": ", ".join([*spec.input_names, *spec.attr_names]),
        "status_rows": status_rows,
        "constraint_lines": constraint_lines,
        "tiling_lines": tiling_lines,
        "example_lines": example_lines,
    }
