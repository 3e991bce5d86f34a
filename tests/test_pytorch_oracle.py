"""Issue 7: PyTorch CPU as an independent oracle of the NumPy references and of the generated kernels.

1. Shared case lists (one per op, per product where sizes depend on the tiling): every shape class of the
   semantics reference (one element, one 32-byte block, a tile and a tile +/- 1, fewer elements than cores,
   a remainder over the cores, millions of elements, ranks 0/1 to 8, empty), broadcasting in every input
   position, non-contiguous inputs and outputs, every reduction, padding, scaling, heavy duplication, every
   index dtype, mixed and 16-bit dtypes. Each case runs the reference against PyTorch in float64 (tight) and
   the kernels on Ascend910 and Ascend910B (EmbeddingDenseBackward in both strategies) against PyTorch fp32
   on the upcast inputs, rounded once (``torch_oracle``).
2. Why PyTorch eager is not the oracle for 16-bit values: its rounding after every step is asserted.
3. The deliberate differences: one named test each (``test_difference_*``), asserting this project's
   behaviour, PyTorch's behaviour (never called where it would touch memory out of bounds; then its source
   is cited) and the line of the generated doc that documents the difference.
4. A mismatch found in ``reference/``: a strict xfail that turns into a failure once it is fixed.
"""

from __future__ import annotations

import importlib.util
import zlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from torch_oracle import (
    EDB,
    PRODUCTS,
    SMLB,
    U64,
    as_int64,
    assert_doc_line,
    assert_matches_oracle,
    check_edb_kernel,
    check_smlb_kernel,
    edb_error_model,
    edb_torch,
    kernel,
    make_view,
    np_dtype,
    promoted,
    raw_shape,
    run_edb,
    smlb_error_model,
    smlb_exact,
    smlb_torch,
    to_numpy,
    to_torch,
    torch,
    upcast,
)

from codegen.check.compare import ulp
from codegen.families.elementwise.plan.tiling import tiling_decision as smlb_tiling
from codegen.families.index_accumulate.plan.tiling import tiling_decision as edb_tiling
from codegen.paths import project_paths
from codegen.runner import AclnnError
from codegen.spec.model import DType
from codegen.specs import load_project

CATALOGUE, SPECS = load_project()
MODES = [pytest.param(False, id="atomic"), pytest.param(True, id="deterministic")]
Shape = tuple[int, ...]

aten_smlb = torch.ops.aten.soft_margin_loss_backward
aten_edb = torch.ops.aten.embedding_dense_backward


def _reference(op: str) -> ModuleType:
    path = project_paths().reference / f"{op}.py"
    spec = importlib.util.spec_from_file_location(f"oracle_reference_{op}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REF_SMLB = _reference(SMLB)
REF_EDB = _reference(EDB)

# ------------------------------------------------------------------------------ generated-doc lines
# Lines already in the generated docs (from the specs' notes:).
NOTE_SMLB_MEAN = (
    "For reduction mean the divisor is the element count of the broadcast shape (as CANN does); PyTorch divides "
    "by self.numel(). The two differ only when self is smaller than the broadcast shape."
)
NOTE_EDB_OUT_OF_RANGE = (
    "Out-of-range indices (negative, at least numWeights, NaN or infinite) are forbidden by the CANN documentation "
    "and corrupt memory in PyTorch CPU eager with scaling on; here they are defined: they contribute nothing, are "
    "not counted for scaleGradByFreq, and nothing outside out and the workspace is written."
)
NOTE_EDB_16BIT = (
    "FLOAT16 and BF16 gradients are accumulated in fp32 and rounded once to the dtype of out (PyTorch CPU eager "
    "rounds after every addition, so 4096 additions of 0.1 in fp16 give 256 there and 409.5 here)."
)
NOTE_EDB_INDEX_DECODING = (
    "Floating indices are converted toward zero (-0.5 selects row 0); BOOL indices read as 0 and 1; the conversion "
    "is done by the kernel on the raw bits, so DOUBLE indices above 2^24 keep their exact row."
)
NOTE_EDB_SCALING = (
    "With scaleGradByFreq, each row is summed first and multiplied by 1/count once at the end (mathematically "
    "equal to scaling every contribution; at most two more fp32 roundings)."
)
NOTE_EDB_EMPTY_AND_0D = (
    "Empty grad or indices give an all-zero out; numWeights 0 gives an empty [0, D] out. 0-d indices are not "
    "accepted (rank 1 to 8, as CANN documents); a PyTorch caller flattens them to [1]. The row count of grad must "
    "equal the element count of indices even when D is 0 (CANN skips that check for D = 0)."
)
# Lines to add to the specs' notes: (the tests below fail until they are generated).
NOTE_SMLB_OVERFLOW = (
    "sigmoid(z) is computed as 1 / (1 + exp(-z)), which is finite for every finite input: PyTorch eager evaluates "
    "target * exp(z) / (1 + exp(z)) in fp32 and returns NaN where target * self is below about -88.7 and an "
    "infinity where target * exp(z) exceeds the fp32 range; here the result is the finite limit."
)
NOTE_SMLB_GRAD_OUTPUT = (
    "gradOutput, self and target broadcast together, so gradOutput may be larger than the broadcast of self and "
    "target; PyTorch eager multiplies gradOutput in place into a tensor of the shape of self * target and raises "
    "an error for such a gradOutput."
)
NOTE_SMLB_REDUCTION = (
    "A reduction other than 0, 1 or 2 returns ACLNN_ERR_PARAM_INVALID (CANN does not check it and reads past an "
    "array); PyTorch eager does not check it either and uses the divisor 1 for every value other than 1 (mean)."
)
NOTE_SMLB_16BIT = (
    "FLOAT16 and BF16 inputs are computed in fp32 and rounded once to the promoted input dtype, then converted to "
    "the dtype of out (a FLOAT out of FLOAT16 inputs holds FLOAT16-rounded values, as CANN casts after the kernel); "
    "PyTorch CPU eager rounds every intermediate result to 16 bits (several ULPs off, and in FLOAT16 NaN or "
    "infinite already where target * self is below about -11.1) and returns the dtype of self."
)
NOTE_SMLB_RANK = "Ranks above 8 return ACLNN_ERR_PARAM_INVALID (CANN's limit); PyTorch accepts any rank."
NOTE_EDB_INDEX_DTYPES = (
    "PyTorch accepts only INT64 and INT32 indices and raises an error for the seven other index dtypes, which are "
    "decoded here as described above."
)
NOTE_EDB_RANKS = (
    "Ranks are checked as CANN documents (grad 2 to 8, indices 1 to 8), others return ACLNN_ERR_PARAM_INVALID; "
    "PyTorch accepts any rank, including a 1-d grad [D] with a 0-d index, which a PyTorch caller passes here as "
    "grad [1, D] and indices [1]."
)
NOTE_EDB_EMPTY_ROWS = (
    "With D = 0, PyTorch (like CANN) accepts any number of indices; here the row count of grad must still equal "
    "their element count."
)


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(name.encode()))


