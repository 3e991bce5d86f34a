"""Loading and validating the product catalogue (``specs/products.yaml``).

Nothing here writes files.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from codegen.spec.errors import SpecError, SpecErrors
from codegen.spec.model import (
    VECTOR_CLASSES,
    Catalogue,
    CostModel,
    DType,
    Figure,
    Product,
    VectorCost,
)
from codegen.spec.naming import _C_IDENT, _SNAKE
from codegen.spec.yaml_reader import Reader, YMap, YNode, YSeq, read_yaml

CATALOGUE_FILE = "products.yaml"

#: The largest ``vector_core_num`` a catalogue may give: a launch's blockDim is at most 65535 (the range CANN's
#: kernel launch accepts for blockDim).
MAX_BLOCK_DIM = 65535
#: The largest ``ub_bytes``: TPipe::InitBuffer takes its length as uint32_t and the emulator carves UB with
#: int32 offsets.
MAX_UB_BYTES = 2**31 - 1
#: The largest ``sys_workspace_bytes`` (1 GiB; CANN reserves 2 or 16 MiB, asc-devkit
#: impl/basic_api/utils/kernel_utils_constants.h RESERVED_WORKSPACE).
MAX_SYS_WORKSPACE_BYTES = 2**30
#: The largest ``npu_arch``: CANN's ``enum class NpuArch : uint32_t`` (platform/soc_spec.h), which the generated
#: L2 APIs and tilings switch on (``case <npu_arch>:`` must convert to uint32_t without narrowing).
MAX_NPU_ARCH = 2**32 - 1


# -------------------------------------------------------------------------------------------- catalogue

_PRODUCT_KEYS = (
    "name",
    "doc_term",
    "config_name",
    "soc_version",
    "npu_arch",
    "ub_bytes",
    "vector_core_num",
    "bf16",
    "data_copy_pad",
    "atomic_add_dtypes",
    "queue_buffer_cap",
    "hw_sync_all",
    "sys_workspace_bytes",
    "source",
)
_PRODUCT_OPTIONAL_KEYS = ("capability_source", "doc_aliases", "cost_model", "vector_sort")
_LOWER_IDENT = re.compile(r"[a-z][a-z0-9_]*")
_UPPER_IDENT = re.compile(r"[A-Z][A-Z0-9_]*")
UB_BLOCK_BYTES = 32  # UB block size on every catalogued SoC (reference/ascend-platform.md)
#: Product facts generated code selects by NpuArch (``__NPU_ARCH__`` in kernels, ``GetCurNpuArch()`` on the
#: host), so products sharing an NpuArch must agree on them. UB bytes and core counts are read from the
#: platform at run time and may differ.
ARCH_CAPABILITIES = (
    "bf16",
    "data_copy_pad",
    "atomic_add_dtypes",
    "queue_buffer_cap",
    "hw_sync_all",
    "sys_workspace_bytes",
    "vector_sort",
)


def _pattern(r: Reader, node: YNode, rx: re.Pattern[str], what: str) -> str:
    s = r.string(node)
    if s is None:
        return ""
    if not rx.fullmatch(s):
        r.error(node, f"'{s}' is not {what}")
        return ""
    return s


def _one_line(r: Reader, node: YNode) -> str | None:
    """A non-empty string of printable characters on one line (it fills a row of the API document's
    support table), or None (recorded)."""
    text = r.string(node)
    if text is not None and not text.isprintable():
        r.error(node, "must be one line of printable text (got a line break or control character)")
        return None
    return text


#: The figures of a ``cost_model`` besides ``vector``, with the range each value must lie in (inclusive
#: bounds; a lower bound of 0 excluded where marked). Clocks past 10 GHz, bandwidths past 1 PB/s or costs past
#: a million cycles are typing errors, not products.
_COST_FIGURES: tuple[tuple[str, float, bool, float], ...] = (
    # name, lower bound, lower bound excluded, upper bound
    ("clock_mhz", 0.0, True, 10_000.0),
    ("gm_bandwidth_gbps", 0.0, True, 1_000_000.0),
    ("core_gm_bytes_per_cycle", 0.0, True, 1_000_000.0),
    ("dma_fixed_cycles", 0.0, False, 1_000_000.0),
    ("scalar_access_cycles", 0.0, False, 1_000_000.0),
    ("scalar_wait_cycles", 0.0, False, 1_000_000.0),
)


def _bounded(r: Reader, node: YNode, lo: float, open_lo: bool, hi: float) -> float | None:
    """A finite number in ``(lo, hi]`` (``open_lo``) or ``[lo, hi]``, or None (recorded)."""
    v = r.number(node)
    if v is None:
        return None
    if v < lo or (open_lo and v == lo) or v > hi:
        r.error(node, f"{v} is out of range; allowed: {'>' if open_lo else '>='} {lo:g} and <= {hi:g}")
        return None
    return float(v)


def _source(r: Reader, m: dict[str, YNode]) -> str | None:
    """The ``source`` of a figure: a public source, or a text starting with ``assumed``."""
    return _one_line(r, m["source"]) if "source" in m else None


def _figure(r: Reader, node: YNode, lo: float, open_lo: bool, hi: float) -> Figure | None:
    m = r.mapping(node, ("value", "source"))
    if m is None:
        return None
    value = _bounded(r, m["value"], lo, open_lo, hi) if "value" in m else None
    source = _source(r, m)
    return Figure(value, source) if value is not None and source is not None else None


def _vector_cost(r: Reader, node: YNode) -> VectorCost | None:
    m = r.mapping(node, ("cycles_per_repeat", "latency_cycles", "source"))
    if m is None:
        return None
    per = _bounded(r, m["cycles_per_repeat"], 0.0, True, 1_000_000.0) if "cycles_per_repeat" in m else None
    lat = _bounded(r, m["latency_cycles"], 0.0, False, 1_000_000.0) if "latency_cycles" in m else None
    source = _source(r, m)
    return VectorCost(per, lat, source) if per is not None and lat is not None and source is not None else None


def _parse_cost_model(r: Reader, node: YNode) -> CostModel | None:
    """A product's ``cost_model`` (see :class:`~codegen.spec.model.CostModel`), or None (recorded)."""
    names = [f[0] for f in _COST_FIGURES]
    m = r.mapping(node, (*names, "vector"))
    if m is None:
        return None
    figs = {name: _figure(r, m[name], lo, open_lo, hi) for name, lo, open_lo, hi in _COST_FIGURES if name in m}
    vector: list[VectorCost | None] = []
    if "vector" in m:
        vm = r.mapping(m["vector"], tuple(c for c, _ in VECTOR_CLASSES))
        if vm is not None:
            vector = [_vector_cost(r, vm[c]) if c in vm else None for c, _ in VECTOR_CLASSES]
    if len(figs) != len(names) or any(f is None for f in figs.values()):
        return None
    if len(vector) != len(VECTOR_CLASSES) or any(v is None for v in vector):
        return None
    f = {k: v for k, v in figs.items() if v is not None}
    return CostModel(
        clock_mhz=f["clock_mhz"],
        gm_bandwidth_gbps=f["gm_bandwidth_gbps"],
        core_gm_bytes_per_cycle=f["core_gm_bytes_per_cycle"],
        dma_fixed_cycles=f["dma_fixed_cycles"],
        vector=tuple(v for v in vector if v is not None),
        scalar_access_cycles=f["scalar_access_cycles"],
        scalar_wait_cycles=f["scalar_wait_cycles"],
    )


