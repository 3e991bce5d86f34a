"""The example program of an op (``examples/test_aclnn_<op>.cpp``): its tensors' host data, attrs and outputs."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from codegen.spec.model import DType, OpSpec, absent_optional_shapes
from codegen.types import ATTR_TYPE_INFO


def c_float(value: float) -> str:
    """A C++ float literal that round-trips ``value`` exactly through fp32."""
    text = repr(float(np.float32(value)))
    if "e" not in text and "." not in text and "inf" not in text and "nan" not in text:
        text += ".0"
    return text + "f"


@dataclass(frozen=True)
class ExampleTensor:
    """One tensor of the example program: ``name``; ``shape`` (C++ initializer text); ``acl_dtype``
    (``ACL_*``); ``host_type`` (C++ host element type); ``data`` (initializer text of the host values);
    ``is_output``; ``print_fmt`` (printf format of a value); ``is_16bit`` (printed through a float
    conversion); ``dtype`` (spec dtype name); ``is_list``: the parameter is a tensor list (``list: true``), passed
    as a list of this one tensor."""

    name: str
    shape: str
    acl_dtype: str
    host_type: str
    data: str
    is_output: bool
    print_fmt: str
    is_16bit: bool
    dtype: str
    is_list: bool = False


@dataclass(frozen=True)
class ExampleAttr:
    """One attr of the example program: ``name``, host ``c_type``, ``value`` (C++ text); ``string`` is
    ``"1"`` for a ``char *`` attr; ``scalar_acl`` is the ``ACL_*`` dtype an aclScalar attr is made with
    (``""`` for other attrs); ``array`` is ``IntArray`` or ``BoolArray`` for an array attr, made from the
    host vector ``value`` (``{2, 2}``) with ``aclCreate<array>`` and destroyed with ``aclDestroy<array>``."""

    name: str
    c_type: str
    value: str
    string: str = ""
    scalar_acl: str = ""
    array: str = ""


@dataclass(frozen=True)
class ExampleData:
    """The example program's data: ``tensors`` (inputs then the output), ``attrs``, the ``output`` tensor,
    ``null_inputs`` (optional inputs passed as null pointers) and ``uses_bf16`` (the program needs its bf16
    helpers)."""

    tensors: tuple[ExampleTensor, ...]
    attrs: tuple[ExampleAttr, ...]
    output: ExampleTensor
    null_inputs: tuple[str, ...]
    uses_bf16: bool


def example_view(spec: OpSpec) -> ExampleData | None:
    """Host data of the spec's example for the example program, or None when the spec has none.

    Values are written in the host type of each dtype: FLOAT16 as ``aclFloat16`` built with acl's
    ``aclFloatToFloat16``, BF16 as ``uint16_t`` bits built with the program's ``FloatToBf16``; 16-bit
    results are printed as floats (``aclFloat16ToFloat``, ``Bf16ToFloat``). ``uses_bf16`` says whether the
    program needs its bf16 helpers;
    ``null_inputs`` lists the optional inputs the example leaves out (passed as null pointers).
    """
    ex = spec.example
    if ex is None:
        return None
    import ml_dtypes  # noqa: F401  (registers bfloat16 with NumPy)

    tensors = []
    lists = {t.name for t in (*spec.inputs, *spec.outputs) if t.is_list}
    for name, et in ex.inputs:
        values = list(et.values or [])
        made = _example_tensor(name, et.shape, et.dtype, values, is_output=False)
        tensors.append(dataclasses.replace(made, is_list=name in lists))
    out_name = spec.outputs[0].name
    size = int(np.prod(ex.output.shape)) if ex.output.shape else 1
    first_out = _example_tensor(out_name, ex.output.shape, ex.output.dtype, [0] * size, is_output=True)
    first_out = dataclasses.replace(first_out, is_list=out_name in lists)
    tensors.append(first_out)
    tensors.extend(_more_example_outputs(spec))
    attrs = []
    for name, value in ex.attrs:
        a = spec.attr(name)
        text = str(value).lower() if isinstance(value, bool) else str(value)
        if a.is_array and isinstance(value, tuple):
            items = ", ".join(str(v).lower() if isinstance(v, bool) else str(v) for v in value)
            element = "bool" if a.type == "bool_array" else "int64_t"
            array = ATTR_TYPE_INFO[a.type].array.removeprefix("acl")
            attrs.append(ExampleAttr(name, element, f"{{{items}}}", array=array))
        elif a.type == "string":
            attrs.append(ExampleAttr(name, "char", text, string="1"))
        elif a.type == "scalar":
            # An aclScalar made from a host value of the attr's first accepted dtype (FLOAT or DOUBLE).
            c_type, acl = ("double", "ACL_DOUBLE") if "FLOAT" not in a.scalar_dtypes[:1] else ("float", "ACL_FLOAT")
            if c_type == "float" and not isinstance(value, bool):
                # a float literal: 0.01 would warn (-Wfloat-conversion) as a double
                text = f"{float(cast(float, value))!r}f"
            attrs.append(ExampleAttr(name, c_type, text, scalar_acl=acl))
        elif a.type == "float":  # a float literal: 1e-05 as a double would warn (-Wfloat-conversion)
            attrs.append(ExampleAttr(name, "float", f"{float(cast(float, value))!r}f"))
        else:
            attrs.append(ExampleAttr(name, ATTR_TYPE_INFO[a.type].c_type, text))
    given = {name for name, _ in ex.inputs}
    null_inputs = [t.name for t in spec.inputs if t.optional and t.name not in given]
    uses_bf16 = any(t.dtype == "BF16" for t in tensors)
    return ExampleData(tuple(tensors), tuple(attrs), first_out, tuple(null_inputs), uses_bf16)


def _more_example_outputs(spec: OpSpec) -> list[ExampleTensor]:
    """The example program's tensors of the outputs after the first (the program prints only the first):
    each of its shape rule on the example's inputs and of the dtype the spec's ``dtype_combos`` give it for
    the example's input dtypes (else its first dtype), zero-filled."""
    from codegen.spec.expr import as_shape, evaluate

    ex = spec.example
    if ex is None or len(spec.outputs) < 2:
        return []
    ins = dict(ex.inputs)
    env: dict[str, object] = {**absent_optional_shapes(spec.inputs, ins), **{n: et.shape for n, et in ins.items()}}
    env.update(dict(ex.attrs))
    combo = next(
        (c for c in spec.dtype_combos if all(n not in ins or c.dtype(n) is ins[n].dtype for n in spec.input_names)),
        None,
    )
    out = []
    for t in spec.outputs[1:]:
        shape = as_shape(evaluate(t.shape, env)) if t.shape is not None else ex.output.shape
        dtype = combo.dtype(t.name) if combo is not None else t.dtypes[0]
        out.append(_example_tensor(t.name, shape, dtype, [0] * int(np.prod(shape, dtype=np.int64)), is_output=True))
    return out


