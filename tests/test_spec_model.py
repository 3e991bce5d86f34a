"""Loading the real specs/ gives the expected typed model; the model's helpers behave as documented."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from codegen.families.elementwise.compute import ElementwiseCompute
from codegen.registry import family_names
from codegen.spec.errors import SourceLoc
from codegen.spec.expr import ExprType, as_shape, evaluate, parse_expr, to_source
from codegen.spec.loader import load_catalogue, load_op_spec, load_specs
from codegen.spec.model import (
    AttrSpec,
    Catalogue,
    Constraint,
    DType,
    OpSpec,
    Product,
    TensorSpec,
    snake_case,
)

ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT / "specs"
F, F16, BF16 = DType.FLOAT, DType.FLOAT16, DType.BF16
A2_ATOMICS = (DType.INT8, DType.INT16, DType.FLOAT16, DType.BF16, DType.INT32, DType.FLOAT)


@pytest.fixture(scope="module")
def loaded() -> tuple[Catalogue, dict[str, OpSpec]]:
    return load_specs(SPECS)


@pytest.fixture(scope="module")
def smlb(loaded: tuple[Catalogue, dict[str, OpSpec]]) -> OpSpec:
    return loaded[1]["soft_margin_loss_backward"]


def test_every_spec_file_loads_under_its_snake_name(loaded: tuple[Catalogue, dict[str, OpSpec]]) -> None:
    _, specs = loaded
    stems = sorted(p.stem for p in SPECS.glob("*.yaml") if p.name != "products.yaml")
    assert sorted(specs) == stems
    assert "soft_margin_loss_backward" in specs
    for stem, spec in specs.items():
        assert spec.snake == stem
        assert Path(spec.path).name == f"{stem}.yaml"
        assert spec.family in family_names()


# Values from reference/ascend-platform.md ("Products" table; runtime platform config files).
EXPECTED_PRODUCTS = {
    "Ascend910": dict(npu_arch=1001, ub_bytes=262144, vector_core_num=32, bf16=False, data_copy_pad=False,
                      atomic_add_dtypes=(F,), queue_buffer_cap=4, soc_version="ASCEND910", config_name="ascend910"),
    "Ascend910B": dict(npu_arch=2201, ub_bytes=196608, vector_core_num=48, bf16=True, data_copy_pad=True,
                       atomic_add_dtypes=A2_ATOMICS, queue_buffer_cap=8, soc_version="ASCEND910B",
                       config_name="ascend910b"),
    "Ascend910_93": dict(npu_arch=2201, ub_bytes=196608, vector_core_num=48, bf16=True, data_copy_pad=True,
                         atomic_add_dtypes=A2_ATOMICS, queue_buffer_cap=8, soc_version="ASCEND910_93",
                         config_name="ascend910_93"),
    "Ascend950": dict(npu_arch=3510, ub_bytes=253952, vector_core_num=64, bf16=True, data_copy_pad=True,
                      atomic_add_dtypes=A2_ATOMICS, queue_buffer_cap=8, soc_version="ASCEND950",
                      config_name="ascend950"),
    "Ascend310P": dict(npu_arch=2002, ub_bytes=262144, vector_core_num=8, bf16=False, data_copy_pad=False,
                       atomic_add_dtypes=(DType.INT16, DType.FLOAT16, F), queue_buffer_cap=8,
                       soc_version="ASCEND310P", config_name="ascend310p"),
}  # fmt: skip


def test_catalogue_matches_the_platform_reference(loaded: tuple[Catalogue, dict[str, OpSpec]]) -> None:
    catalogue, _ = loaded
    assert catalogue.names == ("Ascend910", "Ascend910B", "Ascend910_93", "Ascend950", "Ascend310P")
    assert catalogue.path == str(SPECS / "products.yaml")
    for name, fields in EXPECTED_PRODUCTS.items():
        product = catalogue.get(name)
        assert {k: getattr(product, k) for k in fields} == fields, name
        assert product.ub_bytes % 32 == 0
        assert product.source.startswith("platform config ")
        assert product.loc.file == str(SPECS / "products.yaml")
    assert catalogue.get("Ascend910").doc_term == "Atlas training series products"
    # The product's location is the line of its own list item (found in the file, not hard-coded).
    lines = (SPECS / "products.yaml").read_text(encoding="utf-8").splitlines()
    assert catalogue.get("Ascend910").loc.line == lines.index("  - name: Ascend910") + 1
    assert "Ascend950" in catalogue and "Ascend910C" not in catalogue


def test_catalogue_get_lists_names_on_a_miss(loaded: tuple[Catalogue, dict[str, OpSpec]]) -> None:
    with pytest.raises(KeyError, match="unknown product 'Ascend910C'; known: Ascend910, Ascend910B, Ascend910_93"):
        loaded[0].get("Ascend910C")


def test_product_supports_bf16_only_where_declared(loaded: tuple[Catalogue, dict[str, OpSpec]]) -> None:
    catalogue, _ = loaded
    assert not catalogue.get("Ascend910").supports(BF16)
    assert not catalogue.get("Ascend310P").supports(BF16)
    assert catalogue.get("Ascend910B").supports(BF16)
    assert all(catalogue.get("Ascend910").supports(d) for d in DType if d is not BF16)


def test_soft_margin_loss_backward_model(smlb: OpSpec, loaded: tuple[Catalogue, dict[str, OpSpec]]) -> None:
    catalogue, _ = loaded
    assert (smlb.op, smlb.op_type, smlb.kernel, smlb.family) == (
        "SoftMarginLossBackward",
        "SoftMarginLossGrad",
        "soft_margin_loss_grad",
        "elementwise",
    )
    assert smlb.aclnn_name == "aclnnSoftMarginLossBackward"
    assert smlb.snake == "soft_margin_loss_backward"
    assert smlb.products == ("Ascend910", "Ascend910B", "Ascend910_93", "Ascend950")
    assert smlb.deterministic is True
    assert smlb.input_names == ("gradOutput", "self", "target")
    assert smlb.output_names == ("out",)
    assert smlb.attr_names == ("reduction",)
    for t in (*smlb.inputs, *smlb.outputs):
        assert t.dtypes == (F, F16, BF16)
        assert t.rank == (0, 8)
        assert t.dtypes_for(catalogue.get("Ascend910")) == (F, F16)
        assert t.dtypes_for(catalogue.get("Ascend910B")) == (F, F16, BF16)
        assert t.dtypes_for(catalogue.get("Ascend950")) == (F, F16, BF16)
        assert t.optional is False and t.const is False and t.description
    spec_file = SPECS / "soft_margin_loss_backward.yaml"
    self_line = next(n for n, line in enumerate(spec_file.read_text().splitlines(), 1) if "name: self" in line)
    assert smlb.tensor("self").loc == SourceLoc(str(spec_file), self_line)
    out = smlb.tensor("out")
    assert out.shape is not None and to_source(out.shape) == "broadcast(gradOutput, self, target)"
    reduction = smlb.attr("reduction")
    assert reduction == AttrSpec(
        "reduction",
        "int64",
        ((0, "none"), (1, "mean"), (2, "sum")),
        1,
        "Reduction of the forward loss; mean divides by the element count of the broadcast shape.",
        reduction.loc,
    )
    assert (reduction.cpp_type, reduction.expr_type) == ("int64_t", ExprType.INT)
    assert (smlb.tiling.buffer_num, smlb.tiling.ub_reserved_bytes, smlb.tiling.min_bytes_per_core) == (2, 0, 32768)
    assert smlb.constraints == ()
    assert len(smlb.notes) == 8 and smlb.notes[0].startswith("Storage formats: ND and the formats")
    assert smlb.notes[1].startswith("sigmoid(z) is computed as 1 / (1 + exp(-z))")


def test_soft_margin_loss_backward_compute(smlb: OpSpec) -> None:
    compute = smlb.compute
    assert isinstance(compute, ElementwiseCompute)
    assert compute.promote == ("gradOutput", "self", "target")
    assert [(n, to_source(e)) for n, e in compute.scalars] == [("norm", "1 / numel(out) if reduction == 1 else 1")]
    assert compute.scalar_types == (("norm", ExprType.FLOAT),)
    assert [(n, to_source(e)) for n, e in compute.outputs] == [
        ("out", "-target * gradOutput * sigmoid(-target * self) * norm")
    ]
    norm = dict(compute.scalars)["norm"]
    assert evaluate(norm, {"reduction": 1, "out": (2, 4)}) == 0.125
    assert evaluate(norm, {"reduction": 2, "out": (2, 4)}) == 1
    formula = dict(compute.outputs)["out"]
    value = evaluate(formula, {"target": 1.0, "gradOutput": 2.0, "self": 0.0, "norm": 0.5})
    assert value == -0.5  # -1 * 2 * sigmoid(0) * 0.5


def test_soft_margin_loss_backward_example(smlb: OpSpec) -> None:
    ex = smlb.example
    assert ex is not None
    assert [n for n, _ in ex.inputs] == ["gradOutput", "self", "target"]
    grad = dict(ex.inputs)["gradOutput"]
    assert (grad.shape, grad.dtype, grad.values) == ((2, 2), F, (0.0, 1.0, 2.0, 3.0))
    assert all(isinstance(v, float) for v in grad.values or ())
    assert ex.attrs == (("reduction", 1),)
    assert (ex.output.shape, ex.output.dtype, ex.output.values) == ((2, 2), F, None)
    assert out_shape(smlb, dict(ex.inputs)) == (2, 2)


def out_shape(spec: OpSpec, tensors: dict[str, object]) -> tuple[int, ...]:
    shape = spec.outputs[0].shape
    assert shape is not None
    return as_shape(evaluate(shape, tensors))


def test_model_objects_are_frozen(smlb: OpSpec) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        smlb.op = "Other"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        smlb.inputs[0].dtypes = ()  # type: ignore[misc]
    assert isinstance(smlb.inputs, tuple) and isinstance(smlb.inputs[0].dtypes, tuple)


def test_lookup_errors_list_names(smlb: OpSpec) -> None:
    with pytest.raises(
        KeyError, match="SoftMarginLossBackward has no tensor 'x'; tensors: gradOutput, self, target, out"
    ):
        smlb.tensor("x")
    with pytest.raises(KeyError, match="SoftMarginLossBackward has no attr 'x'; attrs: reduction"):
        smlb.attr("x")


def test_specs_load_with_a_catalogue_elsewhere(tmp_path: Path) -> None:
    shutil.copy(SPECS / "soft_margin_loss_backward.yaml", tmp_path)
    catalogue_path = tmp_path / "elsewhere" / "catalogue.yaml"
    catalogue_path.parent.mkdir()
    shutil.copy(SPECS / "products.yaml", catalogue_path)
    catalogue, specs = load_specs(tmp_path, catalogue_path)
    assert list(specs) == ["soft_margin_loss_backward"]
    assert catalogue.path == str(catalogue_path)
    single = load_op_spec(tmp_path / "soft_margin_loss_backward.yaml", load_catalogue(catalogue_path))
    assert single == specs["soft_margin_loss_backward"]


CONSTRAINED = """\
op: TableGrad
op_type: TableGrad
category: activation
family: elementwise
summary: Test op with a constraint.
products: [Ascend910, Ascend910B]
deterministic: true
inputs:
  - {name: grad, dtypes: [FLOAT], rank: [2, 8], description: Gradient.}
  - {name: indices, dtypes: [FLOAT], rank: [1, 8], description: Rows., optional: true, default: 0}
