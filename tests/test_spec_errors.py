"""Spec mistakes and the exact errors they produce: ``file:line: field.path: what is wrong; what is allowed``.

Each test writes a small spec (the valid ``BASE`` with one edit) and compares every reported error
verbatim, so a change of wording or of a line number shows up here.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from codegen.families.elementwise.compute import ElementwiseCompute
from codegen.paths import project_paths
from codegen.spec.errors import SourceLoc, SpecError, SpecErrors, error_context
from codegen.spec.loader import load_catalogue, load_op_spec, load_specs
from codegen.spec.model import Catalogue
from codegen.specs import load_project
from codegen.types import GRAPH_DATA_TYPES

DTYPES = "BF16, BOOL, DOUBLE, FLOAT, FLOAT16, INT16, INT32, INT64, INT8, UINT16, UINT32, UINT64, UINT8"
PRODUCT_NAMES = "Ascend310P, Ascend910, Ascend910B"

# A small catalogue of its own, so that the messages below do not change when specs/products.yaml does.
CATALOGUE = """\
products:
  - name: Ascend910
    doc_term: Atlas training series products
    config_name: ascend910
    soc_version: ASCEND910
    npu_arch: 1001
    ub_bytes: 262144
    vector_core_num: 32
    bf16: false
    data_copy_pad: false
    atomic_add_dtypes: [FLOAT]
    queue_buffer_cap: 4
    source: test
    hw_sync_all: false
    sys_workspace_bytes: 2097152
  - name: Ascend910B
    doc_term: Atlas A2 training series products
    config_name: ascend910b
    soc_version: ASCEND910B
    npu_arch: 2201
    ub_bytes: 196608
    vector_core_num: 48
    bf16: true
    data_copy_pad: true
    atomic_add_dtypes: [INT8, INT16, FLOAT16, BF16, INT32, FLOAT]
    queue_buffer_cap: 8
    source: test
    hw_sync_all: true
    sys_workspace_bytes: 16777216
  - name: Ascend310P
    doc_term: Atlas inference series products
    config_name: ascend310p
    soc_version: ASCEND310P
    npu_arch: 2002
    ub_bytes: 262144
    vector_core_num: 8
    bf16: false
    data_copy_pad: false
    atomic_add_dtypes: [INT16, FLOAT16, FLOAT]
    queue_buffer_cap: 8
    source: test
    hw_sync_all: false
    sys_workspace_bytes: 2097152
op_categories: [activation, loss]
"""
ALLOWED_SYNTAX = (
    "numbers, True/False, names, unary - + not, binary + - * / // %, comparisons == != < <= > >=, "
    "and, or, 'x if cond else y', calls f(a, b) of the context's functions"
)

# Line numbers matter: the tests below cite them.
BASE = """\
op: SoftMarginLossBackward
op_type: SoftMarginLossGrad
kernel: soft_margin_loss_grad
family: elementwise
summary: Backward of the soft margin loss.
products: [Ascend910, Ascend910B]
deterministic: true
inputs:
  - name: gradOutput
    dtypes: [FLOAT, FLOAT16, BF16]
    rank: [0, 8]
    description: Gradient of the loss.
  - name: self
    dtypes: [FLOAT, FLOAT16, BF16]
    rank: [0, 8]
    description: The input x.
  - name: target
    dtypes: [FLOAT, FLOAT16, BF16]
    rank: [0, 8]
    description: The target y.
attrs:
  - name: reduction
    type: int64
    values: {0: none, 1: mean, 2: sum}
    description: Reduction of the forward loss.
outputs:
  - name: out
    dtypes: [FLOAT, FLOAT16, BF16]
    rank: [0, 8]
    shape: "broadcast(gradOutput, self, target)"
    description: Gradient with respect to self.
compute:
  promote: [gradOutput, self, target]
  scalars:
    norm: "1 / numel(out) if reduction == 1 else 1"
  out: "-target * gradOutput * sigmoid(-target * self) * norm"
tiling:
  buffer_num: 2
  ub_reserved_bytes: 0
  min_bytes_per_core: 32768
