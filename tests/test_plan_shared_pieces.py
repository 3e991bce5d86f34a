"""Pieces of codegen/plan/ every family's planner uses: the API document's lines (doc_lines, on a spec whose
example has a bool attr, elu_backward's isResult true, and one without an example) and a dtype's tiling-key
entry with its bf16 guard (dtype_keys), the tiling struct's values from a field table (tiling_fields) and
from a tiling decision's own table (tiling_decision)."""

from __future__ import annotations

import dataclasses

import pytest

from codegen.plan.doc_lines import example_lines, product_tiling_line
from codegen.plan.doc_tables import StatusRow, status_table
from codegen.plan.dtype_keys import DtypeKey, bf16_guard
from codegen.plan.products import archs_condition, no_fp32_reduce_condition
from codegen.plan.signature import l0_params
from codegen.plan.tiling_decision import TilingDecisionBase
from codegen.plan.tiling_fields import TilingField, tiling_values
from codegen.plan.unit_tests import ut_tensor, ut_tiling_case
from codegen.spec.model import DType
from codegen.specs import load_project


def test_example_lines_spell_bools_as_asked() -> None:
    _, specs = load_project()
    spec = next(s for s in specs.values() if s.snake == "elu_backward")
    head = [
        "`gradOutput`: FLOAT [2, 2] = [-2.0, -1.0, 0.0, 1.0]",
        "`selfOrResult`: FLOAT [2, 2] = [-2.0, -1.0, 0.0, 1.0]",
        "`alpha` = 1.0",
        "`scale` = 1.0",
        "`inputScale` = 1.0",
    ]
    assert example_lines(spec) == [*head, "`isResult` = True"]
    assert example_lines(spec, c_bools=True) == [*head, "`isResult` = true"]
    assert example_lines(dataclasses.replace(spec, example=None)) == []


def test_product_tiling_line() -> None:
    catalogue, _ = load_project()
    line = product_tiling_line(catalogue.get("Ascend950"), "tile 8 elements")
    assert line == "Ascend950: UB 253952 bytes, 64 cores, tile 8 elements."


def test_dtype_key_and_bf16_guard() -> None:
    catalogue, _ = load_project()
    a910, a910b, a310p = (catalogue.get(n) for n in ("Ascend910", "Ascend910B", "Ascend310P"))
    assert DtypeKey.of(2, DType.BF16, "g") == DtypeKey(2, "BF16", "DT_BF16", "bfloat16_t", 2, "g")
    # Ascend910 (NpuArch 1001) and Ascend310P (2002) lack bf16; Ascend910B (2201) has it
    assert bf16_guard([a910, a910b, a310p], True) == "__NPU_ARCH__ == 1001 || __NPU_ARCH__ == 2002"
    assert bf16_guard([a910, a910b], False) == ""
    assert bf16_guard([a910b], True) == ""


@dataclasses.dataclass(frozen=True)
class _ToyDecision(TilingDecisionBase):
    """A decision with its own field table, as a family declares one."""

    FIELDS = (
        TilingField("tileLength", "elements per tile", lambda d: d.tile),
        TilingField("key", "the key again", lambda d: d.tiling_key),
    )
    tile: int


def test_ut_tiling_case() -> None:
    catalogue, _ = load_project()
    case = ut_tiling_case(
        catalogue.get("Ascend910B"),
        ["FLOAT16", "2x3", -1],
        "a note",
        [ut_tensor((2, 3), DType.FLOAT16), ut_tensor(None, None)],
        [ut_tensor((2, 3), DType.FLOAT)],
        ['{"reduction", Ops::NN::AnyValue::CreateFrom<int64_t>(1)}'],
        _ToyDecision(product="Ascend910B", tiling_key=12, block_dim=3, workspace_bytes=4096, tile=7),
        ("key", "tileLength"),
        deterministic=True,
    )
    assert case.name == "Ascend910B_FLOAT16_2x3__1"
    assert (case.product, case.note, case.deterministic, case.tiling_key, case.block_dim, case.workspace) == (
        "Ascend910B",
        "a note",
        1,
        12,
        3,
        4096,
    )
    assert [(t.present, t.shape, t.dtype) for t in case.inputs] == [(True, "{2, 3}", "ge::DT_FLOAT16"), (False, "", "")]
    assert case.outputs[0].dtype == "ge::DT_FLOAT"
    assert case.attrs == ('{"reduction", Ops::NN::AnyValue::CreateFrom<int64_t>(1)}',)
    assert [(f.name, f.value) for f in case.fields] == [("key", 12), ("tileLength", 7)]


def test_status_table_rows_in_order() -> None:
    extra = StatusRow("ACLNN_ERR_INNER_NULLPTR", 561103, "x")
    rows = status_table(["a", "b"], "Bad.", more=[extra], tiling_failed="Too big.")
    assert [(r.name, r.value, r.when) for r in rows] == [
        ("ACLNN_SUCCESS", 0, "Success."),
        ("ACLNN_ERR_PARAM_NULLPTR", 161001, "a, b, workspaceSize or executor is null."),
        ("ACLNN_ERR_PARAM_INVALID", 161002, "Bad."),
        ("ACLNN_ERR_INNER_NULLPTR", 561103, "x"),
        ("ACLNN_ERR_INNER_TILING_ERROR", 561002, "Too big."),
    ]
    assert status_table([], "Bad.")[-1].when == "The tiling function failed."


