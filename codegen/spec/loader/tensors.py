"""The ``inputs`` and ``outputs`` sections: each tensor's name, dtypes, rank, formats and flags (an output's
shape rule is read once the attrs are, by :mod:`codegen.spec.loader.document`).
"""

from __future__ import annotations

from codegen import registry
from codegen.spec.loader.fields import IN_PARAM_TABLE, read_fp32_constant, read_header_name, read_rank, read_tensor_name
from codegen.spec.loader.state import ParseState
from codegen.spec.model import ACL_FORMATS, MAX_RANK, PRIVATE_ACL_FORMATS, DType, TensorSpec
from codegen.spec.yaml_reader import YNode


def read_tensor(st: ParseState, node: YNode, index: int, is_output: bool) -> tuple[TensorSpec, YNode | None]:
    """One entry of ``inputs`` (``is_output`` False) or ``outputs`` (index ``index``, named so when its name
    is unusable), and the node of an output's ``shape`` (None for an input): the shape rule is read once
    every input and attr is known. Problems are recorded."""
    required = ["name", "dtypes", "rank", "description"] + (["shape"] if is_output else [])
    optional = (["const", "nullable"] if is_output else ["optional", "default"]) + [
        "formats",
        "header_name",
        "list",
        "product_dtypes",
    ]
    m = st.r.mapping(node, required, optional) or {}
    kind = "output" if is_output else "input"
    name = read_tensor_name(st, m["name"], f"<{kind} {index}>") if "name" in m else f"<{kind} {index}>"
    dtypes = st.r.dtypes(m["dtypes"]) if "dtypes" in m else ()
    if "dtypes" not in m or st.r.unread_dtypes(m["dtypes"]):
        st.unread_dtypes.add(name)  # missing (or misspelt) or naming an unknown dtype: reported, not compared
    errors = len(st.r.errors)
    rank = read_rank(st, m["rank"]) if "rank" in m else (0, MAX_RANK)
    if "rank" not in m or len(st.r.errors) > errors:
        st.unread_ranks.add(name)  # missing (or misspelt) or invalid: reported, its stand-in not judged
    description = (st.r.line(m["description"], IN_PARAM_TABLE) or "") if "description" in m else ""
    optional_flag = bool(st.r.boolean(m["optional"])) if "optional" in m else False
    const = bool(st.r.boolean(m["const"])) if "const" in m else False
    nullable = bool(st.r.boolean(m["nullable"])) if "nullable" in m else False
    if nullable and index == 0:
        st.r.error(
            m["nullable"],
            "the first output cannot be nullable (the op's result; its shape decides whether a kernel runs); "
            "make a later output nullable",
        )
    default: float | None = None
    if "default" in m:
        if not optional_flag:
            st.r.error(m["default"], "a default is only allowed on an optional input (optional: true)")
        else:
            default = read_fp32_constant(st, m["default"])
    formats: tuple[str, ...] = ("ND",)
    if "formats" in m:
        listed = st.r.distinct_strings(m["formats"], _format_problem, lambda text: f"duplicate format '{text}'")
        if listed and "ND" not in listed:
            st.r.error(m["formats"], "formats must include ND")
        formats = tuple(listed) or ("ND",)
    header_name = read_header_name(st, m.get("header_name"), name)
    is_list = bool(st.r.boolean(m["list"])) if "list" in m else False
    if is_list and st.family:
        takers = [f.name for f in registry.families() if f.tensor_lists]
        if st.family not in takers:
            takes = f"the {', '.join(takers)} family only" if takers else "no family"
            st.r.error(m["list"], f"'{st.family}' takes no tensor list (an aclTensorList); {takes} does")
    product_dtypes = read_product_dtypes(st, m["product_dtypes"], name, dtypes) if "product_dtypes" in m else ()
    spec = TensorSpec(
        name,
        dtypes,
        rank,
        description,
        optional_flag,
        None,
        node.loc,
        const,
        default,
        formats,
        header_name,
        nullable,
        is_list=is_list,
        product_dtypes=product_dtypes,
    )
    return spec, m.get("shape")


