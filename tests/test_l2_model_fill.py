"""The ``fill`` form of the gather_scatter L2 model (``l2_model.gather.predict_fill``, aclnnIndexFillTensor)
against statuses and values read by hand from CANN's ops-nn ``index/index_fill_d/op_api/
aclnn_index_fill_tensor.cpp`` (CheckNotNull, CheckDtypeValid, CheckShape, CheckPromoteType, then the plan).

The model runs on a stand-in spec carrying what it reads (the compute roles and the tensors' dtypes per
product, ranks and formats), so that it holds CANN's own dtype lists: DTYPE_910B_SUPPORT_LIST (Ascend910B) and
DTYPE_950_SUPPORT_LIST (Ascend950), typed here from that file, not from specs/index_fill_tensor.yaml (whose
product_dtypes gives the same lists); the products are the catalogue's. tests/test_l2_model.py holds the
generated API to the model on the real spec.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from l2_model import INVALID, NULLPTR, SUCCESS, Call, Tensor
from l2_model import gather as l2_gather

from codegen.paths import project_paths
from codegen.runner import ScalarArg
from codegen.spec.catalogue import load_catalogue
from codegen.spec.model import DType, Product

CATALOGUE = load_catalogue(project_paths().specs / "products.yaml")
PRODUCTS = {p.name: p for p in CATALOGUE.products}
A2 = PRODUCTS["Ascend910B"]
A5 = PRODUCTS["Ascend950"]
D910B = (DType.INT32, DType.FLOAT16, DType.FLOAT, DType.INT64, DType.BOOL, DType.BF16)
D950 = (*D910B, DType.INT8, DType.UINT8, DType.INT16, DType.DOUBLE)


def _tensor(name: str) -> Any:
    return SimpleNamespace(
        name=name,
        rank=(0, 8),
        formats=("ND", "NCHW", "NHWC"),
        dtypes_for=lambda p: D950 if p.npu_arch == 3510 else D910B,
    )


SPEC: Any = SimpleNamespace(
    compute=SimpleNamespace(direction="fill", source="self", dest="out", dim="dim", index="index", value="value"),
    tensor=lambda name: _tensor(name),
)


#: the value of a call that does not name one
TWO = ScalarArg(2.0, "FLOAT")


def _call(
    shape: tuple[int, ...] | None = (3, 4),
    out: tuple[int, ...] | None = None,
    dtype: DType = DType.FLOAT,
    out_dtype: DType | None = None,
    dim: int = 1,
    index: list[int] | None = (0, 3),  # type: ignore[assignment]
    value: Any = TWO,
    fmt: str = "ND",
) -> Call:
    return Call(
        {
            "self": Tensor(shape, dtype, fmt),
            "out": Tensor(shape if out is None else out, out_dtype or dtype),
        },
        {"dim": dim, "index": None if index is None else list(index), "value": value},
    )


STATUS_CASES: list[tuple[str, Product, Call, int]] = [
    ("valid", A2, _call(), SUCCESS),
    ("null self beside a bad dtype out", A2, _call(shape=None, out=(3, 4)), NULLPTR),
    ("null index", A2, _call(index=None, dtype=DType.INT8), NULLPTR),
    ("null value", A2, _call(value=None), NULLPTR),
    (
        "null out",
        A2,
        Call({"self": Tensor((3, 4)), "out": Tensor(None)}, {"dim": 0, "index": [0], "value": 1.0}),
        NULLPTR,
    ),
    ("INT8 on Ascend910B", A2, _call(dtype=DType.INT8), INVALID),
    ("INT8 on Ascend950", A5, _call(dtype=DType.INT8), SUCCESS),
    ("DOUBLE on Ascend950", A5, _call(dtype=DType.DOUBLE), SUCCESS),
    ("out dtype differs", A2, _call(out_dtype=DType.FLOAT16), INVALID),
    ("out shape differs", A2, _call(out=(4, 3)), INVALID),
    ("rank 9", A2, _call(shape=(1,) * 9), INVALID),
    ("dim = rank", A2, _call(dim=2), INVALID),
    ("dim = -rank", A2, _call(dim=-2, index=[2]), SUCCESS),
    ("dim = -rank - 1", A2, _call(dim=-3), INVALID),
    ("index = A", A2, _call(index=[4]), INVALID),
    ("index = -A", A2, _call(index=[-4]), SUCCESS),
    ("index = -A - 1", A2, _call(index=[-5]), INVALID),
    ("empty index", A2, _call(index=[]), SUCCESS),
    ("0-d self, dim 0, index 0", A2, _call(shape=(), dim=0, index=[0]), SUCCESS),
    ("0-d self, dim -1, index -1", A2, _call(shape=(), dim=-1, index=[-1]), SUCCESS),
    ("0-d self, dim 1", A2, _call(shape=(), dim=1, index=[0]), INVALID),
    ("0-d self, index 1", A2, _call(shape=(), dim=0, index=[1]), INVALID),
    # CheckShape returns true at once for an empty self: no out shape, dim or index check
    ("empty self, bad out shape, dim, index", A2, _call(shape=(0, 4), out=(7,), dim=5, index=[99]), SUCCESS),
    ("empty self still checks dtypes", A2, _call(shape=(0, 4), out_dtype=DType.INT32), INVALID),
    ("complex value", A2, _call(value=ScalarArg(1.0, "COMPLEX64")), INVALID),
    ("private format", A2, _call(fmt="FRACTAL_NZ"), INVALID),
]


@pytest.mark.parametrize(("product", "call", "status"), [c[1:] for c in STATUS_CASES], ids=[c[0] for c in STATUS_CASES])
def test_fill_status(product: Product, call: Call, status: int) -> None:
    """The model returns the status CANN's CheckParams gives (through the family's ``predict``)."""
    assert l2_gather.predict(SPEC, product, call).status == status


def test_fill_values() -> None:
    """Hand-written outputs: a [3, 4] self filled along dim 1 at [0, -1, 0] (both ends, a negative, a duplicate)
    and along dim 0 at [1]; an empty index copies self; an empty self writes nothing."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    got = l2_gather.expected_fill_output(SPEC, A2, _call(index=[0, -1, 0], value=ScalarArg(-1.5, "FLOAT")), x)
    assert got.tolist() == [[-1.5, 1, 2, -1.5], [-1.5, 5, 6, -1.5], [-1.5, 9, 10, -1.5]]
    got = l2_gather.expected_fill_output(SPEC, A2, _call(dim=0, index=[1], value=7), x)
    assert got.tolist() == [[0, 1, 2, 3], [7, 7, 7, 7], [8, 9, 10, 11]]
    np.testing.assert_array_equal(l2_gather.expected_fill_output(SPEC, A2, _call(index=[]), x), x)
    assert l2_gather.fill_writes_output(SPEC, _call())
    assert not l2_gather.fill_writes_output(SPEC, _call(shape=(0, 4)))


