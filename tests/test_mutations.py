"""Mutation suite: realistic faults planted in the GENERATED sources of both seed ops must be reported.

Each mutant copies the op's folder of ``generated/`` to a temporary tree, applies exact text replacements there
(every anchor must occur exactly once: an anchor that no longer matches fails the test, it is never skipped),
builds the tree for the product(s) where the fault matters and runs the op's targeted cases through the
same code ``opgen check`` runs (``cases_for`` + ``run_case``): the ``--quick`` matrix plus a few multi-core
cases (the quick matrix of the elementwise op never launches more than one core, and no quick case of
the index op has a core that takes one item more than the others). The mutant must be KILLED: some case
must fail (the cases run in order until the expected kill shows, all of them when it does not), and the
suite also asserts HOW: wrong values (``values``), a kernel fault of a named emulator
rule (the ``[rule]`` of the fault message, rule names from runtime/include/opgen_rt/device/core_state.h),
or a compile-time rejection (``build``). ``test_unmutated_tree_passes_the_targeted_cases`` runs the same
cases on unmutated copies, so that a kill is never an artefact of the harness, and
``test_opgen_check_cli_reports_a_mutant`` shows one kill through the ``opgen check --generated`` command.

``MUTANTS`` is the exported table (id, op, products, fault, expected kill) that the manual lists
(docs/testing.md). Builds
of all selected mutants start in the background when the first test of this module runs (two at a time),
so the 2-core CI compiles while earlier mutants run. A mutant that edits only the kernel and is not a build
kill is compiled for the tiling keys its targeted cases launch on the unmutated build only (the builder's
key filter, ``build_op(tiling_keys=...)``, as the CANN toolchain compiles a kernel per key; its tiling is
the unmutated one, so it launches the same keys): a launch of any other key is a ``[tiling key not built]``
fault, which the test reports as a harness error, never as a kill. Every mutant that edits the kernel (key
filter or not, build kills too) has it compiled at -O0 (``build_op(unoptimized_kernel=True)``): about half the
compile time of -O1, the same results (no case here is timed) and the same front-end diagnostics, which are
the build kills (:func:`edits_kernel`).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from multicore_cases import EDB, MSE, SMLB, targeted_cases

from codegen.build import BuildError, BuiltOp, build_op
from codegen.check.case_run import run_case
from codegen.check.driver import CaseResult
from codegen.check.reference import load_reference
from codegen.paths import project_paths
from codegen.runner import OpCallable
from codegen.specs import load_project

pytestmark = pytest.mark.heavy(300)  # about 300 CPU s (314 with two workers): scheduled before lighter files

#: Kill kinds besides a rule name: wrong values, a compile-time rejection, a status case answered with
#: another status (the derived status matrix), a determinism case (output not bit-identical over core
#: orders, or GM atomics in a deterministic run the spec declares atomic-free), a ``tiling_2g`` case (the
#: tiling or per-core ranges of a shape beyond 2**32 elements differ from int64 arithmetic).
VALUES = "values"
BUILD = "build"
STATUS = "status"
DETERMINISM = "determinism"
OFFSETS = "offsets"
KINDS = (VALUES, BUILD, STATUS, DETERMINISM, OFFSETS)

#: The status of a kernel fault (ACL_ERROR_RT_VECTOR_CORE_EXCEPTION, which the stream's synchronisation
#: returns) and how its message names the rule.
RUNTIME_ERROR = 507035
_FAULT_RULE = re.compile(r"kernel fault \[([^\]]+)\]")
#: The fault of a launch of a tiling key a filtered build did not compile (runtime/src/device/launch.cpp).
_KEY_NOT_BUILT = "tiling key not built"

_SMLB_KERNEL = "op_kernel/soft_margin_loss_grad.cpp"
_SMLB_TILING = "op_host/soft_margin_loss_grad_tiling.cpp"
_SMLB_API = "op_api/aclnn_soft_margin_loss_backward.cpp"
_EDB_KERNEL = "op_kernel/embedding_dense_grad_accumulate.cpp"
_EDB_TILING = "op_host/embedding_dense_grad_accumulate_tiling.cpp"
_EDB_API = "op_api/aclnn_embedding_dense_backward.cpp"
_EDB_DEF = "op_host/embedding_dense_grad_accumulate_def.cpp"

# The scalar tail of the GM -> UB copy on products without DataCopyPad (identical in both kernels).
_GM_TO_UB_TAIL = """\
  if (aligned > 0) {
    DataCopy(dst, src, static_cast<uint32_t>(aligned));
  }
  if (aligned < count) {
    PipeBarrier<PIPE_ALL>();
    for (int64_t i = aligned; i < count; ++i) {
      dst.SetValue(static_cast<uint32_t>(i), src.GetValue(static_cast<uint64_t>(i)));
    }
    PipeBarrier<PIPE_ALL>();
  }
"""
_GM_TO_UB_PLAIN = """\
  (void)aligned;
  DataCopy(dst, src, static_cast<uint32_t>(count));
