"""``opgen explain``: the normalized spec on one product and the tiling decision for a shape."""

from __future__ import annotations

import string
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from codegen import registry
from codegen.spec.model import AttrSpec, Constraint, DType, OpSpec, Product
from codegen.types import compute_dtypes

#: ``--shape`` spellings of a 0-d (scalar) shape.
SCALAR_SHAPES = ("", "scalar", "()", "[]")


def unfilled_message(message: str) -> str:
    """A constraint message without a call to fill it: each ``{name}`` placeholder shows as ``<name>``
    (``{{``/``}}`` are literal braces, as in the generated error text)."""
    parts = []
    for literal, name, _, _ in string.Formatter().parse(message):
        parts.append(literal)
        if name is not None:
            parts.append(f"<{name}>")
    return "".join(parts)


INT64_MAX = 2**63 - 1


def parse_shape(shape_text: str) -> tuple[int, ...]:
    """``--shape`` text as dims: comma (or ``x``) separated non-negative ASCII integers; ``''``, ``scalar``,
    ``()`` or ``[]`` is the 0-d shape ``()``.

    Raises:
        ValueError: any other text (the message gives the accepted forms), or a dimension of more digits than
            any int64 has (Python's ``int()`` refuses over 4300 digits with a message that names no option).
    """
    text = shape_text.strip()
    if text in SCALAR_SHAPES:
        return ()
    dims = [d.strip() for d in text.replace("x", ",").split(",")]
    if not all(d.isascii() and d.isdigit() for d in dims):  # str.isdigit also takes '²' and '１'
        raise ValueError(
            f"--shape {shape_text!r}: expected non-negative integers separated by ',' or 'x', e.g. 1024,4096 or "
            "1024x4096, "
            "or 'scalar' (also '') for a 0-d tensor"
        )
    for d in dims:
        digits = d.lstrip("0") or "0"
        if len(digits) > len(str(INT64_MAX)):
            raise ValueError(
                f"--shape: dimension {digits[:20]}... ({len(digits)} digits) does not fit in int64 "
                f"(at most {INT64_MAX})"
            )
    return tuple(int(d) for d in dims)


def filled_message(message: str, values: Mapping[str, object]) -> str:
    """A constraint message with each ``{name}`` placeholder replaced by its value in ``values`` (floats as
    ``%g``, bools as true/false, as the generated error text prints them); names without a value stay
    ``<name>``."""
    parts = []
    for literal, name, _, _ in string.Formatter().parse(message):
        parts.append(literal)
        if name is None:
            continue
        if name not in values:
            parts.append(f"<{name}>")
            continue
        v = values[name]
        if isinstance(v, bool):
            parts.append("true" if v else "false")
        elif isinstance(v, float):
            parts.append(f"{v:g}")
        else:
            parts.append(str(v))
    return "".join(parts)


def _shape_call(
    spec: OpSpec, product: Product, shape: tuple[int, ...], dtype_name: str | None
) -> tuple[dict[str, object], list[str]]:
    """The call ``opgen explain`` describes for ``shape``: the evaluation environment of its constraints
    (tensors, attrs, ``coreNum``, ``ubBytes``) and the attribute values it assumes, as ``name value`` text.
    The family gives the tensors and the attrs the shape sets (:meth:`codegen.registry.Family.shape_call`);
    other attrs take their default."""
    env: dict[str, object] = {"coreNum": product.vector_core_num, "ubBytes": product.ub_bytes}
    tensors, assumed, set_attrs = registry.family(spec.family).shape_call(spec, product, shape, dtype_name)
    env.update(tensors)
    for a in spec.attrs:
        if a.name in set_attrs:
            env[a.name] = set_attrs[a.name]
        elif a.default is not None:
            env[a.name] = a.default
            assumed.append(f"{a.name} {filled_message('{v}', {'v': a.default})} (default)")
    return env, assumed


