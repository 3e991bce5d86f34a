"""aclnnLayerNormBackward's generated kernel (LayerNormGradV3, row_reduce family) does no more vector element-ops
per element than ops-nn's hand-written single-read kernel, per dtype, on rows that fit UB, or exactly the entry's
``generated_above`` figure, whose note says why.

The bar is ``element_ops_per_element`` of the aclnnLayerNormBackward entry of ``bench/ops_nn_counts.yaml`` (counted
by hand, instruction by instruction, from ops-nn's ``layer_norm_grad_v3_single_read.h``). The generated kernel's
figure is the emulator's ``vector_elements`` counter (every element every vector instruction touches, summed over
every core of every launch of one aclnnLayerNormBackward call, the cross-core combine of the column sums and the
per-core fills included) over the elements of gradOut, on Ascend910B (the entry's product) with a weight of
input's dtype, FLOAT mean and rstd and every output asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import yaml

from codegen.runner import OpCallable, numpy_dtype
from codegen.spec.model import DType

pytestmark = pytest.mark.heavy(20)

COUNTS = Path(__file__).resolve().parent.parent / "bench" / "ops_nn_counts.yaml"
API = "aclnnLayerNormBackward"
#: 960 rows of 1024: whole rows per tile (the single-read template's case), several tiles per core.
ROWS, R = 960, 1024


def ops_nn_figures(dtype: DType) -> tuple[float, float | None]:
    """ops-nn's element-ops per element of ``dtype`` and the entry's ``generated_above`` figure of it (None:
    none; bench/ops_nn_counts.yaml)."""
    with COUNTS.open(encoding="utf-8") as f:
        entry = yaml.safe_load(f)[API]
    assert entry["product"] == "Ascend910B"
    above = (entry.get("generated_above") or {}).get(dtype.name)
    return float(entry["element_ops_per_element"][dtype.name]), None if above is None else float(above)


@pytest.mark.parametrize("dtype", [DType.FLOAT, DType.FLOAT16, DType.BF16], ids=lambda d: d.name)
def test_element_ops_per_element_of_ops_nn_or_the_recorded_figure(
    built_op: Callable[[str, str], OpCallable], dtype: DType
) -> None:
    fn = built_op("layer_norm_backward", "Ascend910B")
    rng = np.random.default_rng(3)
    t = numpy_dtype(dtype)
    x = rng.standard_normal((ROWS, R)).astype(t)
    dy = rng.standard_normal((ROWS, R)).astype(t)
    w = rng.standard_normal((R,)).astype(t)
    xf = x.astype(np.float64)
    mean = xf.mean(axis=1, keepdims=True).astype(np.float32)
    rstd = (1.0 / np.sqrt(xf.var(axis=1, keepdims=True) + 1e-5)).astype(np.float32)
    fn(
        gradOut=dy,
        input=x,
        normalizedShape=[R],
        mean=mean,
        rstd=rstd,
        weightOptional=w,
        outputMask=[True, True, True],
        core_order="in_order",
    )
    launches = fn.last_stats["launches"]
    kernel = [la for la in launches if "tiling" in la and "chunkNum" in la["tiling"]]
    assert kernel and all(la["tiling"]["chunkNum"] == 1 for la in kernel)  # whole rows fit UB
    cores = [c for la in launches for c in la["cores"]]
    per_elem = sum(int(c["vector_elements"]) for c in cores) / (ROWS * R)
    bar, above = ops_nn_figures(dtype)
    if above is None:
        assert per_elem <= bar, f"{dtype.name}: {per_elem:.3f} element-ops per element, ops-nn {bar}"
    else:
        assert above > bar and round(per_elem, 2) == above, f"{dtype.name}: {per_elem:.3f}, generated_above {above}"
    print(f"{dtype.name}: {per_elem:.4f}")


def test_chunked_rows_write_each_partial_once_and_read_it_only_in_the_combine(
    built_op: Callable[[str, str], OpCallable],
) -> None:
    """Two FLOAT rows of 200000 on Ascend910B: each row is cut into chunks and each of the two cores takes one.
    Each core reads its row of gradOut and input and the whole weight once in the reduction pass and once in the
    output pass (2 x 3 x 4R bytes), and its row's mean and rstd (8 bytes); it writes its row of gradInputOut
    (4R) and its fp32 partial of each column sum (2 x 4R), which it neither zeroes first nor reads back (a
    core's only row is its first). Core 0 then reads the two cores' partials (4 x 4R) and writes the two column
    sums (2 x 4R). The tiling struct (each core reads it once) is left out."""
    r = 200000
    fn = built_op("layer_norm_backward", "Ascend910B")
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, r)).astype(np.float32)
    fn(
        gradOut=rng.standard_normal((2, r)).astype(np.float32),
        input=x,
        normalizedShape=[r],
        mean=x.mean(axis=1, keepdims=True),
        rstd=np.ones((2, 1), np.float32),
        weightOptional=rng.standard_normal((r,)).astype(np.float32),
        biasOptional=None,
        outputMask=[True, True, True],
        core_order="in_order",
    )
    (launch,) = fn.last_stats["launches"]
    assert launch["tiling"]["chunkNum"] > 1 and launch["block_dim"] == 2
    tiling = int(launch["tiling_data_size"])
    got = [(int(c["gm_bytes_read"]) - tiling, int(c["gm_bytes_written"])) for c in launch["cores"]]
    assert got == [(24 * r + 8 + 16 * r, 12 * r + 8 * r), (24 * r + 8, 12 * r)]
