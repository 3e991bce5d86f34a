"""The row-reduce L0 API's view entries (``op_api/<kernel>.cpp``): the OP_ATTR values and lists it passes,
the outputs it allocates, its parameters and return type, and the arguments the L2 API calls it with."""

from __future__ import annotations

from typing import Any

from codegen.families.row_reduce.plan.tensors import column_outputs, combos, compute_of, device_rows, row_outputs
from codegen.families.row_reduce.plan.view_records import L0OutputView
from codegen.plan.dtype_columns import column_attrs, output_rules
from codegen.plan.signature import L0Attr, L0ListAttr, l0_constant_attr, l0_params
from codegen.spec.model import OpSpec, Product, fixed_inputs
from codegen.types import ATTR_TYPE_INFO, DEVICE_ATTR_TYPE_INFO


def l0_parts(spec: OpSpec, products: list[Product]) -> dict[str, Any]:
    """The view entries of the L0 call, by name: what the L0 API (:class:`view_kinds.L0SourceView`, the L0
    header) declares and passes, and the arguments the L2 API (``l0_args``) and the infershape function read of
    it; ``products`` are the op's catalogue products (a dtype column narrowed to some NpuArchs is launched
    only there)."""
    comp = compute_of(spec)
    dev = spec.device_interface
    l0_attrs: list[L0Attr] = []
    l0_lists: list[L0ListAttr] = []
    # the L0 parameters after the tensors, with the L2 API's argument for each (aclnn attr order)
    l0_extra: list[tuple[str, str]] = []
    # a constant attr a dtype column sets is an L0 parameter: the L2 API passes the launched column's value
    set_by_columns = {a.name: a for a in column_attrs(spec, lambda n: _l2_tensor(spec, n), products)}
    for da in dev.attrs:
        if da.name in set_by_columns:
            l0_attrs.append(L0Attr(da.name, set_by_columns[da.name].decl, da.name))
            l0_extra.append((set_by_columns[da.name].decl, da.name))
        elif da.source is None:
            l0_attrs.append(l0_constant_attr(da))
        elif da.type == "list_bool":  # the caller's aclBoolArray, passed on as it is (LayerNormGradV3's output_mask)
            decl = f"const aclBoolArray *{da.source}"
            l0_attrs.append(L0Attr(da.name, decl, da.source))
            l0_extra.append((decl, da.source))
        elif DEVICE_ATTR_TYPE_INFO[da.type].is_list:
            l0_lists.append(L0ListAttr(da.name, da.source, da.name))
            l0_attrs.append(L0Attr(da.name, f"{DEVICE_ATTR_TYPE_INFO[da.type].l0_type}{da.name}", da.name))
        elif da.type == "float":  # a float/double aclnn attr, sent as the fp32 value of a Float attr
            l0_attrs.append(L0Attr(da.name, f"float {da.source}", da.source))
            l0_extra.append((f"float {da.source}", f"static_cast<float>({da.source})"))
        else:
            l0_attrs.append(L0Attr(da.name, f"{ATTR_TYPE_INFO[spec.attr(da.source).type].c_type} {da.name}", da.source))
    if comp.dim:
        l0_extra.insert(0, (f"int64_t {comp.dim}", comp.dim))
    # a device input carrying an int_array attr: the L0 API takes the array and converts it to a tensor
    # (ConvertToTensor), as ops-nn's l0op::LayerNormV4 does
    arrays = [(d.source, d.dtype.ge_name, d.name) for d in dev.inputs if d.dtype is not None and d.source]
    l0_extra[:0] = [(f"const aclIntArray *{n}", n) for n, _, _ in arrays]
    # the rank of the reduced dims: in the L2 API of the aclnn parameter comp.rows, in the L0 API of what it takes
    # (the int_array attr, or the first rows input when the attr stays on the host, device.host_attrs)
    rows_rank = _rank_of(comp.rows or "", bool(comp.rows_attr))
    l0_rows = device_rows(spec)
    l0_rows_rank = _rank_of(l0_rows, bool(comp.rows_attr) and l0_rows == comp.rows_attr)
    # a nullable output: whether the caller passed it (the L0 API then allocates it with no element)
    present = {t.name: f"{t.name}Present" for t in spec.outputs if t.nullable}
    l0_extra += [(f"bool {flag}", f"{name} != nullptr") for name, flag in present.items()]
    first = spec.inputs[0]
    per_row = row_outputs(spec)
    l0_outputs = []
    fixed_dtypes = {}
    for d_out in dev.outputs:
        src = d_out.source or ""
        dts = {c.dtype(src) for c in combos(spec)}
        same = all(c.dtype(src) is c.dtype(first.name) for c in combos(spec))
        fixed = next(iter(dts)) if len(dts) == 1 and not same else None
        fixed_dtypes[src] = fixed
        dtype_cpp = f"op::DataType::{fixed.ge_name}" if fixed is not None else f"{first.name}->GetDataType()"
        name = "result" if len(dev.outputs) == 1 else f"{d_out.name}Result"
        l0_outputs.append(
            L0OutputView(name, dtype_cpp, src in per_row, src, present.get(src, ""), src in column_outputs(spec))
        )
    # device dtype columns whose outputs differ from the first input's dtype (or the fixed one)
    rules = output_rules(spec, lambda c, src: fixed_dtypes[src] or c.combo.dtype(first.name))
    if len(l0_outputs) == 1:
        l0_return, l0_fail = "const aclTensor *", "nullptr"
    else:
        l0_return = f"std::tuple<{', '.join(['const aclTensor *'] * len(l0_outputs))}>"
        l0_fail = "{}"  # every element null (a macro argument cannot hold the tuple type's commas)
    return {
        "l0_args": [arg for _, arg in l0_extra],
        "l0_attrs": l0_attrs,
        "l0_inputs": [(f"{d.source}Tensor" if d.dtype is not None else d.source) or "nullptr" for d in dev.inputs],
        "l0_arrays": arrays,
        "rows_rank": rows_rank,
        "l0_rows_rank": l0_rows_rank,
        "l0_lists": l0_lists,
        "l0_outputs": l0_outputs,
        "l0_return": l0_return,
        "l0_fail": l0_fail,
        "l0_params": l0_params(spec, (d for d, _ in l0_extra)),
        "dtype_rules": rules,
        "column_attrs": list(set_by_columns.values()),
    }


def _rank_of(name: str, array: bool) -> str:
    """C++ number of reduced trailing dims read of ``name``: an int_array's length, or a tensor's rank."""
    return f"static_cast<size_t>({name}->Size())" if array else f"{name}->GetViewShape().GetDimNum()"


def _l2_tensor(spec: OpSpec, name: str) -> str:
    """The L2 API's C++ tensor whose dtype it compares with a column's for aclnn tensor ``name``: the tensor
    it passes the L0 API for an input, the aclnn output itself for an output."""
    if name not in spec.input_names:
        return name
    cast = spec.promote_type == "out" or name in fixed_inputs(spec.device_interface.launched_columns, spec.inputs)
    return f"{name}Casted" if cast else f"{name}Contiguous"