"""


@dataclass(frozen=True)
class Edit:
    """Replace ``old`` (which must occur exactly once) by ``new`` in ``file`` of the op's folder of
    ``generated/``."""

    file: str
    old: str
    new: str


@dataclass(frozen=True)
class Mutant:
    """A deliberate fault: stable ``ident``, the ``products`` it is built for, a one-line ``fault``, its
    ``edits``, and the expected ``kill`` (``values``, ``build`` or an emulator rule name); ``detail`` is a
    further text the kill message must contain; ``also`` lists further kill kinds other cases must show
    (e.g. a copy too long for a small GM buffer and for a large UB tile)."""

    ident: str
    op: str
    products: tuple[str, ...]
    fault: str
    edits: tuple[Edit, ...]
    kill: str
    detail: str = ""
    also: tuple[str, ...] = ()


_MSE = MSE
_MSE_KERNEL = "op_kernel/mse_loss.cpp"

MUTANTS: tuple[Mutant, ...] = (
    # ------------------------------------------------- MseLoss (elementwise + the whole-tensor reduce epilogue)
    Mutant(
        "mse-partial-summed-twice",
        _MSE,
        ("Ascend910B",),
        "core 0's combine adds the partial of core 0 a second time",
        (
            Edit(
                _MSE_KERNEL,
                "      total += SumTile(slots, static_cast<uint32_t>(n * SLOT_FLOATS));\n    }\n",
                "      total += SumTile(slots, static_cast<uint32_t>(n * SLOT_FLOATS));\n    }\n"
                "    total += partial_;\n",
            ),
        ),
        VALUES,
    ),
    Mutant(
        "mse-tail-mask-off-by-one",
        _MSE,
        ("Ascend910B",),
        "the accumulator's ReduceSum counts one element past the ones a tile reached (never written)",
        (
            Edit(
                _MSE_KERNEL,
                "ReduceSum(sum, src, work, static_cast<int32_t>(n));",
                "ReduceSum(sum, src, work, static_cast<int32_t>(n + 1));",
            ),
        ),
        "UB uninitialized read",
    ),
    Mutant(
        "mse-combine-without-syncall",
        _MSE,
        ("Ascend910B",),
        "no SyncAll: core 0 reads the partials whenever it gets there (unordered with the writes)",
        (Edit(_MSE_KERNEL, "    SyncAll();  // every partial is in the workspace before core 0 reads them\n", ""),),
        "pipe race",
    ),
    Mutant(
        "mse-mean-divisor-wrong",
        _MSE,
        ("Ascend910B",),
        "the mean divides by the element count + 1",
        (
            Edit(
                _MSE_KERNEL,
                "total = total / static_cast<float>(totalLength_);",
                "total = total / static_cast<float>(totalLength_ + 1);",
            ),
        ),
        VALUES,
    ),
    # ------------------------------------------------------------------ SoftMarginLossBackward (elementwise)
    Mutant(
        "smlb-tail-tile-short",
        SMLB,
        ("Ascend910B",),
        "off-by-one tail tile: the last tile of a core moves one element less",
        (
            Edit(
                _SMLB_KERNEL,
                "? (coreLength_ - done) : tileLength_;",
                "? (coreLength_ - done - 1) : tileLength_;",
            ),
        ),
        VALUES,
    ),
    Mutant(
        "smlb-write-past-core-range",
        SMLB,
        ("Ascend910B",),
        "every tile is written one element further on: the last core writes one element past the output",
        (
            Edit(
                _SMLB_KERNEL,
                "CopyUbToGm(outGm_[offset], outLocal, count);",
                "CopyUbToGm(outGm_[offset + 1], outLocal, count);",
            ),
        ),
        "GM bounds",
        "output 0",
    ),
    Mutant(
        "smlb-fp16-cast-removed",
        SMLB,
        ("Ascend910B",),
        "missing cast back to the 16-bit dtype: the fp32 result is never converted into the output tile",
        (Edit(_SMLB_KERNEL, "      Cast(outLocal, tmp1, RoundMode::CAST_RINT, n);\n", ""),),
        "UB uninitialized read",
        "DataCopyPad UB->GM",
    ),
    Mutant(
        "smlb-fp16-cast-wrong-buffer",
        SMLB,
        ("Ascend910B",),
        "CAST_RINT back to the 16-bit dtype reads the wrong fp32 temporary (the sigmoid factor, not the result)",
        (
            Edit(
                _SMLB_KERNEL,
                "Cast(outLocal, tmp1, RoundMode::CAST_RINT, n);",
                "Cast(outLocal, tmp0, RoundMode::CAST_RINT, n);",
            ),
        ),
        VALUES,
    ),
    Mutant(
        "smlb-unaligned-datacopy-910",
        SMLB,
        ("Ascend910",),
        "no DataCopyPad on Ascend910, yet the scalar tail of the GM->UB copy is replaced by DataCopy of `count`",
        (Edit(_SMLB_KERNEL, _GM_TO_UB_TAIL, _GM_TO_UB_PLAIN),),
        "DataCopy truncation",
        "rounds the length down",
    ),
    Mutant(
        "smlb-tile-one-block-over-ub",
        SMLB,
        ("Ascend910B",),
        "tiling: the UB tile is one 32-byte block larger than UB allows",
        (
            Edit(
                _SMLB_TILING,
                "/ bytesPerElement / repeatElems * repeatElems;",
                "/ bytesPerElement / repeatElems * repeatElems + blockElems;",
            ),
        ),
        "UB capacity",
        "exceed the core's UB capacity of 196608 bytes",
    ),
    Mutant(
        "smlb-split-for-all-cores",
        SMLB,
        ("Ascend910B",),
        "tiling splits the blocks over every core of the product but launches only `usedCores`",
        (
            Edit(
                _SMLB_TILING,
                "const int64_t blocksPerCore = totalBlocks / usedCores;\n"
                "  const int64_t formerNum = totalBlocks % usedCores;",
                "const int64_t blocksPerCore = totalBlocks / coreNum;\n"
                "  const int64_t formerNum = totalBlocks % coreNum;",
            ),
        ),
        VALUES,
    ),
    Mutant(
        "smlb-former-core-offset",
        SMLB,
        ("Ascend910B",),
        "wrong per-core offset: cores that take one block more start at blockIdx * tailLength",
        (Edit(_SMLB_KERNEL, "offset = blockIdx * tiling.formerLength;", "offset = blockIdx * tiling.tailLength;"),),
        "GM data race",
        "between the same SyncAll barriers",
    ),
    Mutant(
        "smlb-mean-scale-dropped",
        SMLB,
        ("Ascend910B",),
        "reduction scale dropped: reduction=mean no longer divides by numel(out)",
        (
            Edit(
                _SMLB_TILING,
                "(static_cast<double>(int64_t{1}) / static_cast<double>(totalLength))",
                "static_cast<double>(int64_t{1})",
            ),
        ),
        VALUES,
    ),
    Mutant(
        "smlb-dequeue-before-enqueue",
        SMLB,
        ("Ascend910B",),
        "wrong queue order: CopyOut dequeues the output queue before Compute enqueued the tile",
        (
            Edit(
                _SMLB_KERNEL,
                "      Compute(count);\n      CopyOut(done, count);",
                "      CopyOut(done, count);\n      Compute(count);",
            ),
        ),
        "queue order",
        "DeQue on",
    ),
    Mutant(
        "smlb-free-tensor-missing",
        SMLB,
        ("Ascend910B",),
        "FreeTensor of the `self` input tile is missing",
        (Edit(_SMLB_KERNEL, "      selfQueue_.FreeTensor(selfLocal);\n", ""),),
        "buffer leak",
        "every AllocTensor needs a FreeTensor",
    ),
    Mutant(
        "smlb-free-before-copy-out",
        SMLB,
        ("Ascend910B",),
        "the output tile is freed before CopyOut copies it to GM (the queue may hand its buffer to the next tile)",
        (
            Edit(
                _SMLB_KERNEL,
                "    CopyUbToGm(outGm_[offset], outLocal, count);\n    outQueue_.FreeTensor(outLocal);\n",
                "    outQueue_.FreeTensor(outLocal);\n    CopyUbToGm(outGm_[offset], outLocal, count);\n",
            ),
        ),
        "use after FreeTensor",
        "src is a LocalTensor of buffer",
    ),
    Mutant(
        "smlb-queue-buffers-over-cap-910",
        SMLB,
        ("Ascend910",),
        "input buffers per queue capped by the position's total, not its share: 3 VECIN queues x 2 buffers on "
        "Ascend910, which holds 4 per position",
        (
            Edit(
                _SMLB_TILING,
                "std::min<int64_t>(BUFFER_NUM, queueBufferCap / info.numInputs));",
                "std::min<int64_t>(BUFFER_NUM, queueBufferCap));",
            ),
        ),
        "queue buffer cap",
        "Ascend910's 4 queue buffers per position",
    ),
    Mutant(
        "smlb-target-not-broadcast",
        SMLB,
        ("Ascend910B",),
        "broadcast error: `target` reaches the device op unexpanded while the kernel reads numel(out) of it",
        (
            Edit(
                _SMLB_API,
                "auto targetBroadcast = BroadcastTensor(targetCasted, broadcastShape, uniqueExecutor.get());",
                "auto targetBroadcast = targetCasted;",
            ),
        ),
        "GM bounds",
        "input 1 (label)",
    ),
    Mutant(
        "smlb-copy-length-in-bytes-910",
        SMLB,
        ("Ascend910",),
        "DataCopy length given in bytes instead of elements (GM->UB copy on Ascend910)",
        (
            Edit(
                _SMLB_KERNEL,
                "    DataCopy(dst, src, static_cast<uint32_t>(aligned));\n  }\n  if (aligned < count) {\n"
                "    PipeBarrier<PIPE_ALL>();\n    for (int64_t i = aligned; i < count; ++i) {\n"
                "      dst.SetValue(static_cast<uint32_t>(i), src.GetValue(static_cast<uint64_t>(i)));",
                "    DataCopy(dst, src, static_cast<uint32_t>(aligned * static_cast<int64_t>(sizeof(T))));\n  }\n"
                "  if (aligned < count) {\n    PipeBarrier<PIPE_ALL>();\n"
                "    for (int64_t i = aligned; i < count; ++i) {\n"
                "      dst.SetValue(static_cast<uint32_t>(i), src.GetValue(static_cast<uint64_t>(i)));",
            ),
        ),
        "GM bounds",
        "DataCopy GM->UB: read",
        ("UB bounds",),
    ),
    Mutant(
        "smlb-datacopypad-on-910",
        SMLB,
        ("Ascend910",),
        "the no-DataCopyPad path is guarded by the wrong NpuArch, so Ascend910 compiles DataCopyPad",
        (
            Edit(
                _SMLB_KERNEL,
                "const GlobalTensor<T> &src, int64_t count) {\n#if __NPU_ARCH__ == 1001",
                "const GlobalTensor<T> &src, int64_t count) {\n#if __NPU_ARCH__ == 2201",
            ),
        ),
        BUILD,
        "DataCopyPad is not available on Ascend910",
    ),
    Mutant(
        "smlb-raw-tail-write-shifted-910",
        SMLB,
        ("Ascend910",),
        "the scalar tail of the UB->GM copy is written through the raw GM pointer, one element further on: the "
        "last core writes one past the end of the output",
        (
            Edit(
                _SMLB_KERNEL,
                "      dst.SetValue(static_cast<uint64_t>(i), src.GetValue(static_cast<uint32_t>(i)));",
                "      dst.GetPhyAddr(0)[i + 1] = src.GetValue(static_cast<uint32_t>(i));",
            ),
        ),
        "GM bounds (raw pointer)",
        'past the end of region "output 0 (gradient)"',
    ),
    # --------------------------------------------------------------- EmbeddingDenseBackward (index_accumulate)
    # The sorted-run strategy (tiling keys 2xx/3xx): its cases are the "sorted-run strategy" ones.
    Mutant(
        "edb-sorted-run-boundary-off-by-one",
        EDB,
        ("Ascend910B", "Ascend910"),
        "sorted-run strategy: a bucket's run of sorted entries ends one entry early (its last entry is never summed)",
        (
            Edit(
                _EDB_KERNEL,
                "    const int64_t bucketEnd = start.GetValue(static_cast<uint32_t>(b + 1));\n    split = false;",
                "    const int64_t bucketEnd = start.GetValue(static_cast<uint32_t>(b + 1)) - 1;\n    split = false;",
            ),
        ),
        VALUES,
    ),
    Mutant(
        "edb-sorted-split-run-summed-twice",
        EDB,
        ("Ascend910B", "Ascend910"),
        "sorted-run strategy: a core sums a bucket from its first entry instead of from its own range's start, so "
        "the part of a bucket crossing a core boundary is summed by both cores (the later core also takes the "
        "bucket as unsplit and writes it plainly, racing with the other core's atomic add)",
        (
            Edit(
                _EDB_KERNEL,
                "    partStart = bucketStart > rangeStart ? bucketStart : rangeStart;",
                "    partStart = bucketStart;",
            ),
        ),
        "GM data race",
        "",
    ),
    # Ascend910 (no DataCopyPad, no hardware SyncAll) runs the sorted strategy's deterministic mode only, with
    # whole-block DataCopy gathers and split buckets merged from partial slots after a third barrier.
    Mutant(
        "edb-sorted-det-merge-skips-first-part",
        EDB,
        ("Ascend910",),
        "sorted-run strategy, deterministic mode: the merge of a bucket split between cores starts at the next "
        "core's partial slot, so the first core's part is lost",
        (
            Edit(
                _EDB_KERNEL,
                "        for (int64_t c = blockIdx_; c < cores_ && coreStart < bucketEnd; ++c) {",
                "        for (int64_t c = blockIdx_ + 1; c < cores_ && coreStart < bucketEnd; ++c) {",
            ),
        ),
        VALUES,
    ),
    Mutant(
        "edb-sync-counters-not-zeroed",
        EDB,
        ("Ascend910",),
        "the OpDef drops InitValue(0) from the syncCounters output, so the software SyncAll starts on whatever "
        "the allocation held",
        (
            Edit(
                _EDB_DEF, "ge::FORMAT_ND})\n        .InitValue(0);\n    this->Attr", "ge::FORMAT_ND});\n    this->Attr"
            ),
            Edit(
                _EDB_DEF,
                '.InitValue(0);\n    this->AICore().AddConfig("ascend910"',
                ';\n    this->AICore().AddConfig("ascend910"',
            ),
        ),
        "SyncAll",
        "zero-filled before the launch",
    ),
    Mutant(
        "edb-need-atomic-not-set",
        EDB,
        ("Ascend910",),
        "the tiling leaves SetNeedAtomic false, so the syncCounters output's InitValue(0) does not take effect "
        "and the software SyncAll starts on what the allocation held",
        (
            Edit(
                _EDB_TILING,
                "  if (context->SetNeedAtomic(true) != ge::GRAPH_SUCCESS) {",
                "  if (context->SetNeedAtomic(false) != ge::GRAPH_SUCCESS) {",
            ),
        ),
        "SyncAll",
        "zero-filled before the launch",
    ),
    Mutant(
        "edb-sorted-positions-misused-whole-blocks",
        EDB,
        ("Ascend910",),
        "sorted-run strategy without DataCopyPad: the grad rows are gathered at the entry's place in the sorted "
        "order (padding pairs included) instead of at its stored position",
        (
            Edit(
                _EDB_KERNEL,
                "DataCopy(tile, rowsGm_[pos * rowLength_ + col], copyParams);",
                "DataCopy(tile, rowsGm_[(base + j) * rowLength_ + col], copyParams);",
            ),
        ),
        # the sorted order counts the padding pairs too, so the last core's places run past the grad rows
        "GM bounds",
        "",
    ),
    Mutant(
        "edb-sorted-positions-misused",
        EDB,
        ("Ascend910B",),
        "sorted-run strategy: the grad row is read at the entry's place in the sorted order instead of at its "
        "stored position",
        (
            Edit(
                _EDB_KERNEL,
                "DataCopyPad(tile, rowsGm_[pos * rowLength_ + col], copyParams, padParams);",
                "DataCopyPad(tile, rowsGm_[(base + j) * rowLength_ + col], copyParams, padParams);",
            ),
        ),
        VALUES,
    ),
    # The sorted-run strategy's small-dim variant (records of the row key and its fp32 values): its cases are
    # the "sorted-run small-dim variant" ones, sized from the tiling.
    Mutant(
        "edb-sorted-small-record-key-off-by-one",
        EDB,
        ("Ascend910B",),
        "sorted-run small-dim variant: phase 2 writes each record with the key of the next row, so phase 3 adds "
        "its values into the wrong row of the bucket accumulator",
        (
            Edit(
                _EDB_KERNEL,
                "stage.SetValue(static_cast<uint32_t>(slot), static_cast<int32_t>(row));",
                "stage.SetValue(static_cast<uint32_t>(slot), static_cast<int32_t>(row + 1));",
            ),
        ),
        # a bucket's last row + 1 lies past the accumulator rows phase 3 zeroed
        "UB uninitialized read",
    ),
    Mutant(
        "edb-sorted-small-record-values-wrong-row",
        EDB,
        ("Ascend910B",),
        "sorted-run small-dim variant: a record's values are copied from the grad row after the entry's own (in "
        "the contiguous tile phase 2 read)",
        (
            Edit(
                _EDB_KERNEL,
                "const int64_t from = (j - loadedFrom) * rowLength_;",
                "const int64_t from = (j - loadedFrom + 1) * rowLength_;",
            ),
        ),
        # the last row of a tile reads past the rows phase 2 copied in
        "UB uninitialized read",
    ),
    Mutant(
        "edb-sorted-small-split-bucket-summed-twice",
        EDB,
        ("Ascend910B",),
        "sorted-run small-dim variant: a core sums a bucket split between cores from the bucket's first record "
        "instead of from its own range's start, so the earlier core's part is added twice",
        (
            Edit(
                _EDB_KERNEL,
                "        SumBucket(b, partStart, partEnd, split);",
                "        SumBucket(b, smallDim_ && split ? static_cast<int64_t>(startBuf_.Get<int32_t>().GetValue("
                "static_cast<uint32_t>(b))) : partStart, partEnd, split);",
            ),
        ),
        VALUES,
    ),
    Mutant(
        "edb-grad-row-stride",
        EDB,
        ("Ascend910B",),
        "stride error: grad rows are addressed with the padded accumulator stride instead of D",
        (
            Edit(
                _EDB_KERNEL,
                "DataCopyPad(tile, rowsGm_[first * rowLength_ + col], copyParams, padParams);",
                "DataCopyPad(tile, rowsGm_[first * accStride_ + col], copyParams, padParams);",
            ),
        ),
        "GM bounds",
        "input 0 (grad)",
        (VALUES,),
    ),
    Mutant(
        "edb-padding-skip-removed",
        EDB,
        ("Ascend910B",),
        "the padding-row skip is removed from both strategies",
        (
            Edit(
                _EDB_KERNEL,
                "return (row < lo || row >= hi || row == paddingRow_) ? -1 : row;",
                "return (row < lo || row >= hi) ? -1 : row;",
            ),
        ),
        VALUES,
    ),
    Mutant(
        "edb-frequency-scale-twice",
        EDB,
        ("Ascend910B",),
        "scaleGradByFreq applied twice: each row is divided by its count squared",
        (
            Edit(
                _EDB_KERNEL,
                "factor = 1.0f / static_cast<float>(occurrences);",
                "factor = 1.0f / static_cast<float>(occurrences) / static_cast<float>(occurrences);",
            ),
        ),
        VALUES,
    ),
    Mutant(
        "edb-set-atomic-none-missing",
        EDB,
        ("Ascend910B",),
        "SetAtomicNone missing after the atomic adds: the final output copies add into uninitialised GM",
        (
            Edit(
                _EDB_KERNEL,
                "static_cast<uint32_t>(AlignUp(t.count, FP32_BLOCK)));\n    }\n    SetAtomicNone();\n",
                "static_cast<uint32_t>(AlignUp(t.count, FP32_BLOCK)));\n    }\n",
            ),
        ),
        VALUES,
    ),
    Mutant(
        "edb-syncall-before-final-read-removed",
        EDB,
        ("Ascend910B",),
        "the SyncAll between the atomic adds and the final read of the accumulator is removed",
        (Edit(_EDB_KERNEL, "    SyncAll();\n    FinishOwnedRows();", "    FinishOwnedRows();"),),
        VALUES,
    ),
    Mutant(
        "edb-syncall-after-zero-fill-removed",
        EDB,
        ("Ascend910B",),
        "the SyncAll between the zero fill of the accumulator and the atomic adds of other cores is removed",
        (
            Edit(
                _EDB_KERNEL,
                "    SyncAll();\n    for (int64_t base = indexStart_;",
                "    for (int64_t base = indexStart_;",
            ),
        ),
        "GM data race",
        "with a plain (non-atomic) write while core",
    ),
    Mutant(
        "edb-accumulator-zero-fill-skipped",
        EDB,
        ("Ascend910B",),
        "the zero fill of the accumulator is skipped: the kernel adds into GM as aclrtMalloc left it",
        (
            Edit(
                _EDB_KERNEL,
                "for (int64_t done = 0; done < total; done += dChunk_) {",
                "for (int64_t done = total; done < total; done += dChunk_) {",
            ),
        ),
        VALUES,
    ),
    Mutant(
        "edb-counts-zero-fill-removed",
        EDB,
        ("Ascend910B",),
        "the occurrence counts in the workspace are never zeroed before counting (scaleGradByFreq)",
        (Edit(_EDB_KERNEL, "      countsGm_.SetValue(static_cast<uint64_t>(row - rowStart_), 0);\n", ""),),
        VALUES,
    ),
    Mutant(
        "edb-syncall-in-branch",
        EDB,
        ("Ascend910B",),
        "the first SyncAll is called only by cores that own output rows",
        (
            Edit(
                _EDB_KERNEL,
                "    SyncAll();\n    for (int64_t base = indexStart_;",
                "    if (rowStart_ < rowEnd_) {\n      SyncAll();\n    }\n    for (int64_t base = indexStart_;",
            ),
        ),
        "SyncAll",
        "must call SyncAll the same number of times",
    ),
    Mutant(
        "edb-workspace-too-small",
        EDB,
        ("Ascend910B",),
        "workspace smaller than used: the tiling forgets the occurrence counts in the workspace size",
        (
            Edit(
                _EDB_TILING,
                "static_cast<size_t>(useSorted ? sortPlan.workspaceBytes : countsOffset + countsBytes);",
                "static_cast<size_t>(useSorted ? sortPlan.workspaceBytes : countsOffset);",
            ),
        ),
        "GM bounds",
        "GlobalTensor::SetValue",
    ),
    Mutant(
        "edb-atomic-add-index-dtype",
        EDB,
        ("Ascend910B",),
        "atomic add in the index dtype: SetAtomicAdd<TStore> (int64_t for INT64 indices), which Ascend910B "
        "atomics do not add (Ascend910, whose atomics add float only, runs no atomic strategy any more)",
        (Edit(_EDB_KERNEL, "    SetAtomicAdd<float>();\n    for (", "    SetAtomicAdd<TStore>();\n    for ("),),
        "atomic dtype",
        "SetAtomicAdd<int64_t>: atomic add on Ascend910B supports",
    ),
    Mutant(
        "edb-atomic-key-on-910",
        EDB,
        ("Ascend910",),
        "the tiling ignores the missing hardware SyncAll and picks the atomic strategy on Ascend910, whose "
        "kernel has no atomic branch there",
        (
            Edit(
                _EDB_TILING,
                "context->GetDeterministic() != 0 || !hwSyncAll;",
                "context->GetDeterministic() != 0;",
            ),
        ),
        VALUES,
    ),
    Mutant(
        "edb-hardware-syncall-on-910",
        EDB,
        ("Ascend910",),
        "the template leans on hardware SyncAll: the atomic strategy (no-argument SyncAll) compiled and picked "
        "on Ascend910, where the barrier does not exist",
        (
            Edit(
                _EDB_TILING,
                "context->GetDeterministic() != 0 || !hwSyncAll;",
                "context->GetDeterministic() != 0;",
            ),
            Edit(_EDB_KERNEL, "#if !(__NPU_ARCH__ == 1001)\n  // Atomic strategy:", "#if 1\n  // Atomic strategy:"),
            Edit(
                _EDB_KERNEL,
                "#if !(__NPU_ARCH__ == 1001)\n  if (!deterministic) {",
                "#if 1\n  if (!deterministic) {",
            ),
            Edit(
                _EDB_KERNEL,
                "#if !(__NPU_ARCH__ == 1001)\n  if (TILING_KEY_IS(0)) {",
                "#if 1\n  if (TILING_KEY_IS(0)) {",
            ),
        ),
        "SyncAll unsupported",
        "does not exist on Ascend910",
    ),
    Mutant(
        "edb-zero-fill-length-in-bytes",
        EDB,
        ("Ascend910B",),
        "DataCopy length given in bytes instead of elements (zero fill of the accumulator)",
        (
            Edit(
                _EDB_KERNEL,
                "DataCopy(accGm_[start + done], zeroLocal, static_cast<uint32_t>(count));",
                "DataCopy(accGm_[start + done], zeroLocal, static_cast<uint32_t>(count * 4));",
            ),
        ),
        "GM bounds",
        "DataCopy UB->GM: write",
        ("UB bounds", "GM data race"),
    ),
    Mutant(
        "edb-row-chunk-rounded-up",
        EDB,
        ("Ascend910B",),
        "tiling rounds the grad tile's row count UP: one tile row more than what the queues leave of UB",
        (
            Edit(
                _EDB_TILING,
                "(tileBudget - (ubAccumulate != 0 ? ubAccBytes : 0)) / tileRowBytes,",
                "CeilDiv(tileBudget - (ubAccumulate != 0 ? ubAccBytes : 0), tileRowBytes),",
            ),
        ),
        "UB capacity",
        "exceed the core's UB capacity of 196608 bytes",
    ),
    Mutant(
        "edb-former-core-offset",
        EDB,
        ("Ascend910B",),
        "wrong per-group offset: groups that take one item more start at group * perGroup",
        (Edit(_EDB_KERNEL, "start = group * (perGroup + 1);", "start = group * perGroup;"),),
        "GM data race",
        "between the same SyncAll barriers",
        (VALUES,),
    ),
    Mutant(
        "edb-slice-offset-dropped",
        EDB,
        ("Ascend910B",),
        "every D-slice core starts at column 0: the slice offset blockIdx % sliceNum * sliceLength is dropped",
        (Edit(_EDB_KERNEL, "colStart = (blockIdx % sliceNum) * sliceLength;", "colStart = 0;"),),
        "GM data race",
        "between the same SyncAll barriers",
    ),
    Mutant(
        "edb-free-tensor-missing",
        EDB,
        ("Ascend910B",),
        "FreeTensor of a grad tile is missing after its adds (the AllocTensor of the third tile would block)",
        (
            Edit(
                _EDB_KERNEL,
                "      rowsQueue_.FreeTensor(tile);\n      if (!more) {",
                "      if (!more) {",
            ),
        ),
        "queue order",
        "all 2 buffers are in use",
    ),
    Mutant(
        "edb-launch-fewer-cores",
        EDB,
        ("Ascend910B",),
        "launch uses min(row-phase cores, add-phase cores) while both splits assume all their cores run",
        (
            Edit(
                _EDB_TILING,
                "const int64_t blockDim = std::max(rowCores, indexCores);",
                "const int64_t blockDim = std::min(rowCores, indexCores);",
            ),
        ),
        VALUES,
    ),
    Mutant(
        "edb-partial-zero-fill-skipped",
        EDB,
        ("Ascend910B",),
        "deterministic index groups: only the owners zero their UB sums, so the cores of groups 1.. add their "
        "partials onto whatever UB held",
        (
            Edit(
                _EDB_KERNEL,
                "      Duplicate(acc, 0.0f, static_cast<int32_t>((rowEnd_ - rowStart_) * accW_));\n",
                "      if (owner_) {\n"
                "        Duplicate(acc, 0.0f, static_cast<int32_t>((rowEnd_ - rowStart_) * accW_));\n"
                "      }\n",
            ),
        ),
        "UB uninitialized read",
        "",
    ),
    Mutant(
        "edb-unaligned-index-copy-910",
        EDB,
        ("Ascend910",),
        "no DataCopyPad on Ascend910, yet indices and rows are copied GM->UB with DataCopy of `count`",
        (Edit(_EDB_KERNEL, _GM_TO_UB_TAIL, _GM_TO_UB_PLAIN),),
        "DataCopy truncation",
        "rounds the length down",
    ),
    # ------------------------------------------------------ derived status matrix, determinism, 64-bit (issue 13)
    Mutant(
        "edb-deterministic-flag-ignored",
        EDB,
        ("Ascend910B",),
        "the tiling ignores ACL_OPT_DETERMINISTIC: the atomic strategy runs when the deterministic one is asked for",
        (
            Edit(
                _EDB_TILING,
                "const bool deterministic = context->GetDeterministic() != 0 || !hwSyncAll;",
                "const bool deterministic = context->GetDeterministic() > 1 || !hwSyncAll;",
            ),
        ),
        DETERMINISM,
        "GM atomic add in a deterministic run",
    ),
    Mutant(
        "smlb-target-dtype-wrong-status",
        SMLB,
        ("Ascend910B",),
        "an unsupported dtype of the third input returns ACLNN_ERR_PARAM_NULLPTR instead of ACLNN_ERR_PARAM_INVALID",
        (
            Edit(
                _SMLB_API,
                "OP_CHECK_DTYPE_NOT_SUPPORT(target, TargetDtypeSupportList(), return ACLNN_ERR_PARAM_INVALID);",
                "OP_CHECK_DTYPE_NOT_SUPPORT(target, TargetDtypeSupportList(), return ACLNN_ERR_PARAM_NULLPTR);",
            ),
        ),
        STATUS,
        "target INT32 unsupported",
    ),
    Mutant(
        "smlb-out-dtype-wrong-status",
        SMLB,
        ("Ascend910",),
        "an unsupported dtype of the output returns ACLNN_ERR_PARAM_NULLPTR instead of ACLNN_ERR_PARAM_INVALID",
        (
            Edit(
                _SMLB_API,
                "OP_CHECK_DTYPE_NOT_SUPPORT(out, OutDtypeSupportList(), return ACLNN_ERR_PARAM_INVALID);",
                "OP_CHECK_DTYPE_NOT_SUPPORT(out, OutDtypeSupportList(), return ACLNN_ERR_PARAM_NULLPTR);",
            ),
        ),
        STATUS,
        "out BF16 unsupported",
    ),
    Mutant(
        "edb-indices-dtype-wrong-status",
        EDB,
        ("Ascend910B",),
        "an unsupported dtype of the second input returns ACLNN_ERR_PARAM_NULLPTR instead of ACLNN_ERR_PARAM_INVALID",
        (
            Edit(
                _EDB_API,
                "OP_CHECK_DTYPE_NOT_SUPPORT(indices, IndicesDtypeSupportList(), return ACLNN_ERR_PARAM_INVALID);",
                "OP_CHECK_DTYPE_NOT_SUPPORT(indices, IndicesDtypeSupportList(), return ACLNN_ERR_PARAM_NULLPTR);",
            ),
        ),
        STATUS,
        "indices UINT16 unsupported",
    ),
    Mutant(
        "edb-out-dtype-unchecked",
        EDB,
        ("Ascend910B",),
        "the output's dtype check skipped: an INT32 or DOUBLE output is accepted",
        (
            Edit(
                _EDB_API,
                "  OP_CHECK_DTYPE_NOT_SUPPORT(out, OutDtypeSupportList(), return ACLNN_ERR_PARAM_INVALID);\n",
                "  if (false) {\n"
                "    OP_CHECK_DTYPE_NOT_SUPPORT(out, OutDtypeSupportList(), return ACLNN_ERR_PARAM_INVALID);\n  }\n",
            ),
        ),
        STATUS,
        "out DOUBLE unsupported",
    ),
    Mutant(
        "smlb-out-same-count-accepted",
        SMLB,
        ("Ascend910B",),
        "the output shape compared by element count only: out [8, 4] accepted for a [4, 8] result",
        (
            Edit(
                _SMLB_API,
                "if (out->GetViewShape() != broadcastShape) {",
                "if (out->GetViewShape().GetShapeSize() != broadcastShape.GetShapeSize()) {",
            ),
        ),
        STATUS,
        "out [8, 4] (same count as [4, 8])",
    ),
    Mutant(
        "edb-out-transposed-accepted",
        EDB,
        ("Ascend910B",),
        "the output shape compared by element count only: out [D, numWeights] accepted for [numWeights, D]",
        (
            Edit(
                _EDB_API,
                "static_cast<uint64_t>(outShape.GetDim(0)) != static_cast<uint64_t>(numWeights) ||\n"
                "      outShape.GetDim(1) != ShapeDim(grad, -1)) {",
                "static_cast<uint64_t>(outShape.GetDim(0) * outShape.GetDim(1)) !=\n"
                "          static_cast<uint64_t>(numWeights) * static_cast<uint64_t>(ShapeDim(grad, -1))) {",
            ),
        ),
        STATUS,
        "out [6, 5] (same count as [5, 6])",
    ),
    Mutant(
        "edb-indices-0d-accepted",
        EDB,
        ("Ascend910B",),
        "the minimum rank of indices not checked: a 0-d index tensor is accepted",
        (Edit(_EDB_API, "  OP_CHECK_MIN_DIM(indices, 1, return ACLNN_ERR_PARAM_INVALID);\n", ""),),
        STATUS,
        "indices rank 0 [] (minimum 1)",
    ),
    Mutant(
        "edb-grad-format-unchecked",
        EDB,
        ("Ascend910B",),
        "the format of the first input not checked: a FRACTAL_NZ grad reaches the kernel as if it were ND",
        (
            Edit(
                _EDB_API,
                "  if (grad->GetStorageFormat() != Format::FORMAT_ND && ",
                "  if (false && grad->GetStorageFormat() != Format::FORMAT_ND && ",
            ),
        ),
        STATUS,
        "grad format FRACTAL_NZ",
    ),
    Mutant(
        "smlb-out-format-unchecked",
        SMLB,
        ("Ascend910B",),
        "the format of the output not checked: an NC1HWC0 output is written as if it were ND",
        (
            Edit(
                _SMLB_API,
                "  if (out->GetStorageFormat() != Format::FORMAT_ND && ",
                "  if (false && out->GetStorageFormat() != Format::FORMAT_ND && ",
            ),
        ),
        STATUS,
        "out format NC1HWC0",
    ),
    Mutant(
        "smlb-kernel-offset-int32",
        SMLB,
        ("Ascend910B",),
        "the kernel holds a core's start offset in int32_t (wraps for tensors past 2**31 elements)",
        (Edit(_SMLB_KERNEL, "    int64_t offset = 0;\n", "    int32_t offset = 0;\n"),),
        BUILD,
        "[-Wconversion]",
    ),
    Mutant(
        "edb-kernel-offset-int32",
        EDB,
        ("Ascend910B",),
        "the kernel holds an element offset (row * accStride + col) in int32_t",
        (
            Edit(
                _EDB_KERNEL,
                "const int64_t offset = row * accStride_ + t.col;",
                "const int32_t offset = row * accStride_ + t.col;",
            ),
        ),
        BUILD,
        "[-Wconversion]",
    ),
    Mutant(
        "smlb-tiling-total-int32",
        SMLB,
        ("Ascend910B",),
        "the tiling casts the element count to int32_t: shapes past 2**31 elements split a wrapped count",
        (
            Edit(
                _SMLB_TILING,
                "const int64_t totalLength = outShape.GetShapeSize();",
                "const int64_t totalLength = static_cast<int32_t>(outShape.GetShapeSize());",
            ),
        ),
        OFFSETS,
        "totalLength",
    ),
    Mutant(
        "edb-tiling-row-length-int32",
        EDB,
        ("Ascend910B",),
        "the tiling casts the embedding dimension to int32_t: a D past 2**31 wraps",
        (
            Edit(
                _EDB_TILING,
                "const int64_t rowLength = rowsDims.GetDim(rowsRank - 1);",
                "const int64_t rowLength = static_cast<int32_t>(rowsDims.GetDim(rowsRank - 1));",
            ),
        ),
        OFFSETS,
        "the tiling function failed",
    ),
    # ------------------------------------------------------------ pipe synchronisation, flags, data cache
    Mutant(
        "smlb-ub-to-gm-barrier-removed-910",
        SMLB,
        ("Ascend910",),
        "PipeBarrier<PIPE_ALL> before the scalar tail of the UB->GM copy removed: GetValue reads what V wrote",
        (
            Edit(
                _SMLB_KERNEL,
                "  if (aligned < count) {\n    PipeBarrier<PIPE_ALL>();\n"
                "    for (int64_t i = aligned; i < count; ++i) {\n"
                "      dst.SetValue(static_cast<uint64_t>(i), src.GetValue(static_cast<uint32_t>(i)));",
                "  if (aligned < count) {\n    for (int64_t i = aligned; i < count; ++i) {\n"
                "      dst.SetValue(static_cast<uint64_t>(i), src.GetValue(static_cast<uint32_t>(i)));",
            ),
        ),
        "pipe race",
        "LocalTensor::GetValue (PIPE_S) reads UB bytes",
    ),
    Mutant(
        "smlb-gm-to-ub-barrier-after-removed-910",
        SMLB,
        ("Ascend910",),
        "PipeBarrier<PIPE_ALL> after the scalar tail of the GM->UB copy removed: EnQue orders MTE2, not S",
        (
            Edit(
                _SMLB_KERNEL,
                "      dst.SetValue(static_cast<uint32_t>(i), src.GetValue(static_cast<uint64_t>(i)));\n    }\n"
                "    PipeBarrier<PIPE_ALL>();\n",
                "      dst.SetValue(static_cast<uint32_t>(i), src.GetValue(static_cast<uint64_t>(i)));\n    }\n",
            ),
        ),
        "pipe race",
        "written by LocalTensor::SetValue (PIPE_S)",
    ),
    Mutant(
        "edb-index-flag-removed",
        EDB,
        ("Ascend910B",),
        "the MTE2 -> S SetFlag/WaitFlag before the scalar reads of a copied-in index chunk removed",
        (
            Edit(
                _EDB_KERNEL,
                "    SyncPipes<HardEvent::MTE2_S>(pipe_);  // the indices are read with GetValue (scalar pipe)\n",
                "",
            ),
        ),
        "pipe race",
        "LocalTensor::GetValue (PIPE_S) reads UB bytes",
    ),
    Mutant(
        "edb-index-free-flag-removed",
        EDB,
        ("Ascend910B",),
        "the S -> MTE2 flag before freeing an index chunk removed: the next chunk's copy may overwrite it early",
        (Edit(_EDB_KERNEL, "    SyncPipes<HardEvent::S_MTE2>(pipe_);\n", ""),),
        "pipe race",
        "overwrites UB bytes",
    ),
    Mutant(
        "edb-row-queue-bypassed",
        EDB,
        ("Ascend910B",),
        "the grad tile is queued (EnQue) before its copy-in is issued, so the DeQue that hands it to the adds does "
        "not wait for the copy",
        (
            Edit(
                _EDB_KERNEL,
                "    LoadTile(tile, base + t.j, t.rows, t.col, t.count);\n    rowsQueue_.EnQue(tile);\n",
                "    rowsQueue_.EnQue(tile);\n    LoadTile(tile, base + t.j, t.rows, t.col, t.count);\n",
            ),
        ),
        "pipe race",
        "written by DataCopyPad GM->UB (PIPE_MTE2)",
    ),
    Mutant(
        "edb-acc-queue-bypassed",
        EDB,
        ("Ascend910B",),
        "the accumulator row is added straight after its copy-in instead of through the queue's EnQue/DeQue",
        (
            Edit(
                _EDB_KERNEL,
                "      DataCopy(accLocal, accGm_[offset], static_cast<uint32_t>(padded));\n"
                "      accQueue_.EnQue(accLocal);\n"
                "      accLocal = accQueue_.DeQue<float>();",
                "      DataCopy(accLocal, accGm_[offset], static_cast<uint32_t>(padded));",
            ),
        ),
        "pipe race",
        "Add (PIPE_V) reads UB bytes",
    ),
    Mutant(
        "edb-atomic-row-flag-removed",
        EDB,
        ("Ascend910B",),
        "atomic strategy: the flag ordering the fp32 grad row's copy-in (MTE2) before its atomic copy-out removed",
        (Edit(_EDB_KERNEL, "      SyncPipes<HardEvent::MTE2_MTE3>(pipe_);\n", ""),),
        "pipe race",
        "DataCopy UB->GM (PIPE_MTE3) reads UB bytes",
    ),
    Mutant(
        "edb-accumulate-barrier-removed",
        EDB,
        ("Ascend910B",),
        "deterministic: the PipeBarrier<PIPE_ALL> after writing a sum back removed: the next add of the same row "
        "reads GM (MTE2) before the write (MTE3) is ordered",
        (Edit(_EDB_KERNEL, "    PipeBarrier<PIPE_ALL>();  // the next read of this row must see this write\n", ""),),
        "pipe race",
        "that this core wrote with DataCopy UB->GM (PIPE_MTE3)",
    ),
    Mutant(
        "edb-zero-fill-barrier-removed",
        EDB,
        ("Ascend910B",),
        "deterministic: no PipeBarrier<PIPE_ALL> between the zero fill (MTE3) and the adds that read it (MTE2)",
        (
            Edit(
                _EDB_KERNEL,
                "      ZeroOwnedRows();\n    }\n    PipeBarrier<PIPE_ALL>();\n"
                "    ScanOwnedRows(indexStart_, indexEnd_, true);",
                "      ZeroOwnedRows();\n    }\n    ScanOwnedRows(indexStart_, indexEnd_, true);",
            ),
        ),
        "pipe race",
        "GM byte(s)",
    ),
    Mutant(
        "edb-setflag-without-waitflag",
        EDB,
        ("Ascend910B",),
        "a SetFlag set twice and waited once (copy-paste): one set is never waited for",
        (
            Edit(
                _EDB_KERNEL,
                "  SetFlag<EVENT>(eventId);\n  WaitFlag<EVENT>(eventId);",
                "  SetFlag<EVENT>(eventId);\n  SetFlag<EVENT>(eventId);\n  WaitFlag<EVENT>(eventId);",
            ),
        ),
        "sync unpaired",
        "at kernel exit SetFlag<HardEvent::",
    ),
    Mutant(
        "edb-waitflag-wrong-event",
        EDB,
        ("Ascend910B",),
        "WaitFlag names another HardEvent than its SetFlag: the waiting pipe would hang",
        (Edit(_EDB_KERNEL, "  WaitFlag<EVENT>(eventId);", "  WaitFlag<HardEvent::MTE2_V>(eventId);"),),
        "sync deadlock",
        "WaitFlag<HardEvent::MTE2_V>",
    ),
    Mutant(
        "edb-waitflag-wrong-id",
        EDB,
        ("Ascend910B",),
        "WaitFlag waits for another event id than its SetFlag set",
        (Edit(_EDB_KERNEL, "  WaitFlag<EVENT>(eventId);", "  WaitFlag<EVENT>(eventId + 1);"),),
        "sync deadlock",
        "with no SetFlag",
    ),
    Mutant(
        "edb-counts-share-cache-lines",
        EDB,
        ("Ascend910B",),
        "count slices of the row groups no longer start on their own cache line (one slot apart instead): two "
        "cores SetValue int64 counts in one 64-byte line",
        (
            Edit(
                _EDB_KERNEL,
                "AlignUp(rowStart_, COUNTS_PER_LINE) + COUNTS_PER_LINE * rowGroup;",
                "rowStart_ + rowGroup;",
            ),
        ),
        "cache line shared",
        "with GlobalTensor::SetValue between the same SyncAll barriers",
    ),
)

_BY_ID = {m.ident: m for m in MUTANTS}
assert len(_BY_ID) == len(MUTANTS), "mutant ids must be unique"


# ------------------------------------------------------------------------------------------ outcomes


@dataclass
class Outcome:
    """The results of the targeted cases on one build."""

    results: list[CaseResult]
    seconds: float

    @property
    def failed(self) -> list[CaseResult]:
        return [r for r in self.results if not r.passed]

    def faults(self, rule: str) -> list[CaseResult]:
        """Failed cases that are kernel faults of ``rule``."""
        return [r for r in self.failed if r.status == RUNTIME_ERROR and f"kernel fault [{rule}]" in r.message]

    @property
    def value_failures(self) -> list[CaseResult]:
        """Failed cases that ran to completion with output out of tolerance."""
        return [r for r in self.failed if r.status == 0 and _is_value_mismatch(r.message)]

    @property
    def status_failures(self) -> list[CaseResult]:
        """Failed status cases: the op answered with another status than the expected one."""
        return [r for r in self.failed if r.message.startswith("expected status ")]

    @property
    def determinism_failures(self) -> list[CaseResult]:
        """Failed determinism rules: output not bit-identical over core orders, or GM atomics."""
        return [r for r in self.failed if _is_determinism_failure(r.message)]

    @property
    def offset_failures(self) -> list[CaseResult]:
        """Failed ``tiling_2g`` cases (64-bit tiling and per-core ranges)."""
        return [r for r in self.failed if "in 64 bits" in r.name]

    def hits(self, kind: str) -> list[CaseResult]:
        """The failed cases of a kill kind other than a build failure."""
        if kind == VALUES:
            return self.value_failures
        if kind == STATUS:
            return self.status_failures
        if kind == DETERMINISM:
            return self.determinism_failures
        if kind == OFFSETS:
            return self.offset_failures
        return self.faults(kind)

    @property
    def harness_errors(self) -> list[CaseResult]:
        """Failed cases that are no verdict of a check: a Python exception in the harness, or a launch of a
        tiling key the build's key filter left out (see :meth:`Builds.get`)."""
        known = {id(r) for r in (*self.status_failures, *self.determinism_failures, *self.offset_failures)}
        return [
            r
            for r in self.failed
            if (r.status == 0 and not _is_value_mismatch(r.message) and id(r) not in known)
            or f"kernel fault [{_KEY_NOT_BUILT}]" in r.message
        ]

    @property
    def tiling_keys(self) -> set[int]:
        """The tiling keys the cases launched."""
        return {int(launch["tiling_key"]) for r in self.results for launch in r.counters.get("launches", ())}

    @property
    def rules(self) -> list[str]:
        """Emulator rules of the kernel faults, in order of first appearance."""
        seen: dict[str, None] = {}
        for r in self.failed:
            m = _FAULT_RULE.search(r.message)
            if m:
                seen.setdefault(m.group(1), None)
        return list(seen)

    def summary(self) -> str:
        kinds = [*([VALUES] if self.value_failures else []), *(f"[{r}]" for r in self.rules)]
        return (
            f"{len(self.failed)}/{len(self.results)} cases failed ({', '.join(kinds) or '-'}) in {self.seconds:.1f} s"
        )


