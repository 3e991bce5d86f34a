"""64-bit offsets: ``tiling_2g`` check cases on shapes of at least 2**31 elements, without allocating them.

A real launch of such a shape needs gigabytes per tensor, so these cases never launch the kernel. They call
the generated tiling function (``opgen_rt_run_tiling_json``: shapes and dtypes only) and require, in Python
integers (exact, then held to int64):

- every tiling field, the block dim, the tiling key and the workspace size equal to the planner's
  (``codegen.plan.<family>.tiling_decision``, the int64 model of the tiling that ``opgen explain`` prints);
- the per-core ranges that the kernel derives from those fields (each core's start offset and length, by the
  kernel's own formulas) to cover the tensor exactly once, in order, every offset below 2**63, and the
  largest offset the kernel computes (the last tile of the last core) beyond 2**31 (so a 32-bit
  intermediate would have shown), on any core count.

When the tiling passes and the family gives the ranges a core owns (its ``probe_ranges`` hook), the same
case launches the kernel itself in the runtime's probe mode (:func:`probe_offsets`): every tensor is reserved
address space of its full size, every GM access of the kernel is bounds-checked and recorded per core but not
performed, and only the last core runs (the one whose offsets reach furthest; on a one-core product that is
core 0). It stops at its :data:`PROBE_MAX_ACCESSES`-th GM access, :data:`PROBE_QUICK_MAX_ACCESSES`-th in the
quick check (the driver sets the cap on every family's cases: :func:`with_probe_cap`; a core's share on few
cores is billions of elements; its start offset is still checked). Its recorded GM ranges must equal the
ranges the family's ``probe_ranges`` hook derives from the spec's shape and the tiling fields (an input's
reads, an output's writes), so a kernel that truncates an offset to 32 bits (an explicit cast, which
``-Wconversion`` does not see) reads or writes the wrong bytes and fails, naming the core, the tensor and both
ranges. Reads of GM return zero bytes in the probe (scalar ``GetValue`` and copies into UB alike), so an
index read from GM is 0, a valid index of any non-empty table: a family whose addresses follow index values
derives its ranges with every index 0.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from codegen import registry
from codegen.check.cases import Case
from codegen.spec.model import DeviceTensor, DType, OpSpec, Product
from codegen.types import DEVICE_ATTR_TYPE_INFO

INT64_MAX = 2**63 - 1
#: Elements of the tensors of a one-length ``tiling_2g`` case (every tensor ``[BIG]``): beyond 2**32 (so the
#: last cores start past both the int32 and the uint32 range), by an amount that splits unevenly.
BIG = 3 * 2**31 + 1_000_003
#: GM accesses after which the probe stops its core: enough for the whole share of a core on a product of
#: dozens of cores (a few seconds), a prefix of it on a product of a few cores.
PROBE_MAX_ACCESSES = 1 << 17
#: The quick check's cap: the first tiles of the core's share. A core's start offset truncated to 32 bits (the
#: class the probe is for: the last cores start past 2**31) shows at its first access, at a fraction of the
#: cost of the whole share (about 2.5 s of CPU a case at the full cap on a 48-core product). It covers two
#: tiles of rows copied row by row (a tile of short rows is about a thousand copies) before the first tile's
#: output is written, since a double-buffered kernel loads the next tile before it stores the current one.
PROBE_QUICK_MAX_ACCESSES = 1 << 12


def field_difference(tiling: Mapping[str, int], want: Mapping[str, int]) -> str:
    """The first tiling field whose value in ``tiling`` (what the generated tiling function wrote) is not ``want``'s
    (the planner's int64 arithmetic), as a failure message; '' when every field of ``want`` agrees."""
    for k, v in want.items():
        if tiling.get(k) != v:
            return f"tiling field {k} = {tiling.get(k)}, int64 arithmetic gives {v}"
    return ""


def launch_difference(got: Mapping[str, Any], block_dim: int, tiling_key: int, workspace_bytes: int) -> str:
    """A ``tiling_2g`` result's blockDim, tiling key and workspace sizes against the planner's, as a failure
    message; '' when they agree."""
    if (got["block_dim"], got["tiling_key"], got["workspace_sizes"]) == (block_dim, tiling_key, [workspace_bytes]):
        return ""
    have = f"{got['block_dim']}/{got['tiling_key']}/{got['workspace_sizes']}"
    return f"blockDim/key/workspace {have}, want {block_dim}/{tiling_key}/[{workspace_bytes}]"


def offset_case(
    spec: OpSpec, product: Product, dtype: str, shape: str, name: str, params: dict[str, Any], **extra: Any
) -> Case:
    """A ``tiling_2g`` case of ``spec`` on ``product``: ``dtype`` and ``shape`` as a case shows them (the dtype label
    and the call's shape text), ``name`` what it checks, ``params`` its request (``request``, ``shape``, ...) as
    :func:`codegen.check.case_run.run_case` reads them for this mode; ``extra`` other :class:`Case` fields
    (``deterministic``)."""
    return Case(spec.snake, product.name, dtype, shape, name, params, mode="tiling_2g", **extra)


def with_probe_cap(cases: list[Case], quick: bool) -> list[Case]:
    """``cases`` with the probe's access cap of the check (``params["probe_max_accesses"]``) on every
    ``tiling_2g`` case: :data:`PROBE_QUICK_MAX_ACCESSES` under ``quick``, else :data:`PROBE_MAX_ACCESSES`,
    or the case's own cap when a family set a lower one (a case whose every access costs much vector work).
    The check driver applies it to every family's cases, so no family repeats it; other cases are returned
    as they are (the same objects)."""
    check_cap = PROBE_QUICK_MAX_ACCESSES if quick else PROBE_MAX_ACCESSES

    def capped(c: Case) -> Case:
        cap = min(check_cap, int(c.params.get("probe_max_accesses", check_cap)))
        return replace(c, params={**c.params, "probe_max_accesses": cap})

    return [capped(c) if c.mode == "tiling_2g" else c for c in cases]


def device_attrs(spec: OpSpec, attrs: dict[str, Any]) -> dict[str, Any]:
    """The tiling request's attrs: the device op's attrs (:attr:`OpSpec.device_interface`) by their OpDef
    names, each from its aclnn attr's value in ``attrs`` (aclnn names); a ``string`` attr gets the name of the
    aclnn integer's value (``reduction`` 1 -> ``"mean"``); a ``list_int`` attr the list ``[value]``; a constant
    attr gets its ``value``. An aclnn value
    that is missing keeps the OpDef default.

    Raises:
        KeyError: a string attr's aclnn value has no name in the aclnn attr's ``values``.
    """
    by_name = {a.name: a for a in spec.attrs}
    out: dict[str, Any] = {}
    for dev in spec.device_interface.attrs:
        if dev.source is None:  # a constant the L2 API always passes
            out[dev.name] = dev.value
            continue
        if dev.source not in attrs:
            if dev.default is not None:
                out[dev.name] = list(dev.default) if isinstance(dev.default, tuple) else dev.default
            continue
        value = attrs[dev.source]
        if dev.type == "string" and not isinstance(value, str):  # a string attr already holds its text
            names = dict(by_name[dev.source].values or ())
            value = names[int(value)]
        if DEVICE_ATTR_TYPE_INFO[dev.type].is_list and not isinstance(value, (list, tuple)):
            value = [int(value)]  # an integer aclnn attr reaches a list attr as the one-element list {value}
        out[dev.name] = value
    return out


def device_byte_ranges(
    spec: OpSpec, request: dict[str, Any], elements: Callable[[DeviceTensor], tuple[int, int]]
) -> dict[str, tuple[int, int]]:
    """The bytes ``[lo, hi)`` a probed core owns of each device tensor of ``spec``, by device name, from the
    element range ``elements`` gives for it and the dtype the probe ``request`` gives its tensor (a family's
    ``probe_ranges`` hook supplies the elements). An optional device input no aclnn tensor feeds is left out:
    the kernel never reads it."""
    dev = spec.device_interface
    out: dict[str, tuple[int, int]] = {}
    for params, tensors in ((dev.inputs, request["inputs"]), (dev.outputs, request["outputs"])):
        for param, tensor in zip(params, tensors, strict=True):
            if param.source is None:
                continue
            lo, hi = elements(param)
            size = DType[tensor["dtype"]].itemsize
            out[param.name] = (lo * size, hi * size)
    return out


def cover(name: str, ranges: list[tuple[int, int]], total: int) -> str:
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
    spec = fn.spec
    got = fn.run_tiling(case.params["request"])
    if got.get("status") != 0:
        return f"the tiling function failed on {case.shape}: {got}"
    # scalar fields as int64 (an array field, a tensor list's table, stays in ``got["tiling"]`` for the family)
    tiling = {k: int(v) for k, v in got.get("tiling", {}).items() if not isinstance(v, list)}
    fault = registry.family(spec.family).check_offsets(fn, case, got, tiling)
    return fault or probe_offsets(fn, case, int(got["block_dim"]), tiling)


def _region_tensor(region: str) -> str:
    """The tensor name of a probe region (``"input 0 (x)"`` -> ``"x"``); the region name when it has none."""
    return region[region.index("(") + 1 : -1] if region.endswith(")") and "(" in region else region


def probe_offsets(fn: Any, case: Case, block_dim: int, tiling: dict[str, int]) -> str:
    """Launches the kernel of a ``tiling_2g`` case in probe mode on its last core (``block_dim - 1``) and
    compares the GM bytes it read and wrote per tensor with the family's ``probe_ranges`` (byte offsets
    ``[lo, hi)``; a recorded end may pass the owned end by less than one 32-byte block, as a rounded
    ``DataCopy`` does; a core stopped at its cap (the case's ``probe_max_accesses``, else
    :data:`PROBE_MAX_ACCESSES`) only has to start there and stay before it;
    an input the kernel does not read is skipped, an output it does not write fails unless the core stopped
    first, as a core does that reduces a long row before it writes). A family
    without the hook is not probed. Returns '' when they agree, else the kernel fault (an access outside every
    GM region is a ``[GM bounds]`` fault) or ``"probe: core <k>, <tensor>: <read|wrote> bytes [..), owns
    [..)"``."""
    core = block_dim - 1
    want = registry.family(fn.spec.family).probe_ranges(fn, case, tiling, core)
    if want is None:
        return ""
    cap = int(case.params.get("probe_max_accesses", PROBE_MAX_ACCESSES))
    result = fn.probe_launch({**case.params["request"], "max_accesses": cap}, [core])
    if result.get("status") != 0:
        return f"the probe launch failed on {case.shape}: {result.get('message')}"
    if not result.get("ok"):
        return f"probe launch: {result.get('fault')}"
    outputs = {t.name for t in fn.spec.device_interface.outputs}
    stopped = core in result.get("stopped", [])  # a prefix of the core's share: only its start is known
    seen = {_region_tensor(span["region"]): span for span in result["spans"]}
    for name, (lo, hi) in want.items():
        kind = "write" if name in outputs else "read"
        span = seen.get(name, {}).get(kind)
        if span is None:
            if kind == "read" or stopped:
                continue  # an input the kernel's formula does not use; an output a stopped core had not reached
            return f"probe: core {core}, {name}: wrote no bytes, owns [{lo}, {hi})"
        glo, ghi = span
        verb = "wrote" if kind == "write" else "read"
        if glo != lo or not (lo < ghi < hi + 32 if stopped else hi <= ghi < hi + 32):
            return f"probe: core {core}, {name}: {verb} bytes [{glo}, {ghi}), owns [{lo}, {hi})"
    return ""
