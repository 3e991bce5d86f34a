"""``opgen new OpName --family F``: a starter spec and a reference stub that already generate and build.

The spec is a complete, valid example of the family (its starter, :attr:`codegen.registry.Family.starter`);
the reference stub declares ``REFERENCE_IMPLEMENTED = False``, so ``opgen check`` fails with the message
"reference not implemented" until the NumPy reference is written.
"""

from __future__ import annotations

from pathlib import Path

from codegen.spec.model import snake_case

_REFERENCE = '''\
"""NumPy reference of {aclnn} (stub written by `opgen new`).

Replace :func:`reference` with the exact math in float64 and set ``REFERENCE_IMPLEMENTED = True``; until
then `opgen check {snake}` fails every case with "reference not implemented".
"""

from __future__ import annotations

import numpy as np

REFERENCE_IMPLEMENTED = False


def reference({params}) -> np.ndarray:
    """The exact result in float64 (shape of the output)."""
    raise NotImplementedError("reference not implemented: write reference/{snake}.py")
'''


class NewOpError(Exception):
    """The op name is not UpperCamelCase, the family has no starter, or a file would be overwritten."""


def _name_clash(specs_dir: Path, op_type: str, kernel: str) -> str:
    """Why the starter's device OpType ``op_type`` or kernel name ``kernel`` cannot be used beside the specs
    already in ``specs_dir`` (every spec must have its own: the loader refuses a second one), or ''. A spec
    that does not parse is skipped (the loader reports it)."""
    import yaml

    from codegen.inputs import MAX_SPEC_BYTES, InputFileError, read_input_text
    from codegen.spec.naming import ops_nn_folder

    for path in sorted(specs_dir.glob("*.yaml")):
        if path.name == "products.yaml":
            continue
        try:
            data = yaml.safe_load(read_input_text(path, MAX_SPEC_BYTES))
        except (InputFileError, yaml.YAMLError):
            continue
        if not isinstance(data, dict):
            continue
        if data.get("op_type") == op_type:
            return f"gives the device OpType '{op_type}', which {path} already uses"
        theirs = data.get("op_type")
        if data.get("kernel", ops_nn_folder(theirs) if isinstance(theirs, str) else None) == kernel:
            return f"gives the kernel name '{kernel}', which {path} already uses"
    return ""


def new_op(op: str, family: str, specs_dir: Path, reference_dir: Path) -> list[Path]:
    """Writes ``<specs_dir>/<snake>.yaml`` and ``<reference_dir>/<snake>.py`` for a new op.

    Args:
        op: aclnn name without the prefix, UpperCamelCase (``MyOpBackward`` → ``aclnnMyOpBackward``).
        family: a registered family with a starter (:mod:`codegen.registry`).
        specs_dir, reference_dir: where to write (``reference_dir`` is created when missing; its parent must
            exist). ``opgen check`` reads references from ``reference_dir_for(specs_dir)``.

    Returns:
        The two paths written.

    Raises:
        NewOpError: bad name, unknown family, a device OpType or kernel name another spec of the directory
            uses, either file exists already, the spec directory is missing or
            has no ``products.yaml``, or a file or the reference directory cannot be written (nothing is left
            written then).
    """
    from codegen.spec.naming import (  # the loader's rules
        MAX_NAME_CHARS,
        TOO_LONG,
        is_upper_camel,
        kernel_problem,
        ops_nn_folder,
    )

    if len(op) > MAX_NAME_CHARS:
        raise NewOpError(f"op name '{op}' {TOO_LONG}")
    if not is_upper_camel(op):
        raise NewOpError(
            f"op name '{op}' must be UpperCamelCase (ASCII letters and digits, starting with a capital, with a "
            "lower-case letter), e.g. MseLossBackward"
        )
    from codegen import registry

    known = sorted(f.name for f in registry.families())
    starters = {f.name: f for f in registry.families() if f.starter is not None}
    if family not in known:
        raise NewOpError(f"no family '{family}'; the families are: {', '.join(known)}")
    if family not in starters:
        raise NewOpError(
            f"family '{family}' has no starter spec; starters exist for: {', '.join(sorted(starters)) or '(none)'}"
        )
    snake = snake_case(op)
    op_type = op[: -len("Backward")] + "Grad" if op.endswith("Backward") else op
    kernel = ops_nn_folder(op_type)
    problem = kernel_problem(kernel)
    if problem:
        raise NewOpError(f"op name '{op}' gives the kernel name '{kernel}': {problem}; nothing written")
    spec_path = specs_dir / f"{snake}.yaml"
    ref_path = reference_dir / f"{snake}.py"
    for path in (spec_path, ref_path):
        if path.exists():
            raise NewOpError(f"{path} exists already; not overwriting")
    template, params = starters[family].starter or "", starters[family].starter_params
    aclnn = f"aclnn{op}"
    if not specs_dir.is_dir():
        raise NewOpError(f"spec directory {specs_dir} does not exist")
    clash = _name_clash(specs_dir, op_type, kernel)
    if clash:
        raise NewOpError(f"op name '{op}' {clash}; choose another name (the project would not load)")
    if not (specs_dir / "products.yaml").is_file():
        # every spec names its products from this catalogue: without it the new op can never load
        raise NewOpError(
            f"spec directory {specs_dir} has no products.yaml (the product catalogue every spec's dtypes and "
            "products refer to); copy the project's specs/products.yaml there first"
        )
    try:
        reference_dir.mkdir(exist_ok=True)
    except OSError as exc:
        raise NewOpError(f"cannot create the reference directory {reference_dir}: {exc.strerror or exc}") from exc
    try:
        ref_path.write_text(_REFERENCE.format(aclnn=aclnn, snake=snake, params=params))
    except OSError as exc:
        raise NewOpError(f"cannot write {ref_path}: {exc.strerror or exc}; nothing written") from exc
    try:
        spec_path.write_text(template.format(op=op, op_type=op_type, kernel=kernel, aclnn=aclnn))
    except OSError as exc:
        ref_path.unlink(missing_ok=True)
        raise NewOpError(f"cannot write {spec_path}: {exc.strerror or exc}; nothing written") from exc
    return [spec_path, ref_path]
