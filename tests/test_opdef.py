"""The generated OpDef registration, compiled and read back from the runtime's registry.

* For every spec it equals the spec's device interface: names, param types, dtypes and formats of every
  input and output on every product, attribute names, types and defaults.
* For the seed ops it equals the interface ops-nn registers for the same OpType, recorded independently of
  the specs in ``tests/data/cann_registered_opdefs.yaml`` (names, order, param types, attr types and defaults
  on every product; the dtype lists on every SoC where ops-nn registers the op), or the op uses an OpType
  ops-nn does not register and its document says so.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import yaml

from codegen.runner import OpCallable
from codegen.specs import load_project

CATALOGUE, SPECS = load_project()
DEVICE_ATTR_KIND = {"int": "int", "bool": "bool", "float": "float", "string": "string", "list_int": "list_int"}
RECORDED = yaml.safe_load((Path(__file__).parent / "data" / "cann_registered_opdefs.yaml").read_text())
SEED_OPS = ("soft_margin_loss_backward", "embedding_dense_backward")
GENERATED = Path(__file__).resolve().parents[1] / "generated"


def _recorded_dtypes(entry: dict, config_name: str) -> dict[str, list[str]] | None:
    """The recorded dtype lists of ``entry`` on the SoC ``config_name`` (None: ops-nn does not register it)."""
    for socs, lists in entry["dtypes"].items():
        if config_name in socs.split(","):
            return {name: [f"DT_{d}" for d in dts] for name, dts in lists.items()}
    return None


@pytest.mark.parametrize("op", sorted(SPECS))
def test_registered_opdef_matches_spec_on_every_product(op: str, built_op: Callable[[str, str], OpCallable]) -> None:
    spec = SPECS[op]
    dev = spec.device_interface
    for product_name in spec.products:
        product = CATALOGUE.get(product_name)
        opdef = built_op(op, product_name).opdef()
        assert opdef["op_type"] == spec.op_type
        configs = opdef["configs"]
        assert sorted(configs) == sorted(CATALOGUE.get(p).config_name for p in spec.products)
        config = configs[product.config_name]
        if spec.family == "index_accumulate":  # the device op lists (rows, index) dtype pairs; its sums are FLOAT
            from codegen.families.index_accumulate.plan.opdef import device_opdef_dtypes

            want = device_opdef_dtypes(spec, [product])
        elif spec.dtype_combos:  # one column per dtype combination the product takes (the doc's dtype table)
            want = {
                t.name: [c.dtype(t.name) for c in spec.dtype_combos if c.allowed_on(product)]
                for t in (*spec.inputs, *spec.outputs)
            }
        else:
            order = dev.dtypes or spec.inputs[0].dtypes
            want = {
                t.name: [d for d in order if d in t.dtypes and product.supports(d)]
                for t in (*spec.inputs, *spec.outputs)
            }
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
                # a device input no aclnn tensor feeds is OPTIONAL with the op's one dtype list
                aclnn = spec.inputs[0] if t.source is None else spec.tensor(t.source)
                assert reg["dtypes"] == [d.ge_name for d in want[aclnn.name]], (product_name, t.name)
                assert reg["formats"] == ["FORMAT_ND"] * len(want[aclnn.name])
                assert reg["param_type"] == ("OPTIONAL" if aclnn.optional or t.source is None else "REQUIRED")
        attrs = opdef["attrs"]
        assert [a["name"] for a in attrs] == [a.name for a in dev.attrs]
        for reg, a in zip(attrs, dev.attrs):
            assert reg["type"] == DEVICE_ATTR_KIND[a.type]
            assert reg["attr_type"] == ("REQUIRED" if a.default is None else "OPTIONAL")
            want_default = list(a.default) if isinstance(a.default, tuple) else a.default
            if a.type == "float" and want_default is not None:  # a Float attr holds the fp32 value (1e-6 is not one)
                want_default = float(np.float32(want_default))
            assert reg["default"] == want_default


def test_recorded_interfaces_cover_the_seed_op_types() -> None:
    """The record holds what the comparison below needs: SoftMarginLossGrad as ops-nn registers it, and the
    EmbeddingDense OpTypes CANN registers (which the generated op must not reuse)."""
    assert RECORDED["SoftMarginLossGrad"]["attrs"] == [
        {"name": "reduction", "attr_type": "OPTIONAL", "type": "string", "default": "mean"}
    ]
    assert [t["name"] for t in RECORDED["SoftMarginLossGrad"]["inputs"]] == ["predict", "label", "dout"]
    for name in ("EmbeddingDenseGrad", "EmbeddingDenseGradV2"):
        assert [a["name"] for a in RECORDED[name]["attrs"]] == ["num_weights", "padding_idx", "scale_grad_by_freq"]


@pytest.mark.parametrize("op", SEED_OPS)
def test_seed_opdef_equals_cann_registration_on_every_product(
    op: str, built_op: Callable[[str, str], OpCallable]
) -> None:
    """A seed op whose OpType ops-nn registers declares exactly that interface on every product (and the
    recorded dtype lists on each SoC ops-nn registers it for); one whose interface differs uses an OpType
    ops-nn does not register, and its generated document says which registered OpTypes it avoids."""
    spec = SPECS[op]
    entry = RECORDED.get(spec.op_type)
    if entry is None:
        doc = (GENERATED / spec.folder / "docs" / f"{spec.aclnn_name}.md").read_text()
        assert spec.op_type in doc
        avoided = [name for name in RECORDED if name in doc]
        assert avoided, f"{spec.aclnn_name}.md does not say which registered OpType {spec.op_type} replaces"
        return
    for product_name in spec.products:
        product = CATALOGUE.get(product_name)
        opdef = built_op(op, product_name).opdef()
        assert opdef["op_type"] == spec.op_type
        config = opdef["configs"][product.config_name] or opdef
        for kind in ("inputs", "outputs"):
            got = [{"name": t["name"], "param": t["param_type"]} for t in config[kind]]
            assert got == entry[kind], (product_name, kind)
            assert all(set(t["formats"]) == {"FORMAT_ND"} for t in config[kind])
        got_attrs = [
            {"name": a["name"], "attr_type": a["attr_type"], "type": a["type"]}
            | ({"default": a["default"]} if a["attr_type"] == "OPTIONAL" else {})
            for a in opdef["attrs"]
        ]
        assert got_attrs == entry["attrs"], product_name
        recorded = _recorded_dtypes(entry, product.config_name)
        if recorded is not None:
            got_dtypes = {t["name"]: t["dtypes"] for t in (*config["inputs"], *config["outputs"])}
            assert got_dtypes == recorded, product_name
