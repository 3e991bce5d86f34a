"""ascend-opgen: generates Huawei Ascend operator sources from declarative YAML op specs, and checks them on
an x86 host against NumPy references through the generated aclnn C ABI.

Public Python API: :func:`compile_op` (build an (op, product) and get a callable taking the aclnn
parameters by name) and :class:`AclnnError` (a non-zero ``aclnnStatus``, with ``.status`` and ``.message``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from codegen.runner import AclnnError, OpCallable, compile_op

__all__ = ["AclnnError", "OpCallable", "__version__", "compile_op"]


def __getattr__(name: str) -> Any:
    # Lazy, so that `import codegen` (the CLI, the spec loader) does not import NumPy and ctypes users.
    if name in ("AclnnError", "OpCallable", "compile_op"):
        from codegen import runner

        return getattr(runner, name)
    raise AttributeError(f"module 'codegen' has no attribute {name!r}")
