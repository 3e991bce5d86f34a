"""One op spec document: its root keys, and the order in which its sections are read and then related
(shape rules against the attrs, the family's compute, divisions, constraints against the example and the
defaults, the family's support for optional sections).
"""

from __future__ import annotations

import dataclasses
from typing import cast

from codegen import registry
from codegen.registry import FamilyName, family_names
from codegen.spec.errors import SpecError
from codegen.spec.expr import ExprType
from codegen.spec.generated_names import generated_name_problems
from codegen.spec.loader.admitted_calls import (
    defaults_within_constraints,
    example_within_constraints,
    example_within_family_rules,
)
from codegen.spec.loader.attrs import read_attr
from codegen.spec.loader.constraints import read_constraint
from codegen.spec.loader.device import read_device
from codegen.spec.loader.device_columns import read_dtype_columns
from codegen.spec.loader.divisions import zero_divisors
from codegen.spec.loader.dtype_combos import read_dtype_combos
from codegen.spec.loader.example import read_example
from codegen.spec.loader.fields import header_name_clashes, read_products, read_upper_camel
from codegen.spec.loader.graph import graph_vs_device, read_graph
from codegen.spec.loader.host_only import host_attrs_unread
from codegen.spec.loader.signature import read_phase2_header_names, read_signature
from codegen.spec.loader.state import ParseState
from codegen.spec.loader.tensors import read_tensors
from codegen.spec.loader.tiling import read_tiling, tiling_vs_products
from codegen.spec.model import (
    ACLNN_STATUS_CODES,
    PHASE2_NAMES,
    AttrSpec,
    Constraint,
    DtypeCombo,
    FamilyCompute,
    OpSpec,
    TensorSpec,
    TilingSpec,
    snake_case,
)
from codegen.spec.naming import RESERVED_NAMES, kernel_problem, ops_nn_folder
from codegen.spec.scopes import ComputeContext, shape_scope
from codegen.spec.yaml_reader import YMap, YNode, YScalar, YSeq
from codegen.types import AclnnStatus


def _families() -> list[str]:
    return list(family_names())


_ROOT_REQUIRED = (
    "op",
    "op_type",
    "category",
    "family",
    "summary",
    "products",
    "deterministic",
    "inputs",
    "outputs",
    "compute",
    "tiling",
)
_ROOT_OPTIONAL = (
    "kernel",
    "attrs",
    "signature",
    "device",
    "graph",
    "constraints",
    "notes",
    "example",
    "deterministic_gm_atomics",
    "dtype_combos",
    "shape_status",
    "phase2_header_names",
    "const_stream",
    "promote_type",
)


def read_category(st: ParseState, node: YNode) -> str:
    """The ``category`` key: one of the catalogue's ``op_categories`` (recorded and ``""`` otherwise; not
    checked against an invalid catalogue)."""
    name = st.r.string(node)
    if name is None:
        return ""
    if st.catalogue is not None and name not in st.catalogue.categories:
        allowed = ", ".join(st.catalogue.categories)
        st.r.error(node, f"unknown category '{name}'; allowed (the catalogue's op_categories): {allowed}")
        return ""
    return name