def _parse_product(r: Reader, node: YNode, bad: set[str]) -> Product | None:
    """One product entry; the keys whose value was refused (an error recorded, a stand-in value taken) are
    added to ``bad``."""
    m = r.mapping(node, _PRODUCT_KEYS, _PRODUCT_OPTIONAL_KEYS)
    if m is None:
        return None

    def get(key: str, fn: Callable[[YNode], object]) -> object:
        if key not in m:
            return None
        count = len(r.errors)
        value = fn(m[key])
        if len(r.errors) > count:
            bad.add(key)
        return value

    name = _pattern(r, m["name"], _C_IDENT, "a valid identifier (e.g. Ascend910B)") if "name" in m else ""
    config = (
        _pattern(r, m["config_name"], _LOWER_IDENT, "a lower-case identifier (e.g. ascend910b)")
        if "config_name" in m
        else ""
    )
    soc = (
        _pattern(r, m["soc_version"], _UPPER_IDENT, "an upper-case identifier (e.g. ASCEND910B)")
        if "soc_version" in m
        else ""
    )
    # InitBuffer lengths are uint32_t (asc-devkit include/basic_api/kernel_tpipe.h): a UB past 2**31 - 1 bytes
    # could not be carved by any kernel.
    ub = get("ub_bytes", lambda n: r.integer(n, 1, MAX_UB_BYTES))
    if isinstance(ub, int) and ub % UB_BLOCK_BYTES:
        r.error(m["ub_bytes"], f"ub_bytes {ub} is not a multiple of {UB_BLOCK_BYTES} (the UB block size)")
    atomics: tuple[DType, ...] = ()
    if "atomic_add_dtypes" in m:
        items = r.seq(m["atomic_add_dtypes"]) or []
        seen: list[DType] = []
        for item in items:
            d = r.dtype(item)
            if d is not None and d in seen:
                r.error(item, f"duplicate dtype '{d.name}' (already in this list)")
            elif d is not None:
                seen.append(d)
        atomics = tuple(seen)

    def as_int(v: object) -> int:
        return v if isinstance(v, int) else 0

    alias_nodes = (r.seq(m["doc_aliases"]) or []) if "doc_aliases" in m else []

    return Product(
        name=name,
        doc_term=str(get("doc_term", lambda n: _one_line(r, n)) or ""),
        config_name=config,
        soc_version=soc,
        npu_arch=as_int(get("npu_arch", lambda n: r.integer(n, 1, MAX_NPU_ARCH))),
        ub_bytes=as_int(ub),
        vector_core_num=as_int(get("vector_core_num", lambda n: r.integer(n, 1, MAX_BLOCK_DIM))),
        bf16=bool(get("bf16", r.boolean)),
        data_copy_pad=bool(get("data_copy_pad", r.boolean)),
        atomic_add_dtypes=atomics,
        queue_buffer_cap=as_int(get("queue_buffer_cap", lambda n: r.integer(n, 1, 64))),
        hw_sync_all=bool(get("hw_sync_all", r.boolean)),
        sys_workspace_bytes=as_int(get("sys_workspace_bytes", lambda n: r.integer(n, 0, MAX_SYS_WORKSPACE_BYTES))),
        source=str(get("source", r.string) or ""),
        capability_source=str(get("capability_source", r.string) or ""),
        loc=node.loc,
        doc_aliases=tuple(t for t in (_one_line(r, item) for item in alias_nodes) if t),
        cost_model=_parse_cost_model(r, m["cost_model"]) if "cost_model" in m else None,
        vector_sort=bool(get("vector_sort", r.boolean)),
    )


