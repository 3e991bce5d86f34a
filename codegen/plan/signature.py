"""The parameter lists of the generated API functions: aclnn phase 1 (aclnn order, CANN's header names) and the
L0 call's device attrs."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from codegen.spec.model import DeviceAttr, OpSpec
from codegen.types import ATTR_TYPE_INFO, DEVICE_ATTR_TYPE_INFO

_Named = TypeVar("_Named")


def in_aclnn_order(spec: OpSpec, entries: Sequence[_Named]) -> list[_Named]:
    """``entries`` (rows or parameters with a ``name`` of an aclnn input, attr or output, one each; dicts or
    objects) sorted into the C parameter order of :attr:`OpSpec.aclnn_order` (the spec's ``signature`` key,
    or inputs, attrs, outputs)."""
    position = {name: i for i, name in enumerate(spec.aclnn_order)}

    def name_of(e: Any) -> str:
        return str(e["name"] if isinstance(e, dict) else e.name)

    return sorted(entries, key=lambda e: position[name_of(e)])


@dataclass(frozen=True)
class StringValue:
    """One accepted value of a ``char *`` attr: its ``index`` (what the checks compare) and its ``text``."""

    index: int
    text: str


@dataclass(frozen=True)
class SignatureParam:
    """One phase-1 parameter of the aclnn API (aclnn order), without workspaceSize/executor.

    Attributes:
        name: the parameter name; kind: ``input``, ``attr`` or ``output``.
        decl: the public C declaration (``const aclTensor *x``, ``const aclScalar *alpha``, ``char *mode``).
        decl_const: the declaration the internal checks take (an aclScalar's value as ``double``, a
            ``char *``'s value index as ``int64_t``, tensors ``const``).
        arg: what phase 1 passes to the checks (``<name>Value`` for an aclScalar or ``char *``, else name).
        scalar: ``"1"`` for an aclScalar attr, else ``""``; string: ``"1"`` for a ``char *`` attr, else ``""``.
        dtype_invalid, dtype_text: an aclScalar's C++ test for a dtype it does not accept, and the accepted
            dtypes as text (``""`` otherwise).
        string_values, values_text: a ``char *`` attr's accepted values, and them as text (empty otherwise).
        header_decl: ``decl`` with the parameter's name in CANN's header (its ``c_name``), what the generated
            header and document declare; the definition in the .cpp may name it ``name``.
        array: ``aclIntArray`` or ``aclBoolArray`` for an array attr, else ``""``; length_invalid,
            length_text: its C++ test for a length outside the spec's ``length`` (``Size()``), and the
            accepted lengths as text (``2``, ``1 to 8``).
    """

    name: str
    decl: str
    decl_const: str
    arg: str
    kind: str
    scalar: str = ""
    string: str = ""
    dtype_invalid: str = ""
    dtype_text: str = ""
    string_values: tuple[StringValue, ...] = ()
    values_text: str = ""
    header_decl: str = ""
    array: str = ""
    length_invalid: str = ""
    length_text: str = ""


def signature(spec: OpSpec) -> tuple[SignatureParam, ...]:
    """The phase-1 parameters in aclnn order (inputs, attributes, outputs), without workspaceSize/executor;
    ``header_decl`` names each parameter as CANN's header does."""
    params = _signature_params(spec)
    c_names = header_names(spec)
    return tuple(dataclasses.replace(p, header_decl=re.sub(rf"\b{p.name}$", c_names[p.name], p.decl)) for p in params)


def header_names(spec: OpSpec) -> dict[str, str]:
    """Each aclnn parameter's spec name -> its name in CANN's header (``c_name``)."""
    names = {t.name: t.c_name for t in (*spec.inputs, *spec.outputs)}
    names.update((a.name, a.c_name) for a in spec.attrs)
    return names


def _signature_params(spec: OpSpec) -> list[SignatureParam]:
    params: list[SignatureParam] = []
    for t in spec.inputs:
        kind = "aclTensorList" if t.is_list else "aclTensor"  # a tensor list (list: true) is an aclTensorList
        params.append(SignatureParam(t.name, f"const {kind} *{t.name}", f"const {kind} *{t.name}", t.name, "input"))
    for a in spec.attrs:
        if a.type == "scalar":
            # The public parameter is the aclScalar; the internal checks see its value as a double.
            params.append(
                SignatureParam(
                    name=a.name,
                    decl=f"const aclScalar *{a.name}",
                    decl_const=f"double {a.name}",
                    arg=f"{a.name}Value",
                    kind="attr",
                    scalar="1",
                    dtype_invalid=" && ".join(
                        f"{a.name}->GetDataType() != op::DataType::DT_{d}" for d in a.scalar_dtypes
                    ),
                    dtype_text=", ".join(a.scalar_dtypes),
                )
            )
        elif a.type == "string":
            # The public parameter is the char *; the internal checks see the index of the value (-1: none).
            params.append(
                SignatureParam(
                    name=a.name,
                    decl=f"char *{a.name}",
                    decl_const=f"int64_t {a.name}",
                    arg=f"{a.name}Value",
                    kind="attr",
                    string="1",
                    string_values=tuple(StringValue(k, n) for k, n in a.values or ()),
                    values_text=", ".join(n for _, n in a.values or ()),
                )
            )
        elif a.is_array:
            # ``const aclIntArray *normalizedShape`` as CANN declares it; the checks get the pointer too. An
            # array of any length (``length: any``) has no length check (empty ``length_invalid``).
            decl = f"{ATTR_TYPE_INFO[a.type].c_type}{a.name}"
            lo, hi = a.length or (0, 0)
            size = f"{a.name}->Size()"
            params.append(
                SignatureParam(
                    name=a.name,
                    decl=decl,
                    decl_const=decl,
                    arg=a.name,
                    kind="attr",
                    array=ATTR_TYPE_INFO[a.type].array,
                    length_invalid=""
                    if a.length is None
                    else f"{size} != {lo}"
                    if lo == hi
                    else f"{size} < {lo} || {size} > {hi}",
                    length_text="" if a.length is None else str(lo) if lo == hi else f"{lo} to {hi}",
                )
            )
        else:
            decl = f"{'const ' if a.const else ''}{ATTR_TYPE_INFO[a.type].c_type} {a.name}"
            params.append(SignatureParam(a.name, decl, decl, a.name, "attr"))
    for t in spec.outputs:
        kind = "aclTensorList" if t.is_list else "aclTensor"
        decl = f"{'const ' if getattr(t, 'const', False) else ''}{kind} *{t.name}"
        params.append(
            SignatureParam(t.name, decl, decl if decl.startswith("const ") else "const " + decl, t.name, "output")
        )
    return in_aclnn_order(spec, params)


@dataclass(frozen=True)
class L0Attr:
    """A device attr of the L0 call: its device ``name``, the L0 parameter declaration ``decl`` and the
    C++ expression ``arg`` the L2 API passes for it."""

    name: str
    decl: str
    arg: str


@dataclass(frozen=True)
class L0ListAttr:
    """A ``list_int`` device attr the L0 API launches with as a one-element ``aclIntArray *`` it allocates
    (``executor->AllocIntArray``): the device attr's ``name``, the C++ integer ``value`` the list holds (an L0
    parameter or aclnn attr name) and the variable ``var`` holding the list (its values array is
    ``<var>Values``)."""

    name: str
    value: str
    var: str


def l0_constant_attr(attr: DeviceAttr) -> L0Attr:
    """The L0 parameter of a constant device attr (``source`` None): ``name``, ``decl`` (``float alpha``) and
    ``arg``, the C++ literal of its ``value`` the L2 API passes (``0.16666666666666666F``, ``true``,
    ``"mean"``, ``2``)."""
    v = attr.value
    c_type = DEVICE_ATTR_TYPE_INFO[attr.type].l0_type
    if attr.type == "string":
        return L0Attr(attr.name, f"{c_type}{attr.name}", json.dumps(v))
    arg = str(v).lower() if isinstance(v, bool) else f"{float(cast(float, v))!r}F" if attr.type == "float" else str(v)
    return L0Attr(attr.name, f"{c_type} {attr.name}", arg)


def l0_params(spec: OpSpec, attr_decls: Iterable[str]) -> list[str]:
    """The L0 function's parameters as C declarations: each aclnn input of ``spec`` in order as
    ``const aclTensor *<name>``, then ``attr_decls`` (the family's attr parameters, e.g. ``int64_t dim``)."""
    return [*(f"const aclTensor *{n}" for n in spec.input_names), *attr_decls]
