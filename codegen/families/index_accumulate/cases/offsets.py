"""The 64-bit offset cases (``tiling_2g``) of an index-accumulate op and their check against the planner
(the ``check_offsets`` hook)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from codegen.check.cases import Case
from codegen.check.offsets import INT64_MAX, cover
from codegen.spec.model import DType, OpSpec, Product


def index_offset_cases(
    spec: OpSpec, product: Product, names: dict[str, str], rows_dtype: DType, index_dtype: DType
) -> Iterator[Case]:
    """``tiling_2g`` cases of an index_accumulate op in both strategies: ``3 * 2**31 + 5`` rows of width 3
    into ``3 * 2**31 + 3`` output rows, and 4 rows of width ``3 * 2**31 + 7``. ``names`` maps the compute roles
    (``num_rows``, ``padding``, ``count_scaling``) to the spec's attr names (absent roles: '')."""
    for n, width, rows in ((3 * 2**31 + 5, 3, 3 * 2**31 + 3), (4, 3 * 2**31 + 7, 3)):
        for deterministic in (False, True):
            by_role = {names.get("num_rows"): rows, names.get("padding"): 1, names.get("count_scaling"): False}
            attrs = [by_role.get(a.name, a.default) for a in spec.attrs]
            request = {
                "inputs": [{"shape": [n, width], "dtype": rows_dtype.name}, {"shape": [n], "dtype": index_dtype.name}],
                "outputs": [{"shape": [rows, width], "dtype": rows_dtype.name}],
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
                "padding": 1 if names.get("padding") else -1,
                "scale": False,
            }
            mode = "deterministic" if deterministic else "atomic"
            yield Case(
                spec.snake,
                product.name,
                f"{rows_dtype.name}/{index_dtype.name}",
                f"[{n}, {width}]",
                f"[{n}, {width}] into {rows} rows: tiling and per-core ranges in 64 bits [{mode}]",
                params,
                mode="tiling_2g",
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
    for k, v in fields.items():
        if tiling.get(k) != v:
            return f"tiling field {k} = {tiling.get(k)}, int64 arithmetic gives {v}"
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