def doc_term_key(term: str) -> str:
    """The form in which document product terms are compared: case-folded, without whitespace
    (``Atlas 训练系列产品`` and ``Atlas训练系列产品`` are one term)."""
    return "".join(term.split()).casefold()


def _value_node(node: YMap, key: str) -> YNode:
    """The value of ``key`` in ``node`` (for its line), or ``node`` itself when the key is absent."""
    return next((v for k, v in node.entries if k.value == key), node)


def _check_catalogue(r: Reader, products: list[tuple[YMap, Product]], refused: dict[str, set[str]]) -> None:
    """The checks across fields and products: unique names, document terms, BF16 atomics with bf16, and the
    capabilities of products sharing an NpuArch. A value that was refused (its key in ``refused[name]``; an
    error is recorded and a stand-in taken) is left out of them: one bad value gives one error, not a second
    one about its stand-in."""
    for key in ("name", "config_name", "soc_version"):
        first: dict[str, Product] = {}
        for node, p in products:
            value = getattr(p, key)
            if not value:
                continue
            if value in first:
                where = _value_node(node, key)
                r.error(where, f"duplicate product {key} '{value}' (first at line {first[value].loc.line})")
            else:
                first[value] = p
    terms: dict[str, Product] = {}
    for node, p in products:
        for term in (p.doc_term, *p.doc_aliases):
            key = doc_term_key(term)
            other = terms.setdefault(key, p)
            if key and other is not p:
                r.error(
                    _value_node(node, "doc_aliases"),
                    f"document term '{term}' of {p.name} also names {other.name} (line {other.loc.line}); a term "
                    "must name one product",
                )
    by_arch: dict[int, Product] = {}
    for node, p in products:
        bad = refused.get(p.name, set())
        if DType.BF16 in p.atomic_add_dtypes and not p.bf16 and "bf16" not in bad:
            r.error(
                _value_node(node, "atomic_add_dtypes"), f"{p.name} lists BF16 in atomic_add_dtypes but has bf16: false"
            )
        if not p.npu_arch:
            continue
        other = by_arch.setdefault(p.npu_arch, p)
        for cap in ARCH_CAPABILITIES:
            stand_in = cap in bad or cap in refused.get(other.name, set())
            if other is not p and not stand_in and getattr(other, cap) != getattr(p, cap):
                r.error(
                    _value_node(node, cap),
                    f"{p.name} has npu_arch {p.npu_arch} like {other.name} (line {other.loc.line}) "
                    f"but a different {cap}; "
                    f"products sharing an NpuArch must agree on {', '.join(ARCH_CAPABILITIES[:-1])} and "
                    f"{ARCH_CAPABILITIES[-1]} (generated code selects by NpuArch, never by product name)",
                )