def _is_determinism_failure(message: str) -> bool:
    return "GM atomic add in a deterministic run" in message or "not bit-identical over core orders" in message


def _is_value_mismatch(message: str) -> bool:
    """Whether a failed case's message is a comparison verdict (codegen.check.compare)."""
    return "out of tolerance" in message or "!= reference" in message


_REFERENCES: dict[str, ModuleType] = {}


def run_targeted(built: BuiltOp, enough: Callable[[Outcome], bool] | None = None) -> Outcome:
    """Runs the targeted cases of ``built`` in order (each judged exactly as ``opgen check`` judges it);
    with ``enough``, stops after the first failed case at which ``enough(outcome so far)`` holds."""
    spec = built.spec
    if spec.snake not in _REFERENCES:
        _REFERENCES[spec.snake] = load_reference(spec)
    fn = OpCallable(built)
    start = time.perf_counter()
    results: list[CaseResult] = []
    for case in targeted_cases(spec.snake, built.product.name):
        results.append(run_case(fn, case, _REFERENCES[spec.snake]))
        if enough is not None and not results[-1].passed and enough(Outcome(results, 0.0)):
            break
    return Outcome(results, time.perf_counter() - start)


def killed_as_expected(mutant: Mutant, outcome: Outcome) -> bool:
    """Whether ``outcome`` already holds the kill ``mutant`` expects (its kind and detail, and every kind of
    ``mutant.also``); the test asserts the same, one condition at a time, with messages."""
    if mutant.kill == VALUES:
        found = bool(outcome.value_failures)
    elif mutant.kill in KINDS:
        found = any(mutant.detail in r.name or mutant.detail in r.message for r in outcome.hits(mutant.kill))
    else:
        found = any(mutant.detail in r.message for r in outcome.faults(mutant.kill))
    return found and all(outcome.hits(kind) for kind in mutant.also)