def parse_op_spec(st: ParseState) -> OpSpec | None:
    """The op spec of ``st.root``: the root keys (:data:`_ROOT_REQUIRED`, :data:`_ROOT_OPTIONAL`) read section
    by section, then the checks that relate them. Every problem is recorded in ``st.r.errors``; the result
    is None when the root is not a mapping, and meaningless (the caller discards it) when a problem was
    recorded."""
    r = st.r
    m = r.mapping(st.root, _ROOT_REQUIRED, _ROOT_OPTIONAL)
    if m is None:
        return None
    op = read_upper_camel(st, m["op"], "SoftMarginLossBackward") if "op" in m else ""
    op_type = read_upper_camel(st, m["op_type"], "SoftMarginLossGrad") if "op_type" in m else ""
    kernel = ""
    if "kernel" in m:
        k = r.string(m["kernel"])
        problem = kernel_problem(k) if k is not None else None
        if problem:
            r.error(m["kernel"], problem)
        elif k is not None:
            kernel = k
    elif op_type:
        kernel = ops_nn_folder(op_type)
        problem = kernel_problem(kernel)
        if problem:
            r.error(m["op_type"], f"ops-nn's folder name for it, {problem}; name the folder with 'kernel'")
            kernel = ""
    category = read_category(st, m["category"]) if "category" in m else ""
    if op and st.path.stem != snake_case(op):
        r.error(
            m["op"],
            f"file name '{st.path.name}' does not match op '{op}'; expected '{snake_case(op)}{st.path.suffix}'",
        )
    family = ""
    if "family" in m:
        f = r.string(m["family"])
        if f is not None and f not in _families():
            r.error(m["family"], f"unknown family '{f}'; allowed: {', '.join(_families())}")
        elif f is not None:
            family = f
    st.family = family
    summary = (
        (r.line(m["summary"], "it is a line of the API document and the prototype comment") or "")
        if "summary" in m
        else ""
    )
    if "/*" in summary or "*/" in summary:
        r.error(
            m["summary"],
            "must not contain '/*' or '*/' (the summary is the @brief of the device op's prototype comment in "
            "op_graph/<kernel>_proto.h)",
        )
    products = read_products(st, m["products"]) if "products" in m else ()
    st.op_products = products
    deterministic = bool(r.boolean(m["deterministic"])) if "deterministic" in m else False
    deterministic_gm_atomics = (
        bool(r.boolean(m["deterministic_gm_atomics"])) if "deterministic_gm_atomics" in m else True
    )
    notes = (
        tuple(
            note
            for item in r.seq(m["notes"]) or []
            if (note := r.line(item, "each note is a list item of the API document"))
        )
        if "notes" in m
        else ()
    )

    inputs = tuple(t for t, _ in read_tensors(st, m.get("inputs"), "inputs", False))
    if "products" in m:
        _products_without_a_dtype(st, m["products"], products, inputs)
    attrs = tuple(read_attr(st, n) for n in (r.seq(m["attrs"]) or [])) if "attrs" in m else ()
    partial_outputs = read_tensors(st, m.get("outputs"), "outputs", True) if "outputs" in m else []

    # Second pass: everything that relates entries.
    header_name_clashes(st, [*inputs, *attrs, *(s for s, _ in partial_outputs)])
    scope = shape_scope(inputs, attrs)
    outputs_list = []
    for spec, shape_node in partial_outputs:
        shape = None
        if shape_node is not None:
            shape, _ = r.expr(shape_node, scope, (ExprType.SHAPE, ExprType.TENSOR), "an output shape")
        outputs_list.append(dataclasses.replace(spec, shape=shape))
    outputs = tuple(outputs_list)
    for field, loc, message in generated_name_problems(inputs, outputs, attrs, {*RESERVED_NAMES, *r.poisoned}):
        r.errors.append(SpecError(loc, field, message))

    signature = read_signature(st, m["signature"], inputs, outputs, attrs) if "signature" in m else None
    device = read_device(st, m["device"], family, inputs, outputs, attrs) if "device" in m else None
    columns_node = _dtype_columns_node(m.get("device"))
    if device is not None and columns_node is not None:
        device = dataclasses.replace(
            device,
            columns=read_dtype_columns(
                st, columns_node, family, device, inputs, outputs, products, _device_attr_entries(m["device"])
            ),
        )
        if "dtype_combos" in m:
            r.error(
                columns_node,
                "give dtype_combos (the dtype combinations the L2 API accepts, one OpDef column each) or "
                "device.dtype_columns, not both",
            )
    graph = read_graph(st, m["graph"]) if "graph" in m else None
    if graph is not None:
        graph_vs_device(st, m["graph"], graph, device, inputs, outputs)

    tiling = read_tiling(st, m["tiling"]) if "tiling" in m else TilingSpec(1, 0, 1, st.root.loc)
    if "tiling" in m:
        tiling_vs_products(st, m["tiling"], tiling, products)

    if device is not None and device.host_attrs and "compute" in m:
        shape_keys = registry.family(family).shape_keys if family else ()
        host_attrs_unread(st, m["compute"], device.host_attrs, "host_attrs", shape_keys)
    if device is not None and device.host_inputs and "compute" in m:
        host_attrs_unread(
            st, m["compute"], device.host_inputs, "host_inputs", registry.family(family).shape_keys if family else ()
        )
    compute: object = None
    if "compute" in m and family:
        # the compute reads what the device op takes: a host input (device.host_inputs) is no name of it
        launched = tuple(t for t in inputs if device is None or t.name not in device.host_inputs)
        ctx = ComputeContext(
            r, launched, outputs, attrs, st.taken, frozenset(st.unread_dtypes), frozenset(st.unread_ranks)
        )
        compute = registry.family(family).parse_compute(m["compute"], ctx)
    # a compute model that implies the device interface (an index fill's) carries its arrays itself; a
    # compute that failed was reported (its arrays are judged once it loads)
    if device is None and "attrs" in m and compute is not None and not bool(getattr(compute, "implies_device", False)):
        _arrays_need_host_attrs(st, m["attrs"], attrs)

    constraints: list[Constraint] = []
    if "constraints" in m:
        seen: dict[str, int] = {}
        for item in r.seq(m["constraints"]) or []:
            c = read_constraint(st, item, products, seen, inputs, outputs, attrs)
            if c is not None:
                constraints.append(c)

    zero_divisors(st, m, partial_outputs, outputs, compute, constraints, attrs, products, inputs, family)
    example = (
        read_example(st, m["example"], inputs, attrs, outputs, cast("FamilyCompute | None", compute))
        if "example" in m
        else None
    )
    if example is not None:
        example_within_constraints(st, m["example"], example, constraints, attrs, outputs, products)
        if compute is not None and family:
            rules = registry.family(family)
            example_within_family_rules(
                st, m["example"], example, lambda shapes, values: rules.call_problem(compute, shapes, values)
            )
    if "attrs" in m:
        defaults_within_constraints(st, m["attrs"], constraints, attrs, products)

    dtype_combos: tuple[DtypeCombo, ...] = ()
    if "dtype_combos" in m:
        supported = [f.name for f in registry.families() if f.dtype_combos]
        if family and family not in supported:
            r.error(
                m["dtype_combos"],
                f"dtype_combos is supported by the {', '.join(supported)} family only, not '{family}'",
            )
        else:
            dtype_combos = read_dtype_combos(st, m["dtype_combos"], inputs, outputs, products)
    if "outputs" in m and len(outputs) > 1:
        several = [f.name for f in registry.families() if f.several_outputs]
        if family and family not in several:
            r.error(
                m["outputs"],
                f"{len(outputs)} outputs: several outputs are supported by the {', '.join(several)} family "
                f"only, not '{family}'",
            )
    shape_status = int(AclnnStatus.ACLNN_ERR_PARAM_INVALID)
    status_families = [f.name for f in registry.families() if f.shape_status]
    if "shape_status" in m and family and family not in status_families:
        r.error(
            m["shape_status"],
            f"shape_status is supported by the {', '.join(status_families)} family only, not '{family}' "
            f"(its shape errors answer 161002)",
        )
    elif "shape_status" in m:
        s = r.integer(m["shape_status"])
        if s is not None and (s not in ACLNN_STATUS_CODES or s == 0):
            allowed = ", ".join(f"{k} ({v})" for k, v in ACLNN_STATUS_CODES.items() if k)
            r.error(m["shape_status"], f"shape_status {s} is not an aclnnStatus error code; allowed: {allowed}")
        elif s is not None:
            shape_status = s

    phase2 = read_phase2_header_names(st, m["phase2_header_names"]) if "phase2_header_names" in m else PHASE2_NAMES
    const_stream = bool(r.boolean(m["const_stream"])) if "const_stream" in m else False
    promote_type = read_promote_type(st, m["promote_type"], family, outputs) if "promote_type" in m else "input"

    if compute is not None and bool(getattr(compute, "output_mask", False)):
        # a bool_array output mask (a family's compute.output_mask): any output may be null when its entry is false
        outputs = tuple(dataclasses.replace(t, nullable=True) for t in outputs)
    return OpSpec(
        op=op,
        op_type=op_type,
        kernel=kernel,
        category=category,
        family=FamilyName(family),
        summary=summary,
        products=products,
        deterministic=deterministic,
        deterministic_gm_atomics=deterministic_gm_atomics,
        inputs=inputs,
        attrs=attrs,
        outputs=outputs,
        # None only where a problem was recorded: the caller discards the spec then.
        compute=cast(FamilyCompute, compute),
        tiling=tiling,
        constraints=tuple(constraints),
        notes=notes,
        example=example,
        path=str(st.path),
        loc=st.root.loc,
        device=device,
        graph=graph,
        signature=signature,
        dtype_combos=dtype_combos,
        shape_status=shape_status,
        phase2_header_names=phase2,
        const_stream=const_stream,
        promote_type=promote_type,
    )