category: loss
"""

STEM = "soft_margin_loss_backward.yaml"
EXTRA_INPUT = "  - name: {name}\n    dtypes: [FLOAT, FLOAT16, BF16]\n    rank: [0, 8]\n    description: Extra.\n"


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory: pytest.TempPathFactory) -> Catalogue:
    path = tmp_path_factory.mktemp("catalogue") / "products.yaml"
    path.write_text(CATALOGUE)
    return load_catalogue(path)


def edit(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"edit target not unique: {old!r}"
    return text.replace(old, new)


def errors_of(path: Path, text: str, catalogue: Catalogue) -> list[str]:
    path.write_text(text)
    with pytest.raises(SpecErrors) as info:
        load_op_spec(path, catalogue)
    assert all(isinstance(e, SpecError) for e in info.value.errors)
    return [str(e) for e in info.value.errors]


def bad(tmp_path: Path, catalogue: Catalogue, *edits: tuple[str, str]) -> tuple[str, list[str]]:
    """Applies the edits to BASE, loads the result, returns (path, error strings)."""
    text = BASE
    for old, new in edits:
        text = edit(text, old, new)
    path = tmp_path / STEM
    return str(path), errors_of(path, text, catalogue)


def test_base_spec_is_valid(tmp_path: Path, catalogue: Catalogue) -> None:
    path = tmp_path / STEM
    path.write_text(BASE)
    spec = load_op_spec(path, catalogue)
    assert spec.op == "SoftMarginLossBackward"
    assert isinstance(spec.compute, ElementwiseCompute)


# ------------------------------------------------------------------------------ one mistake per test


def test_unknown_key(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(tmp_path, catalogue, ("  - name: self\n    dtypes:", "  - name: self\n    dtype:"))
    # one typo, one error: the unknown key names the missing key it misspells (no "missing required key", and
    # no follow-on error of the tensor's unread dtypes)
    assert errs == [
        f"{f}:14: inputs[1].dtype: unknown key 'dtype' (did you mean 'dtypes'?); allowed: default, description, "
        "dtypes, formats, header_name, list, name, optional, product_dtypes, rank",
    ]


@pytest.mark.parametrize(
    "op", ["layer_norm_backward", "scatter_add", "foreach_add_list_v2", "softmax", "take", "embedding_dense_backward"]
)
@pytest.mark.parametrize(("key", "typo"), [("dtypes", "dtpyes"), ("rank", "rnak"), ("shape", "shpae")])
def test_a_misspelt_tensor_key_is_one_error_whichever_tensor_it_is(
    tmp_path: Path, op: str, key: str, typo: str
) -> None:
    """A misspelt ``dtypes``, ``rank`` or ``shape`` key on any tensor: one error, at the misspelt key, naming the
    key it misspells; no "missing required key", and no follow-on error of a rule reading what was not read
    (the family's compute on dtypes, ranks and shape rules; a device dtype_map; the one-dtype columns; the graph
    section; the example)."""
    text = (project_paths().specs / f"{op}.yaml").read_text()
    sites = [m.start() + 1 for m in re.finditer(rf"\n    {key}:", text)]
    assert sites
    for at in sites:
        line = text[:at].count("\n") + 1
        path = tmp_path / f"{op}.yaml"
        errs = errors_of(path, text[:at] + f"    {typo}:" + text[at + len(f"    {key}:") :], load_project()[0])
        assert len(errs) == 1, errs
        assert errs[0].startswith(f"{path}:{line}: "), errs
        assert f".{typo}: unknown key '{typo}' (did you mean '{key}'?); allowed: " in errs[0]


def test_unknown_output_key(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(tmp_path, catalogue, ("  - name: out\n", "  - name: out\n    nulable: true\n"))
    assert errs == [
        f"{f}:28: outputs[0].nulable: unknown key 'nulable' (did you mean 'nullable'?); allowed: const, description, "
        "dtypes, formats, "
        "header_name, list, name, nullable, product_dtypes, rank, shape",
    ]


def test_tensor_list_needs_a_family_that_takes_lists(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(
        tmp_path, catalogue, ("    description: The target y.\n", "    description: The target y.\n    list: true\n")
    )
    assert errs == [
        f"{f}:21: inputs[2].list: 'elementwise' takes no tensor list (an aclTensorList); the foreach family only does"
    ]


def test_optional_input_defaults(tmp_path: Path, catalogue: Catalogue) -> None:
    weight = "  - {name: weight, dtypes: [FLOAT, FLOAT16, BF16], rank: [0, 8], description: W., optional: true}\n"
    f, errs = bad(
        tmp_path,
        catalogue,
        ("    description: The target y.\n", "    description: The target y.\n    default: 1\n" + weight),
        ('shape: "broadcast(gradOutput, self, target)"', "shape: weight"),
    )
    assert errs == [
        f"{f}:21: inputs[2].default: a default is only allowed on an optional input (optional: true)",
        f"{f}:22: inputs[3].default: optional input 'weight' needs a default: the value the formula uses when "
        "it is null",
        f"{f}:29: outputs[0].shape: 'weight' is optional; an output shape may only name a required input",
    ]


def test_unknown_top_level_key(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(tmp_path, catalogue, ("deterministic: true\n", "deterministic: true\nbackend: cuda\n"))
    assert errs == [
        f"{f}:8: backend: unknown key 'backend'; allowed: attrs, category, compute, const_stream, constraints, "
        "deterministic, deterministic_gm_atomics, device, dtype_combos, example, family, graph, inputs, "
        "kernel, notes, op, op_type, outputs, phase2_header_names, products, promote_type, shape_status, signature, "
        "summary, tiling"
    ]


def test_promote_type_is_input_or_out_and_out_only_where_the_family_honours_it(
    tmp_path: Path, catalogue: Catalogue
) -> None:
    """``promote_type`` takes ``input`` or ``out``; ``out`` (the inputs cast to out's dtype before the device
    op) is a row_reduce rule, an error in an elementwise spec."""
    path = tmp_path / STEM
    path.write_text(BASE)
    assert load_op_spec(path, catalogue).promote_type == "input"  # the default
    f, errs = bad(tmp_path, catalogue, ("deterministic: true\n", "deterministic: true\npromote_type: half\n"))
    assert errs == [f"{f}:8: promote_type: unknown promote_type 'half'; allowed: input, out"]
    f, errs = bad(tmp_path, catalogue, ("deterministic: true\n", "deterministic: true\npromote_type: out\n"))
    assert errs == [
        f"{f}:8: promote_type: promote_type: out is supported by the row_reduce family only, not 'elementwise'"
    ]


def test_header_names_are_c_identifiers_other_than_the_spec_name(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(
        tmp_path,
        catalogue,
        ("    description: The input x.\n", "    description: The input x.\n    header_name: self\n"),
        ("    description: The target y.\n", "    description: The target y.\n    header_name: 2target\n"),
        ("    type: int64\n", "    type: int64\n    header_name: out\n"),
        ("deterministic: true\n", "deterministic: true\nphase2_header_names: {workspaceSize: workspace, stream: s}\n"),
    )
    assert errs == [
        f"{f}:8: phase2_header_names.workspaceSize: 'workspace' is already the name of another phase-2 parameter",
        f"{f}:18: inputs[1].header_name: header_name 'self' is the parameter's name; leave header_name out",
        f"{f}:23: inputs[2].header_name: header_name must be a C identifier and not a C++ keyword",
        f"{f}:25: reduction.header_name: 'out' is also the header name of parameter 'out'",
    ]


def test_header_names_rename_the_header_only(tmp_path: Path, catalogue: Catalogue) -> None:
    path = tmp_path / STEM
    text = edit(BASE, "    type: int64\n", "    type: int64\n    header_name: lambda\n")
    path.write_text(edit(text, "deterministic: true\n", "deterministic: true\nphase2_header_names: {stream: s}\n"))
    spec = load_op_spec(path, catalogue)
    assert (spec.attrs[0].name, spec.attrs[0].c_name, spec.outputs[0].c_name) == ("reduction", "lambda", "out")
    assert spec.phase2_header_names == ("workspace", "workspaceSize", "executor", "s")


def test_const_by_value_params_reach_the_header(tmp_path: Path, catalogue: Catalogue) -> None:
    """``const: true`` on a by-value attr and ``const_stream: true`` declare them ``const`` as CANN's header
    does; ``const`` is a boolean, and an error on a pointer attr (an aclScalar or ``char *``), whose
    declaration CANN fixes."""
    from codegen.plan.signature import signature
    from codegen.plan.views import OpView

    path = tmp_path / STEM
    text = edit(BASE, "    type: int64\n", "    type: int64\n    const: true\n")
    path.write_text(edit(text, "deterministic: true\n", "deterministic: true\nconst_stream: true\n"))
    spec = load_op_spec(path, catalogue)
    assert [p.header_decl for p in signature(spec)][3] == "const int64_t reduction"
    assert OpView.of(spec).phase2_decl.endswith(", const aclrtStream stream")
    path.write_text(BASE)
    spec = load_op_spec(path, catalogue)
    assert [p.header_decl for p in signature(spec)][3] == "int64_t reduction"
    assert OpView.of(spec).phase2_decl.endswith(", aclrtStream stream")
    f, errs = bad(
        tmp_path,
        catalogue,
        ("    type: int64\n", "    type: int64\n    const: 1\n"),
        ("deterministic: true\n", "deterministic: true\nconst_stream: yes\n"),
    )
    assert errs == [
        f"{f}:8: const_stream: expected true or false, got string 'yes'",
        f"{f}:25: attrs[0].const: expected true or false, got integer 1",
    ]
    f, errs = bad(
        tmp_path,
        catalogue,
        ("    type: int64\n    values: {0: none, 1: mean, 2: sum}\n", "    type: scalar\n    const: true\n"),
        ('  out: "-target * gradOutput * sigmoid(-target * self) * norm"', '  out: "-target * gradOutput"'),
        ('    norm: "1 / numel(out) if reduction == 1 else 1"', '    norm: "reduction"'),
    )
    assert errs == [
        f"{f}:24: attrs[0].const: const is only for a by-value attr; a scalar attr is a 'const aclScalar *' as "
        "CANN declares it"
    ]


def test_deterministic_gm_atomics_must_be_a_boolean(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(
        tmp_path, catalogue, ("deterministic: true\n", "deterministic: true\ndeterministic_gm_atomics: no-atomics\n")
    )
    assert errs == [f"{f}:8: deterministic_gm_atomics: expected true or false, got string 'no-atomics'"]


def test_duplicate_key(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(
        tmp_path,
        catalogue,
        ("    description: The input x.\n", "    description: The input x.\n    rank: [1, 8]\n"),
    )
    assert errs == [f"{f}:17: inputs[1].rank: duplicate key 'rank' (first at line 15)"]


def test_duplicate_top_level_key(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(tmp_path, catalogue, ("deterministic: true\n", "deterministic: true\nkernel: other\n"))
    assert errs == [f"{f}:8: kernel: duplicate key 'kernel' (first at line 3)"]


def test_unknown_dtype(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(
        tmp_path,
        catalogue,
        (
            "dtypes: [FLOAT, FLOAT16, BF16]\n    rank: [0, 8]\n    description: Gradient of the loss.",
            "dtypes: [FLOAT, FLOAT32, BF16]\n    rank: [0, 8]\n    description: Gradient of the loss.",
        ),
    )
    assert errs == [f"{f}:10: inputs[0].dtypes[1]: unknown dtype 'FLOAT32'; allowed: {DTYPES}"]


def test_empty_and_duplicate_dtypes(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(
        tmp_path,
        catalogue,
        (
            "dtypes: [FLOAT, FLOAT16, BF16]\n    rank: [0, 8]\n    description: The input x.",
            "dtypes: []\n    rank: [0, 8]\n    description: The input x.",
        ),
        (
            "dtypes: [FLOAT, FLOAT16, BF16]\n    rank: [0, 8]\n    description: The target y.",
            "dtypes: [FLOAT, FLOAT]\n    rank: [0, 8]\n    description: The target y.",
        ),
    )
    assert errs == [
        f"{f}:14: inputs[1].dtypes: empty dtype list; give at least one of: {DTYPES}",
        f"{f}:18: inputs[2].dtypes[1]: duplicate dtype 'FLOAT' (already in this list)",
    ]


SCALAR_ATTR = "  - name: margin\n    type: scalar\n    dtypes: []\n    description: A margin.\n"


def test_a_scalar_attr_with_an_empty_dtype_list_is_an_error_and_writes_nothing(
    tmp_path: Path, catalogue: Catalogue
) -> None:
    attr_end = "    description: Reduction of the forward loss.\n"
    f, errs = bad(tmp_path, catalogue, (attr_end, attr_end + SCALAR_ATTR))
    assert errs == [
        f"{f}:28: attrs[1].dtypes: empty dtype list; give at least one of: FLOAT, FLOAT16, INT8, INT32, UINT8, "
        "INT16, UINT16, UINT32, INT64, UINT64, DOUBLE, BOOL, BF16"
    ]
    # through the command line: one error, nothing written
    specs, out = tmp_path / "specs", tmp_path / "out"
    specs.mkdir()
    out.mkdir()
    (specs / STEM).write_text(edit(BASE, attr_end, attr_end + SCALAR_ATTR))
    (specs / "products.yaml").write_text(CATALOGUE)
    proc = subprocess.run(
        [sys.executable, "-m", "codegen", "--specs", str(specs), "generate", "--out", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert f"{specs / STEM}:28: attrs[1].dtypes: empty dtype list" in proc.stderr
    assert list(out.iterdir()) == []


def test_wrong_type(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(
        tmp_path, catalogue, ("deterministic: true", "deterministic: yes"), ("  buffer_num: 2", "  buffer_num: two")
    )
    assert errs == [
        f"{f}:7: deterministic: expected true or false, got string 'yes'",
        f"{f}:38: tiling.buffer_num: expected an integer, got string 'two'",
    ]


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("2weight", "'2weight' is not a valid C identifier (ASCII letters, digits and '_', not starting with a digit)"),
        ("grad-in", "'grad-in' is not a valid C identifier (ASCII letters, digits and '_', not starting with a digit)"),
        ("class", "'class' is a C++ keyword; choose another name"),
        ("xor", "'xor' is a C++ keyword; choose another name"),
        ("lambda", "'lambda' is a Python keyword and could not be written in expressions; choose another name"),
        (
            "_Weight",
            "'_Weight' is reserved in C++ (names starting with '__' or '_' and a capital); choose another name",
        ),
        ("workspaceSize", "'workspaceSize' is reserved (a parameter of the aclnn two-phase API); choose another name"),
        ("coreNum", "'coreNum' is reserved (a platform value in expressions); choose another name"),
        ("INT64", "'INT64' is reserved (a dtype name in expressions); choose another name"),
        ("half", "'half' is reserved (a type name in generated C++); choose another name"),
    ],
)
def test_bad_identifiers(tmp_path: Path, catalogue: Catalogue, name: str, message: str) -> None:
    f, errs = bad(tmp_path, catalogue, ("attrs:\n", EXTRA_INPUT.format(name=name) + "attrs:\n"))
    assert errs == [f"{f}:21: inputs[3].name: {message}"]


def test_self_is_a_fine_name(tmp_path: Path, catalogue: Catalogue) -> None:
    path = tmp_path / STEM
    path.write_text(BASE)
    assert load_op_spec(path, catalogue).input_names == ("gradOutput", "self", "target")


def test_duplicate_tensor_and_attr_names(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(
        tmp_path,
        catalogue,
        ("attrs:\n", EXTRA_INPUT.format(name="out") + EXTRA_INPUT.format(name="reduction") + "attrs:\n"),
    )
    assert errs == [
        f"{f}:30: attrs[0].name: duplicate name 'reduction' (already used by inputs[4].name at line 25); "
        "names must be unique",
        f"{f}:35: outputs[0].name: duplicate name 'out' (already used by inputs[3].name at line 21); "
        "names must be unique",
    ]


def test_op_kernel_and_file_names(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(
        tmp_path,
        catalogue,
        ("op_type: SoftMarginLossGrad", "op_type: soft_margin_loss_grad"),
        ("kernel: soft_margin_loss_grad", "kernel: SoftMarginLossGrad"),
    )
    assert errs == [
        f"{f}:2: op_type: 'soft_margin_loss_grad' is not UpperCamelCase "
        "(ASCII letters and digits, starting with a capital, e.g. SoftMarginLossGrad)",
        f"{f}:3: kernel: 'SoftMarginLossGrad' is not snake_case "
        "(lower-case letters, digits and single '_', e.g. soft_margin_loss_grad)",
    ]
    path = tmp_path / "soft_margin_loss_grad.yaml"
    assert errors_of(path, BASE, catalogue) == [
        f"{path}:1: op: file name 'soft_margin_loss_grad.yaml' does not match op 'SoftMarginLossBackward'; "
        "expected 'soft_margin_loss_backward.yaml'"
    ]


def test_unknown_product(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(
        tmp_path, catalogue, ("products: [Ascend910, Ascend910B]", "products: [Ascend910, Ascend910C, Ascend910]")
    )
    assert errs == [
        f"{f}:6: products[1]: unknown product 'Ascend910C'; allowed: {PRODUCT_NAMES}",
        f"{f}:6: products[2]: duplicate product 'Ascend910'",
    ]


def test_a_product_with_none_of_an_inputs_dtypes(tmp_path: Path, catalogue: Catalogue) -> None:
    # BF16 only, on Ascend910 (no bf16): no kernel could be built there; said once, at products, and not
    # as an example dtype "every product has" from an empty list
    bf16 = "    dtypes: [FLOAT, FLOAT16, BF16]\n    rank: [0, 8]\n    description: Gradient of the loss."
    f, errs = bad(tmp_path, catalogue, (bf16, bf16.replace("FLOAT, FLOAT16, BF16", "BF16")))
    message = (
        f"{f}:6: products: Ascend910 has none of the dtypes of input 'gradOutput' (BF16: the product has no BF16), "
        "so no kernel can be built there; add a dtype it has or drop the product"
    )
    assert message in errs
    assert not any("use a dtype every product has" in e for e in errs), errs


def test_unknown_family(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(tmp_path, catalogue, ("family: elementwise", "family: reduce"))
    assert errs == [
        f"{f}:4: family: unknown family 'reduce'; allowed: elementwise, foreach, gather_scatter, index_accumulate, "
        "row_reduce"
    ]


@pytest.mark.parametrize(
    ("rank", "message"),
    [
        ("[3, 2]", "rank range [3, 2] is invalid; need 0 <= lo <= hi <= 8"),
        ("[0, 9]", "rank range [0, 9] is invalid; need 0 <= lo <= hi <= 8"),
        ("[-1, 2]", "rank range [-1, 2] is invalid; need 0 <= lo <= hi <= 8"),
        ("[1, 2, 3]", "expected [lo, hi] (two integers), got a list of 3"),
        ("4", "expected a list, got integer 4"),
    ],
)
def test_bad_rank_range(tmp_path: Path, catalogue: Catalogue, rank: str, message: str) -> None:
    f, errs = bad(
        tmp_path,
        catalogue,
        (
            "rank: [0, 8]\n    description: Gradient of the loss.",
            f"rank: {rank}\n    description: Gradient of the loss.",
        ),
    )
    assert errs == [f"{f}:11: inputs[0].rank: {message}"]


def test_expression_syntax_error(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(tmp_path, catalogue, ('out: "-target * gradOutput', 'out: "-target * * gradOutput'))
    assert errs == [f"{f}:36: compute.out: syntax error at column 11: invalid syntax"]


@pytest.mark.parametrize(
    ("expr", "construct"),
    [
        ("__import__('os')", "function '__import__' (names starting with '__') is not allowed (column 1)"),
        ("reduction.real", "attribute access is not allowed (column 1)"),
        ("[1, 2][reduction]", "subscript is not allowed (column 1)"),
        ("2 ** reduction", "power operator '**' is not allowed (column 1)"),
    ],
)
def test_forbidden_expression_construct(tmp_path: Path, catalogue: Catalogue, expr: str, construct: str) -> None:
    f, errs = bad(tmp_path, catalogue, ('norm: "1 / numel(out) if reduction == 1 else 1"', f'norm: "{expr}"'))
    assert errs == [f"{f}:35: compute.scalars.norm: {construct}; allowed: {ALLOWED_SYNTAX}"]


def test_unknown_name_in_expression(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(
        tmp_path,
        catalogue,
        ("sigmoid(-target * self) * norm", "sigmoid(-targt * self) * norm"),
        ("if reduction == 1 else 1", "if reduction == 1 else scale"),
        ("broadcast(gradOutput, self, target)", "broadcast(gradOutput, self, target, weight)"),
    )
    assert errs == [
        f"{f}:30: outputs[0].shape: unknown name 'weight'; allowed here: input tensors: gradOutput, self, target; "
        "attrs: reduction",
        f"{f}:35: compute.scalars.norm: unknown name 'scale'; allowed here: attrs: reduction; "
        "tensors (only inside dim, dtype, numel, rank): gradOutput, self, target, out; platform: coreNum, ubBytes; "
        f"dtypes: {DTYPES}",
        f"{f}:36: compute.out: unknown name 'targt' (did you mean 'target'?); allowed here: "
        "inputs: gradOutput, self, target; attrs: reduction; scalars: norm",
    ]


def test_unknown_function_and_argument_count(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(
        tmp_path,
        catalogue,
        ("sigmoid(-target * self)", "sigmod(-target * self)"),
        ("1 / numel(out)", "1 / dim(out)"),
    )
    assert errs == [
        f"{f}:35: compute.scalars.norm: dim() takes 2 arguments, as in dim(tensor, axis); got 1",
        f"{f}:36: compute.out: unknown function 'sigmod' (did you mean 'sigmoid'?); allowed here: "
        "abs, clamp, erf, exp, log, log1p, max, min, pow, relu, rsqrt, sigmoid, sign, sqrt, tanh, where",
    ]


def test_tensor_used_as_host_value(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(tmp_path, catalogue, ("1 / numel(out)", "1 / out"))
    assert errs == [
        f"{f}:35: compute.scalars.norm: tensor 'out' cannot be used as a value here ('/'); "
        "tensors may appear only as an argument of dim, dtype, numel, rank"
    ]


def test_expression_type_errors(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(
        tmp_path,
        catalogue,
        ('norm: "1 / numel(out) if reduction == 1 else 1"', 'norm: "numel(out) // 2.0"'),
        ('shape: "broadcast(gradOutput, self, target)"', 'shape: "numel(self)"'),
    )
    assert errs == [
        f"{f}:30: outputs[0].shape: an output shape needs a tensor or a shape, got integer: numel(self)",
        f"{f}:35: compute.scalars.norm: '//' needs integer operands (it truncates toward zero as in C), "
        "got a float: numel(out) // 2.0",
    ]


@pytest.mark.parametrize(
    ("values", "line_field", "message"),
    [
        (
            "{0: none, one: mean}",
            "24: attrs[0].values.one",
            "value key 'one' is not an integer; values map integers to names, e.g. {0: none, 1: mean}",
        ),
        ("{0: none, 1: none}", "24: attrs[0].values.1", "duplicate value name 'none' (also value 0)"),
        ("{0: none, 1: 2}", "24: attrs[0].values.1", "expected a string, got integer 2"),
        (
            "{0: none, 1: delete}",
            "24: attrs[0].values.1",
            "value name 'delete' must be a C identifier and not a C++ keyword",
        ),
        ("{}", "24: attrs[0].values", "empty values; map at least one integer to a name, or leave values out"),
        (
            "[none, mean]",
            "24: attrs[0].values",
            "expected a mapping of integer value to name, e.g. {0: none, 1: mean}, got a list",
        ),
        ("{0: none, 0: mean}", "24: attrs[0].values.0", "duplicate key 0 (first at line 24)"),
    ],
)
def test_bad_attr_values(tmp_path: Path, catalogue: Catalogue, values: str, line_field: str, message: str) -> None:
    f, errs = bad(tmp_path, catalogue, ("values: {0: none, 1: mean, 2: sum}", f"values: {values}"))
    assert errs == [f"{f}:{line_field}: {message}"]


def test_bad_attr_type_and_default(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(tmp_path, catalogue, ("    type: int64\n", "    type: int64\n    default: 3\n"))
    assert errs == [
        f"{f}:24: attrs[0].default: default 3 is not one of the values; allowed: 0 (none), 1 (mean), 2 (sum)"
    ]
    f, errs = bad(tmp_path, catalogue, ("    type: int64\n", "    type: int\n"))
    assert errs == [
        f"{f}:23: attrs[0].type: unknown attr type 'int'; allowed: bool, bool_array, double, float, int64, int_array, "
        "scalar, string, uint64",
    ]


def test_a_default_of_the_wrong_type_names_the_attr_type_with_its_article(tmp_path: Path, catalogue: Catalogue) -> None:
    """Found by a review helper: 'must be an integer for a int64 attr'."""
    f, errs = bad(tmp_path, catalogue, ("    type: int64\n", "    type: int64\n    default: 1.5\n"))
    assert errs == [f"{f}:24: attrs[0].default: default must be an integer for an int64 attr, got float 1.5"]
    f, errs = bad(tmp_path, catalogue, ("    type: int64\n", "    type: uint64\n    default: 1.5\n"))
    assert errs == [f"{f}:24: attrs[0].default: default must be an integer for a uint64 attr, got float 1.5"]

    # an example that leaves the attr to its (invalid) default is not also told the attr has none
    f, errs = bad(
        tmp_path,
        catalogue,
        ("    type: int64\n", "    type: int64\n    default: 1.5\n"),
        ("tiling:\n", EXAMPLE_INPUTS + "  output: {shape: [2], dtype: FLOAT}\ntiling:\n"),
    )
    assert errs == [f"{f}:24: attrs[0].default: default must be an integer for an int64 attr, got float 1.5"]


@pytest.mark.parametrize(
    ("word", "article"),
    [
        *[(w, "an") for w in ("int64", "int32", "int", "8", "11", "18", "80", "808", "8192", "11000", "18000")],
        *[(w, "a") for w in ("uint64", "uint8", "float", "bool", "list_int", "16", "110", "180", "1800", "4120")],
    ],
)
def test_the_article_follows_the_sound_of_the_word(word: str, article: str) -> None:
    from codegen.spec.naming import a_or_an

    assert a_or_an(word) == article


def test_missing_required_key(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(tmp_path, catalogue, ("    description: Gradient with respect to self.\n", ""))
    assert errs == [
        f"{f}:27: outputs[0].description: missing required key 'description'; "
        "required here: description, dtypes, name, rank, shape"
    ]
    f, errs = bad(
        tmp_path, catalogue, ("tiling:\n  buffer_num: 2\n  ub_reserved_bytes: 0\n  min_bytes_per_core: 32768\n", "")
    )
    assert errs == [
        f"{f}:1: tiling: missing required key 'tiling'; required here: category, compute, deterministic, family, "
        "inputs, op, op_type, outputs, products, summary, tiling"
    ]


def test_tiling_bounds(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(
        tmp_path,
        catalogue,
        ("  buffer_num: 2", "  buffer_num: 9"),
        ("  ub_reserved_bytes: 0", "  ub_reserved_bytes: 100"),
        ("  min_bytes_per_core: 32768", "  min_bytes_per_core: 0"),
    )
    assert errs == [
        f"{f}:38: tiling.buffer_num: 9 is out of range; allowed: 1..8",
        f"{f}:39: tiling.ub_reserved_bytes: 100 is not a multiple of 32 (the UB block size)",
        f"{f}:40: tiling.min_bytes_per_core: 0 is out of range; allowed: 1..9223372036854775807",
    ]
    # beyond int64: the generated tiling's int64 constant would not compile
    f, errs = bad(tmp_path, catalogue, ("  min_bytes_per_core: 32768", "  min_bytes_per_core: 9223372036854775808"))
    assert errs == [
        f"{f}:40: tiling.min_bytes_per_core: 9223372036854775808 is out of range; allowed: 1..9223372036854775807"
    ]
    f, errs = bad(
        tmp_path,
        catalogue,
        ("  buffer_num: 2", "  buffer_num: 8"),
        ("  ub_reserved_bytes: 0", "  ub_reserved_bytes: 196608"),
    )
    assert errs == [
        f"{f}:38: tiling.buffer_num: buffer_num 8 exceeds the queue buffer cap 4 of Ascend910",
        f"{f}:39: tiling.ub_reserved_bytes: ub_reserved_bytes 196608 leaves no UB on Ascend910B (196608 bytes)",
    ]


def test_compute_section_checks(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(
        tmp_path,
        catalogue,
        ("promote: [gradOutput, self, target]", "promote: [gradOutput, weight, gradOutput]"),
        ('  out: "-target', '  result: "1"\n  out: "-target'),
    )
    assert errs == [
        f"{f}:33: compute.promote[1]: 'weight' is not an input; allowed: gradOutput, self, target",
        f"{f}:33: compute.promote[2]: duplicate input 'gradOutput'",
        f"{f}:36: compute.result: unknown key 'result'; allowed: out, promote, reduce, scalars",
    ]


def test_constraint_checks(tmp_path: Path, catalogue: Catalogue) -> None:
    constraints = """\
