"""PyTorch CPU as an independent oracle of the seed ops, shared by ``test_pytorch_oracle.py`` and
``test_pytorch_properties.py``.

Importing this module skips the importing test module, with a visible reason, when torch is not installed
(CI installs ``torch==2.13.0``).

How the oracle is used (the semantics reference, ``shared/reference/op-semantics.md``, is the authority):

- PyTorch computes on the inputs converted exactly to fp32 (FLOAT16 and BF16 are upcast), and its fp32
  result is rounded once to the dtype of out. PyTorch CPU eager on 16-bit tensors rounds every intermediate
  to 16 bits (and its embedding backward stalls), so it is never the oracle for 16-bit values; the tests of
  ``test_pytorch_oracle.py`` assert that separately.
- The deliberate differences are applied to the oracle's inputs or output explicitly, each by a named
  helper argument: the mean divisor (PyTorch: ``self.numel()``; here the broadcast shape's element count),
  the exp overflow of the literal soft-margin form (PyTorch eager fp32 gives NaN/inf; here the finite
  limit, compared with PyTorch in float64), and index decoding (PyTorch takes INT32/INT64 indices in
  range only; here the other dtypes are decoded and invalid indices dropped before PyTorch sees them).
- The kernel's error bounds are modelled here from the inputs alone (no call into ``reference/``), so the
  kernels are checked against PyTorch independently of the NumPy references, which are checked against
  PyTorch in float64 on their own.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest

TORCH_REASON = "PyTorch, the independent oracle of these tests, is not installed: pip install -e '.[test]' brings it"
pytest.importorskip("torch", reason=TORCH_REASON)

import torch  # noqa: E402
from torch._decomp import decomposition_table  # noqa: E402

from codegen.check.compare import ulp  # noqa: E402
from codegen.paths import project_paths  # noqa: E402
from codegen.runner import OpCallable, compile_op  # noqa: E402

BF16 = np.dtype(ml_dtypes.bfloat16)
#: Products every case runs on (Atlas training: no BF16, 32 cores; Atlas A2: BF16, 48 cores).
PRODUCTS = ("Ascend910", "Ascend910B")
#: Unit roundoff of fp32 (the kernels' compute precision).
FP32_U = 2.0**-24
#: ``paddingIdx`` is a ``uint64_t`` in the C API.
U64 = (1 << 64) - 1

SMLB = "soft_margin_loss_backward"
EDB = "embedding_dense_backward"
_DOCS = {
    SMLB: "loss/soft_margin_loss_grad/docs/aclnnSoftMarginLossBackward.md",
    EDB: "index/embedding_dense_grad_accumulate/docs/aclnnEmbeddingDenseBackward.md",
}
_OPS: dict[tuple[str, str], OpCallable] = {}


def kernel(op: str, product: str) -> OpCallable:
    """The generated op built for ``product`` (once per process); ``OPGEN_TEST_GENERATED`` may name another tree."""
    key = (op, product)
    if key not in _OPS:
        _OPS[key] = compile_op(op, product, generated=os.environ.get("OPGEN_TEST_GENERATED"))
    return _OPS[key]


def np_dtype(name: str) -> np.dtype[Any]:
    """The NumPy dtype of an aclDataType name (``BF16`` is ``ml_dtypes.bfloat16``)."""
    names = {
        "FLOAT": np.float32,
        "FLOAT16": np.float16,
        "BF16": ml_dtypes.bfloat16,
        "DOUBLE": np.float64,
        "INT64": np.int64,
        "INT32": np.int32,
        "INT16": np.int16,
        "INT8": np.int8,
        "UINT8": np.uint8,
        "BOOL": np.bool_,
    }
    return np.dtype(names[name])


# --------------------------------------------------------------------------------------------- documents


def generated_doc(op: str) -> str:
    """The generated aclnn doc of ``op`` (snake name) in the tree under test."""
    root = Path(os.environ.get("OPGEN_TEST_GENERATED") or project_paths().generated)
    return (root / _DOCS[op]).read_text(encoding="utf-8")


def assert_doc_line(op: str, line: str) -> None:
    """The generated doc of ``op`` has ``line`` as one of its lines (a note renders as ``- <text>``).

    A missing deliberate-difference note is added to the ``notes:`` list of ``specs/<op>.yaml``, then
    ``opgen generate`` renders it.
    """
    lines = [raw.strip() for raw in generated_doc(op).splitlines()]
    assert line in lines, (
        f"generated doc of {op} lacks the line:\n{line}\n(add the note to specs/{op}.yaml, regenerate)"
    )


# ------------------------------------------------------------------------------------------ conversions


def to_torch(array: np.ndarray) -> torch.Tensor:
    """A tensor sharing ``array``'s memory and strides (non-contiguous views stay non-contiguous)."""
    a = np.asarray(array)
    if a.dtype == BF16:
        return torch.from_numpy(a.view(np.uint16)).view(torch.bfloat16)
    return torch.from_numpy(a)


