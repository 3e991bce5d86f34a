"""A tensor's ``product_dtypes`` (a dtype list per product, as CANN's aclnnIndexFillTensor takes INT8, UINT8,
INT16 and DOUBLE on Ascend950 only: ops-nn index/index_fill_d/op_api/aclnn_index_fill_tensor.cpp,
DTYPE_950_SUPPORT_LIST beside DTYPE_910B_SUPPORT_LIST): the spec errors, each at its ``file:line`` and field,
and what the model, the generated L2 check, the OpDef and the check's status matrix make of a valid one,
against the lists read by hand from that file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from codegen.check.status_matrix import status_matrix
from codegen.paths import project_paths
from codegen.plan.opdef import opdef_view
from codegen.plan.products import dtype_groups
from codegen.spec.catalogue import load_catalogue
from codegen.spec.errors import SpecErrors
from codegen.spec.loader import load_op_spec
from codegen.spec.model import Catalogue

SPECS = project_paths().specs
TEXT = (SPECS / "index_fill_tensor.yaml").read_text()
STEM = "index_fill_tensor.yaml"
#: CANN's lists (aclnn_index_fill_tensor.cpp), in the spec's order.
D910B = ("FLOAT16", "FLOAT", "BF16", "INT64", "INT32", "BOOL")
D950 = (*D910B, "INT8", "UINT8", "INT16", "DOUBLE")
SELF_OVERRIDE = "    product_dtypes:                 # CANN's DTYPE_950_SUPPORT_LIST (aclnn_index_fill_tensor.cpp)\n"
OUT_OVERRIDE = (
    "    product_dtypes:\n      Ascend950: [FLOAT16, FLOAT, BF16, INT64, INT32, BOOL, INT8, UINT8, INT16, DOUBLE]\n"
)


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return load_catalogue(SPECS / "products.yaml")


def _line(text: str, needle: str, nth: int = 0) -> int:
    """The 1-based line of the ``nth`` line of ``text`` holding ``needle``."""
    return [i + 1 for i, line in enumerate(text.splitlines()) if needle in line][nth]


def _errors(tmp_path: Path, catalogue: Catalogue, text: str) -> tuple[str, list[str]]:
    path = tmp_path / STEM
    path.write_text(text)
    with pytest.raises(SpecErrors) as info:
        load_op_spec(path, catalogue)
    return str(path), [str(e) for e in info.value.errors]


def _edit(old: str, new: str, text: str = TEXT) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def test_the_spec_takes_four_dtypes_on_ascend950_only(catalogue: Catalogue) -> None:
    spec = load_op_spec(SPECS / STEM, catalogue)
    for name in ("self", "out"):
        t = spec.tensor(name)
        assert tuple(d.name for d in t.dtypes_for(catalogue.get("Ascend910B"))) == D910B
        assert tuple(d.name for d in t.dtypes_for(catalogue.get("Ascend910_93"))) == D910B
        assert tuple(d.name for d in t.dtypes_for(catalogue.get("Ascend950"))) == D950
        assert tuple(d.name for d in t.all_dtypes) == D950


def test_l2_groups_and_opdef_configs_per_product(catalogue: Catalogue) -> None:
    spec = load_op_spec(SPECS / STEM, catalogue)
    products = [catalogue.get(p) for p in spec.products]
    groups = dtype_groups(spec.tensor("self"), products)
    assert [(g.products, g.names) for g in groups] == [
        (("Ascend910B", "Ascend910_93"), D910B),
        (("Ascend950",), D950),
    ]
    opdef = opdef_view(spec, products)
    want = {"ascend910b": D910B, "ascend910_93": D910B, "ascend950": D950}
    for config in opdef.configs:
        for param in (*config.inputs, *config.outputs):
            if param.name != "index":
                assert param.dtypes == ", ".join(f"ge::DT_{d}" for d in want[config.config_name]), config
    assert opdef.default.inputs[0].dtypes == ", ".join(f"ge::DT_{d}" for d in D950)


def test_status_matrix_refuses_the_ascend950_dtypes_elsewhere(catalogue: Catalogue) -> None:
    spec = load_op_spec(SPECS / STEM, catalogue)
    base = {"self": np.zeros((2, 3), np.float32), "out": np.zeros((2, 3), np.float32), "dim": 0, "index": [1]}
    base["value"] = 1.0
    names = {c.name: c for c in status_matrix(spec, catalogue.get("Ascend910B"), base, "FLOAT")}
    for d in ("INT8", "UINT8", "INT16", "DOUBLE"):
        c = names[f"every tensor {d} (taken on another product) -> 161002"]
        assert c.expect_status == 161002
        assert c.params["self"].dtype == c.params["out"].dtype == np.dtype(d.lower().replace("double", "float64"))
    on950 = [c.name for c in status_matrix(spec, catalogue.get("Ascend950"), base, "FLOAT")]
    assert not [n for n in on950 if "taken on another product" in n]
    assert "self INT8 unsupported -> 161002" not in on950


def test_a_product_the_op_does_not_list(tmp_path: Path, catalogue: Catalogue) -> None:
    text = _edit(SELF_OVERRIDE, SELF_OVERRIDE + "      Ascend910: [FLOAT, INT8]\n")
    f, errs = _errors(tmp_path, catalogue, text)
    assert errs == [
        f"{f}:{_line(text, 'Ascend910: [')}: inputs[0].product_dtypes.Ascend910: 'Ascend910' is not one of the op's "
        "products (Ascend910B, Ascend910_93, Ascend950); product_dtypes overrides dtypes on the op's own products only",
    ]


def test_products_sharing_an_npu_arch_get_one_list(tmp_path: Path, catalogue: Catalogue) -> None:
    override = "      Ascend910B: [FLOAT16, FLOAT, BF16, INT8]\n"
    text = _edit(SELF_OVERRIDE, SELF_OVERRIDE + override)
    text = _edit(OUT_OVERRIDE, OUT_OVERRIDE + override, text)
    f, errs = _errors(tmp_path, catalogue, text)
    assert errs == [
        f"{f}:{_line(text, 'product_dtypes:', 0)}: inputs[0].product_dtypes: Ascend910B and Ascend910_93 share "
        "NpuArch 2201 but 'self' would take different dtypes on them; the generated code tells products apart by "
        "NpuArch: give both the same list",
        f"{f}:{_line(text, 'product_dtypes:', 1)}: outputs[0].product_dtypes: Ascend910B and Ascend910_93 share "
        "NpuArch 2201 but 'out' would take different dtypes on them; the generated code tells products apart by "
        "NpuArch: give both the same list",
    ]


def test_a_list_equal_to_dtypes_and_unknown_dtypes(tmp_path: Path, catalogue: Catalogue) -> None:
    full = "      Ascend950: [FLOAT16, FLOAT, BF16, INT64, INT32, BOOL, INT8, UINT8, INT16, DOUBLE]\n"
    text = _edit(
        SELF_OVERRIDE + full,
        SELF_OVERRIDE
        + "      Ascend910B: [FLOAT16, FLOAT, BF16, INT64, INT32, BOOL]\n      Ascend950: [FLOAT, INT4]\n",
    )
    f, errs = _errors(tmp_path, catalogue, text)
    assert (
        f"{f}:{_line(text, 'Ascend910B: [')}: inputs[0].product_dtypes.Ascend910B: Ascend910B's list equals "
        "the dtypes of 'self'; drop the entry" in errs
    ), errs
    assert any(e.startswith(f"{f}:{_line(text, 'INT4')}: inputs[0].product_dtypes.Ascend950[1]: ") for e in errs), errs


def test_output_must_follow_its_source_per_product(tmp_path: Path, catalogue: Catalogue) -> None:
    text = _edit(OUT_OVERRIDE, "")
    f, errs = _errors(tmp_path, catalogue, text)
    assert errs == [
        f"{f}:{_line(text, '  dest: out')}: compute.dest: output 'out' must list the dtypes and product_dtypes of "
        "'self' in the same order",
    ]


def test_a_family_without_per_product_lists(tmp_path: Path, catalogue: Catalogue) -> None:
    text = (SPECS / "soft_margin_loss_backward.yaml").read_text()
    first = "    dtypes: [FLOAT, FLOAT16, BF16]\n"
    assert first in text
    text = text.replace(first, first + "    product_dtypes: {Ascend910B: [FLOAT]}\n", 1)
    path = tmp_path / "soft_margin_loss_backward.yaml"
    path.write_text(text)
    with pytest.raises(SpecErrors) as info:
        load_op_spec(path, catalogue)
    line = _line(text, "product_dtypes")
    assert [str(e) for e in info.value.errors] == [
        f"{path}:{line}: inputs[0].product_dtypes: 'elementwise' takes no per-product dtype list; the gather_scatter "
        "family does: give 'gradOutput' one dtypes list for every product"
    ]


def test_bf16_on_a_product_without_it(tmp_path: Path, catalogue: Catalogue) -> None:
    # Ascend310P has no BF16: a copy of the spec listing it among the products gives it a list with BF16
    text = _edit(
        "products: [Ascend910B, Ascend910_93, Ascend950]", "products: [Ascend910B, Ascend910_93, Ascend950, Ascend310P]"
    )
    text = _edit(SELF_OVERRIDE, SELF_OVERRIDE + "      Ascend310P: [FLOAT, BF16, INT8]\n", text)
    f, errs = _errors(tmp_path, catalogue, text)
    assert (
        f"{f}:{_line(text, 'Ascend310P: [')}: inputs[0].product_dtypes.Ascend310P: Ascend310P has no BF16; drop it "
        "from the list" in errs
    ), errs
