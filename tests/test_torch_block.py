"""codegen.torch: a small transformer block trains through the generated ops of Ascend910B, and every
parameter gradient at every step matches eager PyTorch's at the same parameters."""

from __future__ import annotations

import math
from typing import Any

import pytest

torch = pytest.importorskip("torch")
import codegen.torch as ct  # noqa: E402

pytestmark = pytest.mark.heavy(30)  # about 30 s alone (mostly the block's two dtypes): scheduled early

nn = torch.nn
F = torch.nn.functional

VOCAB, DIM, HIDDEN, BATCH, SEQ, STEPS = 16, 16, 32, 2, 8, 3


class Block(nn.Module):
    """Embedding, RmsNorm, one-head attention with softmax, a gated MLP (SiLU gate times GELU), a head."""

    def __init__(self, dtype: Any) -> None:
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM, padding_idx=0, dtype=dtype)
        self.norm1 = nn.RMSNorm(DIM, dtype=dtype)
        self.qkv = nn.Linear(DIM, 3 * DIM, bias=False, dtype=dtype)
        self.proj = nn.Linear(DIM, DIM, dtype=dtype)
        self.norm2 = nn.RMSNorm(DIM, eps=1e-5, dtype=dtype)
        self.gate = nn.Linear(DIM, HIDDEN, dtype=dtype)
        self.up = nn.Linear(DIM, HIDDEN, dtype=dtype)
        self.down = nn.Linear(HIDDEN, DIM, dtype=dtype)
        self.head = nn.Linear(DIM, VOCAB, dtype=dtype)

    def forward(self, tokens: Any) -> Any:
        x = self.emb(tokens)
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        attention = (q @ k.transpose(-2, -1) / math.sqrt(DIM)).softmax(dim=-1)
        x = x + self.proj(attention @ v)
        h = self.norm2(x)
        x = x + self.down(F.silu(self.gate(h)) * F.gelu(self.up(h)))
        return self.head(x)


def loss_of(model: Block, tokens: Any, target: Any, labels: Any) -> Any:
    """An MSE loss on the logits plus a cross-entropy-style one (log-softmax, then NLL)."""
    logits = model(tokens)
    return F.mse_loss(logits, target) + F.nll_loss(F.log_softmax(logits, dim=-1).flatten(0, 1), labels.flatten())


def gradients(model: Block, *batch: Any) -> dict[str, Any]:
    model.zero_grad(set_to_none=True)
    loss_of(model, *batch).backward()
    return {n: p.grad.detach().float().clone() for n, p in model.named_parameters()}


# Bounds, per parameter tensor, on max|generated - eager| relative to max|eager| (of that tensor's gradient).
# The two runs use the same parameters at each step, so only the ops' arithmetic differs:
# - FLOAT: each generated op computes in fp32 as eager torch does, but sums its rows (at most 32 elements)
#   in another order and uses its own exp and erf: a few ulps (u = 2^-24) of its largest output element,
#   say 8. A parameter's gradient passes through at most about ten such ops and matmuls, each of which may
#   scale an earlier difference by the norm of its Jacobian (about 3 for these unit-scale weights):
#   8 * 10 * 3 < 256 u = 2^-16. (Measured: at most 5.3e-7, 9 u, over the steps.)
# - BF16: both sides round every op's output to BF16 (ulp 2^-8 relative); an fp32 difference of a few ulps
#   flips a rounding now and then, one BF16 ulp of that element, and a parameter's gradient sums up to 32
#   such terms (the 16 tokens, the 32 hidden units), so a few flips may add up: 16 BF16 ulps, 2^-4.
#   (Measured: at most 0.022, between 5 and 6 BF16 ulps.)
# A wrong argument or formula in an op's row makes some gradient differ by O(1) of its largest element
# (a softmax backward given gradOutput as its output: 0.5 and more); FLOAT also sees small slips (an
# RmsNorm epsilon of 1e-3 instead of 1e-5 or 1e-6: 5e-3), BF16 only what exceeds its rounding.
BOUNDS = {"float32": 2.0**-16, "bfloat16": 2.0**-4}


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_block_trains_with_eager_gradients(dtype: str) -> None:
    torch.manual_seed(0)
    model = Block(getattr(torch, dtype))
    tokens = torch.randint(0, VOCAB, (BATCH, SEQ))
    target = torch.randn(BATCH, SEQ, VOCAB, dtype=model.head.weight.dtype)
    labels = torch.randint(0, VOCAB, (BATCH, SEQ))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    worst = {}
    for _ in range(STEPS):
        with ct.ops("Ascend910B") as ran:
            generated = gradients(model, tokens, target, labels)
        eager = gradients(model, tokens, target, labels)
        for name, g in generated.items():
            scale = eager[name].abs().max().item()
            assert scale > 0, name
            worst[name] = max(worst.get(name, 0.0), (g - eager[name]).abs().max().item() / scale)
        # every row the block uses ran through its generated op(s), forward and backward
        assert ran.generated == {
            "Softmax": 1,
            "SoftmaxBackward": 1,
            "LogSoftmax": 1,
            "LogSoftmaxBackward": 1,
            "RmsNorm": 2,
            "SiluBackward": 1,
            "GeluBackwardV2": 1,
            "MseLoss": 1,
            "MseLossBackward": 1,
            "Embedding": 1,
            "EmbeddingDenseBackward": 1,
        }
        # eager: the forwards the project lacks, and RmsNorm's backward
        assert ran.eager["silu"] == ran.eager["gelu"] == 1 and "embedding" not in ran.eager
        assert ran.eager["rms_norm backward"] == 2
        assert ran.eager["linear"] == 6
        for p in model.parameters():  # the step follows the generated gradients
            p.grad = generated[next(n for n, q in model.named_parameters() if q is p)].to(p.dtype)
        optimizer.step()
    assert max(worst.values()) <= BOUNDS[dtype], worst