def to_numpy(tensor: torch.Tensor) -> np.ndarray:
    """A NumPy copy of ``tensor`` (bfloat16 as ``ml_dtypes.bfloat16``)."""
    t = tensor.detach().contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(BF16).copy()
    return t.numpy().copy()


def upcast(array: np.ndarray) -> np.ndarray:
    """``array`` converted exactly to fp32 (FLOAT16 and BF16 are subsets of fp32); views keep their shape."""
    return np.asarray(array).astype(np.float32)


def as_int64(value: int) -> int:
    """A ``uint64_t`` (or Python int) attribute read as int64."""
    v = int(value) & U64
    return v - (1 << 64) if v >= (1 << 63) else v


def raw_shape(shape: tuple[int, ...], view: str) -> tuple[int, ...]:
    """The shape to generate so that :func:`make_view` with ``view`` gives ``shape``."""
    if view == "T":
        return shape[::-1]
    if view == "S":
        return (*shape[:-1], shape[-1] * 2)
    if view == "M":
        return (shape[0], 2, *shape[1:])
    return shape


def make_view(a: np.ndarray, view: str) -> np.ndarray:
    """A non-contiguous view of ``a``: transposed (``T``), every second element of the last axis (``S``),
    or the second entry of a middle axis (``M``); ``""`` returns ``a``."""
    if view == "T":
        return a.T
    if view == "S":
        return a[..., ::2]
    if view == "M":
        return a[:, 1]
    return a


def promoted(names: tuple[str, ...]) -> str:
    """CANN's promotion of float dtypes: one dtype stays, any mix (FLOAT16 with BF16 too) gives FLOAT."""
    kinds = set(names)
    return kinds.pop() if len(kinds) == 1 else "FLOAT"


# ---------------------------------------------------------------------------------------- comparison


