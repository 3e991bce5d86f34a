"""No output path is written twice: every pair of paths a generation could produce is compared before anything
is written, whatever names the specs choose (a kernel named ``aclnn_<op>`` once made the L0 files overwrite
the aclnn API files, and generate exited 0)."""

from __future__ import annotations

import itertools
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.paths import project_paths
from codegen.spec.errors import SpecErrors
from codegen.spec.generated_names import FILE_KIND_NAMES, ROOT_FILES, op_files, output_path_collisions
from codegen.spec.loader import load_op_spec, load_specs

SPEC = "mse_loss"
#: The file kinds of one op (binary_json stands for its per-SoC configs).
KINDS = sorted(FILE_KIND_NAMES)


@pytest.mark.parametrize(("a", "b"), list(itertools.combinations(KINDS, 2)))
def test_every_pair_of_file_kinds_on_one_path_is_a_collision(a: str, b: str) -> None:
    path = "op/op_api/x.h"
    other = {"op/docs/y.md": [(None, "z")]}
    found = output_path_collisions({path: [(None, a), (None, b)], **other})
    assert [(rel, first[1], second[1]) for rel, first, second, _ in found] == [(path, a, b)]


def test_case_and_folder_collisions() -> None:
    found = output_path_collisions(
        {
            "op/op_api/Kernel.h": [(None, "l0_h")],
            "op/op_api/kernel.h": [(None, "op_api_h")],
            "op/docs": [(None, "doc_md")],
            "op/docs/x.md": [(None, "cmake")],
            "OPERATORS.md": [(None, ROOT_FILES["OPERATORS.md"])],
        }
    )
    hows = sorted((rel, how) for rel, _, _, how in found)
    assert hows == [
        ("op/docs/x.md", "op/docs must be a folder for it"),
        ("op/op_api/kernel.h", "its path differs from op/op_api/Kernel.h only in letter case"),
    ]


def _spec_copy(tmp: Path, kernel: str) -> Path:
    text = (project_paths().specs / f"{SPEC}.yaml").read_text()
    # the kernel key names the op's folder and files (line 5, before the category)
    text, n = re.subn(r"^category: ", f"kernel: {kernel}\ncategory: ", text, count=1, flags=re.MULTILINE)
    assert n == 1
    path = tmp / f"{SPEC}.yaml"
    path.write_text(text)
    return path


_CATALOGUE = None


def _catalogue():  # type: ignore[no-untyped-def]
    global _CATALOGUE
    if _CATALOGUE is None:
        _CATALOGUE = load_specs(project_paths().specs)[0]
    return _CATALOGUE


_FRAGMENTS = st.sampled_from(["aclnn", "mse", "loss", "test", "tiling", "proto", "def", "infershape", "k", "ut"])


@settings(max_examples=60, deadline=None)
@given(st.lists(_FRAGMENTS, min_size=1, max_size=4))
def test_any_kernel_name_loads_only_without_a_colliding_path(tmp_path_factory: pytest.TempPathFactory, parts) -> None:  # type: ignore[no-untyped-def]
    kernel = "_".join(parts)
    path = _spec_copy(tmp_path_factory.mktemp("spec"), kernel)
    catalogue = _catalogue()
    try:
        spec = load_op_spec(path, catalogue)
    except SpecErrors as exc:
        assert "output path collision" in str(exc)
        # the refused name really makes two of the op's files one path
        problem = re.search(rf"output path collision: loss/{kernel}/(\S+): both write it", str(exc))
        assert problem is not None, str(exc)
        assert f"{path}:" in str(exc) and ": kernel: " in str(exc)
        return
    products = [catalogue.get(p) for p in spec.products]
    paths = list(op_files(spec, products).values())
    assert len({p.casefold() for p in paths}) == len(paths)
    folders = {"/".join(p.split("/")[:n]) for p in paths for n in range(1, p.count("/") + 1)}
    assert not folders & set(paths)


def test_the_aclnn_kernel_name_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    shutil.copytree(project_paths().specs, specs)
    _spec_copy(specs, f"aclnn_{SPEC}")
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "codegen", "--specs", str(specs), "generate", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 2
    line = (
        f"{specs / SPEC}.yaml:5: kernel: output path collision: loss/aclnn_{SPEC}/op_api/aclnn_{SPEC}.h: both "
        "write it, "
        "the aclnn API header (op_api_h) and the L0 API header (l0_h) of MseLoss; choose another kernel name"
    )
    assert line in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not out.exists()
