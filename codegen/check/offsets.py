"""64-bit offsets: ``tiling_2g`` check cases on shapes of at least 2**31 elements, without allocating them.

A real launch of such a shape needs gigabytes per tensor, so these cases never launch the kernel. They call
the generated tiling function (``opgen_rt_run_tiling_json``: shapes and dtypes only) and require, in Python
integers (exact, then held to int64):

- every tiling field, the block dim, the tiling key and the workspace size equal to the planner's
  (``codegen.plan.<family>.tiling_decision``, the int64 model of the tiling that ``opgen explain`` prints);
- the per-core ranges that the kernel derives from those fields (each core's start offset and length, by the
  kernel's own formulas) to cover the tensor exactly once, in order, every offset below 2**63, and the last
  one beyond 2**31 (so a 32-bit intermediate would have shown).

The kernel's own arithmetic is held to 64 bits at build time instead: kernels compile with ``-Wconversion``
as an error (``codegen.build.KERNEL_WARNING_FLAGS``), so an ``int32_t`` offset or length assigned from an
int64 expression does not build.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from codegen.check.cases import Case
from codegen.spec.model import DType, OpSpec, Product

INT64_MAX = 2**63 - 1
#: Elements of the tensors of an elementwise ``tiling_2g`` case: beyond 2**32 (so the last cores start
#: past both the int32 and the uint32 range), by an amount that splits unevenly.
BIG = 3 * 2**31 + 1_000_003


def device_attrs(spec: OpSpec, attrs: dict[str, Any]) -> dict[str, Any]:
    """The tiling request's attrs: the device op's attrs (:attr:`OpSpec.device_interface`) by their OpDef
    names, each from its aclnn attr's value in ``attrs`` (aclnn names); a ``string`` attr gets the name of the
    aclnn integer's value (``reduction`` 1 -> ``"mean"``). An aclnn value that is missing keeps the OpDef
    default.

    Raises:
        KeyError: a string attr's aclnn value has no name in the aclnn attr's ``values``.
    """
    by_name = {a.name: a for a in spec.attrs}
    out: dict[str, Any] = {}
    for dev in spec.device_interface.attrs:
        if dev.source not in attrs:
            if dev.default is not None:
                out[dev.name] = dev.default
            continue
        value = attrs[dev.source]
        if dev.type == "string" and not isinstance(value, str):  # a string attr already holds its text
            names = dict(by_name[dev.source].values or ())
            value = names[int(value)]
        out[dev.name] = value
    return out


def elementwise_offset_cases(
    spec: OpSpec, product: Product, dtypes: list[DType], attrs: dict[str, Any]
) -> Iterator[Case]:
    """One ``tiling_2g`` case per compute dtype: every tensor ``[BIG]`` (all inputs present)."""
    for d in dtypes:
        tensor = {"shape": [BIG], "dtype": d.name}
        request = {
            "inputs": [tensor] * len(spec.inputs),
            "outputs": [tensor] * len(spec.outputs),
            "attrs": device_attrs(spec, attrs),
        }
        params = {"request": request, "shape": (BIG,), "dtype": d.name}
        yield Case(
            spec.snake,
            product.name,
            d.name,
            f"[{BIG}]",
            f"{BIG} elements: tiling and per-core offsets in 64 bits",
            params,
            mode="tiling_2g",
        )


def _cover(name: str, ranges: list[tuple[int, int]], total: int) -> str:
    """'' when ``ranges`` (start, end) cover ``[0, total)`` in order without gap or overlap; else the fault."""
    at = 0
    for k, (start, end) in enumerate(ranges):
        if start != at or end < start or end > INT64_MAX:
            return f"{name}: core {k} covers [{start}, {end}), expected to start at {at}"
        at = end
    return "" if at == total else f"{name}: the cores cover [0, {at}), expected [0, {total})"


def check_offsets(fn: Any, case: Case) -> str:
    """Runs a ``tiling_2g`` case on ``fn`` (a :class:`codegen.runner.OpCallable`); returns '' when it passes,
    else what differs."""
    spec, product = fn.spec, fn.product
    got = fn.run_tiling(case.params["request"])
    if got.get("status") != 0:
        return f"the tiling function failed on {case.shape}: {got}"
    tiling = {k: int(v) for k, v in got.get("tiling", {}).items()}
    if spec.family == "elementwise":
        from codegen.plan.elementwise import tiling_decision

        d = tiling_decision(spec, product, case.params["shape"], DType[case.params["dtype"]])
        want = {
            "totalLength": d.total_length,
            "formerNum": d.former_num,
            "formerLength": d.former_length,
            "tailLength": d.tail_length,
            "tileLength": d.tile_length,
        }
        for k, v in want.items():
            if tiling.get(k) != v:
                return f"tiling field {k} = {tiling.get(k)}, int64 arithmetic gives {v}"
        if (got["block_dim"], got["tiling_key"], got["workspace_sizes"]) != (
            d.block_dim,
            d.tiling_key,
            [d.workspace_bytes],
        ):
            have = f"{got['block_dim']}/{got['tiling_key']}/{got['workspace_sizes']}"
            return f"blockDim/key/workspace {have}, want {d.block_dim}/{d.tiling_key}/[{d.workspace_bytes}]"
        # The kernel's Init: former cores start at blockIdx * formerLength, the others after them; a core's
        # range ends at totalLength.
        ranges = []
        for core in range(d.block_dim):
            if core < d.former_num:
                start, length = core * d.former_length, d.former_length
            else:
                start = d.former_num * d.former_length + (core - d.former_num) * d.tail_length
                length = d.tail_length
            ranges.append((start, min(start + length, d.total_length)))
        fault = _cover("elements", ranges, d.total_length)
        if fault:
            return fault
        if ranges[-1][0] < 2**32:
            return f"the last core starts at {ranges[-1][0]}: the case does not reach past 32 bits"
        return ""
    if spec.family == "index_accumulate":
        from codegen.plan.index_accumulate import tiling_decision as index_tiling

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
            fault = _cover(what, ranges, total)
            if fault:
                return fault
        elements = fields["numIndices"] * fields["rowLength"]
        if elements < 2**32 or elements > INT64_MAX or fields["numRows"] * fields["accStride"] > INT64_MAX:
            return f"grad holds {elements} elements: outside [2**32, int64]"
        return ""
    return f"no 64-bit offset check for family '{spec.family}'"


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
