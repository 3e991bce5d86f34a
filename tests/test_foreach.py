"""The foreach family's mechanism on aclnnForeachSqrt (Ascend910B, one build): the list split the generated
tiling function hands the kernel, the GM traffic of one launch over a list, PyTorch's ``torch._foreach_sqrt``
as the independent oracle, and the quick check matrix; the binary and scalar APIs against PyTorch's
``torch._foreach_*`` (in place too).

Expected values come from the arrays themselves (element counts, bytes), from arithmetic on the spec's tiling
parameters (32 KiB of the list per core) or from PyTorch, never from the project's planner."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from codegen.check.case_run import run_case
from codegen.check.reference import load_reference
from codegen.families.foreach.cases.values import scalar_dtype
from codegen.registry import family
from codegen.runner import AclnnError, OpCallable
from codegen.spec.model import DType
from codegen.specs import load_project

torch = pytest.importorskip("torch", reason="PyTorch (the test's oracle) is not installed: pip install -e '.[test]'")

PRODUCT = "Ascend910B"
OP = "foreach_sqrt"
CATALOGUE, SPECS = load_project()


def _list(shapes: list[tuple[int, ...]], dtype: object, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [np.asarray(rng.random(s, dtype=np.float32) * 50, dtype=np.float32).astype(dtype) for s in shapes]


def test_one_launch_splits_the_list_across_tensor_boundaries(built_op: Callable[[str, str], OpCallable]) -> None:
    """A list of 20000, 0, 1 (0-d), 27000 and 17 FLOAT elements (188072 bytes): ceil(188072 / 32768) = 6 cores
    in one launch; every core starts on a 32-byte block of its tensor (8 FLOAT elements), the shares tile the
    list in order without a gap or an overlap, and every output byte is written once."""
    f = built_op(OP, PRODUCT)
    shapes = [(20000,), (0,), (), (9000, 3), (17,)]
    xs = _list(shapes, np.float32)
    out = f(x=xs)
    for a, o in zip(xs, out, strict=True):
        assert o.shape == a.shape
        np.testing.assert_array_equal(o, np.sqrt(a.astype(np.float64)).astype(np.float32))
    (launch,) = f.last_stats["launches"]
    t = launch["tiling"]
    assert launch["block_dim"] == t["needCoreNum"] == 6
    assert t["totalTensorCount"] == 5
    assert t["tensorDataCountList"][:5] == [20000, 0, 1, 27000, 17]
    counts = t["tensorDataCountList"]
    position = (0, 0)  # (tensor, element) the next core must start at
    for c in range(6):
        start = (t["tensorStartList"][c], t["tensorStartOffsetList"][c])
        end = (t["tensorEndList"][c], t["tensorEndOffsetList"][c])
        assert start[1] % 8 == 0, c
        # the previous share ended at `position`, or at the end of the tensor before `start` (empty ones skipped)
        skipped = position[0] < start[0] and start[1] == 0
        assert start == position or (skipped and all(counts[k] == 0 for k in range(position[0] + 1, start[0]))), c
        assert end[1] == counts[end[0]] or end[1] % 8 == 0, c
        position = end if end[1] < counts[end[0]] else (end[0] + 1, 0)
    assert position == (5, 0)  # the last share ends with the list
    written = [core["gm_bytes_written"] for core in launch["cores"]]
    assert sum(written) == 4 * (20000 + 1 + 27000 + 17)  # every output element written once
    assert max(written) <= 1.05 * sum(written) / len(written)


@pytest.mark.parametrize("dtype", ["FLOAT", "FLOAT16", "BF16"])
def test_torch_foreach_sqrt_bit_for_bit(dtype: str, built_op: Callable[[str, str], OpCallable]) -> None:
    """``torch._foreach_sqrt`` on CPU of a list with a 0-d, an empty and a negative-valued tensor (NaN) and a
    tensor over several cores gives the kernel's output bit for bit in FLOAT16 and BF16 (both round the square
    root once); in FLOAT within one ULP (PyTorch's CPU kernel is not correctly rounded everywhere: sqrt(49.62566)
    is 7.0445485 there, 7.044548 in C's sqrtf and the emulator)."""
    f = built_op(OP, PRODUCT)
    torch_dtype = {"FLOAT": torch.float32, "FLOAT16": torch.float16, "BF16": torch.bfloat16}[dtype]
    tensors = [
        torch.rand(3, 5) * 100,
        torch.tensor(2.0),
        torch.empty(0, 4),
        -torch.rand(6),
        torch.rand(50000) * 1e4,
        torch.tensor([0.0, -0.0, float("inf"), 1e-30]),
    ]
    tensors = [t.to(torch_dtype) for t in tensors]
    want = torch._foreach_sqrt(tensors)
    store = ml_dtypes.bfloat16 if dtype == "BF16" else None
    arrays = [t.float().numpy().astype(store) if store else t.numpy() for t in tensors]
    got = f(x=arrays)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        expected = w.float().numpy().astype(store) if store else w.numpy()
        assert g.shape == expected.shape and g.dtype == expected.dtype
        if dtype != "FLOAT":
            assert g.tobytes() == expected.tobytes()
            continue
        nan = np.isnan(expected)
        np.testing.assert_array_equal(np.isnan(g), nan)
        np.testing.assert_array_max_ulp(g[~nan], expected[~nan], maxulp=1)


def test_a_null_tensor_in_the_list_is_161001(built_op: Callable[[str, str], OpCallable]) -> None:
    """A null element of x (ops-nn's API would read it without a check) returns ACLNN_ERR_PARAM_NULLPTR."""
    f = built_op(OP, PRODUCT)
    with pytest.raises(AclnnError) as info:
        f(x=[np.ones(3, np.float32), None])
    assert info.value.status == 161001


@pytest.mark.parametrize(
    ("op", "params", "status", "message"),
    [
        ("foreach_mul_list", {"x1": "ab", "x2": "aH"}, 161002, "x2[1] must have dtype DT_FLOAT, but has DT_FLOAT16"),
        ("foreach_mul_list", {"x1": "ab", "x2": "aw"}, 161002, "x1[1] (shape [3]) and x2[1] (shape [4])"),
        ("foreach_mul_list", {"x1": "aN", "x2": "ab"}, 161001, "non-null argument for x1[1]"),
        ("foreach_sqrt", {"x": "I"}, 161002, "x[0] has dtype DT_INT8, which is not supported"),
        ("foreach_sqrt", {"x": "aH"}, 161002, "x[1] must have dtype DT_FLOAT, but has DT_FLOAT16"),
    ],
)
def test_per_element_messages_name_the_parameter_and_index(
    op: str, params: dict[str, str], status: int, message: str, built_op: Callable[[str, str], OpCallable]
) -> None:
    """A per-element check of the lists names the element as the caller's parameter and index (``x2[1]``), as
    CANN's messages name a tensor by its parameter, not the C++ expression that reads it."""
    arrays = {
        "a": np.ones(3, np.float32),
        "b": np.ones(3, np.float32),
        "w": np.ones(4, np.float32),
        "H": np.ones(3, np.float16),
        "I": np.ones(3, np.int8),
        "N": None,
    }
    with pytest.raises(AclnnError) as info:
        built_op(op, PRODUCT)(**{name: [arrays[k] for k in keys] for name, keys in params.items()})
    assert info.value.status == status
    assert message in str(info.value)


def test_quick_check_matrix_passes(built_op: Callable[[str, str], OpCallable]) -> None:
    """Every case of ``opgen check foreach_sqrt --quick`` on Ascend910B in FLOAT (value, status and status-matrix
    cases) passes, and the matrix holds the list shapes the family promises."""
    spec = SPECS[OP]
    product = CATALOGUE.get(PRODUCT)
    cases = list(family("foreach").check_cases(spec, product, [spec.inputs[0].dtypes[0]], True))
    names = {c.name for c in cases}
    assert {"one tensor", "two tensors", "mixed sizes with empty and 0-d", "empty list"} <= names
    assert "null x[1] -> 161001" in names and "out of 1 tensor (x of 2) -> 161002" in names
    fn, ref = built_op(OP, PRODUCT), load_reference(spec)
    failed = [(c.name, r.message) for c in cases if not (r := run_case(fn, c, ref)).passed]
    assert not failed, failed[:5]


#: The torch dtype of each list dtype the family takes.
TORCH_DTYPES = {
    "FLOAT": torch.float32,
    "FLOAT16": torch.float16,
    "BF16": torch.bfloat16,
    "INT32": torch.int32,
    "INT16": torch.int16,
}
#: The two-list ops against PyTorch by dtype: every floating dtype, and INT32 and INT16 where the spec lists them.
BINARY_CASES = [
    (op, oracle, dtype)
    for op, oracle in (("foreach_mul_list", "_foreach_mul"), ("foreach_div_list", "_foreach_div"))
    for dtype in ("FLOAT", "FLOAT16", "BF16", "INT32", "INT16")
    if dtype in [d.name for d in SPECS[op].inputs[0].dtypes]
]


@pytest.mark.parametrize(("op", "oracle", "dtype"), BINARY_CASES)
def test_binary_lists_against_torch(
    op: str, oracle: str, dtype: str, built_op: Callable[[str, str], OpCallable]
) -> None:
    """What a second input list adds: ``torch._foreach_mul`` / ``torch._foreach_div`` of two lists (a 0-d, an
    empty, a multi-core tensor; zeros and infinities in the divisor) give the kernel's output bit for bit (one
    IEEE operation rounded once; BF16 computed in FLOAT and rounded once by both). INT32 and INT16 lists of the
    dtype's whole range (the extremes among them) give torch's wrap-around products."""
    f = built_op(op, PRODUCT)
    torch_dtype = TORCH_DTYPES[dtype]
    gen = torch.Generator().manual_seed(3)
    shapes = [(3, 5), (), (0, 2), (40000,)]
    if dtype in ("INT32", "INT16"):
        info = torch.iinfo(torch_dtype)
        x1 = [torch.randint(info.min, info.max, s, generator=gen, dtype=torch_dtype) for s in shapes]
        x2 = [torch.randint(info.min, info.max, s, generator=gen, dtype=torch_dtype) for s in shapes]
        root = 2 ** (info.bits // 2)  # root * root wraps to 0
        x1[0][0, :4] = torch.tensor([info.max, info.min, root, -1], dtype=torch_dtype)
        x2[0][0, :4] = torch.tensor([2, -1, root, info.min], dtype=torch_dtype)
    else:
        x1 = [(torch.rand(s, generator=gen) * 20 - 10).to(torch_dtype) for s in shapes]
        x2 = [(torch.rand(s, generator=gen) * 4 - 2).to(torch_dtype) for s in shapes]
        x2[0][0, :3] = torch.tensor([0.0, float("inf"), -0.0], dtype=torch_dtype)
    want = getattr(torch, oracle)(x1, x2)
    store = ml_dtypes.bfloat16 if dtype == "BF16" else None

    def arrays(ts: list[torch.Tensor]) -> list[np.ndarray]:
        return [t.float().numpy().astype(store) if store else t.numpy() for t in ts]

    got = f(x1=arrays(x1), x2=arrays(x2))
    for g, w in zip(got, arrays(list(want)), strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        assert g.tobytes() == w.tobytes()


def test_in_place_and_strided_outputs_leave_everything_else_untouched(
    built_op: Callable[[str, str], OpCallable],
) -> None:
    """``out`` may be ``x`` itself (an in-place update, as ``torch._foreach_sqrt_``): every tensor then holds its
    square root. A strided out tensor (every third column of a ``[4, 12]`` array) gets its elements and the
    array's other elements keep their bytes; the input arrays are never written."""
    f = built_op(OP, PRODUCT)
    xs = [np.arange(1, 13, dtype=np.float32).reshape(3, 4), np.full((5,), 4.0, np.float32)]
    want = [np.sqrt(a.astype(np.float64)).astype(np.float32) for a in xs]
    out = f(x=xs, out=xs)
    assert out[0] is xs[0] and out[1] is xs[1]
    for a, w in zip(xs, want, strict=True):
        np.testing.assert_array_equal(a, w)
    holder = np.full((4, 12), -7.0, np.float32)
    source = [np.full((4, 4), 9.0, np.float32), np.arange(9, dtype=np.float32)]
    kept = [a.copy() for a in source]
    f(x=source, out=[holder[:, ::3], np.zeros(9, np.float32)])
    np.testing.assert_array_equal(holder[:, ::3], np.full((4, 4), 3.0, np.float32))
    others = np.ones(holder.shape, bool)
    others[:, ::3] = False
    assert np.all(holder[others] == -7.0)
    for a, k in zip(source, kept, strict=True):
        np.testing.assert_array_equal(a, k)


#: The scalar APIs against PyTorch: (op, the list names, the scalar attr, its value for floating lists and for
#: INT32 lists, the torch call on the lists and a value). Each floating scalar is exact in every dtype, and each
#: product with it too (-0.5 in AddListV2: one rounding, the sum's, in the kernel's Muls-then-Add as in PyTorch's
#: x1 + alpha * x2; the exponent 2 in PowScalarV2: one rounding of x * x in PyTorch, the correctly rounded square
#: in the emulated Power). An INT32 list (where the spec lists it) takes an INT32 scalar near the type's extremes,
#: so that sums and products wrap around, as PyTorch's int32 arithmetic.
SCALAR_APIS = {
    "foreach_mul_scalar_v2": (("x",), "scalar", -1.75, -3, lambda ls, v: torch._foreach_mul(ls[0], v)),
    "foreach_add_scalar_v2": (("x",), "scalar", -1.75, 2**31 - 5, lambda ls, v: torch._foreach_add(ls[0], v)),
    "foreach_add_list_v2": (
        ("x1", "x2"),
        "alpha",
        -0.5,
        -7,
        lambda ls, v: torch._foreach_add(ls[0], ls[1], alpha=v),
    ),
    "foreach_maximum_scalar_v2": (("x",), "scalar", -1.75, -5, lambda ls, v: torch._foreach_maximum(ls[0], v)),
    "foreach_pow_scalar_v2": (("x",), "scalar", 2.0, 2, lambda ls, v: torch._foreach_pow(ls[0], v)),
}


@pytest.mark.parametrize("op", list(SCALAR_APIS))
def test_scalar_apis_against_torch_and_in_place(op: str, built_op: Callable[[str, str], OpCallable]) -> None:
    """The V2 scalar APIs against ``torch._foreach_mul`` / ``_foreach_add`` / ``_foreach_maximum`` (a list and a
    scalar, or two lists and alpha; no NaN: CANN's Maxs differs from PyTorch there, see the spec's notes) on
    lists of 40 tensors with empty and 0-d ones (and in FLOAT a list of 256, the most one call takes), in every
    dtype the spec lists, bit for bit (see :data:`SCALAR_APIS`; BF16 computed in FLOAT by both; INT32 lists of
    the whole int32 range wrap around as PyTorch's). The in-place call (``out`` is the first list, as
    ``torch._foreach_mul_``) leaves every tensor equal to the out-of-place result and no byte of the guarded
    buffer around the list changed."""
    from codegen.check.in_place import GUARD_BYTE, guarded_copy
    from codegen.runner import ScalarArg

    names, attr, value, int_value, oracle = SCALAR_APIS[op]
    f = built_op(op, PRODUCT)
    gen = torch.Generator().manual_seed(5)
    shapes: list[tuple[int, ...]] = [(k % 5 + 1, 3 * k + 1) for k in range(36)] + [(0,), (), (2, 0), (9000,)]
    listed = [d.name for d in SPECS[op].inputs[0].dtypes]
    for dtype, count in (("FLOAT", 256), ("FLOAT16", 40), ("BF16", 40), ("INT32", 40)):
        if dtype not in listed:
            continue
        torch_dtype = TORCH_DTYPES[dtype]
        store = ml_dtypes.bfloat16 if dtype == "BF16" else None

        def arrays(ts: list[torch.Tensor], store: object = store) -> list[np.ndarray]:
            return [t.float().numpy().astype(store) if store else t.numpy() for t in ts]

        shaped = (shapes * 7)[:count]
        if dtype == "INT32":
            lists = [
                [torch.randint(-(2**31), 2**31 - 1, s, generator=gen, dtype=torch.int32) for s in shaped] for _ in names
            ]
            want = arrays(list(oracle(lists, int_value)))
            scalar = ScalarArg(int_value, "INT32")
        else:
            lists = [[(torch.rand(s, generator=gen) * 20 - 10).to(torch_dtype) for s in shaped] for _ in names]
            want = arrays(list(oracle(lists, value)))
            scalar = ScalarArg(value, "FLOAT16" if dtype == "FLOAT16" else "FLOAT")
        given = {n: arrays(ts) for n, ts in zip(names, lists, strict=True)}
        got = f(**given, **{attr: scalar})
        assert len(got) == count
        for g, w in zip(got, want, strict=True):
            assert g.shape == w.shape and g.dtype == w.dtype and g.tobytes() == w.tobytes()
        guarded = guarded_copy(given[names[0]])
        updated = f(**{**given, names[0]: guarded.arrays, "out": guarded.arrays}, **{attr: scalar})
        assert all(u is a for u, a in zip(updated, guarded.arrays, strict=True))
        for a, w in zip(guarded.arrays, want, strict=True):
            assert a.tobytes() == w.tobytes()
        assert guarded.touched() == 0
    guarded.buffer[guarded.tensors[0][1]] ^= 0xFF  # one byte just past the first tensor: the guard sees it
    assert guarded.touched() == 1 and GUARD_BYTE == 0xA5


FOREACH_APIS = sorted((s.op, s.aclnn_name) for s in SPECS.values() if s.family == "foreach")


@pytest.mark.parametrize(("op", "api"), FOREACH_APIS, ids=[a for _, a in FOREACH_APIS])
def test_vector_work_is_ops_nn(op: str, api: str, built_op: Callable[[str, str], OpCallable]) -> None:
    """Every foreach API's vector element-ops per element (the emulator's ``vector_elements`` over the list's
    elements), in every dtype, equal ops-nn's hand count (bench/ops_nn_counts.yaml, counted from its kernels):
    one instruction per element (FLOAT, FLOAT16), with the casts of each input list up and the result back
    for BF16; aclnnForeachAddListV2 ``Muls`` and ``Add`` (2) and on BF16 one ``Axpy`` into x1's fp32 copy
    between the casts (4, where ``Muls`` and ``Add`` took 5); an entry's ``generated_below`` figure where the
    generated kernel does less than ops-nn's (aclnnForeachLerpScalar's longer path with the weight 0.75 keeps
    x2's fp32 copy: 5 where ops-nn casts x2 twice, 6); an INT32 or INT16 list (where the spec lists it) one
    instruction per element in its own dtype (aclnnForeachAddListV2: ``Muls`` and ``Add``, 2, as ops-nn's
    AddListNormalAdapter)."""
    import yaml

    from codegen.runner import ScalarArg

    counts = Path(__file__).resolve().parent.parent / "bench" / "ops_nn_counts.yaml"
    entry = yaml.safe_load(counts.read_text(encoding="utf-8"))[api]
    want = {**entry["element_ops_per_element"], **(entry.get("generated_below") or {})}
    spec = next(s for s in SPECS.values() if s.op == op)
    f = built_op(op, PRODUCT)
    shapes = [(40000,), (), (3, 7), (0,), (1000,)]
    stores = (
        ("FLOAT", np.float32),
        ("FLOAT16", np.float16),
        ("BF16", ml_dtypes.bfloat16),
        ("INT32", np.int32),
        ("INT16", np.int16),
    )
    for dtype, store in stores:
        if dtype not in [d.name for d in spec.inputs[0].dtypes]:
            continue
        lists = {t.name: _list(shapes, store, seed=k) for k, t in enumerate(spec.inputs)}
        kernel_scalar = scalar_dtype(spec, DType[dtype])  # the dtype the scalar's device tensor takes
        value = 3 if DType[dtype].is_integer else 0.75
        scalars = {
            a.name: ScalarArg(value, kernel_scalar.name) for a in spec.attrs if a.type == "scalar" and kernel_scalar
        }
        f(**lists, **scalars)
        elements = sum(int(c["vector_elements"]) for launch in f.last_stats["launches"] for c in launch["cores"])
        assert elements == want[dtype] * sum(a.size for a in lists[spec.inputs[0].name]), dtype


@pytest.mark.parametrize(
    ("op", "dtype", "store", "tile"),
    [
        # 196608 bytes of UB (Ascend910B's 192 KiB) over two tiles per input list and no output tile (the result is
        # copied out of an input tile): three FLOAT lists 3 * 2 * 4 = 24 bytes per element (with two output tiles as
        # the two-list ops have, 32: 6144); BF16 3 * 2 * 2 + 3 FLOAT copies * 4 = 24; FLOAT16, computed in FLOAT16,
        # 3 * 2 * 2 = 12
        ("foreach_addcmul_scalar_v2", "FLOAT", np.float32, 196608 // 24),
        ("foreach_addcmul_scalar_v2", "BF16", ml_dtypes.bfloat16, 196608 // 24),
        ("foreach_addcmul_scalar_v2", "FLOAT16", np.float16, 196608 // 24),
        # two FLOAT16 lists computed in FLOAT (the FLOAT weight): 2 * 2 * 2 + 2 * 4 = 16
        ("foreach_lerp_scalar", "FLOAT16", np.float16, 196608 // 16),
    ],
)
def test_the_tile_shrinks_with_each_input_list(
    op: str, dtype: str, store: object, tile: int, built_op: Callable[[str, str], OpCallable]
) -> None:
    """What a list form adds: the tiling function's tile (``inputsTensorUbSize``) counts every input list and no
    output tile, the kernel's buffers fit the UB with it on a list that needs several tiles, and ``opgen explain``
    prints the same tile and the UB bytes it takes."""
    from codegen.explain import explain
    from codegen.runner import ScalarArg

    spec = SPECS[op]
    f = built_op(op, PRODUCT)
    lists = {t.name: _list([(3 * tile + 5,), (7,)], store, seed=k) for k, t in enumerate(spec.inputs)}
    kernel_scalar = scalar_dtype(spec, DType[dtype])
    assert kernel_scalar is not None
    (attr,) = [a.name for a in spec.attrs if a.type == "scalar"]
    f(**lists, **{attr: ScalarArg(0.25, kernel_scalar.name)})
    (launch,) = f.last_stats["launches"]
    assert launch["tiling"]["inputsTensorUbSize"] == tile
    text = explain(spec, CATALOGUE.get(PRODUCT), "64,64", dtype)
    assert f"of {tile} elements" in text and "no output tile" in text
