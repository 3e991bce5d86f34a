"""The type table (codegen/types.py) against facts from outside the code under test: the CANN headers the
runtime mirrors (acl/acl_base.h, opdev/op_errno.h), CANN's documented values (reference/ascend-platform.md),
NumPy/ml_dtypes itemsizes and ctypes sizes; and that no other module keeps its own dtype, attr-type or status
table."""

from __future__ import annotations

import ctypes
import io
import re
import tokenize
from pathlib import Path
from types import SimpleNamespace

import ml_dtypes  # noqa: F401  (registers bfloat16 with NumPy)
import numpy as np
import pytest

from codegen.types import ACLNN_STATUS_CODES, ATTR_TYPE_INFO, DEVICE_ATTR_TYPE_INFO, AclnnStatus, DType, compute_dtypes

ROOT = Path(__file__).resolve().parents[1]
RUNTIME = ROOT / "runtime" / "include"

#: aclDataType values as CANN documents them (reference/ascend-platform.md, "aclnn conventions").
DOCUMENTED_ACL_DTYPES = {
    "FLOAT": 0,
    "FLOAT16": 1,
    "INT8": 2,
    "INT32": 3,
    "UINT8": 4,
    "INT16": 6,
    "UINT16": 7,
    "UINT32": 8,
    "INT64": 9,
    "UINT64": 10,
    "DOUBLE": 11,
    "BOOL": 12,
    "BF16": 27,
}
#: aclnnStatus codes as CANN documents them (reference/ascend-platform.md).
DOCUMENTED_STATUS = {
    "ACLNN_SUCCESS": 0,
    "ACLNN_ERR_PARAM_NULLPTR": 161001,
    "ACLNN_ERR_PARAM_INVALID": 161002,
    "ACLNN_ERR_RUNTIME_ERROR": 361001,
    "ACLNN_ERR_INNER": 561000,
    "ACLNN_ERR_INNER_INFERSHAPE_ERROR": 561001,
    "ACLNN_ERR_INNER_TILING_ERROR": 561002,
    "ACLNN_ERR_INNER_FIND_KERNEL_ERROR": 561003,
    "ACLNN_ERR_INNER_CREATE_EXECUTOR": 561101,
    "ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR": 561102,
    "ACLNN_ERR_INNER_NULLPTR": 561103,
}


def _header_enum(path: Path, typedef: str) -> dict[str, int]:
    text = path.read_text()
    body = re.search(r"typedef enum \{(.*?)\}\s*" + typedef + ";", text, re.S)
    assert body, f"no {typedef} in {path}"
    return {m[1]: int(m[2]) for m in re.finditer(r"(\w+)\s*=\s*(-?\d+)", body[1])}


def test_acl_dtype_values_match_the_header_and_the_documentation() -> None:
    header = _header_enum(RUNTIME / "acl" / "acl_base.h", "aclDataType")
    assert {d.name: d.acl_id for d in DType} == DOCUMENTED_ACL_DTYPES
    for d in DType:
        assert header[d.acl_name] == d.acl_id, d
        assert d.acl_name == f"ACL_{d.name}"
    assert DType.FLOAT16.ge_name == "DT_FLOAT16"
    assert DType.BF16.acl_name == "ACL_BF16"


def test_status_codes_match_op_errno_and_the_documentation() -> None:
    text = (RUNTIME / "opdev" / "op_errno.h").read_text()
    header = {m[1]: int(m[2]) for m in re.finditer(r"constexpr aclnnStatus (\w+) = (\d+);", text)}
    assert {s.name: int(s) for s in AclnnStatus} == DOCUMENTED_STATUS
    for s in AclnnStatus:
        if s.name in header:
            assert header[s.name] == int(s), s
    assert header["ACLNN_ERR_PARAM_NULLPTR"] == 161001
    assert 0 not in ACLNN_STATUS_CODES
    assert ACLNN_STATUS_CODES[161002] == "ACLNN_ERR_PARAM_INVALID"
    assert len(ACLNN_STATUS_CODES) == len(DOCUMENTED_STATUS) - 1


@pytest.mark.parametrize("d", list(DType), ids=lambda d: d.name)
def test_dtype_numpy_name_and_itemsize(d: DType) -> None:
    np_dtype = np.dtype(d.numpy_name)
    assert np_dtype.itemsize == d.itemsize
    assert d.binary_name == np_dtype.name
    assert d.is_floating == (np_dtype.kind == "f" or d is DType.BF16)
    assert d.is_integer == (np_dtype.kind in "iu")
    assert d.is_16bit_float == (d in (DType.FLOAT16, DType.BF16))


