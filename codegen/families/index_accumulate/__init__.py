"""The index-accumulate family: rows of a source tensor are added into the output rows an index tensor selects
(``out[index[i]] += rows[i]``), with an optional padding row and occurrence-count scaling (see
:mod:`codegen.registry` for the package layout)."""

from codegen.registry import Family

FAMILY = Family(
    name="index_accumulate",
    summary="out[index[i]] += rows[i] (optional padding row and count scaling), atomic or deterministic",
)
