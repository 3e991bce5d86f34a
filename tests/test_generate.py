"""Rendering and writing: determinism, the drift check, atomic only-when-changed writes, strict templates."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import jinja2
import pytest
from project_copy import copy_project, ops_for_a_small_copy

from codegen.generate import generate, render_all
from codegen.paths import project_paths
from codegen.render import make_environment
from codegen.spec import SpecErrors
from codegen.specs import load_project
from codegen.writer import expected_files, sync_tree, write_atomic

ROOT = Path(__file__).resolve().parents[1]


def test_generate_twice_is_byte_identical_and_second_run_writes_nothing(tmp_path: Path) -> None:
    catalogue, specs = load_project()
    first = generate(specs, catalogue, tmp_path)
    assert first.written and not first.unchanged
    snapshot = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    mtimes = {p: p.stat().st_mtime_ns for p in snapshot}
    second = generate(specs, catalogue, tmp_path)
    assert second.written == []
    assert sorted(second.unchanged) == sorted(first.written)
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == snapshot
    assert {p: p.stat().st_mtime_ns for p in snapshot} == mtimes


def test_committed_tree_matches_specs() -> None:
    """`opgen generate --check` must be clean on the committed generated/ (CI runs it too)."""
    catalogue, specs = load_project()
    report = generate(specs, catalogue, project_paths().generated, check=True)
    assert report.stale == [] and report.missing == [] and report.extra == []


def test_check_mode_lists_stale_missing_and_extra_files(tmp_path: Path) -> None:
    """On one op of each family (what check mode reports does not depend on the number of ops)."""
    catalogue, every = load_project()
    specs = {op: every[op] for op in ops_for_a_small_copy()}
    generate(specs, catalogue, tmp_path)
    kernel = next(tmp_path.rglob("op_kernel/*.cpp"))
    kernel.write_text(kernel.read_text() + "// hand edit\n")
    doc = next(tmp_path.rglob("docs/*.md"))
    doc.unlink()
    stray = kernel.parent / "stray.cpp"
    stray.write_text("int x;\n")
    report = generate(specs, catalogue, tmp_path, check=True)
    rel = lambda p: p.relative_to(tmp_path).as_posix()  # noqa: E731
    assert report.stale == [rel(kernel)]
    assert report.missing == [rel(doc)]
    assert report.extra == [rel(stray)]
    assert kernel.read_text().endswith("// hand edit\n")  # check mode wrote nothing


def test_cli_check_exit_status(tmp_path: Path) -> None:
    """The exit status does not depend on the ops: a small copy of the project (one op per family) is
    generated, checked clean (0) and checked after an edit (1, naming the stale file)."""
    root = tmp_path / "proj"
    copy_project(root)
    env = {**os.environ, "PYTHONHASHSEED": "0", "OPGEN_ROOT": str(root)}
    out = tmp_path / "gen"
    cmd = [sys.executable, "-m", "codegen", "generate", "--out", str(out)]
    assert subprocess.run(cmd, env=env, capture_output=True, check=False).returncode == 0
    ok = subprocess.run([*cmd, "--check"], env=env, capture_output=True, text=True, check=False)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    victim = next(out.rglob("op_api/*.h"))
    victim.write_text("changed\n")
    stale = subprocess.run([*cmd, "--check"], env=env, capture_output=True, text=True, check=False)
    assert stale.returncode == 1
    assert f"stale: {victim.relative_to(out).as_posix()}" in stale.stdout
    # generating repairs the hand edit and says so (a dry run says it would)
    for extra, verb in ((["--dry-run"], "would overwrite"), ([], "overwrote")):
        fixed = subprocess.run([*cmd, *extra], env=env, capture_output=True, text=True, check=False)
        assert fixed.returncode == 0, fixed.stderr
        assert f"warning: {verb} {victim.relative_to(out).as_posix()} (edited since opgen wrote it)" in fixed.stderr
    assert victim.read_text() != "changed\n"


def test_generation_is_independent_of_hash_seed(tmp_path: Path) -> None:
    outputs = []
    for seed in ("1", "4242"):
        out = tmp_path / seed
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run(
            [sys.executable, "-m", "codegen", "generate", "--out", str(out)], env=env, check=True, capture_output=True
        )
        outputs.append({p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()})
    assert outputs[0] == outputs[1]


def test_templates_fail_loudly_on_missing_view_keys() -> None:
    env = make_environment(project_paths().templates)
    with pytest.raises(jinja2.UndefinedError):
        env.get_template("op_api/aclnn.h.j2").render()


def test_sync_tree_writes_atomically_only_changed(tmp_path: Path) -> None:
    files = {"op/a.txt": "one\n", "op/b.txt": "two\n"}
    r1 = sync_tree(tmp_path, files, ["op"], check=False)
    assert r1.written == ["op/a.txt", "op/b.txt"]
    r2 = sync_tree(tmp_path, {**files, "op/b.txt": "three\n"}, ["op"], check=False)
    assert r2.written == ["op/b.txt"] and r2.unchanged == ["op/a.txt"]
    assert (tmp_path / "op/b.txt").read_text() == "three\n"
    assert [p.name for p in (tmp_path / "op").iterdir() if p.name.startswith(".")] == []


def test_every_op_produces_the_ops_nn_file_set() -> None:
    catalogue, specs = load_project()
    rendered = render_all(specs, catalogue)
    files = expected_files(rendered)
    for name, spec in specs.items():
        folder = spec.folder
        kinds = sorted(rel[len(folder) + 1 :].split("/")[0] for rel in files if rel.startswith(folder + "/"))
        # op_host: def, tiling .h/.cpp, infershape and one binary config per product (op_host/config/<soc>/)
        op_host = ["op_host"] * (4 + len(spec.products))
        # tests/ut/op_host/test_<kernel>_tiling.cpp and _infershape.cpp; CMakeLists.txt in tests/, tests/ut/ and
        # tests/ut/op_host/; tests/ut/op_kernel/<kernel>_tiling_def.h
        ut = ["tests"] * 6
        want = ["CMakeLists.txt", "docs", "examples", *["op_api"] * 4, "op_graph", *op_host, "op_kernel", *ut]
        assert kinds == sorted(want), name
        for part in ("tiling", "infershape"):
            assert f"{folder}/tests/ut/op_host/test_{spec.kernel}_{part}.cpp" in files, name
        assert f"{folder}/tests/ut/op_kernel/{spec.kernel}_tiling_def.h" in files, name
        configs = sorted(rel for rel in files if rel.startswith(f"{folder}/op_host/config/"))
        assert configs == sorted(
            f"{folder}/op_host/config/{catalogue.get(p).config_name}/{spec.kernel}_binary.json" for p in spec.products
        )


def test_a_doc_without_notes_has_no_empty_notes_section() -> None:
    import dataclasses

    from codegen.render import render_op

    catalogue, specs = load_project()
    spec = specs["sigmoid_backward"]
    doc_rel = f"docs/{spec.aclnn_name}.md"
    with_notes = render_op(spec, catalogue, project_paths()).files[doc_rel]
    assert with_notes.count("## Deliberate differences and design notes\n\n- ") == 1
    without = render_op(dataclasses.replace(spec, notes=()), catalogue, project_paths()).files[doc_rel]
    assert "Deliberate differences" not in without
    assert "\n\n\n" not in without
    assert without.index("## Constraints") < without.index("## Tiling")


def test_a_pipe_in_a_description_is_escaped_in_the_parameter_table() -> None:
    """A ``|`` in a description added a column to its row of the Markdown parameter table."""
    import dataclasses

    from codegen.render import render_op

    catalogue, specs = load_project()
    spec = specs["soft_margin_loss_backward"]
    first = dataclasses.replace(spec.inputs[0], description="a | b")
    edited = dataclasses.replace(spec, inputs=(first, *spec.inputs[1:]))
    doc = render_op(edited, catalogue, project_paths()).files[f"docs/{spec.aclnn_name}.md"]
    row = next(ln for ln in doc.splitlines() if ln.startswith(f"| {first.header_name or first.name} | input |"))
    assert row.split(" | ")[2] == "a \\| b" and row.count(" | ") == 5


def test_the_catalogue_cites_sources_that_exist() -> None:
    """Relative paths in the catalogue's header comment must exist; the facts' section is named."""
    specs_dir = project_paths().specs
    header = [line for line in (specs_dir / "products.yaml").read_text().splitlines() if line.startswith("#")]
    text = " ".join(line.lstrip("# ") for line in header)
    for word in text.split():
        if word.startswith(("./", "../")):
            assert (specs_dir / word.rstrip(",.;")).exists(), f"products.yaml cites {word}, which does not exist"
    assert 'ascend-platform.md, section "Products (runtime platform config files, [SoCInfo] / [AICoreSpec])"' in text


def test_an_attr_used_only_in_scalars_compiles_without_warnings(tmp_path: Path) -> None:
    """A free-valued attr that only a host scalar reads must not trip -Wunused-parameter (or any warning) in
    the generated op_api and tiling sources."""
    from codegen.render import render_op
    from codegen.spec.loader import load_op_spec

    text = (project_paths().specs / "sigmoid_backward.yaml").read_text()
    for old, new in (
        (
            "\noutputs:\n",
            "\nattrs:\n  - {name: mode, type: int64, default: 2, description: A scale divisor.}\noutputs:\n",
        ),
        (
            "  dtypes: [FLOAT16, BF16, FLOAT]\n",
            "  attrs:\n    - {name: mode, from: mode, type: int, default: 2}\n  dtypes: [FLOAT16, BF16, FLOAT]\n",
        ),
        ("  promote: [gradOutput, output]\n", '  promote: [gradOutput, output]\n  scalars:\n    k: "10 // mode"\n'),
        ('  gradInput: "gradOutput * output * (1 - output)"', '  gradInput: "gradOutput * output * (1 - output) * k"'),
        (
            "notes:\n",
            'constraints:\n  - {name: mode_positive, require: "mode > 0", message: "bad mode {mode}"}\nnotes:\n',
        ),
        ("  output: {shape: [2, 2], dtype: FLOAT}", "  attrs: {mode: 2}\n  output: {shape: [2, 2], dtype: FLOAT}"),
    ):
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    (tmp_path / "sigmoid_backward.yaml").write_text(text)
    catalogue, _ = load_project()
    spec = load_op_spec(tmp_path / "sigmoid_backward.yaml", catalogue)
    rendered = render_op(spec, catalogue, project_paths())
    root = tmp_path / "gen"
    for rel, body in rendered.files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(body)
    runtime = project_paths().runtime / "include"
    for rel in ("op_api/aclnn_sigmoid_backward.cpp", "op_host/sigmoid_grad_tiling.cpp"):
        assert "mode" in (root / rel).read_text()
        include = (f"-I{runtime}", f"-I{root / 'op_api'}", f"-I{root / 'op_host'}")
        proc = subprocess.run(
            ["g++", "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", *include, str(root / rel)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]


def test_written_files_get_the_umask_mode_and_rewrites_keep_the_existing_mode(tmp_path: Path) -> None:
    catalogue, specs = load_project()
    old = os.umask(0o022)
    try:
        generate({"sigmoid_backward": specs["sigmoid_backward"]}, catalogue, tmp_path)
        written = [p for p in tmp_path.rglob("*") if p.is_file()]
        assert written
        assert {oct(p.stat().st_mode & 0o777) for p in written} == {oct(0o644)}
        fresh = tmp_path / "fresh.txt"
        write_atomic(fresh, "a\n")
        assert fresh.stat().st_mode & 0o777 == 0o644
        fresh.chmod(0o640)
        write_atomic(fresh, "b\n")  # a rewrite keeps the file's own mode
        assert fresh.stat().st_mode & 0o777 == 0o640 and fresh.read_text() == "b\n"
        os.umask(0o077)
        private = tmp_path / "private.txt"
        write_atomic(private, "c\n")
        assert private.stat().st_mode & 0o777 == 0o600
    finally:
        os.umask(old)


def test_a_spec_without_an_example_is_a_spec_error_at_generate(tmp_path: Path) -> None:
    """A spec may leave out ``example`` to load; generating it names the spec and the field and writes nothing."""
    from codegen.spec.loader import load_op_spec

    text = (project_paths().specs / "sigmoid_backward.yaml").read_text()
    head, tail = text.split("\nexample:\n", 1)
    rest = tail.split("\n")
    keep = [line for line in rest if line and not line.startswith(" ")]  # the top-level keys after the example
    path = tmp_path / "sigmoid_backward.yaml"
    path.write_text(head + "\n" + "\n".join(keep) + ("\n" if keep else ""))
    catalogue, _ = load_project()
    spec = load_op_spec(path, catalogue)
    assert spec.example is None
    out = tmp_path / "out"
    with pytest.raises(SpecErrors) as info:
        generate({"sigmoid_backward": spec}, catalogue, out)
    (err,) = info.value.errors
    first_key = next(n for n, line in enumerate(path.read_text().split("\n"), 1) if line.startswith("op:"))
    assert str(err).startswith(f"{path}:{first_key}: example: the spec has no example; `opgen generate` builds")
    assert not out.exists() or not any(out.rglob("*"))
