"""The ``example`` section: the worked example's tensors, values and attrs, checked against the tensors'
dtypes and ranks, the op's products and the output shape rule.
"""

from __future__ import annotations

import math
from typing import Any

from codegen.spec.expr import ExprEvalError, as_shape, evaluate, to_source
from codegen.spec.loader.attrs import read_array_value, read_attr_value
from codegen.spec.loader.fields import within_dtype
from codegen.spec.loader.state import ParseState
from codegen.spec.model import (
    AttrSpec,
    DType,
    Example,
    ExampleTensor,
    FamilyCompute,
    TensorSpec,
    absent_optional_shapes,
)
from codegen.spec.yaml_reader import YNode, YScalar, YSeq, map_entries
from codegen.spec.yaml_reader.nodes import _describe, _show_key
from codegen.types import FLOAT_DTYPE_MAX


def read_example_tensor(
    st: ParseState, node: YNode, tensor: TensorSpec | None, need_values: bool
) -> ExampleTensor | None:
    """One tensor of the ``example`` (``shape``, ``dtype``, and ``values`` when ``need_values``, else
    optional), checked against ``tensor`` (its rank range and dtypes) and against the op's products (an
    example dtype must exist on all of them); None (recorded) when it cannot be read."""
    r = st.r
    m = r.mapping(
        node,
        ("shape", "dtype", "values") if need_values else ("shape", "dtype"),
        () if need_values else ("values",),
    )
    if m is None:
        return None
    shape: list[int] = []
    ok = True
    if "shape" in m:
        for item in r.seq(m["shape"]) or []:
            d = r.integer(item, 0)
            ok = ok and d is not None
            shape.append(d or 0)
        if tensor is not None and isinstance(m["shape"], YSeq):
            lo, hi = tensor.rank
            if not lo <= len(shape) <= hi:
                r.error(m["shape"], f"rank {len(shape)} is outside the rank range [{lo}, {hi}] of '{tensor.name}'")
    else:
        ok = False
    dtype = r.dtype(m["dtype"]) if "dtype" in m else None
    if dtype is not None and tensor is not None and tensor.dtypes and dtype not in tensor.dtypes:
        if tensor.name not in st.unread_dtypes:  # else the unknown dtype listed may have meant this one
            allowed = ", ".join(d.name for d in tensor.dtypes)
            r.error(m["dtype"], f"dtype {dtype.name} is not accepted by '{tensor.name}'; allowed: {allowed}")
    elif dtype is not None and st.catalogue is not None:
        # The example program runs on any of the op's products: its dtypes must exist on all of them.
        names = set(st.catalogue.names)
        lacking = [p for p in st.op_products if p in names and not st.catalogue.get(p).supports(dtype)]
        if lacking:  # (a tensor with no dtype on a product at all is reported at the spec's products)
            everywhere = [
                d.name
                for d in (tensor.dtypes if tensor is not None else ())
                if all(st.catalogue.get(p).supports(d) for p in st.op_products if p in names)
            ]
            if everywhere:
                r.error(
                    m["dtype"],
                    f"dtype {dtype.name} does not exist on {', '.join(lacking)}, one of the op's products, and the "
                    f"example program runs on any of them; use a dtype every product has: {', '.join(everywhere)}",
                )
    values: tuple[float | int | bool, ...] | None = None
    if "values" in m:
        items = r.seq(m["values"])
        if items is not None:
            vals = [read_example_value(st, item, dtype) for item in items]
            values = tuple(v for v in vals if v is not None)
            need = math.prod(shape)
            if ok and len(items) != need:
                r.error(m["values"], f"{len(items)} values for shape {shape}; need {need}")
    if dtype is None or not ok:
        return None
    return ExampleTensor(tuple(shape), dtype, values, node.loc)


def read_example_value(st: ParseState, node: YNode, dtype: DType | None) -> float | int | bool | None:
    """One element of an example tensor of ``dtype``: true/false (or 0/1) for BOOL, an integer within the
    range of an integer dtype, else a finite number within the floating dtype's range; None (recorded)."""
    v = node.value if isinstance(node, YScalar) else None
    if isinstance(v, bool):
        if dtype is DType.BOOL:
            return v
        st.r.error(node, f"expected a number for dtype {dtype.name if dtype else '?'}, got {_describe(node)}")
        return None
    if dtype is DType.BOOL:
        if v in (0, 1) and isinstance(v, int):
            return bool(v)
        st.r.error(node, f"expected true, false, 0 or 1 for dtype BOOL, got {_describe(node)}")
        return None
    if dtype is not None and dtype.is_integer:
        if not isinstance(v, int):
            st.r.error(node, f"expected an integer for dtype {dtype.name}, got {_describe(node)}")
            return None
        bits = dtype.itemsize * 8
        lo, hi = (0, (1 << bits) - 1) if dtype.name.startswith("U") else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
        if not lo <= v <= hi:
            st.r.error(node, f"{v} is out of range for {dtype.name}; allowed: {lo}..{hi}")
            return None
        return v
    number = st.r.number(node)
    if number is None:
        return None
    return within_dtype(st, node, float(number), dtype.name if dtype is not None else "")


