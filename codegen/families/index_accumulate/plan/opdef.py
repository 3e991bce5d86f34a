"""The device op's OpDef columns: every (rows dtype, index dtype) pair the products support, the fp32
sums output and the software SyncAll's counters output, and the registration with one config per product."""

from __future__ import annotations

from codegen.families.index_accumulate.plan.roles import compute_of
from codegen.families.index_accumulate.plan.sync_counters import SYNC_OUTPUT
from codegen.plan.opdef import OpDefAttr, OpDefConfig, OpDefParam, OpDefRegistration, OpDefTensors
from codegen.spec.model import DType, OpSpec, Product


def device_opdef_dtypes(spec: OpSpec, products: list[Product] | None) -> dict[str, list[DType]]:
    """Dtype columns of the device op's OpDef, by tensor name: every (rows dtype, index dtype) pair the
    products all support, rows-major; the output (the fp32 sums) is FLOAT in every column. ``products``
    None gives the spec's full lists (the OpDef's default)."""
    comp = compute_of(spec)
    rows_t, index_t = spec.tensor(comp.rows), spec.tensor(comp.index)
    grads = [d for d in rows_t.dtypes if products is None or all(p.supports(d) for p in products)]
    idxs = [d for d in index_t.dtypes if products is None or all(p.supports(d) for p in products)]
    cols = [(g, i) for g in grads for i in idxs]
    out: dict[str, list[DType]] = {comp.rows: [g for g, _ in cols], comp.index: [i for _, i in cols]}
    out.update({t.name: [DType.FLOAT] * len(cols) for t in spec.outputs})
    return out


def _opdef_columns(spec: OpSpec, products: list[Product] | None) -> OpDefTensors:
    """The OpDef entries (see :func:`device_opdef_dtypes`) as template strings, plus the :data:`SYNC_OUTPUT`
    output: [SYNC_INTS] int32 with ``InitValue(0)``, so the launch starts with zero counters for the software
    SyncAll (asc-devkit SyncAll(gmWorkspace, ubWorkspace, usedCores): the GM workspace must be zero first)."""
    cols = device_opdef_dtypes(spec, products)

    def entry(name: str) -> OpDefParam:
        dts = cols[name]
        return OpDefParam(
            name=name,
            param_type="REQUIRED",
            dtypes=", ".join(f"ge::{d.ge_name}" for d in dts),
            formats=", ".join(["ge::FORMAT_ND"] * len(dts)),
        )

    width = len(cols[spec.outputs[0].name])
    sync = OpDefParam(
        name=SYNC_OUTPUT,
        param_type="REQUIRED",
        dtypes=", ".join(["ge::DT_INT32"] * width),
        formats=", ".join(["ge::FORMAT_ND"] * width),
        init_value=0,
    )
    return OpDefTensors(
        inputs=tuple(entry(t.name) for t in spec.inputs),
        outputs=(*(entry(t.name) for t in spec.outputs), sync),
    )


def opdef_registration(spec: OpSpec, products: list[Product], attrs: tuple[OpDefAttr, ...]) -> OpDefRegistration:
    """The OpDef registration of the device op: the default columns (:func:`device_opdef_dtypes` of every
    dtype), one config per product (custom where its columns differ from the default) and ``attrs`` (the
    shared OpDef view's)."""
    default_cols = _opdef_columns(spec, None)
    configs = []
    for p in products:
        cols = _opdef_columns(spec, [p])
        configs.append(
            OpDefConfig(
                config_name=p.config_name,
                var=f"{p.config_name}Config",
                custom=cols != default_cols,
                inputs=cols.inputs,
                outputs=cols.outputs,
            )
        )
    return OpDefRegistration(default_cols, tuple(configs), attrs)
