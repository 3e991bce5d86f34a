"""Generated ops inside PyTorch models: custom operators (``torch.library``) running on the emulator.

:func:`register` defines every op of a product as a PyTorch custom operator in the namespace
``opgen_<product>`` (``torch.ops.opgen_ascend910b.softmax``). Its schema comes from the spec: the aclnn
parameters in the API's order, outputs left out (tensors as ``Tensor``, ``Tensor?`` when optional;
``int64``/``uint64`` attributes as ``int``, ``float``/``double`` as ``float``, ``bool``, ``string`` as ``str``,
``scalar`` as ``Scalar``); it returns the aclnn outputs. Its CPU kernel calls the built library through
:func:`codegen.compile_op` (both aclnn phases on the emulator). A forward operator whose row of
:data:`TORCH_OPS` has a backward API the product has gets that API's operator as its autograd formula.

:func:`ops` is a context manager: inside it, the torch functions of :data:`TORCH_OPS` run through those
operators, forward and backward, with no change to the model's code; every other torch function, and a
call a row cannot take (an argument the aclnn API lacks, an op the product lacks, a call phase 1 of the
forward or backward API refuses, or one eager PyTorch refuses), runs in eager PyTorch. The :class:`Report`
it yields counts which ran where.

Modules: :mod:`~codegen.torch.table` (:data:`TORCH_OPS`), :mod:`~codegen.torch.lists` (:data:`LIST_OPS`, the
``torch._foreach_*`` functions), :mod:`~codegen.torch.operators` (:func:`register`,
the custom operators) and :mod:`~codegen.torch.mode` (:func:`ops`).

PyTorch is an optional dependency: ``import codegen`` does not import this package.
"""

from __future__ import annotations

from codegen.torch.lists import LIST_OPS, ListOp
from codegen.torch.mode import Report, ops
from codegen.torch.operators import namespace, register, schema
from codegen.torch.table import TORCH_OPS, TorchOp

__all__ = ["LIST_OPS", "TORCH_OPS", "ListOp", "Report", "TorchOp", "namespace", "ops", "register", "schema"]