attrs:
  - {name: numWeights, type: uint64, description: Rows of out.}
  - {name: scaleGradByFreq, type: bool, default: false, description: Scale.}
  - {name: eps, type: double, default: 1, description: Epsilon.}
outputs:
  - {name: out, dtypes: [FLOAT], rank: [2, 2], shape: "shape(numWeights, dim(grad, -1))", const: true,
     description: Result.}
compute:
  out: "grad"
tiling: {buffer_num: 1, ub_reserved_bytes: 20480, min_bytes_per_core: 1024}
constraints:
  - name: training_dim_limit
    products: [Ascend910]
    when: "scaleGradByFreq and dtype(indices) == INT32"
    let:
      countsSize: "numWeights // coreNum + numWeights % coreNum"
      embeddingDim: "dim(grad, -1)"
    require: "embeddingDim < (180192 - countsSize * 4) / 36"
    message: "embeddingDim {embeddingDim} too large for countsSize {countsSize} (numWeights {numWeights})"
example:
  inputs:
    grad: {shape: [2, 3], dtype: FLOAT, values: [1, 2, 3, 4, 5, 6.5]}
    indices: {shape: [2], dtype: FLOAT, values: [1, 2]}
  attrs: {numWeights: 4}
  output: {shape: [4, 3], dtype: FLOAT}
