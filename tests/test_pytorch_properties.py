"""Property tests: the generated kernels (every product) and the NumPy references against PyTorch CPU on random
shapes, dtypes, layouts and attributes drawn by Hypothesis.

Each example is a compact description (shapes, dtypes, views, attributes, a value seed and a few special
values at drawn positions); the arrays are made from it, so a failure prints a readable example and shrinks
to the smallest shapes, simplest dtypes and attributes and seed 0. The checks are those of
``test_pytorch_oracle.py`` (``torch_oracle``): kernels against PyTorch fp32 on the upcast inputs rounded once,
with the documented differences applied; references against PyTorch in float64.

Example counts and randomness come from ``tests/hypothesis_profiles.py`` (``OPGEN_HYPOTHESIS_PROFILE``: ``ci``,
the default, derandomized with 40 examples per test; ``thorough``, 600 random examples per test).
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis_profiles import profile_settings
from torch_oracle import (
    EDB,
    SMLB,
    U64,
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
    smlb_exact,
    torch,
)

from codegen.families.elementwise.plan.tiling import tiling_decision as smlb_tiling
from codegen.families.index_accumulate.plan.tiling import tiling_decision as edb_tiling
from codegen.paths import project_paths
from codegen.runner.op_callable import CORE_ORDERS
from codegen.spec.model import DType
from codegen.specs import load_project

CATALOGUE, SPECS = load_project()
#: Every product both seed ops support.
PRODUCTS = ("Ascend910", "Ascend910B", "Ascend910_93", "Ascend950")
Shape = tuple[int, ...]


def _reference(op: str) -> ModuleType:
    path = project_paths().reference / f"{op}.py"
    spec = importlib.util.spec_from_file_location(f"property_reference_{op}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REF_SMLB = _reference(SMLB)
REF_EDB = _reference(EDB)


def _dtypes(product: str) -> list[str]:
    return ["FLOAT", "FLOAT16"] + (["BF16"] if CATALOGUE.get(product).bf16 else [])


def _rarely(draw: st.DrawFn) -> bool:
    """True about one time in eight (Hypothesis has no weights; a sampled list gives them)."""
    return draw(st.sampled_from([False] * 7 + [True]))


def _reduce(draw: st.DrawFn, shape: Shape) -> Shape:
    """A shape that broadcasts to ``shape``: the same, or with leading axes dropped and some axes set to 1."""
    if draw(st.booleans()):
        return shape
    keep = draw(st.integers(0, len(shape)))
    tail = shape[len(shape) - keep :]
    return tuple(1 if draw(st.booleans()) else d for d in tail)


def _inject(a: np.ndarray, specials: tuple[tuple[float, float], ...]) -> None:
    """Writes each ``(position in [0, 1), value)`` into the flat contiguous array ``a``."""
    if a.size:
        flat = a.reshape(-1)
        for pos, value in specials:
            flat[min(int(pos * a.size), a.size - 1)] = value


_SPECIAL_POS = st.floats(0.0, 0.999)


# ============================================================================== SoftMarginLossBackward


@dataclass(frozen=True)
class SmlbExample:
    """One drawn SoftMarginLossBackward call (its arrays come from :meth:`arrays`)."""

    product: str
    shapes: tuple[Shape, Shape, Shape]
    dtypes: tuple[str, str, str]
    views: tuple[str, str, str]
    reduction: int
    out_dtype: str | None
    out_view: bool
    x_scale: float
    unit_targets: bool
    seed: int
    specials: tuple[tuple[int, float, float], ...]

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        rng = np.random.default_rng(self.seed)
        made: list[np.ndarray] = []
        for i, (shape, dt, view) in enumerate(zip(self.shapes, self.dtypes, self.views)):
            raw = raw_shape(shape, view)
            if i == 0:
                values = rng.standard_normal(raw) * 3.0
            elif i == 1:
                values = rng.uniform(-self.x_scale, self.x_scale, raw)
            elif self.unit_targets:
                values = rng.choice(np.array([-1.0, 1.0]), raw)
            else:
                values = rng.standard_normal(raw) * 1.5
            a = np.array(values, dtype=np.float64, ndmin=0)
            _inject(a, tuple((p, v) for k, p, v in self.specials if k == i))
            made.append(make_view(a.astype(np_dtype(dt)), view))
        return made[0], made[1], made[2]


@st.composite
def smlb_examples(draw: st.DrawFn) -> SmlbExample:
    product = draw(st.sampled_from(PRODUCTS))
    dts = _dtypes(product)
    if draw(st.booleans()):
        one = draw(st.sampled_from(dts))
        dtypes = (one, one, one)
    else:
        dtypes = (draw(st.sampled_from(dts)), draw(st.sampled_from(dts)), draw(st.sampled_from(dts)))
    if _rarely(draw):
        # long 1-D inputs: sizes at and around the tile and the per-core split of the compute dtype
        compute = DType[promoted(dtypes)]
        tile = smlb_tiling(SPECS[SMLB], CATALOGUE.get(product), (1 << 24,), compute).tile_length
        cores = CATALOGUE.get(product).vector_core_num
        per_core = SPECS[SMLB].tiling.min_bytes_per_core // compute.itemsize
        edges = [tile - 1, tile, tile + 1, 2 * tile + 3, per_core + 1, cores * per_core + 17]
        full: Shape = (draw(st.sampled_from(edges) | st.integers(1, 60_000)),)
    else:
        rank = draw(st.integers(0, 8))
        top = 6 if rank <= 4 else 3
        full = tuple(draw(st.lists(st.integers(1, top), min_size=rank, max_size=rank)))
        if rank and _rarely(draw):
            full = (0, *full[1:])  # empty
    x_shape, t_shape = _reduce(draw, full), _reduce(draw, full)
    g_shape = _reduce(draw, tuple(np.broadcast_shapes(x_shape, t_shape)))  # PyTorch needs g to fit self * target
    shapes = (g_shape, x_shape, t_shape)
    views = tuple(draw(st.sampled_from(["", "T", "S"])) if len(s) else "" for s in shapes)
    out_dtype = draw(st.none() | st.sampled_from(dts))
    specials = draw(
        st.lists(
            st.tuples(
                st.integers(0, 2),
                _SPECIAL_POS,
                st.sampled_from([0.0, -0.0, 1.0, -1.0, 11.2, -11.2, 88.8, -88.8, 300.0]),
            ),
            max_size=4,
        )
    )
    return SmlbExample(
        product=product,
        shapes=shapes,
        dtypes=dtypes,
        views=(views[0], views[1], views[2]),
        reduction=draw(st.sampled_from([0, 1, 2])),
        out_dtype=out_dtype,
        out_view=len(np.broadcast_shapes(*shapes)) > 0 and _rarely(draw),
        x_scale=draw(st.sampled_from([1.0, 4.0, 20.0, 120.0])),
        unit_targets=draw(st.booleans()),
        seed=draw(st.integers(0, 2**32 - 1)),
        specials=tuple(specials),
    )


@profile_settings()
@given(smlb_examples())
def test_smlb_kernel_and_reference_match_pytorch(example: SmlbExample) -> None:
    g, x, t = example.arrays()
    shape = tuple(np.broadcast_shapes(*example.shapes))
    want = np_dtype(example.out_dtype or promoted(example.dtypes))
    params: dict[str, Any] = {"gradOutput": g, "self": x, "target": t, "reduction": example.reduction}
    store = None
    if example.out_view:
        store = np.full((*shape[:-1], shape[-1] * 3), 7.0, dtype=want)
        params["out"] = store[..., ::3]
    elif example.out_dtype:
        params["out"] = np.zeros(shape, dtype=want)
    got = kernel(SMLB, example.product)(**params)
    assert got.shape == shape and got.dtype == want
    if store is not None:
        assert (np.delete(store, np.arange(0, store.shape[-1], 3), axis=-1) == 7.0).all()
        got = store[..., ::3]
    check_smlb_kernel(got, g, x, t, example.reduction)
    ref = REF_SMLB.reference(g, x, t, example.reduction)
    np.testing.assert_allclose(ref, smlb_exact(g, x, t, example.reduction), rtol=1e-13, atol=1e-300)


# ============================================================================== EmbeddingDenseBackward

_INDEX_DTYPES = ["INT64", "INT32", "INT16", "INT8", "UINT8", "BOOL", "FLOAT", "FLOAT16", "DOUBLE"]


@dataclass(frozen=True)
class EdbExample:
    """One drawn EmbeddingDenseBackward call (its arrays come from :meth:`arrays`)."""

    product: str
    grad_dtype: str
    out_dtype: str | None
    index_dtype: str
    index_shape: Shape
    grad_lead: Shape
    dim: int
    num_weights: int
    padding: int
    scale: bool
    deterministic: bool
    core_order: str
    grad_view: str
    index_view: str
    out_view: bool
    index_kind: str
    grad_spread: float
    seed: int
    specials: tuple[tuple[float, float], ...]

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        rng = np.random.default_rng(self.seed)
        gshape = (*self.grad_lead, self.dim)
        raw = raw_shape(gshape, self.grad_view)
        values = rng.standard_normal(raw) * np.exp(rng.uniform(-self.grad_spread, self.grad_spread, raw))
        grad = make_view(values.astype(np_dtype(self.grad_dtype)), self.grad_view)
        n = int(np.prod(self.index_shape, dtype=np.int64))
        dt = np_dtype(self.index_dtype)
        w = self.num_weights
        if dt == np.bool_:
            flat = rng.integers(0, 2, n).astype(np.float64)
        elif self.index_kind == "same":
            flat = np.full(n, w // 2, dtype=np.float64)
        else:
            flat = rng.integers(0, max(w, 1), n).astype(np.float64)
            if self.index_kind == "padding-heavy":
                flat[rng.uniform(size=n) < 0.7] = self.padding
            if dt.kind == "f":
                flat = flat + rng.uniform(0.0, 0.95, n) * np.where(flat == 0, -1.0, 1.0)
        _inject(flat, self.specials)
        if dt.kind in "iu":
            # specials beyond the dtype's range wrap around, as a C cast on the caller's side would
            ints = np.clip(np.nan_to_num(flat), -(2.0**62), 2.0**62).astype(np.int64)
            if dt != np.int64:
                info = np.iinfo(dt)
                ints = (ints - int(info.min)) % (int(info.max) - int(info.min) + 1) + int(info.min)
            typed = ints.astype(dt)
        else:
            with np.errstate(over="ignore"):  # 1e30 is inf in FLOAT16
                typed = flat.astype(dt)
        store = np.zeros(raw_shape(self.index_shape, self.index_view), dtype=dt)
        view = make_view(store, self.index_view)
        view[...] = typed.reshape(self.index_shape)
        return grad, view


@st.composite
def edb_examples(draw: st.DrawFn) -> EdbExample:
    product = draw(st.sampled_from(PRODUCTS))
    dts = _dtypes(product)
    grad_dtype = draw(st.sampled_from(dts))
    index_dtype = draw(st.sampled_from(_INDEX_DTYPES))
    d_max = edb_tiling(SPECS[EDB], CATALOGUE.get(product), (4, 1), 4, DType[grad_dtype], DType.INT64, False).d_chunk_max
    if _rarely(draw):
        dim = draw(st.sampled_from([d_max - 1, d_max, d_max + 1, 2 * d_max + 5]))
        index_shape: Shape = (draw(st.integers(0, 5)),)
    else:
        dim = draw(st.integers(0, 40) | st.sampled_from([8, 16, 64, 65]))
        rank = draw(st.integers(1, 7))
        top = 12 if rank == 1 else 6 if rank <= 3 else 2
        index_shape = tuple(draw(st.lists(st.integers(0 if _rarely(draw) else 1, top), min_size=rank, max_size=rank)))
        if rank == 1 and _rarely(draw):
            index_shape = (draw(st.sampled_from([4096, 5000, 20000])),)  # heavy duplication and many cores
    n = int(np.prod(index_shape, dtype=np.int64))
    grad_lead = index_shape if draw(st.booleans()) else (n,)
    num_weights = draw(st.integers(0, 64) | st.sampled_from([1, 2, 1000, 4000]))
    pad_kind = draw(st.sampled_from(["none", "none 2^63", "in range", "numWeights"]))
    padding = {"none": -1, "none 2^63": -(2**63), "numWeights": num_weights}.get(pad_kind, -1)
    if pad_kind == "in range" and num_weights:
        padding = draw(st.integers(0, num_weights - 1))
    scale = draw(st.booleans())
    if product == "Ascend910" and dim > 4000:
        scale = False  # the Atlas training limit with scaling (about 5000 for these numWeights): a 161002 case
    deterministic = draw(st.booleans())
    fdt = np_dtype(index_dtype).kind == "f"
    special_values = [-1.0, float(num_weights), float(num_weights + 3), 1e30, -1e30, 300.0, -200.0]
    if fdt:
        special_values += [float("nan"), float("inf"), float("-inf"), -0.5, num_weights - 0.01]
    specials = draw(st.lists(st.tuples(_SPECIAL_POS, st.sampled_from(special_values)), max_size=4))
    return EdbExample(
        product=product,
        grad_dtype=grad_dtype,
        out_dtype=draw(st.none() | st.sampled_from(dts)),
        index_dtype=index_dtype,
        index_shape=index_shape,
        grad_lead=grad_lead,
        dim=dim,
        num_weights=num_weights,
        padding=padding,
        scale=scale,
        deterministic=deterministic,
        core_order="in_order" if deterministic else draw(st.sampled_from(sorted(CORE_ORDERS))),
        grad_view=draw(st.sampled_from(["", "S"] + (["T"] if len(grad_lead) == 1 else []))),
        index_view=draw(st.sampled_from(["", "S"])),
        out_view=_rarely(draw),
        index_kind=draw(st.sampled_from(["valid", "valid", "same", "padding-heavy"])),
        grad_spread=draw(st.sampled_from([0.0, 3.0, 6.0])),
        seed=draw(st.integers(0, 2**32 - 1)),
        specials=tuple(specials),
    )


@profile_settings()
@given(edb_examples())
def test_edb_kernel_and_reference_match_pytorch(example: EdbExample) -> None:
    e = example
    grad, idx = e.arrays()
    dt = np_dtype(e.out_dtype or e.grad_dtype)
    out = store = None
    if e.out_view:
        store = np.full((e.num_weights, e.dim * 2), 7.0, dtype=dt)
        out = store[:, ::2]
    elif e.out_dtype:
        out = np.zeros((e.num_weights, e.dim), dtype=dt)
    got = run_edb(e.product, grad, idx, e.num_weights, e.padding, e.scale, e.deterministic, out, e.core_order)
    assert got.dtype == dt and got.shape == (e.num_weights, e.dim)
    if store is not None:
        assert (store[:, 1::2] == 7.0).all()
        got = store[:, ::2]
    check_edb_kernel(got, grad, idx, e.num_weights, e.padding, e.scale)
    if 0 <= e.padding < e.num_weights:
        assert (got[e.padding].astype(np.float64) == 0).all()
    ref = REF_EDB.reference(grad, idx, e.num_weights, e.padding & U64, e.scale)
    exact = edb_torch(grad, idx, e.num_weights, e.padding, e.scale, torch.float64)
    bound = edb_error_model(grad, idx, e.num_weights, e.padding, e.scale) * 2.0**-28
    assert np.all(np.abs(ref - exact) <= bound)
