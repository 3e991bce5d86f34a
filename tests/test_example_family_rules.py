"""A spec's example call is held to the family's own phase-1 rules when the spec loads (the gather/scatter
family's dim range, index ranks and extents, fill positions: ``codegen.families.gather_scatter.call_rules``),
refused at the example's entry with the reason, nothing written; and those rules agree with what the generated
L2 API answers (phase 1 of the built op) on a grid of calls."""

from __future__ import annotations

import itertools
import math
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from codegen import registry
from codegen.paths import project_paths
from codegen.runner import OpCallable
from codegen.specs import load_project

CATALOGUE, SPECS = load_project()
ROOT = project_paths().root


def _opgen(tmp_path: Path, op: str, old: str, new: str) -> tuple[subprocess.CompletedProcess[str], Path, int]:
    """``opgen generate`` on a copy of the specs with ``old`` (once in ``op``'s spec) replaced by ``new``: the
    run, the spec's path and ``old``'s line."""
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "products.yaml").write_text((ROOT / "specs" / "products.yaml").read_text())
    text = (ROOT / "specs" / f"{op}.yaml").read_text()
    assert text.count(old) == 1
    line = text[: text.index(old)].count("\n") + 1
    path = specs / f"{op}.yaml"
    path.write_text(text.replace(old, new))
    run = subprocess.run(
        [sys.executable, "-m", "codegen", "--specs", str(specs), "generate", "--out", str(tmp_path / "generated")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    return run, path, line


TAIL = "; the example program would fail with status 161002 (ACLNN_ERR_PARAM_INVALID). "
TAIL += "Change the example's attrs or tensors"


@pytest.mark.parametrize(
    ("op", "old", "new", "field", "why"),
    [
        (
            "scatter_add",
            "attrs: {dim: 1}",
            "attrs: {dim: 5}",
            "example.attrs.dim",
            "dim 5 is outside [-2, 2) for a rank-2 source",
        ),
        (
            "scatter_add",
            "src: {shape: [2, 3], dtype: FLOAT, values: [10, 11, 12, 13, 14, 15]}",
            "src: {shape: [1, 3], dtype: FLOAT, values: [10, 11, 12]}",
            "example.inputs.index",
            "index's extent 2 of dim 0 exceeds src's or (outside dim) self's",
        ),
        (
            "index_add",
            "source: {shape: [3, 2], dtype: FLOAT, values: [1, 1, 2, 2, 3, 3]}",
            "source: {shape: [2, 2], dtype: FLOAT, values: [1, 1, 2, 2]}",
            "example.inputs.index",
            "index has 3 elements, source 2 along dim",
        ),
        (
            "gather",
            "index: {shape: [2, 2], dtype: INT64, values: [0, 2, 1, 0]}\n  attrs: {dim: 1}\n  output: {shape: [2, 2]",
            "index: {shape: [4, 1], dtype: INT64, values: [0, 2, 1, 0]}\n  attrs: {dim: 1}\n  output: {shape: [4, 1]",
            "example.inputs.index",
            "index's extent 4 of dim 0 exceeds self's 3",
        ),
        (
            "layer_norm_backward",
            "attrs: {normalizedShape: [3],",
            "attrs: {normalizedShape: [2],",
            "example.attrs.normalizedShape",
            "normalizedShape must equal the last 1 dims of gradOut, but element 0 is 2 (want 3)",
        ),
        (
            "layer_norm_backward",
            "mean: {shape: [2, 1], dtype: FLOAT, values: [2, 2]}",
            "mean: {shape: [3, 1], dtype: FLOAT, values: [2, 2, 2]}",
            "example.inputs.mean",
            "mean must have one element per row of gradOut (2), but has shape [3, 1]",
        ),
        (
            "rms_norm",
            "gamma: {shape: [8], dtype: FLOAT, values: [1, 0.5, 2, 1, 1, 1, 0.25, 3]}",
            "gamma: {shape: [9], dtype: FLOAT, values: [1, 0.5, 2, 1, 1, 1, 0.25, 3, 1]}",
            "example.inputs.gamma",
            "gamma must equal the last 1 dims of x, but dim 0 is 9 (want 8)",
        ),
        (
            "embedding_dense_backward",
            "indices: {shape: [2], dtype: INT64, values: [1, 2]}",
            "indices: {shape: [3], dtype: INT64, values: [1, 2, 3]}",
            "example.inputs.indices",
            "grad [2, 3] has 2 rows once its leading axes are flattened, but indices [3] has 3 elements; they must "
            "be equal",
        ),
        (
            "foreach_add_list_v2",
            "x2: {shape: [2, 2], dtype: FLOAT, values: [0.5, -2, 3, 0]}",
            "x2: {shape: [4], dtype: FLOAT, values: [0.5, -2, 3, 0]}",
            "example.inputs.x2",
            "x2[0] (shape [4]) must have the shape of x1[0] [2, 2]",
        ),
        (
            "index_fill_tensor",
            "attrs: {dim: 1, index: [0, 2], value: 0.0}",
            "attrs: {dim: 1, index: [0, 3], value: 0.0}",
            "example.attrs.index",
            "position 3 of index is outside [-3, 3), self's extent along dim",
        ),
    ],
)
def test_an_example_call_phase1_refuses_is_a_spec_error_and_nothing_is_written(
    tmp_path: Path, op: str, old: str, new: str, field: str, why: str
) -> None:
    run, path, _ = _opgen(tmp_path, op, old, new)
    assert run.returncode == 2, run.stdout + run.stderr
    lines = path.read_text().splitlines()
    # the example's entry of the tensor or attr at fault (an attr's: the attrs mapping's line)
    entry = "  attrs: {" if field.startswith("example.attrs.") else f"    {field.rsplit('.', 1)[1]}: {{"
    line = 1 + next(n for n in range(lines.index("example:"), len(lines)) if lines[n].startswith(entry))
    assert (
        run.stderr.splitlines()[0]
        == f"{path}:{line}: {field}: the example call breaks a rule phase 1 applies: {why}{TAIL}"
    )
    assert not (tmp_path / "generated").exists()


def _calls(op: str) -> Iterator[dict[str, Any]]:
    """A grid of calls of ``op`` on the tensors' first dtypes: shapes and attrs around every rule's edge, the
    output of the shape the spec's rule gives where it has one."""
    spec = next(s for s in SPECS.values() if s.op == op)
    c: Any = spec.compute
    f32 = np.float32
    if op == "ScatterAdd":
        shapes = [(3, 3), (2, 4), (3,), ()]
        indices = [(2, 3), (3, 4), (2,), (1, 1), (0, 3), (3, 3)]
        for s, i, r, d in itertools.product(shapes, indices, [(2, 3), (3, 3), (4, 4), (2,)], [-3, -2, -1, 0, 1, 2, 5]):
            yield {"self": np.zeros(s, f32), "index": np.zeros(i, np.int64), "src": np.zeros(r, f32), "dim": d}
    elif op == "IndexSelect":
        for s, i, d in itertools.product([(3, 3), (4,), ()], [(2,), ()], [-3, -2, -1, 0, 1, 2]):
            if not s and math.prod(i) != 1:
                continue  # the spec's constraint scalar_self_index refuses it (the loader checks constraints)
            yield {"self": np.zeros(s, f32), "index": np.zeros(i, np.int64), "dim": d}
    elif op == "IndexAdd":
        for s, i, src, d in itertools.product(
            [(3, 4), (4,), (), (0, 4)],
            [(2,), (), (0,), (2, 1)],
            [(2, 4), (3, 2), (2,), (), (0, 4), (2, 3)],
            [-3, -1, 0, 1, 2],
        ):
            if not s and len(src) > 1:
                continue  # CANN's checks pass a 0-d self beside a source of rank 2; the tiling refuses it (561103)
            yield {
                "self": np.zeros(s, f32),
                "index": np.zeros(i, np.int64),
                "source": np.zeros(src, f32),
                "dim": d,
                "alpha": 1.0,
            }
    elif op == "Gather":
        for s, i, d in itertools.product(
            [(3, 3), (3,), (2, 0)], [(2, 2), (2,), (4, 1), (0, 2), (2, 4)], [-3, -2, -1, 0, 1, 2]
        ):
            yield {"self": np.zeros(s, f32), "index": np.zeros(i, np.int64), "dim": d}
    elif op == "LayerNormBackward":
        rows = [(2, 1), (2,), (3, 1), (6, 1), (1, 2)]
        for x, ns, m, r, w in itertools.product(
            [(2, 3), (2, 3, 4)], [[3], [4], [3, 4], [2, 3], [0], [2, 3, 4]], rows, [(2, 1), (2,)], [None, (3,), (4,)]
        ):
            call = {"gradOut": np.zeros(x, f32), "input": np.zeros(x, f32), "normalizedShape": ns}
            call |= {"mean": np.zeros(m, f32), "rstd": np.zeros(r, f32)}
            yield call if w is None else call | {"weightOptional": np.ones(w, f32)}
    elif op == "RmsNorm":
        for x, g in itertools.product([(2, 8), (2, 3, 8), (8,)], [(8,), (9,), (3, 8), (2, 3, 8), (1, 8), (0,)]):
            yield {"x": np.zeros(x, f32), "gamma": np.ones(g, f32)}
    elif op == "EmbeddingDenseBackward":
        for g, i in itertools.product([(2, 3), (3, 3), (2, 2, 3), (4, 3)], [(2,), (3,), (2, 2), (4,), (1,)]):
            yield {
                "grad": np.zeros(g, f32),
                "indices": np.zeros(i, np.int64),
                "numWeights": 4,
                "paddingIdx": 0,
                "scaleGradByFreq": False,
            }
    elif op == "ForeachAddListV2":
        for a, b in itertools.product([(2, 2), (4,), (2, 3)], [(2, 2), (4,), (2, 3), (3, 2)]):
            yield {"x1": np.zeros(a, f32), "x2": np.zeros(b, f32), "alpha": 1.0}
    elif op == "ForeachAddcmulScalarV2":  # a third list: its tensor's shape against the first's as well
        for a, b, c3 in itertools.product([(2, 2), (4,)], [(2, 2), (4,), (2, 3)], [(2, 2), (4,), (3, 2)]):
            yield {"x1": np.zeros(a, f32), "x2": np.zeros(b, f32), "x3": np.zeros(c3, f32), "scalar": 1.0}
    elif op == "Softmax":
        for x, d in itertools.product([(2, 3), (4,), ()], [-3, -2, -1, 0, 1, 2]):
            yield {"self": np.zeros(x, f32), "dim": d}
    else:
        for s, d, p in itertools.product([(3, 3), (0, 3), ()], [-3, -2, -1, 0, 1, 2], [[0, 2], [-3], [3], [-4], []]):
            yield {"self": np.zeros(s, f32), "dim": d, c.index: p, c.value: 0.0}


@pytest.mark.parametrize("op", ["ScatterAdd", "IndexAdd", "IndexSelect", "Gather", "IndexFillTensor"])
def test_the_gather_scatter_rules_agree_with_the_generated_l2_api(
    op: str, built_op: Callable[[str, str], OpCallable]
) -> None:
    spec = next(s for s in SPECS.values() if s.op == op)
    fn = built_op(op, "Ascend910B")
    family = registry.family(spec.family)
    c: Any = spec.compute
    differ, refused = [], 0
    for params in _calls(op):
        shapes = {k: v.shape for k, v in params.items() if isinstance(v, np.ndarray)}
        attrs = {k: v for k, v in params.items() if not isinstance(v, np.ndarray)}
        try:
            out = (
                c.out_shape(shapes[c.source], shapes.get(c.index, ()), attrs[c.dim]) if not c.fill else shapes[c.source]
            )
        except ValueError:
            out = shapes[c.source]  # dim out of range: phase 1 refuses whatever the output
        if c.fill and math.prod(shapes[c.source]) == 0:
            out = shapes[c.source]
        problem = family.call_problem(c, shapes, attrs)
        status, _ = fn.phase1_status(**params, **{c.dest: np.zeros(out, np.float32)})
        refused += status != 0
        if (problem is None) != (status == 0):
            differ.append((shapes, attrs, problem, status))
    assert differ == []
    assert refused > 0


@pytest.mark.parametrize("op", ["LayerNormBackward", "RmsNorm", "Softmax"])
def test_the_row_reduce_rules_agree_with_the_generated_l2_api(
    op: str, built_op: Callable[[str, str], OpCallable]
) -> None:
    """The outputs are the ones the Python API allocates from the spec's shape rules."""
    spec = next(s for s in SPECS.values() if s.op == op)
    fn = built_op(op, "Ascend910B")
    family = registry.family(spec.family)
    differ, refused, calls = [], 0, 0
    for params in _calls(op):
        shapes = {k: v.shape for k, v in params.items() if isinstance(v, np.ndarray)}
        attrs = {k: v for k, v in params.items() if not isinstance(v, np.ndarray)}
        problem = family.call_problem(spec.compute, shapes, attrs)
        status, message = fn.phase1_status(**params)
        calls += 1
        refused += status != 0
        if (problem is None) != (status == 0):
            differ.append((shapes, attrs, problem, status, message))
    assert differ == []
    assert 0 < refused < calls


@pytest.mark.parametrize("op", ["EmbeddingDenseBackward", "ForeachAddListV2", "ForeachAddcmulScalarV2"])
def test_the_index_and_list_rules_agree_with_the_generated_l2_api(
    op: str, built_op: Callable[[str, str], OpCallable]
) -> None:
    """A foreach op's lists hold the one tensor of the example's inputs."""
    spec = next(s for s in SPECS.values() if s.op == op)
    fn = built_op(op, "Ascend910B")
    family = registry.family(spec.family)
    lists = {t.name for t in spec.inputs if t.is_list}
    differ, refused, calls = [], 0, 0
    for params in _calls(op):
        shapes = {k: v.shape for k, v in params.items() if isinstance(v, np.ndarray)}
        attrs = {k: v for k, v in params.items() if not isinstance(v, np.ndarray)}
        problem = family.call_problem(spec.compute, shapes, attrs)
        status, message = fn.phase1_status(**{k: [v] if k in lists else v for k, v in params.items()})
        calls += 1
        refused += status != 0
        if (problem is None) != (status == 0):
            differ.append((shapes, attrs, problem, status, message))
    assert differ == []
    assert 0 < refused < calls
