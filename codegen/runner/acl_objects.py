"""The acl objects one aclnn call passes (aclTensor, aclTensorList, aclScalar, aclScalarList, aclIntArray,
aclBoolArray), made from NumPy arrays and Python values through a built library's C ABI, and destroyed after.

Each maker calls the creation function opbase declares in ``include/aclnn/acl_meta.h`` with the parameter types
:func:`declare_acl_objects` gives ctypes.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

import numpy as np

from codegen.runner.arguments import _SCALAR_NUMPY, ScalarArg, TensorListValue
from codegen.runner.dtypes import acl_dtype_id
from codegen.runner.memory import _byte_bounds
from codegen.spec.model import SCALAR_ACL_IDS, OpSpec
from codegen.types import ATTR_TYPE_INFO


def declare_acl_objects(lib: ctypes.CDLL) -> None:
    """Gives ctypes the result and parameter types of the library's acl object functions: ``aclCreateTensor``
    (``const int64_t *viewDims, uint64_t viewDimsNum, aclDataType, const int64_t *stride, int64_t offset,
    aclFormat, const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData``), ``aclCreateScalar(void
    *value, aclDataType)``, ``aclCreateTensorList``/``aclCreateScalarList(const T *const *value, uint64_t size)``,
    ``aclCreateIntArray(const int64_t *, uint64_t)``, ``aclCreateBoolArray(const bool *, uint64_t)``, each
    ``aclDestroy*`` (``aclnnStatus`` of one pointer) and ``aclGetRecentErrMsg``."""
    lib.aclCreateTensor.restype = ctypes.c_void_p
    lib.aclCreateTensor.argtypes = [
        ctypes.POINTER(ctypes.c_int64),
        ctypes.c_uint64,
        ctypes.c_int32,
        ctypes.POINTER(ctypes.c_int64),
        ctypes.c_int64,
        ctypes.c_int32,
        ctypes.POINTER(ctypes.c_int64),
        ctypes.c_uint64,
        ctypes.c_void_p,
    ]
    lib.aclCreateScalar.restype = ctypes.c_void_p
    lib.aclCreateScalar.argtypes = [ctypes.c_void_p, ctypes.c_int32]
    for kind in ("Tensor", "Scalar"):  # aclCreateTensorList / aclCreateScalarList
        create = getattr(lib, f"aclCreate{kind}List")
        create.restype = ctypes.c_void_p
        create.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint64]
    for array, element in (("IntArray", ctypes.c_int64), ("BoolArray", ctypes.c_bool)):
        create = getattr(lib, f"aclCreate{array}")
        create.restype = ctypes.c_void_p
        create.argtypes = [ctypes.POINTER(element), ctypes.c_uint64]
    for kind in ("Tensor", "Scalar", "TensorList", "ScalarList", "IntArray", "BoolArray"):
        destroy = getattr(lib, f"aclDestroy{kind}")
        destroy.restype = ctypes.c_int32
        destroy.argtypes = [ctypes.c_void_p]
    lib.aclGetRecentErrMsg.restype = ctypes.c_char_p


@dataclass
class TensorArg:
    """An acl object the call made for a tensor parameter: ``handle`` (an aclTensor, or an aclTensorList when
    ``kind`` is ``TensorList``: the list owns its element tensors and ``aclDestroyTensorList`` destroys them),
    and the Python objects its memory lives in."""

    handle: ctypes.c_void_p
    keep: tuple[Any, ...]
    kind: str = "Tensor"


class AclObjects:
    """Makes and destroys the acl objects of a call through ``lib`` (a loaded op library whose functions
    :func:`declare_acl_objects` typed); ``spec`` names the op in error messages. :class:`OpCallable
    <codegen.runner.op_callable.OpCallable>` is one."""

    lib: ctypes.CDLL
    spec: OpSpec

    def make_tensor(self, array: np.ndarray | None, fmt: int = 2) -> TensorArg:
        """Wraps ``array`` in an aclTensor (strides and offset in elements, storage = the bytes it spans);
        ``None`` is a null pointer.

        Raises:
            TypeError: no aclDataType represents the array's dtype (:func:`acl_dtype_id`).
        """
        if array is None:
            return TensorArg(ctypes.c_void_p(None), ())
        acl_id = acl_dtype_id(array)
        if acl_id is None:
            raise TypeError(f"NumPy dtype {array.dtype} has no aclDataType")
        item = array.itemsize
        strides = [s // item for s in array.strides]
        if any(s < 0 or s * item != bs for s, bs in zip(strides, array.strides)):
            array = np.ascontiguousarray(array)
            strides = [s // item for s in array.strides]
        if array.size == 0:
            base_ptr, offset, storage = array.ctypes.data, 0, 0
        else:
            low, high = _byte_bounds(array)
            base_ptr = low
            offset = (array.ctypes.data - low) // item
            storage = (high - low) // item
        dims = (ctypes.c_int64 * max(1, array.ndim))(*array.shape)
        st = (ctypes.c_int64 * max(1, array.ndim))(*strides)
        storage_dims = (ctypes.c_int64 * 1)(storage)
        handle = self.lib.aclCreateTensor(
            dims, array.ndim, acl_id, st, offset, fmt, storage_dims, 1, ctypes.c_void_p(base_ptr)
        )
        return TensorArg(ctypes.c_void_p(handle), (array, dims, st, storage_dims))

    def make_tensor_list(self, arrays: TensorListValue, fmt: int = 2) -> TensorArg:
        """Wraps ``arrays`` in an aclTensorList made by ``aclCreateTensorList(const aclTensor *const *value,
        uint64_t size)`` (opbase ``include/aclnn/acl_meta.h``) of one aclTensor per array, each made as
        :meth:`make_tensor` makes one (an element None is a null aclTensor in the list); ``None`` is a null
        pointer. An empty tuple is a list of no tensors. The list owns its tensors: :meth:`_destroy` calls
        ``aclDestroyTensorList``, which destroys them too.

        Raises:
            TypeError: no aclDataType represents an element's dtype.
            ValueError: ``aclCreateTensor`` refused an element (e.g. more axes than ``gert::Shape`` holds; the
                message names its index) or ``aclCreateTensorList`` returned nullptr; nothing is left alive.
        """
        if arrays is None:
            return TensorArg(ctypes.c_void_p(None), (), "TensorList")
        elements = [self.make_tensor(a, fmt) for a in arrays]
        refused = [k for k, (a, e) in enumerate(zip(arrays, elements)) if a is not None and not e.handle.value]
        handles = (ctypes.c_void_p * max(1, len(elements)))(*(e.handle.value for e in elements))
        handle = self.lib.aclCreateTensorList(handles, len(elements)) if not refused else None
        if not handle:
            message = (self.recent_error().splitlines() or ["no error message"])[0]
            self._destroy(elements)
            what = f"aclCreateTensor refused element {refused[0]}" if refused else "aclCreateTensorList failed"
            raise ValueError(f"{self.spec.aclnn_name}: {what}: {message}")
        return TensorArg(ctypes.c_void_p(handle), (tuple(elements), handles), "TensorList")

    def make_scalar_list(self, values: tuple[ScalarArg, ...] | None) -> ctypes.c_void_p:
        """An aclScalarList made by ``aclCreateScalarList(const aclScalar *const *value, uint64_t size)`` of one
        aclScalar per value (:meth:`make_scalar`; :func:`codegen.runner.arguments.scalar_list_value` turns a
        list of numbers into ``values``); a null pointer for None. The caller destroys it with
        ``aclDestroyScalarList``, which destroys its scalars too.

        Raises:
            ValueError: the runtime refused a scalar's dtype or the list; nothing is left alive.
        """
        if values is None:
            return ctypes.c_void_p(None)
        made: list[TensorArg] = []
        try:
            for v in values:
                made.append(TensorArg(self.make_scalar(v), (), "Scalar"))
        except ValueError:
            self._destroy(made)
            raise
        handles = (ctypes.c_void_p * max(1, len(made)))(*(m.handle.value for m in made))
        handle = self.lib.aclCreateScalarList(handles, len(made))
        if not handle:
            message = self.recent_error()
            self._destroy(made)
            raise ValueError(f"aclCreateScalarList refused {len(made)} scalars: {message}")
        return ctypes.c_void_p(handle)

    def _destroy(self, args: list[TensorArg]) -> None:
        """Destroys each made object of ``args`` with its ``aclDestroy<kind>`` (a null handle is skipped)."""
        for a in args:
            if a.handle.value:
                getattr(self.lib, f"aclDestroy{a.kind}")(a.handle)

    def make_array(self, attr_type: str, values: tuple[int, ...] | tuple[bool, ...] | None) -> ctypes.c_void_p:
        """An aclIntArray (``int_array``) or aclBoolArray (``bool_array``) of ``values`` made by
        ``aclCreateIntArray(const int64_t *value, uint64_t size)`` / ``aclCreateBoolArray(const bool *value,
        uint64_t size)``; a null pointer for None. The caller destroys it with ``aclDestroyIntArray`` /
        ``aclDestroyBoolArray``.

        Raises:
            ValueError: the runtime returned nullptr.
        """
        if values is None:
            return ctypes.c_void_p(None)
        array = ATTR_TYPE_INFO[attr_type].array.removeprefix("acl")
        element = ctypes.c_bool if attr_type == "bool_array" else ctypes.c_int64
        buf = (element * max(len(values), 1))(*values)  # type: ignore[misc]
        handle = getattr(self.lib, f"aclCreate{array}")(buf, len(values))
        if not handle:
            raise ValueError(f"aclCreate{array} refused {list(values)!r}: {self.recent_error()}")
        return ctypes.c_void_p(handle)

    def make_scalar(self, value: ScalarArg | None) -> ctypes.c_void_p:
        """An aclScalar of ``value`` made by ``aclCreateScalar(void *value, aclDataType dataType)``; a null
        pointer for None. The caller destroys it with ``aclDestroyScalar``.

        Raises:
            ValueError: the runtime refused the dtype (``aclCreateScalar`` returned nullptr).
        """
        if value is None:
            return ctypes.c_void_p(None)
        # attr_value refused a finite value the dtype would turn into an infinity (_scalar_overflow)
        with np.errstate(over="ignore", invalid="ignore"):
            buf = np.asarray([value.value], dtype=_SCALAR_NUMPY[value.dtype])
        handle = self.lib.aclCreateScalar(ctypes.c_void_p(buf.ctypes.data), SCALAR_ACL_IDS[value.dtype])
        if not handle:
            raise ValueError(f"aclCreateScalar refused {value.dtype} {value.value!r}: {self.recent_error()}")
        return ctypes.c_void_p(handle)

    def recent_error(self) -> str:
        """``aclGetRecentErrMsg()`` of the library ('' when none)."""
        msg = self.lib.aclGetRecentErrMsg()
        return msg.decode(errors="replace") if msg else ""