"""


def test_constraint_attr_and_example_model(tmp_path: Path, loaded: tuple[Catalogue, dict[str, OpSpec]]) -> None:
    path = tmp_path / "table_grad.yaml"
    path.write_text(CONSTRAINED)
    spec = load_op_spec(path, loaded[0])
    assert spec.tensor("indices").optional is True and spec.tensor("indices").default == 0.0
    assert spec.tensor("out").const is True
    assert spec.attr("scaleGradByFreq").default is False
    assert spec.attr("eps").default == 1.0 and isinstance(spec.attr("eps").default, float)
    assert spec.tiling.ub_reserved_bytes == 20480
    (c,) = spec.constraints
    assert isinstance(c, Constraint)
    assert (c.name, c.products, c.status, c.loc.line) == ("training_dim_limit", ("Ascend910",), 161002, 22)
    assert c.when is not None and to_source(c.when) == "scaleGradByFreq and dtype(indices) == INT32"
    assert [(n, to_source(e)) for n, e in c.let] == [
        ("countsSize", "numWeights // coreNum + numWeights % coreNum"),
        ("embeddingDim", "dim(grad, -1)"),
    ]
    env: dict[str, object] = {
        "numWeights": 100,
        "coreNum": 32,
        "scaleGradByFreq": True,
        "grad": (8, 4000),
        "indices": _Tensor((8,), "INT32"),
        "INT32": "INT32",
    }
    assert evaluate(c.when, env) is True
    for name, e in c.let:
        env[name] = evaluate(e, env)
    assert (env["countsSize"], env["embeddingDim"]) == (3 + 4, 4000)
    assert evaluate(c.require, env) is True  # 4000 < (180192 - 28) / 36 = 5004.55...
    env["grad"] = (8, 5005)
    env["embeddingDim"] = evaluate(dict(c.let)["embeddingDim"], env)
    assert evaluate(c.require, env) is False
    assert c.message.format(**env) == "embeddingDim 5005 too large for countsSize 7 (numWeights 100)"
    ex = spec.example
    assert ex is not None
    assert ex.attrs == (("numWeights", 4), ("scaleGradByFreq", False), ("eps", 1.0))
    assert dict(ex.inputs)["indices"].values == (1, 2)
    assert dict(ex.inputs)["grad"].values == (1.0, 2.0, 3.0, 4.0, 5.0, 6.5)
    assert out_shape(spec, {**dict(ex.inputs), **dict(ex.attrs)}) == (4, 3)


@dataclasses.dataclass(frozen=True)
class _Tensor:
    shape: tuple[int, ...]
    dtype: str


def test_dtype_properties() -> None:
    table = {
        #  name: (acl_id, itemsize, numpy, kernel, host, floating, 16-bit float)
        "FLOAT": (0, 4, "float32", "float", "float", True, False),
        "FLOAT16": (1, 2, "float16", "half", "aclFloat16", True, True),
        "INT8": (2, 1, "int8", "int8_t", "int8_t", False, False),
        "INT32": (3, 4, "int32", "int32_t", "int32_t", False, False),
        "UINT8": (4, 1, "uint8", "uint8_t", "uint8_t", False, False),
        "INT16": (6, 2, "int16", "int16_t", "int16_t", False, False),
        "UINT16": (7, 2, "uint16", "uint16_t", "uint16_t", False, False),
        "UINT32": (8, 4, "uint32", "uint32_t", "uint32_t", False, False),
        "INT64": (9, 8, "int64", "int64_t", "int64_t", False, False),
        "UINT64": (10, 8, "uint64", "uint64_t", "uint64_t", False, False),
        "DOUBLE": (11, 8, "float64", "double", "double", True, False),
        "BOOL": (12, 1, "bool", "bool", "bool", False, False),
        "BF16": (27, 2, "bfloat16", "bfloat16_t", "uint16_t", True, True),
    }
    assert [d.name for d in DType] == list(table)
    for name, (acl, size, np_name, kernel, host, floating, half) in table.items():
        d = DType[name]
        assert (d.acl_id, d.itemsize, d.numpy_name, d.kernel_type, d.host_type) == (acl, size, np_name, kernel, host)
        assert (d.is_floating, d.is_16bit_float) == (floating, half)
        assert d.ge_name == f"DT_{name}" and d.acl_name == f"ACL_{name}"
        assert DType(acl) is d
    assert DType.BOOL.is_integer is False and DType.UINT64.is_integer is True and DType.FLOAT.is_integer is False


def test_numpy_names_are_real_numpy_dtypes() -> None:
    import ml_dtypes  # noqa: F401  (registers bfloat16)
    import numpy as np

    for d in DType:
        assert np.dtype(d.numpy_name).itemsize == d.itemsize


@pytest.mark.parametrize(
    ("op", "snake"),
    [
        ("SoftMarginLossBackward", "soft_margin_loss_backward"),
        ("EmbeddingDenseBackward", "embedding_dense_backward"),
        ("Conv2DBackward", "conv2d_backward"),
        ("AddRmsNorm", "add_rms_norm"),
        ("Abs", "abs"),
    ],
)
def test_snake_case(op: str, snake: str) -> None:
    assert snake_case(op) == snake


def test_model_can_be_built_in_code() -> None:
    loc = SourceLoc("made.py", 1)
    p = Product("X", "X series", "x", "X", 1, 1024, 2, False, False, (F,), 2, True, 0, "test", loc)
    t = TensorSpec("a", (F, BF16), (0, 8), "A.", False, None, loc)
    assert t.dtypes_for(p) == (F,)
    e = parse_expr("numel(a)", loc, "f")
    c = Constraint("c", ("X",), None, (), e, "m")
    assert (c.status, c.loc.line) == (161002, 0)
