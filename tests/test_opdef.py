"""The generated OpDef registration, compiled and read back from the runtime's registry, equals the spec:
dtypes and formats of every input and output on every product, attribute names, types and defaults."""

from __future__ import annotations

import pytest

from codegen.runner import compile_op
from codegen.specs import load_project

CATALOGUE, SPECS = load_project()
ATTR_KIND = {"int64": "int", "uint64": "int", "bool": "bool", "double": "float", "float": "float"}


@pytest.mark.parametrize("op", sorted(SPECS))
def test_registered_opdef_matches_spec_on_every_product(op: str) -> None:
    spec = SPECS[op]
    for product_name in spec.products:
        product = CATALOGUE.get(product_name)
        opdef = compile_op(op, product_name).opdef()
        assert opdef["op_type"] == spec.op_type
        configs = opdef["configs"]
        assert sorted(configs) == sorted(CATALOGUE.get(p).config_name for p in spec.products)
        config = configs[product.config_name]
        want = {t.name: list(t.dtypes_for(product)) for t in (*spec.inputs, *spec.outputs)}
        if spec.family == "index_accumulate":  # the device op lists (rows, index) dtype pairs; its sums are FLOAT
            from codegen.plan.index_accumulate import device_opdef_dtypes

            want = device_opdef_dtypes(spec, [product])
        for kind, tensors in (("inputs", spec.inputs), ("outputs", spec.outputs)):
            registered = config[kind] if config else opdef[kind]
            assert [t["name"] for t in registered] == [t.name for t in tensors]
            for reg, t in zip(registered, tensors):
                assert reg["dtypes"] == [d.ge_name for d in want[t.name]], (product_name, t.name)
                assert reg["formats"] == ["FORMAT_ND"] * len(want[t.name])
                assert reg["param_type"] == ("OPTIONAL" if t.optional else "REQUIRED")
        attrs = opdef["attrs"]
        assert [a["name"] for a in attrs] == [a.name for a in spec.attrs]
        for reg, a in zip(attrs, spec.attrs):
            assert reg["type"] == ATTR_KIND[a.type]
            assert reg["attr_type"] == ("REQUIRED" if a.default is None else "OPTIONAL")
            assert reg["default"] == a.default
