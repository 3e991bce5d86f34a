"""The view of the row-reduce L2 API (``op_api/aclnn_<op>.cpp``): its parameter checks (tensors, dtype
groups and combinations, shapes) and the L2 plan around the L0 call."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from codegen.families.row_reduce.plan.tensors import row_inputs, row_outputs
from codegen.families.row_reduce.plan.views_l0 import L0OutputView
from codegen.plan.common import DtypeGroup, KindView, SignatureParam, TensorCheck, dtype_groups
from codegen.plan.constraints import ConstraintChecks, constraint_view
from codegen.spec.model import Catalogue, OpSpec, Product
from codegen.types import ACLNN_STATUS_CODES


@dataclass(frozen=True)
class AclnnSourceView(KindView):
    """``op_api/aclnn_<op>.cpp`` (``op_api/row_reduce_aclnn.cpp.j2``): parameter checks and the L2 plan."""

    KIND: ClassVar[str] = "op_api_cpp"
    checks: ConstraintChecks
    dfx_in: str
    dim_attr: str
    files: Mapping[str, str]
    first_input: str
    #: the L2 API's arguments of the L0 call after the tensors (the dim, fp32 casts of float attrs)
    l0_args: tuple[str, ...]
    out: str
    #: ``rows`` form: the input broadcast over the rows ("": dim form)
    rows_input: str
    #: ``rows`` form: the aclnn attrs (none is checked by the family's parameter checks)
    check_attrs: tuple[str, ...]
    signature: tuple[SignatureParam, ...]
    tensor_groups: Mapping[str, tuple[DtypeGroup, ...]]
    tensors: tuple[TensorCheck, ...]
    #: the spec's ``dtype_combos`` (empty: one dtype for every tensor), each allowed on the NpuArchs ``archs``
    dtype_combos: tuple[ComboCheck, ...]
    dtype_combo_names: tuple[str, ...]
    #: the aclnnStatus name of a shape error (the spec's ``shape_status``)
    shape_status: str
    #: outputs with one value per row (their shape checked against the first input's)
    per_row_outputs: tuple[str, ...]
    l0_outputs: tuple[L0OutputView, ...]


@dataclass(frozen=True)
class ComboCheck:
    """One allowed dtype combination in the L2 check: the NpuArchs taking it (``archs``; the products text
    ``products``) and ``pairs`` of (tensor name, ``DT_*`` name) in inputs-then-outputs order."""

    archs: tuple[int, ...]
    products: str
    pairs: tuple[tuple[str, str], ...]


def aclnn_parts(spec: OpSpec, catalogue: Catalogue, products: list[Product]) -> dict[str, Any]:
    """The view entries only the L2 API reads (:class:`AclnnSourceView`), by name, for ``spec`` on
    ``products``."""
    return {
        "checks": constraint_view(spec, catalogue),
        "check_attrs": [a.name for a in spec.attrs] if row_inputs(spec) else [],
        "dtype_combos": [
            ComboCheck(
                archs=tuple(sorted({p.npu_arch for p in products if c.allowed_on(p)})),
                products=", ".join(p.name for p in products if c.allowed_on(p)),
                pairs=tuple((n, d.ge_name) for n, d in c.dtypes),
            )
            for c in spec.dtype_combos
            if any(c.allowed_on(p) for p in products)
        ],
        "dtype_combo_names": [t.name for t in (*spec.inputs, *spec.outputs)],
        "shape_status": ACLNN_STATUS_CODES[spec.shape_status],
        "per_row_outputs": row_outputs(spec),
        "out": spec.output_names[0],
        "tensor_groups": {t.name: dtype_groups(t, products) for t in (*spec.inputs, *spec.outputs)},
    }
