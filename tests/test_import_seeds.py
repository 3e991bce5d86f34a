"""`opgen import` of the two seed documents (tests/data/aclnn_docs/, the English rendering): the imported
starter asks exactly the questions listed here, and once the test answers them with the hand-written spec's
values, its interface (parameters with their aclnn types and order, dtypes per product, attributes with
types and value sets, statuses and constraints) equals the hand-written spec's, except for the differences
listed here.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import yaml

from codegen.aclnn_doc import import_doc
from codegen.paths import project_paths
from codegen.registry import families
from codegen.types import DType
from tests.aclnn_doc_helpers import (
    FakeTensor,
    answer,
    attrs,
    catalogue,
    dtypes_per_product,
    hand_written,
    load_answered,
    params,
    questions,
    rejected,
)

DOCS = Path(__file__).parent / "data" / "aclnn_docs"
ND_LAYOUTS = ("ND", "NCHW", "NHWC", "NCDHW", "NDHWC", "HWCN")


def _import(tmp_path: Path, doc: str, family: str | None) -> tuple[dict, dict[int, str]]:
    result = import_doc(
        DOCS / doc,
        catalogue(),
        tuple(f.name for f in families()),
        tmp_path,
        out=tmp_path / "starter.yaml",
        family=family,
    )
    return yaml.safe_load(result.path.read_text()), {line: q.text for line, q in result.questions}


def _hand_yaml(stem: str) -> dict:
    return yaml.safe_load((project_paths().specs / f"{stem}.yaml").read_text())


def test_soft_margin_loss_backward_seed(tmp_path: Path) -> None:
    tree, _ = _import(tmp_path, "aclnnSoftMarginLossBackward.txt", "elementwise")
    hand = hand_written("soft_margin_loss_backward")
    asked = questions(tree)
    # what the document does not say: the device names, ranks, out's constness, the math, the support list
    assert set(asked) == {
        "op_type",
        "kernel",
        "category",
        "products",
        "inputs[0].rank",
        "inputs[1].rank",
        "inputs[2].rank",
        "outputs[0].rank",
        "outputs[0].const",
        "compute",
        "example",
    }
    # the products its dtype lists name: the document never names Ascend950, which the hand-written spec adds
    assert asked["products"].endswith("proposed: [Ascend910, Ascend910B, Ascend910_93]")
    assert hand.products == ("Ascend910", "Ascend910B", "Ascend910_93", "Ascend950")
    answers = {
        "op_type": "SoftMarginLossGrad",
        "kernel": "soft_margin_loss_grad",
        "category": "loss",
        "products": list(hand.products),
        **{f"inputs[{i}].rank": [0, 8] for i in range(3)},
        "outputs[0].rank": [0, 8],
        "outputs[0].const": False,
        "compute": _hand_yaml("soft_margin_loss_backward")["compute"],
        "example": _hand_yaml("soft_margin_loss_backward")["example"],
    }
    got = load_answered(answer(tree, answers), "soft_margin_loss_backward", tmp_path)
    cat = catalogue()
    assert (
        params(got)
        == params(hand)
        == [
            ("gradOutput", "const aclTensor*"),
            ("self", "const aclTensor*"),
            ("target", "const aclTensor*"),
            ("reduction", "int64_t"),
            ("out", "aclTensor*"),
        ]
    )
    assert dtypes_per_product(got, cat) == dtypes_per_product(hand, cat)
    assert dtypes_per_product(got, cat)[("out", "Ascend910")] == {"FLOAT", "FLOAT16"}
    assert attrs(got) == attrs(hand) == [("reduction", "int64", ((0, "none"), (1, "mean"), (2, "sum")), ())]
    assert got.constraints == hand.constraints == ()
    assert got.shape_status == hand.shape_status == 161002
    assert got.deterministic is hand.deterministic is True
    assert str(got.outputs[0].shape) == str(hand.outputs[0].shape)  # broadcast(gradOutput, self, target)
    # differences the document states otherwise: it names ND only; the hand-written spec accepts ND's layouts
    for t in (*got.inputs, *got.outputs):
        assert t.formats == ("ND",)
    for t in (*hand.inputs, *hand.outputs):
        assert t.formats == ND_LAYOUTS


def test_embedding_dense_backward_seed(tmp_path: Path) -> None:
    tree, _ = _import(tmp_path, "aclnnEmbeddingDenseBackward.txt", None)
    hand = hand_written("embedding_dense_backward")
    asked = questions(tree)
    assert set(asked) == {
        "op_type",
        "kernel",
        "category",
        "family",
        "summary",  # "the backward computation of [damaged] and accumulates ..."
        "products",
        "deterministic",
        "outputs[0].shape",
        "outputs[0].const",
        "compute",
        "example",
        "constraints[0].when",  # "If scale is set to true": no parameter is called scale
        "constraints[1].when",
    }
    assert asked["products"].endswith("proposed: [Ascend910, Ascend910B, Ascend910_93, Ascend950]")
    assert asked["constraints[0].when"].endswith("proposed: dtype(indices) == INT32")
    assert asked["constraints[1].when"].endswith("proposed: dtype(indices) == INT64")
    own = _hand_yaml("embedding_dense_backward")
    answers = {
        "op_type": "EmbeddingDenseGradAccumulate",
        "kernel": "embedding_dense_grad_accumulate",
        "category": "index",
        "family": "index_accumulate",
        "summary": own["summary"],
        "products": list(hand.products),
        "deterministic": False,
        "outputs[0].shape": own["outputs"][0]["shape"],
        "outputs[0].const": True,
        "compute": own["compute"],
        "example": own["example"],
        "constraints[0].when": "scaleGradByFreq and dtype(indices) == INT32",
        "constraints[1].when": "scaleGradByFreq and dtype(indices) == INT64",
    }
    got = load_answered(answer(tree, answers), "embedding_dense_backward", tmp_path)
    cat = catalogue()
    assert (
        params(got)
        == params(hand)
        == [
            ("grad", "const aclTensor*"),
            ("indices", "const aclTensor*"),
            ("numWeights", "uint64_t"),
            ("paddingIdx", "uint64_t"),
            ("scaleGradByFreq", "bool"),
            ("out", "const aclTensor*"),
        ]
    )
    assert dtypes_per_product(got, cat) == dtypes_per_product(hand, cat)
    assert dtypes_per_product(got, cat)[("grad", "Ascend910")] == {"FLOAT", "FLOAT16"}
    assert len(dtypes_per_product(got, cat)[("indices", "Ascend910")]) == 9
    assert attrs(got) == attrs(hand)
    assert [t.rank for t in (*got.inputs, *got.outputs)] == [t.rank for t in (*hand.inputs, *hand.outputs)]
    assert got.shape_status == hand.shape_status
    # the documented limit, evaluated on both specs over a grid of calls (INT32 and INT64 indices, as documented)
    grid = itertools.product(
        ["Ascend910", "Ascend910B"],
        [0, 1, 31, 33, 1000, 100_000, 2_000_000],  # numWeights
        [1, 32],  # coreNum
        [1, 2000, 4000, 5000, 5004, 5005, 8000, 9000, 9007, 20_000],  # embedding dim
        [DType.INT32, DType.INT64],
        [False, True],
    )
    refused = 0
    for product, num_weights, cores, dim, index_dtype, scale in grid:
        call = {
            "grad": FakeTensor((4, dim), DType.FLOAT),
            "indices": FakeTensor((4,), index_dtype),
            "out": FakeTensor((num_weights, dim), DType.FLOAT),
            "numWeights": num_weights,
            "paddingIdx": 0,
            "scaleGradByFreq": scale,
        }
        mine, theirs = bool(rejected(got, product, call, cores)), bool(rejected(hand, product, call, cores))
        assert mine == theirs, (product, num_weights, cores, dim, index_dtype, scale)
        refused += mine
    assert refused > 20  # the grid crosses the limit (not a grid where neither spec refuses anything)
    # a difference: the hand-written spec applies the INT32 bound to every other index dtype (CANN converts them
    # to INT32, its notes say); the document names INT32 and INT64 only, so the import checks FLOAT indices never
    call = {
        "grad": FakeTensor((4, 9000), DType.FLOAT),
        "indices": FakeTensor((4,), DType.FLOAT),
        "numWeights": 64,
        "paddingIdx": 0,
        "scaleGradByFreq": True,
    }
    assert rejected(got, "Ascend910", call, 32) == [] and rejected(hand, "Ascend910", call, 32) != []
    # formats: the document names ND only
    assert all(t.formats == ("ND",) for t in (*got.inputs, *got.outputs))
    assert all(t.formats == ND_LAYOUTS for t in (*hand.inputs, *hand.outputs))
