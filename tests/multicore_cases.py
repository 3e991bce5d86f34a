"""Multi-core check cases shared by the mutation and core-order tests (not a test module).

The ``--quick`` matrix of the elementwise op never launches more than one core (its largest case moves
less than the 32 KiB a core gets at least), and no quick case of the index op has a core that takes one
item more than the others. These cases fill both holes; they are judged exactly as ``opgen check`` judges
its own cases (``codegen.check.case_run.run_case``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from codegen.check.cases import Case
from codegen.check.driver import cases_for
from codegen.specs import load_project

SMLB = "soft_margin_loss_backward"
EDB = "embedding_dense_backward"
MSE = "mse_loss"


def mse_multicore(product: str) -> Iterator[Case]:
    """400,035 elements (FLOAT and FLOAT16) reduced to a 0-d sum and mean: many cores each summing several
    tiles and a ragged last one, then the fixed-order combine. Every 97th element is ~1e3 away from its
    target, the rest ~1e-2 (the small squares vanish from a 16-bit accumulation)."""
    rng = np.random.default_rng(406)
    n = 400_035
    for dtype, name in ((np.float32, "FLOAT"), (np.float16, "FLOAT16")):
        for reduction in (1, 2):
            x = rng.standard_normal(n) * 0.01
            x[::97] = rng.standard_normal(x[::97].shape) * 1000.0
            params: dict[str, Any] = {
                "self": x.astype(dtype),
                "target": (rng.standard_normal(n) * 0.01).astype(dtype),
                "reduction": reduction,
            }
            yield Case(MSE, product, name, f"[{n}]", f"multi-core [{n}] reduction={reduction}", params)


def smlb_multicore(product: str) -> Iterator[Case]:
    """400,035 elements (FLOAT and FLOAT16): many cores, several of them taking one 32-byte block more on
    every product (Ascend910B: FLOAT 48 cores, 37 of them one block more; FLOAT16 25 cores, 3 more)."""
    rng = np.random.default_rng(404)
    n = 400_035
    for dtype, name in ((np.float32, "FLOAT"), (np.float16, "FLOAT16")):
        params: dict[str, Any] = {
            t: (rng.standard_normal(n) * 2.0).astype(dtype) for t in ("gradOutput", "self", "target")
        }
        params["reduction"] = 1
        yield Case(SMLB, product, name, f"[{n}]", f"multi-core [{n}]", params)


def edb_multicore(product: str) -> Iterator[Case]:
    """Index and row splits in which some cores take one item more, cores without rows, and D-slices, in both
    strategies."""
    rng = np.random.default_rng(405)
    shapes = (
        # (N, D, numWeights, paddingIdx, scaleGradByFreq). On Ascend910B: atomic 15 index groups (8 of them
        # one index more); deterministic 48 row groups (4 of them one row more); one D-slice each.
        (5003, 24, 100, 7, True),
        # Atomic: 9 row groups (2 of them one row more) and 9 index groups (3 of them one index more).
        (3000, 24, 1001, 3, False),
        # Two rows, D one block, many indices: atomic 20 index groups (3 of them one index more) but 2 row
        # groups, so 18 launched cores own no rows (every core must still reach each SyncAll).
        (20003, 8, 2, 5, True),
        # Seven rows, D = 1030: both strategies split D into slices; on Ascend910B 4 row groups (3 of them one
        # row more) x 12 D-slices, atomic 24 index groups (20 of them one index more) x 2 D-slices.
        (500, 1030, 7, 1, True),
        # 32 rows of D = 30000: deterministic owners hold 2 rows x a 10000-element D-slice (80,000 bytes), more
        # than half of what Ascend910B's queues leave of UB, so they sum in GM (read-add-write) instead of in UB;
        # 64 indices hit the rows of a core about 4 times, so a core adds into one of its rows again after
        # writing it. So few indices keep the sorted-run strategy out (it would move 1.28x the GM bytes).
        (64, 30000, 32, 5, False),
    )
    for deterministic in (False, True):
        mode = "deterministic" if deterministic else "atomic"
        for n, d, rows, padding, scaling in shapes:
            params: dict[str, Any] = {
                "grad": rng.standard_normal((n, d)).astype(np.float32),
                "indices": rng.integers(-1, rows + 1, n).astype(np.int64),
                "numWeights": rows,
                "paddingIdx": padding,
                "scaleGradByFreq": scaling,
            }
            yield Case(
                EDB,
                product,
                "FLOAT/INT64",
                f"[{n}, {d}]",
                f"multi-core {rows} rows [{n}, {d}] [{mode}]",
                params,
                deterministic=deterministic,
            )


def multicore_cases(op: str, product: str) -> list[Case]:
    """The multi-core cases of ``op`` (snake name) on ``product``."""
    if op == SMLB:
        return list(smlb_multicore(product))
    if op == MSE:
        return list(mse_multicore(product))
    return list(edb_multicore(product)) if op == EDB else []  # other ops: their matrix's own multi-core cases


def targeted_cases(op: str, product: str) -> list[Case]:
    """The ``--quick`` matrix of ``op`` on ``product`` followed by its multi-core cases. Every call builds
    fresh arrays: a case may write its ``out`` array in place."""
    catalogue, specs = load_project()
    return [*cases_for(specs[op], catalogue.get(product), None, True), *multicore_cases(op, product)]