constraints:
  - name: mean_limit
    products: [Ascend910, Ascend310P]
    when: "reduction == 1"
    let: {n: "numel(out)", n: "2"}
    require: "n < limit"
    message: "too many elements: {n} of {limit:>5}, {cores}"
    status: 12
"""
    f, errs = bad(tmp_path, catalogue, ("tiling:\n", constraints + "tiling:\n"))
    assert errs == [
        f"{f}:39: constraints[0].products[1]: 'Ascend310P' is not one of this op's products; "
        "allowed: Ascend910, Ascend910B",
        f"{f}:41: constraints[0].let.n: duplicate key 'n' (first at line 41)",
        f"{f}:42: constraints[0].require: unknown name 'limit'; allowed here: attrs: reduction; lets: n; "
        "tensors (only inside dim, dtype, numel, rank): gradOutput, self, target, out; platform: coreNum, ubBytes; "
        f"dtypes: {DTYPES}",
        f"{f}:43: constraints[0].message: placeholder '{{limit}}' may not have a conversion or format; "
        "write '{limit}'",
        f"{f}:43: constraints[0].message: unknown placeholder '{{cores}}' in message; allowed: reduction, n",
        f"{f}:44: constraints[0].status: status 12 is not an aclnnStatus error code; allowed: "
        "161001 (ACLNN_ERR_PARAM_NULLPTR), 161002 (ACLNN_ERR_PARAM_INVALID), 361001 (ACLNN_ERR_RUNTIME_ERROR), "
        "561000 (ACLNN_ERR_INNER), 561001 (ACLNN_ERR_INNER_INFERSHAPE_ERROR), 561002 (ACLNN_ERR_INNER_TILING_ERROR), "
        "561003 (ACLNN_ERR_INNER_FIND_KERNEL_ERROR), 561101 (ACLNN_ERR_INNER_CREATE_EXECUTOR), "
        "561102 (ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR), 561103 (ACLNN_ERR_INNER_NULLPTR)",
    ]


def test_example_checks(tmp_path: Path, catalogue: Catalogue) -> None:
    example = """\
example:
  inputs:
    gradOutput: {shape: [2, 2], dtype: FLOAT, values: [0, 1, 2]}
    self: {shape: [2, 2], dtype: INT32, values: [0, 1, 2, 3]}
    weight: {shape: [1], dtype: FLOAT, values: [1]}
  attrs: {reduction: 5}
  output: {shape: [2, 2], dtype: FLOAT}
"""
    f, errs = bad(tmp_path, catalogue, ("tiling:\n", example + "tiling:\n"))
    assert errs == [
        f"{f}:38: example.inputs: missing example input 'target'; every required input needs one",
        f"{f}:39: example.inputs.gradOutput.values: 3 values for shape [2, 2]; need 4",
        f"{f}:40: example.inputs.self.dtype: dtype INT32 is not accepted by 'self'; allowed: FLOAT, FLOAT16, BF16",
        f"{f}:41: example.inputs.weight: 'weight' is not an input; allowed: gradOutput, self, target",
        f"{f}:42: example.attrs.reduction: value 5 is not one of the values; allowed: 0 (none), 1 (mean), 2 (sum)",
    ]


def test_example_output_shape_is_checked_against_the_shape_expression(tmp_path: Path, catalogue: Catalogue) -> None:
    example = """\
example:
  inputs:
    gradOutput: {shape: [2, 1], dtype: FLOAT, values: [0, 1]}
    self: {shape: [3], dtype: FLOAT, values: [0, 1, 2]}
    target: {shape: [], dtype: FLOAT, values: [1]}
  attrs: {reduction: 1}
  output: {shape: [2, 2], dtype: FLOAT}