def test_dtype_c_types() -> None:
    # Fixed-width C types name their width; AscendC's half and bfloat16_t are 2 bytes, float 4, double 8.
    widths = {"half": 2, "bfloat16_t": 2, "aclFloat16": 2, "float": 4, "double": 8, "bool": 1}
    for d in DType:
        for c_type in (d.kernel_type, d.host_type):
            m = re.fullmatch(r"u?int(\d+)_t", c_type)
            assert (int(m[1]) // 8 if m else widths[c_type]) == d.itemsize, (d, c_type)
    assert (DType.FLOAT16.kernel_type, DType.BF16.kernel_type) == ("half", "bfloat16_t")
    assert (DType.FLOAT16.host_type, DType.BF16.host_type) == ("aclFloat16", "uint16_t")
    acl_base = (RUNTIME / "acl" / "acl_base.h").read_text()
    assert "typedef uint16_t aclFloat16;" in acl_base
    assert DType.FLOAT16.printf_format == "%.9g" and DType.INT32.printf_format == "%lld"


@pytest.mark.parametrize("name", list(ATTR_TYPE_INFO))
def test_attr_type_worlds_agree(name: str) -> None:
    info = ATTR_TYPE_INFO[name]
    c_bytes = {"int64_t": 8, "uint64_t": 8, "bool": 1, "double": 8, "float": 4}
    if info.array:
        # const aclIntArray * / const aclBoolArray *: a handle the runner makes; no device, tiling or printf type
        assert (info.c_type, info.ctype) == (f"const {info.array} *", ctypes.c_void_p)
        assert (info.tiling_type, info.opdef_setter, info.device_type, info.expr_kind) == ("", "", "", "")
        lim = np.iinfo(np.int64)
        assert info.int_range == ((int(lim.min), int(lim.max)) if name == "int_array" else None)
        return
    if name in ("scalar", "string"):
        # Passed by pointer (const aclScalar *, char *): the runner hands over a handle or a C string.
        assert info.ctype in (ctypes.c_void_p, ctypes.c_char_p)
        assert ctypes.sizeof(info.ctype) == ctypes.sizeof(ctypes.c_void_p)
    else:
        assert ctypes.sizeof(info.ctype) == c_bytes[info.c_type]
        # The spec's type name is the C type's name (int64 -> int64_t, double -> double).
        assert info.c_type in (f"{name}_t", name)
    assert info.opdef_setter in {i.opdef_setter for i in DEVICE_ATTR_TYPE_INFO.values()}
    assert DEVICE_ATTR_TYPE_INFO[info.device_type].opdef_setter == info.opdef_setter
    if info.int_range is not None:
        lim = np.iinfo(np.dtype(name))
        assert info.int_range == (int(lim.min), int(lim.max))
        assert info.ctype(info.int_range[1]).value == info.int_range[1]
    else:
        assert name in ("bool", "double", "float", "scalar", "string")
    # printf conversions for the cast type (C11 7.21.6.1): %lld long long, %llu unsigned long long, %g double.
    conversions = {"long long": "%lld", "unsigned long long": "%llu", "double": "%g", None: "%s"}
    assert conversions[info.printf_cast] == info.printf_format


def test_attr_types_exact() -> None:
    table = {n: (i.c_type, i.tiling_type, i.opdef_setter, i.ctype, i.device_type) for n, i in ATTR_TYPE_INFO.items()}
    assert table == {
        "int64": ("int64_t", "int64_t", "Int", ctypes.c_int64, "int"),
        "uint64": ("uint64_t", "int64_t", "Int", ctypes.c_uint64, "int"),
        "bool": ("bool", "bool", "Bool", ctypes.c_bool, "bool"),
        "double": ("double", "float", "Float", ctypes.c_double, "float"),
        "float": ("float", "float", "Float", ctypes.c_float, "float"),
        "scalar": ("float", "float", "Float", ctypes.c_void_p, "float"),
        "string": ("int64_t", "int64_t", "String", ctypes.c_char_p, "string"),
        "int_array": ("const aclIntArray *", "", "", ctypes.c_void_p, ""),
        "bool_array": ("const aclBoolArray *", "", "", ctypes.c_void_p, ""),
    }
    assert {n: i.binary_type for n, i in DEVICE_ATTR_TYPE_INFO.items()} == {
        "int": "int",
        "bool": "bool",
        "float": "float",
        "string": "string",
        "list_int": "list_int",
        "list_bool": "list_bool",  # ops-nn norm/layer_norm_grad_v3/op_host/config/ascend910b/*_binary.json
    }


def _tensor(optional: bool, *dtypes: DType) -> SimpleNamespace:
    """A stand-in tensor spec: every product takes ``dtypes`` but those it does not support."""
    return SimpleNamespace(
        optional=optional,
        dtypes=dtypes,
        all_dtypes=dtypes,
        dtypes_for=lambda product: tuple(d for d in dtypes if product.supports(d)),
    )


def test_compute_dtypes_is_the_first_required_input() -> None:
    op = SimpleNamespace(
        inputs=[_tensor(True, DType.DOUBLE), _tensor(False, DType.BF16, DType.FLOAT), _tensor(False, DType.INT8)]
    )
    assert compute_dtypes(op) == [DType.BF16, DType.FLOAT]
    no_bf16 = SimpleNamespace(supports=lambda d: d is not DType.BF16)
    assert compute_dtypes(op, no_bf16) == [DType.FLOAT]
    with pytest.raises(ValueError, match="no required input"):
        compute_dtypes(SimpleNamespace(inputs=[_tensor(True, DType.FLOAT)]))


def test_formula_vocabulary_has_one_source() -> None:
    from codegen.families.elementwise import rules
    from codegen.spec.expr import VECTOR_SIGNATURES

    assert frozenset(VECTOR_SIGNATURES) == rules.TENSOR_FUNCTIONS


# ------------------------------------------------------------------------ no second table anywhere

_ATTR_NAMES = r"[\"'](?:int64|uint64|bool|double|float)[\"']"
_TYPE_WORLD_VALUES = (
    r"(?:[\"'](?:u?int64_t|bool|double|float|Int|Bool|Float|int|%ll[du]|%g)[\"']|\(?\s*[\"']%|ctypes\.)"
)
_FORBIDDEN = [
    ("attr-type table", re.compile(_ATTR_NAMES + r"\s*:\s*" + _TYPE_WORLD_VALUES)),
    ("dtype table keyed by name", re.compile(r"[\"'](?:DT_|ACL_)?(?:FLOAT16|BF16)[\"']\s*:")),
    (
        "dtype table of C/NumPy types",
        re.compile(r"DType\.\w+\s*:\s*\(?[\"'](?:half|bfloat16_t|float16|bfloat16|float32|uint16_t)[\"']"),
    ),
    (
        "OpDef setter table",
        re.compile(r"[\"'](?:int|bool|float|string)[\"']\s*:\s*[\"'](?:Int|Bool|Float|String)[\"']"),
    ),
]


def _modules() -> list[Path]:
    return sorted(p for d in ("codegen", "bench") for p in (ROOT / d).rglob("*.py") if p.name != "types.py")


def test_no_module_but_types_defines_a_type_table() -> None:
    found = []
    for path in _modules():
        text = path.read_text()
        for what, pattern in _FORBIDDEN:
            for m in pattern.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                found.append(f"{path.relative_to(ROOT)}:{line}: {what}: {m[0]}")
    assert not found, "type tables belong in codegen/types.py:\n" + "\n".join(found)


def test_no_module_writes_an_aclnn_status_code_as_a_number() -> None:
    codes = {int(s) for s in AclnnStatus if s is not AclnnStatus.ACLNN_SUCCESS}
    found = []
    for path in _modules():
        for tok in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
            if tok.type == tokenize.NUMBER and tok.string.isdigit() and int(tok.string) in codes:
                found.append(f"{path.relative_to(ROOT)}:{tok.start[0]}: {tok.string}")
    assert not found, "use codegen.types.AclnnStatus:\n" + "\n".join(found)


@pytest.mark.parametrize("what,pattern", _FORBIDDEN, ids=[w for w, _ in _FORBIDDEN])
def test_the_table_patterns_catch_a_copy(what: str, pattern: re.Pattern[str]) -> None:
    copies = {
        "attr-type table": '_X = {"int64": "int64_t", "uint64": "uint64_t"}',
        "dtype table keyed by name": '_X = {"FLOAT16": 2}',
        "dtype table of C/NumPy types": '_X = {DType.FLOAT16: "half"}',
        "OpDef setter table": '_X = {"int": "Int"}',
    }
    assert pattern.search(copies[what])
