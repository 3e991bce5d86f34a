"""The package works from a non-editable wheel: templates, runtime sources, specs, references and the
generated tree are found inside the installed package, from any working directory."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.heavy(40)  # a wheel in a fresh venv, generate and check: about 40 s alone

ROOT = Path(__file__).resolve().parents[1]


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=1800)
    assert proc.returncode == 0, f"$ {' '.join(cmd)}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def test_wheel_generates_and_checks_from_another_directory(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist)], ROOT)
    wheel = next(dist.glob("ascend_opgen-*.whl"))
    env_dir = tmp_path / "venv"
    # A fresh environment: the wheel and its declared dependencies only (pip's cache makes this quick).
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    _run([str(py), "-m", "pip", "install", "--quiet", str(wheel)], tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "OPGEN_ROOT")}
    where = _run([str(py), "-c", "import codegen.paths as p; print(p.project_paths())"], elsewhere, env)
    assert "is_checkout=False" in where.stdout and "site-packages" in where.stdout
    opgen = env_dir / "bin" / "opgen"
    out = tmp_path / "out"
    _run([str(opgen), "generate", "--out", str(out)], elsewhere, env)
    produced = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() and p.name[0] != ".")
    committed = sorted(
        p.relative_to(ROOT / "generated").as_posix()
        for p in (ROOT / "generated").rglob("*")
        if p.is_file() and p.name[0] != "."
    )
    assert produced == committed
    for rel in produced:
        assert (out / rel).read_bytes() == (ROOT / "generated" / rel).read_bytes(), rel
    check = _run(
        [str(opgen), "check", "soft_margin_loss_backward", "--quick", "--product", "Ascend910B"], elsewhere, env
    )
    assert " 0 failed" in check.stdout
