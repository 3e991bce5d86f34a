"""Hostile specs fail fast at load with ``file:line`` and the field: a YAML alias bomb is not expanded,
host expressions that overflow int64 or divide by something that may be 0 are spec errors."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codegen.families.elementwise.compute import ElementwiseCompute
from codegen.paths import project_paths
from codegen.spec.errors import SpecErrors
from codegen.spec.loader import load_catalogue, load_op_spec
from codegen.spec.model import Catalogue
from tests.test_spec_errors import BASE, CATALOGUE, STEM, bad, edit


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory: pytest.TempPathFactory) -> Catalogue:
    path = tmp_path_factory.mktemp("catalogue") / "products.yaml"
    path.write_text(CATALOGUE)
    return load_catalogue(path)


SCALAR = '    norm: "1 / numel(out) if reduction == 1 else 1"\n'
FORMULA = '  out: "-target * gradOutput * sigmoid(-target * self) * norm"\n'
INT_ADVICE = "an integer division by 0 crashes the host code"
FLOAT_ADVICE = "a division by 0 gives inf or nan in the host code"

BOMB = """\
op: Bomb
a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]
i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]
"""


def test_a_yaml_alias_bomb_fails_fast_with_file_line_in_little_memory(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB)
    code = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"  # 1 GiB: the expansion needs ~7 GB
        "from codegen.spec.errors import SpecErrors\n"
        "from codegen.spec.yaml_reader import read_yaml\n"
        "from pathlib import Path\n"
        "errors = []\n"
        f"read_yaml(Path({str(path)!r}), errors)\n"
        "print(errors[0]); print(len(errors))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    first, count = proc.stdout.splitlines()
    assert first == f"{path}:3: b[0]: YAML aliases (*a) are not supported; write the value out"
    assert int(count) == 8 * 9  # every alias occurrence once, never its expansion


def test_generate_with_an_alias_bomb_writes_nothing(tmp_path: Path) -> None:
    from codegen.paths import project_paths

    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "products.yaml").write_text((project_paths().specs / "products.yaml").read_text())
    (specs / "bomb.yaml").write_text(BOMB)
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "codegen", "--specs", str(specs), "generate", "--out", str(out)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 2
    lines = proc.stderr.splitlines()
    assert f"{specs / 'bomb.yaml'}:3: b[0]: YAML aliases (*a) are not supported; write the value out" in lines
    assert lines[-1].endswith("spec error(s); nothing was written")
    assert not out.exists()


@pytest.mark.parametrize("opening", ["[", "{a: ", "- "])
def test_deeply_nested_yaml_is_a_spec_error_at_its_line_not_a_recursion_error(tmp_path: Path, opening: str) -> None:
    # PyYAML composes nested lists and mappings recursively: 20000 levels exhaust Python's recursion limit
    from codegen.spec.yaml_reader import read_yaml

    # block style: 1000 levels are a 1 MB file, within the spec size limit (1 MiB), still past the recursion limit
    depth = 20000 if opening != "- " else 1000
    if opening == "- ":  # block style: one level per line, each indented one more step
        nested = "".join("  " * i + "- \n" for i in range(depth)) + "  " * depth + "1\n"
    else:
        nested = opening * depth + "1" + ("]" if opening == "[" else "}") * depth + "\n"
    path = tmp_path / "deep.yaml"
    path.write_text("op: Deep\nx:" + ("\n" if opening == "- " else " ") + nested)
    errors: list = []
    assert read_yaml(path, errors) is None
    assert len(errors) == 1
    text = str(errors[0])
    assert text.startswith(f"{path}:")
    assert "nested more than 100 levels deep" in text
    line = int(text.split(":")[1])
    # the node one level too deep: the document is level 1, x's value level 2 (line 3 in block style)
    assert line == (2 if opening != "- " else 3 + 99)


@pytest.mark.parametrize(
    ("edits", "line", "field", "message"),
    [
        (
            [(SCALAR, '    norm: "99999999999 * 99999999999 * 99999999999"\n')],
            35,
            "compute.scalars.norm",
            "'99999999999 * 99999999999 * 99999999999' cannot be computed in int64 (integer overflow: "
            "99999999999 * 99999999999 = 9999999999800000000001 is outside int64); the generated C++ would overflow",
        ),
        (
            [(SCALAR, '    norm: "numel(out) * 99999999999 * 99999999999"\n')],
            35,
            "compute.scalars.norm",
            "'numel(out) * 99999999999 * 99999999999' multiplies the constants 99999999999 * 99999999999 = "
            "9999999999800000000001, beyond int64; the generated C++ would overflow",
        ),
        (
            [(SCALAR, '    norm: "1 // 0"\n')],
            35,
            "compute.scalars.norm",
            f"'1 // 0' divides by '0', which is 0 ({INT_ADVICE}); divide by a nonzero value",
        ),
        (
            [(FORMULA, '  out: "self / 0"\n')],
            36,
            "compute.out",
            f"'self / 0' divides by '0', which is 0 ({FLOAT_ADVICE}); divide by a nonzero value",
        ),
        (
            [(FORMULA, '  out: "self * (1 / (2 - 2))"\n')],
            36,
            "compute.out",
            f"'self * (1 / (2 - 2))' divides by '2 - 2', which is 0 ({FLOAT_ADVICE}); divide by a nonzero value",
        ),
        (
            [(SCALAR, '    norm: "numel(out) // rank(out)"\n')],
            35,
            "compute.scalars.norm",
            f"'numel(out) // rank(out)' divides by 'rank(out)' (0 for a 0-d tensor), which may be 0 ({INT_ADVICE}); "
            'add a constraint such as require: "rank(out) != 0" (or "rank(out) > 0"), '
            "or guard the division: '... if rank(out) != 0 else ...'",
        ),
        (
            [(SCALAR, '    norm: "1.0 / (rank(out) - 1) if rank(out) > 0 else 1.0"\n')],
            35,
            "compute.scalars.norm",
            f"'1.0 / (rank(out) - 1) if rank(out) > 0 else 1.0' divides by 'rank(out) - 1', an expression of "
            f"'rank(out)' (0 for a 0-d tensor), which may be 0 ({FLOAT_ADVICE}); "
            # the rank that makes the divisor 0, not 'rank(out) != 0' (found by a review helper: that advice
            # did not help, and no guard of the divisor was accepted)
            'add a constraint such as require: "rank(out) != 1", '
            "or guard the division: '... if rank(out) != 1 else ...'",
        ),
        (
            [
                (
                    "tiling:\n",
                    'constraints:\n  - name: c\n    require: "100 // numel(self) > 1"\n    message: "m"\ntiling:\n',
                ),
            ],
            39,
            "constraints[0].require",
            "'100 // numel(self) > 1' divides by 'numel(self)' (0 for an empty tensor), which may be 0 "
            f"({INT_ADVICE}); "
            'add a constraint such as require: "numel(self) != 0" (or "numel(self) > 0"), '
            "or guard the division: '... if numel(self) != 0 else ...'",
        ),
        (
            [
                (
                    "tiling:\n",
                    'constraints:\n  - name: c\n    require: "dim(self, 0) > 4 or 8 % dim(self, 0) == 0"\n'
                    '    message: "m"\ntiling:\n',
                ),
            ],
            39,
            "constraints[0].require",
            f"'dim(self, 0) > 4 or 8 % dim(self, 0) == 0' divides by 'dim(self, 0)' (0 for an empty tensor), "
            f'which may be 0 ({INT_ADVICE}); add a constraint such as require: "dim(self, 0) != 0" '
            "(or \"dim(self, 0) > 0\"), or guard the division: '... if dim(self, 0) != 0 else ...'",
        ),
    ],
)
def test_host_expressions_that_overflow_or_may_divide_by_zero_are_spec_errors(
    tmp_path: Path, catalogue: Catalogue, edits: list[tuple[str, str]], line: int, field: str, message: str
) -> None:
    f, errs = bad(tmp_path, catalogue, *edits)
    assert errs == [f"{f}:{line}: {field}: {message}"]


#: A constraints section before ``tiling:`` with one unconditional require (``{}``).
CONSTRAINT = 'constraints:\n  - name: c\n    require: "{}"\n    message: "m"\ntiling:\n'


@pytest.mark.parametrize(
    ("scalar", "extra"),
    [
        ("numel(out) // rank(out) if rank(out) > 0 else 0", ()),  # a guard on the way
        (
            "numel(out) // rank(out)",
            (('    rank: [0, 8]\n    shape: "broadcast', '    rank: [1, 8]\n    shape: "broadcast'),),
        ),
        ("10 // numel(out)", ()),  # the tiling runs only for a non-empty output
        ("ubBytes // coreNum", ()),  # platform facts are positive
        ("10.0 / (rank(out) + 1)", ()),  # nonzero at every rank the output allows
        # a guard that leaves only ranks where the divisor is not 0, or that names the divisor itself
        ("1.0 / (rank(out) - 1) if rank(out) != 1 else 1.0", ()),
        ("1.0 / (rank(out) - 1) if rank(out) > 1 else 1.0", ()),
        ("1.0 / (rank(out) - 1) if rank(out) - 1 != 0 else 1.0", ()),
        ("1.0 / (rank(out) - 1) if not rank(out) - 1 == 0 else 1.0", ()),
        # an unconditional constraint does the same
        ("1.0 / (rank(out) - 1)", (("tiling:\n", CONSTRAINT.format("rank(out) != 1")),)),
        ("1.0 / (rank(out) - 1)", (("tiling:\n", CONSTRAINT.format("rank(out) - 1 > 0")),)),
    ],
)
def test_divisions_proved_safe_are_accepted(
    tmp_path: Path, catalogue: Catalogue, scalar: str, extra: tuple[tuple[str, str], ...]
) -> None:
    text = edit(BASE, SCALAR, f'    norm: "{scalar}"\n')
    for old, new in extra:
        text = edit(text, old, new)
    path = tmp_path / STEM
    path.write_text(text)
    spec = load_op_spec(path, catalogue)
    assert isinstance(spec.compute, ElementwiseCompute) and spec.compute.scalars[0][0] == "norm"


@pytest.mark.parametrize("data", [b"op: \x07x\n", b"op: x\n\x00\n", b"op: \x1bx\n"])
def test_control_characters_in_a_spec_are_a_file_line_error_not_a_traceback(tmp_path: Path, data: bytes) -> None:
    """PyYAML's reader refuses control characters while it is constructed; that is a spec error naming the
    file and line (exit 2), never a ReaderError traceback."""
    specs = tmp_path / "specs"
    specs.mkdir()
    shutil.copy(project_paths().specs / "products.yaml", specs)
    (specs / "bad.yaml").write_bytes(data)
    proc = subprocess.run(
        [sys.executable, "-m", "codegen", "--specs", str(specs), "list"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    line = data[: data.index(next(c for c in data if c < 9 or 13 < c < 32).to_bytes(1, "little"))].count(b"\n") + 1
    assert f"{specs / 'bad.yaml'}:{line}: yaml: cannot read the file: character 0x" in proc.stderr


def test_catalogue_core_count_ub_and_workspace_have_upper_bounds(tmp_path: Path) -> None:
    """A core count beyond a launch's blockDim range (and a UB or system workspace beyond what the kernel API
    can address) is a catalogue error at its line, not a g++ narrowing error later."""
    text = (project_paths().specs / "products.yaml").read_text()
    cases = [
        ("vector_core_num: 32", "vector_core_num: 99999999999999999999", "allowed: 1..65535"),
        ("ub_bytes: 262144", "ub_bytes: 4294967296", "allowed: 1..2147483647"),
    ]
    for old, new, allowed in cases:
        assert old in text
        bad = tmp_path / "products.yaml"
        bad.write_text(text.replace(old, new, 1))
        line = text[: text.index(old)].count("\n") + 1
        proc = subprocess.run(
            [sys.executable, "-m", "codegen", "--products", str(bad), "list"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert f"{bad}:{line}: " in proc.stderr and allowed in proc.stderr


ONE_LINE = "must be one line of printable text (it becomes a C string literal of the op API's error log)"


@pytest.mark.parametrize(
    "message",
    [
        '"too big\\nnext line {reduction}"',  # a line break ended the C++ string literal: the op API did not build
        '"nul \\0 inside {reduction}"',  # g++: null character(s) preserved in literal (an error with -Werror)
        '"tab\\there {reduction}"',
        '"bell \\a {reduction}"',
    ],
)
def test_a_constraint_message_with_a_control_character_is_a_spec_error(
    tmp_path: Path, catalogue: Catalogue, message: str
) -> None:
    constraint = f'constraints:\n  - name: lim\n    require: "reduction >= 0"\n    message: {message}\n'
    f, errs = bad(tmp_path, catalogue, ("tiling:\n", constraint + "tiling:\n"))
    assert errs == [f"{f}:40: constraints[0].message: {ONE_LINE}"]


def test_a_constraint_message_of_printable_unicode_quotes_and_percents_is_accepted(
    tmp_path: Path, catalogue: Catalogue
) -> None:
    constraint = (
        'constraints:\n  - name: lim\n    require: "reduction >= 0"\n    message: "≥ 零 \\" \\\\ %n {reduction}"\n'
    )
    path = tmp_path / STEM
    path.write_text(edit(BASE, "tiling:\n", constraint + "tiling:\n"))
    spec = load_op_spec(path, catalogue)
    assert spec.constraints[0].message == '≥ 零 " \\ %n {reduction}'


@pytest.mark.parametrize("text", ["ends the comment */ here", "opens /* a nested comment"])
def test_a_summary_that_would_end_or_nest_the_prototype_comment_is_a_spec_error(
    tmp_path: Path, catalogue: Catalogue, text: str
) -> None:
    """The summary is the `@brief` of op_graph/<kernel>_proto.h's block comment: `*/` ended it and the rest of
    the summary became C++ (the header did not build); `/*` inside it is -Wcomment, an error for generated code."""
    f, errs = bad(tmp_path, catalogue, ("summary: Backward of the soft margin loss.", f"summary: {text}"))
    assert errs == [
        f"{f}:5: summary: must not contain '/*' or '*/' (the summary is the @brief of the device op's prototype "
        "comment in op_graph/<kernel>_proto.h)"
    ]


FLOAT_ATTR = "  - name: beta\n    type: float\n    default: {default}\n    description: A float.\n"


@pytest.mark.parametrize(("where", "default"), [("default", "1.0e+300"), ("default", "-3.5e38"), ("example", "4e38")])
def test_a_float_attr_value_beyond_fp32_is_a_spec_error(
    tmp_path: Path, catalogue: Catalogue, where: str, default: str
) -> None:
    """A `float` aclnn attr (a C `float` parameter) with default 1e300 passed generate: the op_host test wrote
    `FromFloat(1e+300F)` (g++: floating constant exceeds range of 'float'), and the Python API then refused
    its own default (`must be within float32's range`)."""
    attr = FLOAT_ATTR.format(default="1.0" if where == "example" else default)
    edits = [("outputs:\n", attr + "outputs:\n")]
    if where == "example":
        example = (
            "example:\n  inputs:\n"
            + "".join(f"    {t}: {{shape: [1], dtype: FLOAT, values: [1]}}\n" for t in ("gradOutput", "self", "target"))
            + f"  attrs: {{reduction: 0, beta: {default}}}\n  output: {{shape: [1], dtype: FLOAT}}\n"
        )
        edits.append(("tiling:\n", example + "tiling:\n"))
    f, errs = bad(tmp_path, catalogue, *edits)
    field = "example.attrs.beta" if where == "example" else "attrs[1].default"
    needle = f"beta: {default}}}" if where == "example" else f"default: {default}"
    line = next(i for i, text in enumerate(Path(f).read_text().splitlines(), 1) if needle in text)
    what = "value" if where == "example" else "default"
    assert errs == [
        f"{f}:{line}: {field}: {what} must be within float32's range (+-3.40282347e+38) for a float attr, "
        f"got {float(default)!r}"
    ]


LONG = "must be at most 128 characters (it names generated files, e.g. test_<kernel>_infershape.cpp)"


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("kernel: soft_margin_loss_grad", "kernel: " + "k" * 240, "kernel"),  # generate: OSError File name too long
        ("kernel: soft_margin_loss_grad", "kernel: " + "k" * 129, "kernel"),
        ("op_type: SoftMarginLossGrad", "op_type: T" + "y" * 249, "op_type"),
    ],
)
def test_a_name_too_long_for_the_files_it_names_is_a_spec_error(
    tmp_path: Path, catalogue: Catalogue, old: str, new: str, field: str
) -> None:
    """A 240-character kernel passed the loader and `opgen generate` died with a traceback
    (OSError: [Errno 36] File name too long) writing test_<kernel>_tiling.cpp."""
    f, errs = bad(tmp_path, catalogue, (old, new))
    line = BASE.splitlines().index(old) + 1
    assert errs == [f"{f}:{line}: {field}: {LONG}"]


def test_a_long_op_name_is_a_spec_error_and_opgen_new_refuses_it(tmp_path: Path, catalogue: Catalogue) -> None:
    op = "A" + "b" * 199
    path = tmp_path / f"{op.lower()}.yaml"
    path.write_text(edit(BASE, "op: SoftMarginLossBackward", f"op: {op}"))
    with pytest.raises(SpecErrors) as info:
        load_op_spec(path, catalogue)
    assert [str(e) for e in info.value.errors] == [f"{path}:1: op: {LONG}"]
    (tmp_path / "products.yaml").write_text(CATALOGUE)
    proc = subprocess.run(
        [sys.executable, "-m", "codegen", "--specs", str(tmp_path), "new", "A" + "b" * 300, "--family", "elementwise"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr == f"error: op name 'A{'b' * 300}' {LONG}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name, "products.yaml"]


@pytest.mark.parametrize(
    ("old", "new", "products"),
    [
        # isResult with a negative alpha: rejected on every product (constraint alpha_with_result)
        (
            "alpha: 1.0, scale: 1.0, inputScale: 1.0, isResult: true",
            "alpha: -1.0, scale: 1.0, inputScale: 1.0, isResult: true",
            "Ascend910, Ascend910B, Ascend910_93, Ascend950, Ascend310P",
        ),
    ],
)
def test_an_example_that_a_constraint_rejects_is_a_spec_error_at_its_attrs(
    tmp_path: Path, old: str, new: str, products: str
) -> None:
    """An example whose attrs the spec's own constraint rejects generated an example program that fails with
    ACLNN_ERR_PARAM_INVALID on every product; the loader now names the example's attrs line, the constraint,
    the products and the filled-in message. The unchanged spec loads."""
    source = project_paths().specs / "elu_backward.yaml"
    catalogue = load_catalogue(project_paths().specs / "products.yaml")
    path = tmp_path / "elu_backward.yaml"
    path.write_text(source.read_text())
    assert load_op_spec(path, catalogue).example is not None
    path.write_text(edit(source.read_text(), old, new))
    with pytest.raises(SpecErrors) as info:
        load_op_spec(path, catalogue)
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if new in text)
    assert [str(e) for e in info.value.errors] == [
        f"{path}:{line}: example.attrs: the example call violates constraint 'alpha_with_result' "
        f"(not (isResult and alpha < 0)) on {products}: In-place elu backward calculation is triggered with a "
        "negative slope which is not supported (alpha -1.0 with isResult); the example program would fail there "
        "with status 161002. Change the example's attrs or tensors"
    ]


def test_an_example_tensor_a_shape_constraint_rejects_is_a_spec_error(tmp_path: Path) -> None:
    """The same for the example's tensors: gradOutput of another shape than selfOrResult (same_shape)."""
    source = project_paths().specs / "elu_backward.yaml"
    catalogue = load_catalogue(project_paths().specs / "products.yaml")
    path = tmp_path / "elu_backward.yaml"
    old = "gradOutput: {shape: [2, 2], dtype: FLOAT, values: [-2, -1, 0, 1]}"
    path.write_text(
        edit(source.read_text(), old, "gradOutput: {shape: [2, 3], dtype: FLOAT, values: [-2, -1, 0, 1, 2, 3]}")
    )
    with pytest.raises(SpecErrors) as info:
        load_op_spec(path, catalogue)
    messages = [str(e) for e in info.value.errors]
    assert len(messages) == 1 and "violates constraint 'same_shape'" in messages[0], messages


