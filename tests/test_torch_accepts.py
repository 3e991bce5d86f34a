"""Inside ``codegen.torch.ops()`` a call routes to the generated ops only when the product's aclnn APIs take it,
forward and backward, decided before anything runs; every other call behaves as eager PyTorch (its result,
its gradients, its error). The cases are those of a fresh-user review: bf16 on products without bf16, mixed
dtypes outside an op's dtype combinations, a CANN shape constraint (RmsNorm's gamma of at least 32 bytes on
Ascend310P) and an input PyTorch refuses (binary_cross_entropy outside [0, 1])."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

torch = pytest.importorskip("torch")
import codegen.torch as ct  # noqa: E402

F = torch.nn.functional


def _source(*shape: int, dtype: Any = torch.bfloat16) -> Any:
    """A leaf tensor of fixed values in [-2, 2] (no random draw) that requires grad."""
    n = 1
    for s in shape:
        n *= s
    return torch.linspace(-2.0, 2.0, n).reshape(shape).to(dtype).requires_grad_(True)


def _target(*shape: int, dtype: Any = torch.bfloat16) -> Any:
    n = 1
    for s in shape:
        n *= s
    return torch.linspace(1.5, -0.5, n).reshape(shape).to(dtype)


_INDEX = torch.tensor([0, 3, 1])

#: (product, torch function's name in the report, call) whose aclnn API(s) refuse the call on that product:
#: BF16 where the product has none (Ascend910, Ascend310P); mixed dtypes no dtype combination of the API
#: takes (a forward the API takes whose backward API refuses runs eagerly as a whole).
_REFUSED: list[tuple[str, str, Callable[[], tuple[Any, list[Any]]]]] = [
    ("Ascend910", "softmax", lambda: (lambda x: (F.softmax(x, -1), [x]))(_source(4, 8))),
    ("Ascend910", "silu", lambda: (lambda x: (F.silu(x), [x]))(_source(4, 8))),
    ("Ascend910", "mse_loss", lambda: (lambda x: (F.mse_loss(x, _target(4, 8)), [x]))(_source(4, 8))),
    ("Ascend910", "embedding", lambda: (lambda w: (F.embedding(_INDEX, w), [w]))(_source(4, 8))),
    ("Ascend910", "index_select", lambda: (lambda x: (torch.index_select(x, 0, _INDEX), [x]))(_source(4, 8))),
    ("Ascend910", "take", lambda: (lambda x: (torch.take(x, _INDEX), [x]))(_source(4, 8))),
    ("Ascend310P", "gelu", lambda: (lambda x: (F.gelu(x), [x]))(_source(4, 8))),
    ("Ascend310P", "mse_loss", lambda: (lambda x: (F.mse_loss(x, _target(4, 8)), [x]))(_source(4, 8))),
    (
        "Ascend910B",
        "mse_loss",
        lambda: (lambda x: (F.mse_loss(x, _target(4, 8, dtype=torch.float32)), [x]))(_source(4, 8, dtype=torch.half)),
    ),
    (
        "Ascend910B",
        "rms_norm",
        lambda: (lambda x, w: (F.rms_norm(x, (16,), w), [x, w]))(
            _source(4, 16, dtype=torch.float32), _source(16, dtype=torch.half)
        ),
    ),
    (
        "Ascend310P",
        "rms_norm",
        lambda: (lambda x, w: (F.rms_norm(x, (16,), w), [x, w]))(
            _source(4, 16, dtype=torch.half), _source(16, dtype=torch.float32)
        ),
    ),
    # a CANN constraint: on Ascend310P RmsNorm's gamma must hold at least 32 bytes (here 4 fp32 values)
    ("Ascend310P", "rms_norm", lambda: (lambda x: (F.rms_norm(x, (4,)), [x]))(_source(3, 4, dtype=torch.float32))),
]


@pytest.mark.filterwarnings("ignore:Mismatch dtype between input and weight")
@pytest.mark.parametrize(
    ("product", "name", "call"), _REFUSED, ids=[f"{p}-{n}-{i}" for i, (p, n, _) in enumerate(_REFUSED)]
)
def test_a_call_the_products_api_refuses_runs_eagerly(
    product: str, name: str, call: Callable[[], tuple[Any, list[Any]]]
) -> None:
    want, leaves = call()
    want.float().sum().backward()
    want_grads = [t.grad for t in leaves]
    with ct.ops(product) as ran:
        got, leaves = call()
        got.float().sum().backward()
    # nothing ran through a generated op; the function ran once in eager PyTorch, its backward with it
    assert ran.generated == {}
    assert ran.eager[name] == 1
    assert ran.eager[name + " backward"] == 0
    # eager ran, forward and backward: PyTorch's own values, bit for bit
    assert got.dtype == want.dtype
    assert torch.equal(got, want)
    for g, w in zip((t.grad for t in leaves), want_grads):
        assert torch.equal(g, w)


def test_binary_cross_entropy_outside_0_1_raises_as_pytorch_does() -> None:
    x = torch.tensor([[0.25, 1.5], [-0.5, 0.75]], requires_grad=True)
    target = torch.tensor([[0.0, 1.0], [1.0, 0.0]])
    with ct.ops("Ascend910B") as ran:
        with pytest.raises(RuntimeError, match="between 0 and 1"):
            F.binary_cross_entropy(x, target)
        with pytest.raises(RuntimeError, match="between 0 and 1"):
            F.binary_cross_entropy(torch.tensor([float("nan"), 0.5]), torch.tensor([0.0, 1.0]))
        inside = F.binary_cross_entropy(x.detach().clamp(0.0, 1.0), target, reduction="none")  # generated
    assert ran.generated == {"BinaryCrossEntropy": 1}
    # PyTorch's values (its log clamped at -100): -log(0.75), -log(1), -(-100), -log(0.25)
    want = torch.tensor([[0.28768207, 0.0], [100.0, 1.3862944]])
    torch.testing.assert_close(inside, want)


def test_a_call_the_api_takes_still_routes_forward_and_backward() -> None:
    # the positive control of the cases above: bf16 on Ascend910B and fp32 on Ascend910 route
    x = _source(4, 8)
    with ct.ops("Ascend910B") as ran:
        F.softmax(x, -1).float().sum().backward()
    assert ran.generated == {"Softmax": 1, "SoftmaxBackward": 1}
    assert x.grad is not None and x.grad.abs().max() < 2.0**-6  # a softmax row's gradient of a sum is ~0
    y = _source(4, 8, dtype=torch.float32)
    with ct.ops("Ascend910") as ran:
        F.mse_loss(y, _target(4, 8, dtype=torch.float32)).backward()
    assert ran.generated == {"MseLoss": 1, "MseLossBackward": 1}
    torch.testing.assert_close(y.grad, 2.0 * (y.detach() - _target(4, 8, dtype=torch.float32)) / 32)


def test_phase1_status_answers_without_running_the_op() -> None:
    import numpy as np

    from codegen.runner import compile_op

    fn = compile_op("softmax", "Ascend910")
    x = np.linspace(-1.0, 1.0, 8, dtype=np.float32).reshape(2, 4)
    out = np.full((2, 4), 7.0, dtype=np.float32)
    assert fn.phase1_status(self=x, dim=-1, out=out) == (0, "")
    assert (out == 7.0).all()  # nothing was launched: the output is untouched
    status, message = fn.phase1_status(self=x.astype(np.float64), dim=-1)
    assert status == 161002 and "DT_DOUBLE" in message
    assert fn.phase1_status(self=x, dim=2)[0] == 161002  # dim outside the rank
