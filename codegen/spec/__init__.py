"""The spec stage: the typed op-spec model, its YAML loader with validation, and the expression language.

``load_specs(spec_dir)`` gives the product catalogue and every op spec; errors come as
:class:`SpecErrors` listing every problem as ``file:line: field.path: message``.

The names below are imported from their submodules on first use (PEP 562), so a command that never loads
a spec (a no-change ``opgen generate``) does not pay for importing the loader and the expression language.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: Public name -> the submodule that defines it.
_EXPORTS: dict[str, str] = {
    **{n: "errors" for n in ("SourceLoc", "SpecError", "SpecErrors", "error_context")},
    **{n: "expr" for n in ("Expr", "ExprEvalError", "ExprType", "evaluate", "parse_expr", "to_cpp", "to_source")},
    **{n: "loader" for n in ("load_catalogue", "load_op_spec", "load_specs")},
    **{
        n: "model"
        for n in (
            "AttrSpec",
            "Catalogue",
            "Constraint",
            "DType",
            "Example",
            "ExampleTensor",
            "OpSpec",
            "Product",
            "TensorSpec",
            "TilingSpec",
        )
    },
}

__all__ = [
    "AttrSpec",
    "Catalogue",
    "Constraint",
    "DType",
    "Example",
    "ExampleTensor",
    "Expr",
    "ExprEvalError",
    "ExprType",
    "OpSpec",
    "Product",
    "SourceLoc",
    "SpecError",
    "SpecErrors",
    "TensorSpec",
    "TilingSpec",
    "error_context",
    "evaluate",
    "load_catalogue",
    "load_op_spec",
    "load_specs",
    "parse_expr",
    "to_cpp",
    "to_source",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'codegen.spec' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"codegen.spec.{module}"), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from codegen.spec.errors import SourceLoc, SpecError, SpecErrors, error_context
    from codegen.spec.expr import Expr, ExprEvalError, ExprType, evaluate, parse_expr, to_cpp, to_source
    from codegen.spec.loader import load_catalogue, load_op_spec, load_specs
    from codegen.spec.model import (
        AttrSpec,
        Catalogue,
        Constraint,
        DType,
        Example,
        ExampleTensor,
        OpSpec,
        Product,
        TensorSpec,
        TilingSpec,
    )