def _constraint(expression: str) -> tuple[str, str]:
    """The edit adding a constraint that reads ``expression`` (guarded by the rank it needs)."""
    text = (
        f'constraints:\n  - name: c\n    when: "rank(self) == 8"\n    require: "{expression} >= 0"\n    message: "m"\n'
    )
    return ("tiling:\n", text + "tiling:\n")


@pytest.mark.parametrize(
    ("where", "expression", "rank", "problem"),
    [
        (
            "constraint",
            "dim(self, 99)",
            "[0, 8]",
            "axis 99 is out of range for every rank 'self' may have (0 to 8): axes -8 to 7",
        ),
        (
            "constraint",
            "dim(self, -9)",
            "[0, 8]",
            "axis -9 is out of range for every rank 'self' may have (0 to 8): axes -8 to 7",
        ),
        (
            "constraint",
            "dim(self, 2)",
            "[1, 2]",
            "axis 2 is out of range for every rank 'self' may have (1 to 2): axes -2 to 1",
        ),
        (
            "constraint",
            "dim(self, 0)",
            "[0, 0]",
            "axis 0 is out of range for every rank 'self' may have (0 to 0): no axis (it is always 0-d)",
        ),
        (
            "shape",
            "dim(self, 8)",
            "[0, 8]",
            "axis 8 is out of range for every rank 'self' may have (0 to 8): axes -8 to 7",
        ),
    ],
)
def test_dim_of_an_axis_no_rank_of_the_tensor_has_is_a_spec_error(
    tmp_path: Path, catalogue: Catalogue, where: str, expression: str, rank: str, problem: str
) -> None:
    """`dim(self, 99)` loaded and generated `ShapeDim(self, 99)`, an out-of-range op::Shape::GetDim in phase 1
    for every call; a literal axis that no rank of the tensor allows is now a spec error at its line."""
    edits = [("    rank: [0, 8]\n    description: The input x.", f"    rank: {rank}\n    description: The input x.")]
    if where == "constraint":
        edits.append(_constraint(expression))
        field = "constraints[0].require"
    else:
        edits.append(
            (
                '    shape: "broadcast(gradOutput, self, target)"',
                f'    shape: "broadcast(gradOutput, self, target) if {expression} > 0 else '
                'broadcast(gradOutput, self, target)"',
            )
        )
        field = "outputs[0].shape"
    f, errs = bad(tmp_path, catalogue, *edits)
    line = next(i for i, text in enumerate(Path(f).read_text().splitlines(), 1) if expression in text)
    assert errs == [f"{f}:{line}: {field}: {expression}: {problem}"]


