"""The small frozen records the elementwise template views are made of: an input, an attr (a string attr's
listed values are the shared :class:`codegen.plan.signature.StringValue`), the tiling keys, a host scalar, the
compiled programs as printed, the formula's text, the L0 API's launch, the reduce epilogue, the L2 shape
check, the InferShape rule."""

from __future__ import annotations

from dataclasses import dataclass

from codegen.plan.signature import L0ListAttr, StringValue


@dataclass(frozen=True)
class ReduceView:
    """The reduce epilogue in the templates: the aclnn ``attr`` and its ``none``/``mean``/``sum`` values,
    ``device_index`` of the device attr carrying it and ``none_text`` (its string for ``none``, when the
    device attr is a string; else ""), ``mean_text`` / ``sum_text`` (the names the attr's ``values`` give the
    mean and sum values, for messages), ``no_sync_condition`` (the NpuArchs without hardware SyncAll: one core
    reduces everything), ``no_fp32_reduce_condition`` (NpuArchs whose ReduceSum takes half only)."""

    attr: str
    none: int
    mean: int
    sum: int
    device_index: int
    device_name: str
    none_text: str
    mean_text: str
    sum_text: str
    no_sync_condition: str
    no_fp32_reduce_condition: str
    no_sync_archs: tuple[int, ...]
    fp32_buffers: int = 0  # REDUCE_FP32_BUFFERS


@dataclass(frozen=True)
class ProgramView:
    """A compiled formula program as the kernel prints it: its C++ ``lines``, fp32 ``temps`` and ``masks``
    buffers it uses, its instructions' ops (``ops``, comma-separated, for the docs) and ``result``, the fp32
    buffer holding the formula's value before the output rounding (``outLocal`` of the fp32 program, the
    source of the final ``Cast`` of a 16-bit one), which a reduce epilogue sums. ``constants`` names the
    per-core constant buffers (``const<k>``) the lines read, ``declarations`` the C++ lines that name each as a
    ``LocalTensor`` (of ``float``, or of ``T`` for a constant a 16-bit program selects as 16-bit elements), and
    ``fills`` the C++ lines that fill them once per core in ``Init``; ``clobbered``: the inputs whose tile an
    instruction of any case overwrites (a one-element input's filled tile is filled again after such a
    program)."""

    lines: tuple[str, ...]
    temps: int
    masks: int
    ops: str
    result: str = "outLocal"
    constants: tuple[str, ...] = ()
    fills: tuple[str, ...] = ()
    declarations: tuple[str, ...] = ()
    clobbered: tuple[str, ...] = ()
    #: the docs' sentence on how a 16-bit program computes (empty for an fp32 one)
    summary: str = ""


@dataclass(frozen=True)
class VariantView:
    """A formula variant (a combination of absent optional inputs): its ``index``, the ``absent`` and
    ``present`` inputs, and its fp32 and 16-bit (``cast16``) programs."""

    index: int
    absent: str
    present: tuple[str, ...]
    fp32: ProgramView
    cast16: ProgramView


@dataclass(frozen=True)
class KernelPrograms:
    """Every variant's compiled programs as the kernel prints them, with the UB buffers and helpers its class
    declares once for all of them.

    Attributes:
        variants: the variants in index order (variant 0: every input present).
        max_temps: fp32 temporaries (UB buffers of one tile of fp32) the most demanding program uses.
        max_masks: uint8_t bit masks (one bit per element of a tile) the most demanding program uses.
        constant_buffers: the per-core fp32 constant buffers (``const<k>``) any program reads, in ``k`` order.
        narrow_selects: whether a 16-bit program selects elements of the input dtype (the kernel then defines
            SelectElems).
        narrow_compares: whether a 16-bit program compares an input in its own dtype (the kernel then defines
            CompareElems, CastElemsForCompare and FillRounded).
        int_types: the AscendC types of the integer dtypes the op lists (its kernel runs the 16-bit program on
            their elements: the helpers above take them too); empty for an op of float dtypes only.
        int_bytes: whether one of them is 8-bit (``SelectElems`` selects in half copies held in ``selWide_``;
            a one-element input and a constant are filled through 16-bit words).
    """

    variants: tuple[VariantView, ...]
    #: one program per mixed dtype column (:mod:`.columns`), in column order
    columns: tuple[ProgramView, ...]
    max_temps: int
    max_masks: int
    constant_buffers: tuple[str, ...]
    narrow_selects: bool
    narrow_compares: bool
    int_types: tuple[str, ...] = ()
    int_bytes: bool = False


@dataclass(frozen=True)
class FormulaText:
    """The output's formula as the kernel's header comment and the docs print it: ``text`` as the spec writes
    it, ``lowered`` as the generator rewrites it before compiling it."""

    text: str
    lowered: str


@dataclass(frozen=True)
class ShapeStep:
    """An input the L2 shape check broadcasts in, and whether it may be null."""

    name: str
    optional: bool


@dataclass(frozen=True)
class ShapeCheck:
    """The L2 shape check (see :func:`.shape.shape_rule`): ``kind`` (``like``/``broadcast``), ``steps``, the docs'
    ``text``; ``like``: the ``anchor`` input; ``broadcast``: the ``first`` required argument, and the error
    message's ``message`` (argument names), printf ``fmt`` and C++ ``args`` (empty for the other kind)."""

    kind: str
    steps: tuple[ShapeStep, ...]
    text: str
    anchor: str = ""
    first: str = ""
    message: str = ""
    fmt: str = ""
    args: str = ""


