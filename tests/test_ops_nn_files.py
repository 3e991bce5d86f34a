"""The ops-nn file set of every generated op folder: CMakeLists.txt, the L0 wrapper (op_api/<kernel>.h/.cpp,
which alone holds OP_TYPE_REGISTER), the graph proto, the infershape, the binary config per SoC and the
TilingParse registration.

* every C++ file compiles against ``runtime/`` (the .cpp files are part of every built library; the headers
  are compiled here on their own);
* the infershape registered by the compiled library, called on shape cases of both seed ops, gives the
  shapes and dtypes NumPy's broadcasting rules (SoftMarginLossBackward) and the op's definition
  (EmbeddingDenseBackward: [numWeights, D] fp32 sums) give, and fails where they fail;
* each binary config lists exactly the dtype/format combinations and parameter names the compiled OpDef
  registers on that product's SoC.

None of these tests calls the kernel, yet they load each (op, product) library whole: tests/test_opdef.py
builds every op on every product, and tests/test_strict_warnings.py compiles every op's kernel for each of its
NpuArches, so the whole libraries are in the build cache anyway, where a library without the kernel
(``build_op(host_only=True)``) would be one more glue unit and link per pair.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from codegen.build import build_op
from codegen.build.pch import _precompiled_std
from codegen.build.toolchain import CXX
from codegen.paths import project_paths
from codegen.runner import OpCallable
from codegen.specs import load_project

pytestmark = pytest.mark.heavy(180)  # about 180 s alone: scheduled before lighter files

CATALOGUE, SPECS = load_project()
PATHS = project_paths()
GENERATED = PATHS.generated
SEED_OPS = ("soft_margin_loss_backward", "embedding_dense_backward")


#: binary.json dtype names ops-nn uses (e.g. index/embedding_dense_grad_v2/op_host/config/ascend350/...).
BINARY_NAMES = {"DT_FLOAT": "float32", "DT_FLOAT16": "float16", "DT_BF16": "bfloat16", "DT_DOUBLE": "float64"}


def dname(ge: str) -> str:
    return BINARY_NAMES.get(ge, ge.removeprefix("DT_").lower())


def _folder(op: str) -> Path:
    return GENERATED / SPECS[op].folder


@pytest.mark.parametrize("op", sorted(SPECS))
def test_every_op_folder_holds_the_ops_nn_file_set(op: str) -> None:
    spec = SPECS[op]
    root = _folder(op)
    k = spec.kernel
    for rel in (
        "CMakeLists.txt",
        f"op_api/{k}.h",
        f"op_api/{k}.cpp",
        f"op_graph/{k}_proto.h",
        f"op_host/{k}_infershape.cpp",
        f"op_host/{k}_def.cpp",
        f"op_host/{k}_tiling.cpp",
        f"op_kernel/{k}.cpp",
    ):
        assert (root / rel).is_file(), rel
    for p in spec.products:
        config = CATALOGUE.get(p).config_name
        assert (root / "op_host" / "config" / config / f"{k}_binary.json").is_file(), (p, config)
    l0 = (root / "op_api" / f"{k}.cpp").read_text()
    l2 = (root / "op_api" / f"aclnn_{op}.cpp").read_text()
    assert l0.count(f"OP_TYPE_REGISTER({spec.op_type});") == 1
    assert "OP_TYPE_REGISTER" not in l2, "the L2 API must not register the OpType (ops-nn's L0 file does)"
    assert f"l0op::{spec.op_type}(" in l2
    assert f"IMPL_OP_INFERSHAPE({spec.op_type})" in (root / "op_host" / f"{k}_infershape.cpp").read_text()
    tiling = (root / "op_host" / f"{k}_tiling.cpp").read_text()
    assert f".TilingParse<{spec.op_type}CompileInfo>(" in tiling
    cmake = (root / "CMakeLists.txt").read_text()
    assert re.search(rf"^add_modules_sources\(.* OPTYPE {k} ACLNNTYPE aclnn_exclude\)$", cmake, flags=re.M), cmake


#: ops-nn's way from an op folder to its op_host unit tests (hicann/ops-nn cmake/func.cmake add_op_subdirectory:
#: a subfolder is entered only when it has a CMakeLists.txt, tests/ only with ENABLE_TEST; an op's tests/ and
#: tests/ut/ CMakeLists.txt (e.g. activation/elu_grad/tests/) enter each subfolder that has a CMakeLists.txt;
#: cmake/ut.cmake add_modules_ut_sources: test_*_tiling.cpp join the tiling module, test_*_infershape.cpp the
#: infershape one).
UT_CMAKE_CHAIN = ("tests/CMakeLists.txt", "tests/ut/CMakeLists.txt", "tests/ut/op_host/CMakeLists.txt")

#: ops-nn's walk of a tests/ folder, as its op folders write it (whitespace aside).
SUBDIR_WALK = [
    "file(GLOB CURRENT_DIRS RELATIVE ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/*)",
    "foreach(SUB_DIR ${CURRENT_DIRS})",
    'if(EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/${SUB_DIR}/CMakeLists.txt")',
    "add_subdirectory(${SUB_DIR})",
    "endif()",
    "endforeach()",
]


@pytest.mark.parametrize("op", sorted(SPECS))
def test_the_unit_tests_are_reached_by_ops_nn_cmake(op: str) -> None:
    root = _folder(op)
    for rel in UT_CMAKE_CHAIN[:2]:
        code = [line.strip() for line in (root / rel).read_text().splitlines() if line and not line.startswith("#")]
        assert code == SUBDIR_WALK, rel
    ut = (root / UT_CMAKE_CHAIN[-1]).read_text()
    call = r"^\s*add_modules_ut_sources\(HOSTNAME \$\{(\w+)\} MODE PRIVATE DIR \$\{CMAKE_CURRENT_SOURCE_DIR\}\)$"
    calls = re.findall(call, ut, flags=re.M)
    assert calls == ["OP_TILING_MODULE_NAME", "OP_INFERSHAPE_MODULE_NAME"]
    assert "if(UT_TEST_ALL OR OP_HOST_UT)" in ut
    k = SPECS[op].kernel
    tests = sorted(f.name for f in (root / "tests" / "ut" / "op_host").glob("test_*.cpp"))
    assert tests == [f"test_{k}_infershape.cpp", f"test_{k}_tiling.cpp"]


@pytest.mark.parametrize("op", sorted(SPECS))
def test_headers_compile_against_the_runtime(op: str, tmp_path: Path) -> None:
    """The proto header (in no library's translation unit) compiles on its own; the L0 header is the first
    include of the L0 unit, which every library build compiles with -Werror and the host warning flags, so it
    is checked on its own there."""
    spec = SPECS[op]
    root = _folder(op)
    l0_unit = (root / "op_api" / f"{spec.kernel}.cpp").read_text()
    assert next(line for line in l0_unit.splitlines() if line.startswith("#include")) == f'#include "{spec.kernel}.h"'
    for rel in (f"op_graph/{spec.kernel}_proto.h",):
        src = tmp_path / "unit.cpp"
        src.write_text(f'#include "{root / rel}"\n')
        proc = subprocess.run(
            [
                CXX,
                "-std=c++17",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-fsyntax-only",
                f"-I{PATHS.runtime / 'include'}",
                str(src),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 0, f"{rel}:\n{proc.stderr}"


# (gradOutput, self, target) shapes -> NumPy's broadcast shape (None: they do not broadcast)
SMLB_SHAPES = [
    ((2, 3), (2, 3), (2, 3)),
    ((4, 1, 3), (5, 1), (3,)),
    ((), (2, 2), (1,)),
    ((7, 0, 2), (1, 2), (7, 1, 1)),
    ((2, 3), (3, 2), (2, 3)),
    ((8,), (4,), (8,)),
]


def _np_broadcast(*shapes: tuple[int, ...]) -> list[int] | None:
    try:
        return list(np.broadcast_shapes(*shapes))
    except ValueError:
        return None


@pytest.mark.parametrize("product", ["Ascend910", "Ascend910B"])
def test_soft_margin_loss_infershape(product: str, built_op: Callable[[str, str], OpCallable]) -> None:
    spec = SPECS["soft_margin_loss_backward"]
    fn = built_op("soft_margin_loss_backward", product)
    by_source = {d.source: i for i, d in enumerate(spec.device_interface.inputs)}
    for shapes in SMLB_SHAPES:
        for dtype in ("FLOAT", "FLOAT16"):
            named = dict(zip(("gradOutput", "self", "target"), shapes))
            inputs: list[dict[str, object]] = [{}] * 3
            for name, shape in named.items():
                inputs[by_source[name]] = {"shape": list(shape), "dtype": dtype}
            got = fn.run_infershape({"inputs": inputs, "attrs": {"reduction": "sum"}})
            want = _np_broadcast(*shapes)
            if want is None:
                assert got["status"] == 561001, (shapes, got)
                continue
            assert got["status"] == 0, (shapes, got)
            assert got["outputs"] == [{"shape": want, "dtype": f"DT_{dtype}"}], shapes


@pytest.mark.parametrize("product", ["Ascend910", "Ascend910B"])
def test_embedding_dense_infershape(product: str, built_op: Callable[[str, str], OpCallable]) -> None:
    fn = built_op("embedding_dense_backward", product)
    cases = [((4, 5, 8), (20,), 7), ((3, 16), (3,), 0), ((2, 2, 2, 3), (2, 2, 2), 100), ((6, 0), (6,), 4)]
    for grad, indices, num_weights in cases:
        for grad_dtype, index_dtype in (("FLOAT", "INT64"), ("FLOAT16", "INT32")):
            got = fn.run_infershape(
                {
                    "inputs": [
                        {"shape": list(grad), "dtype": grad_dtype},
                        {"shape": list(indices), "dtype": index_dtype},
                    ],
                    "attrs": [num_weights, -1, False],
                }
            )
            assert got["status"] == 0, got
            # the fp32 sums, then the software SyncAll's counters (2 KiB of int32, a fixed shape)
            assert got["outputs"] == [
                {"shape": [num_weights, grad[-1]], "dtype": "DT_FLOAT"},
                {"shape": [512], "dtype": "DT_INT32"},
            ]
    bad = fn.run_infershape(
        {"inputs": [{"shape": [2, 3], "dtype": "FLOAT"}, {"shape": [2], "dtype": "INT64"}], "attrs": [-5, -1, False]}
    )
    assert bad["status"] == 561001


@pytest.mark.parametrize("op", SEED_OPS)
def test_binary_config_lists_the_opdef_combinations(op: str, built_op: Callable[[str, str], OpCallable]) -> None:
    spec = SPECS[op]
    for product_name in spec.products:
        product = CATALOGUE.get(product_name)
        opdef = built_op(op, product_name).opdef()
        config = opdef["configs"][product.config_name] or opdef
        path = _folder(op) / "op_host" / "config" / product.config_name / f"{spec.kernel}_binary.json"
        binary = json.loads(path.read_text())
        assert binary["op_type"] == opdef["op_type"]
        width = len(config["inputs"][0]["dtypes"])
        want = {
            tuple(
                (t["name"], dname(t["dtypes"][c]), "ND", t["param_type"].lower())
                for t in (*config["inputs"], *config["outputs"])
            )
            for c in range(width)
        }
        got = {
            tuple((t["name"], t["dtype"], t["format"], t["paramType"]) for t in (*e["inputs"], *e["outputs"]))
            for e in binary["op_list"]
        }
        assert got == want, product_name
        assert len(binary["op_list"]) == width
        for e in binary["op_list"]:
            assert [a["name"] for a in e.get("attrs", [])] == [a["name"] for a in opdef["attrs"]]
            assert [t["index"] for t in e["inputs"]] == list(range(len(e["inputs"])))


# ---------------------------------------------------------------------------------------------------------------
# op_host unit tests (tests/ut/op_host/test_<kernel>_tiling.cpp) built against runtime/ and run per product
# ---------------------------------------------------------------------------------------------------------------

UT_MAIN = """#include <gtest/gtest.h>
int main(int argc, char **argv) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
"""


UT_FLAGS = ["-std=c++17", "-Wall", "-Wextra", "-Werror", "-Wconversion", "-Wsign-conversion"]
#: The unit tests' include path, as ops-nn's (its tests/ut/common, then the CANN headers): the emulation's
#: copies of ops-nn's tests/ut/common headers live in runtime/include/tests/ut/common.
UT_INCLUDES = [f"-I{PATHS.runtime / 'include' / 'tests' / 'ut' / 'common'}", f"-I{PATHS.runtime / 'include'}"]

#: Unit-test objects of this session, by the source's path and text: a UT source compiles once and links
#: against each product's library (what a UT sees of the product comes from the library).
_UT_OBJECTS: dict[tuple[str, str], Path] = {}


def _compile_ut_object(source: Path, workdir: Path) -> Path:
    """Compiles a unit-test source (once per path and text in the session) with the system headers it reaches
    precompiled as the builder precompiles them for a library's units (:func:`codegen.build.pch._precompiled_std`,
    cached in the build cache): the unit sees the same declarations, and a UT object takes about 1.2 s of CPU
    instead of 1.6 s (test_gelu_grad_tiling.cpp: 1.38 s against 1.81 s)."""
    key = (str(source), source.read_text())
    if key not in _UT_OBJECTS:
        obj = workdir / f"{source.stem}.{len(_UT_OBJECTS)}.o"
        command = [*UT_FLAGS, *UT_INCLUDES, "-c", str(source)]
        pch = _precompiled_std(command, source, [Path(arg[2:]) for arg in UT_INCLUDES])
        proc = subprocess.run(
            [CXX, *pch, *command, "-o", str(obj)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
        _UT_OBJECTS[key] = obj
    return _UT_OBJECTS[key]


@pytest.fixture(scope="module")
def ut_workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where this module's unit-test objects are compiled (each once)."""
    return tmp_path_factory.mktemp("ut-objects")