@pytest.mark.parametrize("expression", ["dim(self, 7)", "dim(self, -8)", "dim(self, 0)", "dim(self, -1)"])
def test_dim_of_an_axis_some_rank_has_is_accepted(tmp_path: Path, catalogue: Catalogue, expression: str) -> None:
    """Axes inside the largest rank stay accepted (a `when` guards the smaller ranks)."""
    old, new = _constraint(expression)
    path = tmp_path / STEM
    path.write_text(edit(BASE, old, new))
    assert load_op_spec(path, catalogue).constraints[0].name == "c"


def test_an_attr_default_that_a_constraint_rejects_is_a_spec_error_at_the_default(tmp_path: Path) -> None:
    """`beta` with `default: -1.0` next to `require: "beta >= 0"` generated: every call omitting beta (the
    check's base call, the Python API) failed with 161002. The error is at the default's line."""
    source = project_paths().specs / "smooth_l1_loss_backward.yaml"
    catalogue = load_catalogue(project_paths().specs / "products.yaml")
    text = source.read_text()
    old = "    default: 1.0                    # the device OpDef's default (the aclnn API always passes it)"
    path = tmp_path / "smooth_l1_loss_backward.yaml"
    path.write_text(edit(text, old, "    default: -1.0"))
    with pytest.raises(SpecErrors) as info:
        load_op_spec(path, catalogue)
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if t == "    default: -1.0")
    assert [str(e) for e in info.value.errors] == [
        f"{path}:{line}: attrs[1].default: the default (beta -1.0) violates constraint 'beta_non_negative' "
        "(beta >= 0) on Ascend910, Ascend910B, Ascend910_93, Ascend950, Ascend310P: beta must be greater than or "
        "equal to 0, but got -1.0; a call that omits the attr would fail with status 161002. Pick a default the "
        "constraint accepts"
    ]
    path.write_text(edit(text, old, "    default: 0.0"))  # on the boundary: accepted
    assert load_op_spec(path, catalogue).attrs[1].default == 0.0


