"""The case matrix of ``opgen check``, derived from a spec and the product catalogue.

A :class:`Case` is either a value case (run the op, compare with the reference) or a status case (the op
must return an exact ``aclnnStatus``). Each family contributes its own generator (``check_cases`` of its
``cases`` module, :meth:`codegen.registry.Family.check_cases`); the cases here apply to every family.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, cast

import numpy as np

from codegen.runner import numpy_dtype
from codegen.spec.expr import INT64_MAX, INT64_MIN
from codegen.spec.model import AttrSpec, DType, OpSpec
from codegen.types import AclnnStatus

ACLNN_ERR_PARAM_NULLPTR = int(AclnnStatus.ACLNN_ERR_PARAM_NULLPTR)
ACLNN_ERR_PARAM_INVALID = int(AclnnStatus.ACLNN_ERR_PARAM_INVALID)


@dataclass
class Case:
    """One check case.

    ``params`` are the aclnn parameters (arrays by tensor name, scalars by attribute name; an ``out``
    array may be included); ``formats`` gives tensors a storage format other than ND (tensor name ->
    format name). ``expect_status`` is set for status cases; ``mode`` selects a special flow (status
    cases: ``null_workspace_size``, ``null_executor``, both (``null_workspace_size_and_executor``),
    ``phase2_twice``; value cases: ``determinism``, see
    :func:`determinism_cases`; ``tiling_2g``, see :mod:`codegen.check.offsets`).
    ``core_order``/``deterministic`` are run options. ``tags``: ``multicore`` marks a value case chosen
    to split over several cores (the determinism subset). ``rounded_to``: outputs whose values the L2 API
    computes in a narrower dtype and casts (a device column the product lacks: its one-dtype column runs).
    ``in_place``: ``(output, input)`` pairs of an in-place call: each run passes a fresh copy of the input's
    arrays as both (:mod:`codegen.check.in_place`, which also proves that no byte beside them changed); the
    reference reads the input as given.
    ``untouched``: outputs the call must not write.
    """

    op: str
    product: str
    dtype: str
    shape: str
    name: str
    params: dict[str, Any]
    expect_status: int | None = None
    mode: str | None = None
    core_order: str = "in_order"
    seed: int = 0
    deterministic: bool = False
    tags: tuple[str, ...] = field(default_factory=tuple)
    formats: dict[str, str] = field(default_factory=dict)  # storage formats other than ND, by tensor name
    #: outputs (by name) the L2 API computes in a narrower float dtype (spec dtype name) and casts to theirs:
    #: each element must be a value of that dtype, and is compared with the reference as one (its half ULP)
    rounded_to: dict[str, str] = field(default_factory=dict)
    in_place: tuple[tuple[str, str], ...] = ()
    #: outputs (by name) given as arrays that the call must leave as they were (an output an output mask
    #: leaves out): compared byte for byte with their content before the call, never with the reference
    untouched: tuple[str, ...] = ()

    @property
    def ident(self) -> str:
        """A stable identifier: ``op/product/dtype/name``."""
        return f"{self.op}/{self.product}/{self.dtype}/{self.name}"


def normal_array(rng: np.random.Generator, shape: tuple[int, ...], dtype: DType, scale: float = 2.0) -> np.ndarray:
    """Standard normal values times ``scale`` as an array of ``shape`` in ``dtype`` (a floating dtype holds
    them rounded; an integer dtype their truncation). Drawn in float32 unless ``dtype`` is DOUBLE: a case
    input of a narrower dtype gains nothing from a float64 draw, which costs twice the time and a whole
    float64 array to convert."""
    target = numpy_dtype(dtype)
    if target == np.float64:
        wide = np.asarray(rng.standard_normal(shape))
        wide *= scale
        return wide
    values = np.asarray(rng.standard_normal(shape, dtype=np.float32))
    values *= np.float32(scale)  # in place: no second array of the shape
    return values if target == np.float32 else values.astype(target)


def uniform_array(
    rng: np.random.Generator, shape: tuple[int, ...], dtype: DType, low: float, high: float
) -> np.ndarray:
    """Values drawn uniformly from ``[low, high)`` as an array of ``shape`` in floating ``dtype`` (rounded to
    it, so an end may round onto ``high``). Drawn in float32 unless ``dtype`` is DOUBLE, as
    :func:`normal_array` does, and scaled in place."""
    target = numpy_dtype(dtype)
    if target == np.float64:
        return np.asarray(rng.uniform(low, high, shape))
    values = np.asarray(rng.random(shape, dtype=np.float32))
    values *= np.float32(high - low)
    values += np.float32(low)
    return values if target == np.float32 else values.astype(target)


#: The runs of a determinism case: every core order, two shuffles and three concurrent runs (seed 0 where
#: the order takes none). Their outputs must be bit-identical.
DETERMINISM_RUNS: tuple[tuple[str, int], ...] = (
    ("in_order", 0),
    ("reversed", 0),
    ("shuffle", 1),
    ("shuffle", 2),
    ("concurrent", 0),
    ("concurrent", 0),
    ("concurrent", 0),
)


def determinism_cases(spec: OpSpec, cases: list[Case]) -> list[Case]:
    """``cases`` with every value case tagged ``multicore`` that runs deterministically (the spec says
    ``deterministic: true``, or the case requests the deterministic mode) replaced, in place, by its
    ``determinism`` case: the same call run under every order of :data:`DETERMINISM_RUNS`, which must give
    bit-identical output and match the reference. Its first two runs are the value case's ``in_order`` and
    ``reversed`` runs, checked the same way (the first against the reference, every run for GM atomics), so
    the value case itself is not run as well. The subset keeps the cost bounded: one multi-core case per
    dtype or a few per rows dtype, as the family tags them, not the whole matrix. Cases a family already
    made ``determinism`` cases (``mode`` set) are kept as they are."""
    return [
        replace(c, name=f"{c.name} bit-identical over {len(DETERMINISM_RUNS)} core orders", mode="determinism")
        if "multicore" in c.tags
        and c.expect_status is None
        and c.mode is None
        and (spec.deterministic or c.deterministic)
        else c
        for c in cases
    ]


#: Values every free-valued integer attr is run at besides its default: the boundaries of its C type,
#: 0, +-1 and typical small values (uint64 attrs drop the negative ones).
INT_ATTR_VALUES: dict[str, tuple[int, ...]] = {
    "int64": (0, 1, -1, 2, 7, -3, 1000, INT64_MAX, INT64_MIN),
    "uint64": (0, 1, 2, 7, 1000, INT64_MAX, 2**64 - 1),
}


def _default_value(a: AttrSpec, candidates: list[Any]) -> Any:
    """The value of attr ``a`` in the cases that do not vary it: its default; else 1 for ``reduction``
    (mean) and for free-valued integers (a typical non-zero value), else its last candidate."""
    if a.default is not None:
        return a.default
    if a.name == "reduction" or (a.type in INT_ATTR_VALUES and not a.values):
        return 1
    return candidates[-1]


def attr_candidates(a: AttrSpec) -> list[Any]:
    """Values of attr ``a`` the value cases run: its enumerated values; for float attrs the default and 0,
    0.1, 0.5, 0.7, 1, 2 (0.1 and 0.7 are no 16-bit value: FLOAT16 holds 0.1 below it and 0.7 above, BF16 the
    other way round, so a kernel that rounds the attr to the tensor dtype before comparing shows at the
    boundary cases); both bools; for free-valued integer attrs the default, then 0, +-1, small and large values
    and the boundaries of the C type (:data:`INT_ATTR_VALUES`). Values a constraint rejects are dropped
    later (a spec constrains the range of a free-valued attr with a constraint, e.g. ``require: "k > 0"``).
    An array attr runs its default, else the shortest array its length allows of ones (``int_array``) or
    true (``bool_array``)."""
    if a.is_array:
        lo = a.length[0] if a.length else 1
        return [a.default if a.default is not None else (True,) * lo if a.type == "bool_array" else (1,) * lo]
    if a.type == "string":
        return [n for _, n in a.values or ()]
    if a.values:
        return [v for v, _ in a.values]
    if a.type in ("float", "double", "scalar"):
        # a scalar also runs a negative value (thresholds, slopes; a constraint drops what the op rejects);
        # the last candidate stays 2.0, the value of the cases that do not vary an attr without a default
        negative = [-0.5] if a.type == "scalar" else []
        values = [*([float(cast(float, a.default))] if a.default is not None else []), *negative]
        values += [0.0, 0.1, 0.5, 0.7, 1.0, 2.0]
        return list(dict.fromkeys(values))
    if a.type == "bool":
        return [False, True]
    default = [int(cast(int, a.default))] if a.default is not None else []
    return list(dict.fromkeys([*default, *INT_ATTR_VALUES.get(a.type, (0,))]))


def format_cases(spec: OpSpec, cases: list[Case]) -> list[Case]:
    """The accepted-format value case derived from the first value case of ``cases`` (none when there is no
    value case or no tensor accepts a format besides ND): the first tensor that accepts a format besides ND
    gets it (the first one its spec lists after ND), and the call must succeed with the reference's values
    (those formats share ND's layout). Rejected formats are status-matrix cases
    (:mod:`codegen.check.status_matrix`: every private format on every tensor, 161002).
    """
    base = next((c for c in cases if c.expect_status is None and c.mode is None), None)
    if base is None:
        return []
    out: list[Case] = []
    tensors = [*spec.inputs, *spec.outputs]
    other = next(((t, f) for t in tensors for f in t.formats if f != "ND"), None)
    if other is not None:
        t, fmt = other
        out.append(
            Case(
                base.op,
                base.product,
                base.dtype,
                base.shape,
                f"{t.name} format {fmt}",
                dict(base.params),
                formats={t.name: fmt},
            )
        )
    return out
