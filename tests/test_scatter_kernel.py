"""The element scatter-add of templates/common/scatter_kernel.j2 (``ScatterOwnedSum``, ``ScatterAtomicSum``) run
on the plans of codegen.plan.scatter, compiled against the emulated AscendC: values against
``torch.Tensor.scatter_add`` (bit for bit where one core sums each element in index order, within a derived
bound for atomic adds), duplicate indices and both ends of the range, hostile index values (never an emulator
fault, never a change), every core order, Ascend910B and Ascend910 (no DataCopyPad), and the GM bytes the
emulator counts against :func:`codegen.plan.scatter.gm_traffic`."""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

from codegen.build.library import _runtime_objects, _tree_digest
from codegen.build.toolchain import BASE_FLAGS
from codegen.paths import project_paths
from codegen.plan.scatter import ScatterPlan, ScatterView, gm_traffic, plan_scatter, scatter_view
from codegen.render import make_environment

ROOT = Path(__file__).resolve().parents[1]
RUNTIME = ROOT / "runtime"

#: A kernel entry around ScatterOwnedSum / ScatterAtomicSum and a main that reads "product dtype indexDtype
#: strategy order seed windowLen tileLen cores scaled" from argv and from stdin the view's 47 int64 words, 4 int64
#: per core (ownBegin ownEnd indexBegin indexEnd), then self, index, src and (scaled) alpha; it writes out to stdout and
#: "ok" (or the fault) and per core "gmRead gmWritten gmAtomic" to stderr.
PROGRAM = """
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "harness.h"
#include "kernel_operator.h"

using namespace AscendC;

constexpr int64_t BLOCK_BYTES = 32;
{{ copies.copy_gm_to_ub("__NPU_ARCH__ == 1001") }}
{{ copies.copy_ub_to_gm("__NPU_ARCH__ == 1001") }}
{{ sk.scatter_view_struct() }}
{{ sk.scatter_sum_classes() }}

struct Tiling {
  ScatterView view;
  int64_t strategy;  // 0 owned, 1 atomic
  int64_t windowLen;
  int64_t tileLen;
  int64_t scaled;  // 1: args[5] holds alpha (a row scatter's factor)
  int64_t ranges[64][4];
};

template <typename T, typename TIndex>
void Entry(uint8_t **args) {
  Tiling t;
  std::memcpy(&t, args[4], sizeof(t));
  const int64_t *r = t.ranges[GetBlockIdx()];
  uint8_t *alpha = t.scaled != 0 ? args[5] : nullptr;
  if (t.strategy == 0) {
    ScatterOwnedSum<T, TIndex> op;
    op.Init(args[0], args[1], args[2], alpha, args[3], t.view, r[0], r[1], t.windowLen, t.tileLen);
    op.Process();
  } else {
    ScatterAtomicSum<T, TIndex> op;
    op.Init(args[0], args[1], args[2], alpha, args[3], t.view, r[0], r[1], r[2], r[3], t.windowLen, t.tileLen);
    op.Process();
  }
}

template <typename T>
opgen_rt::KernelEntry Pick(int indexDtype) {
  return indexDtype == 0 ? Entry<T, int32_t> : Entry<T, int64_t>;
}

int main(int argc, char **argv) {
  (void)argc;
  th::UseProduct(std::atoi(argv[1]) == 0 ? th::Ascend910B() : th::Ascend910());
  const int dtype = std::atoi(argv[2]);  // 0 float, 1 half, 2 bfloat16_t, 3 int32, 4 int8
  const int indexDtype = std::atoi(argv[3]);  // 0 int32, 1 int64
  static Tiling t;
  t.strategy = std::atoll(argv[4]);
  opgen_rt::SetCoreOrder(static_cast<opgen_rt::CoreOrder>(std::atoi(argv[5])), std::strtoull(argv[6], nullptr, 10));
  t.windowLen = std::atoll(argv[7]);
  t.tileLen = std::atoll(argv[8]);
  const int64_t cores = std::atoll(argv[9]);
  t.scaled = std::atoll(argv[10]);
  if (std::fread(&t.view, sizeof(int64_t), 47, stdin) != 47 ||
      std::fread(t.ranges, sizeof(int64_t), static_cast<size_t>(4 * cores), stdin) != static_cast<size_t>(4 * cores)) {
    return 3;
  }
  const int64_t size = dtype <= 0 || dtype == 3 ? 4 : dtype == 4 ? 1 : 2;
  const int64_t indexSize = indexDtype == 0 ? 4 : 8;
  th::Gm self(static_cast<uint64_t>(t.view.outNum * size), "input 0 (self)", false);
  th::Gm index(static_cast<uint64_t>(t.view.indexLen * indexSize), "input 1 (index)", false);
  th::Gm src(static_cast<uint64_t>(t.view.srcNum * size), "input 2 (src)", false);
  th::Gm alpha(static_cast<uint64_t>(t.scaled != 0 ? size : 0), "input 3 (alpha)", false);
  th::Gm out(static_cast<uint64_t>(t.view.outNum * size), "output 0 (out)");
  th::Gm tiling(sizeof(t), "tiling", false);
  for (th::Gm *g : {&self, &index, &src, &alpha}) {
    if (g->bytes > 0 && std::fread(g->data(), 1, g->bytes, stdin) != g->bytes) {
      return 4;
    }
  }
  std::memset(out.data(), 0xA5, out.bytes);  // what the kernel does not write shows
  std::memcpy(tiling.data(), &t, sizeof(t));
  th::KernelLaunch k;
  k.name = "scatter_add";
  k.entry = dtype == 0   ? Pick<float>(indexDtype)
            : dtype == 1 ? Pick<half>(indexDtype)
            : dtype == 2 ? Pick<bfloat16_t>(indexDtype)
            : dtype == 3 ? Pick<int32_t>(indexDtype)
                         : Pick<int8_t>(indexDtype);
  k.args = {&self, &index, &src, &out, &tiling, &alpha};
  k.blockDim = static_cast<uint32_t>(cores);
  const opgen_rt::LaunchResult r = th::Run(k);
  std::fwrite(out.data(), 1, out.bytes, stdout);
  std::fprintf(stderr, "%s\\n", r.ok ? "ok" : r.fault.c_str());
  for (const opgen_rt::CoreStats &s : r.cores) {
    std::fprintf(stderr, "%llu %llu %llu\\n", static_cast<unsigned long long>(s.gmBytesRead),
                 static_cast<unsigned long long>(s.gmBytesWritten),
                 static_cast<unsigned long long>(s.gmBytesAtomicAdded));
  }
  return 0;
}
"""

