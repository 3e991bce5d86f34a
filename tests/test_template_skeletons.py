"""The shared template skeletons: every family's aclnn .cpp, kernel and tiling templates extend one base
each, the GM <-> UB copies are written once, and the tiling struct's fields are declared once (the
planner's table) and read the same way by the tiling header, the tiling function and the Python mirror of
the tiling. Checked on the committed generated tree and the templates, without building anything."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from codegen.families.elementwise.plan import tiling as elementwise
from codegen.families.foreach.plan import tiling as foreach_tiling
from codegen.families.gather_scatter.plan import fields as gather_fields
from codegen.families.gather_scatter.plan import scatter as gather_scatter_plan
from codegen.families.gather_scatter.plan import tiling as gather_tiling
from codegen.families.index_accumulate.plan import roles as index_roles
from codegen.families.index_accumulate.plan import tiling as index_tiling
from codegen.families.index_accumulate.plan import tiling_fields as index_fields
from codegen.families.row_reduce.plan import tiling as row_reduce
from codegen.families.row_reduce.plan.tensors import row_dtypes
from codegen.paths import project_paths
from codegen.specs import load_project

CATALOGUE, SPECS = load_project()
ROOT = project_paths().root
TEMPLATES = ROOT / "templates"
GENERATED = ROOT / "generated"

#: Each family's tiling-field table.
FIELD_TABLES = {
    "elementwise": elementwise.TILING_FIELDS,
    "foreach": foreach_tiling.TILING_FIELDS,
    "gather_scatter": gather_fields.TILING_FIELDS,
    "index_accumulate": index_fields.TILING_FIELDS,
    "row_reduce": row_reduce.TILING_FIELDS,
}

SKELETONS = {
    "op_api": ("_aclnn.cpp.j2", "op_api/aclnn.cpp.j2"),
    "op_kernel": ("_kernel.cpp.j2", "op_kernel/kernel.cpp.j2"),
    "op_host": ("_tiling.cpp.j2", "op_host/tiling.cpp.j2"),
}


@pytest.mark.parametrize("directory", sorted(SKELETONS))
def test_family_templates_extend_the_skeleton(directory: str) -> None:
    suffix, base = SKELETONS[directory]
    family_templates = sorted((TEMPLATES / directory).glob(f"*{suffix}"))
    assert len(family_templates) >= 2
    for path in family_templates:
        first = path.read_text().splitlines()[0]
        assert first == f'{{% extends "{base}" %}}', path


def test_copy_helpers_are_written_once() -> None:
    definition = re.compile(r"__aicore__ inline void (CopyGmToUb|CopyUbToGm)\(")
    where = {str(p.relative_to(TEMPLATES)): sorted(definition.findall(p.read_text())) for p in TEMPLATES.rglob("*.j2")}
    assert {k: v for k, v in where.items() if v} == {"common/kernel_copy.j2": ["CopyGmToUb", "CopyUbToGm"]}
    kernels = sorted(GENERATED.glob("*/*/op_kernel/*.cpp"))
    assert len(kernels) == len(SPECS)
    for k in kernels:
        assert sorted(definition.findall(k.read_text())) == ["CopyGmToUb", "CopyUbToGm"], k


def _one(pattern: str) -> Path:
    found = sorted(GENERATED.glob(pattern))
    assert len(found) == 1, (pattern, found)
    return found[0]


@pytest.mark.parametrize("op", sorted(SPECS))
def test_tiling_header_and_function_follow_the_field_table(op: str) -> None:
    spec = SPECS[op]
    table = FIELD_TABLES[spec.family]
    if getattr(spec.compute, "scatter", False):  # a scatter-add declares the shared scatter view's fields
        table = gather_scatter_plan.SCATTER_FIELDS
    header = _one(f"{spec.folder}/op_host/*_tiling.h").read_text()
    declared = re.findall(r"TILING_DATA_FIELD_DEF\(\s*(\w+),\s*(\w+)\);", header)
    # The table's fields come first, in order and with their types; only float host scalars may follow, and
    # last the int32_t reduceKind of an elementwise reduce epilogue (compute.reduce), or the int64_t writeMask
    # of an op with nullable outputs followed by the int64_t absentMask of a row op with optional inputs the
    # kernel may find absent.
    assert declared[: len(table)] == [(f.c_type, f.name) for f in table]
    rest = declared[len(table) :]
    if getattr(spec.compute, "reduce", None) is not None:
        assert rest[-1:] == [("int32_t", "reduceKind")]
        rest = rest[:-1]
    # an optional input the kernel may find absent: a device input of its own (not a host-only input), not one
    # the L2 API fills with its default for a null one (fill: true)
    absent = [
        t
        for t in spec.inputs
        if t.optional and any(d.source == t.name and not d.fill for d in spec.device_interface.inputs)
    ]
    if spec.family == "row_reduce" and absent:
        assert rest[-1:] == [("int64_t", "absentMask")]
        rest = rest[:-1]
    if any(t.nullable for t in spec.outputs):
        assert rest[-1:] == [("int64_t", "writeMask")]
        rest = rest[:-1]
    assert all(t == "float" for t, _ in rest)
    function = _one(f"{spec.folder}/op_host/*_tiling.cpp").read_text()
    assert re.findall(r"tiling\.set_(\w+)\(", function) == [n for _, n in declared]
    for f in table:
        assert f"  tiling.set_{f.name}({f.value_cpp});\n" in function, f


@pytest.mark.parametrize("family", sorted(FIELD_TABLES))
def test_python_tiling_mirror_reads_the_same_fields(family: str) -> None:
    spec = next(s for s in SPECS.values() if s.family == family)
    product = CATALOGUE.get(spec.products[0])
    if family == "elementwise":
        d = elementwise.tiling_decision(spec, product, (1000,), elementwise.compute_dtypes(spec)[0])
        fields = d.tiling_fields()
        assert fields["totalLength"] == 1000
        assert fields["tailLength"] == d.tail_length
    elif family == "gather_scatter":
        src = spec.inputs[0].dtypes[0]
        d4 = gather_tiling.tiling_decision(spec, product, (5, 16, 3), 1, 7, src, spec.inputs[1].dtypes[0])
        fields = d4.tiling_fields()
        assert (fields["outer"], fields["axisLen"], fields["inner"], fields["indexNum"]) == (5, 16, 3, 7)
    elif family == "row_reduce":
        spec = next(s for s in SPECS.values() if s.family == family and getattr(s.compute, "dim", ""))
        d3 = row_reduce.tiling_decision(spec, product, (5, 16, 3), 1, row_dtypes(spec)[0])
        fields = d3.tiling_fields()
        assert (fields["outerNum"], fields["reduceLen"], fields["innerNum"], fields["mode"]) == (5, 16, 3, 1)
    elif family == "foreach":
        d5 = foreach_tiling.tiling_decision(spec, product, (5, 0, 1, 100), spec.inputs[0].dtypes[0])
        fields = d5.tiling_fields()
        assert (fields["totalTensorCount"], fields["needCoreNum"]) == (4, 1)
    else:
        rows = index_roles.row_dtypes(spec)[0]
        idx = index_roles.index_dtypes(spec)[0]
        d2 = index_tiling.tiling_decision(spec, product, (5, 16), 7, rows, idx, deterministic=True)
        fields = d2.tiling_fields()
        assert (fields["numRows"], fields["rowLength"], fields["numIndices"]) == (7, 16, 5)
    # an elementwise reduce epilogue (compute.reduce) adds its reduceKind after the table's fields
    epilogue = ["reduceKind"] if getattr(spec.compute, "reduce", None) is not None else []
    assert list(fields) == [f.name for f in FIELD_TABLES[family]] + epilogue
