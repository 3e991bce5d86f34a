"""The op_host unit tests of an op as their templates print them: tensors, attr values, tiling and infershape
cases (``tests/ut/op_host/test_<kernel>_tiling.cpp`` and ``test_<kernel>_infershape.cpp``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from codegen.plan.tiling_decision import TilingDecisionBase
from codegen.plan.tiling_fields import TilingFieldRow
from codegen.spec.model import DType, OpSpec, Product
from codegen.types import TILING_FIELD_BYTES


@dataclass(frozen=True)
class UtTensor:
    """One tensor of a unit-test case: ``present`` (False: an absent optional input, shape and dtype empty),
    ``shape`` (C++ initializer text of the elements per axis) and ``dtype`` (``ge::DT_*``)."""

    present: bool
    shape: str
    dtype: str


def ut_tensor(shape: tuple[int, ...] | None, dtype: DType | None) -> UtTensor:
    """One tensor of a unit-test tiling case of ``shape`` (elements per axis) and ``dtype``; None for an
    absent optional input."""
    if shape is None or dtype is None:
        return UtTensor(False, "", "")
    return UtTensor(True, "{" + ", ".join(str(d) for d in shape) + "}", f"ge::{dtype.ge_name}")


def ut_attr(name: str, device_type: str, value: int | float | bool | str) -> str:
    """One device attr of a unit-test case as the C++ element of a context faker's ``NodeAttrs`` list: the
    pair ``{"name", Ops::NN::AnyValue::CreateFrom<T>(value)}`` of ops-nn's ``tests/ut/common/any_value.h``.
    ``device_type`` is the OpDef attr type (``int``, ``bool``, ``float``, ``string``; ``list_int`` gets the
    one-element list ``{value}`` the L0 API sends for an integer aclnn attr, ``list_bool`` the list of bools
    ``value`` is)."""
    if device_type == "list_int":
        any_value = f"Ops::NN::AnyValue::CreateFrom<std::vector<int64_t>>({{{int(value)}}})"
    elif device_type == "list_bool":  # the caller's bool_array as it is
        items = ", ".join("true" if b else "false" for b in cast(Any, value))
        any_value = f"Ops::NN::AnyValue::CreateFrom<std::vector<bool>>({{{items}}})"
    elif device_type == "string":
        any_value = f'Ops::NN::AnyValue::CreateFrom<std::string>("{value}")'
    elif device_type == "bool":
        any_value = f"Ops::NN::AnyValue::CreateFrom<bool>({'true' if value else 'false'})"
    elif device_type == "float":
        any_value = f"Ops::NN::AnyValue::CreateFrom<float>({float(value)!r}F)"
    else:
        any_value = f"Ops::NN::AnyValue::CreateFrom<int64_t>({int(value)})"
    return f'{{"{name}", {any_value}}}'


def ut_attr_value(spec: OpSpec, source: str) -> int | float | bool:
    """A representative value of aclnn attr ``source`` for a unit-test case: its default, else its first
    listed value, else 0 / 1.0 / false by type."""
    a = spec.attr(source)
    if a.default is not None:
        return a.expr_value(a.default)  # type: ignore[return-value]
    if a.values:
        return a.values[0][0]
    return {"bool": False, "double": 1.0, "float": 1.0, "scalar": 1.0}.get(a.type, 0)


def ut_attr_values(spec: OpSpec) -> dict[str, int | float | bool]:
    """Every aclnn attr of ``spec`` by name with its :func:`ut_attr_value`: the values a unit-test case takes
    unless it sets an attr itself."""
    return {a.name: ut_attr_value(spec, a.name) for a in spec.attrs}


def ut_device_attrs(spec: OpSpec, values: dict[str, int | float | bool]) -> list[str]:
    """The device attrs of ``spec`` in OpDef order as :func:`ut_attr` elements, from ``values`` (by aclnn
    attr name; a string attr carries the name of the integer's value)."""
    out = []
    for da in spec.device_interface.attrs:
        if da.source is None:  # a constant attr
            out.append(ut_attr(da.name, da.type, cast(Any, da.value)))
            continue
        value = values[da.source]
        if da.type == "string":
            names = dict(spec.attr(da.source).values or ())
            out.append(ut_attr(da.name, "string", names[int(value)]))
        else:
            out.append(ut_attr(da.name, da.type, value))
    return out


def ut_case_name(product: Product, *parts: object) -> str:
    """A gtest test name (a C identifier) for a case on ``product`` described by ``parts``."""
    text = "_".join([product.name, *(str(p) for p in parts)])
    return "".join(c if c.isalnum() else "_" for c in text)


@dataclass(frozen=True)
class UtOutput:
    """An expected output of an infershape unit-test case: ``dims`` (C++ initializer text), ``dtype``
    (``ge::DT_*``)."""

    dims: str
    dtype: str


@dataclass(frozen=True)
class UtInferCase:
    """One infershape unit-test case (see :func:`ut_infer_case`)."""

    name: str
    note: str
    inputs: tuple[UtTensor, ...]
    attrs: tuple[str, ...]
    ok: bool
    outputs: tuple[UtOutput, ...]

    @property
    def present_inputs(self) -> tuple[UtTensor, ...]:
        """The inputs an InferShapeContextFaker gets tensors for (an absent optional input has none)."""
        return tuple(t for t in self.inputs if t.present)

    @property
    def input_instances(self) -> str:
        """``IrInstanceNum``'s input list: 1 per input, 0 for an absent one."""
        return "{" + ", ".join("1" if t.present else "0" for t in self.inputs) + "}"

    @property
    def input_shape_args(self) -> str:
        """``InputShapes``' arguments: ``&input<k>`` per present input, ``k`` counting present inputs only."""
        return ", ".join(f"&input{k}" for k in range(len(self.present_inputs)))


def ut_infer_case(
    name: str,
    inputs: Sequence[UtTensor],
    attrs: Sequence[str],
    outputs: Sequence[tuple[tuple[int, ...], DType]] | None,
    note: str,
) -> UtInferCase:
    """One infershape unit-test case: ``inputs`` (:func:`ut_tensor`, OpDef order), ``attrs`` (:func:`ut_attr`
    expressions), and the expected ``outputs`` (shape, dtype) in OpDef order, or None when the InferShape
    function must fail (``ok`` False)."""
    return UtInferCase(
        name=name,
        note=note,
        inputs=tuple(inputs),
        attrs=tuple(attrs),
        ok=outputs is not None,
        outputs=tuple(
            UtOutput("{" + ", ".join(str(d) for d in shape) + "}", f"ge::{dt.ge_name}") for shape, dt in outputs or []
        ),
    )


@dataclass(frozen=True)
class UtField:
    """An integer tiling field a unit-test case expects: its ``name`` and ``value``."""

    name: str
    value: int


@dataclass(frozen=True)
class UtFieldSlot:
    """Where a scalar tiling field lies in the tiling data: its ``c_type`` and ``offset`` (bytes)."""

    c_type: str
    offset: int


def tiling_field_slots(rows: Sequence[TilingFieldRow]) -> dict[str, UtFieldSlot]:
    """The byte offset of each field of a tiling struct (``rows`` in declaration order): CANN's
    BEGIN_TILING_DATA_DEF places the fields in declaration order, each at the next offset that is a multiple
    of its own size (hicann/metadef inc/external/register/tilingdata_base.h FieldHandler and
    base/asc/tilingdata_base_impl.cc CheckAlignAndGenPlaceHolder; a C struct of the same fields has the same
    layout).

    Raises:
        KeyError: a field's C type is not a scalar tiling type.
    """
    slots = {}
    offset = 0
    for row in rows:
        size = TILING_FIELD_BYTES[row.c_type]
        offset = (offset + size - 1) // size * size
        slots[row.name] = UtFieldSlot(row.c_type, offset)
        offset += size
    return slots


@dataclass(frozen=True)
class UtTilingCase:
    """One tiling unit-test case: ``name`` (C identifier), ``product`` (the catalogue product the case was
    computed for), ``note`` (one line), ``inputs``/``outputs`` (OpDef order), ``attrs`` (:func:`ut_attr`
    expressions, OpDef order), ``deterministic`` (0/1) and the expected ``tiling_key``, ``block_dim``,
    ``workspace`` (bytes, system workspace included) and integer tiling ``fields``."""

    name: str
    product: str
    note: str
    inputs: tuple[UtTensor, ...]
    outputs: tuple[UtTensor, ...]
    attrs: tuple[str, ...]
    deterministic: int
    tiling_key: int
    block_dim: int
    workspace: int
    fields: tuple[UtField, ...]

    @property
    def input_instances(self) -> str:
        """``IrInstanceNum``'s input list: 1 per IR input (an absent one is a nullptr shape instead)."""
        return "{" + ", ".join("1" for _ in self.inputs) + "}"

    @property
    def output_instances(self) -> str:
        """``IrInstanceNum``'s output list: 1 per output."""
        return "{" + ", ".join("1" for _ in self.outputs) + "}"

    @property
    def input_shape_args(self) -> str:
        """``InputShapes``' arguments: ``&input<i>`` per IR input ``i``, ``nullptr`` for an absent one."""
        return ", ".join(f"&input{i}" if t.present else "nullptr" for i, t in enumerate(self.inputs))

    @property
    def output_shape_args(self) -> str:
        """``OutputShapes``' arguments: ``&output<i>`` per output."""
        return ", ".join(f"&output{i}" for i in range(len(self.outputs)))


def ut_tiling_case(
    product: Product,
    name_parts: Sequence[object],
    note: str,
    inputs: Sequence[UtTensor],
    outputs: Sequence[UtTensor],
    attrs: Sequence[str],
    decision: TilingDecisionBase,
    field_names: Sequence[str] | None = None,
    *,
    deterministic: bool,
) -> UtTilingCase:
    """One tiling unit-test case on ``product``, named by :func:`ut_case_name` from ``name_parts``, with its
    ``note``, tensors and attrs in OpDef order (:func:`ut_tensor`, :func:`ut_attr` expressions), whether the
    call is ``deterministic``, and what the family's tiling ``decision`` for the call expects: its tiling key,
    block dim (cores), workspace (bytes, system workspace included) and, of its tiling fields
    (:meth:`TilingDecisionBase.tiling_fields`), those of ``field_names`` in that order; without
    ``field_names``, every integer field in declaration order (a fp32 attr field is not compared).

    Raises:
        KeyError: a name of ``field_names`` is not among the decision's tiling fields.
    """
    fields = decision.tiling_fields()
    names = field_names if field_names is not None else [n for n, v in fields.items() if type(v) is int]
    return UtTilingCase(
        name=ut_case_name(product, *name_parts),
        product=product.name,
        note=note,
        inputs=tuple(inputs),
        outputs=tuple(outputs),
        attrs=tuple(attrs),
        deterministic=int(deterministic),
        tiling_key=decision.tiling_key,
        block_dim=decision.block_dim,
        workspace=decision.workspace_bytes,
        fields=tuple(UtField(n, fields[n]) for n in names),
    )


@dataclass(frozen=True)
class UtDataTypeCase:
    """One InferDataType unit-test case: a dtype column of the OpDef registration. ``inputs`` and
    ``outputs`` are the column's ``ge::DT_*`` per OpDef input and output; ``attrs`` (:func:`ut_attr`
    expressions) those of the op's first infershape case, so the context carries the attrs an InferDataType
    function may read."""

    name: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    attrs: tuple[str, ...]

    @property
    def note(self) -> str:
        """The case's comment: the column's dtypes."""
        strip = [d.removeprefix("ge::DT_") for d in (*self.inputs, *self.outputs)]
        n = len(self.inputs)
        return f"OpDef dtype column: inputs {', '.join(strip[:n])}; outputs {', '.join(strip[n:])}"


def ut_datatype_cases(
    inputs: Sequence[str],
    outputs: Sequence[str],
    attrs: Sequence[str],
    column_attrs: Sequence[dict[str, str]] = (),
) -> tuple[UtDataTypeCase, ...]:
    """The InferDataType cases of an op: one per dtype column of its OpDef registration whose input dtypes and
    attrs no earlier column has (InferDataType sees only those: a later column of the same ones, an output twin,
    gets the earlier column's output dtypes). ``inputs``
    and ``outputs`` are the OpDef params' dtype lists (``ge::DT_*``, comma-separated, one per column, as
    :class:`~codegen.plan.opdef.OpDefParam` holds them); ``attrs`` as :class:`UtDataTypeCase`;
    ``column_attrs[k]`` (where given) the :func:`ut_attr` elements by attr name that replace ``attrs``' ones
    in column ``k``'s case (the values a ``device.dtype_columns`` column sets: its output dtypes follow from
    them).

    Raises:
        ValueError: the lists do not have one entry per column each.
    """
    split = [[d.strip() for d in text.split(",") if d.strip()] for text in (*inputs, *outputs)]
    columns = {len(c) for c in split}
    if len(columns) != 1:
        raise ValueError(f"OpDef dtype lists of different lengths: {sorted(columns)}")
    seen: list[tuple[str, ...]] = []
    seen_attrs: list[tuple[str, ...]] = []
    n = len(inputs)
    for k in range(columns.pop()):
        column = tuple(c[k] for c in split)
        own = column_attrs[k] if k < len(column_attrs) else {}
        column_attr = tuple(next((v for name, v in own.items() if a.startswith(f'{{"{name}",')), a) for a in attrs)
        if not any(c[:n] == column[:n] and ca == column_attr for c, ca in zip(seen, seen_attrs, strict=True)):
            seen.append(column)
            seen_attrs.append(column_attr)
    return tuple(
        UtDataTypeCase(f"InferDataTypeColumn{k}", column[:n], column[n:], seen_attrs[k])
        for k, column in enumerate(seen)
    )


@dataclass(frozen=True)
class UtTilingSuite:
    """The tiling unit test of an op: the gtest ``fixture`` name and its ``cases``."""

    fixture: str
    cases: tuple[UtTilingCase, ...]


@dataclass(frozen=True)
class UtInferSuite:
    """The infershape unit test of an op: the gtest ``fixture`` name and its ``cases``."""

    fixture: str
    cases: tuple[UtInferCase, ...]
    #: the InferDataType cases (:func:`ut_datatype_cases`), in the same test file
    dtype_cases: tuple[UtDataTypeCase, ...] = ()


def ut_tiling_view(
    spec: OpSpec,
    cases: Sequence[UtTilingCase],
    infer_cases: Sequence[UtInferCase] | None = None,
) -> dict[str, Any]:
    """View entries of the op_host unit tests ``tests/ut/op_host/test_<kernel>_tiling.cpp`` (``ut_tiling``)
    and ``test_<kernel>_infershape.cpp`` (``ut_infer``).

    ``cases``: one :func:`ut_tiling_case` per test, all computed by the family's planner
    (``tiling_decision``). ``infer_cases`` (:func:`ut_infer_case`) feed the infershape test."""
    return {
        "ut_tiling": UtTilingSuite(f"{spec.op_type}Tiling", tuple(cases)),
        "ut_infer": UtInferSuite(f"{spec.op_type}InferShape", tuple(infer_cases or ())),
    }


def ut_device_inputs(spec: OpSpec, by_source: Mapping[str, UtTensor]) -> list[UtTensor]:
    """The unit-test tensors of the device inputs in OpDef order: ``by_source`` (the tensor of each aclnn
    input, see :func:`ut_tensor`) for each carried input, an absent tensor for an optional device input that
    no aclnn input feeds."""
    return [ut_tensor(None, None) if d.source is None else by_source[d.source] for d in spec.device_interface.inputs]
