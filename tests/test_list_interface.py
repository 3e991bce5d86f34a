"""A tensor list in the device interface every family shares: the OpDef registers it ``ParamType(DYNAMIC)``,
the IR registration ``DYNAMIC_INPUT`` / ``DYNAMIC_OUTPUT`` and the binary config a one-entry list with
``paramType: dynamic``, as ops-nn's foreach ops do (foreach/foreach_add_scalar: ``foreach_add_scalar_def.cpp``,
``op_graph/foreach_add_scalar_proto.h``, ``op_host/config/ascend910b/foreach_add_scalar_binary.json``).
No family takes a list, so the spec here is a project spec whose ``self`` and ``out`` are made lists; the
rendered proto and OpDef compile against runtime/include (the emulated metadef headers)."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
from pathlib import Path

from codegen.paths import project_paths
from codegen.render import render_op
from codegen.specs import load_project

ROOT = Path(__file__).resolve().parents[1]


def test_list_tensors_are_dynamic_in_opdef_proto_and_binary_config(tmp_path: Path) -> None:
    catalogue, specs = load_project()
    spec = specs["soft_margin_loss_backward"]  # device op SoftMarginLossGrad: predict <- self, gradient <- out

    def listed(tensors: tuple) -> tuple:  # type: ignore[type-arg]
        return tuple(dataclasses.replace(t, is_list=t.name in ("self", "out")) for t in tensors)

    spec = dataclasses.replace(spec, inputs=listed(spec.inputs), outputs=listed(spec.outputs))
    files = render_op(spec, catalogue, project_paths()).files
    opdef = files["op_host/soft_margin_loss_grad_def.cpp"]
    proto = files["op_graph/soft_margin_loss_grad_proto.h"]
    # every registration of predict and gradient (the default and each SoC config) is DYNAMIC, the others not
    registered: dict[str, set[str]] = {}  # every registration of a tensor: the default and each SoC config
    for name, kind in re.findall(r'(?:Input|Output)\("(\w+)"\)\s*\.ParamType\((\w+)\)', opdef):
        registered.setdefault(name, set()).add(kind)
    assert registered == {"predict": {"DYNAMIC"}, "label": {"REQUIRED"}, "dout": {"REQUIRED"}, "gradient": {"DYNAMIC"}}
    assert ".DYNAMIC_INPUT(predict, TensorType({DT_FLOAT16, DT_FLOAT, DT_BF16}))" in proto
    assert ".INPUT(label, " in proto and ".DYNAMIC_OUTPUT(gradient, " in proto
    assert "@li predict: A list of tensors of DT_FLOAT16, DT_FLOAT, DT_BF16." in proto
    config = json.loads(files["op_host/config/ascend910b/soft_margin_loss_grad_binary.json"])
    first = config["op_list"][0]
    assert [type(e).__name__ for e in first["inputs"]] == ["list", "dict", "dict"]
    assert first["inputs"][0] == [
        {"name": "predict", "index": 0, "dtype": "float16", "format": "ND", "paramType": "dynamic", "shape": [-2]}
    ]
    assert first["inputs"][1]["paramType"] == "required"
    assert first["outputs"] == [
        [{"name": "gradient", "index": 0, "dtype": "float16", "format": "ND", "paramType": "dynamic", "shape": [-2]}]
    ]
    assert first["bin_filename"] == "SoftMarginLossGrad_float16"
    (tmp_path / "proto.h").write_text(proto)
    (tmp_path / "def.cpp").write_text(opdef)
    for unit in ("proto.h", "def.cpp"):
        done = subprocess.run(
            [
                "g++",
                "-std=c++17",
                "-fsyntax-only",
                "-x",
                "c++",
                f"-I{ROOT / 'runtime' / 'include'}",
                str(tmp_path / unit),
            ],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