def constraint_verdict(c: Constraint, env: Mapping[str, object]) -> tuple[dict[str, object], str]:
    """Evaluates constraint ``c`` on the call ``env``: the values of its ``let`` names and attrs (for the
    message) and a verdict: ``satisfied``, ``VIOLATED (phase 1 returns <status>)``, ``does not apply
    (`when` is false)`` or ``not evaluated: <why>``."""
    from codegen.spec.expr import ExprEvalError, evaluate, to_source

    scope: dict[str, object] = dict(env)
    for name in DType.__members__:
        scope.setdefault(name, DType[name])
    try:
        if c.when is not None and not evaluate(c.when, scope):
            return scope, f"does not apply (`{to_source(c.when)}` is false)"
        for name, e in c.let:
            scope[name] = evaluate(e, scope)
        ok = bool(evaluate(c.require, scope))
    except ExprEvalError as exc:
        return scope, f"not evaluated: {exc}"
    if ok:
        return scope, f"satisfied (`{to_source(c.require)}`)"
    return scope, f"VIOLATED (`{to_source(c.require)}` is false; phase 1 returns {c.status})"


def check_ranks(spec: OpSpec, env: Mapping[str, object]) -> None:
    """Rejects a call whose tensors break the spec's rank rules, as phase 1 of the aclnn API does
    (``OP_CHECK_MAX_DIM`` and the minimum rank: 161002).

    ``env`` maps tensor names to stand-ins with a ``shape`` (:class:`codegen.check.constraints.TensorStandIn`);
    names it lacks are not checked. Outputs are checked first (a family may read an ``opgen explain`` shape as
    the output's), then inputs, each in spec order.

    Raises:
        ValueError: ``<output|input> <name> of rank <r> is rejected by <aclnn>: rank must be <lo>-<hi>``.
    """
    for kind, tensors in (("output", spec.outputs), ("input", spec.inputs)):
        for t in tensors:
            stand_in = env.get(t.name)
            shape = getattr(stand_in, "shape", None)
            if shape is None:
                continue
            lo, hi = t.rank
            if not lo <= len(shape) <= hi:
                raise ValueError(
                    f"{kind} {t.name} of rank {len(shape)} is rejected by {spec.aclnn_name}: rank must be {lo}-{hi}"
                )


def check_explain_shape(spec: OpSpec, product: Product, shape: tuple[int, ...], dtype_name: str | None) -> None:
    """Rejects an ``opgen explain --shape`` the op's calls would reject, before any tiling is computed.

    The family says which tensors the shape implies and rejects a shape it cannot read
    (:meth:`codegen.registry.Family.explain_tensors`); every tensor of the call the shape describes
    (:meth:`codegen.registry.Family.shape_call`) must meet its rank rule (:func:`check_ranks`, the rule of
    the generated aclnn checks, for every family); each tensor's element count and byte size must fit in
    int64 (aclnn shapes and the tiling's lengths are int64).

    Raises:
        ValueError: the message says which rule the shape breaks.
    """
    for dim in shape:
        if dim > INT64_MAX:
            raise ValueError(f"dimension {dim} does not fit in int64 (at most {INT64_MAX})")
    family = registry.family(spec.family)
    tensors = family.explain_tensors(spec, shape)
    call, _, _ = family.shape_call(spec, product, shape, dtype_name)
    check_ranks(spec, call)
    # The dtype explain tiles for: the one asked for, else the first the first required input lists.
    dtype = DType[dtype_name] if dtype_name else compute_dtypes(spec)[0]
    for what, dims in tensors:
        count = 1
        for dim in dims:
            count *= dim
        if count > INT64_MAX:
            raise ValueError(f"{what} has {count} elements, which overflows int64 (at most {INT64_MAX})")
        if count * dtype.itemsize > INT64_MAX:
            raise ValueError(f"{what} takes {count * dtype.itemsize} bytes of {dtype.name}, which overflows int64")


#: The value ``opgen explain --shape`` passes for an aclScalar attr without a default (:func:`call_params`).
SCALAR_STAND_IN = 0.5


