"""Tensor lists and scalar lists in the Python API: a list parameter's value (a list of NumPy arrays, a list of
numbers), the aclTensorList / aclScalarList the runner makes of it through the library's real C ABI (read back
with opbase's getters: aclGetTensorListSize, aclGetViewShape, aclGetRawTensorAddr, aclGetScalarListSize), who
destroys the elements, and the memory cap and dtype refusals of a call with a list. Expected values are the
arrays' own shapes, addresses and counts, never values the runtime computed."""

from __future__ import annotations

import ctypes
import dataclasses
from collections.abc import Callable

import numpy as np
import pytest

from codegen.runner import AclnnError, OpCallable, ScalarArg
from codegen.runner.arguments import scalar_list_value, tensor_list_value
from codegen.runner.memory import check_call_size
from codegen.specs import load_project, resolve_op

OP = "soft_margin_loss_backward"
PRODUCT = "Ascend910B"
ACLNN_ERR_PARAM_INVALID = 161002


def _listed(spec_name: str, *names: str) -> object:
    """The project's spec of ``spec_name`` with the tensors ``names`` made tensor lists (``list: true``)."""
    specs = load_project()[1]
    spec = specs[resolve_op(spec_name, specs).snake]
    inputs = tuple(dataclasses.replace(t, is_list=t.name in names) for t in spec.inputs)
    outputs = tuple(dataclasses.replace(t, is_list=t.name in names) for t in spec.outputs)
    return dataclasses.replace(spec, inputs=inputs, outputs=outputs)


def _shape(f: OpCallable, handle: int) -> list[int]:
    lib = f.lib
    dims = ctypes.POINTER(ctypes.c_int64)()
    n = ctypes.c_uint64()
    lib.aclGetViewShape.restype = ctypes.c_int32
    lib.aclGetViewShape.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    assert lib.aclGetViewShape(ctypes.c_void_p(handle), ctypes.byref(dims), ctypes.byref(n)) == 0
    return [dims[i] for i in range(n.value)]


def _strides(f: OpCallable, handle: int) -> list[int]:
    lib = f.lib
    values = ctypes.POINTER(ctypes.c_int64)()
    n = ctypes.c_uint64()
    lib.aclGetViewStrides.restype = ctypes.c_int32
    lib.aclGetViewStrides.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    assert lib.aclGetViewStrides(ctypes.c_void_p(handle), ctypes.byref(values), ctypes.byref(n)) == 0
    return [values[i] for i in range(n.value)]


def _addr(f: OpCallable, handle: int) -> int:
    lib = f.lib
    out = ctypes.c_void_p()
    lib.aclGetRawTensorAddr.restype = ctypes.c_int32
    lib.aclGetRawTensorAddr.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    assert lib.aclGetRawTensorAddr(ctypes.c_void_p(handle), ctypes.byref(out)) == 0
    return out.value or 0


def _list_size(f: OpCallable, kind: str, handle: ctypes.c_void_p) -> int:
    getter = getattr(f.lib, f"aclGet{kind}ListSize")
    getter.restype = ctypes.c_int32
    getter.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    n = ctypes.c_uint64(12345)
    assert getter(handle, ctypes.byref(n)) == 0
    return n.value


def test_list_values() -> None:
    spec = _listed(OP, "self")
    tensor = next(t for t in spec.inputs if t.name == "self")  # type: ignore[attr-defined]
    a, empty, zero_d = np.ones((3, 5), np.float32), np.zeros((0, 4), np.float32), np.float32(2.5)
    got = tensor_list_value(spec, tensor, [a, empty, zero_d, [1.0, 2.0]])  # type: ignore[arg-type]
    assert got is not None and len(got) == 4
    assert got[0] is a and got[1].shape == (0, 4) and got[2].shape == () and got[3].shape == (2,)
    assert tensor_list_value(spec, tensor, []) == ()  # type: ignore[arg-type]
    assert tensor_list_value(spec, tensor, None) is None  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"'self' is a tensor list .* got ndarray \(a list of one array is \[a\]\)"):
        tensor_list_value(spec, tensor, a)  # type: ignore[arg-type]
    scalars = scalar_list_value([1, 2.5, True, ScalarArg(3, "INT32")], "FLOAT")
    assert scalars == (ScalarArg(1, "FLOAT"), ScalarArg(2.5, "FLOAT"), ScalarArg(True, "FLOAT"), ScalarArg(3, "INT32"))
    with pytest.raises(TypeError, match="element 1 is str"):
        scalar_list_value([1.0, "2"], "FLOAT")
    with pytest.raises(ValueError, match=r"element 0: 1e\+300 is beyond the range of an aclScalar of FLOAT"):
        scalar_list_value([1e300], "FLOAT")


