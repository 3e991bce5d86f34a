"""The Python API's entry point: an op name and a product in, the built op's callable out."""

from __future__ import annotations

from pathlib import Path

from codegen.build import build_op
from codegen.runner.op_callable import OpCallable
from codegen.specs import resolve_op


def compile_op(
    op: str,
    product: str,
    *,
    generated: str | Path | None = None,
    sanitize: bool = False,
    specs_dir: str | Path | None = None,
    products: str | Path | None = None,
) -> OpCallable:
    """Builds (op, product) and returns its callable.

    Args:
        op: snake name (``soft_margin_loss_backward``) or OpType (``SoftMarginLossBackward``).
        product: catalogue name, e.g. ``Ascend910B``.
        generated: the generated tree to build from (default ``generated/``).
        sanitize: build with ASan/UBSan (the process must preload the sanitizer runtime).
        specs_dir: another spec directory (default the project's ``specs/``).
        products: another product catalogue (default ``<specs_dir>/products.yaml``).

    Raises:
        TypeError: ``op`` or ``product`` is not a str.
        KeyError: unknown op or product (message lists the known ones).
        ValueError: the op does not support ``product`` (message lists the products it supports).
        codegen.spec.errors.SpecErrors: a spec is invalid.
        codegen.build.BuildError: compiling failed.
    """
    from codegen.specs import load_project

    for what, value in (("op", op), ("product", product)):
        if not isinstance(value, str):
            raise TypeError(f"compile_op: {what} must be a str, got {type(value).__name__}")
    catalogue, specs = load_project(specs_dir, products)
    spec = resolve_op(op, specs)
    prod = catalogue.get(product)
    if prod.name not in spec.products:
        raise ValueError(
            f"{spec.aclnn_name} does not support {prod.name}; its products: {', '.join(spec.products)} "
            f"({Path(spec.path).parent.name}/{Path(spec.path).name})"
        )
    built = build_op(spec, prod, Path(generated) if generated else None, sanitize=sanitize)
    return OpCallable(built)