"""
    f, errs = bad(tmp_path, catalogue, ("tiling:\n", example + "tiling:\n"))
    assert errs == [
        f"{f}:43: example.output: example output shape [2, 2] does not match "
        "broadcast(gradOutput, self, target) = [2, 3]"
    ]


def test_yaml_syntax_error(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(tmp_path, catalogue, ("products: [Ascend910, Ascend910B]", "products: [Ascend910, Ascend910B"))
    assert errs == [f"{f}:7: yaml: YAML syntax error: expected ',' or ']', but got ':' (column 14)"]


def test_yaml_features_outside_the_format(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(
        tmp_path,
        catalogue,
        (
            "    dtypes: [FLOAT, FLOAT16, BF16]\n    rank: [0, 8]\n    description: Gradient of the loss.",
            "    dtypes: &dt [FLOAT, FLOAT16, BF16]\n    rank: [0, 8]\n    description: Gradient of the loss.",
        ),
        (
            "    dtypes: [FLOAT, FLOAT16, BF16]\n    rank: [0, 8]\n    description: The input x.",
            "    dtypes: *dt\n    rank: [0, 8]\n    description: The input x.",
        ),
    )
    assert errs == [f"{f}:14: inputs[1].dtypes: YAML aliases (*dt) are not supported; write the value out"]
    # an explicit tag is named at its node, with no follow-on error of the field it stands in
    f, errs = bad(
        tmp_path,
        catalogue,
        (
            "    dtypes: [FLOAT, FLOAT16, BF16]\n    rank: [0, 8]\n    description: The input x.",
            "    dtypes: !!python/tuple [FLOAT, FLOAT16]\n    rank: !local [0, 8]\n    description: The input x.",
        ),
    )
    assert errs == [
        f"{f}:14: inputs[1].dtypes: YAML tag !!python/tuple is not supported; remove it",
        f"{f}:15: inputs[1].rank: YAML tag !local is not supported; remove it",
    ]


def test_several_errors_in_one_file_are_all_reported_in_line_order(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(
        tmp_path,
        catalogue,
        ("family: elementwise\n", "family: elementwise\nfamily: elementwise\n"),
        (
            "dtypes: [FLOAT, FLOAT16, BF16]\n    rank: [0, 8]\n    description: The target y.",
            "dtypes: [FLOAT, FLOAT16, BF32]\n    rank: [0, 8]\n    description: The target y.",
        ),
        ("  - name: reduction\n", "  - name: reduction\n    kind: enum\n"),
        ("  buffer_num: 2", "  buffer_num: 0"),
    )
    assert errs == [
        f"{f}:5: family: duplicate key 'family' (first at line 4)",
        f"{f}:19: inputs[2].dtypes[2]: unknown dtype 'BF32'; allowed: {DTYPES}",
        f"{f}:24: attrs[0].kind: unknown key 'kind'; allowed: const, default, description, dtypes, header_name, "
        "length, name, type, values",
        f"{f}:40: tiling.buffer_num: 0 is out of range; allowed: 1..8",
    ]
    with pytest.raises(SpecErrors) as info:
        load_op_spec(f, catalogue)
    assert str(info.value) == "\n".join(errs)


def test_category_must_be_one_of_the_catalogues_op_categories(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(tmp_path, catalogue, ("category: loss", "category: losses"))
    assert errs == [
        f"{f}:41: category: unknown category 'losses'; allowed (the catalogue's op_categories): activation, loss"
    ]
    f, errs = bad(tmp_path, catalogue, ("category: loss\n", ""))
    assert errs == [
        f"{f}:1: category: missing required key 'category'; required here: category, compute, deterministic, family, "
        "inputs, op, op_type, outputs, products, summary, tiling"
    ]


def test_without_kernel_the_folder_is_the_optype_in_ops_nn_snake_case(tmp_path: Path, catalogue: Catalogue) -> None:
    """ops-nn's folder names of OpTypes (hicann/ops-nn: activation/threshold_grad_v2_d, loss/smooth_l1_loss_v2,
    loss/soft_margin_loss_grad, activation/hardtanh_grad, index/embedding_dense_grad_v2)."""
    folders = {
        "ThresholdGradV2D": "threshold_grad_v2_d",
        "SmoothL1LossV2": "smooth_l1_loss_v2",
        "SmoothL1LossGradV2": "smooth_l1_loss_grad_v2",
        "SoftMarginLossGrad": "soft_margin_loss_grad",
        "HardtanhGrad": "hardtanh_grad",
        "EmbeddingDenseGradV2": "embedding_dense_grad_v2",
    }
    for op_type, folder in folders.items():
        text = edit(
            edit(BASE, "op_type: SoftMarginLossGrad", f"op_type: {op_type}"), "kernel: soft_margin_loss_grad\n", ""
        )
        path = tmp_path / STEM
        path.write_text(text)
        spec = load_op_spec(path, catalogue)
        assert (spec.kernel, spec.folder) == (folder, f"loss/{folder}")
    path.write_text(BASE)  # a kernel key names the folder
    assert load_op_spec(path, catalogue).folder == "loss/soft_margin_loss_grad"


def test_catalogue_op_categories_errors(tmp_path: Path) -> None:
    path = tmp_path / "products.yaml"
    for value, message in (
        ("[]", "1: op_categories: empty category list; an op folder needs a category (ops-nn's OP_CATEGORY_LIST)"),
        ("[loss, Loss]", "1: op_categories[1]: 'Loss' is not a folder name in snake_case (e.g. activation)"),
        ("[loss, loss]", "1: op_categories[1]: category 'loss' is listed twice"),
    ):
        path.write_text(f"op_categories: {value}\n" + CATALOGUE.replace("op_categories: [activation, loss]\n", ""))
        with pytest.raises(SpecErrors) as info:
            load_catalogue(path)
        assert str(info.value) == f"{path}:{message}"


def test_errors_in_two_files_are_both_reported_by_load_specs(tmp_path: Path) -> None:
    (tmp_path / "products.yaml").write_text(CATALOGUE)
    (tmp_path / STEM).write_text(edit(BASE, "family: elementwise", "family: elementwize"))
    other = edit(BASE, "op: SoftMarginLossBackward", "op: SoftMarginLossBackwardV2")
    other = edit(other, "op_type: SoftMarginLossGrad", "op_type: SoftMarginLossGradV2")
    other = edit(other, "kernel: soft_margin_loss_grad", "kernel: soft_margin_loss_grad_v2")
    other = edit(other, "  buffer_num: 2", "  buffer_num: -1")
    (tmp_path / "soft_margin_loss_backward_v2.yaml").write_text(other)
    with pytest.raises(SpecErrors) as info:
        load_specs(tmp_path)
    assert [str(e) for e in info.value.errors] == [
        f"{tmp_path / STEM}:4: family: unknown family 'elementwize'; allowed: elementwise, foreach, gather_scatter, "
        "index_accumulate, row_reduce",
        f"{tmp_path / 'soft_margin_loss_backward_v2.yaml'}:38: tiling.buffer_num: -1 is out of range; allowed: 1..8",
    ]


def test_load_specs_reports_clashes_between_files(tmp_path: Path) -> None:
    (tmp_path / "products.yaml").write_text(CATALOGUE)
    (tmp_path / STEM).write_text(BASE)
    other = edit(BASE, "op: SoftMarginLossBackward", "op: SoftMarginLossBackwardV2")
    (tmp_path / "soft_margin_loss_backward_v2.yaml").write_text(other)
    with pytest.raises(SpecErrors) as info:
        load_specs(tmp_path)
    second = tmp_path / "soft_margin_loss_backward_v2.yaml"
    assert [str(e) for e in info.value.errors] == [
        f"{second}:2: op_type: op_type 'SoftMarginLossGrad' is also used by {tmp_path / STEM}:2 (another spec)",
        f"{second}:3: kernel: kernel 'soft_margin_loss_grad' is also used by {tmp_path / STEM}:3 (another spec)",
    ]
    # a new spec that sorts first: the existing spec's line is flagged, naming the new file's line
    second.unlink()
    first = tmp_path / "a_soft_margin_loss_backward.yaml"
    first.write_text(edit(BASE, "op: SoftMarginLossBackward", "op: ASoftMarginLossBackward"))
    with pytest.raises(SpecErrors) as info:
        load_specs(tmp_path)
    assert [str(e) for e in info.value.errors] == [
        f"{tmp_path / STEM}:2: op_type: op_type 'SoftMarginLossGrad' is also used by {first}:2 (another spec)",
        f"{tmp_path / STEM}:3: kernel: kernel 'soft_margin_loss_grad' is also used by {first}:3 (another spec)",
    ]


# ---------------------------------------------------------------------------------------- catalogue


def catalogue_errors(tmp_path: Path, *edits: tuple[str, str]) -> list[str]:
    text = CATALOGUE
    for old, new in edits:
        text = edit(text, old, new)
    path = tmp_path / "products.yaml"
    path.write_text(text)
    with pytest.raises(SpecErrors) as info:
        load_catalogue(path)
    return [str(e).replace(str(path), "P") for e in info.value.errors]


def test_catalogue_errors(tmp_path: Path) -> None:
    assert catalogue_errors(
        tmp_path,
        ("    ub_bytes: 196608\n", "    ub_bytes: 196600\n"),
        ("  - name: Ascend310P\n", "  - name: Ascend910\n"),
        (
            "    atomic_add_dtypes: [INT16, FLOAT16, FLOAT]\n",
            "    atomic_add_dtypes: [INT16, HALF, BF16]\n    cores: 8\n",
        ),
        ("    npu_arch: 1001\n", "    npu_arch: '1001'\n"),
    ) == [
        "P:6: products[0].npu_arch: expected an integer, got string '1001'",
        "P:21: products[1].ub_bytes: ub_bytes 196600 is not a multiple of 32 (the UB block size)",
        "P:30: products[2].name: duplicate product name 'Ascend910' (first at line 2)",
        "P:39: products[2].atomic_add_dtypes[1]: unknown dtype 'HALF'; allowed: " + DTYPES,
        "P:39: products[2].atomic_add_dtypes: Ascend910 lists BF16 in atomic_add_dtypes but has bf16: false",
        "P:40: products[2].cores: unknown key 'cores'; allowed: atomic_add_dtypes, bf16, capability_source, "
        "config_name, cost_model, data_copy_pad, doc_aliases, doc_term, hw_sync_all, name, npu_arch, queue_buffer_cap, "
        "soc_version, source, sys_workspace_bytes, ub_bytes, vector_core_num, vector_sort",
    ]


def test_catalogue_missing_keys_and_bad_names(tmp_path: Path) -> None:
    assert catalogue_errors(
        tmp_path,
        (
            "    source: test\n    hw_sync_all: false\n    sys_workspace_bytes: 2097152\n  - name: Ascend910B\n",
            "    hw_sync_all: false\n    sys_workspace_bytes: 2097152\n  - name: Ascend910B\n",
        ),
        ("    config_name: ascend910b\n", "    config_name: Ascend910B\n"),
        (
            "    queue_buffer_cap: 8\n    source: test\n    hw_sync_all: true",
            "    queue_buffer_cap: 0\n    source: test\n    hw_sync_all: true",
        ),
    ) == [
        "P:2: products[0].source: missing required key 'source'; required here: atomic_add_dtypes, bf16, "
        "config_name, data_copy_pad, doc_term, hw_sync_all, name, npu_arch, queue_buffer_cap, soc_version, source, "
        "sys_workspace_bytes, ub_bytes, vector_core_num",
        "P:17: products[1].config_name: 'Ascend910B' is not a lower-case identifier (e.g. ascend910b)",
        "P:25: products[1].queue_buffer_cap: 0 is out of range; allowed: 1..64",
    ]


def test_catalogue_products_sharing_an_arch_must_agree(tmp_path: Path) -> None:
    suffix = (
        "products sharing an NpuArch must agree on bf16, data_copy_pad, atomic_add_dtypes, queue_buffer_cap, "
        "hw_sync_all, sys_workspace_bytes and vector_sort "
        "(generated code selects by NpuArch, never by product name)"
    )
    assert catalogue_errors(tmp_path, ("    npu_arch: 2002\n", "    npu_arch: 2201\n")) == [
        f"P:{line}: products[2].{cap}: Ascend310P has npu_arch 2201 like Ascend910B (line 16) "
        f"but a different {cap}; {suffix}"
        for line, cap in (
            (37, "bf16"),
            (38, "data_copy_pad"),
            (39, "atomic_add_dtypes"),
            (42, "hw_sync_all"),
            (43, "sys_workspace_bytes"),
        )
    ]
    # Queue buffers per position set the generated tilings' buffer depth, which is selected by NpuArch too.
    same_caps_but_queue = (
        "    bf16: false\n    data_copy_pad: false\n    atomic_add_dtypes: [INT16, FLOAT16, FLOAT]\n"
        "    queue_buffer_cap: 8\n",
        "    bf16: true\n    data_copy_pad: true\n    atomic_add_dtypes: [INT8, INT16, FLOAT16, BF16, INT32, FLOAT]\n"
        "    queue_buffer_cap: 4\n",
    )
    # (Ascend310P also lacks the hardware SyncAll and has the 2 MiB system workspace of NpuArch 2002.)
    assert catalogue_errors(tmp_path, ("    npu_arch: 2002\n", "    npu_arch: 2201\n"), same_caps_but_queue) == [
        f"P:{line}: products[2].{cap}: Ascend310P has npu_arch 2201 like Ascend910B (line 16) "
        f"but a different {cap}; {suffix}"
        for line, cap in ((40, "queue_buffer_cap"), (42, "hw_sync_all"), (43, "sys_workspace_bytes"))
    ]
    # The vector sort instructions are chosen by NpuArch as well; an omitted key is false.
    twin = CATALOGUE[CATALOGUE.index("  - name: Ascend910B\n") : CATALOGUE.index("  - name: Ascend310P\n")]
    twin = (
        twin.replace("Ascend910B", "Twin")
        .replace("ascend910b", "twin")
        .replace("ASCEND910B", "TWIN")
        .replace("Atlas A2", "Twin")
    )
    assert catalogue_errors(
        tmp_path,
        ("    sys_workspace_bytes: 16777216\n", "    sys_workspace_bytes: 16777216\n    vector_sort: true\n"),
        ("op_categories:", twin + "op_categories:"),
    ) == [f"P:45: products[3]: Twin has npu_arch 2201 like Ascend910B (line 16) but a different vector_sort; {suffix}"]


def test_catalogue_top_level(tmp_path: Path) -> None:
    assert catalogue_errors(tmp_path, ("products:\n", "socs: []\nproducts:\n")) == [
        "P:1: socs: unknown key 'socs'; allowed: op_categories, products, uncatalogued_doc_terms",
    ]
    path = tmp_path / "empty.yaml"
    path.write_text("op_categories: [loss]\nproducts: []\n")
    with pytest.raises(SpecErrors) as info:
        load_catalogue(path)
    assert str(info.value) == f"{path}:2: products: empty product list; the catalogue needs at least one product"


def test_unreadable_and_empty_files(tmp_path: Path, catalogue: Catalogue) -> None:
    missing = tmp_path / STEM
    with pytest.raises(SpecErrors) as info:
        load_op_spec(missing, catalogue)
    assert str(info.value).startswith(f"{missing}:1: yaml: cannot read the file: [Errno 2]")
    assert errors_of(missing, "# nothing\n", catalogue) == [f"{missing}:1: yaml: the file is empty; expected a mapping"]
    assert errors_of(missing, "- a\n- b\n", catalogue) == [f"{missing}:1: yaml: expected a mapping, got a list"]


# ------------------------------------------------------------------------------------ error plumbing


def test_error_classes_format_and_pickle() -> None:
    import pickle

    e = SpecError(SourceLoc("a.yaml", 3), "inputs[0].dtypes[1]", "unknown dtype 'X'")
    assert str(e) == "a.yaml:3: inputs[0].dtypes[1]: unknown dtype 'X'"
    errs = SpecErrors([e, SpecError(SourceLoc("b.yaml", 1), "op", "bad")])
    assert str(errs) == "a.yaml:3: inputs[0].dtypes[1]: unknown dtype 'X'\nb.yaml:1: op: bad"
    again = pickle.loads(pickle.dumps(errs))
    assert str(again) == str(errs)
    assert [x.loc for x in again.errors] == [SourceLoc("a.yaml", 3), SourceLoc("b.yaml", 1)]


def test_error_context_locates_deep_failures() -> None:
    with pytest.raises(SpecError) as info, error_context(SourceLoc("s.yaml", 9), "tiling"):
        raise ValueError("UB too small")
    assert str(info.value) == "s.yaml:9: tiling: ValueError: UB too small"
    original = SpecError(SourceLoc("x.yaml", 1), "op", "kept")
    with pytest.raises(SpecError) as info2, error_context(SourceLoc("s.yaml", 9), "tiling"):
        raise original
    assert info2.value is original


MODE_ATTR = (
    "    description: Reduction of the forward loss.\n",
    "    description: Reduction of the forward loss.\n"
    "  - name: mode\n    type: int64\n    default: 1\n    description: A free-valued mode.\n",
)
DIVIDING_SCALAR = ('    norm: "1 / numel(out) if reduction == 1 else 1"\n', '    norm: "10 // mode"\n')


def test_division_by_an_int_attr_that_may_be_zero(tmp_path: Path, catalogue: Catalogue) -> None:
    constraint = """\
constraints:
  - name: shares
    let: {share: "numel(out) % -mode"}
    require: "share < 100 / reduction"
    message: "bad share {share}"