def _arrays_need_host_attrs(st: ParseState, node: YNode, attrs: tuple[AttrSpec, ...]) -> None:
    """Records each array attr of a spec without a ``device`` section: the identity device interface would
    carry it to the device op, which takes no aclIntArray/aclBoolArray attr; the spec lists it in
    ``device.host_attrs`` (the L2 API checks it)."""
    for item, a in zip(st.r.seq(node) or [], attrs):
        if a.is_array:
            st.r.error(
                item,
                f"{a.type} attr '{a.name}' is checked by the L2 API only: give a device section that lists it in "
                "host_attrs",
            )


def _dtype_columns_node(device: YNode | None) -> YNode | None:
    """The ``dtype_columns`` entry of the ``device`` section, if it has one."""
    if not isinstance(device, YMap):
        return None
    return next((v for k, v in device.entries if k.value == "dtype_columns"), None)


def _device_attr_entries(device: YNode) -> tuple[str, ...]:
    """The ``name`` of every entry of the ``device`` section's ``attrs`` list, as written (read or not)."""
    attrs = next((v for k, v in device.entries if k.value == "attrs"), None) if isinstance(device, YMap) else None
    names = []
    for item in attrs.items if isinstance(attrs, YSeq) else []:
        if isinstance(item, YMap):
            names += [
                v.value
                for k, v in item.entries
                if k.value == "name" and isinstance(v, YScalar) and isinstance(v.value, str)
            ]
    return tuple(names)


