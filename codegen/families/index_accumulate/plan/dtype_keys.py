"""The tiling key's digits: one record per rows dtype and per index dtype, with the kernel's index
decoder of each index dtype."""

from __future__ import annotations

from dataclasses import dataclass

from codegen.families.index_accumulate.plan.roles import index_dtypes, row_dtypes
from codegen.plan.dtype_keys import DtypeKey, bf16_guard
from codegen.spec.model import DType, OpSpec, Product

#: Kernel-side decoder of each index dtype (struct names of the family's kernel template).
INDEX_CODECS: dict[DType, str] = {
    DType.FLOAT: "IndexFloat",
    DType.FLOAT16: "IndexFloat16",
    DType.DOUBLE: "IndexDouble",
    DType.INT32: "IndexInteger<int32_t>",
    DType.INT64: "IndexInteger<int64_t>",
    DType.INT16: "IndexInteger<int16_t>",
    DType.INT8: "IndexInteger<int8_t>",
    DType.UINT8: "IndexInteger<uint8_t>",
    DType.BOOL: "IndexBool",
}


@dataclass(frozen=True)
class IndexKey:
    """An index dtype of the tiling key: its digit ``key``, spec ``dtype`` name, ``ge_name``, ``bytes`` per
    element and the kernel's index ``codec``."""

    key: int
    dtype: str
    ge_name: str
    bytes: int
    codec: str


@dataclass(frozen=True)
class KeyDigits:
    """The tiling key's dtype digits as the tiling function reads them (its digit and byte-size switches):
    ``rows``, an entry per rows dtype, and ``index``, an entry per index dtype, each in digit order."""

    rows: tuple[DtypeKey, ...]
    index: tuple[IndexKey, ...]


def rows_dtype_keys(spec: OpSpec, products: list[Product]) -> list[DtypeKey]:
    """The rows dtypes of the tiling key, digit = position in the spec; a BF16 one is guarded out where a
    product lacks bf16."""
    return [DtypeKey.of(k, d, bf16_guard(products, d is DType.BF16)) for k, d in enumerate(row_dtypes(spec))]


def index_dtype_keys(spec: OpSpec) -> list[IndexKey]:
    """The index dtypes of the tiling key, digit = position in the spec, each with its kernel decoder
    (:data:`INDEX_CODECS`)."""
    idxs = index_dtypes(spec)
    return [IndexKey(k, d.name, d.ge_name, d.itemsize, INDEX_CODECS[d]) for k, d in enumerate(idxs)]