"""
    f, errs = bad(tmp_path, catalogue, MODE_ATTR, DIVIDING_SCALAR, ("tiling:\n", constraint + "tiling:\n"))
    advice = (
        'add a constraint such as require: "{a} != 0" (or "{a} > 0"), '
        "or guard the division: '... if {a} != 0 else ...'"
    )
    assert errs == [
        f"{f}:39: compute.scalars.norm: '10 // mode' divides by attr 'mode', which may be 0 (an integer division "
        "by 0 crashes the host code); " + advice.format(a="mode"),
        f"{f}:43: constraints[0].let.share: 'numel(out) % -mode' divides by attr 'mode', which may be 0 (an "
        "integer division by 0 crashes the host code); " + advice.format(a="mode"),
        # reduction's values include 0 (none)
        f"{f}:44: constraints[0].require: 'share < 100 / reduction' divides by attr 'reduction', which may be 0 "
        "(a division by 0 gives inf or nan in the host code); " + advice.format(a="reduction"),
    ]


@pytest.mark.parametrize(
    ("scalar", "constraint"),
    [
        ("10 // mode", 'require: "mode > 0"'),  # an unconditional constraint on every product excludes 0
        ("10 // mode", 'require: "reduction >= 0 and not mode == 0"'),
        ("10 // mode if mode != 0 else 1", 'require: "reduction >= 0"'),  # a guard on the way
        ("0 if mode == 0 else 10 % mode", 'require: "reduction >= 0"'),
        ("10.0 / mode if mode < 0 or mode > 0 else 1", 'require: "reduction >= 0"'),
        ("10 // (mode * 2)", 'require: "mode > 0"'),  # zero-free forms of an attr that is not 0
        ("10 // abs(-mode) if mode != 0 else 1", 'require: "reduction >= 0"'),
        ("10 // (reduction + 1)", 'require: "mode > 0"'),  # nonzero at every allowed value of reduction
        ("10 // (mode * (reduction + 1))", 'require: "mode != 0"'),
    ],
)
def test_division_by_an_attr_is_accepted_when_zero_is_excluded(
    tmp_path: Path, catalogue: Catalogue, scalar: str, constraint: str
) -> None:
    constraints = f'constraints:\n  - name: c\n    {constraint}\n    message: "bad"\n'
    text = BASE
    for old, new in (
        MODE_ATTR,
        (DIVIDING_SCALAR[0], f'    norm: "{scalar}"\n'),
        ("tiling:\n", constraints + "tiling:\n"),
    ):
        text = edit(text, old, new)
    path = tmp_path / STEM
    path.write_text(text)
    spec = load_op_spec(path, catalogue)
    assert isinstance(spec.compute, ElementwiseCompute) and spec.compute.scalars[0][0] == "norm"


def test_division_guarded_only_on_some_products_is_rejected(tmp_path: Path, catalogue: Catalogue) -> None:
    constraints = 'constraints:\n  - name: c\n    products: [Ascend910]\n    require: "mode > 0"\n    message: "bad"\n'
    f, errs = bad(tmp_path, catalogue, MODE_ATTR, DIVIDING_SCALAR, ("tiling:\n", constraints + "tiling:\n"))
    assert [e.split(": ")[1] for e in errs] == ["compute.scalars.norm"]
    assert errs[0].startswith(f"{f}:39: compute.scalars.norm: '10 // mode' divides by attr 'mode'")


@pytest.mark.parametrize(
    ("formula", "what"),
    [
        (
            "self if self > target else target",
            "a conditional 'a if c else b' on tensor values ('self if self > target else target')",
        ),
        # a host condition still selects between tensor values per element
        ("sigmoid(self) if norm == 1 else self", "a conditional 'a if c else b' on tensor values"),
        ("min(self, target, gradOutput)", "min() of tensor values takes exactly 2 arguments, got 3"),
    ],
)
def test_formula_constructs_without_vector_instructions_are_rejected_at_load(
    tmp_path: Path, catalogue: Catalogue, formula: str, what: str
) -> None:
    f, errs = bad(
        tmp_path, catalogue, ('  out: "-target * gradOutput * sigmoid(-target * self) * norm"', f'  out: "{formula}"')
    )
    assert len(errs) == 1
    assert errs[0].startswith(f"{f}:36: compute.out: {what}")
    assert errs[0].endswith(
        "over tensor values a formula allows + - * /, unary minus, abs, erf, exp, log, log1p, relu, rsqrt, "
        "sigmoid, sign, sqrt, tanh, min(a, b), max(a, b), clamp(x, lo, hi) and pow(x, p) with host lo, hi, p, "
        "comparisons < <= > >= == != and and/or/not of them as the condition of where(cond, a, b); "
        "subexpressions without tensors (host scalars) may use the whole expression language"
    )
    if "conditional" in what:
        assert "write where(c, a, b)" in errs[0]


@pytest.mark.parametrize(
    ("formula", "what"),
    [
        # a comparison is a condition, never a number
        (
            "(self > target) * gradOutput",
            "'*' needs an integer or a float, got a condition (boolean): self > target; a condition is not a "
            "number: pick values with where(cond, a, b)",
        ),
        ("where(self, gradOutput, 0)", "argument 1 of where() needs a boolean, got float: self"),
        (
            "where(self > 0, self > target, 0)",
            "argument 2 of where() needs an integer or a float, got a condition (boolean): self > target",
        ),
        ("where(self > 0 and 2, self, 0)", "'and' needs a boolean, got integer: 2"),
        ("not self", "'not' needs a boolean, got float: self"),
        ("clamp(self, target, 1)", "argument 2 of clamp() must be a host value (no tensor), got 'target'"),
        ("pow(self, target)", "argument 2 of pow() must be a host value (no tensor), got 'target'"),
        (
            "where((self > 0) == (target > 0), self, 0)",
            "'(self > 0) == (target > 0)' compares conditions over tensor values",
        ),
        ("where(self > 0, self, 0, 1)", "where() takes 3 arguments, as in where(cond, a, b); got 4"),
    ],
)
def test_comparison_and_where_misuse_is_a_spec_error(
    tmp_path: Path, catalogue: Catalogue, formula: str, what: str
) -> None:
    f, errs = bad(
        tmp_path, catalogue, ('  out: "-target * gradOutput * sigmoid(-target * self) * norm"', f'  out: "{formula}"')
    )
    assert len(errs) == 1, errs
    assert errs[0].startswith(f"{f}:36: compute.out: {what}"), errs[0]


@pytest.mark.parametrize(
    "formula",
    [
        "where(self > target, gradOutput, 0)",
        "where(0 < self <= 1 or not (target != 2), sign(self), tanh(target))",
        "where(reduction == 1, erf(self), log1p(target)) * gradOutput",
        "clamp(pow(self, 2), -1, norm) + rsqrt(abs(target) + 1)",
    ],
)
def test_comparison_and_where_formulas_load(tmp_path: Path, catalogue: Catalogue, formula: str) -> None:
    path = tmp_path / STEM
    path.write_text(edit(BASE, '  out: "-target * gradOutput * sigmoid(-target * self) * norm"', f'  out: "{formula}"'))
    spec = load_op_spec(path, catalogue)
    assert isinstance(spec.compute, ElementwiseCompute) and spec.compute.outputs[0][0] == "out"


def test_formula_rule_matches_the_compiler() -> None:
    from codegen.families.elementwise import rules
    from codegen.families.elementwise.compiler import instructions as ec

    assert ec.COMPILED_FUNCTIONS == rules.TENSOR_FUNCTIONS
    assert set(ec.BINARY_INSTRUCTIONS) == rules.TENSOR_OPERATORS


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("offset", "'offset' is declared by the kernel"),
        ("tmp0", "'tmp0' is taken by the formula compiler's temporaries and host scalars (tmpN, maskN, scalarN_)"),
        ("result", "'result' is declared by the op API"),
        ("promoteType", "'promoteType' is declared by the op API"),
        ("deviceId", "'deviceId' is declared by the example program"),
    ],
)
def test_names_taken_by_generated_code(tmp_path: Path, catalogue: Catalogue, name: str, message: str) -> None:
    f, errs = bad(tmp_path, catalogue, ("attrs:\n", EXTRA_INPUT.format(name=name) + "attrs:\n"))
    assert errs == [f"{f}:21: inputs[3].name: {message}; choose another name"]


def test_input_named_like_the_kernels_output_local(tmp_path: Path, catalogue: Catalogue) -> None:
    # The kernel declares `outLocal` for the output whatever its name, so an input `out` collides with it.
    f, errs = bad(
        tmp_path,
        catalogue,
        ("  - name: out\n", "  - name: gradInput\n"),
        ('  out: "-target', '  gradInput: "-target'),
        ("numel(out)", "numel(gradInput)"),
        ("  - name: target\n", "  - name: out\n"),
        ("broadcast(gradOutput, self, target)", "broadcast(gradOutput, self, out)"),
        ("promote: [gradOutput, self, target]", "promote: [gradOutput, self, out]"),
        ("-target * gradOutput * sigmoid(-target * self)", "-out * gradOutput * sigmoid(-out * self)"),
    )
    assert errs == [
        f"{f}:17: inputs[2].name: 'out' gives 'outLocal', which is declared by the kernel; choose another name"
    ]


def test_attr_and_derived_name_collisions(tmp_path: Path, catalogue: Catalogue) -> None:
    attr = "  - name: {name}\n    type: int64\n    default: 1\n    description: An attr.\n"
    f, errs = bad(
        tmp_path,
        catalogue,
        ("attrs:\n", EXTRA_INPUT.format(name="selfCasted") + "attrs:\n" + attr.format(name="tileLength")),
    )
    assert errs == [
        f"{f}:13: inputs[1].name: 'self' gives 'selfCasted', which is also derived from another tensor or attr "
        "name in the op API; choose another name",
        f"{f}:21: inputs[3].name: 'selfCasted' is also derived from another tensor or attr name in the op API; "
        "choose another name",
        f"{f}:26: attrs[0].name: 'tileLength' is declared by the tiling function; choose another name",
    ]


@pytest.mark.parametrize(
    ("scalar", "divisor", "cond"),
    [
        ("10 // (mode * 2)", "mode * 2", "mode * 2 != 0"),  # formerly missed: only a bare attr divisor was looked at
        ("10 // abs(mode)", "abs(mode)", "abs(mode) != 0"),
        ("10 // (mode - 1 + 1)", "mode - 1 + 1", "mode - 1 + 1 != 0"),
        ("10 % (mode - 1) if mode != 0 else 1", "mode - 1", "mode - 1 != 0"),  # that guard does not make it nonzero
        ("10 // (reduction - 1)", "reduction - 1", "reduction != 1"),  # 0 at reduction = 1 (mean)
    ],
)
def test_division_by_an_expression_of_attrs_that_may_be_0(
    tmp_path: Path, catalogue: Catalogue, scalar: str, divisor: str, cond: str
) -> None:
    """The advice names a condition that keeps the divisor from 0 (the value of a finite-valued attr that makes
    it 0, else the divisor itself), and that condition, as a guard or as a constraint, is accepted (found by a
    review helper: the advice was 'reduction != 0' for 'reduction - 1', and no guard of it was accepted)."""
    f, errs = bad(tmp_path, catalogue, MODE_ATTR, (DIVIDING_SCALAR[0], f'    norm: "{scalar}"\n'))
    attr = "reduction" if "reduction" in divisor else "mode"
    assert errs == [
        f"{f}:39: compute.scalars.norm: '{scalar}' divides by '{divisor}', an expression of attr '{attr}', which "
        "may be 0 (an integer division by 0 crashes the host code); "
        f'add a constraint such as require: "{cond}", '
        f"or guard the division: '... if {cond} else ...'"
    ]
    guarded = f"({scalar}) if {cond} else 1"
    constraint = f'constraints:\n  - name: c\n    require: "{cond}"\n    message: "m"\ntiling:\n'
    for edits in (
        [MODE_ATTR, (DIVIDING_SCALAR[0], f'    norm: "{guarded}"\n')],
        # (mode's default 1 would violate 'mode - 1 != 0': the constraint variant defaults it to 3)
        [
            (MODE_ATTR[0], MODE_ATTR[1].replace("default: 1", "default: 3")),
            (DIVIDING_SCALAR[0], f'    norm: "{scalar}"\n'),
            ("tiling:\n", constraint),
        ],
    ):
        text = BASE
        for old, new in edits:
            text = edit(text, old, new)
        path = tmp_path / STEM
        path.write_text(text)
        assert load_op_spec(path, catalogue).op == "SoftMarginLossBackward"  # the advice, followed, loads


def test_float_division_by_an_attr_that_may_be_0_names_inf(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(tmp_path, catalogue, MODE_ATTR, (DIVIDING_SCALAR[0], '    norm: "1.0 / mode"\n'))
    assert errs == [
        f"{f}:39: compute.scalars.norm: '1.0 / mode' divides by attr 'mode', which may be 0 (a division by 0 "
        'gives inf or nan in the host code); add a constraint such as require: "mode != 0" (or "mode > 0"), '
        "or guard the division: '... if mode != 0 else ...'"
    ]


def test_division_through_a_let_of_a_constraint(tmp_path: Path, catalogue: Catalogue) -> None:
    constraint = (
        'constraints:\n  - name: c\n    let: {k: "mode * 2 - 2"}\n    require: "10 // k > 1"\n    message: "bad"\n'
    )
    f, errs = bad(tmp_path, catalogue, MODE_ATTR, ("tiling:\n", constraint + "tiling:\n"))
    assert len(errs) == 1 and errs[0].startswith(
        f"{f}:44: constraints[0].require: '10 // k > 1' divides by 'k', an expression of attr 'mode', which may be 0"
    )


@pytest.mark.parametrize(
    ("scalar", "message"),
    [
        (
            "10 // numel(self)",
            "'numel(self)': numel() of an input is not available in elementwise host scalars (the device op sees "
            "every input broadcast to the output's shape); use numel() of the output",
        ),
        (
            "10 / rank(self)",
            "'rank(self)': rank() of an input is not available in elementwise host scalars (the device op sees "
            "every input broadcast to the output's shape); use rank() of the output",
        ),
        (
            "10 / dim(self, 0)",
            "'dim(self, 0)': dim() is not available in elementwise host scalars (only numel() and rank() of an "
            "output are: the tiling function sees the output's shape)",
        ),
        (
            "10 / dim(out, 0)",
            "'dim(out, 0)': dim() is not available in elementwise host scalars (only numel() and rank() of an "
            "output are: the tiling function sees the output's shape)",
        ),
    ],
)
def test_shape_functions_of_inputs_in_elementwise_host_scalars(
    tmp_path: Path, catalogue: Catalogue, scalar: str, message: str
) -> None:
    f, errs = bad(tmp_path, catalogue, (DIVIDING_SCALAR[0], f'    norm: "{scalar}"\n'))
    assert errs == [f"{f}:35: compute.scalars.norm: {message}"]


def test_cli_reports_a_late_spec_error_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from codegen import cli
    from codegen.cli import parser

    def raise_late(args: object) -> int:
        raise SpecError(SourceLoc("specs/x.yaml", 7), "compute.out", "cannot compile it")

    monkeypatch.setattr(parser, "cmd_list", raise_late)
    assert cli.main(["list"]) == 2
    # `list` writes nothing anyway: the summary does not say so
    assert capsys.readouterr().err == "specs/x.yaml:7: compute.out: cannot compile it\n1 spec error(s)\n"
    monkeypatch.setattr(parser, "cmd_generate", raise_late)
    assert cli.main(["generate", "--check"]) == 2
    assert (
        capsys.readouterr().err
        == "specs/x.yaml:7: compute.out: cannot compile it\n1 spec error(s); nothing was written\n"
    )


def test_elementwise_dtypes_must_be_float_and_agree(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(
        tmp_path,
        catalogue,
        (
            "  - name: gradOutput\n    dtypes: [FLOAT, FLOAT16, BF16]",
            "  - name: gradOutput\n    dtypes: [FLOAT, FLOAT16, INT16]",
        ),
        (
            "  - name: target\n    dtypes: [FLOAT, FLOAT16, BF16]",
            "  - name: target\n    dtypes: [FLOAT16, FLOAT, BF16]",
        ),
    )
    assert errs == [
        f"{f}:9: inputs[0].dtypes: 'gradOutput' lists INT16, which the elementwise family does not compute on "
        "(its kernel computes in float, and selects integers); allowed: FLOAT, FLOAT16, BF16, INT32, INT8, UINT8",
    ]
    f, errs = bad(
        tmp_path,
        catalogue,
        (
            "  - name: target\n    dtypes: [FLOAT, FLOAT16, BF16]",
            "  - name: target\n    dtypes: [FLOAT16, FLOAT, BF16]",
        ),
    )
    assert errs == [
        f"{f}:17: inputs[2].dtypes: 'target' lists [FLOAT16, FLOAT, BF16] but 'gradOutput' lists [FLOAT, FLOAT16, "
        "BF16]; the tensors of an elementwise op must list the same dtypes in the same order (the device op "
        "computes all of them in one dtype and its OpDef pairs the lists by position)"
    ]


def test_example_dtype_must_exist_on_every_product(tmp_path: Path, catalogue: Catalogue) -> None:
    example = """\
example:
  inputs:
    gradOutput: {shape: [2], dtype: BF16, values: [0, 1]}
    self: {shape: [2], dtype: FLOAT16, values: [0, 1]}
    target: {shape: [2], dtype: FLOAT, values: [1, 1]}
  attrs: {reduction: 1}
  output: {shape: [2], dtype: BF16}
"""
    f, errs = bad(tmp_path, catalogue, ("tiling:\n", example + "tiling:\n"))
    message = (
        "dtype BF16 does not exist on Ascend910, one of the op's products, and the example program runs on any "
        "of them; use a dtype every product has: FLOAT, FLOAT16"
    )
    assert errs == [
        f"{f}:39: example.inputs.gradOutput.dtype: {message}",
        f"{f}:43: example.output.dtype: {message}",
    ]
    # Without Ascend910 (no bf16) among the products, a BF16 example is fine.
    path = tmp_path / STEM
    path.write_text(
        edit(
            edit(BASE, "products: [Ascend910, Ascend910B]", "products: [Ascend910B]"),
            "tiling:\n",
            example + "tiling:\n",
        )
    )
    assert load_op_spec(path, catalogue).example is not None


@pytest.mark.parametrize("op", ["ABC", "my_op", "Abc_Def"])
def test_new_op_applies_the_loaders_upper_camel_rule_before_writing(tmp_path: Path, op: str) -> None:
    from codegen.new import NewOpError, new_op

    with pytest.raises(NewOpError) as info:
        new_op(op, "elementwise", tmp_path, tmp_path / "reference")
    assert str(info.value) == (
        f"op name '{op}' must be UpperCamelCase (ASCII letters and digits, starting with a capital, with a "
        "lower-case letter), e.g. MseLossBackward"
    )
    assert list(tmp_path.iterdir()) == []


def test_new_op_rejects_a_kernel_name_that_is_a_cpp_keyword(tmp_path: Path) -> None:
    from codegen.new import NewOpError, new_op

    with pytest.raises(NewOpError) as info:
        new_op("Delete", "elementwise", tmp_path, tmp_path / "reference")
    assert str(info.value) == (
        "op name 'Delete' gives the kernel name 'delete': 'delete' is a C++ keyword; choose another name; "
        "nothing written"
    )
    assert list(tmp_path.iterdir()) == []


DEVICE = """\
device:
  inputs:
    - {name: predict, from: self}
    - {name: label, from: target}
    - {name: dout, from: gradOutput}
  outputs:
    - {name: gradient, from: out}
  attrs:
    - {name: reduction, from: reduction, type: string, default: mean}
  dtypes: [FLOAT16, FLOAT, BF16]
