"""`opgen explain` prints the numbers the generated tiling function computes for the same shape."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from codegen.explain import explain
from codegen.families.elementwise.plan.tiling import tiling_decision
from codegen.runner import OpCallable
from codegen.spec.model import DType
from codegen.specs import load_project

CATALOGUE, SPECS = load_project()
SMLB = SPECS["soft_margin_loss_backward"]


CASES = [
    pytest.param(product, shape, dtype, id=f"{product}-{dtype}-{'x'.join(map(str, shape))}")
    for product in SMLB.products
    for dtype in ("FLOAT", "FLOAT16", "BF16")
    if CATALOGUE.get(product).supports(DType[dtype])
    for shape in [(1,), (9,), (1000, 1000), (48, 8, 1025), (1 << 31, 3)]
]


@pytest.mark.parametrize(("product", "shape", "dtype"), CASES)
def test_elementwise_explain_equals_the_tiling_function(
    product: str, shape: tuple[int, ...], dtype: str, built_op: Callable[[str, str], OpCallable]
) -> None:
    prod = CATALOGUE.get(product)
    d = tiling_decision(SMLB, prod, shape, DType[dtype])
    tensor = {"shape": list(shape), "dtype": dtype}
    got = built_op("soft_margin_loss_backward", product).run_tiling(
        {"inputs": [tensor] * 3, "outputs": [tensor], "attrs": {"reduction": "mean"}}
    )
    assert got["status"] == 0, got
    t = got["tiling"]
    assert got["block_dim"] == d.block_dim
    assert got["tiling_key"] == d.tiling_key
    assert got["workspace_sizes"] == [d.workspace_bytes]
    assert (t["totalLength"], t["formerNum"], t["formerLength"], t["tailLength"], t["tileLength"]) == (
        d.total_length,
        d.former_num,
        d.former_length,
        d.tail_length,
        d.tile_length,
    )
    assert (t["inBufferNum"], t["outBufferNum"]) == (d.in_buffer_num, d.out_buffer_num)
    text = explain(SMLB, prod, ",".join(map(str, shape)), dtype)
    assert f"tile length: {d.tile_length} elements" in text
    assert f"cores used (blockDim): {d.block_dim} of {prod.vector_core_num}" in text
    assert f"workspace: {d.workspace_bytes} bytes" in text


def test_explain_cli_runs_for_both_seed_ops() -> None:
    for op, shape in (("SoftMarginLossBackward", "4096,4096"), ("embedding_dense_backward", "100000,128,1048576")):
        out = subprocess.run(
            [sys.executable, "-m", "codegen", "explain", op, "--product", "Ascend910B", "--shape", shape],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert "Ascend910B" in out and "blockDim" in out


def test_explain_marks_optional_inputs_and_their_null_value() -> None:
    bce = SPECS["binary_cross_entropy_backward"]
    lines = explain(bce, CATALOGUE.get("Ascend910B"), None, None).splitlines()
    by_input = {line.split(":")[0].split()[-1]: line for line in lines if line.startswith("  input  ")}
    assert set(by_input) == {"gradOutput", "self", "target", "weightOptional"}
    assert by_input["weightOptional"].endswith("; optional: may be null, then every element is 1")
    assert all("optional" not in by_input[name] for name in ("gradOutput", "self", "target"))


def test_a_reducing_op_explains_the_shape_it_tiles_not_its_output() -> None:
    """A loss forward with a reduction tiles the elements it sums; its output (mean, by default) is 0-d."""
    product = CATALOGUE.get("Ascend910B")
    loss = explain(SPECS["soft_margin_loss"], product, "8,8", None)
    assert "tiling for the elementwise shape before the reduction [8, 8] (64 elements)" in loss
    assert "tiling for output shape" not in loss
    grad = explain(SPECS["soft_margin_loss_backward"], product, "8,8", None)
    assert "tiling for output shape [8, 8] (64 elements)" in grad


@pytest.mark.parametrize(
    ("shape", "total", "cores"),
    [
        ("scalar", "(1 element)", "1 of 48; 8 elements each (whole 32-byte blocks; the last core's share ends at "),
        ("9", "(9 elements)", "1 of 48; 16 elements each (whole 32-byte blocks; the last core's share ends at "),
        ("16", "(16 elements)", "1 of 48; 16 elements each"),
    ],
)
def test_explain_counts_elements_in_words_and_says_when_shares_pass_the_end(shape: str, total: str, cores: str) -> None:
    """A 1-element FLOAT output read "(1 elements)" and "8 elements each" with no word on the 32-byte blocks."""
    text = explain(SPECS["soft_margin_loss_backward"], CATALOGUE.get("Ascend910B"), shape, "FLOAT")
    assert f" {total}, dtype FLOAT," in text
    line = next(ln for ln in text.splitlines() if ln.startswith("  cores used (blockDim): "))
    assert line.removeprefix("  cores used (blockDim): ").startswith(cores)
    assert ("whole 32-byte blocks" in line) == (shape != "16")


EDB = SPECS["embedding_dense_backward"]
EDB_SHAPES = [
    (5, 100_003, 6),
    (3, 65_539, 12),
    (65_536, 128, 1 << 20),
    (1000, 32, 4096),
    (3, 40, 300),
    (2, 8, 20_003),  # deterministic: rows x D-slices reach 2 cores, index groups add the rest
    (3, 5, 200_000),  # the same with the accumulator in the workspace (D not a multiple of 8)
]


@pytest.mark.parametrize(
    ("product", "shape"),
    [pytest.param(p, s, id=f"{p}-{'x'.join(map(str, s))}") for p in EDB.products for s in EDB_SHAPES],
)
def test_index_accumulate_explain_equals_the_tiling_function(
    product: str, shape: tuple[int, int, int], built_op: Callable[[str, str], OpCallable]
) -> None:
    """The core split (row groups x D-slices, index groups x D-slices; deterministic: index groups x owning
    positions), blockDim, dChunk and workspace that `opgen explain` prints are those of the generated tiling
    function, in both strategies."""
    import struct

    from codegen.families.index_accumulate.plan.tiling_fields import TILING_FIELDS

    prod = CATALOGUE.get(product)
    w, d, n = shape
    text = explain(EDB, prod, f"{w},{d},{n}", None)
    for det in (False, True):
        got = built_op("embedding_dense_backward", product).run_tiling(
            {
                "inputs": [{"shape": [n, d], "dtype": "FLOAT"}, {"shape": [n], "dtype": "INT64"}],
                "outputs": [{"shape": [w, d], "dtype": "FLOAT"}],
                "attrs": [w, -1, True],
                "deterministic": int(det),
            }
        )
        assert got["status"] == 0, got
        t = got.get("tiling", {})
        if not t or "raw" in t:
            raw = bytes.fromhex(got["tiling_raw"])
            t = dict(
                zip(
                    (f.name for f in TILING_FIELDS),
                    struct.unpack(f"<{len(TILING_FIELDS)}q", raw[: 8 * len(TILING_FIELDS)]),
                    strict=True,
                )
            )
        # Without hardware SyncAll (Ascend910, Ascend310P) the tiling runs the barrier-free deterministic
        # strategy in both modes, and explain shows that one section.
        effective = det or not prod.hw_sync_all
        section = "strategy " + text.split("  strategy ")[2 if det and prod.hw_sync_all else 1]
        if got["tiling_key"] // 100 >= 2:  # the sorted-run strategy (many indices; rows of whole blocks here)
            assert got["tiling_key"] // 100 == (3 if effective else 2)
            assert prod.data_copy_pad or d * 4 % 32 == 0
            name = "sorted deterministic" if effective else "sorted"
            assert (
                f"strategy {name} (tiling key {got['tiling_key']}), blockDim {got['block_dim']} of "
                f"{prod.vector_core_num}:" in section
            )
            assert got["block_dim"] == t["sortCores"]
            assert f"sort: {t['sortBuckets']} row buckets of {t['sortBucketRows']} rows" in section
            # the small-dim variant stages records (row key + values) where the tiling takes it
            entries = "records" if t["sortSmallDim"] else "pairs"
            if t["sortChunk"]:  # phases 1-2 by the vector sort (products with Sort32 and MrgSort)
                assert prod.vector_sort
                assert f"phase 1 sorts chunks of {t['sortChunk']} indices" in section
                assert f"sorted chunks at {t['sortSortedOffset']}, " in section
            else:
                assert f"slots of {t['sortStage']} {entries}" in section
            assert (
                f"count matrix [{t['sortMatrixRows']}, {t['sortMatrixStride']}] int32 at {t['sortMatrixOffset']}"
                in section
            )
            assert f"workspace: {got['workspace_sizes'][0]} bytes with the system workspace" in section
            assert f"{entries} at {t['sortPairsOffset']})" in section
            if effective:
                assert f"partial slot of the workspace (at {t['sortPartialsOffset']})" in section
            assert f"D in chunks of {t['sortDChunk']} elements" in section
            if t["sortSmallDim"]:
                assert f"phase 2 reads up to {t['sortTileRows']} grad rows per copy" in section
            else:
                # the kernel splits the tile UB into two tiles (one when it holds a single row)
                tiles = 2 if t["sortTileRows"] >= 2 else 1
                assert f"gathered into {tiles} tile(s) of {t['sortTileRows'] // tiles} rows" in section
            continue
        assert got["tiling_key"] // 100 == (1 if effective else 0)
        strategy = "deterministic" if effective else "atomic"
        assert (
            f"strategy {strategy} (tiling key {got['tiling_key']}), blockDim {got['block_dim']} of "
            f"{prod.vector_core_num}:" in section
        )
        assert (
            f"rows of out: {t['rowGroupNum']} row groups x {t['rowSliceNum']} D-slices of {t['rowSliceLength']} "
            f"elements = {t['rowGroupNum'] * t['rowSliceNum']} owning cores, {t['rowsPerGroup']} rows per group "
            f"(+1 on the first {t['rowsFormerNum']})" in section
        )
        if not effective:
            assert (
                f"indices: {t['indexGroupNum']} index groups x {t['indexSliceNum']} D-slices of "
                f"{t['indexSliceLength']} elements = {t['indexGroupNum'] * t['indexSliceNum']} adding cores, "
                f"{t['indicesPerGroup']} indices per group (+1 on the first {t['indicesFormerNum']})" in section
            )
        elif t["indexGroupNum"] > 1:
            row_cores = t["rowGroupNum"] * t["rowSliceNum"]
            assert got["block_dim"] == t["indexGroupNum"] * row_cores
            assert (
                f"indices: {t['indexGroupNum']} index groups x {row_cores} owning positions = {got['block_dim']} "
                f"cores, {t['indicesPerGroup']} indices per group (+1 on the first {t['indicesFormerNum']}); "
                f"each sums its group in index order into an fp32 partial (group 0: the accumulator; groups 1..: "
                f"workspace at offset {t['partialsOffset']}), then after SyncAll the owners merge the partials in "
                f"group order 0..{t['indexGroupNum'] - 1}" in section
            )
        else:
            assert got["block_dim"] == t["rowGroupNum"] * t["rowSliceNum"]
            assert "indices: every owning core scans all of them in order" in section
        assert f"dChunk {t['dChunk']} of at most" in section
        assert f"workspace {got['workspace_sizes'][0]} bytes" in section


def test_explain_shows_constraint_placeholders_as_names_not_format_fields() -> None:
    from codegen.explain import explain, unfilled_message
    from codegen.specs import load_project

    assert unfilled_message("got {n} of {{at most}} {limit}") == "got <n> of {at most} <limit>"
    catalogue, specs = load_project()
    text = explain(specs["embedding_dense_backward"], catalogue.get("Ascend910"), None, None)
    (line,) = [ln for ln in text.splitlines() if ln.startswith("  constraint ")]
    assert "{" not in line and "}" not in line
    assert line.endswith(
        "= <limit>, where countsSize = numWeights / coreNum + numWeights % coreNum = <countsSize> "
        "(numWeights <numWeights>, coreNum <cores>); got embeddingDim <embeddingDim>"
    )


# RESERVED_WORKSPACE per NpuArch (asc-devkit impl/basic_api/utils/kernel_utils_constants.h), written out here
# rather than read from the catalogue under test.
RESERVED_WORKSPACE = {1001: 2 * 1024 * 1024, 2002: 2 * 1024 * 1024, 2201: 16 * 1024 * 1024, 3510: 16 * 1024 * 1024}


@pytest.mark.parametrize("product", SMLB.products)
def test_phase1_workspace_and_explain_include_the_system_workspace(
    product: str, built_op: Callable[[str, str], OpCallable]
) -> None:
    """Phase 1 of an op that needs no workspace of its own asks for exactly the product's system workspace
    (the tiling adds GetLibApiWorkSpaceSize(), as CANN tilings do), and `opgen explain` prints that size."""
    import numpy as np

    prod = CATALOGUE.get(product)
    reserve = RESERVED_WORKSPACE[prod.npu_arch]
    fn = built_op("soft_margin_loss_backward", product)
    x = np.ones((3, 5), np.float32)
    tensors = {name: fn.make_tensor(x) for name in ("gradOutput", "self", "target", "out")}
    status, size, _ = fn.phase1(tensors, {"reduction": 0})
    assert (status, size) == (0, reserve)
    text = explain(SMLB, prod, "3,5", "FLOAT")
    assert f"system workspace {reserve} bytes" in text
    assert f"  workspace: {reserve} bytes ({reserve} system workspace (GetLibApiWorkSpaceSize) + 0 user)" in text


@pytest.mark.parametrize("product", EDB.products)
def test_index_accumulate_workspace_starts_with_the_system_workspace(
    product: str, built_op: Callable[[str, str], OpCallable]
) -> None:
    """The index-accumulation tiling requests the system workspace plus its own (counts and accumulator)."""
    prod = CATALOGUE.get(product)
    got = built_op("embedding_dense_backward", product).run_tiling(
        {
            "inputs": [{"shape": [6, 5], "dtype": "FLOAT"}, {"shape": [6], "dtype": "INT64"}],
            "outputs": [{"shape": [4, 5], "dtype": "FLOAT"}],
            "attrs": [4, -1, True],
            "deterministic": 0,
        }
    )
    assert got["status"] == 0, got
    user = got["workspace_sizes"][0] - RESERVED_WORKSPACE[prod.npu_arch]
    assert 0 < user < 4096  # a [4, 8] fp32 accumulator and the int64 counts


#: Every spec with a reduce epilogue (compute.reduce), its products and the shapes of the combine.
REDUCE_CASES = [
    pytest.param(name, product, shape, id=f"{name}-{product}-{'x'.join(map(str, shape))}")
    for name, spec in sorted(SPECS.items())
    if spec.family == "elementwise" and getattr(spec.compute, "reduce", None) is not None
    for product in spec.products
    for shape in [(0,), (1,), (47,), (1000, 1000), (48, 8, 1025)]
]


@pytest.mark.parametrize(("name", "product", "shape"), REDUCE_CASES)
def test_reduce_explain_equals_the_tiling_function(
    name: str, product: str, shape: tuple[int, ...], built_op: Callable[[str, str], OpCallable]
) -> None:
    """The whole-tensor combine explain prints (cores, tiles per core, workspace bytes, order) is what the
    generated tiling function decides for the default reduction (mean) and for sum."""
    spec = SPECS[name]
    prod = CATALOGUE.get(product)
    red = spec.compute.reduce  # type: ignore[union-attr]
    dev = spec.device_interface
    names = dict(spec.attr(red.attr).values or ())
    for value in (red.mean, red.sum):
        d = tiling_decision(spec, prod, shape, DType.FLOAT, attrs={red.attr: value})
        tensor = {"shape": list(shape), "dtype": "FLOAT"}
        attrs = {}
        for da in dev.attrs:
            if da.source == red.attr:
                attrs[da.name] = names[value]
            elif da.source is not None:
                attrs[da.name] = spec.attr(da.source).default
            else:
                attrs[da.name] = da.value
        got = built_op(name, product).run_tiling(
            {"inputs": [tensor] * len(dev.inputs), "outputs": [{"shape": [], "dtype": "FLOAT"}], "attrs": attrs}
        )
        assert got["status"] == 0, got
        assert got["block_dim"] == d.block_dim
        assert got["workspace_sizes"] == [d.workspace_bytes]
        t = got["tiling"]
        assert (t["totalLength"], t["tileLength"], t["reduceKind"]) == (d.total_length, d.tile_length, d.reduce_kind)
        # the workspace holds the system part and one 32-byte slot per core
        assert d.workspace_bytes == prod.sys_workspace_bytes + 32 * d.block_dim
        if not prod.hw_sync_all:
            assert d.block_dim == 1
    d = tiling_decision(spec, prod, shape, DType.FLOAT)  # explain shows the attr's default (mean)
    text = explain(spec, prod, ",".join(map(str, shape)), "FLOAT")
    assert f"whole-tensor combine ({red.attr} = {red.mean}, mean): {d.block_dim} cores" in text
    assert f"up to {d.tiles_per_core_max} tiles per core" in text
    assert f"{d.block_dim * 32} user workspace bytes" in text
    assert f"core 0 sums the {d.block_dim} slots" in text
    assert f"workspace: {d.workspace_bytes} bytes" in text


@pytest.mark.parametrize(
    ("op", "shape", "says"),
    [
        ("SoftMarginLossBackward", "0,10", "no output has elements (out [0, 10])"),
        ("Softmax", "10,0", "no output has elements (out [10, 0])"),
        ("EmbeddingDenseBackward", "100,0,10", "no output has elements (out [100, 0])"),
        ("MseLoss", "0,10", None),  # the mean of no elements is a 0-d output: the call launches
        ("SoftMarginLossBackward", "4,10", None),
    ],
)
def test_explain_says_when_the_output_is_empty_and_no_kernel_launches(op: str, shape: str, says: str | None) -> None:
    """One op per family (the empty-output return is the shared L2 skeleton's), and a reduction whose
    output is 0-d for an empty input (it launches)."""
    spec = next(s for s in SPECS.values() if s.op == op)
    text = explain(spec, CATALOGUE.get("Ascend910B"), shape, None)
    lines = [line for line in text.splitlines() if line.startswith("the call launches no kernel")]
    assert len(lines) == (0 if says is None else 1)
    if says is not None:
        assert says in lines[0]


def test_explain_says_a_call_with_column_sums_over_zero_rows_launches() -> None:
    """Zero rows leave the row output empty, but the column sums have elements (zeros): the API launches, so
    explain does not say otherwise."""
    from codegen.specs import load_project

    data = Path(__file__).parent / "data" / "rows_colsum_op" / "specs"
    catalogue, specs = load_project(data, Path(__file__).parents[1] / "specs" / "products.yaml")
    spec = next(iter(specs.values()))
    text = explain(spec, catalogue.get("Ascend910B"), "0,16", None)
    assert "column sums" in text and "launches no kernel" not in text


def test_the_model_section_builds_the_spec_it_is_given_not_a_project_op_of_that_name(tmp_path: Path) -> None:
    """A spec outside the project's specs/ is built from the tree it names (``--generated``); with a tree that
    lacks its sources the model says so, and never looks the op up among the project's ops."""
    from codegen.explain import model_section
    from codegen.specs import load_project

    data = Path(__file__).parent / "data" / "rows_colsum_op" / "specs"
    catalogue, specs = load_project(data, Path(__file__).parents[1] / "specs" / "products.yaml")
    spec = next(iter(specs.values()))
    text = model_section(spec, catalogue.get("Ascend910B"), "64,16", None, tmp_path)
    assert text.startswith("performance model: not built (") and "not found: run `opgen generate`" in text
    assert str(tmp_path) in text and "unknown op" not in text


def test_the_model_call_of_a_list_op_passes_lists() -> None:
    """A foreach op's ``--shape`` is one tensor of its lists: the model's call passes each list input as a list
    of that one array (a bare array was a TypeError from the Python API)."""
    from codegen.explain import call_params

    spec = next(s for s in SPECS.values() if s.family == "foreach")
    params = call_params(spec, CATALOGUE.get("Ascend910B"), (10, 7), None)
    lists = [t.name for t in spec.inputs if t.is_list]
    assert lists and all(isinstance(params[n], list) and params[n][0].shape == (10, 7) for n in lists)


def test_explain_with_specs_reads_its_generated_tree(tmp_path: Path) -> None:
    """``opgen --specs DIR explain`` builds the model's op from ``DIR/../generated`` when it exists, as check and
    build do."""
    import argparse

    from codegen.cli.options import apply_spec_dir_defaults

    (tmp_path / "specs").mkdir()
    (tmp_path / "generated").mkdir()
    args = argparse.Namespace(specs=str(tmp_path / "specs"), command="explain", generated=None)
    apply_spec_dir_defaults(args)
    assert args.generated == str(tmp_path / "generated")


def test_explain_lists_an_aclscalar_attrs_dtypes_and_the_value_its_call_passes() -> None:
    """An aclScalar attr reads as its dtypes (the spec's list, or every aclScalar dtype) and the value the
    ``--shape`` call passes with its dtype, and the call passes just that (it read ``scalar (any)``)."""
    from codegen.explain import call_params
    from codegen.runner.arguments import ScalarArg, call_attrs

    product = CATALOGUE.get("Ascend910B")
    add = SPECS["foreach_add_list_v2"]
    lines = explain(add, product, None, None).splitlines()
    want = "  attr   alpha: scalar (FLOAT, FLOAT16, DOUBLE, INT32, INT64; the --shape call passes 0.5 as a DOUBLE "
    want += "aclScalar)"
    assert want in lines
    assert call_attrs(add, call_params(add, product, (4,), None))["alpha"] == ScalarArg(0.5, "DOUBLE")
    elu = SPECS["elu_backward"]
    lines = explain(elu, product, None, None).splitlines()
    every = "FLOAT, FLOAT16, BF16, DOUBLE, INT8, INT16, INT32, INT64, UINT8, BOOL"
    assert f"  attr   scale: scalar ({every}; the --shape call passes its default 1.0 as a DOUBLE aclScalar)" in lines
    assert call_attrs(elu, call_params(elu, product, (4,), None))["scale"] == ScalarArg(1.0, "DOUBLE")
    assert "  attr   isResult: bool (any)" in lines
