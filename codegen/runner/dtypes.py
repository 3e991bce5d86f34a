"""NumPy dtypes and aclDataType: which aclDataType a NumPy array is, and which NumPy dtype holds a
:class:`~codegen.spec.model.DType`."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from codegen.spec.model import DType

_NUMPY_TO_DTYPE: dict[np.dtype[Any], DType] = {}


def dtype_of_array(array: np.ndarray) -> DType:
    """The aclDataType of a NumPy array's dtype (``ml_dtypes.bfloat16`` is BF16).

    Raises:
        TypeError: the dtype has no aclDataType.
    """
    if not _NUMPY_TO_DTYPE:
        for d in DType:
            _NUMPY_TO_DTYPE[np.dtype(ml_dtypes.bfloat16 if d is DType.BF16 else d.numpy_name)] = d
    try:
        return _NUMPY_TO_DTYPE[array.dtype]
    except KeyError:
        raise TypeError(f"NumPy dtype {array.dtype} has no aclDataType") from None


#: aclDataType values (``acl/acl_base.h``) of NumPy dtypes that CANN has an aclDataType for but no op of
#: this project computes on (so they are not :class:`codegen.spec.model.DType` members): a tensor of them is
#: created as such, and the op's dtype check answers 161002.
_OTHER_ACL_IDS: dict[np.dtype[Any], int] = {np.dtype(np.complex64): 16, np.dtype(np.complex128): 17}


def acl_dtype_id(array: np.ndarray) -> int | None:
    """The ``aclDataType`` value of a NumPy array's dtype: a :class:`DType`'s, ACL_COMPLEX64 (16) or
    ACL_COMPLEX128 (17) (runtime/include/acl/acl_base.h, as CANN's); None for a dtype no aclDataType
    represents (object, strings, datetimes, ``float128``, ...), of which no aclTensor can be made."""
    try:
        return dtype_of_array(array).acl_id
    except TypeError:
        return _OTHER_ACL_IDS.get(array.dtype)


def _computable(array: np.ndarray) -> bool:
    """Whether the array's dtype is a :class:`DType` (one an op may compute on)."""
    try:
        dtype_of_array(array)
    except TypeError:
        return False
    return True


def numpy_dtype(d: DType) -> np.dtype[Any]:
    """The NumPy dtype holding values of ``d``."""
    return np.dtype(ml_dtypes.bfloat16 if d is DType.BF16 else d.numpy_name)
