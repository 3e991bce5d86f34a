"""The row-reduce family's own template views: one frozen view dataclass per file kind it has its own
template of (each with exactly the fields that template reads), and :data:`VIEWS`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from codegen.families.row_reduce.plan.program import RowValue
from codegen.families.row_reduce.plan.view_records import (
    ComboCheck,
    ComboKey,
    DispatchView,
    L0OutputView,
    LoweredView,
    OutputView,
    ReductionView,
)
from codegen.plan.dtype_columns import ColumnAttr, OutputRule
from codegen.plan.products import QueueCap
from codegen.plan.shared_views import L0HeaderView
from codegen.plan.signature import L0ListAttr
from codegen.plan.view_bases import AclnnSourceBase, DocBase, KernelBase, L0SourceBase, TilingSourceBase
from codegen.plan.views import KindView, views_by_kind


@dataclass(frozen=True)
class AclnnSourceView(AclnnSourceBase):
    """``op_api/aclnn_<op>.cpp`` (``op_api/row_reduce_aclnn.cpp.j2``): parameter checks and the L2 plan."""

    dim_attr: str
    first_input: str
    #: the L2 API's arguments of the L0 call after the tensors (the dim, fp32 casts of float attrs)
    l0_args: tuple[str, ...]
    out: str
    #: ``rows`` form: the input broadcast over the rows whose rank gives the reduced dims ("": dim form)
    rows_input: str
    #: ``rows`` form: ``dim()``, or ``Size()`` when ``rows_input`` is an int_array attr (comments and docs)
    rows_len: str
    #: ``rows`` form: every input broadcast over the rows, ``rows_input`` first unless it is an int_array attr
    #: (the others of its shape, or of the attr's values)
    row_inputs: tuple[str, ...]
    #: ``rows_input`` when it is an int_array attr (its length gives the reduced dims), else ""
    rows_attr: str
    #: the aclnn attrs the parameter checks take and do not check (``rows`` form: every one; ``dim`` form: all but
    #: the dim)
    check_attrs: tuple[str, ...]
    #: the spec's ``dtype_combos`` (empty: one dtype for every tensor), each allowed on the NpuArchs ``archs``
    dtype_combos: tuple[ComboCheck, ...]
    dtype_combo_names: tuple[str, ...]
    #: the aclnnStatus name of a shape error (the spec's ``shape_status``)
    shape_status: str
    #: outputs with one value per row (their shape checked against the first input's)
    per_row_outputs: tuple[str, ...]
    #: column-sum outputs (of the row's shape: checked against it)
    column_outputs: tuple[str, ...]
    #: per-row inputs (``compute.per_row``; their element count checked against the rows' count)
    per_row_inputs: tuple[str, ...]
    #: the spec's ``promote_type: out``: the inputs are cast to ``out``'s dtype before the L0 call
    cast_inputs_first: bool
    l0_outputs: tuple[L0OutputView, ...]
    #: constant device attrs a ``device.dtype_columns`` column sets: the L2 API passes the launched column's value
    column_attrs: tuple[ColumnAttr, ...]
    #: the outputs the caller may pass as null (not checked, not copied into, then)
    nullable_outputs: tuple[str, ...]
    #: the tensors the caller may pass as null: nullable outputs and optional inputs (any dtype combination
    #: matches a null one)
    null_ok: tuple[str, ...]
    #: ``(input, DT_* name)`` of each input of one dtype in every device dtype column: the L2 API casts it to
    #: that dtype before the L0 call (its ``<name>Casted``)
    fixed_inputs: tuple[tuple[str, str], ...] = ()
    #: the bool_array attr of ``compute.output_mask`` (a false entry's output is treated as passed null), or ""
    output_mask: str = ""
    #: the aclnn outputs in order (the entries of ``output_mask``)
    output_names: tuple[str, ...] = ()
    #: ``(input, fp32 literal of its default)`` of each optional input the device op takes as REQUIRED
    filled_inputs: tuple[tuple[str, str], ...] = ()
    #: C++ number of reduced trailing dims (a rows input's rank, or the int_array's length)
    rows_rank: str = ""
    #: the optional aclnn inputs the device op does not take (``device.host_inputs``): checked, never launched
    host_inputs: tuple[str, ...] = ()


@dataclass(frozen=True)
class L0SourceView(L0SourceBase):
    """``op_api/<kernel>.cpp`` (``op_api/row_reduce_l0.cpp.j2``): the L0 wrapper launching the device op;
    ``l0_attrs`` are the OP_ATTR values in OpDef order (``arg``: an aclnn attr, a list the L0 allocates, or a
    constant)."""

    #: the L0 API's inputs (the device op's: no ``device.host_inputs``) and dim attr, as ``L0_DFX`` lists them
    l0_dfx_in: str
    #: the L0 API's tensor parameters (the device op's inputs: no ``device.host_inputs``)
    l0_input_names: tuple[str, ...]
    dim_attr: str
    rows_input: str
    #: ``rows`` form: ``dim()``, or ``Size()`` when ``rows_input`` is an int_array attr (comments and docs)
    rows_len: str
    #: C++ number of reduced trailing dims from the L0 API's parameters: the int_array's length, or the rank of the
    #: input of their shape (``rows_input`` itself, or its first input when the attr stays on the host)
    l0_rows_rank: str
    first_input: str
    #: the OP_INPUT tensors in OpDef order (aclnn input names; ``nullptr`` for an input no aclnn tensor feeds)
    l0_inputs: tuple[str, ...]
    l0_lists: tuple[L0ListAttr, ...]
    #: (int_array attr, ge dtype name, device input) the L0 API converts to a 1-d tensor (ConvertToTensor)
    l0_arrays: tuple[tuple[str, str, str], ...]
    l0_outputs: tuple[L0OutputView, ...]
    #: the device dtype columns whose output dtypes the L0 API allocates instead of the default ones
    dtype_rules: tuple[OutputRule, ...]
    l0_return: str
    #: what the L0 function returns when it fails (``nullptr``, or a tuple of them)
    l0_fail: str


@dataclass(frozen=True)
class InferShapeView(KindView):
    """``op_host/<kernel>_infershape.cpp``: the output has the first input's shape and dtype."""

    KIND: ClassVar[str] = "infershape_cpp"
    dim_attr: str
    rows_input: str
    #: ``rows`` form: ``dim()``, or ``Size()`` when ``rows_input`` is an int_array attr (comments and docs)
    rows_len: str
    first_input: str
    rows_index: int
    #: the aclnn parameter whose device input (``rows_index``) gives the reduced dims, and whether it is the
    #: int_array attr as a 1-d tensor (else an input of their shape: a fill input when the attr stays on the host)
    rows_device: str
    rows_array: bool
    l0_outputs: tuple[L0OutputView, ...]
    #: the device dtype columns whose output dtypes InferDataType gives instead of the default ones
    dtype_rules: tuple[OutputRule, ...]