#: argv code and torch dtype of each dtype the test runs.
DTYPES = {
    "FLOAT": (0, torch.float32),
    "FLOAT16": (1, torch.float16),
    "BF16": (2, torch.bfloat16),
    "INT32": (3, torch.int32),
    "INT8": (4, torch.int8),
}
#: Vector cores and UB bytes per core (specs/products.yaml).
PRODUCTS = {"Ascend910B": (0, 48, 196608, True), "Ascend910": (1, 32, 262144, False)}
ORDERS = (0, 1, 2, 3)  # IN_ORDER, REVERSED, SHUFFLE, CONCURRENT


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The compiled program per product (its ``__NPU_ARCH__`` and DataCopyPad switch; both compile at once),
    linked with the runtime objects every op library build shares."""
    env = make_environment(ROOT / "templates")
    source = env.from_string(
        '{% import "common/scatter_kernel.j2" as sk %}{% import "common/kernel_copy.j2" as copies %}' + PROGRAM
    ).render()
    work = tmp_path_factory.mktemp("scatter_kernel")
    (work / "scatter_add.cpp").write_text(source)
    paths = project_paths()
    digest = _tree_digest([paths.runtime / "include", paths.runtime / "src"])
    objects = [o for o in _runtime_objects(paths, list(BASE_FLAGS), digest, 2) if o.name != "host__c_api.o"]
    includes = [f"-I{RUNTIME / 'include'}", f"-I{RUNTIME / 'tests_device'}"]
    sources = [work / "scatter_add.cpp", RUNTIME / "tests_device" / "harness.cpp"]
    binaries, jobs = {}, []
    for product, (arch, pad) in {"Ascend910B": (2201, 1), "Ascend910": (1001, 0)}.items():
        binaries[product] = work / f"scatter_add_{arch}"
        defines = [f"-D__NPU_ARCH__={arch}", f"-DOPGEN_HAS_DATACOPYPAD={pad}"]
        command = [*BASE_FLAGS, "-O0", "-Werror", *defines, *includes, *map(str, [*sources, *objects])]
        jobs.append(subprocess.Popen(["g++", *command, "-o", str(binaries[product]), "-ldl"]))
    assert [j.wait() for j in jobs] == [0, 0]
    return binaries


def _run(
    program: dict[str, Path],
    product: str,
    plan: ScatterPlan,
    view: ScatterView,
    tensors: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
    order: int,
    seed: int = 0,
    alpha: torch.Tensor | None = None,
) -> tuple[torch.Tensor, str, list[tuple[int, int, int]]]:
    """Runs the plan: ``out`` (self's shape and dtype), the launch's status line and per core (GM bytes read,
    written, atomically added). ``alpha``: a one-element tensor of self's dtype (a row scatter's factor)."""
    self_t, index_t, _ = tensors
    if alpha is not None:
        tensors = (*tensors, alpha.reshape(1))
    words = struct.pack(f"<{len(view.words())}q", *view.words())
    words += b"".join(struct.pack("<4q", c.own_begin, c.own_end, c.index_begin, c.index_end) for c in plan.cores)
    raw = b"".join(t.contiguous().view(torch.uint8).numpy().tobytes() for t in tensors)
    argv = [
        PRODUCTS[product][0],
        DTYPES[_name(self_t.dtype)][0],
        0 if index_t.dtype == torch.int32 else 1,
        0 if plan.strategy == "owned" else 1,
        order,
        seed,
        plan.window_len,
        plan.tile_len,
        len(plan.cores),
        0 if alpha is None else 1,
    ]
    proc = subprocess.run([str(program[product]), *map(str, argv)], input=words + raw, capture_output=True, check=True)
    lines = proc.stderr.decode().splitlines()
    out = torch.frombuffer(bytearray(proc.stdout), dtype=torch.uint8).view(self_t.dtype).reshape(self_t.shape)
    return out, lines[0], [tuple(int(v) for v in line.split()) for line in lines[1:]]  # type: ignore[misc]


def _name(dtype: torch.dtype) -> str:
    return next(k for k, (_, d) in DTYPES.items() if d == dtype)


def _plan(
    product: str, view: ScatterView, dtype: torch.dtype, index_dtype: torch.dtype, deterministic: bool, **sizes: int
) -> ScatterPlan:
    _, cores, ub, pad = PRODUCTS[product]
    itemsize = torch.empty((), dtype=dtype).element_size()
    return plan_scatter(
        view,
        itemsize,
        4 if index_dtype == torch.int32 else 8,
        core_num=cores,
        ub_bytes=ub,
        data_copy_pad=pad,
        atomic_add=dtype != torch.int8 or product == "Ascend910B",
        deterministic=deterministic,
        sum_itemsize=4 if dtype in (torch.float16, torch.bfloat16) else 0,
        **sizes,
    )


def _tensors(
    self_shape: tuple[int, ...],
    index_shape: tuple[int, ...],
    src_shape: tuple[int, ...],
    dim: int,
    dtype: torch.dtype,
    index_dtype: torch.dtype,
    seed: int,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Random self and src, and an index with duplicates whose values include 0 and A - 1 (both ends)."""
    g = torch.Generator().manual_seed(seed)
    a = self_shape[dim]

    def values(shape: tuple[int, ...]) -> torch.Tensor:
        if dtype.is_floating_point:
            return (torch.rand(shape, generator=g, dtype=torch.float64) * 200 - 100).to(dtype)
        return torch.randint(-100, 100, shape, generator=g, dtype=torch.int64).to(dtype)

    index = torch.randint(0, a, index_shape, generator=g, dtype=torch.int64)
    flat = index.view(-1)
    if flat.numel() >= 4:
        flat[0], flat[1], flat[-1], flat[-2] = 0, a - 1, a - 1, 0
    return values(self_shape), index.to(index_dtype), values(src_shape)