def read_example(
    st: ParseState,
    node: YNode,
    inputs: tuple[TensorSpec, ...],
    attrs: tuple[AttrSpec, ...],
    outputs: tuple[TensorSpec, ...],
    compute: FamilyCompute | None = None,
) -> Example | None:
    """The ``example`` section; its output shape must be the shape rule's for the example's inputs, as
    the family's compute adjusts it for the example's attrs (:meth:`FamilyCompute.first_output_shape`:
    a reduction's mean or sum is 0-d)."""
    r = st.r
    m = r.mapping(node, ("inputs", "output"), ("attrs",))
    if m is None:
        return None
    by_name = {t.name: t for t in inputs}
    got: dict[str, ExampleTensor] = {}
    ok = True
    if "inputs" in m:
        im = m["inputs"]
        input_entries = r.mapping_entries(im, "input name to tensor")
        if input_entries is None:
            ok = False
        else:
            for key, value in input_entries:
                if key.value not in by_name:
                    r.error(key, f"{_show_key(key.value)} is not an input; allowed: {', '.join(by_name)}")
                    ok = False
                    continue
                et = read_example_tensor(st, value, by_name[str(key.value)], True)
                if et is None:
                    ok = False
                else:
                    got[str(key.value)] = et
            for t in inputs:
                if not t.optional and t.name not in got and not any(k.value == t.name for k, _ in input_entries):
                    r.error(im, f"missing example input '{t.name}'; every required input needs one")
                    ok = False
    attr_values: dict[str, Any] = {}
    attr_by_name = {a.name: a for a in attrs}
    if "attrs" in m:
        am = m["attrs"]
        attr_entries = r.mapping_entries(am, "attr name to value")
        if attr_entries is None:
            ok = False
        else:
            for key, value in attr_entries:
                a = attr_by_name.get(str(key.value)) if isinstance(key.value, str) else None
                if a is None:
                    allowed = ", ".join(attr_by_name) or "(none)"
                    r.error(key, f"{_show_key(key.value)} is not an attr; allowed: {allowed}")
                    ok = False
                    continue
                v: Any = None
                if a.is_array:
                    v = read_array_value(st, value, a.type, a.length, "value")
                elif a.type:
                    v = read_attr_value(st, value, a.type, a.values, "value")
                if a.type == "scalar" and a.scalar_dtypes[:1] == ("FLOAT",) and isinstance(v, float):
                    # the example program makes the aclScalar from a C float (its first dtype)
                    v = within_dtype(st, value, v, "FLOAT")
                if v is None:
                    ok = False
                else:
                    attr_values[a.name] = v
    for a in attrs:
        if a.name not in attr_values and a.default is not None:
            attr_values[a.name] = a.default
            d = a.default
            limit = FLOAT_DTYPE_MAX["FLOAT"]
            if a.scalar_dtypes[:1] == ("FLOAT",) and isinstance(d, float) and abs(d) > limit:
                # the default becomes the example program's C float value (a host-side double elsewhere)
                r.error(
                    m.get("attrs", node),
                    f"the default {d:g} of '{a.name}' is the example's value, and it is beyond FLOAT's range "
                    f"(+-{limit:.9g}); give '{a.name}' an example value within it",
                )
                ok = False
        elif (
            a.name not in attr_values
            and a.name not in st.unread_defaults
            and not any(k.value == a.name for k, _ in map_entries(m.get("attrs")))
        ):
            where = m.get("attrs", node)
            r.error(where, f"missing example attr '{a.name}' (it has no default)")
            ok = False
    output = None
    if "output" in m:
        output = read_example_tensor(st, m["output"], outputs[0] if outputs else None, False)
    if output is None or not ok:
        return None
    if outputs and outputs[0].shape is not None and "output" in m:
        env: dict[str, object] = {**absent_optional_shapes(inputs, got), **got, **attr_values}
        try:
            ruled = as_shape(evaluate(outputs[0].shape, env))
            expected = compute.first_output_shape(ruled, attr_values) if compute is not None else ruled
        except ExprEvalError as exc:
            r.error(m["output"], f"the example inputs do not fit the output shape {to_source(outputs[0].shape)}: {exc}")
            return None
        if expected != output.shape:
            r.error(
                m["output"],
                f"example output shape {list(output.shape)} does not match "
                + (
                    f"{to_source(outputs[0].shape)} = {list(expected)}"
                    if expected == ruled
                    else f"{list(expected)}, the shape the example's attrs select (the shape rule "
                    f"{to_source(outputs[0].shape)} gives {list(ruled)})"
                ),
            )
            return None
    ordered = tuple((t.name, got[t.name]) for t in inputs if t.name in got)
    attr_pairs = tuple((a.name, attr_values[a.name]) for a in attrs if a.name in attr_values)
    return Example(ordered, attr_pairs, output, node.loc)
