"""The arrays, parameters and cases of one (spec, product): random rows, indices of every dtype, indices
with fixed occurrence counts, and the case records the value and status cases are made of."""

from __future__ import annotations

from typing import Any

import numpy as np

from codegen.check.cases import Case, normal_array
from codegen.families.index_accumulate.plan.roles import compute_of
from codegen.runner import numpy_dtype
from codegen.spec.model import DType, OpSpec, Product

#: ``paddingIdx`` meaning "none": the uint64 2**64 - 1, which is -1 as int64 (the Python API range-checks
#: uint64 attributes, so -1 itself is refused).
NO_PADDING = 2**64 - 1
MODES = (("atomic", False), ("deterministic", True))


class CaseMaker:
    """Builds the arrays and cases of one (spec, product)."""

    def __init__(self, spec: OpSpec, product: Product) -> None:
        comp = compute_of(spec)
        self.spec = spec
        self.product = product
        self.rows = comp.rows
        self.index = comp.index
        self.out = comp.accumulate
        self.num_rows = comp.num_rows
        self.padding = comp.padding
        self.scaling = comp.count_scaling
        self.rng = np.random.default_rng(20261130)
        self.op = spec.snake

    def grad(self, shape: tuple[int, ...], dtype: DType, scale: float = 1.0) -> np.ndarray:
        """Normal random rows of ``shape`` and ``dtype`` scaled by ``scale``."""
        return normal_array(self.rng, shape, dtype, scale)

    def indices(self, shape: tuple[int, ...], dtype: DType, num_rows: int, spread: int = 2) -> np.ndarray:
        """Indices of ``dtype`` mostly in ``[0, num_rows)``, a few just outside (floating ones fractional)."""
        size = int(np.prod(shape)) if shape else 1
        if dtype is DType.BOOL:
            return (self.rng.integers(0, 2, size) == 1).reshape(shape)
        lo = 0 if dtype is DType.UINT8 else -spread
        values = self.rng.integers(lo, num_rows + spread, size).astype(np.float64)
        if dtype.is_floating:
            values = values + self.rng.uniform(0.0, 0.95, size) * np.sign(values + 0.5)
        return values.astype(numpy_dtype(dtype)).reshape(shape)

    def counted_indices(self, n: int, dtype: DType, num_rows: int, spread: int = 2) -> np.ndarray:
        """``n`` indices of ``dtype`` into ``num_rows`` rows where the first half of the rows occur exactly 1, 2
        or 3 times (row ``r``: ``1 + r % 3``), so a count threshold (scaling skipped or applied for a row seen
        once or twice) shows in the output; the other indices fall on the other rows and a few outside
        ``[0, num_rows)``, in a random order; ``n`` values of ``dtype``.

        Raises:
            ValueError: ``n`` is less than twice the fixed occurrences (about ``num_rows``).
        """
        k = num_rows // 2
        fixed = np.repeat(np.arange(k), 1 + np.arange(k) % 3)
        if counted_minimum(num_rows) > n:
            raise ValueError(f"{n} indices cannot hold {fixed.size} fixed occurrences of {k} rows twice over")
        rest = self.rng.integers(k, num_rows + spread, n - fixed.size)
        rest[:: max(1, (n - fixed.size) // 64)] = -1 - self.rng.integers(0, spread, 1)  # a few negative ones
        values = self.rng.permutation(np.concatenate([fixed, rest]))
        return values.astype(numpy_dtype(dtype))

    def params(
        self,
        grad: np.ndarray | None,
        indices: np.ndarray | None,
        num_rows: int,
        padding: int = NO_PADDING,
        scaling: bool = False,
        out: np.ndarray | None = None,
        with_out: bool = True,
    ) -> dict[str, Any]:
        """The call's parameters by the spec's names: rows, indices and row count, the padding row and count
        scaling where the spec has them, and the output when ``out`` is given (or None with ``with_out``
        False: no output passed)."""
        p: dict[str, Any] = {self.rows: grad, self.index: indices, self.num_rows: num_rows}
        if self.padding:
            p[self.padding] = padding
        if self.scaling:
            p[self.scaling] = scaling
        if out is not None or with_out is False:
            p[self.out] = out
        return p

    def case(self, dtype: str, shape: str, name: str, params: dict[str, Any], deterministic: bool, **kw: Any) -> Case:
        """A value case named ``<name> [atomic]`` or ``<name> [deterministic]``; in deterministic mode a
        ``multicore`` one becomes its determinism case (:func:`codegen.check.cases.determinism_cases`)."""
        mode = "deterministic" if deterministic else "atomic"
        return Case(
            self.op, self.product.name, dtype, shape, f"{name} [{mode}]", params, deterministic=deterministic, **kw
        )

    def status(self, dtype: str, name: str, code: int, params: dict[str, Any], mode: str | None = None) -> Case:
        """A status case: the call ``params`` (or the phase ``mode`` names) must return ``code``."""
        return Case(self.op, self.product.name, dtype, "error", name, params, expect_status=code, mode=mode)


def counted_minimum(num_rows: int) -> int:
    """The fewest indices :meth:`CaseMaker.counted_indices` takes for ``num_rows`` rows: twice the fixed
    occurrences of the first half of the rows (row ``r`` seen ``1 + r % 3`` times), so at least half of the
    indices are random. A case sized from the tiling's threshold (few on a product with few cores) is raised
    to this count."""
    k = num_rows // 2
    return 2 * sum(1 + r % 3 for r in range(k))


def dtype_label(grad: DType, index: DType) -> str:
    """The dtype column of a case, ``<rows dtype>/<index dtype>``."""
    return f"{grad.name}/{index.name}"