def attr_values(a: AttrSpec) -> str:
    """What attr ``a`` takes, as ``opgen explain`` lists it: its enum values (``0=none, 1=mean``), an array's
    length range (``length 1-8``), an aclScalar's dtypes and the value the ``--shape`` call passes for it
    with the dtype the runner gives a Python number (:attr:`codegen.spec.model.AttrSpec.number_dtype`):
    ``FLOAT, FLOAT16, DOUBLE; the --shape call passes 0.5 as a DOUBLE aclScalar``; else ``any``."""
    if a.is_array and a.length is not None:
        lo, hi = a.length
        return f"length {lo}" if lo == hi else f"length {lo}-{hi}"
    if a.values:
        return ", ".join(f"{v}={n}" for v, n in a.values)
    if a.type == "scalar":
        value = f"{SCALAR_STAND_IN}" if a.default is None else f"its default {a.default}"
        return f"{', '.join(a.scalar_dtypes)}; the --shape call passes {value} as a {a.number_dtype} aclScalar"
    return "any"


def explain(spec: OpSpec, product: Product, shape_text: str | None, dtype_name: str | None) -> str:
    """A readable report: dtypes and ranks per tensor on ``product``, attributes, constraints, and for
    ``shape_text`` (comma-separated output dims) the UB budget split, tile length, tiles per core, cores
    used, workspace bytes and the chosen strategy.

    On a product the op does not support the report says so and gives no tiling.

    Raises:
        ValueError: bad shape text, a shape the op rejects (see :func:`check_explain_shape`) or a dtype the
            op does not compute on.
    """
    lines = [
        f"{spec.aclnn_name} ({spec.family} family, device OpType {spec.op_type}) on {product.name}",
        f"  product: NpuArch {product.npu_arch}, UB {product.ub_bytes} bytes, {product.vector_core_num} vector cores, "
        f"bf16 {'yes' if product.bf16 else 'no'}, DataCopyPad {'yes' if product.data_copy_pad else 'no'}, "
        f"queue buffers per position {product.queue_buffer_cap}, "
        f"hardware SyncAll {'yes' if product.hw_sync_all else 'no'}, "
        f"system workspace {product.sys_workspace_bytes} bytes",
    ]
    if product.name not in spec.products:
        lines.append(f"  NOT SUPPORTED on {product.name} (spec products: {', '.join(spec.products)})")
    for t in spec.inputs:
        null_note = ""
        if t.optional:
            null_note = "; optional: may be null"
            if t.default is not None:
                null_note += f", then every element is {t.default:g}"
        lines.append(
            f"  input  {t.name}: {', '.join(d.name for d in t.dtypes_for(product))}; rank {t.rank[0]}-{t.rank[1]}"
            + null_note
        )
    lines.extend(f"  attr   {a.name}: {a.type} ({attr_values(a)})" for a in spec.attrs)
    for t in spec.outputs:
        lines.append(
            f"  output {t.name}: {', '.join(d.name for d in t.dtypes_for(product))}; rank {t.rank[0]}-{t.rank[1]}"
        )
    shape = parse_shape(shape_text) if shape_text is not None else None
    if shape is not None:
        check_explain_shape(spec, product, shape, dtype_name)
        env, assumed = _shape_call(spec, product, shape, dtype_name)
    for c in spec.constraints:
        if c.products and product.name not in c.products:
            continue
        if shape is None:
            lines.append(f"  constraint {c.name}: {unfilled_message(c.message)}")
            continue
        filled, verdict = constraint_verdict(c, env)
        lines.append(f"  constraint {c.name}: {filled_message(c.message, filled)}")
        with_attrs = f" with {', '.join(assumed)}" if assumed else ""
        lines.append(f"    for shape {list(shape)}{with_attrs}: {verdict}")
    if shape is None:
        return "\n".join(lines)
    if product.name not in spec.products:
        lines.append(f"no tiling: {spec.aclnn_name} does not run on {product.name}")
        return "\n".join(lines)
    tiling = registry.family(spec.family).explain_tiling(spec, product, shape, dtype_name)
    shapes = _output_shapes(spec, env)
    if shapes and all(s is not None and 0 in s for s in shapes.values()):
        empty = ", ".join(f"{name} {list(s or ())}" for name, s in shapes.items())
        tiling += (
            f"\nthe call launches no kernel: no output has elements ({empty}), and the aclnn API returns "
            "ACLNN_SUCCESS before the tiling, so the tiling above is never used"
        )
    return "\n".join([*lines, tiling])