compute:
"""


def test_device_section_gives_the_registered_interface(tmp_path: Path, catalogue: Catalogue) -> None:
    path = tmp_path / STEM
    path.write_text(edit(BASE, "compute:\n", DEVICE))
    dev = load_op_spec(path, catalogue).device_interface
    assert [(t.name, t.source) for t in dev.inputs] == [
        ("predict", "self"),
        ("label", "target"),
        ("dout", "gradOutput"),
    ]
    assert [(t.name, t.source) for t in dev.outputs] == [("gradient", "out")]
    assert [(a.name, a.source, a.type, a.default) for a in dev.attrs] == [("reduction", "reduction", "string", "mean")]
    assert [d.name for d in dev.dtypes or ()] == ["FLOAT16", "FLOAT", "BF16"]


def test_device_section_errors(tmp_path: Path, catalogue: Catalogue) -> None:
    """Each bad entry is reported once; the aclnn names they were meant to carry are not reported missing."""
    f, errs = bad(
        tmp_path,
        catalogue,
        ("compute:\n", DEVICE),
        ("    - {name: label, from: target}\n", "    - {name: label, from: targt}\n"),
        ("    - {name: gradient, from: out}\n", "    - {name: self, from: out}\n"),
        ("from: reduction, type: string, default: mean}", "from: reduction, type: string, default: average}"),
        ("  dtypes: [FLOAT16, FLOAT, BF16]\n", "  dtypes: [FLOAT16, FLOAT]\n"),
    )
    assert errs == [
        f"{f}:35: device.inputs[1].from: 'targt' is not an aclnn input; allowed: gradOutput, self, target",
        f"{f}:38: device.outputs[0].name: device output 'self' would clash with an aclnn input in the L0 API",
        f"{f}:40: device.attrs[0].default: default must be one of the names of 'reduction': none, mean, sum",
        f"{f}:41: device.dtypes: the device dtype order must list exactly the tensors' dtypes (FLOAT, FLOAT16, BF16)",
    ]


@pytest.mark.parametrize(
    ("attrs", "error"),
    [
        (
            "    - {name: self, from: reduction, type: string, default: mean}\n",
            "40: device.attrs[0].name: device attr 'self' would clash with a parameter of the L0 API; choose another "
            "name",
        ),
        (
            "    - {name: reduction, from: reduction, type: string, default: mean}\n"
            "    - {name: executor, value: 1, type: int}\n",
            "41: device.attrs[1].name: device attr 'executor' would clash with a parameter of the L0 API; choose "
            "another name",
        ),
        (
            "    - {name: reduction, from: reduction, type: string, default: mean}\n"
            "    - {name: reduction, value: 1, type: int}\n",
            "41: device.attrs[1].name: duplicate device attr 'reduction'",
        ),
        (
            "    - {name: mode, value: 1, type: int}\n"
            "    - {name: mode, from: reduction, type: string, default: mean}\n",
            "41: device.attrs[1].name: duplicate device attr 'mode'",
        ),
    ],
)
def test_device_attr_names_clash_with_no_l0_parameter_and_no_other_device_attr(
    tmp_path: Path, catalogue: Catalogue, attrs: str, error: str
) -> None:
    """A carried and a constant device attr follow one rule: its name is no parameter of the L0 API and no
    earlier device attr's."""
    f, errs = bad(
        tmp_path,
        catalogue,
        ("compute:\n", DEVICE),
        ("    - {name: reduction, from: reduction, type: string, default: mean}\n", attrs),
    )
    assert errs == [f"{f}:{error}"]


def test_device_auto_contiguous_and_attr_type_give_the_opdef_declarations(tmp_path: Path, catalogue: Catalogue) -> None:
    """``auto_contiguous: true`` marks one tensor AutoContiguous (the others stay unmarked); ``attr_type:
    REQUIRED`` with a default is a REQUIRED attr whose setter still gets the default."""
    path = tmp_path / STEM
    text = edit(BASE, "compute:\n", DEVICE)
    text = edit(text, "{name: label, from: target}", "{name: label, from: target, auto_contiguous: true}")
    text = edit(text, "{name: gradient, from: out}", "{name: gradient, from: out, auto_contiguous: true}")
    text = edit(text, "type: string, default: mean}", "type: string, default: mean, attr_type: REQUIRED}")
    path.write_text(text)
    dev = load_op_spec(path, catalogue).device_interface
    assert [(t.name, t.auto_contiguous) for t in (*dev.inputs, *dev.outputs)] == [
        ("predict", False),
        ("label", True),
        ("dout", False),
        ("gradient", True),
    ]
    assert [(a.name, a.attr_type, a.default) for a in dev.attrs] == [("reduction", "REQUIRED", "mean")]


def test_device_opdef_key_errors(tmp_path: Path, catalogue: Catalogue) -> None:
    """Each device entry lists its allowed keys; auto_contiguous is a boolean; attr_type is REQUIRED or
    OPTIONAL, and OPTIONAL needs a default."""
    f, errs = bad(
        tmp_path,
        catalogue,
        ("compute:\n", DEVICE),
        ("{name: predict, from: self}", "{name: predict, from: self, contiguous: true}"),
        ("{name: label, from: target}", "{name: label, from: target, auto_contiguous: yes}"),
        ("{name: gradient, from: out}", "{name: gradient, from: out, optional: false}"),
        ("type: string, default: mean}", "type: string, default: mean, attr_type: OPTIONAL}\n"
         "    - {name: p, value: 1, type: int, attr_type: required}\n"
         "    - {name: q, value: 1, type: int, attr_type: OPTIONAL}\n"
         "    - {name: r, value: 1, type: int, required: true}"),
    )  # fmt: skip
    assert errs == [
        f"{f}:34: device.inputs[0].contiguous: unknown key 'contiguous' (did you mean 'auto_contiguous'?); allowed: "
        "auto_contiguous, dtype, dtype_map, "
        "fill, from, like, name, optional",
        f"{f}:35: device.inputs[1].auto_contiguous: expected true or false, got string 'yes'",
        f"{f}:38: device.outputs[0].optional: unknown key 'optional'; allowed: auto_contiguous, from, name",
        f"{f}:41: device.attrs[1].attr_type: unknown attr_type 'required'; allowed: OPTIONAL, REQUIRED",
        f"{f}:42: device.attrs[2].attr_type: an OPTIONAL device attr needs a 'default' (the value the OpDef registers)",
        f"{f}:43: device.attrs[3].required: unknown key 'required'; allowed: attr_type, default, from, name, type, "
        "value",
    ]


EXAMPLE_INPUTS = """\
example:
  inputs:
    gradOutput: {shape: [2], dtype: FLOAT, values: [1, 2]}
    self: {shape: [2], dtype: FLOAT, values: [1, 2]}
    target: {shape: [2], dtype: FLOAT, values: [1, 2]}
"""


@pytest.mark.parametrize(
    ("section", "errors"),
    [
        (
            'constraints:\n  - name: c\n    require: "reduction >= 0"\n    message: bad\n    let: 5\n',
            ["45: constraints[0].let: expected a mapping of name to expression, got integer 5"],
        ),
        (
            "example:\n  inputs: [1, 2]\n  attrs: {reduction: 0}\n  output: {shape: [2], dtype: FLOAT}\n",
            ["42: example.inputs: expected a mapping of input name to tensor, got a list"],
        ),
        (
            EXAMPLE_INPUTS + "  attrs: 1\n  output: {shape: [2], dtype: FLOAT}\n",
            [
                "46: example.attrs: expected a mapping of attr name to value, got integer 1",
                "46: example.attrs: missing example attr 'reduction' (it has no default)",
            ],
        ),
    ],
)
def test_a_section_that_maps_names_must_be_a_mapping(
    tmp_path: Path, catalogue: Catalogue, section: str, errors: list[str]
) -> None:
    f, errs = bad(tmp_path, catalogue, ("  min_bytes_per_core: 32768\n", "  min_bytes_per_core: 32768\n" + section))
    assert errs == [f"{f}:{e}" for e in errors]


def test_device_string_attr_needs_values(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(
        tmp_path,
        catalogue,
        ("compute:\n", DEVICE),
        ("    values: {0: none, 1: mean, 2: sum}\n", ""),
        ('    norm: "1 / numel(out) if reduction == 1 else 1"\n', '    norm: "1 / numel(out)"\n'),
    )
    assert any(
        e.startswith(f"{f}:")
        and "device.attrs[0].type: a string device attr cannot carry aclnn attr 'reduction' (int64, without values)"
        in e
        for e in errs
    ), errs


@pytest.mark.parametrize(
    ("attr", "formula", "what"),
    [
        ("    type: string\n", "gradOutput", "attrs[0].values: string attr 'reduction' needs values"),
        (
            "    type: string\n    values: [none, tanh]\n    default: mean\n",
            "gradOutput",
            "attrs[0].default: default must be one of the values of 'reduction': none, tanh",
        ),
        (
            "    type: string\n    values: [none, tanh]\n",
            'where(reduction == \\"tanhh\\", self, target)',
            'compute.out: string literal "tanhh" is not a value of any string attribute of the op',
        ),
        ("    type: float\n    dtypes: [FLOAT]\n", "gradOutput", "attrs[0].dtypes: dtypes are only allowed for scalar"),
        ("    type: scalar\n    dtypes: [FLOAT, COMPLEX]\n", "gradOutput", "unknown aclScalar dtype 'COMPLEX'"),
        # an attr taking no DOUBLE: a call leaving it out passes its default as a FLOAT aclScalar
        (
            "    type: scalar\n    dtypes: [FLOAT, FLOAT16]\n    default: 1.0e+39\n",
            "gradOutput",
            "attrs[0].default: 1e+39 is beyond FLOAT's range",
        ),
    ],
)
def test_string_and_scalar_attr_misuse_is_a_spec_error(
    tmp_path: Path, catalogue: Catalogue, attr: str, formula: str, what: str
) -> None:
    text = BASE
    start = text.index("attrs:\n")
    end = text.index("outputs:\n")
    text = text[:start] + "attrs:\n  - name: reduction\n" + attr + "    description: d.\n" + text[end:]
    text = edit(text, '  out: "-target * gradOutput * sigmoid(-target * self) * norm"', f'  out: "{formula}"')
    text = text.replace('  scalars:\n    norm: "1 / numel(out) if reduction == 1 else 1"\n', "")
    path = tmp_path / STEM
    errs = errors_of(path, text, catalogue)
    assert any(what in e for e in errs), errs


def test_a_string_attr_without_values_reports_its_default_no_further(tmp_path: Path, catalogue: Catalogue) -> None:
    text = BASE
    start, end = text.index("attrs:\n"), text.index("outputs:\n")
    attr = "  - name: reduction\n    type: string\n    default: mean\n    description: d.\n"
    text = text[:start] + "attrs:\n" + attr + text[end:]
    text = text.replace('  scalars:\n    norm: "1 / numel(out) if reduction == 1 else 1"\n', "")
    text = edit(text, '  out: "-target * gradOutput * sigmoid(-target * self) * norm"', '  out: "gradOutput"')
    errs = errors_of(tmp_path / STEM, text, catalogue)
    assert [e for e in errs if "attrs[0]" in e] == [
        f"{tmp_path / STEM}:22: attrs[0].values: string attr 'reduction' needs values: the list of strings it accepts"
    ]


def test_signature_orders_the_aclnn_parameters(tmp_path: Path, catalogue: Catalogue) -> None:
    path = tmp_path / STEM
    path.write_text(edit(BASE, "inputs:\n", "signature: [self, reduction, gradOutput, out, target]\ninputs:\n"))
    spec = load_op_spec(path, catalogue)
    assert spec.aclnn_order == ("self", "reduction", "gradOutput", "out", "target")
    path.write_text(BASE)
    assert load_op_spec(path, catalogue).aclnn_order == ("gradOutput", "self", "target", "reduction", "out")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            "[gradOutput, self, target, reduction]",
            "8: signature: the signature must list every input, attr and output once; missing: out",
        ),
        (
            "[gradOutput, self, target, reduction, out, self]",
            "8: signature[5]: 'self' is listed twice; each parameter appears once",
        ),
        (
            "[gradOutput, self, target, reduction, outt]",
            "8: signature[4]: 'outt' is not an input, attr or output of the op; "
            "allowed: gradOutput, self, target, reduction, out",
        ),
        ("gradOutput", "8: signature: expected a list, got string 'gradOutput'"),
    ],
)
def test_signature_errors(tmp_path: Path, catalogue: Catalogue, value: str, message: str) -> None:
    f, errs = bad(tmp_path, catalogue, ("inputs:\n", f"signature: {value}\ninputs:\n"))
    assert errs == [f"{f}:{message}"]


def test_device_shared_absent_host_and_constant_entries(tmp_path: Path, catalogue: Catalogue) -> None:
    """An aclnn input may feed two device inputs; an optional device input may have no source; an aclnn attr
    may stay on the host (host_attrs); a device attr may be a constant (fp32-rounded for a float)."""
    path = tmp_path / STEM
    text = edit(BASE, "compute:\n", DEVICE)
    text = edit(
        text,
        "    - {name: dout, from: gradOutput}\n",
        "    - {name: dout, from: gradOutput}\n    - {name: again, from: self}\n    - {name: extra, optional: true}\n",
    )
    text = edit(
        text,
        "    - {name: reduction, from: reduction, type: string, default: mean}\n",
        "    - {name: alpha, value: 0.1, type: float, default: 0.1}\n    - {name: mode, value: 3, type: int}\n"
        "  host_attrs: [reduction]\n",
    )
    text = edit(text, '    norm: "1 / numel(out) if reduction == 1 else 1"\n', '    norm: "1 / numel(out)"\n')
    path.write_text(text)
    dev = load_op_spec(path, catalogue).device_interface
    assert [(t.name, t.source) for t in dev.inputs] == [
        ("predict", "self"),
        ("label", "target"),
        ("dout", "gradOutput"),
        ("again", "self"),
        ("extra", None),
    ]
    assert dev.input_index("self") == 0
    assert [(a.name, a.source, a.type, a.default, a.value) for a in dev.attrs] == [
        ("alpha", None, "float", 0.10000000149011612, 0.10000000149011612),
        ("mode", None, "int", None, 3),
    ]
    assert dev.host_attrs == ("reduction",)