# ===================================================================== 1a. SoftMarginLossBackward cases


@dataclass(frozen=True)
class SmlbCase:
    """One SoftMarginLossBackward case: shapes and dtypes of (gradOutput, self, target), views, values."""

    name: str
    shapes: tuple[Shape, Shape, Shape]
    dtypes: tuple[str, str, str] = ("FLOAT", "FLOAT", "FLOAT")
    reduction: int = 0
    views: tuple[str, str, str] = ("", "", "")
    out_dtype: str | None = None
    out_view: bool = False
    x_range: float = 4.0
    targets: str = "real"  # "real": N(0, 1.5); "pm1": -1/+1

    @property
    def shape(self) -> Shape:
        return tuple(np.broadcast_shapes(*self.shapes))

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        rng = _rng(self.name)
        made: list[np.ndarray] = []
        for i, (shape, dt, view) in enumerate(zip(self.shapes, self.dtypes, self.views)):
            raw = raw_shape(shape, view)
            if i == 0:
                values = rng.standard_normal(raw) * 2.0
            elif i == 1:
                values = rng.uniform(-self.x_range, self.x_range, raw)
            elif self.targets == "pm1":
                values = rng.choice(np.array([-1.0, 1.0]), raw)
            else:
                values = rng.standard_normal(raw) * 1.5
            made.append(make_view(np.asarray(values).astype(np_dtype(dt)), view))
        return made[0], made[1], made[2]


def smlb_cases(product: str) -> list[SmlbCase]:
    """The shared SoftMarginLossBackward case list of ``product`` (tile and core counts come from its tiling)."""
    prod = CATALOGUE.get(product)
    spec = SPECS[SMLB]
    dtypes = ["FLOAT", "FLOAT16"] + (["BF16"] if prod.bf16 else [])
    cases: list[SmlbCase] = []
    for dt in dtypes:
        item = np_dtype(dt).itemsize
        block = 32 // item
        tile = smlb_tiling(spec, prod, (1 << 24,), DType[dt]).tile_length
        per_core = spec.tiling.min_bytes_per_core // item
        three = (dt, dt, dt)
        plain: list[tuple[str, Shape]] = [
            ("0-d", ()),
            ("one element", (1,)),
            ("one block", (block,)),
            ("block+1", (block + 1,)),
            ("fewer elements than cores", (3, 5)),
            ("tile-1", (tile - 1,)),
            ("one tile", (tile,)),
            ("tile+1", (tile + 1,)),
            ("remainder over all cores", (prod.vector_core_num * per_core + 5 * block + 3,)),
            ("large", ((1 << 21) + 17,)),
            ("empty", (0, 4)),
        ]
        plain += [(f"rank {r}", (2,) * (r - 1) + (3,)) for r in range(1, 9)]
        for i, (what, shape) in enumerate(plain):
            cases.append(SmlbCase(f"{dt} {what} {list(shape)}", (shape,) * 3, three, reduction=i % 3))
        for r in (0, 1, 2):
            cases.append(SmlbCase(f"{dt} reduction {r} [4, 33]", ((4, 33),) * 3, three, reduction=r))
            cases.append(SmlbCase(f"{dt} 0-d all, reduction {r}", ((), (), ()), three, reduction=r))
        # Broadcasting in every input position (PyTorch needs gradOutput to fit self * target).
        full = (3, 4, 17)
        bcast: list[tuple[str, tuple[Shape, Shape, Shape], int]] = [
            ("gradOutput 0-d (mean)", ((), full, full), 1),
            ("gradOutput 0-d (sum)", ((), full, full), 2),
            ("gradOutput [4, 1]", ((4, 1), full, full), 0),
            ("self [1, 17]", (full, (1, 17), full), 0),
            ("self [1, 17] (mean, divisor rescaled)", (full, (1, 17), full), 1),
            ("self 0-d (mean, divisor rescaled)", ((5, 6), (), (5, 6)), 1),
            ("target [3, 1, 1]", (full, full, (3, 1, 1)), 1),
            ("target 0-d", ((5, 6), (5, 6), ()), 2),
            ("self [3, 1, 17], target [4, 1], gradOutput [1]", ((1,), (3, 1, 17), (4, 1)), 1),
            ("rank 8 both ways", ((), (2, 1, 2, 1, 2, 1, 2, 3), (1, 2, 1, 2, 1, 2, 1, 3)), 0),
        ]
        for what, shapes, r in bcast:
            cases.append(SmlbCase(f"{dt} broadcast {what}", shapes, three, reduction=r))
        # Non-contiguous inputs and outputs.
        cases.append(SmlbCase(f"{dt} transposed self, sliced target", ((30, 40),) * 3, three, 0, ("", "T", "S")))
        cases.append(
            SmlbCase(f"{dt} all strided, strided out", ((30, 40),) * 3, three, 1, ("T", "S", "T"), dt, out_view=True)
        )
        # Both sides of the exp overflow of PyTorch's fp32 literal form (t*x from -200 to 200).
        cases.append(
            SmlbCase(f"{dt} overflow region, targets +-1", ((4001,),) * 3, three, 0, targets="pm1", x_range=200)
        )
        cases.append(SmlbCase(f"{dt} overflow region, real targets", ((4001,),) * 3, three, 2, x_range=120))
    # Mixed dtypes: promoted (FLOAT16 with BF16 gives FLOAT), or a given out dtype.
    mixed: list[tuple[tuple[str, str, str], str | None]] = [
        (("FLOAT", "FLOAT16", "FLOAT"), None),
        (("FLOAT16", "FLOAT16", "FLOAT"), None),
        (("FLOAT", "FLOAT16", "FLOAT"), "FLOAT16"),
        (("FLOAT16", "FLOAT", "FLOAT16"), "FLOAT16"),
        (("FLOAT16", "FLOAT16", "FLOAT16"), "FLOAT"),
    ]
    if prod.bf16:
        mixed += [
            (("FLOAT16", "BF16", "FLOAT16"), None),
            (("BF16", "FLOAT", "BF16"), None),
            (("FLOAT16", "BF16", "FLOAT16"), "BF16"),
            (("FLOAT", "FLOAT", "FLOAT"), "BF16"),
            (("BF16", "BF16", "BF16"), "FLOAT"),
            (("BF16", "BF16", "BF16"), "FLOAT16"),
        ]
    for dts, out in mixed:
        cases.append(
            SmlbCase(f"mixed {'/'.join(dts)} out {out or 'promoted'}", ((), (5, 1, 33), (4, 33)), dts, 1, out_dtype=out)
        )
    return cases