def _bound(self_t: torch.Tensor, index: torch.Tensor, src: torch.Tensor, dim: int) -> torch.Tensor:
    """Per element of out, the largest error of a sum of its terms in any order, each add rounded once to the
    dtype: (terms - 1) * eps * sum of |terms| (a standard bound of recursive summation)."""
    eps = torch.finfo(self_t.dtype).eps
    count = torch.ones_like(self_t, dtype=torch.float64).scatter_add(
        dim, index.long(), torch.ones(index.shape, dtype=torch.float64)
    )
    mag = (
        self_t.double()
        .abs()
        .scatter_add(dim, index.long(), src.double()[tuple(slice(0, n) for n in index.shape)].abs())
    )
    return (count - 1) * eps * mag


CASES = [
    # self, index, src, dim: dim 0 (every window reads the index), last dim, a middle dim, index smaller than
    # self and src outside dim, 1-d, many duplicates
    ((300, 20), (500, 20), (500, 24), 0),
    ((7, 9, 130), (7, 9, 400), (8, 9, 400), 2),
    ((6, 50, 5, 3), (4, 120, 5, 2), (5, 120, 6, 2), 1),
    ((1000,), (3000,), (3000,), 0),
    ((3,), (2000,), (2001,), 0),
]


@pytest.mark.parametrize(
    ("shapes", "dtype"),
    [(CASES[0], "FLOAT"), (CASES[1], "FLOAT16"), (CASES[2], "BF16"), (CASES[3], "INT32"), (CASES[4], "INT8")],
)
def test_owned_is_scatter_add_bit_for_bit(program: dict[str, Path], shapes: tuple, dtype: str) -> None:
    """The deterministic strategy equals torch's CPU scatter_add bit for bit (one core adds each element's terms
    in index order, each add rounded to the dtype as torch rounds them) under every core order, on Ascend910B
    with small windows and tiles (several windows per core) and on Ascend910 (no DataCopyPad), and moves the
    GM bytes codegen.plan.scatter.gm_traffic models."""
    self_shape, index_shape, src_shape, dim = shapes
    torch_dtype = DTYPES[dtype][1]
    index_dtype = torch.int32 if dtype in ("FLOAT", "INT8") else torch.int64
    tensors = _tensors(self_shape, index_shape, src_shape, dim, torch_dtype, index_dtype, seed=len(self_shape))
    self_t, index_t, src_t = tensors
    want = self_t.scatter_add(dim, index_t.long(), src_t)
    view = scatter_view(self_shape, index_shape, src_shape, dim)
    itemsize = self_t.element_size()
    runs = [("Ascend910B", {"window_len": 128 // itemsize * 3, "tile_len": 50})]
    if dtype != "BF16":  # Ascend910 has no bf16
        runs.append(("Ascend910", {}))
    for product, sizes in runs:
        plan = _plan(product, view, torch_dtype, index_dtype, deterministic=True, **sizes)
        assert plan.strategy == "owned"
        orders = ORDERS if product == "Ascend910B" else (3,)
        for order in orders:
            out, status, stats = _run(program, product, plan, view, tensors, order, seed=7)
            assert status == "ok", (product, order, status)
            assert torch.equal(out.view(torch.uint8), want.view(torch.uint8)), (product, order)
        modelled, minimum = gm_traffic(plan, view, itemsize, index_t.element_size())
        assert sum(s[0] + s[1] for s in stats) == modelled
        assert modelled >= minimum


def test_atomic_within_bound_and_reads_index_once(program: dict[str, Path]) -> None:
    """The atomic strategy (Ascend910B, FLOAT, the caller not asking for determinism): within the derived bound
    of torch's scatter_add under every core order (the sequential orders give different bits: the adds'
    order follows the cores), index and src read once, one atomic add per index element, as gm_traffic models."""
    self_shape, index_shape, src_shape, dim = (64, 40), (900, 40), (900, 40), 0
    tensors = _tensors(self_shape, index_shape, src_shape, dim, torch.float32, torch.int64, seed=3)
    self_t, index_t, src_t = tensors
    want = self_t.scatter_add(dim, index_t.long(), src_t)
    view = scatter_view(self_shape, index_shape, src_shape, dim)
    plan = _plan("Ascend910B", view, torch.float32, torch.int64, deterministic=False, tile_len=100)
    assert plan.strategy == "atomic" and "determinism" in plan.reason
    results = []
    for order in ORDERS:
        out, status, stats = _run(program, "Ascend910B", plan, view, tensors, order, seed=11)
        assert status == "ok", (order, status)
        err = (out.double() - want.double()).abs()
        assert bool((err <= _bound(self_t, index_t, src_t, dim)).all()), (order, float(err.max()))
        results.append(out)
        assert sum(s[2] for s in stats) == index_t.numel() * 4
        modelled, minimum = gm_traffic(plan, view, 4, 8)
        assert sum(s[0] + s[1] + s[2] for s in stats) == modelled == minimum + index_t.numel() * 4
    assert not all(torch.equal(results[0], r) for r in results[1:3])


@pytest.mark.parametrize("strategy", ["owned", "atomic"])
def test_hostile_indices_change_nothing(program: dict[str, Path], strategy: str) -> None:
    """Index values outside [0, A) (-1, A, A + 1, the dtype's extremes, 2^32 + k) add nothing and never fault
    (the emulator checks every GM access against its tensor); the valid ones around them still add."""
    a = 10
    bad = [-1, a, a + 1, -(2**63), 2**63 - 1, 2**32 + 3, -(2**31) - 1, 2**31]
    index = torch.tensor([[v if i % 2 == 0 else i % a for v in bad] for i in range(8)], dtype=torch.int64).T
    self_t = torch.arange(a * 8, dtype=torch.float32).reshape(a, 8)
    src_t = torch.full((len(bad), 8), 0.5)
    view = scatter_view((a, 8), tuple(index.shape), tuple(src_t.shape), 0)
    plan = _plan("Ascend910B", view, torch.float32, torch.int64, deterministic=strategy == "owned")
    assert plan.strategy == strategy
    out, status, _ = _run(program, "Ascend910B", plan, view, (self_t, index, src_t), 3)
    assert status == "ok", status
    valid = (index >= 0) & (index < a)
    want = self_t.scatter_add(0, torch.where(valid, index, 0), torch.where(valid, src_t, 0.0))
    assert torch.equal(out, want)


def test_plan_choices() -> None:
    """The planner takes atomic only where it is allowed, says why otherwise, splits out in whole 64-byte lines
    and refuses a window that is not whole lines."""
    view = scatter_view((100, 30), (50, 30), (50, 30), 0)
    base = {"core_num": 48, "ub_bytes": 196608, "data_copy_pad": True, "atomic_add": True}
    assert plan_scatter(view, 4, 8, deterministic=False, **base).strategy == "atomic"
    det = plan_scatter(view, 4, 8, deterministic=True, **base)
    assert det.strategy == "owned" and "deterministic" in det.reason
    nopad = plan_scatter(view, 4, 8, deterministic=False, **{**base, "data_copy_pad": False})
    assert nopad.strategy == "owned" and "DataCopyPad" in nopad.reason
    assert all(c.own_begin % 16 == 0 for c in det.cores) and det.cores[-1].own_end == 3000
    assert len(det.cores) == 48
    with pytest.raises(ValueError, match="lines"):
        plan_scatter(view, 4, 8, deterministic=True, window_len=10, **base)
    with pytest.raises(ValueError, match="above"):
        scatter_view((4, 4), (5, 4), (5, 4), 1)
    assert np.prod(view.extents) == 1500


def _sequential_rows(
    self_t: torch.Tensor, index: torch.Tensor, src: torch.Tensor, axis: int, alpha: torch.Tensor
) -> torch.Tensor:
    """index_add in float32 done one slice at a time in index order, each ``alpha * x`` and each add rounded
    once (NumPy, no fused multiply-add): what one core summing each element in index order computes."""
    out = self_t.numpy().copy()
    a, factor = out.shape[axis], np.float32(alpha.item())
    for k, position in enumerate(index.tolist()):
        if 0 <= position < a:
            target = np.take(out, position, axis=axis)
            term = np.float32(factor) * np.take(src.numpy(), k, axis=axis)
            place = [slice(None)] * out.ndim
            place[axis] = position
            out[tuple(place)] = (target + term).astype(np.float32)
    return torch.from_numpy(out)


@pytest.mark.parametrize(
    ("shape", "dim", "dtype", "strategy"),
    [
        ((40, 30), 0, "FLOAT", "owned"),
        ((40, 30), 0, "FLOAT", "atomic"),
        ((5, 12, 9), 1, "FLOAT16", "owned"),
        ((6, 4, 33), -1, "INT32", "owned"),
        ((6, 4, 33), -1, "INT32", "atomic"),
    ],
)
def test_row_scatter_is_index_add(program: dict[str, Path], shape: tuple, dim: int, dtype: str, strategy: str) -> None:
    """A row scatter (``scatter_view(rows=True)``, a 1-d index read at the walk's coordinate along dim, src's
    elements times alpha) against torch's ``index_add(dim, index, source, alpha=alpha)``, with repeated
    positions and both ends, under every core order: bit for bit for INT32 (torch) and for the owned FLOAT run
    (one core sums each element in index order, each ``alpha * x`` and each add rounded once: a sequential
    float32 loop); FLOAT16 within one ULP of the float64 result (summed in float, rounded once); FLOAT's atomic
    adds within the derived bound. Index values outside [0, A) (-1, A, 2^32 + 1) add nothing, never fault."""
    torch_dtype = DTYPES[dtype][1]
    axis = dim % len(shape)
    a, k = shape[axis], 3 * shape[axis] + 2
    g = torch.Generator().manual_seed(5)
    index = torch.randint(0, a, (k,), generator=g, dtype=torch.int64)
    index[:4] = torch.tensor([0, a - 1, a - 1, 0])
    index[-3:] = torch.tensor([-1, a, 2**32 + 1])
    src_shape = tuple(k if i == axis else e for i, e in enumerate(shape))
    if torch_dtype.is_floating_point:
        self_t = (torch.rand(shape, generator=g, dtype=torch.float64) * 20 - 10).to(torch_dtype)
        src_t = (torch.rand(src_shape, generator=g, dtype=torch.float64) * 20 - 10).to(torch_dtype)
        alpha = torch.tensor(-1.5, dtype=torch_dtype)
    else:
        self_t = torch.randint(-100, 100, shape, generator=g).to(torch_dtype)
        src_t = torch.randint(-100, 100, src_shape, generator=g).to(torch_dtype)
        alpha = torch.tensor(-3, dtype=torch_dtype)
    valid = (index >= 0) & (index < a)
    keep = valid.nonzero().view(-1)
    want = self_t.index_add(axis, index[keep], src_t.index_select(axis, keep), alpha=alpha.item())
    view = scatter_view(shape, (k,), src_shape, dim, rows=True)
    plan = _plan("Ascend910B", view, torch_dtype, torch.int64, deterministic=strategy == "owned", tile_len=7)
    assert plan.strategy == strategy
    outs = []
    for order in ORDERS:
        out, status, stats = _run(program, "Ascend910B", plan, view, (self_t, index, src_t), order, seed=3, alpha=alpha)
        assert status == "ok", (order, status)
        outs.append(out)
        # the modelled GM bytes beside one read of alpha per core; an element of the walk whose index is
        # invalid reads no src element and (atomic) adds nothing
        item = self_t.element_size()
        modelled, minimum = gm_traffic(plan, view, item, 8)
        bad = int((~valid).sum()) * (src_t.numel() // k) * item * (2 if strategy == "atomic" else 1)
        moved = sum(s[0] + s[1] + s[2] for s in stats) - len(plan.cores) * item
        assert minimum <= modelled and moved == modelled - bad, (order, moved, modelled, bad)
        if not torch_dtype.is_floating_point:
            assert torch.equal(out, want), order
        elif strategy == "owned" and dtype == "FLOAT":
            assert torch.equal(out, _sequential_rows(self_t, index, src_t, axis, alpha)), order
        elif dtype == "FLOAT16":
            exact = self_t.double().index_add(axis, index[keep], src_t.double().index_select(axis, keep), alpha=-1.5)
            # summed in float32 and rounded once: within one FLOAT16 ULP of the exact sum (2**-10 relative)
            assert bool(((out.double() - exact).abs() <= exact.abs().clamp(min=1.0) * 2.0**-10).all()), order
        else:
            terms = (src_t.index_select(axis, keep).double() * 1.5).abs()
            count = torch.zeros_like(self_t, dtype=torch.float64).index_add(axis, index[keep], torch.ones_like(terms))
            mag = self_t.double().abs().index_add(axis, index[keep], terms)
            assert bool(((out.double() - want.double()).abs() <= count * torch.finfo(torch.float32).eps * mag).all())
    if strategy == "owned":
        assert all(torch.equal(outs[0], o) for o in outs[1:])