# ------------------------------------------------------------------------------------------ trees and builds


def apply_edits(root: Path, mutant: Mutant) -> None:
    """Applies the edits of ``mutant`` to the op's tree under ``root``; each anchor must occur exactly once."""
    folder = load_project()[1][mutant.op].folder
    for edit in mutant.edits:
        path = root / folder / edit.file
        text = path.read_text()
        found = text.count(edit.old)
        assert found == 1, f"{mutant.ident}: anchor found {found} times in {edit.file} (want exactly 1): {edit.old!r}"
        path.write_text(text.replace(edit.old, edit.new, 1))


def _baseline(op: str) -> Mutant:
    """The unmutated copy of an op's tree: no edits."""
    return Mutant(f"{op}-unmutated", op, (), "no fault", (), VALUES)


def edits_kernel(mutant: Mutant) -> bool:
    """Whether ``mutant`` edits the kernel: its kernel object is its own (no other build shares it), so it is
    compiled at -O0 (``build_op(unoptimized_kernel=True)``). Its kill does not depend on the optimisation level:
    a build kill is a front-end diagnostic (-Wconversion, a DataCopyPad call on a product without it), and every
    other kill is judged on results and the emulator's faults. A mutant of host files only keeps the usual
    flags, so that its kernel object is the unmutated one, already built."""
    return any(e.file.startswith("op_kernel/") for e in mutant.edits)