def read_promote_type(st: ParseState, node: YNode, family: str, outputs: tuple[TensorSpec, ...]) -> str:
    """The ``promote_type`` key, the dtype the device op runs in (CANN's ``promoteType``): ``input`` (the
    inputs' own dtype, the result cast to the output's) or ``out`` (the inputs cast to the output's dtype
    first). ``out`` is allowed in a family that supports it (:attr:`codegen.registry.Family.promote_type`)
    and with one output only. Records the problem and returns ``input`` otherwise."""
    r = st.r
    value = r.string(node)
    if value is None:
        return "input"
    if value not in ("input", "out"):
        r.error(node, f"unknown promote_type '{value}'; allowed: input, out")
        return "input"
    supported = [f.name for f in registry.families() if f.promote_type]
    if value == "out" and family and family not in supported:
        r.error(node, f"promote_type: out is supported by the {', '.join(supported)} family only, not '{family}'")
        return "input"
    if value == "out" and len(outputs) > 1:
        r.error(node, f"promote_type: out needs one output (the dtype the inputs are cast to), not {len(outputs)}")
        return "input"
    return value


def _products_without_a_dtype(
    st: ParseState, node: YNode, products: tuple[str, ...], inputs: tuple[TensorSpec, ...]
) -> None:
    """A listed product on which an input has none of its dtypes (BF16 only, on a product without bf16) could
    build no kernel: an error at ``products`` naming the product and the input."""
    if st.catalogue is None:
        return
    known = set(st.catalogue.names)
    for name in products:
        if name not in known:
            continue
        product = st.catalogue.get(name)
        for tensor in inputs:
            if tensor.dtypes and not tensor.dtypes_for(product):
                listed = ", ".join(d.name for d in tensor.dtypes)
                st.r.error(
                    node,
                    f"{name} has none of the dtypes of input '{tensor.name}' ({listed}: the product has no BF16), "
                    "so no kernel can be built there; add a dtype it has or drop the product",
                )
                break
