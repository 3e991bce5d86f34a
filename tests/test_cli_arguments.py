"""Command-line edges: op names after options are op names, an option's value that starts with '-' gets the
option's own message (not argparse's "expected one argument"), and an unknown family is named as such."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from codegen.cli import main
from codegen.cli.options import UsageError, apply_spec_dir_defaults
from codegen.cli.parser import build_parser


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "mse_loss", "--quick", "nosuch_op"],
        ["check", "--quick", "mse_loss", "-j", "2", "nosuch_op"],
        ["generate", "--dry-run", "mse_loss", "--force", "nosuch_op"],
    ],
)
def test_op_names_after_options_are_op_names(argv: list[str], capsys: Any) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown op 'nosuch_op'; known: "), err


def test_an_unknown_option_after_op_names_is_still_refused(capsys: Any) -> None:
    with pytest.raises(SystemExit) as info:
        main(["check", "mse_loss", "--bogus", "softmax"])
    assert info.value.code == 2
    assert "unrecognized arguments: --bogus softmax" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["explain", "mse_loss", "--product", "Ascend910B", "--shape", "-1,4"],
            "error: --shape '-1,4': expected non-negative integers separated by ',' or 'x'",
        ),
        (["check", "mse_loss", "-j", "-1"], "argument -j/--jobs: must be at least 1, got -1"),
        (["check", "mse_loss", "--timeout", "-5"], "argument --timeout: "),
    ],
)
def test_a_negative_value_gets_the_options_own_message(argv: list[str], message: str, capsys: Any) -> None:
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse's own usage error for a bad typed value
        status = exc.code  # type: ignore[assignment]
    assert status == 2
    err = capsys.readouterr().err
    assert message in err
    assert "expected one argument" not in err


def test_an_option_given_as_a_value_is_a_missing_value(capsys: Any) -> None:
    with pytest.raises(SystemExit):
        main(["explain", "mse_loss", "--shape", "--product", "Ascend910B"])
    assert "argument --shape: expected one argument" in capsys.readouterr().err


def test_new_with_an_unknown_family_names_the_families(tmp_path: Path, capsys: Any) -> None:
    assert main(["--specs", str(tmp_path), "new", "MyOp", "--family", "gather"]) == 2
    assert capsys.readouterr().err == (
        "error: --family: no family 'gather'; the families are: elementwise, foreach, gather_scatter, "
        "index_accumulate, row_reduce\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_generate_with_another_spec_directory_writes_beside_it(tmp_path: Path) -> None:
    # `--specs DIR generate` without --out writes DIR/../generated (beside DIR/../reference), never the
    # project's generated/ (whose OPERATORS.md would lose every op DIR lacks)
    from codegen.paths import project_paths

    project = project_paths()
    specs = tmp_path / "specs"
    specs.mkdir()
    for name in ("products.yaml", "mse_loss.yaml"):
        (specs / name).write_text((project.specs / name).read_text())
    listing = project.generated / "OPERATORS.md"
    before = listing.read_bytes()
    assert main(["--specs", str(specs), "generate"]) == 0
    assert listing.read_bytes() == before
    written = (tmp_path / "generated" / "OPERATORS.md").read_text()
    assert "aclnnMseLoss" in written and "aclnnSoftmax" not in written
    assert main(["--specs", str(specs), "generate", "--check"]) == 0  # --check compares that tree too
    # check and build read that tree when it exists; an explicit --generated wins
    bare = tmp_path / "bare" / "specs"
    bare.mkdir(parents=True)
    parser = build_parser()
    for argv, want in (
        (["--specs", str(specs), "check", "mse_loss"], str(tmp_path / "generated")),
        (["--specs", str(specs), "build", "mse_loss", "--product", "Ascend910B"], str(tmp_path / "generated")),
        (["--specs", str(specs), "check", "mse_loss", "--generated", "elsewhere"], "elsewhere"),
        (["--specs", str(bare), "check", "mse_loss"], None),  # no tree beside it: the project's generated/
    ):
        args = parser.parse_args(argv)
        apply_spec_dir_defaults(args)
        assert args.generated == want, argv


def test_explain_refuses_a_memory_cap_that_is_not_a_number(monkeypatch: Any, capsys: Any) -> None:
    # the model's call is sized against OPGEN_MAX_CALL_BYTES: a bad value is a usage error (as in the Python
    # API), not a model "skipped" with exit status 0
    monkeypatch.setenv("OPGEN_MAX_CALL_BYTES", "1.5e3 bytes")
    assert main(["explain", "mse_loss", "--product", "Ascend910B", "--shape", "4,4"]) == 2
    assert "OPGEN_MAX_CALL_BYTES must be a positive number of bytes, got '1.5e3 bytes'" in capsys.readouterr().err


def test_a_spec_directory_that_does_not_exist_is_named(tmp_path: Path, capsys: Any) -> None:
    assert main(["--specs", str(tmp_path / "nowhere"), "list"]) == 2
    want = f"--specs {tmp_path / 'nowhere'}: does not exist; give a directory of op specs holding products.yaml"
    assert capsys.readouterr().err == f"error: {want}\n"


def test_a_spec_directory_beside_the_projects_generated_tree_is_refused(tmp_path: Path, monkeypatch: Any) -> None:
    # a scratch spec directory inside the checkout has DIR/../generated = the project's tree: generate (which
    # would rewrite its listing, and prune every project op with --prune) refuses unless --out names a tree
    import dataclasses

    import codegen.paths

    real = codegen.paths.project_paths()
    fake = dataclasses.replace(real, specs=tmp_path / "specs", generated=tmp_path / "generated")
    monkeypatch.setattr(codegen.paths, "project_paths", lambda: fake)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    args = build_parser().parse_args(["--specs", str(scratch), "generate"])
    with pytest.raises(UsageError, match=r"is the project's generated/.*or pass --out"):
        apply_spec_dir_defaults(args)
    args = build_parser().parse_args(["--specs", str(scratch), "generate", "--out", str(tmp_path / "elsewhere")])
    apply_spec_dir_defaults(args)
    assert args.out == str(tmp_path / "elsewhere")
    args = build_parser().parse_args(["--specs", str(tmp_path / "specs"), "generate"])  # the project's own specs
    (tmp_path / "specs").mkdir()
    apply_spec_dir_defaults(args)
    assert args.out == str(tmp_path / "generated")
    with pytest.raises(UsageError, match="--specs '': give a directory"):
        apply_spec_dir_defaults(build_parser().parse_args(["--specs", "", "list"]))
