"""The Python API's answers to arguments the C API cannot take as given: an omitted ``scalar`` attribute
without a default is a ``TypeError`` naming it (never a silent default), and an array of a dtype the op does
not accept, also one no aclDataType represents (complex, object, strings), is the aclnn status of a refused
dtype (161002), after the null checks (161001) CANN makes first."""

from __future__ import annotations

import shutil
from collections.abc import Callable

import numpy as np
import pytest

import codegen
from codegen.generate import run_generate
from codegen.paths import project_paths
from codegen.runner import OpCallable

X = np.array([[0.5, -1.0, 2.0], [3.0, 0.25, -0.5]], np.float32)


@pytest.fixture(scope="module")
def sigmoid_backward() -> OpCallable:
    return codegen.compile_op("sigmoid_backward", "Ascend910B")


@pytest.fixture(scope="module")
def threshold_without_default(tmp_path_factory: pytest.TempPathFactory) -> OpCallable:
    """ThresholdBackward from a copy of its spec whose ``threshold`` (type scalar) has no default."""
    root = tmp_path_factory.mktemp("no_default")
    paths = project_paths()
    specs = root / "specs"
    specs.mkdir()
    text = (paths.specs / "threshold_backward.yaml").read_text()
    lines = text.splitlines(keepends=True)
    at = lines.index("  - name: threshold\n")
    assert lines[at + 1 : at + 3] == ["    type: scalar\n", "    default: 1.0\n"]
    (specs / "threshold_backward.yaml").write_text("".join(lines[: at + 2] + lines[at + 3 :]))
    shutil.copy(paths.specs / "products.yaml", specs)
    (root / "reference").mkdir()
    shutil.copy(paths.root / "reference" / "threshold_backward.py", root / "reference")
    run_generate(out=root / "generated", specs_dir=specs)
    return codegen.compile_op("threshold_backward", "Ascend910B", generated=root / "generated", specs_dir=specs)


