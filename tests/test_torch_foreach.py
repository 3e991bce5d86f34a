"""``torch._foreach_*`` inside ``codegen.torch.ops()``: the functions of ``codegen.torch.lists.LIST_OPS`` run
through the generated foreach ops (their in-place forms write the result into the list), and a call those ops
cannot take runs eagerly (mixed dtypes in a list, a gradient wanted, a second argument of another kind)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import codegen.torch as ct  # noqa: E402


def _lists() -> tuple[list, list]:
    g = torch.Generator().manual_seed(7)
    shapes = [(3, 4), (5,), (), (0,), (33,)]
    a = [torch.rand(s, generator=g) + 0.5 for s in shapes]
    b = [torch.rand(s, generator=g) + 0.5 for s in shapes]
    return a, b


def test_foreach_functions_run_through_the_generated_list_ops() -> None:
    a, b = _lists()
    want_mul, want_div, want_sqrt = torch._foreach_mul(a, b), torch._foreach_div(a, b), torch._foreach_sqrt(a)
    in_place = [t.clone() for t in a]
    with ct.ops("Ascend910B") as ran:
        mul, div, sqrt = torch._foreach_mul(a, b), torch._foreach_div(a, b), torch._foreach_sqrt(a)
        assert torch._foreach_div_(in_place, b) is in_place  # as eager: the list it updated
        assert type(mul) is type(want_mul) is tuple
    assert ran.generated == {"ForeachMulList": 1, "ForeachDivList": 2, "ForeachSqrt": 1}
    assert "_foreach_mul" not in ran.eager and "_foreach_div_" not in ran.eager
    for got, want in zip(mul, want_mul):
        assert got.shape == want.shape and torch.equal(got, want)
    for got, want in zip([*div, *in_place], [*want_div, *want_div]):
        assert torch.equal(got, want)
    for got, want in zip(sqrt, want_sqrt):  # PyTorch's CPU sqrt is not always correctly rounded: 1 ULP
        torch.testing.assert_close(got, want, rtol=2.0**-23, atol=0.0)


def test_foreach_calls_the_list_ops_cannot_take_run_eagerly() -> None:
    a, b = _lists()
    mixed = [torch.ones(2), torch.ones(2, dtype=torch.float64)]
    wants_grad = [t.clone().requires_grad_() for t in a]
    with ct.ops("Ascend910B") as ran:
        torch._foreach_sqrt(mixed)  # one dtype per list in aclnnForeachSqrt: phase 1 refuses it
        torch._foreach_mul(wants_grad, b)  # the list ops have no gradient
        with pytest.raises(RuntimeError):  # PyTorch's own check: lists of unequal lengths
            torch._foreach_mul(a, b[:2])
    assert ran.generated == {}
    assert ran.eager["_foreach_sqrt"] == 1 and ran.eager["_foreach_mul"] == 2


def test_in_place_calls_whose_entries_overlap_run_eagerly() -> None:
    # PyTorch updates the entries of an in-place list in turn, each reading what the ones before wrote; the
    # expected values are worked out by hand from that rule
    t = torch.arange(1, 5.0)
    v = torch.arange(8.0)
    a, b = torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])
    w = torch.arange(6.0)
    with ct.ops("Ascend910B") as ran:
        torch._foreach_mul_([t, t], 2.0)  # one tensor twice: multiplied by 4
        torch._foreach_add_([v[:4], v[2:6]], 1.0)  # v[2:4] is in both entries
        torch._foreach_mul_([a, b], [b, a])  # b is read after a = a * b was written
        with pytest.raises(RuntimeError, match="single memory location"):  # PyTorch refuses a partial overlap
            torch._foreach_mul_([w[:3]], [w[1:4]])
    assert torch.equal(t, torch.tensor([4.0, 8.0, 12.0, 16.0]))
    assert torch.equal(v, torch.tensor([1.0, 2.0, 4.0, 5.0, 5.0, 6.0, 6.0, 7.0]))
    assert torch.equal(a, torch.tensor([3.0, 8.0])) and torch.equal(b, torch.tensor([9.0, 32.0]))
    assert torch.equal(w, torch.arange(6.0))
    assert ran.generated == {}
    assert ran.eager["_foreach_mul_"] == 3 and ran.eager["_foreach_add_"] == 1


def test_in_place_calls_whose_entries_are_apart_or_the_same_view_are_generated() -> None:
    v = torch.arange(1, 9.0)
    a = torch.tensor([1.0, 2.0, 3.0])
    with ct.ops("Ascend910B") as ran:
        torch._foreach_add_([v[:4], v[4:]], 1.0)  # two halves of one storage: no byte in common
        torch._foreach_mul_([a], [a])  # each element reads itself: a * a
    assert torch.equal(v, torch.arange(2, 10.0))
    assert torch.equal(a, torch.tensor([1.0, 4.0, 9.0]))
    assert ran.generated == {"ForeachAddScalarV2": 1, "ForeachMulList": 1}
    assert "_foreach_add_" not in ran.eager and "_foreach_mul_" not in ran.eager


def test_foreach_functions_without_a_list_row_are_counted_as_eager() -> None:
    a = [torch.tensor([-1.0, 2.0])]
    with ct.ops("Ascend910B") as ran:
        out = torch._foreach_maximum(a, 0.0)
        torch._foreach_maximum_(a, 1.0)
        torch._foreach_neg(a)
    assert torch.equal(out[0], torch.tensor([0.0, 2.0])) and torch.equal(a[0], torch.tensor([1.0, 2.0]))
    assert ran.eager["_foreach_maximum"] == 1 and ran.eager["_foreach_maximum_"] == 1
    assert ran.eager["_foreach_neg"] == 1


def test_a_python_float_with_a_float16_list_runs_the_generated_scalar_op() -> None:
    # a Python float is a DOUBLE aclScalar, which aclnnForeachMulScalarV2 takes for a FLOAT16 list (a FLOAT
    # one it refuses, which made the call silently eager)
    h = [torch.arange(5, dtype=torch.float16), torch.tensor([0.5, -1.5], dtype=torch.float16)]
    with ct.ops("Ascend910B") as ran:
        out = torch._foreach_mul(h, 2.0)
        torch._foreach_add_(h, 1.0)
    assert ran.generated == {"ForeachMulScalarV2": 1, "ForeachAddScalarV2": 1} and "_foreach_mul" not in ran.eager
    assert out[0].dtype == torch.float16 and out[0].tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]
    assert out[1].tolist() == [1.0, -3.0]
    assert h[0].tolist() == [1.0, 2.0, 3.0, 4.0, 5.0] and h[1].tolist() == [1.5, -0.5]


def test_foreach_pow_runs_the_generated_op_but_for_the_exponents_pytorch_takes_as_roots() -> None:
    # x ** 2 is one rounding in both (PyTorch's x * x, the emulated Power's powf): bit for bit; x ** 0.5 and
    # x ** -0.5 stay eager (PyTorch's sqrt / rsqrt give NaN for -inf where the API gives IEEE pow's +inf / +0)
    a, _ = _lists()
    a = [t - 1.0 for t in a]  # values of both signs
    want = torch._foreach_pow(a, 2.0)
    in_place = [t.clone() for t in a]
    with ct.ops("Ascend910B") as ran:
        got = torch._foreach_pow(a, 2.0)
        assert torch._foreach_pow_(in_place, exponent=2.0) is in_place
        roots = torch._foreach_pow(a, 0.5)
        torch._foreach_pow(a, -0.5)
    assert ran.generated == {"ForeachPowScalarV2": 2}
    assert ran.eager["_foreach_pow"] == 2 and "_foreach_pow_" not in ran.eager
    for g, i, w in zip(got, in_place, want):
        assert g.shape == w.shape and torch.equal(g, w) and torch.equal(i, w)
    for r, w in zip(roots, torch._foreach_pow(a, 0.5)):
        assert torch.equal(r.isnan(), w.isnan())


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
def test_foreach_lerp_and_addcmul_run_the_generated_ops(dtype: torch.dtype) -> None:
    # lerp with the weights 0.25 (x1 + w * d) and 0.75 (x2 + (w - 1) * d, PyTorch's other form): the products are
    # exact (powers of two times d), so both compute one rounding of the sum in fp32 (then to the list's dtype):
    # bit for bit. addcmul with value -0.5: the op rounds the product t1 * t2 (Mul, as ops-nn's kernel) and then
    # the sum (Axpy), in FLOAT16 for a FLOAT16 list (its scalar tensor's dtype) and in fp32 otherwise; PyTorch
    # fuses x1 + value * t1 * t2 into one fp32 rounding (a multiply-add): within an ULP of the result plus the
    # product's rounding times |value|
    g = torch.Generator().manual_seed(11)
    shapes = [(3, 4), (5,), (), (0,), (33,), (700,)]
    x1, x2, x3 = ([(torch.rand(s, generator=g) * 20 - 10).to(dtype) for s in shapes] for _ in range(3))
    want_lerp = [torch._foreach_lerp(x1, x2, w) for w in (0.25, 0.75)]
    want_addcmul = torch._foreach_addcmul(x1, x2, x3, value=-0.5)
    in_place = [t.clone() for t in x1]
    with ct.ops("Ascend910B") as ran:
        lerp = [torch._foreach_lerp(x1, x2, w) for w in (0.25, 0.75)]
        assert torch._foreach_lerp_(in_place, x2, 0.75) is in_place
        addcmul = torch._foreach_addcmul(x1, x2, x3, value=-0.5)
    assert ran.generated == {"ForeachLerpScalar": 3, "ForeachAddcmulScalarV2": 1}
    assert not any(k.startswith(("_foreach_lerp", "_foreach_addcmul")) for k in ran.eager)
    for got, want in zip([*lerp[0], *lerp[1], *in_place], [*want_lerp[0], *want_lerp[1], *want_lerp[1]]):
        assert got.dtype == want.dtype and got.shape == want.shape and torch.equal(got, want)
    compute_eps = 2.0**-11 if dtype == torch.float16 else 2.0**-24
    for got, want, a, b in zip(addcmul, want_addcmul, x2, x3):
        assert got.dtype == want.dtype and got.shape == want.shape
        ulp = torch.finfo(dtype).eps * want.double().abs().clamp_min(torch.finfo(dtype).tiny)
        bound = ulp + 0.5 * (a.double() * b.double()).abs() * compute_eps
        assert bool(((got.double() - want.double()).abs() <= bound).all())


def test_a_python_int_with_integer_lists_runs_the_generated_ops() -> None:
    # a Python int beside an int32 list is an INT64 aclScalar (a DOUBLE one the API refuses for an integer list,
    # which made the call silently eager); sums and products wrap around as PyTorch's int32 and int16 arithmetic;
    # a float with an int32 list (PyTorch promotes it to float) and an int with an int16 list (no INT16 scalar
    # form) stay eager. The expected values are worked out by hand.
    big = 2**31 - 1
    a = [torch.tensor([big, -(2**31), 5], dtype=torch.int32), torch.tensor([[65536, -2]], dtype=torch.int32)]
    h = [torch.tensor([32767, 256, -3], dtype=torch.int16)]
    with ct.ops("Ascend910B") as ran:
        added = torch._foreach_add(a, 1)
        scaled = torch._foreach_mul(a, 65536)
        summed = torch._foreach_add(a, a, alpha=-1)
        top = torch._foreach_mul(h, h)
        promoted = torch._foreach_mul(a, 0.5)
        narrow = torch._foreach_mul(h, 2)
    assert ran.generated == {
        "ForeachAddScalarV2": 1,
        "ForeachMulScalarV2": 1,
        "ForeachAddListV2": 1,
        "ForeachMulList": 1,
    }
    assert ran.eager["_foreach_mul"] == 2
    assert added[0].dtype == torch.int32 and added[0].tolist() == [-(2**31), -(2**31) + 1, 6]
    assert added[1].tolist() == [[65537, -1]]
    assert scaled[0].tolist() == [-65536, 0, 327680] and scaled[1].tolist() == [[0, -131072]]
    assert summed[0].tolist() == [0, 0, 0] and summed[1].tolist() == [[0, 0]]
    assert top[0].dtype == torch.int16 and top[0].tolist() == [1, 0, 9]
    assert promoted[0].dtype == torch.float32 and narrow[0].tolist() == [-2, 512, -6]


def test_a_list_longer_than_one_launch_takes_runs_as_several_generated_calls() -> None:
    """An optimizer's list of 600 parameters: the generated op takes 256 tensors per call, so the routed call is
    three calls (256, 256, 88), not an eager fallback; the results equal eager's, in place too."""
    g = torch.Generator().manual_seed(3)
    a = [torch.rand((k % 7) + 1, generator=g) for k in range(600)]
    want = torch._foreach_mul(a, 3.0)
    in_place = [t.clone() for t in a]
    with ct.ops("Ascend910B") as ran:
        got = torch._foreach_mul(a, 3.0)
        assert torch._foreach_mul_(in_place, 3.0) is in_place
    assert ran.generated == {"ForeachMulScalarV2": 6} and not ran.eager
    assert len(got) == 600
    for x, y, z in zip(got, in_place, want):
        assert torch.equal(x, z) and torch.equal(y, z)