def test_arch_conditions() -> None:
    catalogue, _ = load_project()
    a910, a910b, a310p = (catalogue.get(n) for n in ("Ascend910", "Ascend910B", "Ascend310P"))
    assert archs_condition([2201, 1001, 2201]) == "__NPU_ARCH__ == 1001 || __NPU_ARCH__ == 2201"
    assert archs_condition([]) == "0"
    # fp32 ReduceSum/ReduceMax are missing on the Atlas training series (Ascend910, NpuArch 1001) only
    assert no_fp32_reduce_condition([a910b, a910, a310p]) == "__NPU_ARCH__ == 1001"
    assert no_fp32_reduce_condition([a910b, a310p]) == "0"


def test_l0_params() -> None:
    _, specs = load_project()
    spec = next(s for s in specs.values() if s.snake == "elu_backward")
    assert l0_params(spec, ["float alpha"]) == [
        "const aclTensor *gradOutput",
        "const aclTensor *selfOrResult",
        "float alpha",
    ]


def test_tiling_values_follow_the_field_table() -> None:
    table: tuple[TilingField[dict[str, int]], ...] = (
        TilingField("b", "second", lambda d: d["y"] * 2),
        TilingField("a", "first", lambda d: d["x"], c_type="int32_t"),
    )
    assert list(tiling_values(table, {"x": 3, "y": 5}).items()) == [("b", 10), ("a", 3)]
    with pytest.raises(ValueError, match="tiling field attr0 has no value"):
        tiling_values((*table, TilingField("attr0", "an attr", c_type="float")), {"x": 3, "y": 5})


def test_a_held_field_reads_the_decision_attribute_of_its_snake_case_name() -> None:
    @dataclasses.dataclass(frozen=True)
    class Held:
        rows_per_group: int
        d_chunk: int

    rows, chunk = TilingField.held("rowsPerGroup", "rows"), TilingField.held("dChunk", "d", c_type="int32_t", cpp="k")
    assert tiling_values((rows, chunk), Held(rows_per_group=7, d_chunk=64)) == {"rowsPerGroup": 7, "dChunk": 64}
    assert (chunk.c_type, chunk.value_cpp, rows.value_cpp) == ("int32_t", "k", "rowsPerGroup")
    with pytest.raises(AttributeError, match="tail_length"):
        tiling_values((TilingField.held("tailLength", "t"),), Held(rows_per_group=7, d_chunk=64))

    @dataclasses.dataclass(frozen=True)
    class Outer:
        split: Held

    nested = TilingField.held("groupNum", "groups", attr="split.rows_per_group")
    assert tiling_values((nested,), Outer(Held(rows_per_group=3, d_chunk=8))) == {"groupNum": 3}


def test_a_decisions_tiling_fields_come_from_its_own_table() -> None:
    d = _ToyDecision(product="Ascend910B", tiling_key=3, block_dim=1, workspace_bytes=0, tile=512)
    assert d.tiling_fields() == {"tileLength": 512, "key": 3}
    assert TilingDecisionBase(product="Ascend910B", tiling_key=0, block_dim=1, workspace_bytes=0).tiling_fields() == {}


def test_infer_datatype_cases_are_the_distinct_opdef_columns() -> None:
    """One case per distinct dtype column (a column repeated by another product's dtypes counts once), inputs
    and outputs split as the OpDef lists them; lists of unequal length are refused."""
    from codegen.plan.unit_tests import ut_datatype_cases

    cases = ut_datatype_cases(
        ["ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_FLOAT16", "ge::DT_FLOAT, ge::DT_FLOAT, ge::DT_FLOAT"],
        ["ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_FLOAT16"],
        ('{"epsilon", x}',),
    )
    assert [(c.name, c.inputs, c.outputs) for c in cases] == [
        ("InferDataTypeColumn0", ("ge::DT_FLOAT16", "ge::DT_FLOAT"), ("ge::DT_FLOAT16",)),
        ("InferDataTypeColumn1", ("ge::DT_FLOAT", "ge::DT_FLOAT"), ("ge::DT_FLOAT",)),
    ]
    assert cases[0].note == "OpDef dtype column: inputs FLOAT16, FLOAT; outputs FLOAT16"
    assert cases[1].attrs == ('{"epsilon", x}',)
    with pytest.raises(ValueError, match="different lengths"):
        ut_datatype_cases(["ge::DT_FLOAT, ge::DT_FLOAT16"], ["ge::DT_FLOAT"], ())


def test_infer_datatype_cases_take_the_attrs_a_column_sets() -> None:
    """A column's own attr elements (``device.dtype_columns``) replace the first case's of that name in its
    case only; the other attrs and columns keep theirs."""
    from codegen.plan.unit_tests import ut_datatype_cases

    cases = ut_datatype_cases(
        ["ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_FLOAT16"],
        ["ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_FLOAT"],
        ('{"axes", a}', '{"half_to_float", f}'),
        [{}, {}, {"half_to_float": '{"half_to_float", t}'}],
    )
    assert [c.attrs for c in cases] == [
        ('{"axes", a}', '{"half_to_float", f}'),
        ('{"axes", a}', '{"half_to_float", f}'),
        ('{"axes", a}', '{"half_to_float", t}'),
    ]


def test_views_by_kind_keys_each_class_by_its_kind_and_refuses_a_kind_twice() -> None:
    from codegen.plan.views import KindView, views_by_kind

    class _A(KindView):
        KIND = "kernel_cpp"

    class _B(KindView):
        KIND = "doc_md"

    class _C(KindView):
        KIND = "kernel_cpp"

    assert views_by_kind(_A, _B) == {"kernel_cpp": _A, "doc_md": _B}
    with pytest.raises(ValueError, match="_C and _A both render kernel_cpp"):
        views_by_kind(_A, _B, _C)