def assert_matches_oracle(
    got: np.ndarray,
    oracle: np.ndarray,
    atol: np.ndarray | float,
    rtol: np.ndarray | float,
    what: str = "",
    via: np.dtype[Any] | None = None,
) -> None:
    """``got`` (dtype of out) against the oracle's fp32/float64 result rounded to that dtype.

    Both sides carry at most the modelled fp32 error (``atol + rtol*|oracle|``) before their final rounding,
    and each final rounding costs at most half an output ULP, so the bound is ``2*(atol + rtol*|oracle|) +
    ulp_out``. ``via`` is a dtype the result is rounded to before it is converted to the dtype of out (the
    kernel's output dtype when the host casts afterwards); its ULP is added. An infinity matches only the
    same infinity of the rounded oracle (the exact value overflows the dtype of out); NaN fails.
    """
    assert got.shape == oracle.shape, f"{what}: shape {got.shape} != oracle {oracle.shape}"
    if got.size == 0:
        return
    g = got.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        rounded = np.asarray(oracle, dtype=np.float64)
        if via is not None:
            rounded = rounded.astype(via).astype(np.float64)
        rounded = rounded.astype(got.dtype).astype(np.float64)
        magnitude = np.maximum(np.abs(g), np.abs(rounded))
        magnitude = np.where(np.isfinite(magnitude), magnitude, 0.0)
        bound = 2.0 * (np.asarray(atol) + np.asarray(rtol) * np.abs(oracle)) + ulp(magnitude, got.dtype)
        if via is not None:
            bound = bound + ulp(magnitude, via)
        err = np.abs(g - rounded)
        same_inf = np.isinf(g) & (g == rounded)
        bad = ~((err <= bound) | same_inf)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise AssertionError(
            f"{what}: {int(bad.sum())} of {bad.size} elements differ from PyTorch beyond the bound; first at {idx}: "
            f"got {g[idx]!r}, PyTorch {float(np.asarray(oracle)[idx])!r} (rounded {rounded[idx]!r}), "
            f"bound {float(np.broadcast_to(bound, g.shape)[idx]):.3g}"
        )


def dtype_name(array: np.ndarray) -> str:
    """The aclDataType name of a float array's dtype (``FLOAT``, ``FLOAT16``, ``BF16``)."""
    return {np.dtype(np.float32): "FLOAT", np.dtype(np.float16): "FLOAT16", BF16: "BF16"}[np.asarray(array).dtype]


# ------------------------------------------------------------------------------ SoftMarginLossBackward


def smlb_torch(
    gradOutput: np.ndarray,
    self: np.ndarray,
    target: np.ndarray,
    reduction: int,
    compute: torch.dtype = torch.float32,
    divisor: str = "broadcast",
    form: str = "eager",
) -> np.ndarray:
    """``torch.ops.aten.soft_margin_loss_backward`` on the inputs converted to ``compute``, as float64.

    ``divisor="broadcast"`` rescales PyTorch's mean (divided by ``self.numel()``) to this project's divisor,
    the element count of the broadcast shape (a documented difference; exact in float64). ``"self"`` keeps
    PyTorch's value. ``form="decomposition"`` runs PyTorch's own decomposition of the op
    (``torch._decomp``: ``target * grad_output * (sigmoid(target * self) - 1)``), which does not overflow
    but loses the relative accuracy of tiny results to cancellation; ``"eager"`` runs the CPU kernel.

    Raises:
        ValueError: gradOutput does not broadcast into the shape of ``self * target``, which PyTorch eager
            needs (it multiplies gradOutput in place; a documented difference).
    """
    shape = np.broadcast_shapes(gradOutput.shape, self.shape, target.shape)
    if np.broadcast_shapes(self.shape, target.shape) != shape:
        raise ValueError(f"PyTorch eager needs gradOutput {gradOutput.shape} to fit self * target {shape}")
    g, x, t = (to_torch(a).to(compute) for a in (gradOutput, self, target))
    op = torch.ops.aten.soft_margin_loss_backward
    fn = decomposition_table[op.default] if form == "decomposition" else op
    res = to_numpy(fn(g, x, t, reduction)).astype(np.float64)
    n = int(np.prod(shape, dtype=np.int64))
    if divisor == "broadcast" and reduction == 1 and n and self.size != n:
        res = res * (self.size / n)
    return res


def smlb_exact(gradOutput: np.ndarray, self: np.ndarray, target: np.ndarray, reduction: int) -> np.ndarray:
    """PyTorch in float64 (with this project's mean divisor): the eager kernel, and PyTorch's decomposition
    where the eager form overflows (``target*self`` below about -709)."""
    eager = smlb_torch(gradOutput, self, target, reduction, torch.float64)
    if np.isfinite(eager).all():
        return eager
    stable = smlb_torch(gradOutput, self, target, reduction, torch.float64, form="decomposition")
    return np.where(np.isfinite(eager), eager, stable)


