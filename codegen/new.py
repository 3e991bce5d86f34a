"""``opgen new OpName --family F``: a starter spec and a reference stub that already generate and build.

The spec is a complete, valid example of the family (the elementwise starter computes
``out = where(x > threshold, x * y, 0)``: a product, a comparison with a ``const aclScalar *`` attribute and
a per-element select);
the reference stub declares ``REFERENCE_IMPLEMENTED = False``, so ``opgen check`` fails with the message
"reference not implemented" until the NumPy reference is written.
"""

from __future__ import annotations

from pathlib import Path

from codegen.spec.model import snake_case

_ELEMENTWISE = """\
# {aclnn}: TODO describe the operator. Starter spec written by `opgen new`; edit every field.
op: {op}
op_type: {op_type}
kernel: {kernel}
family: elementwise
summary: TODO one paragraph describing {aclnn}.
products: [Ascend910, Ascend910B, Ascend910_93, Ascend950]
deterministic: true
inputs:
  - name: x
    dtypes: [FLOAT, FLOAT16, BF16]
    rank: [0, 8]
    description: TODO first input.
  - name: y
    dtypes: [FLOAT, FLOAT16, BF16]
    rank: [0, 8]
    description: TODO second input.
attrs:
  - name: threshold
    type: scalar                    # a const aclScalar * parameter (aclCreateScalar on the caller's side)
    default: 0.0
    description: TODO x above threshold keeps x * y; elsewhere the result is 0.
outputs:
  - name: out
    dtypes: [FLOAT, FLOAT16, BF16]
    rank: [0, 8]
    shape: "broadcast(x, y)"
    description: TODO the result, in the broadcast shape.
compute:
  promote: [x, y]
  scalars: {{}}
  # A comparison is a per-element condition; where(cond, a, b) selects (Compares + Select on the device).
  out: "where(x > threshold, x * y, 0)"
tiling:
  buffer_num: 2
  ub_reserved_bytes: 0
  min_bytes_per_core: 32768
notes: []
example:
  inputs:
    x: {{shape: [2, 2], dtype: FLOAT, values: [1, 2, 3, 4]}}
    y: {{shape: [2, 2], dtype: FLOAT, values: [1, 1, 2, 2]}}
  attrs: {{threshold: 0.0}}
  output: {{shape: [2, 2], dtype: FLOAT}}
"""

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

FAMILIES = {"elementwise": (_ELEMENTWISE, "x: np.ndarray, y: np.ndarray, threshold: float")}


class NewOpError(Exception):
    """The op name is not UpperCamelCase, the family has no starter, or a file would be overwritten."""


def new_op(op: str, family: str, specs_dir: Path, reference_dir: Path) -> list[Path]:
    """Writes ``<specs_dir>/<snake>.yaml`` and ``<reference_dir>/<snake>.py`` for a new op.

    Args:
        op: aclnn name without the prefix, UpperCamelCase (``MyOpBackward`` → ``aclnnMyOpBackward``).
        family: template family; starters exist for: elementwise.
        specs_dir, reference_dir: where to write (``reference_dir`` is created when missing; its parent must
            exist). ``opgen check`` reads references from ``reference_dir_for(specs_dir)``.

    Returns:
        The two paths written.

    Raises:
        NewOpError: bad name, unknown family, either file exists already, the spec directory is missing or
            a file or the reference directory cannot be written (nothing is left written then).
    """
    from codegen.spec.loader import CPP_KEYWORDS, is_upper_camel  # the loader's rules: the spec it writes loads

    if not is_upper_camel(op):
        raise NewOpError(
            f"op name '{op}' must be UpperCamelCase (ASCII letters and digits, starting with a capital, with a "
            "lower-case letter), e.g. MseLossBackward"
        )
    if family not in FAMILIES:
        raise NewOpError(f"no starter for family '{family}'; starters exist for: {', '.join(sorted(FAMILIES))}")
    snake = snake_case(op)
    op_type = op[: -len("Backward")] + "Grad" if op.endswith("Backward") else op
    kernel = snake_case(op_type)
    if kernel in CPP_KEYWORDS:
        raise NewOpError(f"op name '{op}' gives the kernel name '{kernel}', a C++ keyword; choose another name")
    spec_path = specs_dir / f"{snake}.yaml"
    ref_path = reference_dir / f"{snake}.py"
    for path in (spec_path, ref_path):
        if path.exists():
            raise NewOpError(f"{path} exists already; not overwriting")
    template, params = FAMILIES[family]
    aclnn = f"aclnn{op}"
    if not specs_dir.is_dir():
        raise NewOpError(f"spec directory {specs_dir} does not exist")
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
