"""The performance model's figures for one call: modelled time, critical pipe, copy overlap and roofline.

The emulator's pipe timeline (``runtime/``, ``opgen_rt::CostModel`` from the catalogue's ``cost_model``)
gives per launch the slowest core's modelled cycles and busy cycles of each pipe (S, V, MTE2, MTE3), and
over the launch's cores the copy time, the part of it V was busy too, and the vector work (repeats x cycles
per repeat, no latency). This module adds them up over a call's kernel launches and sets them against the
roofline of the call:

- memory bound: the kernel's GM bytes (read + written + atomically added, every core and launch) / the
  product's GM bandwidth (the chip's, or every vector core's own figure together when that is less);
- vector bound: the vector work of every core / (vector cores x clock): the vector element-ops at the
  hardware's rate per instruction class;
- roofline bound: the larger of the two; roofline fraction: bound / modelled time (1.0 = at the roofline).

Host tasks of the aclnn layer (l0op Contiguous, Cast, ...) run outside the kernel and are not modelled.
Nothing here runs a kernel.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from codegen.spec.model import Product

#: Pipes in the emulator's order (``opgen_rt::device::PipeIndex``).
PIPES = ("S", "V", "MTE2", "MTE3")


@dataclass(frozen=True)
class CallTimeline:
    """The modelled time of one call and its roofline (see the module doc). Times in microseconds, cycles
    at the product's clock, bytes of GM.

    Attributes:
        modelled_cycles: per launch the slowest core's cycles, summed over the launches.
        modelled_us: ``modelled_cycles`` at the clock.
        pipe_busy_cycles: per pipe name, the busy cycles of each launch's slowest core, summed.
        critical_pipe: the pipe with the most busy cycles there.
        copy_hidden_fraction: over every core, the copy time (MTE2 or MTE3 busy) during which V was busy
            too, / the copy time (0.0 without copies).
        gm_bytes: kernel GM bytes read, written and atomically added.
        vector_elements: elements of every vector instruction (the emulator's ``vector_elements``).
        memory_bound_us: ``gm_bytes`` / the product's GM bandwidth.
        vector_bound_us: the vector work over every vector core at the clock.
        roofline_us: the larger bound; ``bound`` says which ("memory" or "vector").
        roofline_fraction: ``roofline_us / modelled_us`` (0.0 when nothing was modelled).
    """

    modelled_cycles: float
    modelled_us: float
    pipe_busy_cycles: dict[str, float]
    critical_pipe: str
    copy_hidden_fraction: float
    gm_bytes: int
    vector_elements: int
    memory_bound_us: float
    vector_bound_us: float
    roofline_us: float
    bound: str
    roofline_fraction: float

    def as_dict(self) -> dict[str, Any]:
        """The figures as a JSON-ready dict."""
        return asdict(self)


def gm_bandwidth_bytes_per_us(product: Product) -> float:
    """The product's GM bandwidth in bytes per microsecond: the chip's figure, or every vector core's own
    figure together when that is less.

    Raises:
        ValueError: the product has no cost model.
    """
    m = product.cost_model
    if m is None:
        raise ValueError(f"{product.name} has no cost model in the product catalogue")
    chip = m.gm_bandwidth_gbps.value * 1e3  # GB/s = 1e9 bytes/s = 1e3 bytes/us
    cores = product.vector_core_num * m.core_gm_bytes_per_cycle.value * m.clock_mhz.value  # bytes/cycle x MHz
    return min(chip, cores)


def call_timeline(stats: dict[str, Any], product: Product) -> CallTimeline | None:
    """The timeline figures of one call from its emulator counters (a runner's ``last_stats``: launches,
    each with its ``timeline`` (the slowest core's ``modelled_cycles`` and ``pipe_busy_cycles``, and over
    its cores ``copy_cycles``, ``copy_hidden_cycles``, ``vector_work_cycles``) and per-core GM byte counters
    and ``vector_elements``).

    Returns:
        None when the product has no cost model (the model is unavailable for it) or a launch carries no
        timeline; else the figures (see :class:`CallTimeline`).
    """
    m = product.cost_model
    launches = stats.get("launches") or []
    if m is None or any(not launch.get("timeline") for launch in launches if launch.get("cores")):
        return None
    modelled = 0.0
    busy = dict.fromkeys(PIPES, 0.0)
    copy = hidden = work = 0.0
    gm = elements = 0
    for launch in launches:
        tl = launch.get("timeline")
        if not tl:
            continue
        modelled += float(tl["modelled_cycles"])
        for p in PIPES:
            busy[p] += float(tl["pipe_busy_cycles"][p])
        copy += float(tl["copy_cycles"])
        hidden += float(tl["copy_hidden_cycles"])
        work += float(tl["vector_work_cycles"])
        for c in launch.get("cores", []):
            gm += int(c["gm_bytes_read"]) + int(c["gm_bytes_written"]) + int(c["gm_bytes_atomic_added"])
            elements += int(c["vector_elements"])
    clock = m.clock_mhz.value  # cycles per microsecond
    memory_us = gm / gm_bandwidth_bytes_per_us(product)
    vector_us = work / product.vector_core_num / clock
    roofline = max(memory_us, vector_us)
    modelled_us = modelled / clock
    return CallTimeline(
        modelled_cycles=modelled,
        modelled_us=modelled_us,
        pipe_busy_cycles=busy,
        critical_pipe=max(PIPES, key=lambda p: busy[p]),
        copy_hidden_fraction=hidden / copy if copy > 0 else 0.0,
        gm_bytes=gm,
        vector_elements=elements,
        memory_bound_us=memory_us,
        vector_bound_us=vector_us,
        roofline_us=roofline,
        bound="memory" if memory_us >= vector_us else "vector",
        roofline_fraction=roofline / modelled_us if modelled_us > 0 else 0.0,
    )
