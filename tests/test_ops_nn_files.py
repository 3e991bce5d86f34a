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
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from codegen.build import CXX
from codegen.paths import project_paths
from codegen.runner import compile_op
from codegen.specs import load_project

CATALOGUE, SPECS = load_project()
PATHS = project_paths()
GENERATED = PATHS.generated
SEED_OPS = ("soft_margin_loss_backward", "embedding_dense_backward")


#: binary.json dtype names ops-nn uses (e.g. index/embedding_dense_grad_v2/op_host/config/ascend350/...).
BINARY_NAMES = {"DT_FLOAT": "float32", "DT_FLOAT16": "float16", "DT_BF16": "bfloat16", "DT_DOUBLE": "float64"}


def dname(ge: str) -> str:
    return BINARY_NAMES.get(ge, ge.removeprefix("DT_").lower())


def _folder(op: str) -> Path:
    return GENERATED / op


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
    assert f"OPTYPE {k} ACLNNTYPE aclnn" in cmake


@pytest.mark.parametrize("op", sorted(SPECS))
def test_headers_compile_against_the_runtime(op: str, tmp_path: Path) -> None:
    """The proto and L0 headers (not part of any library's translation units) compile on their own."""
    spec = SPECS[op]
    root = _folder(op)
    for rel in (f"op_graph/{spec.kernel}_proto.h", f"op_api/{spec.kernel}.h"):
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
def test_soft_margin_loss_infershape(product: str) -> None:
    spec = SPECS["soft_margin_loss_backward"]
    fn = compile_op("soft_margin_loss_backward", product)
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
def test_embedding_dense_infershape(product: str) -> None:
    fn = compile_op("embedding_dense_backward", product)
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
            assert got["outputs"] == [{"shape": [num_weights, grad[-1]], "dtype": "DT_FLOAT"}]
    bad = fn.run_infershape(
        {"inputs": [{"shape": [2, 3], "dtype": "FLOAT"}, {"shape": [2], "dtype": "INT64"}], "attrs": [-5, -1, False]}
    )
    assert bad["status"] == 561001


@pytest.mark.parametrize("op", SEED_OPS)
def test_binary_config_lists_the_opdef_combinations(op: str) -> None:
    spec = SPECS[op]
    for product_name in spec.products:
        product = CATALOGUE.get(product_name)
        opdef = compile_op(op, product_name).opdef()
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
