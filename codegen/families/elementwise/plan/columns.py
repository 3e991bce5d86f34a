"""Mixed dtype columns of an elementwise op: the OpDef columns (``device.dtype_columns``) whose tensors do not
share one dtype (ops-nn's SiluGrad registers dy FLOAT16 with x FLOAT giving dx FLOAT on Ascend950). Each is a
tiling key of its own after the one-dtype keys; its kernel reads every input in that input's own dtype (each
16-bit one cast to fp32 by itself, each fp32 one read in place) and writes the output in its dtype, so GM
traffic is each tensor once in its own width; the L2 API launches it where the OpDef registers it instead of
casting the inputs to one dtype first."""

from __future__ import annotations

from dataclasses import dataclass

from codegen.families.elementwise.compiler import ColumnDtypes
from codegen.spec.errors import SpecError
from codegen.spec.model import DeviceColumn, DType, OpSpec

#: The dtypes a mixed column may give a tensor: the float dtypes the kernel computes on in fp32
COLUMN_DTYPES = (DType.FLOAT, DType.FLOAT16, DType.BF16)


@dataclass(frozen=True)
class MixedColumn:
    """A launched OpDef column whose tensors do not share one dtype: its position ``index`` among the mixed
    columns (spec order), its ``column`` and ``dtypes`` (each aclnn input's, then the output's)."""

    index: int
    column: DeviceColumn
    dtypes: tuple[DType, ...]

    @property
    def text(self) -> str:
        """The column's tensors and dtypes (``gradOutput FLOAT16, self FLOAT, gradInput FLOAT``)."""
        return self.column.combo.text


def mixed_columns(spec: OpSpec) -> list[MixedColumn]:
    """The launched columns of ``spec`` (:attr:`~codegen.spec.model.DeviceInterface.launched_columns`) whose
    aclnn inputs and output do not all have one dtype, in spec order (empty without ``device.dtype_columns``)."""
    names = [*spec.input_names, *(t.name for t in spec.outputs)]
    mixed = [c for c in spec.device_interface.launched_columns if len({c.combo.dtype(n) for n in names}) > 1]
    return [MixedColumn(k, c, tuple(c.combo.dtype(n) for n in names)) for k, c in enumerate(mixed)]


def column_dtypes(spec: OpSpec) -> tuple[ColumnDtypes, ...]:
    """What the formula compiler needs of each mixed column (:func:`mixed_columns` order): the inputs it
    casts from 16 bits and whether its output is 16-bit."""
    out = []
    for m in mixed_columns(spec):
        *ins, res = m.dtypes
        cast = frozenset(n for n, d in zip(spec.input_names, ins, strict=True) if d is not DType.FLOAT)
        out.append(ColumnDtypes(cast, res is not DType.FLOAT))
    return tuple(out)


def column_problem(spec: OpSpec) -> SpecError | None:
    """Why ``spec``'s mixed columns have no kernel, as the error at the first such column's line, or None: a
    mixed column needs one output, no optional input, no reduce epilogue, float dtypes (FLOAT, FLOAT16,
    BF16: each read and cast by itself) and sets no device attr (the kernel reads none)."""
    mixed = mixed_columns(spec)
    if not mixed:
        return None
    first = mixed[0]
    at = f"device.dtype_columns[{spec.device_interface.columns.index(first.column)}]"
    reduce = getattr(spec.compute, "reduce", None)
    if len(spec.outputs) != 1 or any(t.optional for t in spec.inputs) or reduce is not None:
        return SpecError(
            first.column.combo.loc,
            at,
            "a column whose tensors differ in dtype needs one output, no optional input and no reduce epilogue "
            "in the elementwise family",
        )
    for m in mixed:
        bad = [d for d in m.dtypes if d not in COLUMN_DTYPES]
        where = f"device.dtype_columns[{spec.device_interface.columns.index(m.column)}]"
        if bad:
            return SpecError(
                m.column.combo.loc,
                where,
                f"a column whose tensors differ in dtype takes {', '.join(d.name for d in COLUMN_DTYPES)} only, "
                f"not {bad[0].name}",
            )
        if m.column.attrs:
            return SpecError(
                m.column.combo.loc, where, "a column whose tensors differ in dtype sets no device attr here"
            )
    return None
