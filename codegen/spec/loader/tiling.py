"""The ``tiling`` section and its fit to each product's queue buffer cap and UB size."""

from __future__ import annotations

from codegen.spec.catalogue import UB_BLOCK_BYTES
from codegen.spec.expr import INT64_MAX
from codegen.spec.loader.state import ParseState
from codegen.spec.model import TilingSpec
from codegen.spec.yaml_reader import YMap, YNode


def read_tiling(st: ParseState, node: YNode) -> TilingSpec:
    """The ``tiling`` section: ``buffer_num`` 1..8, ``ub_reserved_bytes`` a multiple of the UB block (32 bytes),
    ``min_bytes_per_core`` at least 1 (defaults 1, 0, 1 where a value is missing or rejected; recorded)."""
    r = st.r
    m = r.mapping(node, ("buffer_num", "ub_reserved_bytes", "min_bytes_per_core")) or {}
    buffer_num = r.integer(m["buffer_num"], 1, 8) if "buffer_num" in m else None
    reserved = r.integer(m["ub_reserved_bytes"], 0, INT64_MAX) if "ub_reserved_bytes" in m else None
    if reserved is not None and reserved % UB_BLOCK_BYTES:
        r.error(m["ub_reserved_bytes"], f"{reserved} is not a multiple of {UB_BLOCK_BYTES} (the UB block size)")
    min_bytes = r.integer(m["min_bytes_per_core"], 1, INT64_MAX) if "min_bytes_per_core" in m else None
    return TilingSpec(buffer_num or 1, reserved or 0, min_bytes or 1, node.loc)


def tiling_vs_products(st: ParseState, node: YNode, tiling: TilingSpec, products: tuple[str, ...]) -> None:
    """Records a ``buffer_num`` over a product's queue buffer cap and a ``ub_reserved_bytes`` that leaves a
    product no UB, at the key's line (nothing without a catalogue)."""
    if st.catalogue is None:
        return
    m = node.entries if isinstance(node, YMap) else []
    where = {str(k.value): v for k, v in m}
    for name in products:
        p = st.catalogue.get(name)
        if "buffer_num" in where and tiling.buffer_num > p.queue_buffer_cap:
            st.r.error(
                where["buffer_num"],
                f"buffer_num {tiling.buffer_num} exceeds the queue buffer cap {p.queue_buffer_cap} of {p.name}",
            )
        if "ub_reserved_bytes" in where and tiling.ub_reserved_bytes >= p.ub_bytes:
            st.r.error(
                where["ub_reserved_bytes"],
                f"ub_reserved_bytes {tiling.ub_reserved_bytes} leaves no UB on {p.name} ({p.ub_bytes} bytes)",
            )
