"""The tables of the aclnn API document: status codes, parameters, supported products, and the wording of the
rules they state."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from codegen.plan.products import dtype_groups
from codegen.plan.signature import header_names, in_aclnn_order
from codegen.spec.model import AttrSpec, OpSpec, Product, TensorSpec
from codegen.types import ATTR_TYPE_INFO, AclnnStatus


@dataclass(frozen=True)
class StatusRow:
    """A row of the docs' status table: the ``aclnnStatus`` name, its code and when the API returns it."""

    name: str
    value: int
    when: str


def status_row(status: AclnnStatus, when: str) -> StatusRow:
    """The docs' status-table row of ``status``, returned ``when``."""
    return StatusRow(status.name, int(status), when)


def status_table(
    null_names: Sequence[str],
    invalid: str,
    *,
    more: Sequence[StatusRow] = (),
    tiling_failed: str = "The tiling function failed.",
) -> list[StatusRow]:
    """The API document's status table, in this order: ACLNN_SUCCESS; ACLNN_ERR_PARAM_NULLPTR when one of
    ``null_names`` (the tensors and pointer attrs, as the family words them), workspaceSize or the executor is
    null; ACLNN_ERR_PARAM_INVALID ``invalid`` (the whole sentence); the family's rows ``more``;
    ACLNN_ERR_INNER_TILING_ERROR ``tiling_failed``."""
    return [
        status_row(AclnnStatus.ACLNN_SUCCESS, "Success."),
        status_row(
            AclnnStatus.ACLNN_ERR_PARAM_NULLPTR, f"{', '.join([*null_names, 'workspaceSize'])} or executor is null."
        ),
        status_row(AclnnStatus.ACLNN_ERR_PARAM_INVALID, invalid),
        *more,
        status_row(AclnnStatus.ACLNN_ERR_INNER_TILING_ERROR, tiling_failed),
    ]


def null_pointer_attrs(spec: OpSpec) -> list[str]:
    """The attributes the aclnn API takes as pointers, as the docs name them in the ACLNN_ERR_PARAM_NULLPTR
    row (in spec order): ``the aclScalar <name>`` (``const aclScalar *``), ``the string <name>``
    (``char *``), ``the aclIntArray <name>`` and ``the aclBoolArray <name>``; phase 1 returns 161001 for a
    null one (``OP_CHECK_NULL`` in templates/op_api/aclnn.cpp.j2)."""
    kinds = {"scalar": "aclScalar", "string": "string"}
    kinds.update((t, info.array) for t, info in ATTR_TYPE_INFO.items() if info.array)
    return [f"the {kinds[a.type]} {a.name}" for a in spec.attrs if a.type in kinds]


def array_length_text(attr: AttrSpec) -> str:
    """The accepted lengths of an array attr as the parameter table states them: ``2`` for a fixed length,
    ``1 to 8`` for a range; ``""`` for any other attr."""
    if not attr.is_array or attr.length is None:
        return ""
    lo, hi = attr.length
    return str(lo) if lo == hi else f"{lo} to {hi}"


@dataclass(frozen=True)
class ParamRow:
    """A row of the docs' parameter table (and the header's doc lines): name, direction (``input``,
    ``input (host)``, ``output``), description, dtypes text, formats text and rank range text (``-`` for
    attrs)."""

    name: str
    direction: str
    description: str
    dtypes: str
    format: str
    rank: str


@dataclass(frozen=True)
class ProductSupportRow:
    """A row of the docs' product table: catalogue product name, its documentation term, ``yes``/``no``."""

    name: str
    doc_term: str
    support: str


def format_rule_text(spec: OpSpec) -> str:
    """The status-table wording of the format rule: "a format other than ND" when every tensor takes ND
    only, else the accepted formats per tensor ("a storage format outside grad: ND, NCHW; ...")."""
    tensors = [*spec.inputs, *spec.outputs]
    if all(t.formats == ("ND",) for t in tensors):
        return "a format other than ND"
    return "a storage format outside " + "; ".join(f"{t.name}: {', '.join(t.formats)}" for t in tensors)


def param_row(t: TensorSpec, products: list[Product], direction: str) -> ParamRow:
    """The docs' parameter-table row of tensor ``t`` (``direction``: ``input`` or ``output``): its dtypes on
    ``products`` (grouped by product where they differ), formats and rank range."""
    groups = dtype_groups(t, products)
    if len(groups) == 1:
        dtypes = ", ".join(groups[0].names)
    else:
        dtypes = "; ".join(f"{', '.join(g.products)}: {', '.join(g.names)}" for g in groups)
    return ParamRow(
        name=t.name,
        direction=direction,
        description=t.description + (" May be null." if t.optional else ""),
        dtypes=dtypes,
        format=", ".join(t.formats),
        rank=f"{t.rank[0]}-{t.rank[1]}",
    )


def param_table(spec: OpSpec, products: list[Product]) -> list[ParamRow]:
    """The rows of the docs' parameter table in aclnn order: the inputs, attrs and outputs of ``spec`` on
    ``products``, each named as CANN's header names it (a row whose spec name differs says so)."""
    param_rows = []
    for t in spec.inputs:
        param_rows.append(param_row(t, products, "input"))
    for a in spec.attrs:
        if a.type == "string":
            values = ", ".join(f'"{n}"' for _, n in a.values or ())
        else:
            values = ", ".join(f"{v} ({n})" for v, n in a.values) if a.values else "-"
        description = f"{a.description} Values: {values}." if a.values else a.description
        length = array_length_text(a)
        if length:
            description += f" Its length must be {length} (else ACLNN_ERR_PARAM_INVALID)."
        param_rows.append(
            ParamRow(
                name=a.name,
                direction="input (host)",
                description=description,
                dtypes=(
                    f"aclScalar ({', '.join(a.scalar_dtypes)})"
                    if a.type == "scalar"
                    else f"{ATTR_TYPE_INFO[a.type].array} (length {length})"
                    if length
                    else f"char * ({', '.join(n for _, n in a.values or ())})"
                    if a.type == "string"
                    else ATTR_TYPE_INFO[a.type].c_type
                ),
                format="-",
                rank="-",
            )
        )
    for t in spec.outputs:
        param_rows.append(param_row(t, products, "output"))
    # the table names each parameter as CANN's header does
    c_names = header_names(spec)
    param_rows = [
        dataclasses.replace(
            r,
            name=c_names[r.name],
            description=r.description + (f" Named `{r.name}` in this document's formulas and messages, and in "
                                         "the Python API." if c_names[r.name] != r.name else ""),
        )
        for r in in_aclnn_order(spec, param_rows)
    ]  # fmt: skip
    return param_rows
