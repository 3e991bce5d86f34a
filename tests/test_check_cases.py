"""The check matrix covers free-valued attributes at several values, and the Python API checks attribute
values against their C types before they reach ctypes (where they would wrap silently)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import codegen
from codegen.check.cases import attr_candidates
from codegen.families.elementwise.cases.planner_facts import _multicore_length
from codegen.families.elementwise.cases.suite import elementwise_cases
from codegen.runner.arguments import attr_value
from codegen.spec.errors import NO_LOC
from codegen.spec.expr import INT64_MAX, INT64_MIN, parse_expr
from codegen.spec.model import AttrSpec, Constraint
from codegen.specs import load_project

OP = "soft_margin_loss_backward"


def _attr(type_: str, default: int | None) -> AttrSpec:
    return AttrSpec("mode", type_, None, default, "a free-valued attr", NO_LOC)


def test_free_integer_attrs_run_at_their_default_boundaries_and_typical_values() -> None:
    assert attr_candidates(_attr("int64", 3)) == [3, 0, 1, -1, 2, 7, -3, 1000, INT64_MAX, INT64_MIN]
    assert attr_candidates(_attr("int64", None)) == [0, 1, -1, 2, 7, -3, 1000, INT64_MAX, INT64_MIN]
    assert attr_candidates(_attr("uint64", 1)) == [1, 0, 2, 7, 1000, INT64_MAX, 2**64 - 1]


def test_the_matrix_runs_every_value_a_constraint_accepts() -> None:
    catalogue, specs = load_project()
    base = specs[OP]
    positive = Constraint(
        "mode_positive", base.products, None, (), parse_expr("mode > 0", NO_LOC, "require"), "mode {mode}"
    )
    spec = dataclasses.replace(base, attrs=(*base.attrs, _attr("int64", 2)), constraints=(positive,))
    product = catalogue.get("Ascend910B")
    from codegen.spec.model import DType

    cases = list(elementwise_cases(spec, product, [DType.FLOAT], True, lambda d: 4096))
    runs = [c.name for c in cases if c.shape == "attr" and c.name.startswith("mode=")]
    assert runs == [f"mode={v} [4, 33]" for v in (2, 1, 7, 1000, INT64_MAX)]
    # every other case uses the default
    assert {c.params["mode"] for c in cases if c.shape != "attr" and c.expect_status is None and c.mode is None} == {2}


def test_attr_values_are_checked_against_their_c_types() -> None:
    _, specs = load_project()
    spec = specs["embedding_dense_backward"]
    num_weights = spec.attr("numWeights")  # uint64
    assert attr_value(spec, num_weights, np.uint64(2**64 - 1)) == 2**64 - 1
    with pytest.raises(
        ValueError, match=r"attribute 'numWeights' \(uint64\) must be in \[0, 18446744073709551615\], got -1"
    ):
        attr_value(spec, num_weights, -1)
    with pytest.raises(ValueError, match=r"got 18446744073709551616; it would wrap in C"):
        attr_value(spec, num_weights, 2**64)
    with pytest.raises(TypeError, match=r"'numWeights' \(uint64\) takes an integer, got float 3.0"):
        attr_value(spec, num_weights, 3.0)
    flag = spec.attr("scaleGradByFreq")  # bool
    assert attr_value(spec, flag, np.True_) is True
    with pytest.raises(TypeError, match=r"'scaleGradByFreq' \(bool\) takes True or False, got str 'False'"):
        attr_value(spec, flag, "False")
    reduction = specs[OP].attr("reduction")  # int64
    with pytest.raises(
        ValueError, match=r"must be in \[-9223372036854775808, 9223372036854775807\], got 9223372036854775808"
    ):
        attr_value(specs[OP], reduction, 2**63)
    with pytest.raises(TypeError, match=r"takes an integer, got str '1'"):
        attr_value(specs[OP], reduction, "1")
    beta = specs["smooth_l1_loss_backward"].attr("beta")  # float
    assert attr_value(specs["smooth_l1_loss_backward"], beta, 2) == 2.0
    with pytest.raises(ValueError, match=r"within float32's range"):
        attr_value(specs["smooth_l1_loss_backward"], beta, 1e39)


def test_compile_op_rejects_a_product_the_op_does_not_support_before_compiling() -> None:
    with pytest.raises(ValueError) as info:
        codegen.compile_op("SoftMarginLossBackward", "Ascend310P")
    assert str(info.value) == (
        "aclnnSoftMarginLossBackward does not support Ascend310P; its products: "
        "Ascend910, Ascend910B, Ascend910_93, Ascend950 (specs/soft_margin_loss_backward.yaml)"
    )


@pytest.mark.parametrize("product", ["Ascend910", "Ascend910B", "Ascend910_93", "Ascend950", "Ascend310P"])
def test_the_quick_matrix_spans_several_cores_with_an_uneven_tail_on_every_product(product: str) -> None:
    from codegen.check.driver import cases_for
    from codegen.families.elementwise.plan.tiling import tiling_decision
    from codegen.spec.model import DType

    catalogue, specs = load_project()
    for name, spec in specs.items():
        if spec.family != "elementwise" or product not in spec.products:
            continue
        p = catalogue.get(product)
        cases = [c for c in cases_for(spec, p, None, True) if c.name.startswith("several cores, uneven tail")]
        # a mixed dtype column's cases (label "FLOAT16 (self BF16, ...)") split by the column's own tiling
        cases = [c for c in cases if c.dtype in DType.__members__]
        assert {c.dtype for c in cases} == {d.name for d in spec.inputs[0].dtypes_for(p)}, name
        for case in cases:
            shape = case.params[spec.inputs[0].name].shape
            attrs = {a.name: case.params[a.name] for a in spec.attrs if a.name in case.params}
            d = tiling_decision(spec, p, shape, DType[case.dtype], attrs=attrs)
            if d.reduce_kind and not p.hw_sync_all:
                # a mean/sum without the hardware SyncAll runs on one core (docs/spec.md: the reduce epilogue); its
                # several-core split is the none reduction's, tested here with that value
                red = spec.compute.reduce  # type: ignore[attr-defined]
                d = tiling_decision(spec, p, shape, DType[case.dtype], attrs={**attrs, red.attr: red.none})
            assert min(5, p.vector_core_num) == d.block_dim, (name, case.dtype)
            assert 0 < d.former_num < d.block_dim  # the split is uneven: former cores take a block more
            assert d.total_length % (32 // DType[case.dtype].itemsize) != 0  # and the last block is partial


@pytest.mark.parametrize("min_bytes", [32, 32768])
def test_the_remainder_over_cores_case_runs_only_where_the_tiling_spreads_it_over_every_core(min_bytes: int) -> None:
    """The "remainder over cores" case (every core three blocks, five of them one more, the last partial) ran on one
    core under the seed ops' 32 KiB per core, a case whose name its tiling did not meet. It is generated only
    where the tiling spreads it over the product's cores: with min_bytes_per_core 32, on all of them, unevenly."""
    from codegen.check.driver import cases_for
    from codegen.families.elementwise.plan.tiling import tiling_decision
    from codegen.spec.model import DType

    catalogue, specs = load_project()
    base = specs["soft_margin_loss_backward"]
    spec = dataclasses.replace(base, tiling=dataclasses.replace(base.tiling, min_bytes_per_core=min_bytes))
    for product in ("Ascend910B", "Ascend910"):
        p = catalogue.get(product)
        cases = [c for c in cases_for(spec, p, None, False) if c.name.startswith("remainder over cores")]
        if min_bytes == 32768:
            assert cases == []
            continue
        assert {c.dtype for c in cases} == {d.name for d in spec.inputs[0].dtypes_for(p)}
        for case in cases:
            shape = case.params[spec.inputs[0].name].shape
            d = tiling_decision(spec, p, shape, DType[case.dtype], attrs={"reduction": case.params["reduction"]})
            assert d.block_dim == p.vector_core_num, (product, case.dtype)
            assert 0 < d.former_num < d.block_dim
            assert d.total_length % (32 // DType[case.dtype].itemsize) != 0


def test_the_quick_matrix_alone_catches_a_wrong_former_core_offset(
    broken_tree: Callable[[str, str, str, str], Path],
) -> None:
    from codegen.build import build_op
    from codegen.check.case_run import run_case
    from codegen.check.driver import cases_for
    from codegen.check.reference import load_reference
    from codegen.runner import OpCallable
    from codegen.spec.model import DType

    tree = broken_tree(
        OP,
        "op_kernel/soft_margin_loss_grad.cpp",
        "offset = blockIdx * tiling.formerLength;",
        "offset = blockIdx * tiling.tailLength;",
    )
    catalogue, specs = load_project()
    spec, product = specs[OP], catalogue.get("Ascend910B")
    fn = OpCallable(build_op(spec, product, tree))
    quick = cases_for(spec, product, {"FLOAT"}, True)
    results = {c.name: run_case(fn, c, load_reference(spec)) for c in quick if c.expect_status is None}
    failed = sorted(name for name, r in results.items() if not r.passed)
    n = _multicore_length(spec, product, DType.FLOAT)
    # the case, run as its determinism case (the op is deterministic: in_order and reversed among its runs),
    # and the one-element cases over the same length; no other case spans several cores with an uneven split
    uneven = f"several cores, uneven tail [{n}] bit-identical over 7 core orders"
    assert uneven in failed and all(f"[{n}]" in name for name in failed), failed
    assert "GM data race" in results[uneven].message


# ------------------------------------------------------------------ derived status matrix, determinism, 64-bit


def _matrix(op: str, product: str) -> dict[str, codegen.check.cases.Case]:
    from codegen.check.driver import cases_for

    catalogue, specs = load_project()
    return {c.name: c for c in cases_for(specs[op], catalogue.get(product), None, True)}


def test_status_matrix_covers_every_tensor_dtype_rank_format_and_output_dims() -> None:
    cases = _matrix(OP, "Ascend910")
    # Ascend910 lists FLOAT and FLOAT16 only: the other 11 aclDataTypes, for every input and the output
    for tensor in ("gradOutput", "self", "target", "out"):
        for bad in ("BF16", "DOUBLE", "INT32", "INT8", "UINT8", "INT16", "UINT16", "UINT32", "INT64", "UINT64", "BOOL"):
            c = cases[f"{tensor} {bad} unsupported -> 161002"]
            assert c.expect_status == 161002 and c.params[tensor].dtype.name == {"BF16": "bfloat16"}.get(
                bad, bad.lower() if bad != "DOUBLE" else "float64"
            )
        assert cases[f"{tensor} rank 9 (maximum 8) -> 161002"].params[tensor].ndim == 9
        for fmt in ("NC1HWC0", "FRACTAL_Z", "FRACTAL_NZ", "NDC1HWC0"):
            assert cases[f"{tensor} format {fmt} -> 161002"].formats == {tensor: fmt}
    for shape in ("[8, 4]", "[32]", "[4, 8, 1]"):
        assert cases[f"out {shape} (same count as [4, 8]) -> 161002"].expect_status == 161002
    assert cases["the matrix's base call -> 0"].expect_status == 0
    assert cases["null out with gradOutput INT8 -> 161001 (nulls first)"].expect_status == 161001


def test_status_matrix_has_a_0d_index_that_breaks_only_the_rank_rule() -> None:
    cases = _matrix("embedding_dense_backward", "Ascend910B")
    c = cases["indices rank 0 [] (minimum 1) -> 161002"]
    assert c.params["indices"].shape == () and c.params["grad"].shape == (1, 6) and c.params["out"].shape == (5, 6)
    assert cases["grad rank 1 [6] (minimum 2) -> 161002"].params["grad"].shape == (6,)
    assert cases["out rank 1 [30] (minimum 2) -> 161002"].expect_status == 161002
    assert cases["out [6, 5] (same count as [5, 6]) -> 161002"].params["out"].shape == (6, 5)
    assert "indices UINT16 unsupported -> 161002" in cases and "out DOUBLE unsupported -> 161002" in cases


def test_determinism_and_64_bit_cases_are_in_the_quick_matrix() -> None:
    edb = _matrix("embedding_dense_backward", "Ascend910B").values()
    det = [c for c in edb if c.mode == "determinism"]
    assert det and all(c.deterministic for c in det)  # EDB is deterministic only on request
    assert {c.name.split(" [")[0] for c in det} >= {"2 rows, D 65539 split over the cores", "all 4096 indices equal"}
    tiling = [c for c in edb if c.mode == "tiling_2g"]
    # two shapes for the tiling and two for the probe (padding row 0), each in both strategies
    assert len(tiling) == 8 and {c.deterministic for c in tiling} == {False, True}
    assert sorted(c.params["padding"] for c in tiling) == [0] * 4 + [1] * 4
    catalogue, specs = load_project()
    from codegen.check.driver import cases_for

    smlb = cases_for(specs[OP], catalogue.get("Ascend910B"), None, True)
    assert len([c for c in smlb if c.mode == "determinism"]) == 3  # one per dtype: the op is deterministic
    big = [c for c in smlb if c.mode == "tiling_2g"]
    assert len(big) == 3 and all(c.params["shape"][0] >= 2**32 for c in big)


def test_a_value_case_with_a_determinism_case_runs_only_as_that_case() -> None:
    """A determinism case's seven runs include the value case's in_order and reversed runs, so the matrix does
    not hold the value case as well; every other value case is still there once."""
    from codegen.check.driver import cases_for

    catalogue, specs = load_project()
    suffix = " bit-identical over 7 core orders"
    for op in ("soft_margin_loss_backward", "mse_loss", "embedding_dense_backward", "softmax"):
        cases = cases_for(specs[op], catalogue.get("Ascend910B"), None, False)
        names = [(c.dtype, c.name) for c in cases if c.expect_status is None]
        assert len(names) == len(set(names)), op
        det = [c for c in cases if c.mode == "determinism"]
        assert det, op
        plain = {(c.dtype, c.name) for c in cases if c.mode is None and c.expect_status is None}
        for c in det:
            assert c.name.endswith(suffix)
            assert (c.dtype, c.name.removesuffix(suffix)) not in plain, (op, c.name)


def test_the_reduce_epilogue_runs_its_in_domain_few_cores_mean_and_sum_as_determinism_cases() -> None:
    """Per dtype, the mean and the sum of the uneven few-cores split with inputs in (0, 1) are the determinism
    cases (finite in the domain, so the combine order shows in the bits; more than one core, fewer than all);
    the several-tiles-per-core case is the sum's, with inputs in (0, 1) too, a value case, and no normal-draw
    case of that size is left (a NaN sum would hide the combine)."""
    from codegen.check.driver import cases_for
    from codegen.families.elementwise.plan.tiling import tiling_decision
    from codegen.types import DType

    catalogue, specs = load_project()
    spec = specs["binary_cross_entropy"]
    product = catalogue.get("Ascend910B")
    cases = cases_for(spec, product, None, False)
    det = [c for c in cases if c.mode == "determinism" and "(0, 1)" in c.name]
    dtypes = ["BF16", "FLOAT", "FLOAT16"]
    assert sorted((c.dtype, c.name.split(" several")[0]) for c in det) == sorted(
        (d, f"reduction={v} ({k}) inputs in (0, 1)") for d in dtypes for v, k in ((1, "mean"), (2, "sum"))
    )
    for c in det:
        assert "several cores, uneven tail" in c.name
        (n,) = c.params["self"].shape
        decision = tiling_decision(spec, product, (n,), DType[c.dtype], attrs={"reduction": c.params["reduction"]})
        assert 1 < decision.block_dim < product.vector_core_num, (c.name, decision.block_dim)
    several = [c for c in cases if "several tiles per core" in c.name]
    # the sum for FLOAT; the mean for a 16-bit dtype, whose sum of ~10^6 values in (0, 1) would overflow
    # FLOAT16 (nothing compared) or keep 8 bits in BF16
    assert sorted((c.dtype, c.params["reduction"]) for c in several) == [("BF16", 1), ("FLOAT", 2), ("FLOAT16", 1)]
    assert all(c.mode is None and "inputs in (0, 1)" in c.name for c in several)
    for c in several:
        assert c.params["self"].min() >= 0.05 and c.params["self"].max() <= 0.95


def test_float_attrs_run_values_that_no_16_bit_type_holds_rounded_both_ways() -> None:
    """A kernel that rounds a threshold to the tensor's 16-bit dtype before comparing passed while every float
    attr value was a 16-bit value (found by a review helper): 0.1 and 0.7 round down and up in FLOAT16 and the
    other way in BF16, and the boundary cases put inputs at them."""
    import ml_dtypes

    values = attr_candidates(_attr("float", 0.25))
    assert values[-1] == 2.0 and values[0] == 0.25
    odd = [v for v in values if float(np.float16(v)) != v and float(ml_dtypes.bfloat16(v)) != v]
    for dtype in (np.float16, ml_dtypes.bfloat16):
        assert any(float(dtype(v)) < v for v in odd) and any(float(dtype(v)) > v for v in odd), dtype


def test_elementwise_attr_cases_hold_inputs_equal_in_their_first_row() -> None:
    """SmoothL1LossBackward with beta = 0 met self == target nowhere, so a tiling that divided 1 by beta = 0
    passed (found by a review helper): every attr case gives the inputs of the first input's shape and dtype
    its first row."""
    catalogue, specs = load_project()
    spec = specs["smooth_l1_loss_backward"]
    cases = [c for c in codegen.check.driver.cases_for(spec, catalogue.get("Ascend910B"), None, True)]
    attr = [c for c in cases if c.shape == "attr"]
    assert any(c.params["beta"] == 0.0 for c in attr)
    for c in attr:
        first = c.params["gradOut"][0]
        assert np.array_equal(c.params["self"][0], first) and np.array_equal(c.params["target"][0], first)
        assert not np.array_equal(c.params["self"][1], c.params["target"][1])


@pytest.mark.parametrize("product", ["Ascend910", "Ascend910B", "Ascend950"])
def test_row_reduce_cases_give_cores_a_second_row_tile_and_a_second_task(product: str) -> None:
    """The row-reduce matrices never gave a core a second row tile (mode 0) or a second task (mode 1): faults
    in those loops passed (found by a review helper). Each dim-form op runs a case whose tiling gives some
    cores more rows than one tile holds, and one whose lines split into full and partial blocks with more
    tasks than cores; the rows form (RmsNorm) the first; and every one runs rows of 81 (16k + 1)."""
    from codegen.check.driver import cases_for
    from codegen.families.row_reduce.plan.tensors import compute_of
    from codegen.families.row_reduce.plan.tiling import tiling_decision
    from codegen.spec.model import DType

    catalogue, specs = load_project()
    p = catalogue.get(product)
    ran = 0
    for name, spec in specs.items():
        if spec.family != "row_reduce" or product not in spec.products:
            continue
        ran += 1
        cases = [c for c in cases_for(spec, p, None, True) if c.expect_status is None]
        x = spec.input_names[0]
        rows = compute_of(spec).rows
        tiles = [c for c in cases if c.name.startswith("a second, partial row tile")]
        assert tiles, name
        for c in tiles:
            t = tiling_decision(spec, p, c.params[x].shape, -1, DType[c.dtype.split(" ")[0]])
            assert t.mode == 0 and t.task_num > t.block_dim * t.tile_rows, (name, c.ident)
        if not rows:
            tasks = [c for c in cases if c.name.startswith("several tasks per core")]
            assert len(tasks) == 1, name
            t = tiling_decision(spec, p, tasks[0].params[x].shape, 1, DType[tasks[0].dtype])
            assert t.mode == 1 and t.task_num > t.block_dim and t.inner % t.block_width, name
        assert any(c.params[x].shape[-1:] == (81,) for c in cases), name
    assert ran


def test_status_cases_leave_no_executor_behind() -> None:
    """A status case whose phase 1 succeeds and that runs no phase 2 destroys the executor it was given, as a
    CANN caller must (aclDestroyAclOpExecutor); a failed phase 1 hands none out. The emulation counts the
    executors handed out and neither consumed nor destroyed."""
    from codegen.build import build_op
    from codegen.check.case_run import run_case
    from codegen.check.reference import load_reference
    from codegen.runner import OpCallable

    catalogue, specs = load_project()
    spec, product = specs[OP], catalogue.get("Ascend910B")
    fn = OpCallable(build_op(spec, product))
    cases = _matrix(OP, "Ascend910B")
    chosen = [cases["the matrix's base call -> 0"], cases["null out with gradOutput INT8 -> 161001 (nulls first)"]]
    before = fn.lib.opgen_rt_live_executor_count()
    for case in chosen * 3:
        assert run_case(fn, case, load_reference(spec)).passed
    assert fn.lib.opgen_rt_live_executor_count() == before


def test_a_constraint_case_passes_the_shape_checks_so_the_constraint_rejects_it() -> None:
    """Every elementwise constraint case keeps the shape checks satisfied (the inputs broadcast to the valid call's
    shape, the input the output is shaped like unchanged): otherwise the broadcast check answers 161002 first and
    the constraint's own check is never run (BinaryCrossEntropy's target_shape once changed `self`, so `target`
    no longer broadcast)."""
    from codegen.check.driver import cases_for

    catalogue, specs = load_project()
    spec = specs["binary_cross_entropy"]
    cases = {c.name: c for c in cases_for(spec, catalogue.get("Ascend910B"), None, True)}
    case = next(c for name, c in cases.items() if name.startswith("target_shape: "))
    good = cases["null workspaceSize -> 161001"].params
    assert case.expect_status == 161002
    assert case.params["self"].shape == good["self"].shape
    shapes = [case.params[n].shape for n in ("self", "target") if isinstance(case.params.get(n), np.ndarray)]
    assert tuple(np.broadcast_shapes(*shapes)) == good["self"].shape
    assert case.params["target"].shape != good["target"].shape
