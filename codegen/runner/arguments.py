"""A call's arguments other than single arrays, checked against their C types: attribute values, aclScalars
(:class:`ScalarArg`), tensor lists (:func:`tensor_list_value`) and the tensors' storage formats."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from codegen.runner.dtypes import numpy_dtype
from codegen.spec.model import ACL_FORMATS, PRIVATE_ACL_FORMATS, AttrSpec, DType, OpSpec, TensorSpec
from codegen.types import ATTR_TYPE_INFO


def format_ids(spec: OpSpec, formats: dict[str, str] | None) -> dict[str, int]:
    """``aclFormat`` values of a call's ``formats`` option (tensor name -> format name).

    Raises:
        TypeError: ``formats`` is not a mapping, or a format is not a string.
        ValueError: a name that is not a tensor of ``spec`` or a format that is not in
            ``codegen.spec.model.ACL_FORMATS`` / ``PRIVATE_ACL_FORMATS``.
    """
    known = {**ACL_FORMATS, **PRIVATE_ACL_FORMATS}
    names = {t.name for t in (*spec.inputs, *spec.outputs)}
    out: dict[str, int] = {}
    if formats is not None and not isinstance(formats, Mapping):
        raise TypeError(
            f"{spec.aclnn_name}: formats takes a dict of tensor name -> format name (e.g. {{'self': 'NCHW'}}), "
            f"got {type(formats).__name__} {formats!r}"
        )
    for name, fmt in (formats or {}).items():
        if not isinstance(fmt, str):
            raise TypeError(
                f"{spec.aclnn_name}: the format of '{name}' must be a format name (a str), "
                f"got {type(fmt).__name__} {fmt!r}"
            )
        if name not in names:
            raise ValueError(f"{spec.aclnn_name}: formats names '{name}', which is not a tensor of the op")
        if fmt not in known:
            raise ValueError(f"{spec.aclnn_name}: unknown format '{fmt}' for '{name}'; known: {', '.join(known)}")
        out[name] = known[fmt]
    return out


@dataclass(frozen=True)
class ScalarArg:
    """The value of a ``scalar`` attribute: ``value`` passed as an aclScalar of ``dtype`` (a name of
    ``SCALAR_ACL_IDS``, e.g. ``FLOAT``). A real number given for a scalar attribute (a Python ``int`` or
    ``float``, or a NumPy real) becomes ``ScalarArg(float(number), number_scalar_dtype(attr))``: a C double,
    as a DOUBLE aclScalar where the attr takes one; a bool becomes a BOOL aclScalar where the attr takes one.
    Pass a ScalarArg to choose another dtype."""

    value: float | int | bool
    dtype: str


def number_scalar_dtype(attr: AttrSpec) -> str:
    """The aclScalar dtype a real number given for the ``scalar`` attr ``attr`` is passed as: ``DOUBLE`` where
    it takes one, else its first floating dtype (:attr:`codegen.spec.model.AttrSpec.number_dtype`)."""
    return attr.number_dtype


#: NumPy storage of each aclScalar dtype (the type table's NumPy names; BF16 through ml_dtypes).
_SCALAR_NUMPY: dict[str, Any] = {d.name: numpy_dtype(d).type for d in DType}


#: The range of each integer attr type (values outside would wrap silently when passed to C).
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def call_attrs(spec: OpSpec, params: Mapping[str, Any]) -> dict[str, Any]:
    """The attribute values of a call with keyword arguments ``params``, by attr name, as ctypes passes them:
    the given value checked by :func:`attr_value`, else the attr's ``default``.

    Raises:
        TypeError: an attr without a default is missing from ``params``, or a value has the wrong type
            (:func:`attr_value`).
        ValueError: a value outside its C type's range (:func:`attr_value`).
    """
    attrs: dict[str, Any] = {}
    for a in spec.attrs:
        if a.name in params:
            attrs[a.name] = attr_value(spec, a, params[a.name])
        elif a.default is not None:
            attrs[a.name] = attr_value(spec, a, a.default) if a.type in ("scalar", "string") else a.default
        else:
            raise TypeError(f"{spec.aclnn_name}: missing attribute '{a.name}'")
    return attrs


def attr_value(spec: OpSpec, attr: AttrSpec, value: Any) -> Any:
    """``value`` checked against ``attr``'s C type, as the Python value ctypes passes.

    Integer attrs (``int64``, ``uint64``) take Python or NumPy integers within the type's range, except the
    padding-row attr of a row-accumulating op (``paddingIdx``), a uint64 whose values negative as int64 mean
    "no padding row": it also takes PyTorch's ``-1`` (any negative int64), passed as the same bits
    (``-1`` -> ``2**64 - 1``); ``bool``
    attrs take ``True``/``False`` (or NumPy bools); ``float``/``double`` attrs take real numbers (``float``:
    within the finite float32 range, or inf/NaN). Array attrs take a list, tuple or 1-D NumPy array of
    integers within int64 (``int_array``) or of bools (``bool_array``), returned as a tuple, or None (a null
    pointer: the API returns 161001); their length is not checked here (the API answers 161002).

    Raises:
        TypeError: a string, float or other non-integer for an integer attr; anything but a bool for a bool
            attr (``"True"`` is not a bool); a non-number for a float attr; for an array attr, anything but a
            list, tuple or 1-D array, or an element of the wrong kind.
        ValueError: an integer outside ``[-2**63, 2**63 - 1]`` (int64) or ``[0, 2**64 - 1]`` (uint64), or a
            finite float beyond float32's range for a ``float`` attr; an ``int_array`` element outside int64.
    """
    where = f"{spec.aclnn_name}: attribute '{attr.name}' ({attr.type})"
    if attr.is_array:
        return _array_value(where, attr, value)
    if attr.type == "scalar":
        if value is None or isinstance(value, ScalarArg):
            if isinstance(value, ScalarArg) and value.dtype not in _SCALAR_NUMPY:
                raise ValueError(f"{where}: unknown aclScalar dtype {value.dtype!r}")
            overflow = _scalar_overflow(value) if isinstance(value, ScalarArg) else ""
            if overflow:
                raise ValueError(f"{where}: {overflow}")
            return value  # None passes a null aclScalar (the API returns 161001)
        if isinstance(value, (bool, np.bool_)) and "BOOL" in attr.scalar_dtypes:
            return ScalarArg(bool(value), "BOOL")
        # elsewhere a bool is the number it is (True is 1.0), as any other real number
        if not isinstance(value, (int, float, np.integer, np.floating, bool, np.bool_)):
            raise TypeError(f"{where} takes a real number, got {type(value).__name__} {value!r}")
        try:
            arg = ScalarArg(float(value), number_scalar_dtype(attr))
        except OverflowError:
            raise ValueError(
                f"{where} = {value!r} does not fit a double (an aclScalar holds at most a double)"
            ) from None
        overflow = _scalar_overflow(arg)
        if overflow:
            raise ValueError(f"{where}: {overflow}")
        return arg
    if attr.type == "string":
        if value is None:
            return None  # a null char * (the API returns 161001)
        if not isinstance(value, str):
            raise TypeError(f"{where} takes a str, got {type(value).__name__} {value!r}")
        if "\0" in value:
            raise ValueError(f"{where} = {value!r} holds a NUL character, which a C string (char *) cannot carry")
        try:
            return value.encode()  # any string: the API answers 161002 for one outside the values
        except UnicodeEncodeError as exc:  # a lone surrogate ("\udc80"): no UTF-8 char * holds it
            raise ValueError(
                f"{where} holds {value[exc.start : exc.end]!r} at index {exc.start}, which UTF-8 cannot encode "
                "(a lone surrogate); a C string (char *) cannot carry it"
            ) from None
    if attr.type == "bool":
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        raise TypeError(f"{where} takes True or False, got {type(value).__name__} {value!r}")
    int_range = ATTR_TYPE_INFO[attr.type].int_range
    if int_range is not None:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{where} takes an integer, got {type(value).__name__} {value!r}")
        lo, hi = int_range
        if attr.type == "uint64" and attr.name == getattr(spec.compute, "padding", None) and -(2**63) <= value < 0:
            return int(value) + 2**64  # negative as int64: no padding row (PyTorch's padding_idx=-1)
        if not lo <= int(value) <= hi:
            raise ValueError(f"{where} must be in [{lo}, {hi}], got {int(value)}; it would wrap in C")
        return int(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{where} takes a real number, got {type(value).__name__} {value!r}")
    f = float(value)
    if attr.type == "float" and np.isfinite(f) and abs(f) > _FLOAT32_MAX:
        raise ValueError(f"{where} must be within float32's range (+-{_FLOAT32_MAX:.9g}), got {f!r}")
    return f


def _array_value(where: str, attr: AttrSpec, value: Any) -> tuple[int, ...] | tuple[bool, ...] | None:
    """``value`` of an array attr as a tuple of Python ints (``int_array``) or bools (``bool_array``), or None.

    Raises:
        TypeError: not a list, tuple or 1-D NumPy array, or an element of the wrong kind (a bool in an
            int_array, an integer in a bool_array).
        ValueError: an int_array element outside int64.
    """
    if value is None:
        return None  # a null aclIntArray / aclBoolArray (the API returns 161001)
    if isinstance(value, np.ndarray) and value.ndim == 1:
        value = value.tolist()
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{where} takes a list or tuple, got {type(value).__name__} {value!r}")
    if attr.type == "bool_array":
        if not all(isinstance(v, (bool, np.bool_)) for v in value):
            raise TypeError(f"{where} takes a list of True/False, got {value!r}")
        return tuple(bool(v) for v in value)
    if any(isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) for v in value):
        raise TypeError(f"{where} takes a list of integers, got {value!r}")
    lo, hi = ATTR_TYPE_INFO[attr.type].int_range or (0, 0)
    bad = [int(v) for v in value if not lo <= int(v) <= hi]
    if bad:
        raise ValueError(f"{where}: element {bad[0]} is outside [{lo}, {hi}]; it would wrap in C")
    return tuple(int(v) for v in value)


def _scalar_overflow(value: ScalarArg) -> str:
    """Why ``value.value`` cannot be an aclScalar of ``value.dtype``, or ``''``: a finite float that would round
    to an infinity there (``1e300`` as FLOAT, ``1e39`` as BF16); for an integer dtype, a value that is not an
    integer (``1.5``, NaN, an infinity: C would truncate or make it undefined) or one outside the dtype's range
    (``2**40`` as INT32: it would wrap)."""
    if value.dtype not in _SCALAR_NUMPY or isinstance(value.value, (bool, np.bool_)):
        return ""
    kind = np.dtype(_SCALAR_NUMPY[value.dtype])
    if DType[value.dtype].is_integer:
        v = value.value
        if isinstance(v, (float, np.floating)) and not (np.isfinite(v) and float(v).is_integer()):
            return f"an aclScalar of {value.dtype} holds an integer; got {v!r}"
        info = np.iinfo(kind)
        if not info.min <= int(v) <= info.max:
            return f"{int(v)} is outside the range of an aclScalar of {value.dtype} ([{info.min}, {info.max}])"
        return ""
    if not DType[value.dtype].is_floating or not isinstance(value.value, (float, int, np.floating, np.integer)):
        return ""
    try:
        f = float(value.value)
    except OverflowError:
        return f"{value.value!r} does not fit a double, nor an aclScalar of {value.dtype}"
    if not np.isfinite(f):
        return ""
    with np.errstate(over="ignore", invalid="ignore"):
        stored = np.asarray([f], dtype=kind)[0]
    if np.isfinite(stored):
        return ""
    return (
        f"{f!r} is beyond the range of an aclScalar of {value.dtype} (it would be {float(stored)}); "
        "pass ScalarArg(value, 'DOUBLE') to an attribute that takes a DOUBLE aclScalar"
    )


#: What a tensor-list parameter holds in a call: its arrays in list order (None for a null element), or None
#: for a null aclTensorList.
TensorListValue = tuple["np.ndarray | None", ...] | None


def tensor_list_value(spec: OpSpec, tensor: TensorSpec, value: Any) -> TensorListValue:
    """The value of the tensor-list parameter ``tensor`` (``list: true``) given as ``value``: a list or tuple
    of arrays (any length, empty and 0-d arrays among them; other array-likes go through ``np.asarray``) as a
    tuple of arrays, or None for a null aclTensorList. An element None passes a null aclTensor inside the
    list (the API's per-element null check answers it).

    Raises:
        TypeError: ``value`` is not a list or tuple (a single NumPy array included: a list of one array is
            ``[a]``), naming the parameter.
    """
    if value is None:
        return None
    if not isinstance(value, (list, tuple)):
        raise TypeError(
            f"{spec.aclnn_name}: '{tensor.name}' is a tensor list (an aclTensorList) and takes a list of "
            f"arrays, got {type(value).__name__}"
            + (" (a list of one array is [a])" if isinstance(value, np.ndarray) else "")
        )
    return tuple(None if v is None else v if isinstance(v, np.ndarray) else np.asarray(v) for v in value)


def scalar_list_value(values: Sequence[Any] | None, dtype: str) -> tuple[ScalarArg, ...] | None:
    """A scalar list (an aclScalarList) given as a list or tuple of real numbers (or :class:`ScalarArg`) as
    one :class:`ScalarArg` of ``dtype`` per number (a ScalarArg keeps its own dtype); None for a null list.

    Raises:
        TypeError: ``values`` is not a list or tuple, or an element is not a real number or ScalarArg.
        ValueError: ``dtype`` is no aclScalar dtype, or a finite number would be an infinity there
            (``1e300`` as FLOAT).
    """
    if values is None:
        return None
    if dtype not in _SCALAR_NUMPY:
        raise ValueError(f"unknown aclScalar dtype {dtype!r}")
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"a scalar list (an aclScalarList) takes a list of numbers, got {type(values).__name__}")
    out: list[ScalarArg] = []
    for k, v in enumerate(values):
        if isinstance(v, ScalarArg):
            arg = v
        elif isinstance(v, (bool, np.bool_)):
            arg = ScalarArg(bool(v), dtype)
        elif isinstance(v, (int, float, np.integer, np.floating)):
            arg = ScalarArg(float(v) if isinstance(v, (float, np.floating)) else int(v), dtype)
        else:
            raise TypeError(f"a scalar list takes real numbers; element {k} is {type(v).__name__} {v!r}")
        overflow = _scalar_overflow(arg)
        if overflow:
            raise ValueError(f"scalar list element {k}: {overflow}")
        out.append(arg)
    return tuple(out)