def test_operator_schemas_come_from_the_specs() -> None:
    from codegen.specs import load_project
    from codegen.types import ATTR_TYPE_INFO, TORCH_SCHEMA_TYPES

    assert set(TORCH_SCHEMA_TYPES) == set(ATTR_TYPE_INFO)  # every spec attr type has a schema type
    _, specs = load_project()
    assert ct.schema(specs["softmax"]) == "softmax(Tensor self, int dim) -> Tensor"
    assert ct.schema(specs["rms_norm"]) == "rms_norm(Tensor x, Tensor gamma, float epsilon) -> (Tensor, Tensor)"
    assert ct.schema(specs["hardtanh_backward"]) == (
        "hardtanh_backward(Tensor gradOutput, Tensor self, Scalar min, Scalar max) -> Tensor"
    )
    # an aclTensorList parameter and output are Tensor[]
    assert ct.schema(specs["foreach_mul_list"]) == "foreach_mul_list(Tensor[] x1, Tensor[] x2) -> Tensor[]"
    # an output mask may switch any output off: each is Tensor? (None, as native_layer_norm_backward's)
    assert ct.schema(specs["layer_norm_backward"]).endswith("bool[] outputMask) -> (Tensor?, Tensor?, Tensor?)")


def test_a_list_operator_takes_and_returns_lists_of_tensors() -> None:
    """torch.ops.<ns>.foreach_sqrt on a list with a 0-d and an empty tensor: a list back, one tensor each."""
    op = getattr(torch.ops, ct.register("Ascend910B"))
    got = op.foreach_sqrt([torch.tensor([4.0, 9.0, 0.25]), torch.tensor(16.0), torch.zeros(0, 3)])
    assert [tuple(t.shape) for t in got] == [(3,), (), (0, 3)]
    assert got[0].tolist() == [2.0, 3.0, 0.5] and got[1].item() == 4.0


def test_custom_operator_runs_the_generated_kernel() -> None:
    ns = ct.register("Ascend910B")
    assert ns == "opgen_ascend910b"
    x = torch.tensor([[0.0, 1.0, 2.0], [3.0, 3.0, 3.0]])
    y = torch.ops.opgen_ascend910b.softmax(x, -1)
    e = math.e
    expected = torch.tensor([[1 / (1 + e + e * e), e / (1 + e + e * e), e * e / (1 + e + e * e)], [1 / 3] * 3])
    torch.testing.assert_close(y, expected, rtol=2.0**-22, atol=0.0)


