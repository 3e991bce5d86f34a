"""Storage formats as CANN accepts them: a spec lists each tensor's accepted formats (ND plus the formats with
ND's data layout CANN's L2 API accepts for that op); only the others get ACLNN_ERR_PARAM_INVALID (161002),
and ``opgen check`` derives a value case for an accepted non-ND format and a status case for a rejected one.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import codegen
from codegen.check.driver import cases_for
from codegen.spec.errors import SpecErrors
from codegen.spec.loader import load_op_spec
from codegen.specs import load_project

CATALOGUE, SPECS = load_project()
CANN_EDB_FORMATS = ("ND", "NCHW", "NHWC", "NCDHW", "NDHWC", "HWCN")  # CANN's EmbeddingDenseBackward accepts these


def test_seed_specs_list_the_formats_cann_accepts() -> None:
    edb = SPECS["embedding_dense_backward"]
    for t in (*edb.inputs, *edb.outputs):
        assert set(t.formats) == set(CANN_EDB_FORMATS), t.name
    smlb = SPECS["soft_margin_loss_backward"]
    assert all("ND" in t.formats and "NCHW" in t.formats for t in (*smlb.inputs, *smlb.outputs))


@pytest.mark.parametrize("op", ["soft_margin_loss_backward", "embedding_dense_backward"])
def test_check_derives_an_accepted_and_a_rejected_format_case(op: str) -> None:
    """One value case with an accepted non-ND format; the status matrix rejects every private format on every
    tensor (161002)."""
    spec = SPECS[op]
    cases = cases_for(spec, CATALOGUE.get("Ascend910B"), None, quick=True)
    with_formats = [c for c in cases if c.formats]
    accepted = [c for c in with_formats if c.expect_status is None]
    rejected = [c for c in with_formats if c.expect_status is not None]
    assert len(accepted) == 1
    ((name, fmt),) = accepted[0].formats.items()
    assert fmt != "ND" and fmt in spec.tensor(name).formats
    got = {next(iter(c.formats.items())) for c in rejected if c.expect_status == 161002}
    want = {
        (t.name, f) for t in (*spec.inputs, *spec.outputs) for f in ("FRACTAL_NZ", "NC1HWC0", "FRACTAL_Z", "NDC1HWC0")
    }
    assert got == want


def test_python_api_formats_for_soft_margin_loss() -> None:
    f = codegen.compile_op("SoftMarginLossBackward", "Ascend910B")
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    y = np.sign(rng.standard_normal((2, 3, 4, 5))).astype(np.float32)
    g = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    want = -y * g / (1 + np.exp(y * x)) / x.size
    got = f(gradOutput=g, self=x, target=y, reduction=1, formats={"self": "NHWC", "out": "NCHW"})
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-9)
    with pytest.raises(codegen.AclnnError) as err:
        f(gradOutput=g, self=x, target=y, reduction=1, formats={"target": "FRACTAL_NZ"})
    assert err.value.status == 161002 and "target must have format" in err.value.message
    with pytest.raises(ValueError, match="not a tensor"):
        f(gradOutput=g, self=x, target=y, reduction=1, formats={"weight": "ND"})
    with pytest.raises(ValueError, match="unknown format"):
        f(gradOutput=g, self=x, target=y, reduction=1, formats={"self": "NCHWX"})


def test_python_api_formats_for_embedding_dense_backward() -> None:
    f = codegen.compile_op("EmbeddingDenseBackward", "Ascend910B")
    grad = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    indices = np.array([[0, 2, 2], [1, 0, 3]], np.int64)
    want = np.zeros((5, 4), np.float32)
    for row, i in zip(grad.reshape(6, 4), indices.reshape(6)):
        want[i] += row
    for fmt in CANN_EDB_FORMATS[1:]:
        got = f(
            grad=grad,
            indices=indices,
            numWeights=5,
            paddingIdx=2**64 - 1,
            scaleGradByFreq=False,
            formats={"grad": fmt, "indices": fmt},
        )
        np.testing.assert_array_equal(got, want)
    with pytest.raises(codegen.AclnnError) as err:
        f(
            grad=grad,
            indices=indices,
            numWeights=5,
            paddingIdx=2**64 - 1,
            scaleGradByFreq=False,
            formats={"indices": "NC1HWC0"},
        )
    assert err.value.status == 161002 and "indices must have format" in err.value.message


@pytest.mark.parametrize(
    ("listed", "message"),
    [
        ("[ND, FRACTAL_NZ]", "'FRACTAL_NZ' is a private format (another data layout)"),
        ("[ND, NCWH]", "unknown format 'NCWH'"),
        ("[ND, NCHW, ND]", "duplicate format 'ND'"),
        ("[NCHW]", "formats must include ND"),
    ],
)
def test_bad_formats_in_a_spec(tmp_path: Path, listed: str, message: str) -> None:
    src = Path(__file__).resolve().parents[1] / "specs" / "soft_margin_loss_backward.yaml"
    text = src.read_text()
    first = "    formats: [ND, NCHW, NHWC, NCDHW, NDHWC, HWCN]\n"
    assert first in text
    text = text.replace(first, f"    formats: {listed}\n", 1)
    path = tmp_path / "soft_margin_loss_backward.yaml"
    path.write_text(text)
    with pytest.raises(SpecErrors) as err:
        load_op_spec(path, CATALOGUE)
    (e,) = err.value.errors
    assert message in str(e) and "inputs[0].formats" in str(e)