def test_an_omitted_scalar_attribute_without_default_is_a_type_error(threshold_without_default: OpCallable) -> None:
    f = threshold_without_default
    assert next(a for a in f.spec.attrs if a.name == "threshold").default is None
    with pytest.raises(TypeError) as info:
        f(gradOutput=X, self=X)
    assert str(info.value) == "aclnnThresholdBackward: missing attribute 'threshold'"
    # given, it is used: self at or below the threshold gets a zero gradient
    got = f(gradOutput=np.ones_like(X), self=X, threshold=0.5)
    assert got.tolist() == [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("where", ["gradOutput", "output", "gradInput"])
def test_a_complex_array_is_refused_with_161002(sigmoid_backward: OpCallable, dtype: type, where: str) -> None:
    params = {"gradOutput": X, "output": X, where: X.astype(dtype)}
    with pytest.raises(codegen.AclnnError) as info:
        sigmoid_backward(**params)
    name = "COMPLEX64" if dtype is np.complex64 else "COMPLEX128"
    assert (info.value.status, info.value.phase) == (161002, 1)
    assert info.value.message == (
        f"{where} has dtype DT_{name}, which is not supported: it must be one of [DT_FLOAT, DT_FLOAT16, DT_BF16]."
    )


@pytest.mark.parametrize("dtype", [object, "U3", "datetime64[s]", np.longdouble])
@pytest.mark.parametrize("where", ["gradOutput", "gradInput"])
def test_an_array_no_acl_dtype_represents_is_refused_with_161002(
    sigmoid_backward: OpCallable, dtype: object, where: str
) -> None:
    bad = X.astype(np.float64).astype(dtype) if dtype != "datetime64[s]" else np.zeros(X.shape, "datetime64[s]")
    if bad.dtype == np.float64:
        pytest.skip("long double is double on this platform")
    with pytest.raises(codegen.AclnnError) as info:
        sigmoid_backward(**{"gradOutput": X, "output": X, where: bad})
    assert (info.value.status, info.value.phase) == (161002, 1)
    assert info.value.message == (
        f"{where} has NumPy dtype {bad.dtype}, which no aclDataType represents (no aclTensor can be made of it): "
        "it must be one of [DT_FLOAT, DT_FLOAT16, DT_BF16]."
    )
    assert sigmoid_backward.last_stats == {}


def test_a_byte_swapped_array_is_refused_with_how_to_convert_it(sigmoid_backward: OpCallable) -> None:
    """A big-endian float32 array holds a type aclnn has, in the other byte order: the message says how to
    convert it (device memory is little-endian)."""
    with pytest.raises(codegen.AclnnError) as info:
        sigmoid_backward(gradOutput=X.astype(">f4"), output=X)
    assert (info.value.status, info.value.phase) == (161002, 1)
    assert info.value.message == (
        "gradOutput has NumPy dtype >f4, which no aclDataType represents (no aclTensor can be made of it) "
        "(convert it to native byte order first: .astype('<f4')): it must be one of [DT_FLOAT, DT_FLOAT16, DT_BF16]."
    )


def test_a_null_tensor_beside_an_unrepresentable_one_is_161001_naming_the_null_one(
    sigmoid_backward: OpCallable,
) -> None:
    with pytest.raises(codegen.AclnnError) as info:
        sigmoid_backward(gradOutput=X.astype(object), output=None)
    assert info.value.status == 161001
    assert info.value.message == "Expected a non-null argument for output, but got nullptr."
    # and the callable still works
    got = sigmoid_backward(gradOutput=np.ones_like(X), output=np.full_like(X, 0.5))
    assert got.tolist() == [[0.25] * 3] * 2


@pytest.mark.parametrize(
    ("op", "params", "null"),
    [
        ("SigmoidBackward", {"gradOutput": None, "output": None}, "gradOutput"),
        ("MseLoss", {"self": None, "target": None, "reduction": 0}, "self"),
        ("MseLoss", {"self": None, "target": None, "reduction": 1}, "self"),
        ("BinaryCrossEntropy", {"self": None, "target": None, "weight": None, "reduction": 2}, "self"),
    ],
)
def test_every_input_null_is_161001_not_a_python_error(
    op: str, params: dict[str, object], null: str, built_op: Callable[[str, str], OpCallable]
) -> None:
    """With every tensor None and no out=, an elementwise call raised IndexError (list index out of range)
    while choosing the dtype of the output it allocates, before phase 1 could answer 161001."""
    with pytest.raises(codegen.AclnnError) as info:
        built_op(op, "Ascend910B")(**params)
    assert info.value.status == 161001
    assert info.value.message == f"Expected a non-null argument for {null}, but got nullptr."


@pytest.mark.parametrize("axes", [26, 33, 64])
def test_an_array_of_more_axes_than_acl_create_tensor_takes_is_a_value_error_naming_it(
    sigmoid_backward: OpCallable, axes: int
) -> None:
    """33 axes raised NumPy's `RuntimeError: this function only supports up to 32 dimensions` while the output
    was inferred; past that, aclCreateTensor's nullptr went on to phase 1 as "null argument" (161001). As in
    C, aclCreateTensor refuses the array first, and the message names it."""
    a = np.ones((1,) * axes, np.float32)
    with pytest.raises(ValueError) as info:
        sigmoid_backward(gradOutput=a, output=a)
    assert str(info.value) == (
        f"aclnnSigmoidBackward: aclCreateTensor refused gradOutput ({axes} axes): aclCreateTensor: viewDims has "
        f"{axes} dimensions; at most 25 are supported."
    )


def test_an_array_of_9_to_25_axes_is_161002_from_phase_1(sigmoid_backward: OpCallable) -> None:
    a = np.ones((1,) * 25, np.float32)
    with pytest.raises(codegen.AclnnError) as info:
        sigmoid_backward(gradOutput=a, output=a)
    assert info.value.status == 161002 and "at most 8 are supported" in info.value.message


def test_a_scalar_attribute_beyond_its_acl_scalar_dtype_is_a_value_error(
    built_op: Callable[[str, str], OpCallable],
) -> None:
    """`ScalarArg(-1e300, "FLOAT")` became an aclScalar of FLOAT holding -inf (with NumPy's overflow
    RuntimeWarning) while a `float` attr of 1e39 was already a ValueError; a DOUBLE aclScalar holds it, and a
    Python float is one (min takes DOUBLE)."""
    from codegen.runner import ScalarArg

    f = built_op("HardtanhBackward", "Ascend910B")
    x = np.array([0.5, 2.0], np.float32)
    with pytest.raises(ValueError) as info:
        f(gradOutput=x, self=x, min=ScalarArg(-1e300, "FLOAT"))
    assert str(info.value) == (
        "aclnnHardtanhBackward: attribute 'min' (scalar): -1e+300 is beyond the range of an aclScalar of FLOAT "
        "(it would be -inf); pass ScalarArg(value, 'DOUBLE') to an attribute that takes a DOUBLE aclScalar"
    )
    assert f(gradOutput=x, self=x, min=ScalarArg(-1e300, "DOUBLE")).tolist() == [0.5, 0.0]
    assert f(gradOutput=x, self=x, min=-1e300).tolist() == [0.5, 0.0]


def test_a_python_number_for_a_scalar_attribute_is_a_double_acl_scalar_where_the_attr_takes_one() -> None:
    """A Python float is a C double: it became a FLOAT aclScalar (the attr's first dtype), which a FLOAT16
    foreach list refuses (161002: FLOAT16 or DOUBLE); an attr listing no DOUBLE keeps its first floating
    dtype, and an explicit ScalarArg keeps its own."""
    import dataclasses

    from codegen.runner import ScalarArg
    from codegen.runner.arguments import attr_value
    from codegen.specs import load_project

    _, specs = load_project()
    spec = specs["foreach_mul_scalar_v2"]
    (scalar,) = spec.attrs
    assert attr_value(spec, scalar, 2.0) == ScalarArg(2.0, "DOUBLE")
    assert attr_value(spec, scalar, 3) == ScalarArg(3.0, "DOUBLE")
    assert attr_value(spec, scalar, np.float32(0.5)) == ScalarArg(0.5, "DOUBLE")
    assert attr_value(spec, scalar, ScalarArg(2.0, "FLOAT16")) == ScalarArg(2.0, "FLOAT16")
    no_double = dataclasses.replace(scalar, scalar_dtypes=("INT32", "FLOAT16", "FLOAT"))
    assert attr_value(spec, no_double, 2.0) == ScalarArg(2.0, "FLOAT16")
    ints_only = dataclasses.replace(scalar, scalar_dtypes=("INT32", "INT64"))
    assert attr_value(spec, ints_only, 2) == ScalarArg(2.0, "INT32")

    half = [np.arange(5, dtype=np.float16), np.array([0.5, -1.5], np.float16)]
    (a, b) = codegen.compile_op("ForeachMulScalarV2", "Ascend910B")(x=half, scalar=2.0)
    assert a.dtype == np.float16 and a.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0] and b.tolist() == [1.0, -3.0]
    (c,) = codegen.compile_op("ForeachAddListV2", "Ascend910B")(x1=half[:1], x2=half[:1], alpha=0.5)
    assert c.dtype == np.float16 and c.tolist() == [0.0, 1.5, 3.0, 4.5, 6.0]


