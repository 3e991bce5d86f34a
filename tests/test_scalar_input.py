"""A one-element input of an elementwise op (the 0-d gradOutput of a mean or sum loss backward) is read by the
kernel, once per core, instead of being expanded to the output's shape on the host.

One op (MseLossBackward, reduction mean) on one product per GM->UB copy path: Ascend910B copies with
DataCopyPad, Ascend910 has none (whole 32-byte blocks by DataCopy, the rest element by element). The expected
output is computed here in float64 from the formula ``2 * (self - target) * gradOutput / N``; the minimum GM
bytes are every input element read once and every output element written once, with gradOutput counted as
its one element.
"""

from __future__ import annotations

import numpy as np
import pytest

from codegen.runner import compile_op

SHAPE = (64, 1024)  # 256 KiB of fp32: several cores, several tiles on none


@pytest.mark.parametrize(("product", "dtype"), [("Ascend910B", np.float32), ("Ascend910", np.float16)])
def test_zero_d_grad_output_is_read_in_the_kernel(product: str, dtype: type) -> None:
    rng = np.random.default_rng(3)
    x = rng.standard_normal(SHAPE).astype(dtype)
    t = rng.standard_normal(SHAPE).astype(dtype)
    g = np.array(-1.5, dtype)
    f = compile_op("MseLossBackward", product)
    out = f(gradOutput=g, self=x, target=t, reduction=1)

    want = 2.0 * (x.astype(np.float64) - t.astype(np.float64)) * -1.5 / x.size
    assert out.shape == SHAPE and out.dtype == dtype
    # FLOAT16: one rounding of the result, down to its subnormal step (2**-24) near 0
    tol = {"rtol": 1e-3, "atol": 2.0**-24} if dtype is np.float16 else {"rtol": 1e-6, "atol": 1e-12}
    np.testing.assert_allclose(out.astype(np.float64), want, **tol)

    stats = f.last_stats
    assert stats["host_tasks"] == []  # no BroadcastTo (nor any other host pass) before the kernel
    (launch,) = stats["launches"]
    assert launch["block_dim"] > 1  # every core reads the element itself
    kernel = sum(c["gm_bytes_read"] + c["gm_bytes_written"] for c in launch["cores"])
    item = np.dtype(dtype).itemsize
    minimum = (2 * x.size + 1 + x.size) * item
    assert minimum <= kernel <= 1.05 * minimum


@pytest.mark.parametrize(("product", "dtype"), [("Ascend910B", np.float32), ("Ascend910", np.float16)])
def test_one_element_input_that_the_program_overwrites(product: str, dtype: type) -> None:
    """The fp32 program computes ``self - target`` into self's tile: a one-element self's filled tile is
    filled again for the next tile (every core here runs more than one tile)."""
    rng = np.random.default_rng(4)
    g = rng.standard_normal(SHAPE).astype(dtype)
    t = rng.standard_normal(SHAPE).astype(dtype)
    f = compile_op("MseLossBackward", product)
    out = f(gradOutput=g, self=np.ones((1, 1), dtype) * dtype(0.25), target=t, reduction=0)

    launch = f.last_stats["launches"][0]
    assert launch["tiling"]["tileLength"] < SHAPE[0] * SHAPE[1] // launch["block_dim"]
    want = 2.0 * (0.25 - t.astype(np.float64)) * g.astype(np.float64)
    tol = {"rtol": 2e-3, "atol": 2.0**-24} if dtype is np.float16 else {"rtol": 1e-6, "atol": 1e-12}
    np.testing.assert_allclose(out.astype(np.float64), want, **tol)
