"""The state the reading of one op spec document keeps between its sections: the reader that records
problems, the document's path and catalogue, the names taken so far, the op's products once read and the
tensors whose dtype lists hold an unknown name.
"""

from __future__ import annotations

from pathlib import Path

from codegen.spec.errors import SourceLoc
from codegen.spec.model import Catalogue
from codegen.spec.yaml_reader import Reader, YNode


class ParseState:
    """What the reading of one op spec document keeps between its sections; problems go to ``r.errors``.

    Attributes:
        root: the document's root node.
        path: the spec file.
        catalogue: the product catalogue, or None when it is invalid (product checks are then skipped).
        r: the reader that records every problem.
        taken: names claimed so far (tensors, attrs, the compute's names) -> the field path and place of each
            claim (a constraint's ``let`` names claim in a copy).
        op_products: the op's products, once parsed.
        unread_dtypes: the tensors whose ``dtypes`` are missing (a misspelt key) or hold an item naming no dtype
            (reported there): other entries are not checked against their dtypes, as the list may have meant
            any dtype.
        unread_ranks: the tensors whose ``rank`` is missing (a misspelt key) or invalid (reported there): rules
            on their rank are not checked against the stand-in ``[0, 8]``.
        unread_defaults: the attrs whose ``default`` was given but is invalid (reported there): the example
            does not also report them as missing.
        family: the op's family once read (``""`` before, or when the spec names none or an unknown one).
    """

    def __init__(self, root: YNode, path: Path, catalogue: Catalogue | None, r: Reader) -> None:
        self.root = root
        self.path = path
        self.catalogue = catalogue
        self.r = r
        self.taken: dict[str, tuple[str, SourceLoc]] = {}
        self.op_products: tuple[str, ...] = ()
        self.unread_dtypes: set[str] = set()
        self.unread_ranks: set[str] = set()
        self.unread_defaults: set[str] = set()
        self.family = ""
