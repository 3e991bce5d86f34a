"""Bad command-line input gets a clear message and exit status 2 before any work starts; `generate` finds
and prunes stray op folders and stray files, and survives a malformed manifest."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from project_copy import copy_project

from codegen.manifest import MANIFEST_NAME

pytestmark = pytest.mark.heavy(100)  # about 100 s alone: scheduled before lighter files

DTYPES = "FLOAT, FLOAT16, INT8, INT32, UINT8, INT16, UINT16, UINT32, INT64, UINT64, DOUBLE, BOOL, BF16"
SMLB = "SoftMarginLossBackward"
#: The ops the error names: the spec files of the project's specs folder (the catalogue aside), sorted.
KNOWN_OPS = ", ".join(
    sorted(p.stem for p in (Path(__file__).resolve().parents[1] / "specs").glob("*.yaml") if p.stem != "products")
)


def opgen(*args: str, cwd: Path | None = None, root: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``opgen ARGS`` in a subprocess; ``root`` sets OPGEN_ROOT (a project copy to generate from)."""
    env = None if root is None else {**os.environ, "OPGEN_ROOT": str(root)}
    return subprocess.run(
        [sys.executable, "-m", "codegen", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        cwd=cwd,
        env=env,
    )


@pytest.fixture(scope="module")
def small_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small copy of the project (:func:`project_copy.copy_project`: one op of each family and
    sigmoid_backward, which the tests below edit): how ``generate`` treats drift, strays and its manifest
    does not depend on the number of ops, and each ``generate`` below renders only these."""
    root = tmp_path_factory.mktemp("small_project") / "proj"
    copy_project(root, ("sigmoid_backward",))
    return root


@pytest.fixture(scope="module")
def generated_once(tmp_path_factory: pytest.TempPathFactory, small_project: Path) -> Path:
    """One ``opgen generate --out DIR`` of every op of :func:`small_project` into a fresh directory (exit
    status 0), made once for the module: the tests below each start from a copy of it (files, manifest and
    all), as they would from their own first ``generate`` into an empty directory (with OPGEN_ROOT at
    :func:`small_project`), without rendering every op again."""
    out = tmp_path_factory.mktemp("generated_once") / "gen"
    proc = opgen("generate", "--out", str(out), root=small_project)
    assert proc.returncode == 0, proc.stderr
    return out


def fresh_copy(generated_once: Path, tmp_path: Path) -> Path:
    """A copy of :func:`generated_once` at ``tmp_path / "gen"`` (the manifest holds relative paths only)."""
    out = tmp_path / "gen"
    shutil.copytree(generated_once, out)
    return out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("check", "--dtype", "FP32"), f"error: unknown dtype 'FP32'; valid dtypes: {DTYPES}\n"),
        (
            ("check", "--json", "/nonexistent-dir/r.json"),
            "error: --json /nonexistent-dir/r.json: directory /nonexistent-dir does not exist\n",
        ),
        # one path for two outputs: the second file written replaced the first (a review helper's --json F
        # --costs F left a result file where the cost table was, and exit 0)
        (
            ("check", "--json", "/tmp/opgen-same.json", "--costs", "/tmp/opgen-same.json"),
            "error: --costs /tmp/opgen-same.json is the same file as --json /tmp/opgen-same.json: give each output "
            "its own path\n",
        ),
        (
            ("check", "--json", "/tmp/opgen-same.xml", "--junit", "/tmp/./opgen-same.xml"),
            "error: --junit /tmp/./opgen-same.xml is the same file as --json /tmp/opgen-same.xml: give each output "
            "its own path\n",
        ),
        (
            ("report", "merge", "/tmp/opgen-shard1.json", "/tmp/opgen-shard2.json", "--json", "/tmp/opgen-shard2.json"),
            "error: --json /tmp/opgen-shard2.json is the same file as input /tmp/opgen-shard2.json: give each output "
            "its own path\n",
        ),
        (("check", "--json", ""), "error: --json: an empty path; give a file name\n"),
        (
            ("report", "merge", "/tmp/opgen-shard1.json", "--junit", ""),
            "error: --junit: an empty path; give a file name\n",
        ),
        (
            ("explain", SMLB, "--product", "Ascend910B", "--shape", "4,x4"),
            "error: --shape '4,x4': expected non-negative integers separated by ',' or 'x', e.g. 1024,4096 or "
            "1024x4096, or 'scalar' (also '') for a 0-d tensor\n",
        ),
        (
            ("explain", SMLB, "--product", "Ascend910B", "--shape", "-4"),
            "error: --shape '-4': expected non-negative integers separated by ',' or 'x', e.g. 1024,4096 or "
            "1024x4096, or 'scalar' (also '') for a 0-d tensor\n",
        ),
        (
            ("explain", SMLB, "--product", "Ascend910B", "--dtype", "half"),
            f"error: unknown dtype 'half'; valid dtypes: {DTYPES}\n",
        ),
        (
            ("explain", SMLB, "--product", "Ascend910", "--dtype", "BF16"),
            "error: aclnnSoftMarginLossBackward does not compute on BF16 on Ascend910; dtypes there: FLOAT, FLOAT16\n",
        ),
        (
            ("explain", SMLB, "--product", "Ascend910B", "--shape", "1,1,1,1,1,1,1,1,1"),
            f"error: explain {SMLB} --shape 1,1,1,1,1,1,1,1,1: output out of rank 9 is rejected by "
            "aclnnSoftMarginLossBackward: rank must be 0-8\n",
        ),
        (
            ("explain", "Softmax", "--product", "Ascend910B", "--shape", "1,2,3,4,5,6,7,8,9"),
            "error: explain Softmax --shape 1,2,3,4,5,6,7,8,9: output out of rank 9 is rejected by "
            "aclnnSoftmax: rank must be 0-8\n",
        ),
        (
            ("explain", "LogSoftmaxBackward", "--product", "Ascend950", "--shape", "2,1,1,1,1,1,1,1,1,3"),
            "error: explain LogSoftmaxBackward --shape 2,1,1,1,1,1,1,1,1,3: output out of rank 10 is rejected by "
            "aclnnLogSoftmaxBackward: rank must be 0-8\n",
        ),
        (  # more digits than Python's int() reads (4300): its own message named no option
            ("explain", SMLB, "--product", "Ascend910B", "--shape", "4," + "1" * 5000),
            "error: --shape: dimension 11111111111111111111... (5000 digits) does not fit in int64 "
            "(at most 9223372036854775807)\n",
        ),
        (
            ("explain", SMLB, "--product", "Ascend910B", "--shape", "99999999999,99999999999"),
            f"error: explain {SMLB} --shape 99999999999,99999999999: output out [99999999999, 99999999999] has "
            "9999999999800000000001 elements, which overflows int64 (at most 9223372036854775807)\n",
        ),
        (
            ("explain", SMLB, "--product", "Ascend910B", "--shape", "4611686018427387904"),
            f"error: explain {SMLB} --shape 4611686018427387904: output out [4611686018427387904] takes "
            "18446744073709551616 bytes of FLOAT, which overflows int64\n",
        ),
        (
            ("explain", "EmbeddingDenseBackward", "--product", "Ascend910B", "--shape", "8,99999999999,99999999999"),
            "error: explain EmbeddingDenseBackward --shape 8,99999999999,99999999999: grad [99999999999, "
            "99999999999] has 9999999999800000000001 elements, which overflows int64 (at most 9223372036854775807)\n",
        ),
        (  # every tensor fits in int64, but the workspace's fp32 accumulator does not: the C++ tiling fails
            ("explain", "EmbeddingDenseBackward", "--product", "Ascend910B", "--shape", "2305843009213693951,1,1"),
            "error: explain EmbeddingDenseBackward --shape 2305843009213693951,1,1: the workspace of "
            "EmbeddingDenseBackward for numWeights 2305843009213693951 x 1 is beyond int64 bytes: the tiling fails\n",
        ),
        (
            ("explain", "NoSuchOp", "--product", "Ascend910B"),
            f"error: unknown op 'NoSuchOp'; known: {KNOWN_OPS}\n",
        ),
        (
            ("explain", SMLB, "--product", "Ascend911"),
            "error: unknown product 'Ascend911'; known: Ascend910, Ascend910B, Ascend910_93, Ascend950, Ascend310P\n",
        ),
        (
            ("check", "--generated", "/nonexistent-dir", "--quick", SMLB),
            "error: --generated /nonexistent-dir: does not exist; give the directory `opgen generate --out` wrote\n",
        ),
        (
            ("build", SMLB, "--product", "Ascend910B", "--generated", "/etc/hostname"),
            "error: --generated /etc/hostname: is not a directory; give the directory `opgen generate --out` wrote\n",
        ),
        (
            ("generate", "bogus_op", "--check"),
            f"error: unknown op 'bogus_op'; known: {KNOWN_OPS}\n",
        ),
    ],
)
def test_bad_values_are_reported_with_exit_status_2(args: tuple[str, ...], message: str) -> None:
    proc = opgen(*args)
    assert (proc.returncode, proc.stderr, proc.stdout) == (2, message, "")


def test_a_result_file_whose_parent_is_a_file_is_refused_as_not_a_directory(tmp_path: Path) -> None:
    """The message said the directory does not exist, though it does: it is a file."""
    (tmp_path / "afile").write_text("x")
    target = tmp_path / "afile" / "r.json"
    proc = opgen("check", "--json", str(target))
    assert (proc.returncode, proc.stderr, proc.stdout) == (
        2,
        f"error: --json {target}: directory {tmp_path / 'afile'} is not a directory\n",
        "",
    )


def test_a_result_file_in_a_folder_that_refuses_new_files_is_refused_before_any_case() -> None:
    """/proc's mode lets root write, but it creates no file: the refusal came after every case had run, and
    the results were lost. Now it comes first (for root, the OS's reason; for others, the mode)."""
    proc = opgen("check", "rms_norm", "--quick", "--json", "/proc/opgen-r.json")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr in (
        "error: --json /proc/opgen-r.json: not writable\n",
        "error: --json /proc/opgen-r.json: cannot write: No such file or directory\n",
    )


@pytest.mark.parametrize("seconds", ["1e308", "1e10"])
def test_a_timeout_beyond_what_a_thread_can_wait_is_a_usage_error(seconds: str) -> None:
    """It was accepted, and every case then failed with an OverflowError traceback from the worker's queue."""
    import threading

    proc = opgen("check", "sigmoid_backward", "--product", "Ascend910", "--timeout", seconds)
    assert proc.returncode == 2
    assert proc.stderr.splitlines()[-1] == (
        "opgen check: error: argument --timeout: must be a positive finite number of seconds, at most "
        f"{threading.TIMEOUT_MAX:.0f}, got {seconds}"
    )


def test_explain_on_an_unsupported_product_says_so_and_gives_no_tiling() -> None:
    proc = opgen("explain", SMLB, "--product", "Ascend310P", "--shape", "4096,4096")
    assert proc.returncode == 0 and proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert "  NOT SUPPORTED on Ascend310P (spec products: Ascend910, Ascend910B, Ascend910_93, Ascend950)" in lines
    assert lines[-1] == "no tiling: aclnnSoftMarginLossBackward does not run on Ascend310P"
    assert not any("tiling for" in line or "strategy" in line or "blockDim" in line for line in lines)


def test_explain_of_a_row_op_takes_a_0d_shape_as_the_aclnn_api_does() -> None:
    """CANN's aclnnSoftmax takes a 0-d self (rank 0-8; dim in [-1, 0]): explain tiles it as one row of one
    element instead of refusing it."""
    proc = opgen("explain", "Softmax", "--product", "Ascend910B", "--shape", "scalar")
    assert (proc.returncode, proc.stderr) == (0, "")
    tiling = [line for line in proc.stdout.splitlines() if line.startswith("tiling for")]
    assert len(tiling) == 1 and tiling[0].startswith(
        "tiling for [] (self FLOAT, out FLOAT) reduced along dim -1: outer 1, R 1, inner 1;"
    )


@pytest.mark.parametrize("jobs", ["0", "-3", "two"])
def test_check_rejects_a_job_count_below_one(jobs: str) -> None:
    proc = opgen("check", "-j", jobs)
    assert proc.returncode == 2
    expected = f"must be at least 1, got {jobs}" if jobs != "two" else "expected a positive integer, got 'two'"
    assert proc.stderr.endswith(f"opgen check: error: argument -j/--jobs: {expected}\n")


def test_generate_rejects_an_output_path_that_is_a_file(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("mine")
    proc = opgen("generate", "--out", str(target))
    assert (proc.returncode, proc.stderr) == (2, f"error: output path {target} exists and is not a directory\n")
    assert target.read_text() == "mine"


def test_generate_bogus_op_fails_even_when_everything_is_up_to_date(
    tmp_path: Path, generated_once: Path, small_project: Path
) -> None:
    out = fresh_copy(generated_once, tmp_path)
    proc = opgen("generate", "no_such_op", "--out", str(out), root=small_project)
    assert proc.returncode == 2 and proc.stderr.startswith("error: unknown op 'no_such_op'; known: ")


def test_stray_folders_and_files_are_drift_and_prune_removes_only_what_opgen_wrote(
    tmp_path: Path, generated_once: Path, small_project: Path
) -> None:
    out = fresh_copy(generated_once, tmp_path)
    # A folder of generated files without a manifest record (e.g. a removed op in a fresh clone): ours by
    # its banner, so drift; a folder without the banner is someone else's and is not reported.
    (out / "old_op" / "op_kernel").mkdir(parents=True)
    (out / "old_op" / "op_kernel" / "old.cpp").write_text("// Generated by ascend-opgen from specs/old_op.yaml\n")
    (out / "their_op" / "docs").mkdir(parents=True)
    (out / "their_op" / "docs" / "readme.md").write_text("# not ours\n")
    (out / "my_notes").mkdir()
    (out / "my_notes" / "todo.txt").write_text("not generated\n")
    (out / "activation" / "sigmoid_grad" / "op_kernel" / "stray.cpp").write_text("// hand-made\n")
    (out / "activation" / "sigmoid_grad" / "scratch").mkdir()
    (out / "activation" / "sigmoid_grad" / "scratch" / "x.txt").write_text("x\n")
    # a generated file of a template gone, in a tree whose manifest lost its record: opgen's by its banner
    (out / "activation" / "sigmoid_grad" / "op_kernel" / "gone.h").write_text(
        "// Generated by ascend-opgen from specs/sigmoid_backward.yaml\n"
    )

    check = opgen("generate", "--out", str(out), "--check", root=small_project)
    assert check.returncode == 1
    # the hand-made files in an op folder are named as the user's: a prune keeps them
    assert check.stdout.splitlines() == [
        "not produced by any template: activation/sigmoid_grad/op_kernel/gone.h",
        "not produced by any spec: old_op/",
        "not written by opgen: activation/sigmoid_grad/op_kernel/stray.cpp",
        "not written by opgen: activation/sigmoid_grad/scratch/x.txt",
    ]
    assert check.stderr == (
        f"{out} differs from the specs; to update: `opgen generate --out {out} --prune` removes the files and "
        "folders no template or spec produces; move the files opgen did not write away from its output paths and "
        "op folders (it never overwrites or prunes them)\n"
    )
    plain = opgen("generate", "--out", str(out), root=small_project)
    assert (
        plain.returncode == 0
        and (out / "old_op").is_dir()
        and (out / "activation/sigmoid_grad/scratch/x.txt").is_file()
    )
    assert "warning: activation/sigmoid_grad/op_kernel/stray.cpp is produced by no template" in plain.stderr
    pruned = opgen("generate", "--out", str(out), "--prune", root=small_project)
    assert pruned.returncode == 0, pruned.stderr
    assert "pruned" not in pruned.stdout  # none of these files was written by opgen
    assert "kept activation/sigmoid_grad/op_kernel/stray.cpp (not written by opgen;" in pruned.stderr
    assert "kept old_op/op_kernel/old.cpp (not written by opgen;" in pruned.stderr
    assert "their_op" not in pruned.stdout + pruned.stderr
    for rel in (
        "old_op/op_kernel/old.cpp",
        "their_op/docs/readme.md",
        "my_notes/todo.txt",
        "activation/sigmoid_grad/scratch/x.txt",
    ):
        assert (out / rel).is_file()
    assert (out / "activation" / "sigmoid_grad" / "op_kernel" / "sigmoid_grad.cpp").is_file()


def test_generate_check_advises_generate_for_stale_or_missing_files(
    tmp_path: Path, generated_once: Path, small_project: Path
) -> None:
    out = fresh_copy(generated_once, tmp_path)
    (out / "activation" / "sigmoid_grad" / "docs" / "aclnnSigmoidBackward.md").write_text("edited by hand\n")
    (out / "activation" / "sigmoid_grad" / "op_kernel" / "sigmoid_grad.cpp").unlink()
    check = opgen("generate", "--out", str(out), "--check", root=small_project)
    assert check.returncode == 1
    assert check.stdout.splitlines() == [
        "stale: activation/sigmoid_grad/docs/aclnnSigmoidBackward.md",
        "missing: activation/sigmoid_grad/op_kernel/sigmoid_grad.cpp",
    ]
    # the advice names the folder checked and writes that folder, not the project's generated/
    assert check.stderr == (
        f"{out} differs from the specs; to update: `opgen generate --out {out}` rewrites the stale and missing files\n"
    )
    (out / "activation" / "sigmoid_grad" / "op_kernel" / "stray.cpp").write_text("// hand-made\n")
    both = opgen("generate", "--out", str(out), "--check", root=small_project)
    assert both.stderr == (
        f"{out} differs from the specs; to update: `opgen generate --out {out}` rewrites the stale and missing "
        "files; move the files opgen did not write away from its output paths and op folders (it never overwrites "
        "or prunes them)\n"
    )
    # op names with --check are refused (the tree's OPERATORS.md and manifest span every op), writing nothing
    named = opgen("generate", "sigmoid_backward", "--out", str(out), "--check", root=small_project)
    assert (named.returncode, named.stdout) == (2, "")
    assert "generate --check checks the whole output tree; drop the op names (sigmoid_backward)" in named.stderr
    assert opgen("generate", "--out", str(out), root=small_project).returncode == 0
    assert (out / "activation" / "sigmoid_grad" / "docs" / "aclnnSigmoidBackward.md").read_text() != "edited by hand\n"


def test_a_dry_run_without_a_readable_manifest_counts_the_files_it_rendered(
    tmp_path: Path, generated_once: Path, small_project: Path
) -> None:
    """With a garbled manifest every file is rendered and found unchanged; the summary said "0 would be
    written, 0 skipped", counting none of them."""
    out = fresh_copy(generated_once, tmp_path)
    manifest = out / ".opgen-manifest.json"
    files = sum(1 for p in out.rglob("*") if p.is_file() and p != manifest)
    manifest.write_text("garbage\n")
    dry = opgen("generate", "--out", str(out), "--prune", "--dry-run", root=small_project)
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.splitlines()[-1] == (
        f"dry run: 0 would be written, {files} rendered and unchanged, 0 skipped (inputs unchanged); "
        "nothing was written or removed"
    )


def test_check_says_when_the_dtype_filter_excludes_every_case() -> None:
    proc = opgen("check", "sigmoid_backward", "--product", "Ascend910", "--dtype", "BF16", "--quick")
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        "nothing to check: --dtype BF16 excludes every case; the selected ops compute on "
        "(sigmoid_backward: FLOAT, FLOAT16) on the selected products\n"
    )


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{not json", "unreadable (JSONDecodeError: "),
        ('{"format": 1, "files": {"a/b.cpp": {"spec": "a"}}}', "malformed (KeyError: 'templates')"),
        ('{"format": 1, "files": []}', "malformed (AttributeError: "),
        ("[1, 2]", "malformed (TypeError: "),
        ("[" * 100000, "unreadable (JSON nested too deeply)"),  # a RecursionError in json
    ],
)
def test_a_malformed_manifest_is_ignored_with_a_warning(
    tmp_path: Path, generated_once: Path, small_project: Path, text: str, problem: str
) -> None:
    out = fresh_copy(generated_once, tmp_path)
    (out / "activation" / "sigmoid_grad" / "docs" / "aclnnSigmoidBackward.md").write_text("edited by hand\n")
    (out / MANIFEST_NAME).write_text(text)
    proc = opgen("generate", "--out", str(out), root=small_project)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith(f"warning: {out / MANIFEST_NAME}: {problem}")
    assert "; ignoring it and rendering every file\n" in proc.stderr
    # everything was rendered: the hand edit is repaired, and a valid manifest is written again
    assert proc.stdout.splitlines()[0] == "wrote activation/sigmoid_grad/docs/aclnnSigmoidBackward.md"
    assert json.loads((out / MANIFEST_NAME).read_text())["format"] == 1
    assert opgen("generate", "--out", str(out), "--check", root=small_project).returncode == 0


def test_check_notes_each_named_product_an_op_does_not_run_on() -> None:
    """`check soft_margin_loss_backward --product Ascend910B --product Ascend310P` checked Ascend910B and said
    nothing of Ascend310P, which the op does not list."""
    from codegen.cli.check import unchecked_products
    from codegen.specs import load_project

    _, specs = load_project()
    chosen = {n: specs[n] for n in ("mse_loss_backward", "soft_margin_loss_backward")}
    assert unchecked_products(chosen, ["Ascend910B", "Ascend310P", "Ascend310P"]) == [
        "note: soft_margin_loss_backward does not run on --product Ascend310P (its products: Ascend910, "
        "Ascend910B, Ascend910_93, Ascend950); not checked there"
    ]
    assert unchecked_products(chosen, None) == []
    assert unchecked_products(chosen, ["Ascend910B"]) == []


def test_a_symlink_loop_among_the_specs_or_as_the_catalogue_is_one_error_line_each(tmp_path: Path) -> None:
    """A spec file or a ``--products`` file that is a symlink to itself was a Python traceback (exit 1) from
    the path resolution; now each is one unreadable-file error naming it, exit 2, nothing written."""
    specs = tmp_path / "specs"
    specs.mkdir()
    shutil.copy(Path(__file__).resolve().parents[1] / "specs" / "products.yaml", specs / "products.yaml")
    (specs / "loop.yaml").symlink_to(specs / "loop.yaml")
    (tmp_path / "cat.yaml").symlink_to(tmp_path / "cat.yaml")
    for extra, looped in (
        ((), [specs / "loop.yaml"]),
        (("--products", str(tmp_path / "cat.yaml")), [tmp_path / "cat.yaml", specs / "loop.yaml"]),
    ):
        proc = opgen("--specs", str(specs), *extra, "list")
        assert proc.returncode == 2, proc.stderr
        assert "Traceback" not in proc.stderr
        for path in looped:
            assert (
                f"{path}:1: yaml: cannot read the file: [Errno 40] Too many levels of symbolic links\n" in proc.stderr
            )