@pytest.mark.parametrize(
    ("norm", "problem"),
    [
        (
            "1e39",
            "scalar 'norm': the constant 1e+39 is beyond float32's range (+-3.40282347e+38): the device computes "
            "in float32 and the tiling data holds host scalars as float32, where it is an infinity",
        ),
        (
            "-1e308 * 10",
            "scalar 'norm': the constant -1e+308 * 10 = -inf is beyond float32's range (+-3.40282347e+38): the "
            "device computes in float32 and the tiling data holds host scalars as float32, where it is an infinity",
        ),
        (
            "1 / numel(out) * 1e308 * 10",
            "scalar 'norm': the constant 1e+308 is beyond float32's range (+-3.40282347e+38): the device computes "
            "in float32 and the tiling data holds host scalars as float32, where it is an infinity",
        ),
        (  # every literal within float32, their product beyond double
            "1 / numel(out)" + " * 1e38" * 9,
            "'1 / numel(out)"
            + " * 1e+38" * 9
            + "' multiplies the constants "
            + " * ".join(["1e+38"] * 9)
            + ", beyond double precision (inf); the generated C++ would compute inf",
        ),
    ],
)
def test_a_host_scalar_constant_beyond_float32_or_double_is_a_spec_error(
    tmp_path: Path, catalogue: Catalogue, norm: str, problem: str
) -> None:
    """`norm: "1e39"` and `"1e308 * 10"` generated `set_scalar(static_cast<float>(...))` of an infinity, while an
    int64 overflow of the same kind was already a spec error (found by a review helper)."""
    f, errs = bad(tmp_path, catalogue, (SCALAR, f'    norm: "{norm}"\n'))
    line = next(i for i, t in enumerate(Path(f).read_text().splitlines(), 1) if "norm:" in t)
    assert any(e == f"{f}:{line}: compute.scalars.norm: {problem}" for e in errs), errs