SMLB_PARAMS = [pytest.param(p, c, id=f"{p}-{c.name}") for p in PRODUCTS for c in smlb_cases(p)]
SMLB_REF_CASES = list(dict.fromkeys(c for p in PRODUCTS for c in smlb_cases(p)))


@pytest.mark.parametrize("case", SMLB_REF_CASES, ids=lambda c: c.name)
def test_smlb_reference_matches_pytorch_float64(case: SmlbCase) -> None:
    g, x, t = case.arrays()
    ref = REF_SMLB.reference(g, x, t, case.reduction)
    exact = smlb_exact(g, x, t, case.reduction)
    assert ref.shape == exact.shape == case.shape
    np.testing.assert_allclose(ref, exact, rtol=1e-13, atol=1e-300)


@pytest.mark.parametrize(("product", "case"), SMLB_PARAMS)
def test_smlb_kernel_matches_pytorch(product: str, case: SmlbCase) -> None:
    g, x, t = case.arrays()
    fn = kernel(SMLB, product)
    params: dict[str, Any] = {"gradOutput": g, "self": x, "target": t, "reduction": case.reduction}
    want = case.out_dtype or promoted(case.dtypes)
    store: np.ndarray | None = None
    if case.out_view:
        shape = case.shape
        store = np.full((*shape[:-1], shape[-1] * 3), 7.0, dtype=np_dtype(want))
        params["out"] = store[..., ::3]
    elif case.out_dtype:
        params["out"] = np.zeros(case.shape, dtype=np_dtype(want))
    got = fn(**params)
    assert got.dtype == np_dtype(want) and got.shape == case.shape
    if store is not None:
        assert (np.delete(store, np.arange(0, store.shape[-1], 3), axis=-1) == 7.0).all()
        got = store[..., ::3]
    check_smlb_kernel(got, g, x, t, case.reduction)


# ===================================================================== 1b. EmbeddingDenseBackward cases

_DOC_EXAMPLE = (np.arange(1, 7, dtype=np.float64), np.array([1, 2]))
_TORCH_EXAMPLE = (np.arange(1, 13, dtype=np.float64), np.array([[0, 2, 2], [1, 2, 0]]))