def test_tensor_list_through_the_c_abi(built_op: Callable[[str, str], OpCallable]) -> None:
    f = built_op(OP, PRODUCT)
    base = np.arange(40, dtype=np.float32).reshape(5, 8)
    arrays = (base, np.zeros((0, 4), np.float16), np.array(7, np.int32), base[::2, 1:4])
    made = f.make_tensor_list(arrays)
    elements = made.keep[0]
    assert made.kind == "TensorList" and made.handle.value
    assert _list_size(f, "Tensor", made.handle) == 4
    assert [_shape(f, e.handle.value) for e in elements] == [[5, 8], [0, 4], [], [3, 3]]
    # each element's storage is its array's memory; the strided view's storage starts at the first byte it
    # spans (base[0, 1]) and keeps its strides in elements (two rows of 8, one column)
    assert _addr(f, elements[0].handle.value) == base.ctypes.data
    assert _addr(f, elements[3].handle.value) == base.ctypes.data + 4
    assert _strides(f, elements[3].handle.value) == [16, 1]
    assert _addr(f, elements[2].handle.value) == arrays[2].ctypes.data
    f._destroy([made])
    # the list destroyed its elements: destroying one again is refused (the runtime tracks destroyed objects)
    assert f.lib.aclDestroyTensor(elements[0].handle) == ACLNN_ERR_PARAM_INVALID
    # an empty list is a list of no tensors, not a null pointer; None is a null pointer
    empty = f.make_tensor_list(())
    assert empty.handle.value and _list_size(f, "Tensor", empty.handle) == 0
    f._destroy([empty])
    assert f.make_tensor_list(None).handle.value is None


def test_scalar_list_through_the_c_abi(built_op: Callable[[str, str], OpCallable]) -> None:
    f = built_op(OP, PRODUCT)
    handle = f.make_scalar_list(scalar_list_value([1.5, -2, 3], "FLOAT"))
    assert handle.value and _list_size(f, "Scalar", handle) == 3
    assert f.lib.aclDestroyScalarList(handle) == 0
    assert f.make_scalar_list(None).value is None
    empty = f.make_scalar_list(())
    assert empty.value and _list_size(f, "Scalar", empty) == 0
    assert f.lib.aclDestroyScalarList(empty) == 0


def test_call_with_a_list_parameter(
    built_op: Callable[[str, str], OpCallable], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The call's own refusals of a list, before phase 1: a single array, an element no aclDataType
    represents (161002, naming the element), and the memory cap counting every element."""
    f = OpCallable(built_op(OP, PRODUCT).built)
    f.spec = _listed(OP, "self")  # type: ignore[assignment]
    x = np.ones((2, 2), np.float32)
    with pytest.raises(TypeError, match="'self' is a tensor list"):
        f(gradOutput=x, self=x, target=x, reduction=0)
    with pytest.raises(AclnnError, match=r"self\[1\] has NumPy dtype object") as err:
        # out= given: the elementwise family allocates no output for a list (only a tensor_lists family does)
        f(gradOutput=x, self=[x, np.array([object()])], target=x, reduction=0, out=np.empty((2, 2), np.float32))
    assert err.value.status == ACLNN_ERR_PARAM_INVALID
    monkeypatch.setenv("OPGEN_MAX_CALL_BYTES", "1000")
    arrays = {"gradOutput": x, "self": (np.ones(100, np.float32), np.ones(200, np.float32)), "target": x}
    with pytest.raises(ValueError, match=r"about 1.2 KiB .*self: a list of 2 tensors"):
        check_call_size(f.spec, arrays, {"reduction": 0}, out_given=True)  # 16 + 400 + 800 + 16 bytes
    check_call_size(f.spec, {**arrays, "self": (np.ones(100, np.float32),)}, {"reduction": 0}, out_given=True)
