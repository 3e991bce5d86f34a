"""Which ops take which template paths: the rule the tests that compile or run generated code per op on many
products use to sample them, so that their time grows with families and template paths, not with ops.

:func:`template_signature` is what of a spec reaches the product-dependent generated sources; ops with equal
signatures take the same template paths on every product and differ only in substituted text (formula,
names, attr values), which compiling each op once covers. :func:`representatives` picks the first op (by
name) of each signature.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence

from codegen import registry
from codegen.spec.model import Catalogue, OpSpec
from codegen.types import compute_dtypes


def template_signature(spec: OpSpec, catalogue: Catalogue, products: Sequence[str]) -> tuple[object, ...]:
    """What of ``spec`` reaches the product-dependent generated sources (the host tiling, whose tile sizes and
    buffer depths come from UB bytes, cores and the queue-buffer cap, and the kernel, whose copies follow
    DataCopyPad and whose barriers follow hardware SyncAll): the family, the device op's input and output
    counts and the optional inputs (what the UB and the queues are split over), the kinds of tiling fields,
    every boolean of the tiling and kernel template views (the switches their templates branch on: variants,
    strategies, attr kinds) and the compute dtypes on each of ``products`` that the op lists (names of
    ``catalogue``). Numbered fields of one kind (the formula's scalar slots ``scalar0``, ``scalar1``, ...)
    count as one kind: how many of them an op has is its formula's data, set and read the same way on every
    product."""
    views = registry.family(spec.family).build_views(spec, catalogue).views
    switches = tuple(
        (file, f.name, getattr(views[file], f.name))
        for file in ("tiling_cpp", "kernel_cpp")
        for f in dataclasses.fields(views[file])
        if isinstance(getattr(views[file], f.name), bool)
    )
    dev = spec.device_interface
    return (
        spec.family,
        len(dev.inputs),
        len(dev.outputs),
        sum(t.optional for t in spec.inputs),
        tuple(sorted({re.sub(r"\d+$", "", row.name) for row in views["tiling_h"].tiling_fields})),
        switches,
        tuple(
            tuple(d.name for d in compute_dtypes(spec, catalogue.get(p))) if p in spec.products else None
            for p in products
        ),
    )


def representatives(specs: Mapping[str, OpSpec], catalogue: Catalogue, products: Sequence[str]) -> list[str]:
    """The first op (sorted by name) of each distinct :func:`template_signature` over ``products``: every
    family, and within a family every combination of template switches, queue/UB split and tiling layout
    some op has."""
    chosen: dict[tuple[object, ...], str] = {}
    for name in sorted(specs):
        chosen.setdefault(template_signature(specs[name], catalogue, products), name)
    return sorted(chosen.values())
