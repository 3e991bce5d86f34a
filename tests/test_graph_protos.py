"""Every generated IR registration (``op_graph/<kernel>_proto.h``) of an OpType ops-nn registers equals
ops-nn's proto (tests/data/cann_graph_protos.yaml, read from hicann/ops-nn): the REG_OP entries in order,
each tensor's type argument as text (CANN keeps that text as the tensor's dtype symbol: ``INPUT(x, t)``
passes ``#t`` to ``Operator::InputRegister``), and each attr's type, requiredness and default (as the fp32,
int, bool or string value it gives). A spec whose OpDef-derived proto differs says so in its ``graph``
section; this test is what holds those sections to ops-nn."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import yaml

from codegen.specs import load_project

ROOT = Path(__file__).resolve().parents[1]
CANN = yaml.safe_load((ROOT / "tests" / "data" / "cann_graph_protos.yaml").read_text())
#: ops-nn writes DT_FLOAT32 in one stringified type argument (loss/mse_loss_grad); metadef's ge::DataType has
#: no such enumerator, and its FLOAT is DT_FLOAT: the generated proto writes DT_FLOAT there.
ALIASES = {"DT_FLOAT32": "DT_FLOAT"}


def reg_op_entries(text: str) -> tuple[str, list[str]]:
    """The OpType and the REG_OP chain entries of a proto header (comments dropped, white space runs as
    one space, the leading '.' dropped)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    m = re.search(r"REG_OP\((\w+)\)(.*?)\.OP_END_FACTORY_REG\(\1\)", text, flags=re.S)
    assert m, "no REG_OP ... OP_END_FACTORY_REG"
    body = "\n" + m.group(2).strip()
    return m.group(1), [re.sub(r"\s+", " ", e.strip()) for e in re.split(r"\n\s*\.", body) if e.strip()]


def _fp32(text: str) -> float:
    return float(np.float32(float(text.rstrip("fF"))))


def meaning(entry: str) -> tuple:
    """What an entry registers: (kind, name, type text) for tensors and DATATYPE, (kind, name, type, value)
    for attrs with the default as a value (fp32 for Float, so ``1e-6f`` and ``1e-06`` agree)."""
    m = re.fullmatch(r"(\w+)\((\w+), (.*)\)", entry)
    assert m, entry
    kind, name, rest = m.groups()
    if kind in ("INPUT", "OPTIONAL_INPUT", "OUTPUT", "DATATYPE"):
        for alias, real in ALIASES.items():
            rest = rest.replace(alias, real)
        return kind, name, re.sub(r"\s+", "", rest)
    if kind == "REQUIRED_ATTR":
        return kind, name, rest.strip()
    assert kind == "ATTR", entry
    attr_type, _, default = rest.partition(", ")
    value: object = default.strip()
    if attr_type == "Float":
        value = _fp32(default)
    elif attr_type == "ListFloat":
        value = tuple(_fp32(v) for v in default.strip("{} ").split(",") if v.strip())
    elif attr_type in ("Int", "ListInt", "ListBool", "Bool"):
        value = re.sub(r"\s+", "", default)
    return kind, name, attr_type, value


def _ordered(entries: list[str]) -> dict[str, list[tuple]]:
    """Entries grouped as REG_OP keeps them: inputs (required and optional, one list), outputs, DATATYPEs,
    attrs (required and optional, one list), each in chain order."""
    groups: dict[str, list[tuple]] = {"inputs": [], "outputs": [], "datatypes": [], "attrs": []}
    where = {"INPUT": "inputs", "OPTIONAL_INPUT": "inputs", "OUTPUT": "outputs", "DATATYPE": "datatypes"}
    for e in entries:
        m = meaning(e)
        groups[where.get(m[0], "attrs")].append(m)
    return groups


_, SPECS = load_project()
GENERATED = {reg_op_entries(p.read_text())[0]: p for p in sorted((ROOT / "generated").glob("*/*/op_graph/*_proto.h"))}


@pytest.mark.parametrize("op_type", sorted(CANN))
def test_the_generated_proto_equals_ops_nn(op_type: str) -> None:
    path = GENERATED.get(op_type)
    assert path is not None, f"{op_type}: ops-nn registers it and no generated proto does"
    _, ours = reg_op_entries(path.read_text())
    assert _ordered(ours) == _ordered(CANN[op_type]["entries"]), (
        f"{path.relative_to(ROOT)} vs {CANN[op_type]['source']}"
    )


def test_every_spec_graph_section_names_the_ops_nn_proto_it_mirrors() -> None:
    with_section = {s.op_type: s.graph.source for s in SPECS.values() if s.graph is not None}
    assert with_section, "no spec has a graph section"
    for op_type, source in with_section.items():
        assert op_type in CANN, f"{op_type}: a graph section, but ops-nn registers no proto for it"
        assert source == CANN[op_type]["source"], op_type


def test_the_comparison_sees_a_dtype_order_a_name_and_a_default() -> None:
    """The comparison is not blind to what it must catch: the text of a type argument (its dtype order is
    part of the symbol), a tensor name, and an attr default."""
    base = ["INPUT(x, TensorType({DT_FLOAT, DT_BF16}))", "ATTR(alpha, Float, 0.16666666)"]
    assert _ordered(base) == _ordered(["INPUT(x, TensorType({ DT_FLOAT,DT_BF16 }))", "ATTR(alpha, Float, 0.16666666f)"])
    assert _ordered(base) != _ordered(["INPUT(x, TensorType({DT_BF16, DT_FLOAT}))", base[1]])
    assert _ordered(base) != _ordered(["INPUT(y, TensorType({DT_FLOAT, DT_BF16}))", base[1]])
    assert _ordered(base) != _ordered([base[0], "ATTR(alpha, Float, 0.1666666716337204)"])
