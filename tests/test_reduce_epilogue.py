"""The whole-tensor reduce epilogue of the elementwise family (``compute.reduce``): the loss forwards' mean
and sum, computed by the generated kernels on the emulator.

Expected values are float64 sums computed here with NumPy from the inputs (not from the code under test);
the determinism test compares the output bits of every core order and repeated runs.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from codegen.check.cases import DETERMINISM_RUNS
from codegen.paths import project_paths
from codegen.render import render_op
from codegen.runner import AclnnError, OpCallable
from codegen.spec.errors import SpecErrors
from codegen.spec.loader import load_op_spec
from codegen.spec.model import DType
from codegen.specs import load_project

CATALOGUE, SPECS = load_project()
REDUCE_OPS = sorted(
    n for n, s in SPECS.items() if s.family == "elementwise" and getattr(s.compute, "reduce", None) is not None
)
#: The per-element losses, written here independently of the specs and references (float64).
LOSSES: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "mse_loss": lambda x, t: (x - t) ** 2,
    "l1_loss": lambda x, t: np.abs(x - t),
    "soft_margin_loss": lambda x, t: np.log1p(np.exp(-t * x)),
    "smooth_l1_loss": lambda x, t: np.where(np.abs(x - t) < 1.0, 0.5 * (x - t) ** 2, np.abs(x - t) - 0.5),
    # self and target in (0, 1): see _domain
    "binary_cross_entropy": lambda x, t: -(t * np.maximum(np.log(x), -100) + (1 - t) * np.maximum(np.log1p(-x), -100)),
}


def _domain(op: str, x: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Inputs inside the op's domain: binary cross entropy takes probabilities (|x| / (1 + |x|) in [0, 1),
    which keeps the dynamic range of the loss); the others any real values."""
    if op != "binary_cross_entropy":
        return x, t
    x64, t64 = (np.abs(a.astype(np.float64)) for a in (x, t))
    return (x64 / (1 + x64)).astype(x.dtype), (t64 / (1 + t64)).astype(t.dtype)


