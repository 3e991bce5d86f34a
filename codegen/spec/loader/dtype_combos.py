"""The ``dtype_combos`` section: the allowed combinations of the tensors' dtypes, per product."""

from __future__ import annotations

from codegen.spec.loader.fields import read_products
from codegen.spec.loader.state import ParseState
from codegen.spec.model import DType, DtypeCombo, TensorSpec
from codegen.spec.yaml_reader import YNode


def read_dtype_combos(
    st: ParseState,
    node: YNode,
    inputs: tuple[TensorSpec, ...],
    outputs: tuple[TensorSpec, ...],
    products: tuple[str, ...],
) -> tuple[DtypeCombo, ...]:
    """The ``dtype_combos`` key: a non-empty list of mappings ``{<tensor>: DTYPE, ..., products: [...]}``
    naming every input and output once, each dtype one of that tensor's ``dtypes``, ``products`` (optional,
    default: the op's) a subset of the op's products; no two entries alike. Problems are recorded at
    their lines."""
    r = st.r
    tensors = (*inputs, *outputs)
    out: list[DtypeCombo] = []
    items = r.seq(node)
    if items is not None and not items:
        r.error(node, "empty dtype_combos list; give at least one combination or leave the key out")
    for item in items or []:
        m = r.mapping(item, [t.name for t in tensors], ("products",))
        if m is None:
            continue
        pairs: list[tuple[str, DType]] = []
        for t in tensors:
            if t.name not in m:
                continue
            d = r.dtype(m[t.name])
            if d is None:
                continue
            if t.dtypes and d not in t.dtypes:
                if t.name not in st.unread_dtypes:  # else the unknown dtype listed may have meant this one
                    r.error(
                        m[t.name],
                        f"'{t.name}' does not take {d.name}; its dtypes are {', '.join(x.name for x in t.dtypes)}",
                    )
                continue
            pairs.append((t.name, d))
        listed = products
        if "products" in m:
            listed = read_products(st, m["products"])
            for item_node, p in r.strings(m["products"]):
                if p not in products:
                    r.error(item_node, f"'{p}' is not a product of the op ({', '.join(products)})")
        if len(pairs) != len(tensors):
            continue
        combo = DtypeCombo(tuple(pairs), tuple(p for p in listed if p in products), item.loc)
        if any(c.dtypes == combo.dtypes for c in out):
            r.error(item, f"duplicate dtype combination ({combo.text})")
            continue
        out.append(combo)
    return tuple(out)
