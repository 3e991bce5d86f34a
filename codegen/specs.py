"""Loading the project's specs and product catalogue (once per process per directory)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from codegen.paths import project_paths, resolved_path
from codegen.spec.loader import load_specs
from codegen.spec.model import Catalogue, OpSpec


@lru_cache(maxsize=8)
def _load(specs_dir: str, products: str | None) -> tuple[Catalogue, dict[str, OpSpec]]:
    return load_specs(Path(specs_dir), Path(products) if products else None)


def load_project(
    specs_dir: str | Path | None = None, products: str | Path | None = None
) -> tuple[Catalogue, dict[str, OpSpec]]:
    """The catalogue and every op spec (by snake name) of ``specs_dir`` (default: the project's ``specs/``).

    Args:
        specs_dir: directory of op specs.
        products: an alternative product catalogue file (default ``<specs_dir>/products.yaml``).

    Raises:
        codegen.spec.errors.SpecErrors: any spec or the catalogue is invalid (all errors listed).
    """
    directory = Path(specs_dir) if specs_dir else project_paths().specs
    return _load(str(resolved_path(directory)), str(resolved_path(Path(products))) if products else None)


def resolve_op(op: str, specs: dict[str, OpSpec]) -> OpSpec:
    """Finds a spec by snake name, op name (``SoftMarginLossBackward``), aclnn name or device OpType.

    Raises:
        KeyError: no such op (the message lists the known ones).
    """
    for snake, spec in specs.items():
        if op in (snake, spec.op, spec.aclnn_name, spec.op_type):
            return spec
    raise KeyError(f"unknown op '{op}'; known: {', '.join(sorted(specs))}")
