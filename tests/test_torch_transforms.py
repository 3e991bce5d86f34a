"""codegen.torch under autograd's and functorch's transforms: a gradient penalty (double backward) equals
eager PyTorch's, and vmap / torch.func.grad over a block's functions run eagerly instead of raising."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

torch = pytest.importorskip("torch")
import codegen.torch as ct  # noqa: E402

F = torch.nn.functional


def _penalised_grad(f: Callable[[Any], Any]) -> Any:
    """x.grad of ``y + sum(g ** 2)`` with ``y = sum(w * f(x))`` and ``g = dy/dx`` (a WGAN-GP style penalty)."""
    x = torch.linspace(-2.0, 2.0, 20).reshape(4, 5).requires_grad_(True)
    w = torch.linspace(-1.0, 1.0, 20).reshape(4, 5)
    y = (w * f(x)).sum()
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    (y + (g**2).sum()).backward()
    return x.grad


@pytest.mark.parametrize(
    ("name", "f", "generated"),
    [
        ("silu", F.silu, {"SiluBackward": 1}),  # elementwise: eager forward, generated backward
        ("softmax", lambda t: F.softmax(t, dim=-1), {"Softmax": 1, "SoftmaxBackward": 1}),  # row op
    ],
)
def test_gradient_penalty_equals_eager(name: str, f: Callable[[Any], Any], generated: dict[str, int]) -> None:
    want = _penalised_grad(f)
    with ct.ops("Ascend910B") as ran:
        got = _penalised_grad(f)
    # The create_graph backward ran eagerly (differentiable); the plain one ran the generated op.
    assert ran.generated == generated
    assert ran.eager[name + " backward"] == 1
    # Only the first-order term comes from a generated op (fp32, its own exp and summation order: a few
    # ulps, 2^-24, of its largest element); the second-order term is eager's own arithmetic. 2^-18 of the
    # largest element bounds it, as for a row's forward and backward; a missing second-order term is O(1).
    assert (got - want).abs().max() <= 2.0**-18 * want.abs().max(), name


def test_functorch_transforms_run_eagerly() -> None:
    x = torch.linspace(-3.0, 3.0, 60).reshape(3, 4, 5)
    with ct.ops("Ascend910B") as ran:
        softmax = torch.vmap(lambda t: F.softmax(t, -1))(x)
        silu = torch.vmap(F.silu)(x)
        grad = torch.func.grad(lambda t: F.silu(t).sum())(x[0])
    assert ran.generated == {}
    assert ran.eager["softmax"] == 1
    assert ran.eager["silu"] == 2
    # eager ran, so the results are eager's own, bit for bit
    assert torch.equal(softmax, F.softmax(x, -1))
    assert torch.equal(silu, F.silu(x))
    assert torch.equal(grad, torch.func.grad(lambda t: F.silu(t).sum())(x[0]))


def test_custom_operator_double_backward_raises() -> None:
    op = getattr(torch.ops, ct.register("Ascend910B"))
    x = torch.linspace(-1.0, 1.0, 12).reshape(3, 4).requires_grad_(True)
    y = (op.softmax(x, -1) * torch.arange(4.0)).sum()
    (g,) = torch.autograd.grad(y, x, create_graph=True)  # the generated backward op
    want = torch.autograd.grad((F.softmax(x, -1) * torch.arange(4.0)).sum(), x)[0]
    assert (g - want).abs().max() <= 2.0**-18 * want.abs().max()
    with pytest.raises(RuntimeError, match=r"torch\.ops\.opgen_ascend910b\.softmax .*not itself differentiable"):
        (y + (g**2).sum()).backward()