def _output_shapes(spec: OpSpec, env: Mapping[str, object]) -> dict[str, tuple[int, ...] | None]:
    """Each output's shape for the call ``env`` (its shape rule; the first output's as the family's compute
    adjusts it for the attrs, e.g. a reduction to 0-d), None for an output whose rule is missing or cannot be
    evaluated. An output that is empty while another is not (a column sum over zero rows) still makes the
    call launch: only a call whose outputs are all empty returns before the tiling."""
    from codegen.spec.expr import ExprEvalError, evaluate
    from codegen.spec.expr.functions import as_shape

    shapes: dict[str, tuple[int, ...] | None] = {}
    for i, out in enumerate(spec.outputs):
        if out.shape is None:
            shapes[out.name] = None
            continue
        try:
            ruled = as_shape(evaluate(out.shape, dict(env)))
        except (ExprEvalError, TypeError, ValueError):
            shapes[out.name] = None
            continue
        first = i == 0 and spec.compute is not None
        shapes[out.name] = spec.compute.first_output_shape(ruled, env) if first and spec.compute else ruled
    return shapes


def call_params(
    spec: OpSpec, product: Product, shape: tuple[int, ...], dtype_name: str | None, stand_ins: bool = False
) -> dict[str, Any]:
    """Keyword arguments of the call ``opgen explain --shape`` describes (:meth:`codegen.registry.Family.shape_call`):
    each input as an array of its dims and dtype (a tensor-list input as a list of that one array; floating
    values uniform in [0.05, 0.95], valid for every
    op's domain; integer values uniform in [0, k) with k the first positive integer attr the shape sets, else 1),
    an optional input the call leaves out as None, the attrs the shape sets (a negative value of an unsigned
    attr as its two's complement, e.g. no padding row), the first enum value of any other attr without a
    default, and 0.5 for an aclScalar attr without one (a DOUBLE aclScalar where the attr takes DOUBLE). Seeded:
    the same call every time. With ``stand_ins`` each input is a read-only zero-stride view of one zero of its
    dtype and dims (no memory is allocated, whatever the shape), for sizing the call.

    Raises:
        ValueError: ``stand_ins``: an input has more elements than a NumPy array can index.
    """
    import numpy as np

    env, _, set_attrs = registry.family(spec.family).shape_call(spec, product, shape, dtype_name)
    rng = np.random.default_rng(0)
    bound = next((v for v in set_attrs.values() if isinstance(v, int) and not isinstance(v, bool) and v > 0), 1)
    params: dict[str, Any] = {}
    for t in spec.inputs:
        stand_in = env.get(t.name)
        dims = getattr(stand_in, "shape", None)
        dtype = getattr(stand_in, "dtype", None)
        if dims is None or not isinstance(dtype, DType):
            params[t.name] = None
            continue
        np_dtype = np.dtype(dtype.numpy_name)
        if stand_ins:
            value = np.broadcast_to(np.zeros((), np_dtype), dims)
        elif np.issubdtype(np_dtype, np.integer):
            value = rng.integers(0, bound, size=dims).astype(np_dtype)
        else:
            value = rng.uniform(0.05, 0.95, size=dims).astype(np_dtype)
        params[t.name] = [value] if t.is_list else value  # a tensor list: a list of the one tensor the shape gives
    for a in spec.attrs:
        if a.name in set_attrs:
            v = set_attrs[a.name]
            params[a.name] = v + 2**64 if a.type == "uint64" and isinstance(v, int) and v < 0 else v
        elif a.default is None and a.values:
            params[a.name] = a.values[0][0]
        elif a.default is None and a.type == "scalar":
            # an aclScalar: a Python number, passed in the dtype the runner picks for one
            # (AttrSpec.number_dtype: DOUBLE where the attr takes it)
            params[a.name] = SCALAR_STAND_IN
    return params