@dataclass(frozen=True)
class InputView:
    """An aclnn input as the kernel, tiling, InferShape and L2 templates see it: ``name``, ``optional``, its
    ``bit`` in the variant number (0 for a required input), its ``index`` in the OpDef and the ``device_name``
    of the device input it feeds there, its ``default`` (optional inputs) and its ``scalar_bit`` in the tiling
    field ``scalarInputs`` (``1 << k`` for the ``k``-th aclnn input: set when the call passes it with one
    element and the output has more) and whether a valid call can do that (``one_element``,
    :func:`codegen.families.elementwise.plan.shape.one_element_inputs`; without it the templates emit no
    one-element path for the input)."""

    name: str
    optional: bool
    bit: int
    index: int
    device_name: str
    default: float | None
    scalar_bit: int
    one_element: bool


@dataclass(frozen=True)
class L0Input:
    """A device input of the L0 call: device ``name`` and the aclnn ``source`` tensor."""

    name: str
    source: str


@dataclass(frozen=True)
class L0Launch:
    """The device op's launch as the L0 API writes it: OP_INPUT's tensors in OpDef order (``inputs``), OP_ATTR's
    arguments in OpDef order (``attrs``: an attr's name, or the list variable of a ``list_int`` attr) and the
    one-element int lists it allocates before the launch for ``list_int`` device attrs (``lists``)."""

    inputs: tuple[L0Input, ...]
    attrs: tuple[str, ...]
    lists: tuple[L0ListAttr, ...]


@dataclass(frozen=True)
class StringAttr:
    """A string device attr: the aclnn attr ``name``, the L2 helper ``func`` naming its value, the aclnn
    ``c_type``, and its listed ``values``."""

    name: str
    func: str
    c_type: str
    values: tuple[StringValue, ...]


@dataclass(frozen=True)
class TilingAttr:
    """A device attr the tiling function reads: aclnn ``name``, ``device_name``, OpDef ``index``, tiling
    ``c_type``, and a string attr's listed values (``string_values``, empty otherwise)."""

    name: str
    device_name: str
    index: int
    c_type: str
    string_values: tuple[StringValue, ...]
    #: a ``list_int`` device attr: read with ``GetListInt``, the one element the L0 API sent
    is_list: bool


@dataclass(frozen=True)
class TilingKey:
    """A tiling key: ``key`` (``dtypeIndex + numDtypes * variant``), the compute ``dtype`` (``ge_name``,
    ``kernel_type``, ``elem_bytes``), fp32 ``temps`` of its UB budget, the inputs present (``num_inputs``),
    the ``variant``, the ``absent`` inputs (``-``: none), its preprocessor ``guard`` ("") and the bytes of
    the elements whose 256-byte repeats its tile length is a whole number of (``repeat_elem_bytes``,
    :func:`.tiling.repeat_elem_bytes`)."""

    key: int
    dtype: str
    ge_name: str
    kernel_type: str
    elem_bytes: int
    temps: int
    num_inputs: int
    variant: int
    absent: str
    guard: str
    repeat_elem_bytes: int


@dataclass(frozen=True)
class DocColumn:
    """A mixed dtype column as the API document lists it: each aclnn input's and the output's dtype
    (``dtypes``), the ``products`` registering it and the instructions its program runs (``ops``)."""

    dtypes: tuple[str, ...]
    products: str
    ops: str


@dataclass(frozen=True)
class ColumnLaunch:
    """A mixed dtype column as the L2 API recognises it: its ``text`` (tensors and dtypes) and the C++
    ``condition`` on the aclnn tensors (and ``npuArch``) under which it launches the inputs uncast."""

    text: str
    condition: str


@dataclass(frozen=True)
class ColumnKey:
    """The tiling key of a mixed dtype column (:mod:`.columns`): ``key`` (after every one-dtype key),
    ``index`` among the mixed columns, ``text`` (its tensors and dtypes), per aclnn input and then the output
    its ``ge_names`` (``DT_*``) and AscendC ``kernel_types``; ``elem_bytes`` of its narrowest dtype (the
    32-byte blocks of the core split), ``in_bytes`` (the inputs' bytes per element, summed) and
    ``out_bytes``, fp32 ``temps`` of its UB budget, ``num_inputs`` and its preprocessor ``guard``."""

    key: int
    index: int
    text: str
    ge_names: tuple[str, ...]
    kernel_types: tuple[str, ...]
    elem_bytes: int
    in_bytes: int
    out_bytes: int
    temps: int
    num_inputs: int
    guard: str


@dataclass(frozen=True)
class TilingKeys:
    """The tiling keys as the tiling function and the kernel switch on them: every key (``entries``, variant 0's
    first) and ``num_dtypes``, the compute dtypes (a key is ``dtypeIndex + num_dtypes * variant``), then the
    mixed dtype columns' keys (``columns``; empty for an op without them)."""

    entries: tuple[TilingKey, ...]
    num_dtypes: int
    columns: tuple[ColumnKey, ...] = ()


@dataclass(frozen=True)
class HostScalar:
    """A host-computed scalar of the formula: its tiling ``field``, C++ value ``cpp`` and formula ``text``."""

    field: str
    cpp: str
    text: str


@dataclass(frozen=True)
class ScalarDef:
    """A named scalar of the compute section: ``name`` and its formula ``text`` (docs)."""

    name: str
    text: str


@dataclass(frozen=True)
class InferRule:
    """The InferShape rule: ``kind`` (``like``/``broadcast``), the ``inputs`` whose shapes it reads, and the
    input whose dtype the output takes (``dtype_input``)."""

    kind: str
    inputs: tuple[InputView, ...]
    dtype_input: InputView
