"""The shape rules a row-reduce op's phase 1 applies beyond the spec's dtype lists, ranks, output shape rule
and constraints (which the spec loader checks on every call it makes): the reduced trailing dims the ``rows``
attr or tensor gives, the inputs broadcast over the rows, the per-row inputs, a ``dim`` in range. The
generated L2 API applies them in this order (``templates/op_api/row_reduce_aclnn.cpp.j2``, after ops-nn's
aclnn_layer_norm*.cpp and aclnn_rms_norm.cpp); a call breaking one gets ``ACLNN_ERR_PARAM_INVALID``
(161002)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codegen.families.row_reduce.compute import RowReduceCompute


def call_problem(
    c: RowReduceCompute, shapes: Mapping[str, tuple[int, ...]], attrs: Mapping[str, object]
) -> tuple[str, str] | None:
    """The first of the family's own phase-1 rules the call of ``shapes`` (the inputs given, by name, in the op's
    input order: the first is the one the rows are of) and ``attrs`` breaks, as ``(the input or attr at fault,
    why)``, or None:

    - ``dim`` form: ``dim`` in ``[-r, r)``, ``r`` the first input's rank (1 for a 0-d input);
    - ``rows`` form: the reduced dims (the rows attr's values, or the rows input's shape) 1 to ``r`` of them,
      none 0, equal to the first input's last dims; each other input broadcast over the rows of that shape;
      each per-row input of one element per row (the product of the first input's leading dims), all of the
      first per-row input's shape.

    A tensor or attr missing from the call is not judged."""
    if not shapes:
        return None
    first = next(iter(shapes))
    x = shapes[first]
    rank = len(x)
    if c.rows is None:
        dim = attrs.get(c.dim)
        view = max(rank, 1)
        if isinstance(dim, int) and not isinstance(dim, bool) and not -view <= dim < view:
            return c.dim, f"{c.dim} {dim} is outside [{-view}, {view}) for a rank-{rank} {first}"
        return None
    if c.rows_attr:
        given = attrs.get(c.rows_attr)
        if not isinstance(given, Sequence):
            return None
        rows, what, unit = tuple(int(v) for v in given), c.rows_attr, "elements"
    else:
        if c.rows not in shapes:
            return None
        rows, what, unit = shapes[c.rows], c.rows, "dims"
    if not 1 <= len(rows) <= rank:
        return what, f"{what} must have 1 to {rank} {unit} (the rank of {first}), but has {len(rows)}"
    for i, got in enumerate(rows):
        want = x[rank - len(rows) + i]
        if got == 0:
            return what, f"{what} must not hold 0, but {'element' if c.rows_attr else 'dim'} {i} is 0"
        if got != want:
            item = "element" if c.rows_attr else "dim"
            return (
                what,
                f"{what} must equal the last {len(rows)} dims of {first}, but {item} {i} is {got} (want {want})",
            )
    for n in c.row_inputs:
        if n != c.rows and n in shapes and shapes[n] != rows:
            return n, f"{n} must have the shape of {what} {list(rows)}, but has {list(shapes[n])}"
    count = math.prod(x[: rank - len(rows)])
    per_row = [n for n in c.per_row_inputs if n in shapes]
    for n in per_row:
        if math.prod(shapes[n]) != count:
            return n, f"{n} must have one element per row of {first} ({count}), but has shape {list(shapes[n])}"
    for n in per_row[1:]:
        if shapes[n] != shapes[per_row[0]]:
            return n, f"{n} must have the shape of {per_row[0]} {list(shapes[per_row[0]])}, but has {list(shapes[n])}"
    return None