def model_section(
    spec: OpSpec, product: Product, shape_text: str, dtype_name: str | None, generated: Path | None = None
) -> str:
    """The performance model's section of ``opgen explain --shape``: the call of :func:`call_params` built
    and run on the emulator (core order ``in_order``), its modelled time, busy cycles per pipe of the slowest
    core, critical pipe, copy time hidden behind vector work, roofline bound and fraction
    (:func:`codegen.perf.call_timeline`), and vector element-ops per element of the first input.

    The op is ``spec`` itself (a spec outside the project's specs/ included), built from ``generated`` (the
    generated tree, ``generated/`` by default); a tree without the op's sources gives a one-line note.

    Returns ``""`` on a product the op does not run on, and a one-line note on a product without a cost model,
    when the call is beyond the Python API's memory cap (``OPGEN_MAX_CALL_BYTES``,
    :func:`codegen.runner.memory.check_call_size`) or more elements than an array can index (the call is
    skipped, nothing is allocated), when the call fails on the emulator (its status and message), or when it
    launches no kernel (an empty output: the API returns before launching).

    Raises:
        ValueError: bad shape text or a shape the op rejects (as :func:`explain`).
    """
    if product.name not in spec.products:
        return ""
    if product.cost_model is None:
        return f"performance model: unavailable on {product.name} (the product catalogue gives it no cost_model)"
    from codegen.build import BuildError, build_op
    from codegen.perf import call_timeline, gm_bandwidth_bytes_per_us
    from codegen.runner import AclnnError, OpCallable
    from codegen.runner.arguments import call_attrs
    from codegen.runner.memory import check_call_size

    shape = parse_shape(shape_text)
    check_explain_shape(spec, product, shape, dtype_name)
    try:  # sized on stand-ins first: a call beyond the Python API's memory cap is never allocated
        views = call_params(spec, product, shape, dtype_name, stand_ins=True)
        sized = {t.name: views.get(t.name) for t in spec.inputs}
        # a tensor list is sized as the tuple of its arrays (the Python API's form of a list)
        sized = {k: tuple(v) if isinstance(v, list) else v for k, v in sized.items()}
        check_call_size(spec, sized, call_attrs(spec, views), False)
    except (TypeError, ValueError) as exc:
        return f"performance model: skipped ({str(exc).splitlines()[0]})"
    params = call_params(spec, product, shape, dtype_name)
    try:
        fn = OpCallable(build_op(spec, product, generated))
    except BuildError as exc:
        return f"performance model: not built ({str(exc).splitlines()[0]})"
    try:
        fn(core_order="in_order", **params)
    except AclnnError as exc:
        return f"performance model: the call failed on the emulator ({exc.status}): {str(exc).splitlines()[0]}"
    if not fn.last_stats.get("launches"):
        return (
            "performance model: the call launches no kernel (its aclnn API returns ACLNN_SUCCESS before any "
            "launch, as for an empty output), so the tiling above is never used; nothing to model"
        )
    tl = call_timeline(fn.last_stats, product)
    if tl is None:
        return f"performance model: the emulator kept no timeline for this call on {product.name}"
    m = product.cost_model
    first = next((v for v in params.values() if hasattr(v, "size") or isinstance(v, list)), None)
    size = sum(a.size for a in first) if isinstance(first, list) else getattr(first, "size", 0)
    per_element = tl.vector_elements / size if size else 0.0
    busy = ", ".join(f"{p} {c:.0f}" for p, c in tl.pipe_busy_cycles.items())
    return "\n".join(
        [
            f"performance model on {product.name} ({m.clock_mhz.value:g} MHz, GM "
            f"{gm_bandwidth_bytes_per_us(product) / 1e3:g} GB/s; the call above, run on the emulator):",
            f"  modelled time: {tl.modelled_us:.2f} us ({tl.modelled_cycles:.0f} cycles); critical pipe "
            f"{tl.critical_pipe}; copy time hidden behind vector work: {100 * tl.copy_hidden_fraction:.0f}%",
            f"  busy cycles of the slowest core: {busy}",
            f"  roofline: {tl.roofline_us:.2f} us ({tl.bound}-bound; GM {tl.gm_bytes} bytes -> "
            f"{tl.memory_bound_us:.2f} us, vector work -> {tl.vector_bound_us:.2f} us); "
            f"roofline fraction {tl.roofline_fraction:.2f}",
            f"  vector element-ops per element of {spec.inputs[0].name}: {per_element:.2f}",
        ]
    )