def test_a_host_scalar_constant_at_float32_max_is_accepted(tmp_path: Path, catalogue: Catalogue) -> None:
    path = tmp_path / STEM
    path.write_text(edit(BASE, SCALAR, '    norm: "3.4028234663852886e38"\n'))
    assert load_op_spec(path, catalogue).op == "SoftMarginLossBackward"


@pytest.mark.parametrize("char", ["\\n", "\\0", "\\a"])
@pytest.mark.parametrize(
    ("old", "key", "use"),
    [
        ("summary: Backward of the soft margin loss.", "summary", "it is a line of the API document and the prototype"),
        ("    description: Gradient of the loss.", "inputs[0].description", "parameter table"),
        ("    description: Reduction of the forward loss.", "attrs[0].description", "parameter table"),
        ("    description: Gradient with respect to self.", "outputs[0].description", "parameter table"),
        ("tiling:\n", "notes[0]", "each note is a list item of the API document"),
    ],
)
def test_free_text_with_a_control_character_is_a_spec_error(
    tmp_path: Path, catalogue: Catalogue, old: str, key: str, use: str, char: str
) -> None:
    """Descriptions and notes were copied into docs/aclnn<Op>.md as they were: a line break split a
    parameter-table row, a NUL made the file binary, a BEL went through."""
    line = BASE[: BASE.index(old)].count("\n") + 1
    if key == "notes[0]":
        new, line = f'notes:\n  - "a {char} b"\ntiling:\n', line + 1
    else:
        new = f'{old.split(":")[0]}: "a {char} b"'
    f, errs = bad(tmp_path, catalogue, (old, new))
    assert len(errs) == 1
    assert errs[0].startswith(
        f"{f}:{line}: {key}: must be one line of printable text (got a line break or control character; "
    )
    assert use in errs[0]


@pytest.mark.parametrize("keyword", ["class", "lambda"])
def test_an_input_named_a_python_keyword_is_one_error_without_follow_on_syntax_errors(
    tmp_path: Path, keyword: str
) -> None:
    """An input named `class` was reported, and so was a syntax error in each expression naming it."""
    path = tmp_path / STEM
    path.write_text(BASE.replace("target", keyword))
    (tmp_path / "products.yaml").write_text(CATALOGUE)
    with pytest.raises(SpecErrors) as info:
        load_op_spec(path, load_catalogue(tmp_path / "products.yaml"))
    errs = [str(e) for e in info.value.errors]
    assert len(errs) == 1 and errs[0].startswith(f"{path}:17: inputs[2].name: '{keyword}' is a "), errs