def test_calls_the_generated_ops_cannot_take_run_eagerly() -> None:
    x = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)
    h = torch.randn(3, 5, requires_grad=True)
    g = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)
    with ct.ops("Ascend950") as ran:
        F.softmax(x, dim=-1).sum().backward()  # FLOAT64 is not among aclnnSoftmax's dtypes
        F.softmax(h, dim=-1, dtype=torch.float64)  # no dtype parameter in aclnnSoftmax
        F.gelu(g).sum().backward()  # FLOAT64 is not among aclnnGeluBackwardV2's dtypes
    assert ran.generated == {}
    assert ran.eager["softmax"] == 2
    # the backward op refuses the call: decided at the forward, the whole function runs eagerly
    assert ran.eager["gelu"] == 1
    assert ran.eager["gelu backward"] == 0
    want = torch.ops.aten.gelu_backward(torch.ones(3, 5, dtype=torch.float64), g.detach())
    torch.testing.assert_close(g.grad, want)


def test_index_calls_pytorch_refuses_run_eagerly_and_raise_its_error() -> None:
    # an index outside the source, or of a dtype PyTorch refuses, would run through the generated op (zeros)
    # and then fail in the eager backward: the whole call is eager and raises in the forward, as PyTorch does
    x = torch.randn(3, 4, requires_grad=True)
    with ct.ops("Ascend910B") as ran:
        with pytest.raises(IndexError):
            torch.index_select(x, 0, torch.tensor([0, 3]))
        with pytest.raises(IndexError):
            x.take(torch.tensor([12]))
        with pytest.raises(RuntimeError, match="long"):
            x.take(torch.tensor([1], dtype=torch.int32))
        with pytest.raises(RuntimeError, match="out of bounds"):
            torch.gather(x, 1, torch.tensor([[-1]]))
        y = x.take(torch.tensor([-12, 11]))  # both ends of [-numel, numel): generated
    assert ran.generated == {"Take": 1}
    assert torch.equal(y, x.detach().flatten()[[0, 11]])


def test_index_calls_follow_pytorchs_own_rules_for_shapes_dtypes_and_devices() -> None:
    # shapes, source dtypes and devices PyTorch refuses or keeps on its own device run eagerly (PyTorch's
    # error or result), never through the aclnn API; what PyTorch takes runs through it (int32 gather too)
    s = torch.arange(12.0).reshape(3, 4)
    with ct.ops("Ascend910B") as ran:
        with pytest.raises(RuntimeError):
            s.gather(1, torch.tensor([0, 1]))  # an index of another rank
        with pytest.raises(RuntimeError):
            s.gather(1, torch.zeros(4, 4, dtype=torch.int64))  # larger than self in a dim other than dim
        with pytest.raises(IndexError):
            s.index_select(0, torch.zeros(2, 2, dtype=torch.int64))  # a 2-d index
        with pytest.raises(NotImplementedError):
            torch.zeros(3, 4, dtype=torch.uint16).gather(1, torch.zeros(3, 4, dtype=torch.int64))
        meta = torch.empty(3, 4, device="meta").gather(1, torch.zeros(3, 4, dtype=torch.int64, device="meta"))
        picked = s.gather(1, torch.tensor([[3], [0], [1]], dtype=torch.int32))
    assert meta.device.type == "meta" and tuple(meta.shape) == (3, 4)
    assert ran.generated == {"Gather": 1}
    assert torch.equal(picked, torch.tensor([[3.0], [4.0], [9.0]]))


def test_a_custom_operator_raises_for_an_input_gradient_its_backward_op_lacks() -> None:
    # MseLossBackward gives the gradient of self only: a target that requires grad is an error at backward
    # (eager PyTorch computes it), not a target.grad left None
    op = getattr(torch.ops, ct.register("Ascend910B"))
    x, target = torch.randn(4, 5), torch.randn(4, 5, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"gradient for self only \(from aclnnMseLossBackward\).*target"):
        op.mse_loss(x, target, 1).backward()
    assert target.grad is None


def test_import_codegen_does_not_import_torch() -> None:
    import subprocess
    import sys

    code = "import sys, codegen, codegen.runner; print('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


def test_the_manual_example_prints_what_it_says(capsys: Any) -> None:
    from itertools import pairwise
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "torch.md").read_text()
    section = page[page.index("# PyTorch models on the generated ops") :]
    code = section[section.index("```python\n") + len("```python\n") : section.index("```\n", 10)]
    lines = code.splitlines()
    promised = [after[2:] for line, after in pairwise(lines) if line.startswith("print(")]
    exec(compile(code, "docs/torch.md", "exec"), {})
    assert capsys.readouterr().out.splitlines() == promised


