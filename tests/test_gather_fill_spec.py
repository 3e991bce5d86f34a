"""The gather_scatter family's ``direction: fill`` (specs/index_fill_tensor.yaml): what the spec loads as, and
the spec errors of a wrong fill section (each naming ``file:line`` and the field, nothing written).

The loaded spec: the compute implies the device op (inputs self, index as INT64 positions, value of self's
dtype; attr dim), so the spec needs no ``device`` section for its ``int_array`` attr; the OpDef registers INT64
positions in every dtype column. The errors: an index that is an input or an int_array of a bounded length, a
value that is no scalar attr, a missing value, a negative_index key, an output shape other than self's, and
``length: any`` outside an array attr, and ``value`` with another direction (reported alone: the array attr's
need of a device section is judged once the compute section loads).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codegen.paths import project_paths
from codegen.plan.opdef import opdef_view
from codegen.spec.errors import SpecErrors
from codegen.spec.loader import load_catalogue, load_op_spec
from codegen.spec.model import Catalogue, DType

SPEC = project_paths().specs / "index_fill_tensor.yaml"


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return load_catalogue(project_paths().specs / "products.yaml")


def _errors(tmp_path: Path, catalogue: Catalogue, old: str, new: str) -> list[str]:
    text = SPEC.read_text()
    assert text.count(old) == 1, old
    path = tmp_path / "index_fill_tensor.yaml"
    path.write_text(text.replace(old, new))
    with pytest.raises(SpecErrors) as info:
        load_op_spec(path, catalogue)
    return [str(e) for e in info.value.errors]


def test_the_fill_implies_its_device_op(catalogue: Catalogue) -> None:
    spec = load_op_spec(SPEC, catalogue)
    dev = spec.device_interface
    assert [(d.name, d.source, d.dtype, d.like) for d in dev.inputs] == [
        ("self", "self", None, None),
        ("index", "index", DType.INT64, None),
        ("value", "value", None, "self"),
    ]
    assert [d.name for d in dev.outputs] == ["out"] and [(a.name, a.type) for a in dev.attrs] == [("dim", "int")]
    assert spec.attr("index").length is None  # length: any
    opdef = opdef_view(spec, [p for p in catalogue.products if p.name in spec.products])
    self_, index, value = opdef.default.inputs
    # the default lists every dtype some product takes (Ascend950's INT8, UINT8, INT16, DOUBLE included)
    assert (
        self_.dtypes
        == value.dtypes
        == (
            "ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16, ge::DT_INT64, ge::DT_INT32, ge::DT_BOOL, ge::DT_INT8, "
            "ge::DT_UINT8, ge::DT_INT16, ge::DT_DOUBLE"
        )
    )
    assert index.dtypes == ", ".join(["ge::DT_INT64"] * 10)
    assert [a.name for a in opdef.attrs] == ["dim"]


@pytest.mark.parametrize(
    ("old", "new", "line", "field", "message"),
    [
        ("  index: index\n  dest", "  index: dim\n  dest", 49, "compute.index", "'dim' is not an int_array attr"),
        ("    length: any\n", "    length: [1, 8]\n", 49, "compute.index", "must have length: any"),
        ("  value: value\n", "  value: dim\n", 52, "compute.value", "'dim' is not a scalar attr"),
        ("  value: value\n", "", 46, "compute.value", "direction fill needs 'value'"),
        (
            "  value: value\n",
            "  value: value\n  negative_index: wrap\n",
            53,
            "compute.negative_index",
            "no negative_index",
        ),
        ('    shape: "self"\n', '    shape: "shape(numel(self))"\n', 50, "compute.dest", "must have shape 'self'"),
    ],
)
def test_a_wrong_fill_section_names_its_line_and_field(
    tmp_path: Path, catalogue: Catalogue, old: str, new: str, line: int, field: str, message: str
) -> None:
    errors = _errors(tmp_path, catalogue, old, new)
    assert any(f":{line}: {field}: " in e and message in e for e in errors), errors


def test_length_any_belongs_to_arrays_and_value_to_the_fill(tmp_path: Path, catalogue: Catalogue) -> None:
    errors = _errors(tmp_path, catalogue, "    type: int64\n", "    type: int64\n    length: any\n")
    assert any(":26: attrs[0].length: length is only allowed for" in e for e in errors), errors
    errors = _errors(tmp_path, catalogue, "  direction: fill ", "  direction: gather ")
    assert any("value is only allowed with direction fill" in e for e in errors), errors
    assert not any("checked by the L2 API only" in e for e in errors), errors  # no follow-on error