def test_device_new_entry_errors(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(
        tmp_path,
        catalogue,
        ("compute:\n", DEVICE),
        ("    - {name: gradient, from: out}\n", "    - {name: gradient, from: out}\n    - {name: g2, from: out}\n"),
        (
            "    - {name: dout, from: gradOutput}\n",
            "    - {name: dout, from: gradOutput}\n    - {name: e}\n    - {name: o, optional: false}\n",
        ),
        (
            "    - {name: reduction, from: reduction, type: string, default: mean}\n",
            "    - {name: reduction, from: reduction, type: string, default: mean}\n"
            "    - {name: c, value: 1.5, from: reduction, type: float}\n    - {name: d, value: yes, type: int}\n"
            "  host_attrs: [reduction, nope]\n",
        ),
    )
    assert errs == [
        f"{f}:37: device.inputs[3].from: missing required key 'from'; only an 'optional: true' device input may "
        "omit it",
        f"{f}:38: device.inputs[4].optional: a device input without 'from' must be 'optional: true' (passed null)",
        f"{f}:41: device.outputs[1].from: aclnn output 'out' is already carried by another device output",
        f"{f}:43: device.attrs[0].from: aclnn attr 'reduction' is listed in host_attrs (not sent to the device)",
        f"{f}:44: device.attrs[1]: a device attr needs exactly one of 'from' (an aclnn attr) and 'value' (a constant)",
        f"{f}:45: device.attrs[2].value: expected a value of the device attr type 'int', got 'yes'",
        f"{f}:46: device.host_attrs[1]: 'nope' is not an aclnn attr; allowed: reduction",
        f"{f}:51: compute.scalars.norm: the compute reads reduction, listed in device.host_attrs: the device op does "
        "not take it, so the kernel cannot read it",
    ]


@pytest.mark.parametrize(
    ("constraint", "field", "what"),
    [
        ('require: "1 < 2"', "require", "always holds, so it checks nothing"),
        ('require: "2 < 1 or 3 == 4"', "require", "never holds, so every call would be refused"),
        ('let: {k: "4 * 2"}\n    require: "k > 1"', "require", "always holds, so it checks nothing"),
        ('when: "1 > 2"\n    require: "reduction >= 0"', "when", "never holds, so the constraint never applies"),
    ],
)
def test_a_constraint_condition_that_reads_nothing_of_the_call_is_an_error(
    tmp_path: Path, catalogue: Catalogue, constraint: str, field: str, what: str
) -> None:
    constraints = f'constraints:\n  - name: c\n    {constraint}\n    message: "bad"\n'
    f, errs = bad(tmp_path, catalogue, ("tiling:\n", constraints + "tiling:\n"))
    assert len(errs) == 1, errs
    text = (tmp_path / STEM).read_text().splitlines()
    line = next(i for i, t in enumerate(text, 1) if t.strip().startswith(f"{field}:"))
    assert errs[0] == (
        f"{f}:{line}: constraints[0].{field}: '{field}' reads no tensor, attribute or product value and {what}; "
        "make it depend on the call"
    )


def test_a_constraint_that_reads_a_product_value_or_a_let_of_the_call_is_accepted(
    tmp_path: Path, catalogue: Catalogue
) -> None:
    constraints = (
        'constraints:\n  - name: c\n    when: "1 < 2"\n    let: {k: "reduction * 2"}\n'
        '    require: "k >= 0 and coreNum > 0"\n    message: "bad"\n'
    )
    path = tmp_path / STEM
    path.write_text(edit(BASE, "tiling:\n", constraints + "tiling:\n"))
    assert [c.name for c in load_op_spec(path, catalogue).constraints] == ["c"]


def test_a_name_declared_twice_is_listed_once_among_the_allowed_names(tmp_path: Path, catalogue: Catalogue) -> None:
    """Two inputs named ``self``: the duplicate is an error of its own, and the follow-on errors of formulas
    that name the lost ``target`` listed ``inputs: gradOutput, self, self``."""
    _, errs = bad(tmp_path, catalogue, ("  - name: target\n", "  - name: self\n"))
    assert any("self" in e and "target" not in e for e in errs), errs
    follow_on = [e for e in errs if "allowed here" in e]
    assert follow_on, errs
    assert all("self, self" not in e for e in follow_on), follow_on
    assert any("inputs: gradOutput, self;" in e for e in follow_on), follow_on


# ------------------------------------------------------------------------------ the graph section

GRAPH = """graph:
  source: loss/x/op_graph/x_proto.h
  inputs:
    - {name: dy, symbol: T}
    - {name: x, dtypes: [FLOAT, FLOAT17]}
  outputs:
    - {name: z, symbol: Unary}
  datatypes:
    - {name: T, dtypes: [FLOAT]}
    - {name: U, dtypes: [FLOAT16]}
  attrs:
    - {name: alpha, type: Float}
    - {name: beta, type: Double, default: 1.0}
    - {name: gamma, type: Int, default: 1.5}
    - {name: delta, type: Bool, required: false}
compute:"""


def test_graph_section_errors_name_line_and_field(tmp_path: Path, catalogue: Catalogue) -> None:
    """Each mistake of a ``graph`` section is one error at its line and field; the spec loads nothing."""
    f, errs = bad(tmp_path, catalogue, ("compute:", GRAPH))
    line = BASE[: BASE.index("compute:")].count("\n") + 1
    assert errs == [
        f"{f}:{line + 4}: graph.inputs[1].dtypes[1]: unknown ge::DataType 'FLOAT17'; allowed: "
        + ", ".join(GRAPH_DATA_TYPES),
        f"{f}:{line + 6}: graph.outputs[0].symbol: unknown symbol 'Unary'; allowed: T, U, ALL, QuantifiedType, "
        "OrdinaryType, BasicType, NumberType, RealNumberType, ComplexDataType, IntegerDataType, SignedDataType, "
        "UnsignedDataType, FloatingDataType, IndexNumberType, UnaryDataType, FLOAT",
        f"{f}:{line + 9}: graph.datatypes[1].name: datatype 'U' is declared but no input or output names it as "
        "its symbol",
        f"{f}:{line + 11}: graph.attrs[0]: give either a 'default' or 'required: true'",
        f"{f}:{line + 12}: graph.attrs[1].type: unknown REG_OP attr type 'Double'; allowed: Int, Float, Bool, "
        "String, ListInt, ListFloat, ListBool",
        f"{f}:{line + 13}: graph.attrs[2].default: expected an integer, got float 1.5",
        f"{f}:{line + 14}: graph.attrs[3].required: write 'required: true' or leave it out and give a 'default'",
    ]


def test_a_graph_section_must_describe_the_opdef_tensor_for_tensor(tmp_path: Path, catalogue: Catalogue) -> None:
    """Another count of inputs, an optional input where the OpDef's is required, and a dtype list sharing no
    dtype with the OpDef's are errors at the section; other names and dtype orders are not (ops-nn's protos
    name tensors apart from their OpDefs)."""
    head = "graph:\n  source: loss/x/op_graph/x_proto.h\n  inputs:\n"
    line = BASE[: BASE.index("compute:")].count("\n") + 1
    one = "    - {name: a, dtypes: [FLOAT]}\n"
    outs = "  outputs:\n    - {name: z, dtypes: [FLOAT16, FLOAT]}\ncompute:"
    f, errs = bad(tmp_path, catalogue, ("compute:", head + one + outs))
    assert errs == [
        f"{f}:{line}: graph: the IR registration has 1 input(s) and 1 output(s), the OpDef 3 and 1: the graph "
        "section describes the same device op, tensor for tensor"
    ]
    three = one + "    - {name: b, optional: true, dtypes: [FLOAT]}\n    - {name: c, dtypes: [INT8]}\n"
    f, errs = bad(tmp_path, catalogue, ("compute:", head + three + outs))
    assert errs == [
        f"{f}:{line}: graph: graph input 1 (b) is optional, the OpDef's input 1 is REQUIRED",
        f"{f}:{line}: graph: graph tensor c lists none of the dtypes the OpDef registers for it (BF16, FLOAT, "
        "FLOAT16): no graph could run the device op",
    ]
    fine = one + "    - {name: b, dtypes: [INT32, FLOAT]}\n    - {name: c, symbol: UnaryDataType}\n"
    path = tmp_path / STEM
    path.write_text(edit(BASE, "compute:", head + fine + outs))
    spec = load_op_spec(path, catalogue)
    assert spec.graph is not None and [t.name for t in spec.graph.inputs] == ["a", "b", "c"]


_SOFTMAX_COLUMNS = """\
  dtype_columns:                    # ops-nn's four SoftmaxV2 columns, in its order
    - {x: FLOAT, y: FLOAT}
    - {x: FLOAT16, y: FLOAT16}
    - {x: BF16, y: BF16}
    - {x: FLOAT16, y: FLOAT, half_to_float: true}
"""


def _softmax_with_columns(tmp_path: Path, columns: str) -> tuple[str, list[str]]:
    """The project's softmax spec with its ``device.dtype_columns`` replaced by ``columns``, loaded against the
    project's catalogue: (path, errors)."""
    specs = Path(__file__).resolve().parents[1] / "specs"
    text = (specs / "softmax.yaml").read_text()
    assert _SOFTMAX_COLUMNS in text
    path = tmp_path / "softmax.yaml"
    return str(path), errors_of(path, text.replace(_SOFTMAX_COLUMNS, columns), load_catalogue(specs / "products.yaml"))


def test_device_dtype_column_entry_errors(tmp_path: Path, catalogue: Catalogue) -> None:
    """Each column names every device tensor with a dtype its aclnn tensor takes, sets only a bool or int
    constant device attr to a value of its type, differs from the earlier ones in its dtypes, and does not
    repeat an earlier column's input dtypes and attr values with other output dtypes."""
    f, errs = _softmax_with_columns(
        tmp_path,
        "  dtype_columns:\n"
        "    - {x: FLOAT, y: FLOAT}\n"  # line 52
        "    - {x: FLOAT16}\n"
        "    - {x: INT32, y: INT32}\n"
        "    - {x: FLOAT16, y: FLOAT, half_to_float: 1}\n"
        "    - {x: FLOAT16, y: FLOAT, axes: [1]}\n"
        "    - {x: FLOAT, y: FLOAT, products: [Ascend310P]}\n"
        "    - {x: FLOAT16, y: FLOAT16}\n"
        "    - {x: FLOAT16, y: FLOAT}\n",
    )
    assert errs == [
        f"{f}:53: device.dtype_columns[1].y: missing required key 'y'; required here: x, y",
        f"{f}:54: device.dtype_columns[2].x: 'x' carries 'self', which does not take INT32; its dtypes are FLOAT, "
        "FLOAT16, BF16",
        f"{f}:54: device.dtype_columns[2].y: 'y' carries 'out', which does not take INT32; its dtypes are FLOAT, "
        "FLOAT16, BF16",
        f"{f}:55: device.dtype_columns[3].half_to_float: expected a value of the device attr type 'bool', got 1",
        f"{f}:56: device.dtype_columns[4].axes: a column may set a constant device attr of type bool or int only; "
        "'axes' is not one",
        f"{f}:57: device.dtype_columns[5].products[0]: 'Ascend310P' is not a product of the op (Ascend910, "
        "Ascend910B, Ascend910_93, Ascend950)",
        f"{f}:59: device.dtype_columns[7]: column (self FLOAT16, out FLOAT) has the input dtypes and attr values "
        "of column 1 (self FLOAT16, out FLOAT16) but other output dtypes; the device op's output dtypes follow "
        "from its inputs' dtypes and attrs (InferDataType): set a constant device attr to tell them apart, or "
        "mark it twin: true (registered, never what the L0 API allocates)",
    ]


def test_an_unknown_product_of_a_dtype_column_is_one_error(tmp_path: Path, catalogue: Catalogue) -> None:
    """A product the catalogue does not know is reported once, as unknown (not also as not the op's)."""
    f, errs = _softmax_with_columns(
        tmp_path, _SOFTMAX_COLUMNS.replace("{x: FLOAT, y: FLOAT}", "{x: FLOAT, y: FLOAT, products: [Ascend999]}")
    )
    assert len(errs) == 1
    assert errs[0].startswith(f"{f}:52: device.dtype_columns[0].products[0]: unknown product 'Ascend999'; allowed: ")


def test_a_narrowed_dtype_column_holds_all_or_none_of_the_products_of_an_npu_arch(
    tmp_path: Path, catalogue: Catalogue
) -> None:
    """The L2 API tells products apart by NpuArch only: a column on Ascend910B (NpuArch 2201) but not on
    Ascend910_93 (also 2201) is an error at its products; both of them, or Ascend950 alone (3510), load."""
    last = "{x: FLOAT16, y: FLOAT, half_to_float: true}"
    f, errs = _softmax_with_columns(
        tmp_path, _SOFTMAX_COLUMNS.replace(last, last[:-1] + ", products: [Ascend950, Ascend910B]}")
    )
    assert errs == [
        f"{f}:55: device.dtype_columns[3].products: 'Ascend910_93' is missing: it shares npu_arch 2201 with a "
        "listed product, and the generated check selects products by NpuArch; list it too"
    ]
    specs = project_paths().specs
    for listed, want in (
        ("[Ascend910B, Ascend910_93]", ("Ascend910B", "Ascend910_93")),
        ("[Ascend950]", ("Ascend950",)),
    ):
        path = tmp_path / "softmax.yaml"
        columns = _SOFTMAX_COLUMNS.replace(last, last[:-1] + f", products: {listed}}}")
        path.write_text((specs / "softmax.yaml").read_text().replace(_SOFTMAX_COLUMNS, columns))
        spec = load_op_spec(path, load_catalogue(specs / "products.yaml"))
        assert spec.device_interface.columns[3].combo.products == want


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("Ascend950", "expected a list, got string 'Ascend950'"),
        ("null", "expected a list, got null"),
        ("{a: 1}", "expected a list, got a mapping"),
        ("[1]", "expected a string, got integer 1"),
    ],
)
def test_a_dtype_column_products_not_a_list_of_strings_is_one_error(
    tmp_path: Path, catalogue: Catalogue, value: str, message: str
) -> None:
    last = "{x: FLOAT16, y: FLOAT, half_to_float: true}"
    f, errs = _softmax_with_columns(tmp_path, _SOFTMAX_COLUMNS.replace(last, last[:-1] + f", products: {value}}}"))
    assert len(errs) == 1, errs
    assert errs[0].startswith(f"{f}:55: device.dtype_columns[3].products"), errs
    assert message in errs[0], errs


def test_device_dtype_columns_hold_each_one_dtype_column(tmp_path: Path, catalogue: Catalogue) -> None:
    """Every dtype of the first input has its one-dtype column, without attrs (anywhere in the OpDef's
    order); two columns of the same dtypes are one too many."""
    f, errs = _softmax_with_columns(
        tmp_path,
        "  dtype_columns:\n"
        "    - {x: FLOAT, y: FLOAT}\n"
        "    - {x: FLOAT16, y: FLOAT, half_to_float: true}\n"
        "    - {x: BF16, y: FLOAT}\n"
        "    - {x: FLOAT16, y: FLOAT16}\n",
    )
    assert errs == [
        f"{f}:51: device.dtype_columns: dtype_columns must hold the one-dtype column (every tensor of that dtype, "
        "no attr set, on every product of the op) of each dtype of 'self': the L2 API launches it when the "
        "aclnn tensors' dtypes match no column; missing: BF16"
    ]
    f, errs = _softmax_with_columns(
        tmp_path, "  dtype_columns:\n    - {x: FLOAT, y: FLOAT}\n    - {x: FLOAT, y: FLOAT}\n"
    )
    assert errs == [f"{f}:53: device.dtype_columns[1]: duplicate dtype column (self FLOAT, out FLOAT), as column 0"]