def _row_cases() -> dict[str, tuple[Any, set[str]]]:
    """Per row of the table: a call of its torch function on ``x`` (4 x 6, FLOAT) and the aclnn APIs that
    must run for it, forward and backward."""
    target = torch.linspace(-1.0, 1.0, 24).reshape(4, 6)
    signs = torch.where(torch.arange(24).reshape(4, 6) % 3 == 0, -1.0, 1.0)
    weight = torch.linspace(0.5, 1.5, 6)
    return {
        "softmax": (lambda x: F.softmax(x, dim=-1), {"Softmax", "SoftmaxBackward"}),
        "log_softmax": (lambda x: x.log_softmax(0), {"LogSoftmax", "LogSoftmaxBackward"}),
        "rms_norm": (lambda x: F.rms_norm(x, (6,), weight, 1e-6), {"RmsNorm"}),
        "embedding": (
            lambda x: F.embedding(torch.tensor([[0, 3], [3, 1]]), x, padding_idx=1),
            {"Embedding", "EmbeddingDenseBackward"},
        ),
        "layer_norm": (lambda x: F.layer_norm(x, (6,), weight, target[0], 1e-5), {"LayerNorm"}),
        "index_select": (lambda x: torch.index_select(x, 1, torch.tensor([5, 0, 5])), {"IndexSelect"}),
        "take": (lambda x: x.take(torch.tensor([[-1, 7], [0, 23]])), {"Take"}),
        "gather": (lambda x: torch.gather(x, 1, torch.tensor([[5, 0], [1, 1], [0, 5]])), {"Gather"}),
        "index_add": (lambda x: x.index_add(1, torch.tensor([5, 0, 5]), target[:, :3], alpha=2.0), {"IndexAdd"}),
        "silu": (F.silu, {"SiluBackward"}),
        "gelu": (lambda x: F.gelu(x, approximate="tanh"), {"GeluBackwardV2"}),
        "mish": (F.mish, {"MishBackward"}),
        "hardswish": (F.hardswish, {"HardswishBackward"}),
        "hardsigmoid": (F.hardsigmoid, {"HardsigmoidBackward"}),
        "softplus": (lambda x: F.softplus(x, beta=2.0, threshold=1.0), {"SoftplusBackward"}),
        "hardtanh": (lambda x: F.hardtanh(x, -0.5, 0.7), {"HardtanhBackward"}),
        "leaky_relu": (lambda x: F.leaky_relu(x, 0.2), {"LeakyReluBackward"}),
        "hardshrink": (lambda x: F.hardshrink(x, 0.3), {"HardshrinkBackward"}),
        "softshrink": (lambda x: F.softshrink(x, 0.3), {"SoftshrinkBackward"}),
        "elu": (lambda x: F.elu(x, alpha=0.7), {"EluBackward"}),
        "relu": (lambda x: x.relu(), {"ThresholdBackward"}),
        "sigmoid": (lambda x: torch.sigmoid(x), {"SigmoidBackward"}),
        "mse_loss": (lambda x: F.mse_loss(x, target, reduction="sum"), {"MseLoss", "MseLossBackward"}),
        "l1_loss": (lambda x: F.l1_loss(x, target), {"L1Loss"}),
        "smooth_l1_loss": (
            lambda x: F.smooth_l1_loss(x, target, beta=0.5),
            {"SmoothL1Loss", "SmoothL1LossBackward"},
        ),
        "soft_margin_loss": (
            lambda x: F.soft_margin_loss(x, signs, reduction="none"),
            {"SoftMarginLoss", "SoftMarginLossBackward"},
        ),
        "binary_cross_entropy": (
            lambda x: F.binary_cross_entropy(torch.sigmoid(x), (target + 1) / 2, weight),
            {"BinaryCrossEntropy", "BinaryCrossEntropyBackward", "SigmoidBackward"},
        ),
    }


def test_every_row_runs_its_generated_ops_with_eager_gradients() -> None:
    # Elementwise and row ops in fp32 on both sides: the generated ones use their own exp, erf, tanh and
    # summation order, a few ulps (2^-24) of the largest element each; 2^-18 (64 ulps) bounds a row's
    # forward and backward together.
    cases = _row_cases()
    assert set(cases) == {row.name for row in ct.TORCH_OPS}  # a row without a case is a failure
    torch.manual_seed(1)
    x0 = torch.randn(4, 6)
    for name, (call, apis) in cases.items():
        x = x0.clone().requires_grad_(True)
        with ct.ops("Ascend910B") as ran:
            y = call(x)
            y.backward(torch.linspace(-1.0, 2.0, y.numel()).reshape(y.shape))
        assert set(ran.generated) == apis, name
        e = x0.clone().requires_grad_(True)
        y_eager = call(e)
        y_eager.backward(torch.linspace(-1.0, 2.0, y.numel()).reshape(y.shape))
        for got, want in ((y.detach(), y_eager.detach()), (x.grad, e.grad)):
            assert (got - want).abs().max() <= 2.0**-18 * want.abs().max(), name


