"""Elementwise tile queues are double-buffered wherever the product allows it (held by the tiling plan, which
``tests/test_explain.py`` holds equal to the generated tiling function).

A product's queue buffer cap (``queue_buffer_cap`` in the catalogue) bounds the buffers of all queues of
one position (VECIN or VECOUT): two buffers per queue fit when 2 x the queues of that position do not pass
it; otherwise each queue gets one. Every call with every optional input present is planned at the bench
shape ([4096, 1024], several tiles per core) on every product and compute dtype.
"""

from __future__ import annotations

import pytest

from codegen.families.elementwise.plan.tiling import tiling_decision
from codegen.families.elementwise.plan.variants import compute_dtypes
from codegen.spec.model import OpSpec
from codegen.specs import load_project

CATALOGUE, SPECS = load_project()
ELEMENTWISE = sorted((s for s in SPECS.values() if s.family == "elementwise"), key=lambda s: s.op)


@pytest.mark.parametrize("spec", ELEMENTWISE, ids=lambda s: s.op)
def test_tile_queues_are_double_buffered_wherever_the_queue_cap_allows(spec: OpSpec) -> None:
    for product in CATALOGUE.products:
        if product.name not in spec.products:
            continue
        for dtype in compute_dtypes(spec):
            d = tiling_decision(spec, product, (4096, 1024), dtype)
            want_in = 2 if 2 * len(spec.inputs) <= product.queue_buffer_cap else 1
            assert (d.in_buffer_num, d.out_buffer_num) == (want_in, 2), (product.name, dtype.name)
            assert d.tiles_per_core_max > 1, (product.name, dtype.name)  # a next tile to overlap with
            assert d.ub_used_bytes <= d.ub_budget_bytes, (product.name, dtype.name)