def kernel_only(mutant: Mutant) -> bool:
    """Whether ``mutant`` is built with the tiling-key filter: it edits only the kernel (so the tiling, which
    picks the keys, is the unmutated one) and is not expected to die at build time (a build kill is judged on
    the whole kernel, every key, as ``opgen check`` compiles it)."""
    return mutant.kill != BUILD and bool(mutant.edits) and all(e.file.startswith("op_kernel/") for e in mutant.edits)


class Builds:
    """Mutated trees and their builds, two builds at a time in the background (g++ runs as subprocesses).

    A kernel-only mutant (:func:`kernel_only`) is compiled for the tiling keys that the targeted cases
    launch on the unmutated build of its (op, product) only (``build_op(tiling_keys=...)``, as the CANN
    toolchain compiles a kernel per key): its tiling is the unmutated one, so its cases launch the same keys,
    and a launch of any other key would be a ``[tiling key not built]`` fault, which the test reports as a
    harness error, never as a kill. EmbeddingDenseBackward's kernel has 108 keys; its targeted cases use a
    few, and the filtered kernel compiles about four times faster. The filtered kernel is compiled at -O0
    (``build_op(unoptimized_kernel=True)``), which halves its compile again (EmbeddingDenseBackward on
    Ascend910B: 2.7 s against 5.7 s CPU) for runs about 1.5x longer (its 215 targeted cases: 3.0 s against
    1.9 s CPU): the cases are judged on their results and the emulator's faults, which the optimisation
    level does not change. The other mutants that edit the kernel are compiled whole at -O0 too
    (:func:`edits_kernel`). Unmutated builds and mutants of host files keep the usual flags: they share their
    kernel object with the other builds of the same sources."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.catalogue, self.specs = load_project()
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="mutant-build")
        self._lock = threading.Lock()
        self._trees: dict[str, Future[Path]] = {}
        self._builds: dict[tuple[str, str], Future[BuiltOp]] = {}
        self._baselines: dict[tuple[str, str], Outcome] = {}

    def tree(self, mutant: Mutant) -> Path:
        """The mutated copy of the op's tree (made once per mutant); its root holds ``<op>/``."""
        with self._lock:
            if mutant.ident not in self._trees:
                fut: Future[Path] = Future()
                self._trees[mutant.ident] = fut
                try:
                    root = self.base / mutant.ident
                    folder = self.specs[mutant.op].folder
                    shutil.copytree(project_paths().generated / folder, root / folder)
                    apply_edits(root, mutant)
                    fut.set_result(root)
                except BaseException as exc:  # the anchor failure is re-raised in the test
                    fut.set_exception(exc)
        return self._trees[mutant.ident].result()

    def _build(self, mutant: Mutant, product: str, jobs: int = 1, keys: frozenset[int] | None = None) -> BuiltOp:
        root = self.tree(mutant)
        catalogue, spec = self.catalogue, self.specs[mutant.op]
        return build_op(
            spec, catalogue.get(product), root, jobs=jobs, tiling_keys=keys, unoptimized_kernel=edits_kernel(mutant)
        )

    def baseline_outcome(self, op: str, product: str) -> Outcome:
        """The targeted cases run on the unmutated build of (op, product), once (in the calling thread)."""
        key = (op, product)
        if key not in self._baselines:
            self._baselines[key] = run_targeted(self.get(_baseline(op), product).result())
        return self._baselines[key]

    def warm(self, op: str, product: str) -> None:
        """Builds the unmutated op now, on both cores: this compiles the runtime objects every library
        shares, once, before the background builds start (they would otherwise race to compile them)."""
        built: Future[BuiltOp] = Future()
        built.set_result(self._build(_baseline(op), product, jobs=2))
        with self._lock:
            self._builds[(_baseline(op).ident, product)] = built

    def get(self, mutant: Mutant, product: str) -> Future[BuiltOp]:
        """The build of ``mutant`` on ``product`` (started in the background on the first call). For a
        kernel-only mutant the first call first runs the unmutated op's targeted cases, in this thread, for
        their tiling keys."""
        key = (mutant.ident, product)
        keys: frozenset[int] | None = None
        if kernel_only(mutant) and key not in self._builds:
            try:
                keys = frozenset(self.baseline_outcome(mutant.op, product).tiling_keys)
            except BaseException as exc:  # no unmutated build: the test reports it
                failed: Future[BuiltOp] = Future()
                failed.set_exception(exc)
                with self._lock:
                    return self._builds.setdefault(key, failed)
        with self._lock:
            if key not in self._builds:
                self._builds[key] = self._pool.submit(self._build, mutant, product, 1, keys)
            return self._builds[key]

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def _mutant_params() -> list[Any]:
    return [pytest.param(m, p, id=f"{m.ident}-{p}") for m in MUTANTS for p in m.products]