def _build_ut(op: str, product: str, source: Path, workdir: Path) -> Path:
    """Compiles the unit-test ``source`` and a gtest main (each once per session) and links them against
    the (op, product) library without its kernel (an op_host UT calls the tiling and infershape, never the
    kernel; ops-nn links it against the tiling and infershape modules only: ``build_op(host_only=True)``, whose
    host objects are the full build's, from the build cache); returns the executable."""
    lib = build_op(SPECS[op], CATALOGUE.get(product), host_only=True).library
    main = workdir / "ut_main.cpp"
    if not main.exists():
        main.write_text(UT_MAIN)
    exe = workdir / f"ut_{op}_{product}_{source.stem}"
    objs = [_compile_ut_object(source, workdir), _compile_ut_object(main, workdir)]
    proc = subprocess.run(
        [CXX, *map(str, objs), str(lib), f"-Wl,-rpath,{lib.parent}", "-pthread", "-o", str(exe)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return exe


def _run_ut(exe: Path) -> tuple[int, str]:
    proc = subprocess.run([str(exe)], capture_output=True, text=True, check=False, timeout=300)
    return proc.returncode, proc.stdout + proc.stderr


def _ut_source(op: str) -> Path:
    return _folder(op) / "tests" / "ut" / "op_host" / f"test_{SPECS[op].kernel}_tiling.cpp"


def _ut_pairs() -> list[tuple[str, str]]:
    """The (op, product) pairs whose op_host tiling UT runs, sorted: every op on its first product (what the
    op brings: spec data, its inputs, dtypes, attributes and buffer counts), and for each family and each
    product any of its ops lists, the family's first op (by name) that lists it (the family's tiling template
    under every product's UB, cores, DataCopyPad, bf16 and SyncAll: both copy paths of every family that has
    a product without DataCopyPad).

    Why this sample covers every pair: a UT case's expected values come from the op's plan on a product
    (:mod:`codegen.plan`), the values it checks from the same family's tiling template compiled for that
    product. What one product brings enters each family's formulas alike for every op, which the family's run
    on every product exercises; what an op brings, its own run. A product's other registered columns (their
    tiling keys) are the op's OpDef data, compared with ops-nn's in tests/test_opdef.py. Running every op on
    every product builds about three times the libraries and checks no further rule."""
    pairs = {(op, spec.products[0]) for op, spec in SPECS.items()}
    family_products: dict[tuple[str, str], str] = {}
    for op, spec in sorted(SPECS.items()):
        for product in spec.products:
            family_products.setdefault((spec.family, product), op)
    pairs |= {(op, product) for (_, product), op in family_products.items()}
    return sorted(pairs)


def _registered_columns(op: str, product: str) -> str:
    """The dtype/format combinations the op's binary config registers on ``product``'s SoC (its ``op_list``,
    as JSON): products that register other columns get UT cases of their own (a column's tiling key)."""
    config = CATALOGUE.get(product).config_name
    path = _folder(op) / "op_host" / "config" / config / f"{SPECS[op].kernel}_binary.json"
    return json.dumps(json.loads(path.read_text())["op_list"], sort_keys=True)


def _ut_params() -> list[object]:
    return [pytest.param(op, p, id=f"{op}-{p}") for op, p in _ut_pairs()]


def test_the_unit_test_sample_reaches_every_op_family_and_product() -> None:
    """:func:`_ut_pairs` runs every op and every (family, product) pair any op lists, both copy paths of a
    family among them where it lists a product without DataCopyPad."""
    pairs = _ut_pairs()
    assert {op for op, _ in pairs} == set(SPECS)
    assert all(p in SPECS[op].products for op, p in pairs)
    listed = {(spec.family, p) for spec in SPECS.values() for p in spec.products}
    assert {(SPECS[op].family, p) for op, p in pairs} == listed
    for family in {s.family for s in SPECS.values()}:
        pads = {CATALOGUE.get(p).data_copy_pad for op, p in pairs if SPECS[op].family == family}
        assert pads == {
            CATALOGUE.get(p).data_copy_pad for s in SPECS.values() if s.family == family for p in s.products
        }
    assert ("embedding_dense_backward", "Ascend910") in pairs and ("add_rms_norm", "Ascend310P") in pairs


@pytest.mark.parametrize(("op", "product"), _ut_params())
def test_op_host_unit_test_passes_on_each_product(op: str, product: str, ut_workdir: Path) -> None:
    """The generated op_host UT compiles against runtime/ (-Werror) and every case computed for the
    product passes; the other products' cases are skipped, none fails. The (op, product) pairs are the
    sample of :func:`_ut_pairs` (every op on both copy paths, every family on every product)."""
    source = _ut_source(op)
    text = source.read_text()
    assert "#include <gtest/gtest.h>" in text
    assert f"class {SPECS[op].op_type}Tiling : public testing::Test" in text
    ours = text.count(f'GTEST_SKIP() << "case computed for {product}";')
    total = text.count("TEST_F(")
    assert ours >= 3, f"fewer than 3 cases for {product}"
    rc, out = _run_ut(_build_ut(op, product, source, ut_workdir))
    assert rc == 0, out
    assert f"[  PASSED  ] {ours} tests." in out, out
    assert "[  FAILED  ]" not in out, out
    assert f"[==========] {total} tests ran." in out
    if total > ours:
        assert f"[  SKIPPED ] {total - ours} tests." in out


def _infer_ut_source(op: str) -> Path:
    return _folder(op) / "tests" / "ut" / "op_host" / f"test_{SPECS[op].kernel}_infershape.cpp"


@pytest.mark.parametrize("op", sorted(SPECS))
def test_op_host_infershape_unit_test_passes(op: str, ut_workdir: Path) -> None:
    """The generated infershape UT compiles against runtime/ (-Werror) and every case passes (on the op's
    first product; the infershape does not depend on the product), the InferDataType case of every distinct
    OpDef dtype column among them."""
    source = _infer_ut_source(op)
    text = source.read_text()
    total = text.count("TEST_F(")
    assert total >= 1
    assert text.count("InferDataTypeContextFaker()") >= 1
    rc, out = _run_ut(_build_ut(op, SPECS[op].products[0], source, ut_workdir))
    assert rc == 0, out
    assert f"[  PASSED  ] {total} tests." in out, out


def test_infershape_unit_test_with_a_wrong_shape_fails(tmp_path: Path) -> None:
    """Changing the expected broadcast shape, expecting success where InferShape fails, or expecting another
    output dtype than an OpDef column registers, fails the UT."""
    op = "soft_margin_loss_backward"
    text = _infer_ut_source(op).read_text()
    assert "(std::vector<int64_t>{4, 5, 3})" in text
    dtype = "EXPECT_EQ(context->GetOutputDataType(0), ge::DT_FLOAT16);"
    assert text.count(dtype) == 1, "one OpDef column with a FLOAT16 output"
    wrongs = {
        "shape": text.replace("(std::vector<int64_t>{4, 5, 3})", "(std::vector<int64_t>{4, 5, 4})"),
        "status": text.replace("(context), ge::GRAPH_FAILED);", "(context), ge::GRAPH_SUCCESS);"),
        "dtype": text.replace(dtype, dtype.replace("DT_FLOAT16", "DT_BF16")),
    }
    for name, wrong in wrongs.items():
        assert wrong != text
        source = tmp_path / name / _infer_ut_source(op).name
        source.parent.mkdir()
        source.write_text(wrong)
        rc, out = _run_ut(_build_ut(op, "Ascend910B", source, source.parent))
        assert rc != 0, out
        assert "[  FAILED  ] 1 tests, listed below:" in out, out


def _one_case(text: str, marker: str) -> tuple[str, str, str]:
    """``text`` split around the body of the TEST_F that holds ``marker``: (before, body, after)."""
    at = text.index(marker)
    start = text.rindex("TEST_F(", 0, at)
    end = text.index("\n}\n", at) + 3
    return text[:start], text[start:end], text[end:]


def test_op_host_unit_test_with_a_wrong_expected_value_fails(tmp_path: Path) -> None:
    """Changing one expected value (the block dim, then a tiling field) makes the UT fail on that case."""
    op, product = "soft_margin_loss_backward", "Ascend910B"
    head, body, tail = _one_case(_ut_source(op).read_text(), f'GTEST_SKIP() << "case computed for {product}";')
    launch = re.search(r"ExpectLaunch\(context, \*workspace, (\d+)ULL, (\d+)U, ", body)
    field = re.search(r"FieldAt<int64_t>\(data, 0, found\), (\d+)LL\) << \"tiling field totalLength\"", body)
    assert launch is not None and field is not None, body
    block, total = int(launch.group(2)), int(field.group(1))
    wrongs = {
        "block": body.replace(f"{launch.group(1)}ULL, {block}U, ", f"{launch.group(1)}ULL, {block + 1}U, "),
        "field": body.replace(f"found), {total}LL)", f"found), {total + 32}LL)"),
    }
    for name, wrong in wrongs.items():
        assert wrong != body
        source = tmp_path / name / _ut_source(op).name
        source.parent.mkdir()
        source.write_text(head + wrong + tail)
        rc, out = _run_ut(_build_ut(op, product, source, source.parent))
        assert rc != 0, out
        assert "[  FAILED  ] 1 tests, listed below:" in out, out
        assert "Failure" in out


#: Unit-test cases built wrongly, as a test author might: what is left out of the first Ascend910B tiling case
#: (or the infershape broadcast case) of soft_margin_loss_backward (regular expressions, each with what
#: replaces it), and what the failed run prints. CANN's OpTilingContextBuilder refuses a missing compile or
#: platform info with these messages; a shape never given stays the default scalar shape, as in ops-nn's
#: faker, so the broadcast InferShape gives another shape; an input with neither shape nor tensor desc leaves
#: fewer tensors than instances, which CANN would read from the next slots and the emulation refuses.
_NO_INPUT2_SHAPE = [(r"\n *gert::StorageShape input2 = [^\n]*", ""), (r", &input2\}\)", "})")]
WRONG_FAKERS = {
    "no compile info": (
        "tiling",
        [(r"\n *uint8_t compileInfo = 0;", ""), (r"\n *\.CompileInfo\(&compileInfo\)", "")],
        "Compile info is nullptr",
    ),
    "no platform info": ("tiling", [(r"\n *\.PlatformInfo\(&platformInfo\)", "")], "Platform info is nullptr"),
    "an input missing": (
        "tiling",
        [*_NO_INPUT2_SHAPE, (r"\n *\.NodeInputTd\(2, [^\n]*", "")],
        "2 input tensors for 3 input instances",
    ),
    "an input shape missing": ("infershape", _NO_INPUT2_SHAPE, "Expected: (Dims(*context->GetOutputShape(0)))"),
}


@pytest.mark.parametrize("wrong", sorted(WRONG_FAKERS))
def test_a_wrongly_built_faker_fails_the_unit_test(wrong: str, tmp_path: Path) -> None:
    """A context faker missing a compile info, a platform info, an input, or an input's shape fails the case
    that uses it, saying why; the other cases still pass."""
    op, product = "soft_margin_loss_backward", "Ascend910B"
    kind, drops, message = WRONG_FAKERS[wrong]
    path = _ut_source(op) if kind == "tiling" else _infer_ut_source(op)
    marker = f'GTEST_SKIP() << "case computed for {product}";' if kind == "tiling" else "Broadcasts) {"
    head, body, tail = _one_case(path.read_text(), marker)
    for pattern, replacement in drops:
        body, n = re.subn(pattern, replacement, body)
        assert n == 1, pattern
    source = tmp_path / path.name
    source.write_text(head + body + tail)
    rc, out = _run_ut(_build_ut(op, product, source, tmp_path))
    assert rc != 0, out
    assert "[  FAILED  ] 1 tests, listed below:" in out, out
    assert message in out, out


def test_gtest_emulation_runs_fixtures_and_reports_failures(tmp_path: Path) -> None:
    """runtime/include/gtest/gtest.h: SetUpTestCase/TearDownTestCase once per fixture, SetUp/TearDown per
    test, a failed ASSERT stops its test, EXPECT failures keep going, GTEST_SKIP skips, and RUN_ALL_TESTS
    returns 1 on any failure."""
    src = tmp_path / "t.cpp"
    src.write_text(
        """#include <gtest/gtest.h>
#include <iostream>
class Fx : public testing::Test {
 protected:
  static void SetUpTestCase() { std::cout << "suite-up" << std::endl; }
  static void TearDownTestCase() { std::cout << "suite-down" << std::endl; }
  void SetUp() override { value_ = 41; }
  void TearDown() override { std::cout << "down" << std::endl; }
  int value_ = 0;
};
TEST_F(Fx, Passes) { EXPECT_EQ(value_ + 1, 42); EXPECT_NE(value_, 0); EXPECT_TRUE(value_ > 0); }
TEST_F(Fx, AssertStops) { ASSERT_EQ(value_, 1) << "why"; std::cout << "not reached" << std::endl; }
TEST(Plain, ExpectContinues) { EXPECT_EQ(1, 2); std::cout << "reached" << std::endl; }
TEST(Plain, Skips) { GTEST_SKIP() << "later"; EXPECT_EQ(1, 2); }
int main(int argc, char **argv) { testing::InitGoogleTest(&argc, argv); return RUN_ALL_TESTS(); }
"""
    )
    exe = tmp_path / "t"
    build = subprocess.run(
        [CXX, "-std=c++17", "-Wall", "-Wextra", "-Werror", f"-I{PATHS.runtime / 'include'}", str(src), "-o", str(exe)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert build.returncode == 0, build.stderr
    rc, out = _run_ut(exe)
    assert rc == 1
    assert out.count("suite-up") == 1 and out.count("suite-down") == 1
    assert out.count("down") == 3  # two tests' TearDown + suite-down
    assert "[       OK ] Fx.Passes" in out
    assert "[  FAILED  ] Fx.AssertStops" in out and "not reached" not in out and "why" in out
    assert "[  FAILED  ] Plain.ExpectContinues" in out and "reached" in out
    assert "[  SKIPPED ] Plain.Skips" in out
    assert "[  PASSED  ] 1 tests." in out and "[  FAILED  ] 2 tests, listed below:" in out


@pytest.mark.parametrize("family", sorted({s.family for s in SPECS.values()}))
def test_each_tiling_unit_test_case_checks_every_integer_field_of_the_tiling_struct(family: str) -> None:
    """A case compared only some fields (an elementwise case never its tailLength, which every core uses when
    formerNum is 0): every integer field the tiling struct declares is compared in every case (a fp32 attr
    field is the spec's value, not a tiling decision)."""
    op = next(op for op, s in sorted(SPECS.items()) if s.family == family)
    header = _folder(op) / "op_host" / f"{SPECS[op].kernel}_tiling.h"
    declared = re.findall(r"TILING_DATA_FIELD_DEF\((u?int\d+_t), (\w+)\)", header.read_text())
    assert declared, header
    text = _ut_source(op).read_text()
    cases = text.count("TEST_F(")
    for _, name in declared:
        assert len(re.findall(rf'found\), -?\d+LL\) << "tiling field {name}";', text)) == cases, name
