"""Tracing the generated ops: ``torch.compile`` over a function inside ``codegen.torch.ops()`` (Dynamo kept out of
the project's host code), the custom operators' fake (meta) kernels and an empty tensor list, and what the
block's report counts as an eager torch function. Expected values come from eager PyTorch and from the
inputs' shapes, never from the project's code."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as F  # noqa: E402

import codegen.torch as ct  # noqa: E402

PRODUCT = "Ascend910B"


def _model(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    h = F.rms_norm(x, (8,), w)
    h = F.layer_norm(h, (8,), w, b)
    return F.mse_loss(h.softmax(-1), target)


def test_torch_compile_inside_the_block_routes_and_matches_eager() -> None:
    torch._dynamo.reset()
    g = torch.Generator().manual_seed(5)
    x, w, b, target = (torch.randn(s, generator=g) for s in [(4, 8), (8,), (8,), (4, 8)])
    want = _model(x, w, b, target)
    leaf = x.clone().requires_grad_()
    _model(leaf, w, b, target).backward()
    want_grad = leaf.grad
    compiled = torch.compile(_model, backend="aot_eager")  # Dynamo and AOTAutograd; no C++ compiler
    with ct.ops(PRODUCT) as ran:
        got = compiled(x, w, b, target)
        leaf = x.clone().requires_grad_()
        compiled(leaf, w, b, target).backward()
    assert ran.generated["RmsNorm"] == 2 and ran.generated["LayerNorm"] == 2 and ran.generated["Softmax"] == 2
    assert ran.generated["MseLoss"] == 2 and ran.generated["MseLossBackward"] == 1
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
    assert leaf.grad is not None
    torch.testing.assert_close(leaf.grad, want_grad, rtol=1e-4, atol=1e-6)


def test_fake_kernels_give_the_outputs_shapes_and_dtypes() -> None:
    ops = getattr(torch.ops, ct.register(PRODUCT))
    a = [torch.empty(3, 4, device="meta"), torch.empty((), device="meta"), torch.empty(0, 2, device="meta")]
    out = ops.foreach_mul_list(a, a)
    assert [(t.shape, t.dtype, t.device.type) for t in out] == [(t.shape, torch.float32, "meta") for t in a]
    y = ops.softmax(torch.empty(5, 7, dtype=torch.bfloat16, device="meta"), -1)
    assert (y.shape, y.dtype, y.device.type) == ((5, 7), torch.bfloat16, "meta")
    y, rstd = ops.rms_norm(torch.empty(3, 4, device="meta"), torch.empty(4, device="meta"), 1e-6)
    assert y.shape == (3, 4) and rstd.shape == (3, 1) and rstd.dtype == torch.float32
    rows = ops.index_select(
        torch.empty(6, 5, dtype=torch.float16, device="meta"), 0, torch.empty(9, dtype=torch.int64, device="meta")
    )
    assert rows.shape == (9, 5) and rows.dtype == torch.float16


def test_list_operators_trace_in_one_graph_and_take_an_empty_list() -> None:
    torch._dynamo.reset()
    ops = getattr(torch.ops, ct.register(PRODUCT))
    assert ops.foreach_mul_list([], []) == [] and ops.foreach_sqrt([]) == []
    a = [torch.rand(3, 4) + 0.5, torch.rand(5) + 0.5]
    b = [torch.rand(3, 4) + 0.5, torch.rand(5) + 0.5]

    def step(x: list[torch.Tensor], y: list[torch.Tensor]) -> list[torch.Tensor]:
        return ops.foreach_sqrt(ops.foreach_div_list(ops.foreach_mul_list(x, y), y))

    got = torch.compile(step, fullgraph=True, backend="aot_eager")(a, b)
    for g, want in zip(got, torch._foreach_sqrt(torch._foreach_div(torch._foreach_mul(a, b), b)), strict=True):
        torch.testing.assert_close(g, want, rtol=2.0**-22, atol=0.0)


def test_the_report_counts_no_attribute_access_as_eager() -> None:
    x = torch.randn(4, 8)
    with ct.ops(PRODUCT) as ran:
        (x.T, x.data, x[0], x.mT)
        torch.tanh(x)
    assert ran.eager == {"tanh": 1}