def _baseline_pairs() -> list[tuple[str, str]]:
    """Every (op, product) some mutant is built for."""
    pairs: dict[tuple[str, str], None] = {}
    for m in MUTANTS:
        for p in m.products:
            pairs.setdefault((m.op, p), None)
    return list(pairs)


@pytest.fixture(scope="module")
def builds(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Builds]:
    b = Builds(tmp_path_factory.mktemp("mutants"))
    wanted: list[tuple[Mutant, str]] = []
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        if getattr(item, "module", None) is not request.module or callspec is None:
            continue
        if "mutant" in callspec.params:
            wanted.append((callspec.params["mutant"], callspec.params["product"]))
        elif "op" in callspec.params:
            wanted.append((_baseline(callspec.params["op"]), callspec.params["product"]))
    if wanted:
        first = wanted[0]
        b.warm(first[0].op, first[1])
    # Unmutated and unfiltered builds first: they compile while the unmutated ops run their targeted cases
    # for the tiling keys of the filtered ones.
    for mutant, product in sorted(wanted, key=lambda w: kernel_only(w[0])):
        b.get(mutant, product)
    yield b
    b.close()


# ------------------------------------------------------------------------------------------------- tests


def test_mutant_table_is_complete() -> None:
    assert len(MUTANTS) >= 18
    ops = {m.op for m in MUTANTS}
    assert ops == {SMLB, EDB, _MSE}
    prefix = {SMLB: "smlb-", EDB: "edb-", _MSE: "mse-"}
    for m in MUTANTS:
        assert re.fullmatch(r"(smlb|edb|mse)-[a-z0-9-]+", m.ident), m.ident
        assert m.ident.startswith(prefix[m.op])
        assert m.fault and m.edits and m.products
        assert all(e.old != e.new for e in m.edits)
    runtime_rules = (project_paths().runtime / "include/opgen_rt/device/core_state.h").read_text()
    for m in MUTANTS:
        for kind in (m.kill, *m.also):
            if kind not in KINDS:
                assert f'"{kind}"' in runtime_rules, f"{m.ident}: '{kind}' is not a rule of the emulator"