@dataclass(frozen=True)
class TilingSourceView(TilingSourceBase):
    """``op_host/<kernel>_tiling.cpp`` (``op_host/row_reduce_tiling.cpp.j2``): the tiling function; sizes in
    bytes, alignments and buffers in elements, ``dim_index`` the dim attr's position in the OpDef."""

    chunk_align: int
    dim_attr: str
    #: the device attr carrying ``dim_attr``, its position among the OpDef attrs, and whether it is a list
    #: (``ListInt``: read with ``GetListInt``, one element) rather than an ``Int``
    dim_device_attr: str
    dim_index: int
    dim_list: bool
    dtype_keys: tuple[ComboKey, ...]
    #: (tiling field, OpDef attr index, aclnn attr) of every float attr
    float_device_attrs: tuple[tuple[str, int, str], ...]
    device_inputs_n: int
    rows_index: int
    #: the aclnn parameter whose device input (``rows_index``) gives the reduced dims, and whether it is the
    #: int_array attr as a 1-d tensor (else an input of their shape: a fill input when the attr stays on the host)
    rows_device: str
    rows_array: bool
    rows_input: str
    #: ``rows`` form: ``dim()``, or ``Size()`` when ``rows_input`` is an int_array attr (comments and docs)
    rows_len: str
    #: ``rows`` form: the inputs broadcast over the rows, as the comments and docs name them, and how many
    row_inputs_text: str
    row_inputs_n: int
    line_align: int
    work_elems: int
    #: bytes per tile element of the kept subformulas (whole last-dim rows only)
    save_bytes: int
    #: line bytes per element a tile of whole rows does not use (:func:`buffers.whole_row_spare_line_bytes`)
    whole_row_spare_line_bytes: int
    #: line bytes per element mode 0 chunks do not use (:func:`buffers.mode0_spare_line_bytes`)
    mode0_spare_line_bytes: int
    #: UB bytes of the blocks those unused buffers still get (:data:`buffers.WHOLE_ROW_SPARE_BLOCK_BYTES`)
    whole_row_spare_block_bytes: int
    #: the products' queue buffers per position by NpuArch, and the kernel's queues per position: (tile inputs,
    #: row inputs, tile outputs, per-row outputs) (:func:`buffers.queue_counts`)
    queue_caps: tuple[QueueCap, ...]
    queue_counts: tuple[int, int, int, int]
    #: (output index, device output index, name) of each nullable output (``writeMask`` bits)
    write_mask_outputs: tuple[tuple[int, int, str], ...]
    #: ``writeMask`` with every output's bit set
    all_outputs_mask: int
    #: (input index, device input index, name) of each optional input (``absentMask`` bits)
    absent_inputs: tuple[tuple[int, int, str], ...]
    #: the device input indices of the optional inputs (a null one matches every dtype combination)
    absent_device_indices: tuple[int, ...]
    #: the column-sum outputs (``colsum``; their count): each core's fp32 partials in the user workspace
    column_n: int
    column_names: tuple[str, ...]
    #: the NpuArchs of the products without hardware SyncAll (column sums run on one core there)
    no_sync_archs: tuple[int, ...]
    #: the device attr carrying ``compute.output_mask`` (a ListBool the tiling reads into ``writeMask``): its
    #: index among the device attrs, or None; and its name
    output_mask_index: int | None = None
    output_mask_name: str = ""