def test_custom_operators_of_a_pair_are_differentiable() -> None:
    # the forward API's custom operator differentiates through the backward API's (fp32 on both sides:
    # a few ulps of the largest element, bounded by 2^-18 of it)
    ns = ct.register("Ascend910B")
    op = getattr(torch.ops, ns)
    torch.manual_seed(2)
    x0, target = torch.randn(3, 4), torch.randn(3, 4)
    grad = torch.linspace(-1.0, 1.0, 12).reshape(3, 4)
    for generated, eager, g in (
        (lambda x: op.softmax(x, 0), lambda x: F.softmax(x, 0), grad),
        (
            lambda x: op.smooth_l1_loss(x, target, 0, 0.5),
            lambda x: F.smooth_l1_loss(x, target, reduction="none", beta=0.5),
            grad,
        ),
        (lambda x: op.mse_loss(x, target, 1), lambda x: F.mse_loss(x, target), None),
        (  # rows 2 twice, 0 once, 1 never: their gradients summed by EmbeddingDenseBackward
            lambda x: op.embedding(x, torch.tensor([[2, 0], [2, 2]])),
            lambda x: F.embedding(torch.tensor([[2, 0], [2, 2]]), x),
            torch.linspace(-1.0, 1.0, 16).reshape(2, 2, 4),
        ),
    ):
        x, e = x0.clone().requires_grad_(True), x0.clone().requires_grad_(True)
        generated(x).backward(g)
        eager(e).backward(g)
        assert (x.grad - e.grad).abs().max() <= 2.0**-18 * e.grad.abs().max()


def test_a_custom_operator_without_a_backward_op_raises_at_backward() -> None:
    # no generated op differentiates RmsNorm or IndexSelect: a backward pass through their custom operators
    # raises, naming the operator, instead of leaving the inputs' .grad None
    op = getattr(torch.ops, ct.register("Ascend910B"))
    x, g = torch.ones(2, 4, requires_grad=True), torch.ones(4, requires_grad=True)
    y, _ = op.rms_norm(x, g, 1e-6)
    with pytest.raises(RuntimeError, match=r"opgen_ascend910b\.rms_norm has no gradient"):
        y.sum().backward()
    picked = op.index_select(x, 0, torch.tensor([1, 0]))
    with pytest.raises(RuntimeError, match=r"opgen_ascend910b\.index_select has no gradient"):
        picked.sum().backward()
    assert x.grad is None and g.grad is None


def test_rms_norm_without_a_weight_runs_the_generated_op() -> None:
    # F.rms_norm with weight=None scales by ones: aclnnRmsNorm (gamma required) gets a gamma of ones; fp32 on
    # both sides, a few ulps of the largest element
    x = torch.randn(4, 6)
    with ct.ops("Ascend910B") as ran:
        y = F.rms_norm(x, [6])
    assert ran.generated == {"RmsNorm": 1} and not ran.eager
    want = F.rms_norm(x, [6])
    assert (y - want).abs().max() <= 2.0**-18 * want.abs().max()


def test_index_add_runs_through_its_api_only_with_what_pytorch_takes() -> None:
    # index_add goes to aclnnIndexAdd with an index PyTorch takes (int32 too, values in [0, A)) and a source of
    # the input's dtype and sizes but dim's; an index outside the input or a source of another shape runs
    # eagerly and raises PyTorch's error; alpha is passed on
    s = torch.arange(12.0).reshape(3, 4)
    src = torch.ones(3, 2)
    with ct.ops("Ascend910B") as ran:
        with pytest.raises((IndexError, RuntimeError)):
            s.index_add(1, torch.tensor([0, 4]), src)
        with pytest.raises(RuntimeError):
            s.index_add(1, torch.tensor([0, 1]), torch.ones(3, 3))
        y = torch.index_add(s, 1, torch.tensor([3, 3], dtype=torch.int32), src, alpha=-0.5)
    assert ran.generated == {"IndexAdd": 1}
    want = s.clone()
    want[:, 3] -= 1.0
    assert torch.equal(y, want)