def test_device_dtype_columns_only_where_the_family_honours_them(tmp_path: Path, catalogue: Catalogue) -> None:
    """An elementwise spec lists dtype columns as a row_reduce one does (an empty list is an error); no spec
    lists them beside device.dtypes."""
    f, errs = bad(
        tmp_path,
        catalogue,
        ("compute:\n", DEVICE.replace("  dtypes: [FLOAT16, FLOAT, BF16]\n", "  dtype_columns: []\n")),
    )
    assert errs == [
        f"{f}:41: device.dtype_columns: empty dtype_columns list; give at least one column or leave the key out"
    ]
    f, errs = _softmax_with_columns(
        tmp_path, _SOFTMAX_COLUMNS.replace("  dtype_columns:", "  dtypes: [FLOAT, FLOAT16, BF16]\n  dtype_columns:")
    )
    assert errs == [
        f"{f}:52: device.dtype_columns: give device.dtypes (the order of one-dtype columns) or device.dtype_columns, "
        "not both"
    ]


def test_a_column_naming_an_int_array_carrier(tmp_path: Path) -> None:
    """A column may register an int_array carrier as INT32 or INT64 only, and in another dtype than the L0 API
    sends only after a launched column of its other dtypes and attrs on each of its products (whose tiling
    key it takes); a repeat of such a column is a duplicate."""
    specs = project_paths().specs
    text = (specs / "layer_norm.yaml").read_text()
    first = "    - {x: FLOAT, normalized_shape: INT64, gamma: FLOAT, beta: FLOAT, y: FLOAT, mean: FLOAT, rstd: FLOAT, "
    assert first in text
    line = text[: text.index(first)].count("\n") + 1
    path = tmp_path / "layer_norm.yaml"
    catalogue = load_catalogue(specs / "products.yaml")
    f = str(path)
    for replacement, message in (
        (
            first.replace("INT64", "FLOAT"),
            "[5].normalized_shape: 'normalized_shape' carries an int_array attr: INT32 or INT64, not FLOAT",
        ),
        (
            first.replace("gamma: FLOAT, beta: FLOAT", "gamma: FLOAT16, beta: FLOAT16"),
            "[5]: column (input FLOAT, "
            "weightOptional FLOAT16, biasOptional FLOAT16, out FLOAT, meanOutOptional FLOAT, rstdOutOptional FLOAT, "
            "normalized_shape INT64) registers normalized_shape in another dtype than the L0 API sends; an earlier "
            "column with its other dtypes and attrs, on each of its products, must give its tiling key (the kernel "
            "does not read the array)",
        ),
    ):
        errs = errors_of(path, text.replace(first, replacement), catalogue)
        assert errs == [f"{f}:{line}: device.dtype_columns{message}"]
    errs = errors_of(path, text.replace(first, first + "products: [Ascend950]}\n" + first), catalogue)
    assert errs == [
        f"{f}:{line + 1}: device.dtype_columns[6]: duplicate dtype column (input FLOAT, weightOptional FLOAT, "
        "biasOptional FLOAT, out FLOAT, meanOutOptional FLOAT, rstdOutOptional FLOAT, normalized_shape INT64), as "
        "column 5"
    ]


def test_a_string_attr_without_values_is_one_error_in_every_section_using_it(tmp_path: Path) -> None:
    """A spec whose string attr is used by the device attrs (a default), the formula (a string literal) and the
    example: removing its values is reported once, at the attr, not again in each of those sections."""
    text = (project_paths().specs / "gelu_backward_v2.yaml").read_text()
    assert text.count("    values: [none, tanh]\n") == 1 and '"tanh"' in text
    path = tmp_path / "gelu_backward_v2.yaml"
    errs = errors_of(path, text.replace("    values: [none, tanh]\n", ""), load_project()[0])
    assert len(errs) == 1 and "attrs[0].values: string attr 'approximate' needs values" in errs[0], errs


def test_a_value_the_yaml_reader_refuses_is_one_error(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(tmp_path, catalogue, ("category: loss", "category: !!binary aGVsbG8="))
    assert errs == [f"{f}:41: category: YAML tag !!binary is not supported; remove it"]
    f, errs = bad(tmp_path, catalogue, ("category: loss", "category: !!timestamp 2001-12-14"))
    assert errs == [f"{f}:41: category: unsupported YAML value of type date; quote it"]


def test_a_byte_order_mark_after_the_first_is_one_readable_error(tmp_path: Path, catalogue: Catalogue) -> None:
    path = tmp_path / STEM
    assert errors_of(path, "\ufeff\ufeff" + BASE, catalogue) == [
        f"{path}:1: yaml: a byte order mark (U+FEFF, invisible) at column 2 (the file starts with two); a file "
        "may start with one, nowhere else: delete it"
    ]
    assert errors_of(path, edit(BASE, "\ncategory: loss", "\ncat\ufeffegory: loss"), catalogue) == [
        f"{path}:41: yaml: a byte order mark (U+FEFF, invisible) at column 4; a file may start with one, nowhere "
        "else: delete it"
    ]
    path.write_text("\ufeff" + BASE)
    assert load_op_spec(path, catalogue).op == "SoftMarginLossBackward"  # one leading mark is fine


def test_an_invisible_character_in_a_key_is_shown_escaped(tmp_path: Path, catalogue: Catalogue) -> None:
    f, errs = bad(tmp_path, catalogue, ("\ncategory: loss", "\ncategory: loss\nop\u200b: x"))
    assert errs[0].startswith(f"{f}:42: op\\u200b: unknown key 'op\\u200b'; allowed: ")


def test_gather_scatter_compute_checks(tmp_path: Path) -> None:
    """The gather_scatter compute keys on specs/embedding.yaml: a constant dim at or past the source's smallest
    rank, an unknown negative_index policy, an output shape that is not the dim kind's rule, an unknown key (the
    message lists the allowed ones)."""
    text = (project_paths().specs / "embedding.yaml").read_text()
    catalogue = load_catalogue(project_paths().specs / "products.yaml")
    lines = text.splitlines()

    def line_of(fragment: str) -> int:
        return next(n for n, t in enumerate(lines, 1) if fragment in t)

    path = tmp_path / "embedding.yaml"
    f = str(path)
    edited = text.replace("  dim: 0 ", "  dim: 2 ").replace("negative_index: zero", "negative_index: clamp")
    assert errors_of(path, edited, catalogue) == [
        f"{f}:{line_of('  dim: 0 ')}: compute.dim: dim 2 is not below the smallest rank of 'weight' (2)",
        f"{f}:{line_of('negative_index:')}: compute.negative_index: negative_index 'clamp' is not one of: zero, wrap",
    ]
    edited = text.replace('"inserted(weight, 0, indices)"', '"replaced(weight, 0, numel(indices))"')
    assert errors_of(path, edited, catalogue)[0] == (
        f"{f}:{line_of('  dest: out')}: compute.dest: output 'out' must have shape 'inserted(weight, 0, indices)' "
        "for this dim, got 'replaced(weight, 0, numel(indices))'"
    )
    edited = text.replace("  dim: 0 ", "  dims: 0 ")
    assert errors_of(path, edited, catalogue)[-1] == (
        f"{f}:{line_of('  dim: 0 ')}: compute.dims: unknown key 'dims' (did you mean 'dim'?); allowed: alpha, dest, "
        "dim, direction, index, negative_index, source, src, value"
    )


def test_gather_elements_compute_checks(tmp_path: Path) -> None:
    """``direction: gather_elements`` on specs/gather.yaml: an index whose rank range is not the source's, a
    constant dim instead of an int64 attr (and the attr then left over), an output shape other than the
    index's name."""
    text = (project_paths().specs / "gather.yaml").read_text()
    catalogue = load_catalogue(project_paths().specs / "products.yaml")
    lines = text.splitlines()

    def line_of(fragment: str) -> int:
        return next(n for n, t in enumerate(lines, 1) if fragment in t)

    path = tmp_path / "gather.yaml"
    f = str(path)
    # the index's rank range is the second `rank: [0, 8]` (self's is the first)
    first = text.index("rank: [0, 8]")
    second = text.index("rank: [0, 8]", first + 1)
    edited = text[:second] + "rank: [0, 1]" + text[second + len("rank: [0, 8]") :]
    assert errors_of(path, edited, catalogue)[0] == (
        f"{f}:{line_of('  index: index')}: compute.index: index input 'index' must have the rank range of 'self' "
        "for gather_elements ([0, 8]), got [0, 1]"
    )
    edited = text.replace("  dim: dim", "  dim: 0")
    errs = errors_of(path, edited, catalogue)
    assert f"{f}:{line_of('  dim: dim')}: compute.dim: direction gather_elements needs an int64 attr as dim" in errs
    edited = text.replace('shape: "index"', 'shape: "self"')
    assert errors_of(path, edited, catalogue)[0] == (
        f"{f}:{line_of('  dest: out')}: compute.dest: output 'out' must have shape 'index' for this dim, got 'self'"
    )
    # an index dtype the kernel cannot decode: one error at compute.index naming the tensor and what it takes
    edited = text.replace("dtypes: [INT64, INT32]", "dtypes: [INT64, INT32, UINT32]", 1)
    assert (
        f"{f}:{line_of('  index: index')}: compute.index: 'index' has dtypes UINT32; an index input takes: INT32, INT64"
        in (errors_of(path, edited, catalogue))
    )


def test_a_refused_catalogue_value_gives_one_error_not_a_follow_on_about_its_stand_in(tmp_path: Path) -> None:
    """A bf16 that is not a boolean is one error: neither the BF16 atomics check nor the agreement of products
    sharing an NpuArch judges the stand-in taken for it."""
    assert catalogue_errors(tmp_path, ("    bf16: true\n", "    bf16: 'true'\n")) == [
        "P:23: products[1].bf16: expected true or false, got string 'true'"
    ]
    twin_of_910b = (
        "    npu_arch: 2002\n    ub_bytes: 262144\n    vector_core_num: 8\n    bf16: false\n    data_copy_pad: false\n"
        "    atomic_add_dtypes: [INT16, FLOAT16, FLOAT]\n    queue_buffer_cap: 8\n    source: test\n"
        "    hw_sync_all: false\n    sys_workspace_bytes: 2097152\n",
        "    npu_arch: 2201\n    ub_bytes: 262144\n    vector_core_num: 8\n    bf16: 1\n    data_copy_pad: true\n"
        "    atomic_add_dtypes: [INT8, INT16, FLOAT16, BF16, INT32, FLOAT]\n    queue_buffer_cap: 8\n    source: test\n"
        "    hw_sync_all: true\n    sys_workspace_bytes: 16777216\n",
    )
    assert catalogue_errors(tmp_path, twin_of_910b) == ["P:37: products[2].bf16: expected true or false, got integer 1"]


def test_scatter_add_compute_checks(tmp_path: Path) -> None:
    """``direction: scatter_add`` on specs/scatter_add.yaml: src with other dtypes than self's, src naming the
    index, a src key with another direction, an output shape other than self's name; nothing is written."""
    text = (project_paths().specs / "scatter_add.yaml").read_text()
    catalogue = load_catalogue(project_paths().specs / "products.yaml")
    lines = text.splitlines()

    def line_of(fragment: str) -> int:
        return next(n for n, t in enumerate(lines, 1) if fragment in t)

    path = tmp_path / "scatter_add.yaml"
    f = str(path)
    src_dtypes = (
        "    dtypes: [FLOAT, FLOAT16, BF16, INT32, INT8, UINT8]\n    rank: [0, 8]\n"
        "    formats: [ND, NCHW, NHWC, HWCN, NDHWC, NCDHW]\n    description: The elements added"
    )
    assert src_dtypes in text
    edited = text.replace(src_dtypes, src_dtypes.replace("INT8, UINT8]", "INT8]"))
    assert errors_of(path, edited, catalogue)[0] == (
        f"{f}:{line_of('  src: src')}: compute.src: 'src' must list the dtypes and product_dtypes of 'self' in the "
        "same order"
    )
    edited = text.replace("  src: src", "  src: index")
    errs = errors_of(path, edited, catalogue)
    assert any("direction scatter_add takes three different inputs as source, index and src" in e for e in errs), errs
    edited = text.replace("direction: scatter_add", "direction: gather_elements")
    assert errors_of(path, edited, catalogue)[0] == (
        f"{f}:{line_of('  src: src')}: compute.src: src is only allowed with direction scatter_add or index_add"
    )
    edited = text.replace('shape: "self"', 'shape: "index"')
    assert errors_of(path, edited, catalogue)[0] == (
        f"{f}:{line_of('  dest: out')}: compute.dest: output 'out' must have shape 'self', got 'index'"
    )


def test_index_add_compute_checks(tmp_path: Path) -> None:
    """``direction: index_add`` on specs/index_add.yaml: an index of rank up to 2, alpha naming the int attr,
    alpha with another direction, the alpha key left out; each error names its file:line."""
    text = (project_paths().specs / "index_add.yaml").read_text()
    catalogue = load_catalogue(project_paths().specs / "products.yaml")
    lines = text.splitlines()

    def line_of(fragment: str) -> int:
        return next(n for n, t in enumerate(lines, 1) if fragment in t)

    path = tmp_path / "index_add.yaml"
    f = str(path)
    assert "    rank: [0, 1]\n" in text
    edited = text.replace("    rank: [0, 1]\n", "    rank: [0, 2]\n")
    assert errors_of(path, edited, catalogue)[0] == (
        f"{f}:{line_of('  index: index')}: compute.index: index input 'index' must have rank 0 or 1 for direction "
        "index_add"
    )
    edited = text.replace("  alpha: alpha", "  alpha: dim")
    assert errors_of(path, edited, catalogue)[0] == (
        f"{f}:{line_of('  alpha: alpha')}: compute.alpha: 'dim' is not a scalar attr; direction index_add takes a "
        "scalar attr as alpha"
    )
    edited = text.replace("direction: index_add", "direction: scatter_add")
    assert any("compute.alpha" in e and "alpha" in e for e in errors_of(path, edited, catalogue))
    edited = text.replace("  alpha: alpha\n", "")
    errs = errors_of(path, edited, catalogue)
    assert any("direction index_add needs 'alpha' (a scalar attr)" in e for e in errs), errs
