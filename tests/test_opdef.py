"""The generated OpDef registration, compiled and read back from the runtime's registry.

* For every spec it equals the spec's device interface: names, param types, dtypes and formats of every
  input and output on every product, attribute names, types and defaults.
* Where ops-nn registers the same OpType, it equals ops-nn's OpDef file, recorded independently of the specs
  in ``tests/data/cann_registered_opdefs.yaml``: names, order, param types, attr types and values, dtype
  columns and AutoContiguous on every SoC both register; the one OpType ops-nn does not register is named in
  its op's document with the registered OpTypes it avoids.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from codegen.runner import OpCallable
from codegen.specs import load_project

CATALOGUE, SPECS = load_project()
DEVICE_ATTR_KIND = {
    "int": "int",
    "bool": "bool",
    "float": "float",
    "string": "string",
    "list_int": "list_int",
    "list_bool": "list_bool",
}
RECORDED = yaml.safe_load((Path(__file__).parent / "data" / "cann_registered_opdefs.yaml").read_text())
GENERATED = Path(__file__).resolve().parents[1] / "generated"


@pytest.mark.parametrize("op", sorted(SPECS))
def test_registered_opdef_matches_spec_on_every_product(
    op: str, host_built_op: Callable[[str, str], OpCallable]
) -> None:
    spec = SPECS[op]
    dev = spec.device_interface
    # The registry is host code (no kernel is built), and the OpDef object is the same on every product: op_host's
    # units take no product macro, and the glue registers no OpDef. So one library's registry holds every
    # product's config (AddConfig per SoC), each read below.
    opdef = host_built_op(op, spec.products[0]).opdef()
    for product_name in spec.products:
        product = CATALOGUE.get(product_name)
        assert opdef["op_type"] == spec.op_type
        configs = opdef["configs"]
        assert sorted(configs) == sorted(CATALOGUE.get(p).config_name for p in spec.products)
        config = configs[product.config_name]
        if spec.family == "index_accumulate":  # the device op lists (rows, index) dtype pairs; its sums are FLOAT
            from codegen.families.index_accumulate.plan.opdef import device_opdef_dtypes

            want = device_opdef_dtypes(spec, [product])
        elif spec.family == "gather_scatter" and len(spec.inputs) == 1:
            # a fill: one column per source dtype (INT64 positions, the value and out of the source's dtype)
            columns = list(spec.inputs[0].dtypes_for(product))
            want = {spec.inputs[0].name: columns, spec.outputs[0].name: columns}
        elif spec.family == "gather_scatter":  # one column per (source dtype, index dtype) pair; out = source
            source, index = spec.inputs[0], spec.inputs[1]
            pairs = [(d, i) for d in source.dtypes_for(product) for i in index.dtypes]
            want = {
                source.name: [d for d, _ in pairs],
                index.name: [i for _, i in pairs],
                spec.outputs[0].name: [d for d, _ in pairs],
            }
            for extra in spec.inputs[2:]:  # a scatter-add's src: the source's dtype
                want[extra.name] = [d for d, _ in pairs]
        elif spec.dtype_combos or dev.columns:
            # one column per dtype combination (the doc's dtype table) or listed device column the product takes
            listed = spec.dtype_combos or tuple(c.combo for c in dev.columns)
            want = {
                t.name: [c.dtype(t.name) for c in listed if c.allowed_on(product)]
                for t in (*spec.launched().inputs, *spec.outputs)  # a host input is in no column
            }
            # an int_array carrier: the L0 API's dtype, but where a column registers another
            arrays = [dict(c.arrays) for c in dev.columns if c.combo.allowed_on(product)] or [{}] * len(
                next(iter(want.values()))
            )
        else:
            order = dev.dtypes or spec.inputs[0].all_dtypes
            want = {t.name: [d for d in order if d in t.dtypes_for(product)] for t in (*spec.inputs, *spec.outputs)}
        if not (spec.dtype_combos or dev.columns) or spec.family in ("index_accumulate", "gather_scatter"):
            arrays = [{}] * len(next(iter(want.values())))
        for kind, tensors in (("inputs", dev.inputs), ("outputs", dev.outputs)):
            registered = config[kind] if config else opdef[kind]
            if kind == "outputs" and spec.family == "index_accumulate":
                # the family's scratch output after the spec's: the software SyncAll's int32 counters, which the
                # launch zero-fills (InitValue 0)
                extra = registered[len(tensors) :]
                assert [t["name"] for t in extra] == ["syncCounters"]
                assert extra[0]["dtypes"] == ["DT_INT32"] * len(registered[0]["dtypes"])
                assert extra[0]["init_value"] == 0 and extra[0]["param_type"] == "REQUIRED"
                registered = registered[: len(tensors)]
            assert [t["name"] for t in registered] == [t.name for t in tensors]
            for reg, t in zip(registered, tensors):
                if t.dtype is not None:  # an int_array attr as a tensor, REQUIRED: the L0 API's dtype unless listed
                    column_dtypes = [a.get(t.name, t.dtype).ge_name for a in arrays]
                    assert (reg["dtypes"], reg["param_type"]) == (column_dtypes, "REQUIRED"), t.name
                    continue
                # a device input no aclnn tensor feeds is OPTIONAL with the op's one dtype list
                # a scalar attr carried as a tensor takes the dtypes of the tensor it is like
                # (mapped by its dtype_map: ops-nn's ForeachMulScalar registers a FLOAT scalar beside a BF16 x), and
                # is one REQUIRED tensor even beside a list
                aclnn = spec.inputs[0] if t.source is None else spec.tensor(t.like or t.source)
                column = [t.like_dtype(d) if t.like else d for d in want[aclnn.name]]
                assert reg["dtypes"] == [d.ge_name for d in column], (product_name, t.name)
                assert reg["formats"] == ["FORMAT_ND"] * len(want[aclnn.name])
                # an optional aclnn input the L2 API fills for a null one (fill: true) is REQUIRED
                kind = "OPTIONAL" if (aclnn.optional and not t.fill) or t.source is None else "REQUIRED"
                listed = aclnn.is_list and t.like is None
                assert reg["param_type"] == ("DYNAMIC" if listed else kind)  # a tensor list: ops-nn's foreach
                assert reg["auto_contiguous"] == t.auto_contiguous, (product_name, t.name)
        attrs = opdef["attrs"]
        assert [a["name"] for a in attrs] == [a.name for a in dev.attrs]
        for reg, a in zip(attrs, dev.attrs):
            assert reg["type"] == DEVICE_ATTR_KIND[a.type]
            assert reg["attr_type"] == a.attr_type
            want_default = list(a.default) if isinstance(a.default, tuple) else a.default
            if a.type == "float" and want_default is not None:  # a Float attr holds the fp32 value (1e-6 is not one)
                want_default = float(np.float32(want_default))
            assert reg["default"] == want_default


#: SoCs of the catalogue where ops-nn registers an OpType but the spec has no product: RmsNorm's aclnn API is
#: not offered on Atlas training products, aclnnLayerNorm not on Atlas inference products (their documents).
SOCS_NOT_TARGETED = {"RmsNorm": ["ascend910"], "LayerNormV4": ["ascend310p"]}
REGISTERED_OPS = sorted(op for op, s in SPECS.items() if s.op_type in RECORDED)


def test_every_recorded_entry_names_its_opdef_file_and_covers_the_specs() -> None:
    """Each record names the ops-nn OpDef file it was read from; every OpType a spec uses is recorded, but
    the ones the EmbeddingDenseBackward, IndexSelect, Embedding, Take, Gather, IndexFillTensor, ScatterAdd and
    IndexAdd specs define themselves (ops-nn's EmbeddingDense OpTypes take other inputs; its GatherV2 takes the
    axis as a tensor and, as its Embedding and GatherElements, is registered for Ascend950 only; its IndexFill
    takes the indices as given, where IndexFillSlices takes them sorted and distinct; its ScatterElementsV2
    updates its input in place with attrs reduction and include_self, where ScatterAddAlongDim writes out; its
    InplaceIndexAdd updates var in place, where IndexAddAlongDim writes out), and the foreach
    OpTypes whose ops-nn OpDef has columns the family's kernels do not compute (their specs' notes say so):
    INT8 and UINT8 lists (ForeachMulList; ForeachAddList and ForeachAddScalar on Ascend910B and Ascend910_93,
    INT16 ones too), on Ascend950 a FLOAT scalar beside a FLOAT16 list (ForeachMulScalar, ForeachAddScalar), and
    INT32 powers (ForeachPowScalar: ops-nn computes them by AscendC Power's int32_t form on Ascend910B-class
    products and by a SIMT loop of other negative-exponent results on Ascend950, where AscendC documents Power
    for half and float only; the family has one lowering on every product, so the spec lists floating lists
    only), and INT32 lists of three-list forms (ForeachAddcmulScalar: its list form ends in Axpy, which takes
    floating tiles only). The family computes INT32 and INT16 lists where its instruction takes int32_t and
    int16_t (ForeachMaximumScalar's OpDef is then ops-nn's)."""
    for name, entry in RECORDED.items():
        assert entry["source"].startswith("hicann/ops-nn ") and entry["source"].endswith("_def.cpp"), name
        assert sorted(s for group in entry["dtypes"] for s in group.split(",")) == sorted(entry["socs"]), name
    unrecorded = sorted(s.op_type for s in SPECS.values() if s.op_type not in RECORDED)
    assert unrecorded == [
        "EmbeddingDenseGradAccumulate",
        "EmbeddingRows",
        "ForeachAddList",
        "ForeachAddScalar",
        "ForeachAddcmulScalar",
        "ForeachMulList",
        "ForeachMulScalar",
        "ForeachPowScalar",
        "GatherAlongDim",
        "IndexAddAlongDim",
        "IndexFillSlices",
        "IndexSelectRows",
        "ScatterAddAlongDim",
        "TakeElements",
    ]
    assert RECORDED["HardtanhGrad"]["attrs"][0] == {
        "name": "min_val",
        "attr_type": "REQUIRED",
        "type": "float",
        "default": -1.0,
    }


def _assert_tensors_equal(registered: dict[str, Any], entry: dict[str, Any], table: dict[str, Any], where: str) -> None:
    """``registered`` (an OpDef or a SoC config of the compiled registry) has ``entry``'s inputs and outputs
    (names, order, ParamType), FORMAT_ND, the dtype columns of ``table`` and AutoContiguous on the tensors
    ``table`` lists."""
    for kind in ("inputs", "outputs"):
        got = [{"name": t["name"], "param": t["param_type"]} for t in registered[kind]]
        assert got == entry[kind], (where, kind)
        assert all(set(t["formats"]) == {"FORMAT_ND"} for t in registered[kind]), where
    tensors = (*registered["inputs"], *registered["outputs"])
    assert [t["name"] for t in tensors if t["auto_contiguous"]] == table["auto_contiguous"], where
    for t in tensors:
        assert t["dtypes"] == [f"DT_{d}" for d in table[t["name"]]], (where, t["name"])


@pytest.mark.parametrize("op", REGISTERED_OPS)
def test_opdef_equals_the_ops_nn_opdef(op: str, host_built_op: Callable[[str, str], OpCallable]) -> None:
    """The generated OpDef equals ops-nn's: attr names, AttrType, value types and values; on every SoC both
    register, input and output names, order and ParamType, formats, the dtype columns and AutoContiguous;
    where they share no SoC, the OpDef's own lists (what a SoC added without a config gets) equal those ops-nn
    registers. Every SoC of the catalogue ops-nn registers
    is a product of the spec, but :data:`SOCS_NOT_TARGETED`; the spec's other products are those where CANN's
    aclnn API runs another kernel than ops-nn's AscendC one."""
    spec = SPECS[op]
    entry = RECORDED[spec.op_type]
    ours = {CATALOGUE.get(p).config_name: p for p in spec.products}
    catalogue = {CATALOGUE.get(p).config_name for p in CATALOGUE.names}
    assert [s for s in entry["socs"] if s in catalogue and s not in ours] == SOCS_NOT_TARGETED.get(spec.op_type, [])
    shared = [s for s in entry["socs"] if s in ours]
    for soc in shared or entry["socs"]:
        opdef = host_built_op(op, ours[soc] if shared else spec.products[0]).opdef()
        table = next(t for socs, t in entry["dtypes"].items() if soc in socs.split(","))
        _assert_tensors_equal((opdef["configs"][soc] or opdef) if shared else opdef, entry, table, soc)
        got_attrs = [
            {"name": a["name"], "attr_type": a["attr_type"], "type": a["type"]}
            | ({} if a["default"] is None else {"default": a["default"]})
            for a in opdef["attrs"]
        ]
        assert got_attrs == entry["attrs"], soc


def test_the_avoided_embedding_op_types_are_recorded_and_named_in_the_doc() -> None:
    """The EmbeddingDenseBackward spec's OpType is none ops-nn registers: its document names the registered
    EmbeddingDense OpTypes it does not reuse, whose interfaces are recorded."""
    spec = SPECS["embedding_dense_backward"]
    assert spec.op_type not in RECORDED
    for name in ("EmbeddingDenseGrad", "EmbeddingDenseGradV2"):
        assert [a["name"] for a in RECORDED[name]["attrs"]] == ["num_weights", "padding_idx", "scale_grad_by_freq"]
    doc = (GENERATED / spec.folder / "docs" / f"{spec.aclnn_name}.md").read_text()
    assert spec.op_type in doc
    assert [name for name in RECORDED if name in doc] == ["EmbeddingDenseGrad", "EmbeddingDenseGradV2"]
