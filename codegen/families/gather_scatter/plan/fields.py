"""The tiling struct of a row gather: every int64 field in order, with its meaning."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from codegen.plan.tiling_fields import TilingField

if TYPE_CHECKING:
    from codegen.families.gather_scatter.plan.tiling import TilingDecision


def _at(name: str, i: int, d: TilingDecision) -> int:
    """Item ``i`` of the decision's tuple ``name`` (``extents`` or ``strides``)."""
    value: tuple[int, ...] = getattr(d, name)
    return value[i]


TILING_FIELDS: tuple[TilingField[TilingDecision], ...] = (
    TilingField.held(
        "copyMode", "0: rows with DataCopyPad; 1: element windows (no DataCopyPad); 2: elements (gather_elements)"
    ),
    TilingField.held("outer", "P: the product of the dims of {source} before dim (copyMode 2: numel({source}))"),
    TilingField.held("axisLen", "A: the extent of dim in {source} (valid indices are [0, A))"),
    TilingField.held(
        "inner", "Q: elements of a row (the product of the dims after dim; copyMode 2: {source}'s stride along dim)"
    ),
    TilingField.held("indexNum", "K: elements of {index}; out has P * K rows (copyMode 2: K elements)"),
    TilingField.held(
        "chunkLen", "elements of a row chunk (Q when a row fits a tile; whole 32-byte blocks otherwise), or of a window"
    ),
    TilingField.held("chunkNum", "chunks per row (1 when a row fits a tile)"),
    TilingField.held("slotBytes", "UB bytes of one row slot of a tile (the chunk's bytes rounded up to 32)"),
    TilingField.held("tileRows", "rows per tile, written with one DMA (1 when rows are cut in chunks)"),
    TilingField.held("unitsPerCore", "work units (rows x chunks; copyMode 1: 64-byte output lines) per core"),
    TilingField.held("unitsFormerNum", "cores that take one unit more (the first ones)"),
    TilingField.held("usedCores", "cores the launch runs on"),
    *(
        TilingField(
            f"extent{i}",
            f"copyMode 2: extent of view dim {i} of {{index}} (dims right-aligned to 8, 1 before; 0 otherwise)",
            partial(_at, "extents", i),
            cpp=f"extents[{i}]",
        )
        for i in range(8)
    ),
    *(
        TilingField(
            f"stride{i}",
            f"copyMode 2: elements of {{source}} per step of view dim {i} (0 for dim and the padding dims)",
            partial(_at, "strides", i),
            cpp=f"strides[{i}]",
        )
        for i in range(8)
    ),
)
#: The view rank of copyMode 2 (the kernel's odometer runs over this many dims).
VIEW_DIMS = 8
