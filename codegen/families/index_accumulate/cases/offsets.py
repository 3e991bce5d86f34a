"""The 64-bit offset cases (``tiling_2g``) of an index-accumulate op, their check against the planner (the
``check_offsets`` hook) and the GM ranges a core owns in the probe launch (the ``probe_ranges`` hook)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from codegen.check.cases import Case
from codegen.check.offsets import INT64_MAX, cover, field_difference, offset_case
from codegen.families.index_accumulate.plan.sync_counters import SYNC_INTS, scratch_outputs
from codegen.spec.model import DType, OpSpec, Product

#: The 64-bit offset cases: (index positions N, row width D, output rows, probe) per strategy. The first two
#: (D not a multiple of 8: the accumulator lives in the workspace) check the tiling; the last two (D a
#: multiple of 8: the output is the accumulator, so a core's first GM accesses zero its own output rows) are
#: there for the probe and pass the padding row 0 (see :func:`probe_ranges`): N past 2**32 positions, and
#: rows of more than 2**32 elements.
OFFSET_SHAPES = (
    (3 * 2**31 + 5, 3, 3 * 2**31 + 3, False),
    (4, 3 * 2**31 + 7, 3, False),
    (3 * 2**31 + 5, 8, 3 * 2**31 + 3, True),
    (4, 3 * 2**31 + 8, 3, True),
)


def index_offset_cases(
    spec: OpSpec, product: Product, names: dict[str, str], rows_dtype: DType, index_dtype: DType
) -> Iterator[Case]:
    """``tiling_2g`` cases of an index_accumulate op in both strategies, one per :data:`OFFSET_SHAPES` entry:
    ``[N, D]`` grad rows into the output rows, padding row 1 (0 for the probe's entries; -1 when the op has
    no padding attr). ``names`` maps the compute roles (``num_rows``, ``padding``, ``count_scaling``) to the
    spec's attr names (absent roles: ''). The request holds the device op's tensors as the probe launch
    passes them: grad, indices, the output and the software SyncAll's counters (:data:`SYNC_OUTPUT`)."""
    for n, width, rows, probe in OFFSET_SHAPES:
        padding = 0 if probe else 1
        for deterministic in (False, True):
            by_role = {names.get("num_rows"): rows, names.get("padding"): padding, names.get("count_scaling"): False}
            attrs = [by_role.get(a.name, a.default) for a in spec.attrs]
            request = {
                "inputs": [{"shape": [n, width], "dtype": rows_dtype.name}, {"shape": [n], "dtype": index_dtype.name}],
                "outputs": [
                    {"shape": [rows, width], "dtype": rows_dtype.name},
                    *({"shape": [SYNC_INTS], "dtype": DType.INT32.name} for _ in range(scratch_outputs(spec))),
                ],
                "attrs": attrs,
                "deterministic": int(deterministic),
            }
            params = {
                "request": request,
                "grad_shape": (n, width),
                "num_weights": rows,
                "grad_dtype": rows_dtype.name,
                "index_dtype": index_dtype.name,
                "deterministic": deterministic,
                "padding": padding if names.get("padding") else -1,
                "scale": False,
            }
            mode = "deterministic" if deterministic else "atomic"
            yield offset_case(
                spec,
                product,
                f"{rows_dtype.name}/{index_dtype.name}",
                f"[{n}, {width}]",
                f"[{n}, {width}] into {rows} rows: tiling and per-core ranges in 64 bits [{mode}]",
                params,
                deterministic=deterministic,
            )


def check_offsets(fn: Any, case: Case, got: dict[str, Any], tiling: dict[str, int]) -> str:
    """A ``tiling_2g`` case's tiling result ``got`` (fields ``tiling``) against the planner's decision in
    64-bit arithmetic, and the per-core ranges of the kernel's split: '' when they agree and cover the
    tensors past 32 bits, else what differs (see :func:`codegen.check.offsets.check_offsets`)."""
    spec, product = fn.spec, fn.product
    from codegen.families.index_accumulate.plan.tiling import tiling_decision as index_tiling

    p = case.params
    want_idx = index_tiling(
        spec,
        product,
        tuple(p["grad_shape"]),
        p["num_weights"],
        DType[p["grad_dtype"]],
        DType[p["index_dtype"]],
        p["deterministic"],
        p["padding"],
        p["scale"],
    )
    fields = want_idx.tiling_fields()
    if fault := field_difference(tiling, fields):
        return fault
    if got["block_dim"] != want_idx.block_dim or got["workspace_sizes"][0] != want_idx.workspace_bytes:
        have = f"{got['block_dim']}/{got['workspace_sizes']}"
        return f"blockDim/workspace {have}, want {want_idx.block_dim}/{want_idx.workspace_bytes}"
    # The kernel's Split: groups below formerNum take perGroup + 1 items.
    for what, groups, per, former, total in (
        ("rows", fields["rowGroupNum"], fields["rowsPerGroup"], fields["rowsFormerNum"], fields["numRows"]),
        (
            "indices",
            fields["indexGroupNum"],
            fields["indicesPerGroup"],
            fields["indicesFormerNum"],
            fields["numIndices"],
        ),
    ):
        ranges = []
        for g in range(groups):
            start = g * (per + 1) if g < former else former * (per + 1) + (g - former) * per
            ranges.append((start, start + per + (1 if g < former else 0)))
        fault = cover(what, ranges, total)
        if fault:
            return fault
    elements = fields["numIndices"] * fields["rowLength"]
    if elements < 2**32 or elements > INT64_MAX or fields["numRows"] * fields["accStride"] > INT64_MAX:
        return f"grad holds {elements} elements: outside [2**32, int64]"
    return ""


