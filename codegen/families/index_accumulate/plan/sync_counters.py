"""The software SyncAll's counters: the extra int32 output of the device op that products without hardware
SyncAll use as the barrier's GM workspace, its size, and the ``scratch_outputs`` hook that declares it."""

from __future__ import annotations

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


def scratch_outputs(spec: OpSpec) -> int:
    """Outputs of the device op beyond the spec's: one, the software SyncAll's counters (:data:`SYNC_OUTPUT`)."""
    del spec
    return 1
