"""The view entries every family's templates read (files, signature, OpDef, L2 checks, doc tables, example),
assembled from the shared pieces of the plan stage."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codegen.plan.constraints import constraint_view
from codegen.plan.doc_tables import ProductSupportRow, param_table
from codegen.plan.example import example_view
from codegen.plan.opdef import opdef_view
from codegen.plan.products import arch_condition, dtype_groups, spec_products
from codegen.plan.signature import signature
from codegen.plan.views import OpView
from codegen.spec.catalogue import UB_BLOCK_BYTES
from codegen.spec.generated_names import op_files
from codegen.spec.model import Catalogue, OpSpec
from codegen.types import ATTR_TYPE_INFO


@dataclass(frozen=True)
class TensorCheck:
    """The L2 API's checks of one aclnn tensor: ``name``, accepted rank range (``min_rank``..``max_rank``),
    whether it may be null (``optional``: an optional input or a nullable output), and the C++ condition true
    for a storage format it does not accept (``format_condition``) with the accepted formats as text
    (``format_text``)."""

    name: str
    min_rank: int
    max_rank: int
    optional: bool
    format_condition: str
    format_text: str


@dataclass(frozen=True)
class AttrCheck:
    """The L2 API's check of an attr with a list of values: ``name``, the C++ condition true for a value
    outside the list (``invalid_condition``) and the list as text (``allowed_text``)."""

    name: str
    invalid_condition: str
    allowed_text: str


def common_view(spec: OpSpec, catalogue: Catalogue) -> dict[str, Any]:
    """View-model entries every family's templates use (files, signature, OpDef, the L2 API's tensor, attr and
    constraint checks with each tensor's dtype groups, the kernel's class, GM parameters, block bytes and
    DataCopyPad condition, doc tables, example)."""
    products = spec_products(spec, catalogue)
    sig = signature(spec)
    dev = spec.device_interface
    tensors = [
        TensorCheck(
            name=t.name,
            min_rank=t.rank[0],
            max_rank=t.rank[1],
            optional=t.optional or t.nullable,
            # the storage formats the L2 API accepts (every other one is ACLNN_ERR_PARAM_INVALID)
            format_condition=" && ".join(f"{t.name}->GetStorageFormat() != Format::FORMAT_{f}" for f in t.formats),
            format_text=", ".join(t.formats),
        )
        for t in [*spec.inputs, *spec.outputs]
    ]
    attr_params = [{"name": a.name, "decl": f"{ATTR_TYPE_INFO[a.type].c_type} {a.name}"} for a in spec.attrs]
    attr_checks = []
    for a in spec.attrs:
        if a.values and a.type != "string":  # a string's validity is checked on the char * itself
            allowed = [v for v, _ in a.values]
            cond = " && ".join(f"{a.name} != {v}" for v in allowed)
            text = ", ".join(f"{v} ({n})" for v, n in a.values)
            attr_checks.append(AttrCheck(a.name, cond, text))
    support = [
        ProductSupportRow(prod.name, prod.doc_term, "yes" if prod.name in spec.products else "no")
        for prod in catalogue.products
    ]
    param_rows = param_table(spec, products)
    return {
        "op": OpView.of(spec),
        "files": op_files(spec),
        "guard": spec.snake.upper(),
        "signature": sig,
        "products": products,
        "opdef": opdef_view(spec, products),
        "tensors": tensors,
        "tensor_groups": {t.name: dtype_groups(t, products) for t in [*spec.inputs, *spec.outputs]},
        "checks": constraint_view(spec, catalogue),
        "attr_params": attr_params,
        "attr_checks": attr_checks,
        "max_rank": max(t.rank[1] for t in [*spec.inputs, *spec.outputs]),
        "product_support": support,
        "param_rows": param_rows,
        "example": example_view(spec),
        "kernel_class": "Kernel" + spec.op_type,
        # the kernel entry's GM tensors: the device op's inputs, then its outputs (OpDef order)
        "kernel_params": [*(d.name for d in dev.inputs), *(d.name for d in dev.outputs)],
        "block_bytes": UB_BLOCK_BYTES,
        # the NpuArchs whose kernels copy without DataCopyPad
        "no_pad_condition": arch_condition(products, "data_copy_pad"),
        "tiling_type": spec.op_type + "TilingData",
        "header_doc": [f"{r.name}: {r.dtypes}; rank {r.rank}." for r in param_rows if r.direction != "input (host)"],
    }