def smlb_error_model(gradOutput: np.ndarray, self: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(atol, rtol)`` of an fp32 evaluation of ``-t*g*sigmoid(-t*x)*norm``, broadcast.

    ``t*x`` is rounded before ``exp``: a relative error ``|t*x|*u`` carried into the result, on top of about
    eight roundings of the other operations. Results below the smallest normal fp32 get an absolute
    allowance (vector units flush them).
    """
    g, x, t = (np.asarray(a, dtype=np.float64) for a in (gradOutput, self, target))
    shape = np.broadcast_shapes(g.shape, x.shape, t.shape)
    rtol = FP32_U * (8.0 + 2.0 * np.abs(t * x))
    atol = 4.0 * 2.0**-126 * (1.0 + np.abs(t * g))
    return np.broadcast_to(atol, shape), np.broadcast_to(rtol, shape)


def check_smlb_kernel(
    got: np.ndarray, gradOutput: np.ndarray, self: np.ndarray, target: np.ndarray, reduction: int
) -> None:
    """The kernel's ``got`` against PyTorch fp32 on the upcast inputs, rounded once to the promoted input
    dtype and converted to ``got.dtype``.

    The generated op computes in fp32, rounds to the promoted dtype of the inputs (the device output) and
    casts that to the dtype of out on the host, as CANN does: a FLOAT out of FLOAT16 inputs holds FLOAT16
    values (see ``test_difference_smlb_out_wider_than_the_inputs``). Where PyTorch eager fp32 is not finite
    although the exact value is (``target*self`` below about -88.7: ``exp`` overflows in its literal form; a
    documented difference), the kernel must be finite and is compared with PyTorch in float64 instead
    (:func:`smlb_exact`).
    """
    g32, x32, t32 = (upcast(a) for a in (gradOutput, self, target))
    eager = smlb_torch(g32, x32, t32, reduction, torch.float32)
    exact = smlb_exact(g32, x32, t32, reduction)
    overflow = ~np.isfinite(eager) & np.isfinite(exact)
    assert np.isfinite(got.astype(np.float64)[overflow]).all(), "the kernel must be finite where PyTorch overflows"
    atol, rtol = smlb_error_model(g32, x32, t32)
    via = np_dtype(promoted(tuple(dtype_name(a) for a in (gradOutput, self, target))))
    assert_matches_oracle(got, np.where(overflow, exact, eager), atol, rtol, "SoftMarginLossBackward", via)


# ------------------------------------------------------------------------------ EmbeddingDenseBackward


def decode_indices(indices: np.ndarray, num_weights: int) -> tuple[np.ndarray, np.ndarray]:
    """The documented decoding of any index dtype: ``(rows, valid)`` over the flattened indices.

    Floating values are truncated toward zero, BOOL reads as 0/1, and a row is valid when it is finite and
    in ``[0, numWeights)``; ``rows`` is 0 where not valid.
    """
    flat = np.asarray(indices).reshape(-1)
    if flat.dtype == np.bool_:
        values = flat.astype(np.float64)
    elif np.issubdtype(flat.dtype, np.floating):
        with np.errstate(invalid="ignore"):
            values = np.trunc(flat.astype(np.float64))
    else:
        values = flat.astype(np.float64)  # exact below 2**53; larger magnitudes are out of range either way
    with np.errstate(invalid="ignore"):
        valid = np.isfinite(values) & (values >= 0) & (values < num_weights)
    rows = np.where(valid, values, 0).astype(np.int64)
    return rows, valid


def edb_torch(
    grad: np.ndarray,
    indices: np.ndarray,
    num_weights: int,
    padding_idx: int,
    scale: bool,
    compute: torch.dtype = torch.float32,
) -> np.ndarray:
    """``torch.ops.aten.embedding_dense_backward`` on grad converted to ``compute``, as float64 ``[W, D]``.

    INT64/INT32 indices all in ``[0, numWeights)`` go to PyTorch as they are (any shape and strides). Any
    other index tensor is first decoded as documented (:func:`decode_indices`) and its invalid positions
    removed together with their grad rows, which is this project's definition; PyTorch itself rejects
    other index dtypes and, with ``scale_grad_by_freq``, writes out of bounds for invalid indices, so it is
    never called with them. ``padding_idx`` is read as int64 (negative: none, as in both APIs).

    Raises:
        ValueError: grad does not have one row per index.
    """
    g = np.asarray(grad)
    idx = np.asarray(indices)
    d = g.shape[-1]
    n = int(np.prod(g.shape[:-1], dtype=np.int64))
    if n != idx.size:
        raise ValueError(f"grad {g.shape} has {n} rows, indices {idx.shape} has {idx.size} elements")
    pad = as_int64(padding_idx)
    direct = idx.dtype in (np.dtype(np.int64), np.dtype(np.int32)) and bool(np.all((idx >= 0) & (idx < num_weights)))
    if direct:
        tg, ti = to_torch(g).to(compute), to_torch(idx)
    else:
        rows, valid = decode_indices(idx, num_weights)
        tg = to_torch(np.ascontiguousarray(g.reshape(n, d)[valid])).to(compute)
        ti = torch.from_numpy(rows[valid])
    res = torch.ops.aten.embedding_dense_backward(tg, ti, num_weights, pad, scale)
    return to_numpy(res).astype(np.float64)


def edb_error_model(
    grad: np.ndarray, indices: np.ndarray, num_weights: int, padding_idx: int, scale: bool
) -> np.ndarray:
    """``atol`` ``[W, D]`` of an fp32 accumulation, from PyTorch in float64.

    ``k`` contributions of weight ``w`` added in fp32 in any order are within ``(k - 1) * u * sum|x*w|`` of
    the exact sum; two more roundings for the scaling (sum first, multiply by fp32(1/count)): ``u*(k + 2) *
    sum|x*w|``.
    """
    g = np.abs(np.asarray(grad, dtype=np.float64))
    sum_abs = edb_torch(g, indices, num_weights, padding_idx, scale, torch.float64)
    n = int(np.prod(g.shape[:-1], dtype=np.int64))
    ones = np.ones((n, 1), dtype=np.float64)
    terms = edb_torch(ones, np.asarray(indices).reshape(-1), num_weights, padding_idx, False, torch.float64)
    return FP32_U * (terms + 2.0) * sum_abs


def run_edb(
    product: str,
    grad: np.ndarray,
    indices: np.ndarray,
    num_weights: int,
    padding_idx: int,
    scale: bool,
    deterministic: bool = False,
    out: np.ndarray | None = None,
    core_order: str = "in_order",
) -> np.ndarray:
    """Runs the generated EmbeddingDenseBackward (``padding_idx`` as int64 or uint64)."""
    params: dict[str, Any] = {
        "grad": grad,
        "indices": indices,
        "numWeights": num_weights,
        "paddingIdx": int(padding_idx) & U64,
        "scaleGradByFreq": scale,
    }
    if out is not None:
        params["out"] = out
    return kernel(EDB, product)(deterministic=deterministic, core_order=core_order, **params)


def check_edb_kernel(
    got: np.ndarray, grad: np.ndarray, indices: np.ndarray, num_weights: int, padding_idx: int, scale: bool
) -> None:
    """The kernel's ``got`` against PyTorch fp32 on the upcast grad, rounded once to ``got.dtype``."""
    g32 = upcast(grad)
    oracle = edb_torch(g32, indices, num_weights, padding_idx, scale, torch.float32)
    atol = edb_error_model(g32, indices, num_weights, padding_idx, scale)
    assert_matches_oracle(got, oracle, atol, 0.0, "EmbeddingDenseBackward")
