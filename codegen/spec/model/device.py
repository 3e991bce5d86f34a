"""The device op's interface (the OpDef): its inputs, outputs and attrs, each naming the aclnn parameter it
carries."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from codegen.spec.errors import SourceLoc
from codegen.spec.model.call_rules import DtypeCombo
from codegen.types import DEVICE_ATTR_TYPE_INFO, DType

if TYPE_CHECKING:
    from codegen.spec.model.params import TensorSpec

#: Value types of device (OpDef) attributes, as ``OpAttrDef`` setters name them (register/op_def.h).
DEVICE_ATTR_TYPES = tuple(DEVICE_ATTR_TYPE_INFO)


@dataclass(frozen=True)
class DeviceTensor:
    """One input or output of the device op (the OpDef), and the aclnn tensor it carries.

    Attributes:
        name: the OpDef name (e.g. ``predict``; snake_case or a C identifier).
        source: the aclnn input/output name whose data it gets (e.g. ``self``; several device inputs may carry
            one aclnn input), or None for an OPTIONAL device input no aclnn tensor feeds (the L0 API passes a
            null tensor; the kernel never reads it).
        loc: the entry in the spec.
        auto_contiguous: whether the OpDef declares it ``AutoContiguous()`` (the framework makes a
            non-contiguous tensor contiguous before the launch; register/op_def.h ``OpParamDef``).
        dtype: for a device input carrying an ``int_array`` aclnn attr (``source`` names it), the dtype of the
            1-d tensor the L2 API makes of it with ``aclOpExecutor::ConvertToTensor`` (INT32 or INT64: ops-nn's
            LayerNormV4 ``normalized_shape``), in every dtype column; None for a tensor carrying an aclnn tensor.
        like: for a device input carrying a ``scalar`` aclnn attr (``source`` names it), the aclnn tensor whose
            dtype its one-element tensor takes in every dtype column (the L2 API makes it with
            ``aclOpExecutor::ConvertToTensor`` or ``AllocHostTensor``, as ops-nn's aclnnIndexFillTensor passes
            its value); None otherwise.
        like_map: for such a device input, ``(dtype of like, its own dtype)`` for each dtype column where the
            one-element tensor takes another dtype than the ``like`` tensor (ops-nn's ForeachMulScalar registers
            a FLOAT ``scalar`` beside a BF16 ``x``); empty when it always takes the ``like`` tensor's.
        fill: the spec's ``fill: true`` on a device input carrying an optional aclnn input with a ``default``
            (a family that fills, ``Family.fill_inputs``): the OpDef registers it REQUIRED, and the L2 API passes
            a tensor of the default in place of a null one (ops-nn's aclnnLayerNormBackward fills a null weight
            with ones for LayerNormGradV3's REQUIRED gamma).
    """

    name: str
    source: str | None
    loc: SourceLoc
    auto_contiguous: bool = False
    dtype: DType | None = None
    like: str | None = None
    fill: bool = False
    like_map: tuple[tuple[DType, DType], ...] = ()

    def like_dtype(self, dtype: DType) -> DType:
        """The dtype of this scalar carrier in the dtype column where its ``like`` tensor has ``dtype``."""
        return dict(self.like_map).get(dtype, dtype)


@dataclass(frozen=True)
class DeviceAttr:
    """One attribute of the device op and the aclnn attr it comes from.

    Attributes:
        name: the OpDef attribute name (e.g. ``reduction``).
        source: the aclnn attr whose value it gets.
        type: ``int``, ``bool``, ``float``, ``string`` or ``list_int`` (:data:`DEVICE_ATTR_TYPES`). A ``string``
            attr carries the name of the aclnn integer's value (the aclnn attr's ``values``: 1 gives ``"mean"``);
            a ``list_int`` attr carries an aclnn integer as the one-element list ``{value}`` (SoftmaxV2's
            ``axes`` from aclnnSoftmax's ``dim``).
        default: the OpDef default (OPTIONAL attr; a tuple of ints for ``list_int``), or None for a REQUIRED
            attr.
        loc: the entry in the spec.
        value: for a constant attr (``source`` None), the value the L2 API always passes (``value:`` in the
            spec, of ``type``); None for an attr carried from an aclnn attr.
        required: the OpDef declares it ``AttrType(REQUIRED)`` although its setter gets ``default`` (as
            ops-nn's HardtanhGrad does with ``min_val``); without a default it is REQUIRED anyway.
    """

    name: str
    source: str | None
    type: str
    default: int | float | bool | str | tuple[int, ...] | None
    loc: SourceLoc
    value: int | float | bool | str | None = None
    required: bool = False

    @property
    def attr_type(self) -> str:
        """``REQUIRED`` or ``OPTIONAL``, the OpDef's ``AttrType``: REQUIRED without a default or when declared
        so (:attr:`required`), else OPTIONAL."""
        return "REQUIRED" if self.default is None or self.required else "OPTIONAL"


@dataclass(frozen=True)
class DeviceColumn:
    """One dtype column of the OpDef (``device.dtype_columns``): the dtype of every device tensor that carries
    an aclnn tensor, and the values it gives constant device attrs.

    Attributes:
        combo: the column's dtypes keyed by the aclnn tensors the device tensors carry (inputs then outputs,
            spec order), with the products it is registered on (a product without one of its dtypes never
            registers it).
        attrs: ``(device attr name, value)`` for each constant device attr the column sets: the value the L0
            API passes when it launches this column (others pass the attr's ``value``), e.g. SoftmaxV2's
            ``half_to_float`` true for its FLOAT16 -> FLOAT column.
        arrays: ``(device input name, dtype)`` of each device input carrying an ``int_array`` attr that this
            column registers in another dtype than the one the L0 API sends (:attr:`DeviceTensor.dtype`):
            Ascend950's INT64 ``normalized_shape`` columns of ops-nn's LayerNormV4. The L2 API never launches
            such a column; a launch of that dtype (a graph caller's) gets the tiling key of the column with the
            same other dtypes and attrs (the kernel never reads the array's tensor).
        twin: the spec's ``twin: true``: an output twin of the earlier column with the same input dtypes and
            attrs (LayerNormGradV3's FLOAT16 ``pd_gamma`` and ``pd_beta`` beside the FLOAT ones of FLOAT16
            ``gamma``): registered with a tiling key of its own, but the L0 API allocates the earlier column's
            output dtypes (the L2 API launches that one and casts, as ops-nn's aclnnLayerNormBackward does on
            Atlas A2/A3, gradWeightType FLOAT), and InferDataType follows the L0 API.
    """

    combo: DtypeCombo
    attrs: tuple[tuple[str, int | bool], ...] = ()
    arrays: tuple[tuple[str, DType], ...] = ()
    twin: bool = False

    def array_dtype(self, d: DeviceTensor) -> DType | None:
        """The dtype of int_array carrier ``d`` in this column (its own ``dtype`` unless :attr:`arrays` names
        it); None for a device tensor carrying an aclnn tensor."""
        return dict(self.arrays).get(d.name, d.dtype)


@dataclass(frozen=True)
class DeviceInterface:
    """The device op's interface as the OpDef registers it: inputs, outputs and attrs in registration order,
    each naming the aclnn parameter it carries, and the dtype order of its lists (each product keeps the
    dtypes it supports, in this order). A spec without a ``device`` section gets the identity interface
    (:meth:`OpSpec.device_interface`). ``host_attrs`` names the aclnn attrs the device op does not take
    (checked by the L2 API only; the kernel's formula cannot read them); ``host_inputs`` likewise names the
    optional aclnn inputs no device input carries (the spec's ``device.host_inputs``). ``columns`` (the spec's
    ``device.dtype_columns``; empty without it) lists the OpDef's dtype columns one by one where they are not
    all one dtype per column: each product registers those it takes, in this order."""

    inputs: tuple[DeviceTensor, ...]
    outputs: tuple[DeviceTensor, ...]
    attrs: tuple[DeviceAttr, ...]
    dtypes: tuple[DType, ...] | None
    loc: SourceLoc
    host_attrs: tuple[str, ...] = ()
    columns: tuple[DeviceColumn, ...] = ()
    host_inputs: tuple[str, ...] = ()

    @property
    def launched_columns(self) -> tuple[DeviceColumn, ...]:
        """The :attr:`columns` the L2 API may launch, one tiling key each: those registering every int_array
        carrier in the dtype the L0 API sends (no :attr:`DeviceColumn.arrays`)."""
        return tuple(c for c in self.columns if not c.arrays)

    def input_index(self, source: str) -> int:
        """The index of the first device input carrying aclnn input ``source`` (the one the kernel reads).

        Raises:
            StopIteration: no device input carries ``source`` (the loader rejects such a spec).
        """
        return next(i for i, d in enumerate(self.inputs) if d.source == source)


def fixed_outputs(columns: Sequence[DeviceColumn], outputs: Sequence[TensorSpec]) -> frozenset[str]:
    """The aclnn outputs whose device output has one dtype in every column while the first input's dtype
    varies (LayerNormV4's FLOAT ``mean`` and ``rstd``): the device op always produces them in that dtype and
    the L2 API casts them to the caller's tensor, so they take no part in a dtype's one-dtype column."""
    if not columns or len({c.combo.dtypes[0][1] for c in columns}) < 2:
        return frozenset()
    return frozenset(t.name for t in outputs if len({c.combo.dtype(t.name) for c in columns}) == 1)


def fixed_inputs(columns: Sequence[DeviceColumn], inputs: Sequence[TensorSpec]) -> frozenset[str]:
    """The aclnn inputs after the first whose device input has one dtype in every column while the first input's
    dtype varies, and that take another dtype too (LayerNormGradV3's FLOAT ``mean`` and ``rstd`` beside
    aclnnLayerNormBackward's FLOAT16 or BF16 ones): the L2 API casts the caller's tensor to that dtype before
    the launch (``l0op::Cast``, as ops-nn's aclnn_layer_norm_backward.cpp does), so they take no part in a
    dtype's one-dtype column and the caller's tensor may have any of the input's ``dtypes``."""
    if not columns or len({c.combo.dtypes[0][1] for c in columns}) < 2:
        return frozenset()
    out = set()
    carried = {n for n, _ in columns[0].combo.dtypes}
    for t in (t for t in inputs[1:] if t.name in carried):  # a host input is in no column
        dts = {c.combo.dtype(t.name) for c in columns}
        if len(dts) == 1 and set(t.dtypes) - dts:
            out.add(t.name)
    return frozenset(out)


def fixed_input_dtype(columns: Sequence[DeviceColumn], name: str) -> DType:
    """The one dtype every column gives the fixed input ``name`` (:func:`fixed_inputs`)."""
    return columns[0].combo.dtype(name)