def _categories(r: Reader, node: YNode) -> tuple[str, ...]:
    """The ``op_categories`` list: snake_case folder names, each once, at least one (problems recorded)."""
    found: list[str] = []
    items = r.strings(node)
    if not items and isinstance(node, YSeq):
        r.error(node, "empty category list; an op folder needs a category (ops-nn's OP_CATEGORY_LIST)")
    for item, name in items:
        if not _SNAKE.fullmatch(name):
            r.error(item, f"'{name}' is not a folder name in snake_case (e.g. activation)")
        elif name in found:
            r.error(item, f"category '{name}' is listed twice")
        else:
            found.append(name)
    return tuple(found)


def _uncatalogued(r: Reader, node: YNode, products: list[tuple[YMap, Product]]) -> tuple[str, ...]:
    """The ``uncatalogued_doc_terms`` list: document terms, each once and naming no catalogued product
    (problems recorded)."""
    named = {doc_term_key(t): p.name for _, p in products for t in (p.doc_term, *p.doc_aliases)}
    found: list[str] = []
    for item, term in r.strings(node):
        key = doc_term_key(term)
        if key in named:
            r.error(item, f"document term '{term}' names the catalogued product {named[key]}")
        elif key in (doc_term_key(t) for t in found):
            r.error(item, f"document term '{term}' is listed twice")
        else:
            found.append(term)
    return tuple(found)


def _load_catalogue(path: Path, errors: list[SpecError]) -> Catalogue | None:
    r = Reader(errors)
    before = len(errors)
    root = read_yaml(path, errors)
    if root is None:
        return None
    top = r.mapping(root, ("op_categories", "products"), ("uncatalogued_doc_terms",))
    if top is None or "products" not in top:
        return None
    categories = _categories(r, top["op_categories"]) if "op_categories" in top else ()
    items = r.seq(top["products"])
    if items is None:
        return None
    if not items:
        r.error(top["products"], "empty product list; the catalogue needs at least one product")
    parsed: list[tuple[YMap, Product]] = []
    refused: dict[str, set[str]] = {}  # product name -> keys whose value was refused (a stand-in was taken)
    for item in items:
        bad: set[str] = set()
        p = _parse_product(r, item, bad)
        if p is not None and isinstance(item, YMap):
            parsed.append((item, p))
            refused[p.name] = bad
    _check_catalogue(r, parsed, refused)
    outside = _uncatalogued(r, top["uncatalogued_doc_terms"], parsed) if "uncatalogued_doc_terms" in top else ()
    catalogue = Catalogue(tuple(p for _, p in parsed), str(path), categories, outside)
    return catalogue if len(errors) == before else None


def _sorted(errors: list[SpecError]) -> list[SpecError]:
    return sorted(errors, key=lambda e: (e.loc.file, e.loc.line))


def load_catalogue(path: str | Path) -> Catalogue:
    """Loads the product catalogue (``specs/products.yaml``).

    Args:
        path: the catalogue file.

    Returns:
        The catalogue, products in file order.

    Raises:
        SpecErrors: every problem: YAML syntax, duplicate or unknown or missing keys, wrong types,
            ``ub_bytes`` not a positive multiple of 32, unknown atomic dtypes, BF16 atomics without bf16,
            duplicate names/config names/SoC versions, products of one NpuArch with different capabilities,
            a ``cost_model`` with a missing, unknown or out-of-range figure or a figure without its source;
            an ``uncatalogued_doc_terms`` item given twice or naming a catalogued product.
            A product without ``cost_model`` loads (its ``cost_model`` is None). ``op_categories`` missing,
            empty, not snake_case or with a name twice.
    """
    errors: list[SpecError] = []
    catalogue = _load_catalogue(Path(path), errors)
    if errors or catalogue is None:
        raise SpecErrors(_sorted(errors))
    return catalogue