@dataclass(frozen=True)
class EdbCase:
    """One EmbeddingDenseBackward case. ``padding`` is read as int64 (negative: none); ``kind`` chooses the
    index values: ``valid``, ``same`` (all equal), ``padding-heavy`` (1200 of them the padding row),
    ``invalid`` (out of range, NaN and infinities mixed in), ``doc-example``, ``torch-example``."""

    name: str
    grad_shape: Shape
    index_shape: Shape
    num_weights: int
    padding: int = -1
    scale: bool = False
    grad_dtype: str = "FLOAT"
    index_dtype: str = "INT64"
    out_dtype: str | None = None
    kind: str = "valid"
    grad_view: str = ""
    index_view: str = ""
    out_view: bool = False

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        rng = _rng(self.name)
        if self.kind in ("doc-example", "torch-example"):
            values, idx = _DOC_EXAMPLE if self.kind == "doc-example" else _TORCH_EXAMPLE
            return values.reshape(self.grad_shape).astype(np_dtype(self.grad_dtype)), idx.astype(np.int64)
        raw = raw_shape(self.grad_shape, self.grad_view)
        grad = make_view(rng.standard_normal(raw).astype(np_dtype(self.grad_dtype)), self.grad_view)
        n = int(np.prod(self.index_shape, dtype=np.int64))
        flat = self._index_values(rng, n)
        idx_raw = raw_shape(self.index_shape, self.index_view)
        store = np.zeros(idx_raw, dtype=flat.dtype)
        view = make_view(store, self.index_view)
        view[...] = flat.reshape(self.index_shape)
        return grad, view

    def _index_values(self, rng: np.random.Generator, n: int) -> np.ndarray:
        dt = np_dtype(self.index_dtype)
        w = self.num_weights
        if self.kind == "invalid":
            if dt.kind == "f":
                pool = [0, -1, w, w + 1, 1e30, -1e30, np.nan, np.inf, -np.inf, -0.7, w - 0.01, 2, 2, 65504, -0.0, 1]
            elif dt.kind == "u":
                pool = [0, w, w + 1, int(np.iinfo(dt).max), w - 1, 1, 1, 2]
            else:
                info = np.iinfo(dt)
                pool = [0, -1, w, int(info.max), int(info.min), w - 1, 1, 1, 2, 2]
            assert n == len(pool), f"{self.name}: an invalid-index case needs {len(pool)} indices"
            with np.errstate(over="ignore"):  # 1e30 is inf in FLOAT16
                return np.array(pool, dtype=np.float64 if dt.kind == "f" else np.int64).astype(dt)
        if dt == np.bool_:
            return rng.integers(0, 2, n) == 1
        if self.kind == "same":
            values = np.full(n, w // 2, dtype=np.float64)
        else:
            values = rng.integers(0, max(w, 3), n).astype(np.float64)  # numWeights 0: every index out of range
        if self.kind == "padding-heavy":
            values[rng.permutation(n)[:1200]] = self.padding
        if dt.kind == "f":
            frac = rng.uniform(0.0, 0.95, n)
            values = np.where((values == 0) & (rng.uniform(size=n) < 0.5), -frac, values + frac)  # -0.x -> row 0
        return values.astype(dt)

    def out(self) -> tuple[np.ndarray | None, np.ndarray | None]:
        """``(out argument, backing store)`` when the case passes out, else ``(None, None)``."""
        dt = np_dtype(self.out_dtype or self.grad_dtype)
        shape = (self.num_weights, self.grad_shape[-1])
        if self.out_view:
            store = np.full((shape[0], shape[1] * 2), 7.0, dtype=dt)
            return store[:, ::2], store
        if self.out_dtype:
            return np.zeros(shape, dtype=dt), None
        return None, None


def edb_cases(product: str) -> list[EdbCase]:
    """The shared EmbeddingDenseBackward case list of ``product``."""
    prod = CATALOGUE.get(product)
    spec = SPECS[EDB]
    grads = ["FLOAT", "FLOAT16"] + (["BF16"] if prod.bf16 else [])
    index_dtypes = ["INT64", "INT32", "INT16", "INT8", "UINT8", "BOOL", "FLOAT", "FLOAT16", "DOUBLE"]
    c: list[EdbCase] = [EdbCase("CANN doc example", (2, 3), (2,), 4, padding=0, kind="doc-example")]
    for pad, scale in ((-1, False), (2, False), (-1, True), (2, True)):
        c.append(
            EdbCase(
                f"PyTorch example, padding {pad}, scale {scale}", (2, 3, 2), (2, 3), 4, pad, scale, kind="torch-example"
            )
        )
    for g in grads:
        d_max = edb_tiling(spec, prod, (4, 1), 4, DType[g], DType.INT64, False).d_chunk_max
        for d in (1, 7, 8, 16, d_max - 1, d_max, d_max + 1, 100_003):
            n = 3 if d > 50_000 else 6 if d > 1000 else 40
            # scaling on odd D, below the Atlas training limit (about 5000 for these sizes)
            c.append(EdbCase(f"{g} D {d}", (n, d), (n,), 5, padding=2, scale=d % 2 == 1 and d < 5000, grad_dtype=g))
        c.append(EdbCase(f"{g} one element", (1, 1), (1,), 1, grad_dtype=g))
        c.append(EdbCase(f"{g} fewer rows than cores", (5, 3), (5,), 3, scale=True, grad_dtype=g))
        for r in range(2, 9):
            shape = (2,) * (r - 1) + (9,)
            c.append(EdbCase(f"{g} grad rank {r}", shape, shape[:-1], 6, scale=True, grad_dtype=g))
        for r in range(1, 9):
            ishape = (2,) * r
            c.append(EdbCase(f"{g} indices rank {r}", (2**r, 5), ishape, 6, padding=0, grad_dtype=g))
        c.append(EdbCase(f"{g} all 4096 indices equal", (4096, 8), (4096,), 10, kind="same", grad_dtype=g))
        c.append(
            EdbCase(f"{g} all 4096 equal, INT32, scaling", (64, 64, 3), (64, 64), 4, -1, True, g, "INT32", kind="same")
        )
        for scale in (False, True):
            c.append(
                EdbCase(
                    f"{g} padding row 1200 times, scale {scale}",
                    (1500, 12),
                    (1500,),
                    8,
                    3,
                    scale,
                    g,
                    kind="padding-heavy",
                )
            )
        for pad, what in ((-1, "-1"), (-(2**63), "2^63 as uint64"), (10, "= numWeights")):
            c.append(EdbCase(f"{g} scaling, paddingIdx {what}", (50, 10), (50,), 10, pad, True, g))
        c.append(
            EdbCase(
                f"{g} non-contiguous grad, indices and out",
                (30, 11),
                (30,),
                7,
                4,
                True,
                g,
                grad_view="M",
                index_view="S",
                out_view=True,
            )
        )
        c.append(EdbCase(f"{g} transposed grad", (20, 9), (20,), 4, grad_dtype=g, grad_view="T"))
        c.append(EdbCase(f"{g} empty grad and indices", (0, 5), (0,), 6, 1, True, g))
        c.append(EdbCase(f"{g} empty middle axis", (3, 0, 5), (3, 0), 4, grad_dtype=g, index_dtype="INT32"))
        c.append(EdbCase(f"{g} numWeights 0", (4, 6), (4,), 0, grad_dtype=g))
        c.append(EdbCase(f"{g} D 0", (4, 0), (4,), 3, grad_dtype=g))
        for i in index_dtypes:
            w = 3 if i == "BOOL" else 10
            c.append(EdbCase(f"{g} {i} indices, padding 1, scaling", (37, 17), (37,), w, 1, True, g, i))
        for i, n in (("INT64", 10), ("INT32", 10), ("INT16", 10), ("INT8", 10), ("UINT8", 8)):
            c.append(EdbCase(f"{g} {i} out-of-range indices", (n, 9), (n,), 5, -1, True, g, i, kind="invalid"))
        for i in ("FLOAT", "FLOAT16", "DOUBLE"):
            c.append(EdbCase(f"{g} {i} NaN/inf/out-of-range indices", (16, 9), (16,), 5, 2, True, g, i, kind="invalid"))
        for o in grads:
            if o != g:
                c.append(EdbCase(f"{g} grad, {o} out", (9, 13), (9,), 6, -1, True, g, out_dtype=o))
    c.append(EdbCase("many rows over many cores", (20000, 24), (20000,), 3000, 17, True))
    c.append(EdbCase("many indices over many cores", (100000, 8), (100000,), 50, 7, True, index_dtype="INT32"))
    return c


EDB_PARAMS = [pytest.param(p, c, id=f"{p}-{c.name}") for p in PRODUCTS for c in edb_cases(p)]
EDB_REF_CASES = list(dict.fromkeys(c for p in PRODUCTS for c in edb_cases(p)))


@pytest.mark.parametrize("case", EDB_REF_CASES, ids=lambda c: c.name)
def test_edb_reference_matches_pytorch_float64(case: EdbCase) -> None:
    grad, idx = case.arrays()
    ref = REF_EDB.reference(grad, idx, case.num_weights, case.padding & U64, case.scale)
    exact = edb_torch(grad, idx, case.num_weights, case.padding, case.scale, torch.float64)
    assert ref.shape == exact.shape == (case.num_weights, case.grad_shape[-1])
    # the fp32 error model with float64's unit roundoff (2**-53 = 2**-24 * 2**-29), doubled
    atol = edb_error_model(grad, idx, case.num_weights, case.padding, case.scale) * 2.0**-28
    err = np.abs(ref - exact)
    assert np.all(err <= atol), f"max error {err.max()} (bound {atol.max()})"


@pytest.mark.parametrize("deterministic", MODES)
@pytest.mark.parametrize(("product", "case"), EDB_PARAMS)
def test_edb_kernel_matches_pytorch(product: str, case: EdbCase, deterministic: bool) -> None:
    grad, idx = case.arrays()
    out, store = case.out()
    got = run_edb(product, grad, idx, case.num_weights, case.padding, case.scale, deterministic, out=out)
    assert got.dtype == np_dtype(case.out_dtype or case.grad_dtype)
    if store is not None:
        assert (store[:, 1::2] == 7.0).all()
        got = store[:, ::2]
    check_edb_kernel(got, grad, idx, case.num_weights, case.padding, case.scale)
    if 0 <= case.padding < case.num_weights:
        row = got[case.padding].astype(np.float64)
        assert (row == 0).all() and not np.signbit(row).any(), "the padding row must stay +0"


# ======================================================================= 2. 16-bit: PyTorch eager stalls


@pytest.mark.parametrize("product", PRODUCTS)
@pytest.mark.parametrize("deterministic", MODES)
def test_difference_edb_16bit_sums_are_accumulated_in_fp32(product: str, deterministic: bool) -> None:
    cases: list[tuple[Any, float, float]] = [(np.float16, 256.0, 409.5)]
    if CATALOGUE.get(product).bf16:
        cases.append((ml_dtypes.bfloat16, 32.0, 410.0))
    for dtype, stalled, exact in cases:
        grad = np.full((4096, 16), 0.1, dtype)
        idx = np.full((4096,), 3, np.int64)
        # PyTorch CPU eager adds in the 16-bit dtype: the sum stops growing once 0.1 is below half an ULP.
        eager = to_numpy(aten_edb(to_torch(grad), torch.from_numpy(idx), 5, -1, False))
        assert eager.dtype == np.dtype(dtype)
        assert (eager[3].astype(np.float64) == stalled).all()
        # PyTorch on the fp32-upcast grad, rounded once: the exact sum of 4096 copies of dtype(0.1).
        upcast_sum = edb_torch(grad, idx, 5, -1, False, torch.float32)
        assert (upcast_sum[3] == exact).all() and exact == 4096 * float(np.asarray(0.1, dtype))
        ours = run_edb(product, grad, idx, 5, -1, False, deterministic)
        assert ours.dtype == np.dtype(dtype)
        assert (ours[3].astype(np.float64) == exact).all()
        assert (ours[[0, 1, 2, 4]].astype(np.float64) == 0).all()
    assert_doc_line(EDB, f"- {NOTE_EDB_16BIT}")


@pytest.mark.parametrize("product", PRODUCTS)
def test_difference_smlb_16bit_inputs_are_computed_in_fp32(product: str) -> None:
    fn = kernel(SMLB, product)
    # FLOAT16 eager: exp(-t*x) overflows fp16 beyond 11.09, so PyTorch gives NaN from t*x < -11.1 on.
    x = np.linspace(-20.0, 20.0, 801).astype(np.float16)
    one = np.ones_like(x)
    eager = to_numpy(aten_smlb(to_torch(one), to_torch(x), to_torch(one), 0)).astype(np.float64)
    assert np.isnan(eager[x < -11.2]).all() and np.isfinite(eager[x > -11.0]).all()
    ours = fn(gradOutput=one, self=x, target=one, reduction=0)
    assert ours.dtype == np.float16 and np.isfinite(ours.astype(np.float64)).all()
    check_smlb_kernel(ours, one, x, one, 0)
    # Random inputs: eager is several ULPs off the once-rounded fp32 result; the kernel is within the bound.
    rng = np.random.default_rng(2026)
    dtypes: list[Any] = [np.float16] + ([ml_dtypes.bfloat16] if CATALOGUE.get(product).bf16 else [])
    for dtype in dtypes:
        g, xs, t = (rng.standard_normal(20000) * s for s in (2.0, 3.0, 1.5))
        g, xs, t = (a.astype(dtype) for a in (g, xs, t))
        eager = to_numpy(aten_smlb(to_torch(g), to_torch(xs), to_torch(t), 2)).astype(np.float64)
        once = smlb_torch(g, xs, t, 2, torch.float32).astype(dtype).astype(np.float64)
        spacing = ulp(np.abs(once), np.dtype(dtype))
        with np.errstate(invalid="ignore"):
            assert np.nanmax(np.abs(eager - once) / spacing) >= 2.0
        ours = fn(gradOutput=g, self=xs, target=t, reduction=2)
        check_smlb_kernel(ours, g, xs, t, 2)
    # Mixed dtypes: PyTorch returns the dtype of self; here the promoted dtype, or the dtype of out if given.
    g32 = rng.standard_normal(64).astype(np.float32)
    x16 = rng.standard_normal(64).astype(np.float16)
    t32 = rng.standard_normal(64).astype(np.float32)
    assert aten_smlb(to_torch(g32), to_torch(x16), to_torch(t32), 0).dtype == torch.float16
    assert fn(gradOutput=g32, self=x16, target=t32, reduction=0).dtype == np.float32
    out = np.zeros(64, np.float16)
    check_smlb_kernel(fn(gradOutput=g32, self=x16, target=t32, reduction=0, out=out), g32, x16, t32, 0)
    assert_doc_line(SMLB, f"- {NOTE_SMLB_16BIT}")


# ============================================================= 3. deliberate differences, SoftMarginLoss


@pytest.mark.parametrize("product", PRODUCTS)
def test_difference_smlb_out_wider_than_the_inputs(product: str) -> None:
    rng = np.random.default_rng(14)
    fn = kernel(SMLB, product)
    dtypes: list[Any] = [np.float16] + ([ml_dtypes.bfloat16] if CATALOGUE.get(product).bf16 else [])
    for dtype in dtypes:
        g, x, t = (rng.standard_normal(4000).astype(dtype) for _ in range(3))
        ours = fn(gradOutput=g, self=x, target=t, reduction=0, out=np.zeros(4000, np.float32))
        # Here: computed in fp32, rounded to the promoted input dtype by the kernel, then cast to the FLOAT out.
        np.testing.assert_array_equal(ours.astype(dtype).astype(np.float32), ours)
        check_smlb_kernel(ours, g, x, t, 0)
        # PyTorch on the fp32-upcast inputs keeps fp32 precision: the two differ by up to half a 16-bit ULP.
        theirs = smlb_torch(upcast(g), upcast(x), upcast(t), 0, torch.float32)
        assert np.max(np.abs(ours - theirs) / np.abs(theirs)) > 2.0**-14
        # PyTorch eager on the 16-bit tensors returns their dtype (that of self).
        assert aten_smlb(to_torch(g), to_torch(x), to_torch(t), 0).dtype == to_torch(x).dtype
    assert_doc_line(SMLB, f"- {NOTE_SMLB_16BIT}")


@pytest.mark.parametrize("product", PRODUCTS)
def test_difference_smlb_exp_overflow_is_finite_here(product: str) -> None:
    x = np.linspace(-100.0, 100.0, 20001).astype(np.float32)
    one = np.ones_like(x)
    eager = smlb_torch(one, x, one, 0, torch.float32)
    # PyTorch eager fp32: exp(-t*x) overflows past 88.72, and inf / inf is NaN.
    assert np.isnan(eager[x < -88.75]).all() and np.isfinite(eager[x > -88.7]).all()
    # With |target| > 1, target * exp(-t*x) overflows first: an infinity before the NaN region.
    t2 = np.full(1, 2.0, np.float32)
    assert smlb_torch(np.ones(1, np.float32), np.array([-44.3], np.float32), t2, 0)[0] == -np.inf
    ours = kernel(SMLB, product)(gradOutput=one, self=x, target=one, reduction=0)
    assert np.isfinite(ours).all()
    assert ours[0] == pytest.approx(-1.0) and ours[-1] == pytest.approx(0.0, abs=1e-38)
    check_smlb_kernel(ours, one, x, one, 0)  # against PyTorch float64 in the overflow region
    ours2 = kernel(SMLB, product)(
        gradOutput=np.ones(1, np.float32), self=np.array([-44.3], np.float32), target=t2, reduction=0
    )
    assert ours2[0] == pytest.approx(-2.0, rel=1e-6)
    assert_doc_line(SMLB, f"- {NOTE_SMLB_OVERFLOW}")


@pytest.mark.parametrize("product", PRODUCTS)
def test_difference_smlb_mean_divisor_is_the_broadcast_count(product: str) -> None:
    rng = np.random.default_rng(9)
    g = np.asarray(1.5, np.float32)
    x = rng.standard_normal(4).astype(np.float32)  # self.numel() = 4
    t = rng.standard_normal((3, 4)).astype(np.float32)  # broadcast shape [3, 4]: 12 elements
    theirs = smlb_torch(g, x, t, 1, torch.float64, divisor="self")
    exact = -t.astype(np.float64) * 1.5 / (1.0 + np.exp(t.astype(np.float64) * x))
    np.testing.assert_allclose(theirs, exact / 4, rtol=1e-14)  # PyTorch: self.numel()
    ours = kernel(SMLB, product)(gradOutput=g, self=x, target=t, reduction=1)
    atol, rtol = smlb_error_model(g, x, t)
    assert_matches_oracle(ours, exact / 12, atol, rtol, "mean over the broadcast shape")  # here: 12
    assert not np.allclose(ours, theirs, rtol=0.5)
    assert_doc_line(SMLB, f"- {NOTE_SMLB_MEAN}")


@pytest.mark.parametrize("product", PRODUCTS)
def test_difference_smlb_grad_output_may_be_larger(product: str) -> None:
    rng = np.random.default_rng(10)
    g = rng.standard_normal((3, 4)).astype(np.float32)
    x = rng.standard_normal(4).astype(np.float32)
    t = rng.standard_normal(4).astype(np.float32)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        aten_smlb(to_torch(g), to_torch(x), to_torch(t), 0)
    with pytest.raises(ValueError, match="PyTorch eager needs gradOutput"):
        smlb_torch(g, x, t, 0)
    ours = kernel(SMLB, product)(gradOutput=g, self=x, target=t, reduction=0)
    assert ours.shape == (3, 4)
    # what a PyTorch caller gets by expanding self to the full shape first
    xe = np.broadcast_to(x, (3, 4))
    check_smlb_kernel(ours, g, np.ascontiguousarray(xe), t, 0)
    assert_doc_line(SMLB, f"- {NOTE_SMLB_GRAD_OUTPUT}")


@pytest.mark.parametrize("product", PRODUCTS)
@pytest.mark.parametrize("reduction", [3, -1, 7])
def test_difference_smlb_reduction_outside_the_list(product: str, reduction: int) -> None:
    rng = np.random.default_rng(11)
    g, x, t = (rng.standard_normal(6).astype(np.float32) for _ in range(3))
    theirs = smlb_torch(g, x, t, reduction, divisor="self")
    np.testing.assert_array_equal(theirs, smlb_torch(g, x, t, 2, divisor="self"))  # PyTorch: divisor 1
    with pytest.raises(AclnnError) as err:
        kernel(SMLB, product)(gradOutput=g, self=x, target=t, reduction=reduction)
    assert err.value.status == 161002
    assert err.value.message == f"reduction must be one of 0 (none), 1 (mean), 2 (sum), but got {reduction}."
    assert_doc_line(SMLB, f"- {NOTE_SMLB_REDUCTION}")


@pytest.mark.parametrize("product", PRODUCTS)
def test_difference_smlb_rank_above_8(product: str) -> None:
    nine = np.ones((1,) * 8 + (2,), np.float32)
    assert aten_smlb(to_torch(nine), to_torch(nine), to_torch(nine), 0).shape == nine.shape
    with pytest.raises(AclnnError) as err:
        kernel(SMLB, product)(gradOutput=nine, self=nine, target=nine, reduction=0)
    assert err.value.status == 161002 and "9 dimensions" in err.value.message
    assert_doc_line(SMLB, f"- {NOTE_SMLB_RANK}")


# =========================================================== 3. deliberate differences, EmbeddingDense


@pytest.mark.parametrize("product", PRODUCTS)
@pytest.mark.parametrize("deterministic", MODES)
def test_difference_edb_out_of_range_indices_contribute_nothing(product: str, deterministic: bool) -> None:
    w = 4
    idx = np.array([0, -1, 4, 7, 2**40, -(2**40), 3, 1, 1], np.int64)
    grad = np.arange(1, idx.size * 3 + 1, dtype=np.float32).reshape(-1, 3)
    expected = np.zeros((w, 3), np.float32)
    expected[0], expected[3], expected[1] = grad[0], grad[6], grad[7] + grad[8]
    ours = run_edb(product, grad, idx, w, -1, False, deterministic)
    np.testing.assert_array_equal(ours, expected)
    scaled = run_edb(product, grad, idx, w, -1, True, deterministic)  # counts: rows 0, 3 once, row 1 twice
    np.testing.assert_array_equal(scaled, expected / np.array([[1], [2], [1], [1]], np.float32))
    # PyTorch CPU without scaling reads the indices and adds only rows k with start <= k < end of its
    # [0, num_weights) ranges: the out-of-range ones are skipped, as here (this call touches no memory
    # out of bounds).
    theirs = to_numpy(aten_edb(to_torch(grad), torch.from_numpy(idx), w, -1, False))
    np.testing.assert_array_equal(theirs, ours)
    # With scale_grad_by_freq, embedding_dense_backward_cpu (aten/src/ATen/native/Embedding.cpp) first runs
    # counts[indices[i]] = 0 and counts[indices[i]]++ on a num_weights-long array: an out-of-bounds write for
    # these indices, so PyTorch is not called with them. Dropping them first gives this project's result.
    check_edb_kernel(scaled, grad, idx, w, -1, True)
    assert_doc_line(EDB, f"- {NOTE_EDB_OUT_OF_RANGE}")


@pytest.mark.parametrize("product", PRODUCTS)
@pytest.mark.parametrize("index_dtype", ["FLOAT", "FLOAT16", "DOUBLE", "INT16", "INT8", "UINT8", "BOOL"])
def test_difference_edb_index_dtypes_pytorch_rejects(product: str, index_dtype: str) -> None:
    w = 4
    raw, rows = {
        "f": ([0.5, 2.9, -0.5, 1.0, 3.99, 2.0], [0, 2, 0, 1, 3, 2]),
        "i": ([0, 2, 3, 1, 3, 2], [0, 2, 3, 1, 3, 2]),
        "u": ([0, 2, 3, 1, 3, 2], [0, 2, 3, 1, 3, 2]),
        "b": ([1, 0, 1, 1, 0, 1], [1, 0, 1, 1, 0, 1]),
    }[np_dtype(index_dtype).kind]
    idx = np.array(raw, dtype=np.float64).astype(np_dtype(index_dtype))
    grad = np.random.default_rng(12).standard_normal((idx.size, 5)).astype(np.float32)
    with pytest.raises(RuntimeError, match="Long, Int"):
        aten_edb(to_torch(grad), to_torch(idx), w, -1, True)
    decoded = torch.tensor(rows, dtype=torch.int64)  # toward zero; BOOL as 0/1 (written out, not computed)
    theirs = to_numpy(aten_edb(to_torch(grad), decoded, w, 2, True)).astype(np.float64)
    for deterministic in (False, True):
        ours = run_edb(product, grad, idx, w, 2, True, deterministic)
        atol = edb_error_model(grad, np.array(rows), w, 2, True)
        assert_matches_oracle(ours, theirs, atol, 0.0, f"{index_dtype} indices")
    assert_doc_line(EDB, f"- {NOTE_EDB_INDEX_DECODING}")
    assert_doc_line(EDB, f"- {NOTE_EDB_INDEX_DTYPES}")


@pytest.mark.parametrize("product", PRODUCTS)
def test_difference_edb_ranks(product: str) -> None:
    # PyTorch: a 1-d grad [D] with a 0-d index (what F.embedding's backward passes for a 0-d input).
    grad = np.array([1.0, 2.0, 3.0], np.float32)
    theirs = to_numpy(aten_edb(to_torch(grad), torch.tensor(2), 4, -1, False))
    np.testing.assert_array_equal(theirs, [[0, 0, 0], [0, 0, 0], [1, 2, 3], [0, 0, 0]])
    fn = kernel(EDB, product)
    call: dict[str, Any] = {"numWeights": 4, "paddingIdx": U64, "scaleGradByFreq": False}
    with pytest.raises(AclnnError) as err:
        fn(grad=grad, indices=np.array([2]), **call)
    assert err.value.status == 161002 and "at least 2" in err.value.message
    with pytest.raises(AclnnError) as err:
        fn(grad=grad.reshape(1, 3), indices=np.array(2), **call)
    assert err.value.status == 161002 and "0 dimensions" in err.value.message
    np.testing.assert_array_equal(fn(grad=grad.reshape(1, 3), indices=np.array([2]), **call), theirs)
    # Rank 9 grad and indices: PyTorch accepts both.
    g9 = np.ones((1,) * 7 + (2, 3), np.float32)
    assert aten_edb(to_torch(g9), torch.tensor([1, 2]), 4, -1, False).shape == (4, 3)
    i9 = np.array([1, 2]).reshape((1,) * 8 + (2,))
    assert aten_edb(torch.ones(2, 3), torch.from_numpy(i9), 4, -1, False).shape == (4, 3)
    ranks_9: list[dict[str, Any]] = [
        {"grad": g9, "indices": np.array([1, 2])},
        {"grad": np.ones((2, 3), np.float32), "indices": i9},
    ]
    for kwargs in ranks_9:
        with pytest.raises(AclnnError) as err:
            fn(**kwargs, **call)
        assert err.value.status == 161002 and "9 dimensions" in err.value.message
    assert_doc_line(EDB, f"- {NOTE_EDB_EMPTY_AND_0D}")
    assert_doc_line(EDB, f"- {NOTE_EDB_RANKS}")


@pytest.mark.parametrize("product", PRODUCTS)
def test_difference_edb_row_count_is_checked_when_d_is_0(product: str) -> None:
    grad = np.ones((3, 0), np.float32)
    idx = np.array([1, 2])
    assert aten_edb(to_torch(grad), torch.from_numpy(idx), 4, -1, False).shape == (4, 0)  # PyTorch: accepted
    with pytest.raises(AclnnError) as err:
        run_edb(product, grad, idx, 4, -1, False)
    assert err.value.status == 161002 and "3 rows" in err.value.message and "2 elements" in err.value.message
    assert run_edb(product, np.ones((2, 0), np.float32), idx, 4, -1, False).shape == (4, 0)
    assert_doc_line(EDB, f"- {NOTE_EDB_EMPTY_AND_0D}")
    assert_doc_line(EDB, f"- {NOTE_EDB_EMPTY_ROWS}")


@pytest.mark.parametrize("product", PRODUCTS)
def test_difference_edb_scaling_sums_first(product: str) -> None:
    rng = np.random.default_rng(13)
    n, d, w = 3000, 6, 7
    grad = (rng.standard_normal((n, d)) * np.exp(rng.uniform(-4, 4, (n, 1)))).astype(np.float32)
    idx = rng.integers(0, w, n)
    ours = run_edb(product, grad, idx, w, -1, True, deterministic=True)
    # Here: the fp32 sum in index order (the deterministic kernel), multiplied once by fp32(1 / count).
    acc = np.zeros((w, d), np.float32)
    for i in range(n):
        acc[idx[i]] += grad[i]
    counts = np.bincount(idx, minlength=w)
    np.testing.assert_array_equal(ours, acc * (np.float32(1.0) / counts.astype(np.float32))[:, None])
    # PyTorch adds grad[i] * (1 / count) one by one: the same value within the fp32 error model.
    check_edb_kernel(ours, grad, idx, w, -1, True)
    assert_doc_line(EDB, f"- {NOTE_EDB_SCALING}")


# ================================================================================ 4. reference mismatch


@pytest.mark.parametrize("product", PRODUCTS)
@pytest.mark.parametrize("deterministic", MODES)
def test_edb_bool_indices_with_one_row_kernel(product: str, deterministic: bool) -> None:
    grad = np.arange(6, dtype=np.float32).reshape(3, 2)
    idx = np.array([True, False, True])  # True is row 1: out of range for numWeights 1
    for scale in (False, True):
        ours = run_edb(product, grad, idx, 1, -1, scale, deterministic)
        np.testing.assert_array_equal(ours, [[2.0, 3.0]])
        check_edb_kernel(ours, grad, idx, 1, -1, scale)


def test_edb_reference_bool_indices_with_one_row() -> None:
    grad = np.arange(6, dtype=np.float64).reshape(3, 2)
    idx = np.array([True, False, True])
    ref = REF_EDB.reference(grad, idx, 1, U64, False)
    np.testing.assert_array_equal(ref, edb_torch(grad, idx, 1, -1, False, torch.float64))


def test_padding_idx_reads_as_int64() -> None:
    # paddingIdx 2**63 .. 2**64-1 are negative int64: no padding row, as PyTorch's negative padding_idx.
    assert as_int64(U64) == -1 and as_int64(2**63) == -(2**63) and as_int64(5) == 5
    grad = np.ones((4, 2), np.float32)
    idx = np.array([0, 1, 1, 3])
    theirs = to_numpy(aten_edb(to_torch(grad), torch.from_numpy(idx), 4, -(2**63), False))
    np.testing.assert_array_equal(run_edb("Ascend910B", grad, idx, 4, 2**63, False), theirs)