def _example_tensor(
    name: str, shape: tuple[int, ...], dtype: DType, values: list[Any], is_output: bool
) -> ExampleTensor:
    arr = np.asarray(values, dtype=np.float64 if dtype.is_floating else np.int64).astype(dtype.numpy_name)
    if dtype is DType.FLOAT16:
        # As CANN's samples do: fp16 host data through acl's aclFloatToFloat16 (each value is an fp16 value,
        # exact in fp32, so the conversion gives its bits).
        host_values = [f"aclFloatToFloat16({c_float(float(v))})" for v in arr]
    elif dtype is DType.BF16:
        # acl has no bf16 helper: the example's own FloatToBf16 (bf16 is the upper half of an fp32).
        host_values = [f"FloatToBf16({c_float(float(v))})" for v in arr]
    elif dtype is DType.BOOL:
        host_values = ["1" if v else "0" for v in arr]
    elif dtype.is_floating:
        host_values = [repr(float(v)) for v in arr]
    else:
        host_values = [str(int(v)) for v in arr]
    return ExampleTensor(
        name=name,
        shape=", ".join(str(d) for d in shape),
        acl_dtype=dtype.acl_name,
        host_type=dtype.host_type,
        data=", ".join(host_values),
        is_output=is_output,
        print_fmt=dtype.printf_format,
        is_16bit=dtype.is_16bit_float,
        dtype=dtype.name,
    )