def read_product_dtypes(
    st: ParseState, node: YNode, name: str, dtypes: tuple[DType, ...]
) -> tuple[tuple[str, tuple[DType, ...]], ...]:
    """A tensor's ``product_dtypes``: a mapping from some of the op's products to the tensor's whole dtype list
    there (in place of ``dtypes``, as a CANN doc's per-product dtype rows). Problems are recorded at their
    lines: a family that takes no per-product list, a product the op does not list, a dtype the product
    lacks (BF16), a list equal to ``dtypes``, and products of one NpuArch with different lists (the generated
    code tells products apart by NpuArch only). Returns the pairs read without a problem, in file order."""
    family = registry.family(st.family) if st.family in registry.family_names() else None
    if family is not None and not family.product_dtypes:
        takers = [f.name for f in registry.families() if f.product_dtypes]
        st.r.error(
            node,
            f"'{st.family}' takes no per-product dtype list; the {', '.join(takers) or 'no'} family "
            f"{'does' if len(takers) == 1 else 'do'}: give '{name}' one dtypes list for every product",
        )
        return ()
    entries = st.r.mapping_entries(node, "product names to dtype lists")
    if entries is None:
        return ()
    out: list[tuple[str, tuple[DType, ...]]] = []
    for key, value in entries:
        product = key.value if isinstance(key.value, str) else str(key.value)
        listed = st.r.dtypes(value)
        if product not in st.op_products:
            st.r.error(
                key,
                f"'{product}' is not one of the op's products ({', '.join(st.op_products)}); "
                "product_dtypes overrides dtypes on the op's own products only",
            )
            continue
        if not listed:
            continue
        if st.catalogue is not None and product in st.catalogue.names:
            lacking = [d.name for d in listed if not st.catalogue.get(product).supports(d)]
            if lacking:
                st.r.error(value, f"{product} has no {', '.join(lacking)}; drop it from the list")
                continue
        if listed == dtypes:
            st.r.error(value, f"{product}'s list equals the dtypes of '{name}'; drop the entry")
            continue
        out.append((product, listed))
    if st.catalogue is not None:
        _same_per_arch(st, node, name, dtypes, dict(out))
    return tuple(out)


def _same_per_arch(
    st: ParseState, node: YNode, name: str, dtypes: tuple[DType, ...], lists: dict[str, tuple[DType, ...]]
) -> None:
    """Records an error at ``node`` when two of the op's products of one NpuArch would take different dtype
    lists (``lists``: the overrides read; the others take ``dtypes``)."""
    assert st.catalogue is not None
    seen: dict[int, tuple[str, tuple[DType, ...]]] = {}
    for product in st.op_products:
        if product not in st.catalogue.names:
            continue
        p = st.catalogue.get(product)
        mine = tuple(d for d in lists.get(product, dtypes) if p.supports(d))
        first = seen.setdefault(p.npu_arch, (product, mine))
        if first[1] != mine:
            st.r.error(
                node,
                f"{first[0]} and {product} share NpuArch {p.npu_arch} but '{name}' would take different dtypes "
                f"on them; the generated code tells products apart by NpuArch: give both the same list",
            )
            return


def read_tensors(
    st: ParseState, node: YNode | None, what: str, is_output: bool
) -> list[tuple[TensorSpec, YNode | None]]:
    """The tensors of the list ``node`` (``what`` is ``inputs`` or ``outputs``; an empty list is recorded),
    each with its ``shape`` node as :func:`read_tensor` gives it."""
    if node is None:
        return []
    items = st.r.seq(node)
    if items is None:
        return []
    if not items:
        st.r.error(node, f"empty {what} list; an op needs at least one {what[:-1]}")
    return [read_tensor(st, item, i, is_output) for i, item in enumerate(items)]


def _format_problem(text: str) -> str | None:
    """Why ``text`` is not a storage format a tensor may list (a private format, or no ``aclFormat``), or None."""
    if text in PRIVATE_ACL_FORMATS:
        return (
            f"'{text}' is a private format (another data layout), which the generated kernels do not "
            f"read; allowed: {', '.join(ACL_FORMATS)}"
        )
    if text not in ACL_FORMATS:
        return f"unknown format '{text}'; allowed: {', '.join(ACL_FORMATS)}"
    return None
