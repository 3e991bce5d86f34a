"""The small frozen records the row-reduce template views are made of: a tiling key, a reduction, an
output, a lowered function and its dispatch switch, an L0 output, an allowed dtype combination."""

from __future__ import annotations

from dataclasses import dataclass

from codegen.families.row_reduce.plan.lowering import LoweredFunction
from codegen.plan.dtype_keys import DtypeKey


@dataclass(frozen=True)
class ComboKey(DtypeKey):
    """One tiling key: the first input's dtype (:class:`codegen.plan.dtype_keys.DtypeKey`, numbered by the dtype
    combination's position, :func:`tensors.combos`; guarded where a tensor of the combination is BF16), the
    combination's ``text``,
    ``ge_names`` of every tensor (inputs then outputs: the ``DT_*`` names it may have, one but for an int_array
    carrier some column registers in another dtype), ``f32_mask`` (bit ``i``: tensor ``i``,
    inputs then outputs, is FLOAT while the first input is 16-bit) and the UB bytes of the split
    (``tile_bytes``/``line_bytes`` per element with one buffer per queue, ``row_bytes`` per row, and
    ``queue_bytes`` per element a second buffer per tile queue adds; see :func:`tiling.tiling_decision`)."""

    text: str = ""
    ge_names: tuple[tuple[str, ...], ...] = ()
    f32_mask: int = 0
    tile_bytes: int = 0
    line_bytes: int = 0
    row_bytes: int = 0
    queue_bytes: int = 0


@dataclass(frozen=True)
class ReductionView:
    """One reduction of the kernel: ``name``, ``kind`` (:data:`views_kernel.KIND_CODES`) and ``kind_name``, the
    pass it is evaluated in (``pass_index``) and its ``level`` in a tile of whole rows, the reduction of its pass
    it is combined with chunk by chunk (``online``: a max it rescales with, a mean it is centred on; -1: none),
    the input it reduces as is (``direct``, -1: none), the scalar slots its argument reads (``uses``) and the
    lowered argument ``fn``."""

    name: str
    kind: int
    kind_name: str
    pass_index: int
    online: int
    uses: tuple[int, ...]
    fn: LoweredFunction
    level: int = 0
    direct: int = -1


@dataclass(frozen=True)
class OutputView:
    """One output of the kernel: ``name``, the scalar slots it reads (``uses``), its lowered formula ``fn``
    and, for an output with one value per row, its C++ scalar ``row_out`` ("" for the others)."""

    name: str
    uses: tuple[int, ...]
    fn: LoweredFunction
    row_out: str = ""


@dataclass(frozen=True)
class LoweredView:
    """A lowered formula the kernel defines: ``what`` it computes, its function ``fn``, and ``returns``: it
    returns the line holding its value (a reduction argument on scalars)."""

    what: str
    fn: LoweredFunction
    returns: bool = False


@dataclass(frozen=True)
class DispatchView:
    """A switch over lowered functions: its C++ ``name``, the ``fns`` by index ("": no case, the index is never
    dispatched), ``scalar`` (they take the
    row's scalars and the kept subformulas) or not (they take lines), ``returns`` (the line of the value)."""

    name: str
    fns: tuple[str, ...]
    scalar: bool
    returns: bool = False


@dataclass(frozen=True)
class L0OutputView:
    """One output the L0 API allocates: its variable ``name``, the C++ ``dtype`` expression of its
    ``op::DataType`` (the first input's, or a fixed dtype every combination gives it), ``per_row`` (one
    value per row: the first input's shape with the reduced trailing dims set to 1), the aclnn output
    ``source`` it carries, ``per_column`` (a column sum: the shape of the reduced trailing dims) and, for a
    nullable output, ``present``: the L0 API's bool parameter telling
    whether the caller passed it (when false the output is allocated with shape ``{0}``, as ops-nn's
    AddRmsNorm L0 allocates an output the caller left out), else ``""``."""

    name: str
    dtype: str
    per_row: bool
    source: str
    present: str = ""
    per_column: bool = False


@dataclass(frozen=True)
class ComboCheck:
    """One allowed dtype combination in the L2 check: the NpuArchs taking it (``archs``; the products text
    ``products``) and ``pairs`` of (tensor name, ``DT_*`` name) in inputs-then-outputs order."""

    archs: tuple[int, ...]
    products: str
    pairs: tuple[tuple[str, str], ...]
