"""The Python API refuses calls beyond int64 or the memory cap before allocating anything, naming the
parameters; it never allocates gigabytes for a shape it cannot run, nor blames an ``out`` nobody passed."""

from __future__ import annotations

import resource
import subprocess
import sys
import warnings
from collections.abc import Callable

import numpy as np
import pytest

import codegen

PRODUCT = "Ascend910B"


@pytest.fixture(scope="module")
def sigmoid(built_op: Callable[[str, str], codegen.runner.OpCallable]) -> codegen.runner.OpCallable:
    return built_op("sigmoid_backward", PRODUCT)


@pytest.fixture(scope="module")
def embedding(built_op: Callable[[str, str], codegen.runner.OpCallable]) -> codegen.runner.OpCallable:
    return built_op("embedding_dense_backward", PRODUCT)


def _rss_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def test_zero_stride_inputs_whose_broadcast_is_beyond_int64_are_refused_without_allocating(sigmoid) -> None:  # type: ignore[no-untyped-def]
    one = np.ones(1, np.float32)
    column = np.broadcast_to(one.reshape(1, 1), (2**32, 1))
    row = np.broadcast_to(one.reshape(1, 1), (1, 2**32))
    before = _rss_kib()
    with pytest.raises(ValueError) as info:
        sigmoid(gradOutput=column, output=row)
    message = str(info.value)
    assert message.startswith(
        "aclnnSigmoidBackward: the result would have shape [4294967296, 4294967296] = 18446744073709551616 "
        "elements (from gradOutput=[4294967296, 1], output=[1, 4294967296]), beyond int64"
    )
    assert "out" not in message.replace("output", "")  # no out= was passed: none is blamed
    assert _rss_kib() - before < 256 * 1024  # nothing near 16 GiB was touched


def test_a_call_beyond_the_memory_cap_is_refused_and_the_cap_is_configurable(
    sigmoid,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    one = np.ones(1, np.float32)
    column = np.broadcast_to(one.reshape(1, 1), (2**16, 1))
    row = np.broadcast_to(one.reshape(1, 1), (1, 2**16))  # the result: 2**32 elements, 16 GiB as FLOAT
    with pytest.raises(ValueError, match=r"beyond the cap of 4 GiB \(OPGEN_MAX_CALL_BYTES\); no array was allocated"):
        sigmoid(gradOutput=column, output=row)
    monkeypatch.setenv("OPGEN_MAX_CALL_BYTES", "1000")
    small = np.full(100, 0.5, np.float32)  # 400 + 400 bytes in, 400 out + 2 x 400 fp32 copies > 1000
    with pytest.raises(ValueError, match=r"about 1\.95 KiB of memory .*beyond the cap of 1000 bytes"):
        sigmoid(gradOutput=small, output=small)
    monkeypatch.setenv("OPGEN_MAX_CALL_BYTES", "100000")
    np.testing.assert_array_equal(
        sigmoid(gradOutput=small, output=small), np.full(100, 0.125, np.float32)
    )  # 0.5 * 0.5 * (1 - 0.5)


def test_num_weights_beyond_int64_names_the_parameter(embedding) -> None:  # type: ignore[no-untyped-def]
    grad = np.ones((2, 8), np.float32)
    indices = np.zeros(2, np.int64)
    with warnings.catch_warnings(record=True) as record, pytest.raises(ValueError) as info:
        warnings.simplefilter("always")
        embedding(grad=grad, indices=indices, numWeights=2**63, paddingIdx=2**64 - 1, scaleGradByFreq=False)
    assert str(info.value).startswith(
        "aclnnEmbeddingDenseBackward: numWeights=9223372036854775808 is beyond int64 (9223372036854775807)"
    )
    assert [str(w.message) for w in record] == []


def test_num_weights_beyond_the_cap_names_it(embedding) -> None:  # type: ignore[no-untyped-def]
    grad = np.ones((2, 8), np.float32)
    with pytest.raises(ValueError, match=r"result shapes from shape\(numWeights, dim\(grad, -1\)\)"):
        embedding(
            grad=grad, indices=np.zeros(2, np.int64), numWeights=2**40, paddingIdx=2**64 - 1, scaleGradByFreq=False
        )


def test_the_big_call_in_a_subprocess_fails_fast_with_low_memory() -> None:
    code = (
        "import numpy as np, codegen\n"
        "f = codegen.compile_op('sigmoid_backward', 'Ascend910B')\n"
        "one = np.ones((1, 1), np.float32)\n"
        "try:\n"
        "    f(gradOutput=np.broadcast_to(one, (2**32, 1)), output=np.broadcast_to(one, (1, 2**32)))\n"
        "except ValueError as e:\n"
        "    print('ValueError')\n"
        # VmHWM: this process image's peak resident set (kB). Not getrusage's ru_maxrss, which Linux carries
        # over exec from the forking parent (a large pytest worker would set it).
        "print([int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:')][0])\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=600)
    assert proc.returncode == 0, proc.stderr
    verdict, rss_kib = proc.stdout.split()
    assert verdict == "ValueError" and int(rss_kib) < 1024 * 1024


@pytest.mark.parametrize(("value", "cap"), [("", 4 << 30), ("4096", 4096), ("1e9", 10**9)])
def test_an_empty_memory_cap_variable_is_unset(monkeypatch: pytest.MonkeyPatch, value: str, cap: int) -> None:
    """``OPGEN_MAX_CALL_BYTES=`` (empty) made every call a ValueError; it means unset, as OPGEN_CACHE_DIR does."""
    from codegen.runner.memory import max_call_bytes

    monkeypatch.setenv("OPGEN_MAX_CALL_BYTES", value)
    assert max_call_bytes() == cap
    for bad in ("0", "1.5", "inf", "nan", "4 GiB"):
        monkeypatch.setenv("OPGEN_MAX_CALL_BYTES", bad)
        with pytest.raises(ValueError, match=f"must be a positive number of bytes, got '{bad}'"):
            max_call_bytes()


def test_an_output_shaped_by_an_int_array_attr_counts_against_the_cap(
    built_op: Callable[[str, str], codegen.runner.OpCallable],
) -> None:
    """aclnnLayerNormBackward's gradWeightOut takes normalizedShape's shape: a normalizedShape of 2**30 was
    allocated (4 GiB, then a MemoryError or the OOM killer) before phase 1 could refuse it."""
    fn = built_op("layer_norm_backward", "Ascend910B")
    x, m = np.ones((2, 3), np.float32), np.ones((2, 1), np.float32)
    before = _rss_kib()
    with pytest.raises(ValueError, match=r"beyond the cap of .*; no array was allocated") as info:
        fn(gradOut=x, input=x, normalizedShape=[2**30], mean=m, rstd=m, outputMask=[False, True, False])
    assert "normalizedShape" in str(info.value)
    assert _rss_kib() - before < 512 * 1024


@pytest.mark.parametrize(("op", "product"), [(None, PRODUCT), ("sigmoid_backward", 910)])
def test_compile_op_of_a_non_string_is_a_type_error(op: object, product: object) -> None:
    """``compile_op(None, ...)`` was a KeyError "unknown op 'None'"."""
    with pytest.raises(TypeError, match=r"^compile_op: (op|product) must be a str, got (NoneType|int)$"):
        codegen.compile_op(op, product)  # type: ignore[arg-type]