def test_the_manual_lists_every_mutant() -> None:
    """docs/testing.md's mutant table has one row per mutant, with its op and products, and its count."""
    _, specs = load_project()
    page = (project_paths().root / "docs" / "testing.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `((?:smlb|edb|mse)-[a-z0-9-]+)` \| (\w+) \| ([^|]+) \|", page, re.MULTILINE)
    listed = {ident: (op, {p.strip() for p in products.split(",")}) for ident, op, products in rows}
    assert len(listed) == len(rows)
    assert listed == {m.ident: (specs[m.op].op, set(m.products)) for m in MUTANTS}
    assert f"`tests/test_mutations.py` plants {len(MUTANTS)} realistic faults" in page


@pytest.mark.parametrize(("op", "product"), _baseline_pairs(), ids=lambda v: str(v))
def test_unmutated_tree_passes_the_targeted_cases(op: str, product: str, builds: Builds) -> None:
    outcome = builds.baseline_outcome(op, product)
    assert len(outcome.results) > 50
    assert not outcome.failed, "\n".join(f"{r.ident}: {r.message}" for r in outcome.failed[:10])
    multi = [r for r in outcome.results if r.name.startswith("multi-core")]
    assert multi and all(max(int(x["block_dim"]) for x in r.counters["launches"]) > 1 for r in multi)


