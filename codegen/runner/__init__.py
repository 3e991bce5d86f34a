"""Calling a built op through its real C ABI with ctypes: NumPy arrays in, the output array back.

:func:`compile_op` builds (or fetches from cache) the shared library of an (op, product) and returns an
:class:`OpCallable`. Calling it runs both aclnn phases exactly as a C caller would: ``aclCreateTensor`` for
every array (non-contiguous views keep their strides and offset, in elements), phase 1
(``aclnnXxxGetWorkspaceSize``), a workspace of the returned size, phase 2 (``aclnnXxx``). A non-zero
``aclnnStatus`` raises :class:`AclnnError` with the status and ``aclGetRecentErrMsg()``.

Modules: :mod:`~codegen.runner.compile` (:func:`compile_op`), :mod:`~codegen.runner.op_callable` (the
callable), :mod:`~codegen.runner.arguments` (attributes, aclScalars, formats), :mod:`~codegen.runner.memory`
(device memory and the arrays a call refuses), :mod:`~codegen.runner.dtypes` (NumPy dtypes and
aclDataType), :mod:`~codegen.runner.errors` (:class:`AclnnError`). This package re-exports the Python API and
the helpers the checker and the families use.
"""

from __future__ import annotations

from codegen.runner.arguments import ScalarArg
from codegen.runner.compile import compile_op
from codegen.runner.dtypes import dtype_of_array, numpy_dtype
from codegen.runner.errors import AclnnError
from codegen.runner.memory import device_memory
from codegen.runner.op_callable import OpCallable

__all__ = [
    "AclnnError",
    "OpCallable",
    "ScalarArg",
    "compile_op",
    "device_memory",
    "dtype_of_array",
    "numpy_dtype",
]