def _split(
    block: int, groups: int, slices: int, per: int, former: int, slice_len: int, d: int
) -> tuple[int, int, int, int]:
    """Items ``[start, end)`` and columns ``[col, col_end)`` of ``block`` in a split of ``groups`` item groups
    (the first ``former`` take ``per + 1`` items, the others ``per``) x ``slices`` D-slices of ``slice_len``
    columns (the last ends at ``d``); a block past ``groups * slices`` takes nothing (all zero)."""
    if block >= groups * slices:
        return 0, 0, 0, 0
    group = block // slices
    start = group * (per + 1) if group < former else former * (per + 1) + (group - former) * per
    end = start + per + (1 if group < former else 0)
    col = (block % slices) * slice_len
    return start, end, col, min(col + slice_len, d)


def probe_ranges(fn: Any, case: Case, tiling: dict[str, int], core: int) -> dict[str, tuple[int, int]]:
    """The bytes ``[lo, hi)`` of the grad, indices and output that core ``core`` reads or writes under the
    tiling fields (the split of the tiling data, not the kernel's code), with every index the probe reads
    being 0 (the probe launch's GM reads return zero bytes: row 0, valid for any non-empty output).

    Atomic strategy: the core's rows split (``rowGroupNum`` x ``rowSliceNum``) gives its own output rows x
    D-slice, its index split (``indexGroupNum`` x ``indexSliceNum``) its index positions x add columns; it
    reads those indices and, unless row 0 is the padding row, their grad rows x add columns. Deterministic:
    core = index group x (row group, D-slice); it reads its index group's positions, and grad (its own
    columns) only when it owns row 0 (the row every index names). The output rows x D-slice a core owns are
    written by it (deterministic: by the owners, index group 0), from the first row's slice start to the last
    row's slice end; an atomic core whose adds land in the output (the accumulator is the output: D a multiple
    of 8) also writes row 0, two places whose order the probe's cap makes unknown, so its output is not judged
    then. Not judged: the accumulator and partials in the workspace, and the sorted strategy (``sortCores`` >
    0), whose GM passes depend on the index values (an empty dict)."""
    if tiling.get("sortCores", 0) > 0:
        return {}
    p = case.params
    request = p["request"]
    d = tiling["rowLength"]
    det = bool(p["deterministic"])
    row_cores = tiling["rowGroupNum"] * tiling["rowSliceNum"]
    index_group = core // row_cores if det else 0
    groups = tiling["indexGroupNum"]
    row_block = core if not det else (core % row_cores if index_group < groups else row_cores)
    row_start, row_end, col, col_end = _split(
        row_block,
        tiling["rowGroupNum"],
        tiling["rowSliceNum"],
        tiling["rowsPerGroup"],
        tiling["rowsFormerNum"],
        tiling["rowSliceLength"],
        d,
    )
    if det:
        first, last, _, _ = _split(
            index_group, groups, 1, tiling["indicesPerGroup"], tiling["indicesFormerNum"], tiling["indexSliceLength"], d
        )
        add_col, add_end = col, col_end  # its adds land in its own columns only
        adds_here = row_start <= 0 < row_end
        owner = index_group == 0
    else:
        first, last, add_col, add_end = _split(
            core,
            groups,
            tiling["indexSliceNum"],
            tiling["indicesPerGroup"],
            tiling["indicesFormerNum"],
            tiling["indexSliceLength"],
            d,
        )
        adds_here, owner = True, True
    adds_here = adds_here and tiling["paddingRow"] != 0 and first < last and add_col < add_end
    grad_size = DType[request["inputs"][0]["dtype"]].itemsize
    index_size = DType[request["inputs"][1]["dtype"]].itemsize
    out_size = DType[request["outputs"][0]["dtype"]].itemsize
    dev = fn.spec.device_interface
    out: dict[str, tuple[int, int]] = {}
    if first < last:
        out[dev.inputs[1].name] = (first * index_size, last * index_size)
    if adds_here:
        out[dev.inputs[0].name] = ((first * d + add_col) * grad_size, ((last - 1) * d + add_end) * grad_size)
    acc_is_out = tiling["accInWorkspace"] == 0
    if owner and row_start < row_end and not (adds_here and acc_is_out and not det):
        out[dev.outputs[0].name] = ((row_start * d + col) * out_size, ((row_end - 1) * d + col_end) * out_size)
    return out