def test_fill_value_rounding_by_product() -> None:
    """Ascend910B fills with value->ToFloat(): 2**24 + 1 becomes 16777216 in an INT64 self; Ascend950
    converts the aclScalar directly and keeps 16777217. FLOAT16 and BF16 round the float32 to nearest
    (0.1 -> 0.0999755859375 in FLOAT16, 0.10009765625 in BF16, both hand-computed); BOOL takes 3 as True."""
    z = np.zeros((2, 2), dtype=np.int64)
    big = ScalarArg(16777217, "INT64")
    assert l2_gather.expected_fill_output(SPEC, A2, _call(shape=(2, 2), index=[1], value=big), z)[0, 1] == 16777216
    assert l2_gather.expected_fill_output(SPEC, A5, _call(shape=(2, 2), index=[1], value=big), z)[0, 1] == 16777217
    h = np.zeros((2, 2), dtype=np.float16)
    assert (
        float(l2_gather.expected_fill_output(SPEC, A2, _call(shape=(2, 2), index=[0], value=0.1), h)[1, 0])
        == 0.0999755859375
    )
    b = np.zeros((2, 2), dtype=ml_dtypes.bfloat16)
    assert (
        float(l2_gather.expected_fill_output(SPEC, A2, _call(shape=(2, 2), index=[0], value=0.1), b)[1, 0])
        == 0.10009765625
    )
    t = np.zeros((2, 2), dtype=np.bool_)
    assert l2_gather.expected_fill_output(SPEC, A2, _call(shape=(2, 2), index=[0], value=3), t)[:, 0].tolist() == [
        True,
        True,
    ]