def _inputs(n: int, dtype: type, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Large dynamic range: every 97th element of x ~1e3 (FLOAT16: ~3, so the fp16 sum stays finite) from its
    target, the rest ~1e-2."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n) * 0.01
    x[::97] = rng.standard_normal(x[::97].shape) * (1000.0 if dtype is np.float32 else 3.0)
    return x.astype(dtype), (rng.standard_normal(n) * 0.01).astype(dtype)


def test_every_loss_forward_has_the_epilogue() -> None:
    assert set(LOSSES) <= set(REDUCE_OPS)


@pytest.mark.parametrize("op", sorted(LOSSES))
@pytest.mark.parametrize("product", ["Ascend910B", "Ascend910"])
def test_reduction_is_bit_identical_over_core_orders_and_runs(
    op: str, product: str, built_op: Callable[[str, str], OpCallable]
) -> None:
    """Sum and mean of 300,007 elements (several tiles per core, a ragged tail; 48 cores on Ascend910B, one on
    Ascend910): every core order of the emulator (in order, reversed, two shuffles, concurrent) twice gives
    the same bits, and the value is the float64 sum within 1e-5 relative."""
    fn = built_op(op, product)
    for dtype in (np.float32, np.float16):
        x, t = _domain(op, *_inputs(300_007, dtype, 7))
        exact = LOSSES[op](x.astype(np.float64), t.astype(np.float64))
        for reduction, want in ((2, exact.sum()), (1, exact.mean())):
            bits = set()
            for _ in range(2):
                for order, seed in DETERMINISM_RUNS:
                    out = fn(self=x, target=t, reduction=reduction, core_order=order, seed=seed)
                    assert out.shape == ()
                    bits.add(out.tobytes())
            assert len(bits) == 1, f"{op} {dtype.__name__} reduction={reduction}: {len(bits)} different results"
            got = float(np.frombuffer(bits.pop(), dtype=dtype)[0])
            if abs(want) > float(np.finfo(dtype).max):
                assert got == np.inf  # the fp32 result rounds to an infinity of the 16-bit output
                continue
            assert abs(got - want) <= 1e-5 * abs(want) + (abs(want) * 2.0**-10 if dtype is np.float16 else 0.0)


def test_one_dma_per_input_per_tile_and_one_to_read_every_partial(built_op: Callable[[str, str], OpCallable]) -> None:
    """Mean of 1,600,003 FLOAT16 elements on Ascend910B (several tiles on each of 48 cores): each core copies
    each of its two inputs in once per tile and its partial slot out once; core 0 then reads the 48 slots
    back with one DMA (not one per core) and writes the 0-d result."""
    fn = built_op("mse_loss", "Ascend910B")
    x, t = _inputs(1_600_003, np.float16, 3)
    fn(self=x, target=t, reduction=1, core_order="in_order")
    (launch,) = fn.last_stats["launches"]
    tiling, cores = launch["tiling"], launch["cores"]
    assert len(cores) == 48
    start = 0
    for core, c in enumerate(cores):
        length = tiling["formerLength"] if core < tiling["formerNum"] else tiling["tailLength"]
        length = min(length, tiling["totalLength"] - start)
        start += length
        tiles = -(-length // tiling["tileLength"])
        assert tiles > 1
        want = 2 * tiles + 1 + (2 if core == 0 else 0)
        assert int(c["dma_transfers"]) == want, f"core {core}: {c['dma_transfers']} DMAs for {tiles} tiles"


@pytest.mark.parametrize("op", sorted(LOSSES))
def test_empty_sum_is_zero_and_mean_is_nan(op: str, built_op: Callable[[str, str], OpCallable]) -> None:
    fn = built_op(op, "Ascend910B")
    empty = np.zeros((3, 0), dtype=np.float32)
    assert float(fn(self=empty, target=empty, reduction=2)) == 0.0
    assert np.isnan(fn(self=empty, target=empty, reduction=1))
    assert fn(self=empty, target=empty, reduction=0).shape == (3, 0)


@pytest.mark.parametrize("op", sorted(LOSSES))
def test_out_shape_follows_the_reduction(op: str, built_op: Callable[[str, str], OpCallable]) -> None:
    """CANN's rule: out has the broadcast shape for reduction 0 and is 0-d for 1 and 2; anything else, and a
    reduction outside 0..2, is ACLNN_ERR_PARAM_INVALID (161002)."""
    fn = built_op(op, "Ascend910B")
    x = np.linspace(0.05, 0.95, 12, dtype=np.float32).reshape(3, 4)
    # a target broadcast to self's shape (binary cross entropy requires self's shape)
    t = np.full((3, 4) if op == "binary_cross_entropy" else (4,), 0.25, dtype=np.float32)
    assert fn(self=x, target=t, reduction=0, out=np.zeros((3, 4), np.float32)).shape == (3, 4)
    for reduction in (1, 2):
        assert fn(self=x, target=t, reduction=reduction, out=np.zeros((), np.float32)).shape == ()
        for bad in ((3, 4), (1,)):
            with pytest.raises(AclnnError) as err:
                fn(self=x, target=t, reduction=reduction, out=np.zeros(bad, np.float32))
            assert err.value.status == 161002
    with pytest.raises(AclnnError) as err:
        fn(self=x, target=t, reduction=0, out=np.zeros((), np.float32))
    assert err.value.status == 161002
    for bad_reduction in (3, -1):
        with pytest.raises(AclnnError) as err:
            fn(self=x, target=t, reduction=bad_reduction, out=np.zeros((), np.float32))
        assert err.value.status == 161002


@pytest.mark.parametrize("op", ["mse_loss", "soft_margin_loss"])
def test_a_wrong_out_shape_names_the_one_reduction_mode(op: str, built_op: Callable[[str, str], OpCallable]) -> None:
    """The message for a non-0-d out names the mode of the reduction value given (1 mean, 2 sum, the names
    of the attr's ``values``), not both."""
    fn = built_op(op, "Ascend910B")
    x = np.linspace(0.05, 0.95, 12, dtype=np.float32).reshape(3, 4)
    for reduction, mode in ((1, "mean"), (2, "sum")):
        with pytest.raises(AclnnError) as err:
            fn(self=x, target=x, reduction=reduction, out=np.zeros((3, 4), np.float32))
        assert err.value.status == 161002
        assert f"out must be 0-d when reduction is {reduction} ({mode}), but has shape [3, 4]." in err.value.message
        assert "mean or sum" not in err.value.message


def test_the_reduction_mode_names_come_from_the_spec(tmp_path: Path) -> None:
    """The mode names of that message follow the spec (here mean is 2 and sum is 1), not a per-op constant."""
    text = (project_paths().specs / "mse_loss.yaml").read_text()
    edited = text.replace("values: {0: none, 1: mean, 2: sum}", "values: {0: none, 1: sum, 2: mean}", 1).replace(
        "reduce: {attr: reduction, none: 0, mean: 1, sum: 2}", "reduce: {attr: reduction, none: 0, mean: 2, sum: 1}", 1
    )
    assert edited.count("1: sum, 2: mean") == 1 and edited.count("mean: 2, sum: 1") == 1
    path = tmp_path / "mse_loss.yaml"
    path.write_text(edited)
    source = render_op(load_op_spec(path, CATALOGUE), CATALOGUE, project_paths()).files["op_api/aclnn_mse_loss.cpp"]
    assert source.count('reduction == 2 ? "mean" : "sum"') == 1
    assert "(mean or sum)" not in source


@pytest.mark.parametrize(
    ("reduce", "field", "message"),
    [
        ("{attr: reductio, none: 0, mean: 1, sum: 2}", "compute.reduce.attr", "'reductio' is not an attr"),
        ("{attr: reduction, none: 0, mean: 1, sum: 5}", "compute.reduce.sum", "5 is not a declared value"),
        ("{attr: reduction, none: 0, mean: 1, sum: 1}", "compute.reduce.sum", "already the value"),
        ("{attr: reduction, none: 0, mean: 1}", "compute.reduce", "sum"),
        ("[reduction]", "compute.reduce", "mapping"),
    ],
)
def test_bad_reduce_epilogue_is_a_spec_error(tmp_path: Path, reduce: str, field: str, message: str) -> None:
    """A wrong ``compute.reduce`` names the file, line and field, and nothing loads."""
    text = (project_paths().specs / "mse_loss.yaml").read_text()
    anchor = "  reduce: {attr: reduction, none: 0, mean: 1, sum: 2}\n"
    assert anchor in text
    path = tmp_path / "mse_loss.yaml"
    path.write_text(text.replace(anchor, f"  reduce: {reduce}\n"))
    with pytest.raises(SpecErrors) as err:
        load_op_spec(path, CATALOGUE)
    text_errors = [str(e) for e in err.value.errors]
    line = text.splitlines().index(anchor.rstrip("\n")) + 1
    assert any(f"mse_loss.yaml:{line}" in e and field in e and message in e for e in text_errors), text_errors


def _edited_mse_errors(tmp_path: Path, old: str, new: str) -> tuple[str, list[str]]:
    text = (project_paths().specs / "mse_loss.yaml").read_text()
    assert old in text
    edited = text.replace(old, new, 1)
    path = tmp_path / "mse_loss.yaml"
    path.write_text(edited)
    with pytest.raises(SpecErrors) as err:
        load_op_spec(path, CATALOGUE)
    return edited, [str(e) for e in err.value.errors]


def test_a_declared_reduction_value_the_epilogue_does_not_map_is_a_spec_error(tmp_path: Path) -> None:
    """A value the attr declares but ``compute.reduce`` does not map would reach the kernel as neither none nor
    a reduction (it wrote the elementwise result into the 0-d out); the spec names the attr instead."""
    edited, errors = _edited_mse_errors(
        tmp_path, "values: {0: none, 1: mean, 2: sum}", "values: {0: none, 1: mean, 2: sum, 3: batchmean}"
    )
    line = next(i for i, s in enumerate(edited.splitlines(), 1) if s.startswith("  reduce:"))
    assert any(f"mse_loss.yaml:{line}" in e and "compute.reduce.attr" in e and "declares 3" in e for e in errors), (
        errors
    )


def test_a_reduce_output_whose_rank_excludes_0_d_is_a_spec_error(tmp_path: Path) -> None:
    """Mean and sum return a 0-d tensor, so the output's rank rule must allow rank 0."""
    text = (project_paths().specs / "mse_loss.yaml").read_text()
    outputs = text[text.index("outputs:") :]
    old = outputs[: outputs.index("shape:")]
    assert "rank: [0, 8]" in old
    _, errors = _edited_mse_errors(tmp_path, old, old.replace("rank: [0, 8]", "rank: [1, 8]"))
    assert any("compute.reduce" in e and "rank must start at 0" in e for e in errors), errors


@pytest.mark.parametrize(
    ("old", "new", "field", "message"),
    [
        (
            "    description: The loss; the broadcast shape for reduction 0, else 0-d.\n",
            "    description: The loss.\n"
            "  - {name: out2, dtypes: [FLOAT, FLOAT16, BF16], shape: self, description: x}\n",
            "outputs",
            "several outputs are supported by the row_reduce family only",
        ),
        (
            "deterministic: true\n",
            "deterministic: true\nshape_status: 561002\n",
            "shape_status",
            "row_reduce family only",
        ),
    ],
)
def test_what_the_elementwise_family_does_not_honour_is_a_spec_error(
    tmp_path: Path, old: str, new: str, field: str, message: str
) -> None:
    """Several outputs and ``shape_status`` were accepted by an elementwise spec and then ignored or broken (a
    KeyError in the runner, an OpDef with one output too few); both are spec errors naming the field."""
    edited, errors = _edited_mse_errors(tmp_path, old, new)
    key = field.split(".")[0]
    line = next(i for i, s in enumerate(edited.splitlines(), 1) if s.startswith(f"{key}:"))
    assert any(f"mse_loss.yaml:{line}" in e and field in e and message in e for e in errors), errors


def test_smooth_l1_loss_is_finite_for_a_tiny_beta(built_op: Callable[[str, str], OpCallable]) -> None:
    """For beta below about 2.94e-39, 1 / beta overflows fp32; the quadratic branch of d = 0 then gave NaN. The
    values here are by hand: |d| < beta gives 0.5 d^2 / beta (0 in fp32 for these d), else |d| - beta / 2."""
    fn = built_op("smooth_l1_loss", "Ascend910B")
    x = np.array([0.0, 1e-45, 0.5, 3.0], np.float32)
    zeros = np.zeros(4, np.float32)
    got = fn(self=x, target=zeros, reduction=0, beta=1e-39, out=np.zeros(4, np.float32))
    assert got.tolist() == [0.0, 0.0, 0.5, 3.0]
    mean = fn(self=x, target=zeros, reduction=1, beta=1e-39, out=np.zeros((), np.float32))
    assert float(mean) == 0.875


def test_reduce_cases_include_inputs_inside_every_log_domain() -> None:
    """A cross entropy's inputs drawn from N(0, 2) lie mostly outside [0, 1], so its sums are NaN and hide any
    combine error; the family adds cases with every input in (0, 1), whose reference sum is finite, and runs
    the uneven few-cores one over every core order."""
    from codegen import registry

    spec = SPECS["binary_cross_entropy"]
    cases = registry.family("elementwise").check_cases(spec, CATALOGUE.get("Ascend910B"), [DType.FLOAT], True)
    unit = [c for c in cases if "inputs in (0, 1)" in c.name and "(none)" not in c.name]
    assert len(unit) == 5  # tile+1 and several cores for mean and sum, several tiles per core for the sum
    for c in unit:
        for name in ("self", "target", "weight"):
            a = np.asarray(c.params[name])
            assert a.min() > 0 and a.max() < 1
    assert (
        sorted(c.name.split(") ", 1)[1].split(" [")[0] for c in unit if "multicore" in c.tags)
        == ["inputs in (0, 1) several cores, uneven tail"] * 2
    )


def test_a_host_condition_in_a_reduce_formula_is_a_spec_error(tmp_path: Path) -> None:
    """A where on host values only compiles to one program per value (a branch per tile), which the reduce
    epilogue's accumulation does not follow: rendering names the formula's file, line and field."""
    text = (project_paths().specs / "mse_loss.yaml").read_text()
    old = '  out: "(self - target) * (self - target)"'
    assert old in text
    path = tmp_path / "mse_loss.yaml"
    path.write_text(
        text.replace(old, '  out: "where(reduction == 1, self - target, (self - target) * (self - target))"')
    )
    with pytest.raises(SpecErrors) as err:
        render_op(load_op_spec(path, CATALOGUE), CATALOGUE, project_paths())
    line = text.splitlines().index("compute:") + 1
    assert any(
        f"mse_loss.yaml:{line}: compute.out:" in str(e) and "host condition" in str(e) for e in err.value.errors
    ), str(err.value)