def test_a_string_attribute_with_a_lone_surrogate_is_a_value_error_naming_it(
    built_op: Callable[[str, str], OpCallable],
) -> None:
    f = built_op("GeluBackwardV2", "Ascend910B")
    x = np.ones(2, np.float32)
    with pytest.raises(ValueError) as info:
        f(gradOutput=x, self=x, approximate="t\udc80")
    assert str(info.value) == (
        "aclnnGeluBackwardV2: attribute 'approximate' (string) holds '\\udc80' at index 1, which UTF-8 cannot "
        "encode (a lone surrogate); a C string (char *) cannot carry it"
    )


@pytest.mark.parametrize(
    ("arg", "message"),
    [
        ((2**40, "INT32"), "1099511627776 is outside the range of an aclScalar of INT32 ([-2147483648, 2147483647])"),
        ((2**63, "INT64"), "9223372036854775808 is outside the range of an aclScalar of INT64"),
        ((float("nan"), "INT32"), "an aclScalar of INT32 holds an integer; got nan"),
        ((1.5, "INT32"), "an aclScalar of INT32 holds an integer; got 1.5"),
        ((1e39, "BF16"), "1e+39 is beyond the range of an aclScalar of BF16 (it would be inf)"),
    ],
)
def test_a_scalar_arg_its_dtype_cannot_hold_is_a_value_error_naming_the_attribute(
    arg: tuple[float, str], message: str
) -> None:
    """An integer aclScalar given a non-integer or a value beyond its range (C would truncate or wrap), and a
    BF16 one beyond bfloat16's range (it would be inf): a ValueError naming the op and the attribute, as a FLOAT
    one beyond float32's range already was (OverflowError and silent truncation before)."""
    from codegen.runner import ScalarArg
    from codegen.runner.arguments import attr_value
    from codegen.specs import load_project

    _, specs = load_project()
    spec = specs["index_add"]
    alpha = next(a for a in spec.attrs if a.name == "alpha")
    with pytest.raises(ValueError) as info:
        attr_value(spec, alpha, ScalarArg(arg[0], arg[1]))
    assert str(info.value).startswith(f"aclnnIndexAdd: attribute 'alpha' (scalar): {message}"), str(info.value)
    assert attr_value(spec, alpha, ScalarArg(2**31 - 1, "INT32")) == ScalarArg(2**31 - 1, "INT32")
    assert attr_value(spec, alpha, ScalarArg(3.0, "INT32")) == ScalarArg(3.0, "INT32")


def test_a_bool_for_a_scalar_attribute_without_bool_is_the_number_it_is(
    built_op: Callable[[str, str], OpCallable],
) -> None:
    """``scalar=True`` beside a FLOAT16 list: a DOUBLE aclScalar of 1.0 (the attribute lists no BOOL), which
    the list takes; it was a FLOAT aclScalar, which a FLOAT16 list refuses (161002)."""
    from codegen.runner import ScalarArg
    from codegen.runner.arguments import attr_value
    from codegen.specs import load_project

    _, specs = load_project()
    spec = specs["foreach_mul_scalar_v2"]
    scalar = next(a for a in spec.attrs if a.name == "scalar")
    assert attr_value(spec, scalar, True) == ScalarArg(1.0, "DOUBLE")
    f = built_op("ForeachMulScalarV2", "Ascend910B")
    got = f(x=[np.array([1.5, -2.0], np.float16)], scalar=True)
    assert [a.tolist() for a in got] == [[1.5, -2.0]]