@dataclass(frozen=True)
class KernelView(KernelBase):
    """``op_kernel/<kernel>.cpp`` (``op_kernel/row_reduce_kernel.cpp.j2``): the passes, the lowered
    formulas and one branch per tiling key."""

    dtype_keys: tuple[ComboKey, ...]
    #: float attrs of the spec, which the kernel reads from the tiling data (``attr0``, ``attr1``, ...)
    float_attrs_n: int
    #: the device input carrying each aclnn input (aclnn order), the device output of each aclnn output
    in_gm_names: tuple[str, ...]
    #: the device inputs carrying an int_array attr (kernel parameters it never reads)
    unread_gm_names: tuple[str, ...]
    #: per aclnn input, ``true`` when it is broadcast over the rows (C++ literals); per reduction pass and for
    #: the output pass, whether it reads such an input
    row_in_flags: tuple[str, ...]
    #: per aclnn output, ``true`` when it has one value per row (:func:`tensors.row_outputs`)
    row_out_flags: tuple[str, ...]
    #: per aclnn output, ``true`` when it is a column sum (:func:`tensors.column_outputs`), and their count
    col_out_flags: tuple[str, ...]
    #: how many outputs have one value per row (0: the kernel has no per-row output code)
    row_out_n: int
    #: whether a reduction is a max, a max an online sum rescales with, a mean an online sum of squares is
    #: centred on (the kernel holds the code of each only when it is)
    has_max: bool
    has_rescaled: bool
    has_centred: bool
    #: per aclnn output, the input line a column sum adds as it is (its summand is that input), else -1
    col_direct: tuple[int, ...]
    column_n: int
    #: per aclnn input, ``true`` when it has one value per row (``compute.per_row``), its index among the
    #: reductions (-1 for the others), and their count
    per_row_in_flags: tuple[str, ...]
    in_load: tuple[int, ...]
    per_row_n: int
    #: the preprocessor condition true on the NpuArchs without hardware SyncAll ("0": none)
    no_sync_condition: str
    pass_reads_rows: tuple[str, ...]
    out_reads_rows: str
    rows_input: str
    #: ``rows`` form: ``dim()``, or ``Size()`` when ``rows_input`` is an int_array attr (comments and docs)
    rows_len: str
    #: ``rows`` form: the inputs broadcast over the rows, as the comments and docs name them, and how many
    row_inputs_text: str
    row_inputs_n: int
    inputs_n: int
    no_fp32_reduce_condition: str
    #: the NpuArchs without fp32 WholeReduceMax/Sum of values only: rows are not reduced in UB there
    no_value_reduce_condition: str
    #: the NpuArchs without DataCopyPad whose scalar cache lines the kernel writes back after a partial block
    dcci_flush_condition: str
    out_gm_names: tuple[str, ...]
    outputs_n: int
    #: per aclnn output, whether it is nullable (its GM writes depend on the tiling's ``writeMask``)
    out_nullable: tuple[bool, ...]
    #: per aclnn input, the fp32 C++ literal of an optional input's default ("" for a required input)
    in_defaults: tuple[str, ...]
    outs: tuple[OutputView, ...]
    pass_n: int
    level_n: int
    save_n: int
    red_n: int
    reductions: tuple[ReductionView, ...]
    row_values: tuple[RowValue, ...]
    scalar_fns: tuple[LoweredView, ...]
    line_fns: tuple[LoweredView, ...]
    dispatchers: tuple[DispatchView, ...]
    steps_text: tuple[str, ...]
    temps_n: int
    work_elems: int


@dataclass(frozen=True)
class DocView(DocBase):
    """``docs/<aclnn>.md`` (``docs/row_reduce_aclnn.md.j2``): the API documentation."""

    dim_attr: str
    rows_input: str
    #: ``rows`` form: ``dim()``, or ``Size()`` when ``rows_input`` is an int_array attr (comments and docs)
    rows_len: str
    #: ``rows`` form: the inputs broadcast over the rows, as the docs name them
    row_inputs_text: str
    steps_text: tuple[str, ...]


#: The views of the row-reduce templates (every other kind renders the shared view).
VIEWS: dict[str, type[KindView]] = views_by_kind(
    AclnnSourceView, L0SourceView, L0HeaderView, InferShapeView, TilingSourceView, KernelView, DocView
)
