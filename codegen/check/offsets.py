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

The kernel's own arithmetic is held to 64 bits at build time instead: kernels compile with ``-Wconversion``
as an error (``codegen.build.toolchain.KERNEL_WARNING_FLAGS``), so an ``int32_t`` offset or length assigned from an
int64 expression does not build.
"""

from __future__ import annotations

from typing import Any

from codegen import registry
from codegen.check.cases import Case
from codegen.spec.model import OpSpec
from codegen.types import DEVICE_ATTR_TYPE_INFO

INT64_MAX = 2**63 - 1
#: Elements of the tensors of a one-length ``tiling_2g`` case (every tensor ``[BIG]``): beyond 2**32 (so the
#: last cores start past both the int32 and the uint32 range), by an amount that splits unevenly.
BIG = 3 * 2**31 + 1_000_003


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
    tiling = {k: int(v) for k, v in got.get("tiling", {}).items()}
    return registry.family(spec.family).check_offsets(fn, case, got, tiling)
