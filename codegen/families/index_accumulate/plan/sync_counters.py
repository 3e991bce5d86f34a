"""The software SyncAll's counters: the extra int32 output of the device op that products without hardware
SyncAll use as the barrier's GM workspace, its size, and the ``scratch_outputs`` hook that declares it."""

from __future__ import annotations

from dataclasses import dataclass

from codegen.families.index_accumulate.plan.constants import BLOCK_BYTES
from codegen.spec.model import OpSpec

#: int32 counters per core of the software SyncAll's GM workspace (one 32-byte block; asc-devkit
#: impl/basic_api/dav_c100/kernel_operator_sync_impl.h SoftSyncAllImpl, DEFAULT_BLK_NUM).
SYNC_SLOT_INTS = BLOCK_BYTES // 4
#: Name of the device op's extra int32 output: the software SyncAll's counters, zero-filled by the launch
#: (OpDef InitValue(0)) on every product; only products without hardware SyncAll use it.
SYNC_OUTPUT = "syncCounters"
#: Cores the software SyncAll's counters output holds (its shape is [SYNC_CORES_MAX * SYNC_SLOT_INTS] int32,
#: 2 KiB, fixed so that the infershape needs no platform facts); a launch on more cores keeps the other
#: strategies on products without hardware SyncAll.
SYNC_CORES_MAX = 64
SYNC_INTS = SYNC_CORES_MAX * SYNC_SLOT_INTS


@dataclass(frozen=True)
class SyncCounters:
    """The software SyncAll's counters output as the templates read it: its ``name`` (the device op's output
    and the kernel's parameter), ``ints`` (its int32 element count, the infershape's and the L0 API's shape)
    and ``cores_max`` (the cores it holds: the tiling keeps larger launches off the strategies that use it)."""

    name: str
    ints: int
    cores_max: int


#: The counters output of every index-accumulate op (:class:`SyncCounters`).
SYNC_COUNTERS = SyncCounters(SYNC_OUTPUT, SYNC_INTS, SYNC_CORES_MAX)


def scratch_outputs(spec: OpSpec) -> int:
    """Outputs of the device op beyond the spec's: one, the software SyncAll's counters (:data:`SYNC_OUTPUT`)."""
    del spec
    return 1
