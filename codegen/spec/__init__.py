"""The spec stage: the typed op-spec model, its YAML loader with validation, and the expression language.

``load_specs(spec_dir)`` gives the product catalogue and every op spec; errors come as
:class:`SpecErrors` listing every problem as ``file:line: field.path: message``.
"""

from codegen.spec.errors import SourceLoc, SpecError, SpecErrors, error_context
from codegen.spec.expr import Expr, ExprEvalError, ExprType, evaluate, parse_expr, to_cpp, to_source
from codegen.spec.loader import COMPUTE_PARSERS, load_catalogue, load_op_spec, load_specs
from codegen.spec.model import (
    AttrSpec,
    Catalogue,
    Constraint,
    DType,
    ElementwiseCompute,
    Example,
    ExampleTensor,
    OpSpec,
    Product,
    TensorSpec,
    TilingSpec,
)

__all__ = [
    "COMPUTE_PARSERS",
    "AttrSpec",
    "Catalogue",
    "Constraint",
    "DType",
    "ElementwiseCompute",
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