@pytest.mark.parametrize(("mutant", "product"), _mutant_params())
def test_mutant_is_killed(mutant: Mutant, product: str, builds: Builds) -> None:
    future = builds.get(mutant, product)
    if mutant.kill == BUILD:
        with pytest.raises(BuildError) as err:
            future.result()
        assert mutant.detail in str(err.value)
        print(f"{mutant.ident} on {product}: killed at build ({mutant.detail})")
        return
    try:
        built = future.result()
    except BuildError as exc:  # a mutant must compile warning-free: a build failure is not an emulator kill
        pytest.fail(f"{mutant.ident} does not build for {product}: {str(exc)[:2000]}")
    # The cases run until the expected kill shows (every case when it never does): a surviving mutant runs
    # them all, a killed one stops early.
    outcome = run_targeted(built, lambda so_far: killed_as_expected(mutant, so_far))
    print(f"{mutant.ident} on {product}: {outcome.summary()}")
    assert outcome.failed, f"{mutant.ident} SURVIVED all {len(outcome.results)} targeted cases on {product}"
    assert not outcome.harness_errors, "\n".join(f"{r.ident}: {r.message}" for r in outcome.harness_errors[:5])
    if mutant.kill == VALUES:
        hits = outcome.value_failures
        assert hits, f"{mutant.ident}: no wrong values, only {outcome.rules}"
    elif mutant.kill in KINDS:
        hits = outcome.hits(mutant.kill)
        assert hits, f"{mutant.ident}: no {mutant.kill} failure; got: {outcome.failed[0].message[:500]}"
        assert any(mutant.detail in r.name or mutant.detail in r.message for r in hits), hits[0].name + hits[0].message
    else:
        hits = outcome.faults(mutant.kill)
        assert hits, f"{mutant.ident}: no [{mutant.kill}] fault; got {outcome.rules}: {outcome.failed[0].message}"
        assert any(mutant.detail in r.message for r in hits), hits[0].message
        assert all(f"({product})" in r.message for r in hits)
    print(f"    e.g. {hits[0].ident}: {hits[0].message[:240]}")
    for kind in mutant.also:
        assert outcome.hits(kind), f"{mutant.ident}: no {kind}"


def test_opgen_check_cli_reports_a_mutant(builds: Builds, tmp_path: Path) -> None:
    """The same kill through the command a user runs: ``opgen check <op> --generated <tmp> --quick``."""
    mutant = _BY_ID["smlb-tile-one-block-over-ub"]
    root = builds.tree(mutant)
    report = tmp_path / "check.json"
    cmd = [sys.executable, "-m", "codegen", "check", SMLB, "--generated", str(root), "--quick"]
    cmd += ["--product", "Ascend910B", "--json", str(report)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1200, check=False)
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    data = json.loads(report.read_text())
    failed = [c for c in data["cases"] if not c["passed"]]
    assert len(failed) == data["failed"] > 0 and f"{data['failed']} failed" in proc.stdout
    faults = [c for c in failed if c["message"].startswith("kernel fault [UB capacity]")]
    assert faults and all(c["status"] == RUNTIME_ERROR and c["product"] == "Ascend910B" for c in faults)
    # the generated example program hits the same fault and prints it
    example = next(c for c in data["cases"] if c["name"] == "example program")
    assert not example["passed"] and "507035" in example["message"] and "[UB capacity]" in example["message"]
