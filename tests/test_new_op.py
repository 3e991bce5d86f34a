"""`opgen new` writes a starter that generates and builds, and whose check fails with a clear message."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codegen.paths import project_paths

pytestmark = pytest.mark.heavy(40)  # opgen check of new ops: about 40 s alone


def test_new_op_generates_and_fails_check_until_the_reference_exists(tmp_path: Path) -> None:
    src = project_paths()
    root = tmp_path / "proj"
    for name in ("specs", "templates", "reference", "runtime"):
        shutil.copytree(src.root / name, root / name, ignore=shutil.ignore_patterns("tests_*"))
    shutil.copy(src.clang_format, root / ".clang-format")
    env = {**os.environ, "OPGEN_ROOT": str(root)}

    def opgen(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "codegen", *args], env=env, capture_output=True, text=True, check=False, timeout=1200
        )

    made = opgen("new", "ScaledProductBackward", "--family", "elementwise")
    assert made.returncode == 0, made.stderr
    assert (root / "specs" / "scaled_product_backward.yaml").is_file()
    again = opgen("new", "ScaledProductBackward", "--family", "elementwise")
    assert again.returncode == 2 and "exists already; not overwriting" in again.stderr
    gen = opgen("generate")
    assert gen.returncode == 0, gen.stderr
    kernel = root / "generated" / "activation" / "scaled_product_grad" / "op_kernel" / "scaled_product_grad.cpp"
    assert kernel.is_file()
    check = opgen("check", "scaled_product_backward", "--product", "Ascend910B", "--quick")
    assert check.returncode == 1
    assert "reference not implemented: reference/scaled_product_backward.py is a stub" in check.stdout
    # Writing the reference is all it takes to pass.
    (root / "reference" / "scaled_product_backward.py").write_text(
        "import numpy as np\n\n\ndef reference(x, y, threshold):\n"
        "    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)\n"
        "    return np.where(x > float(np.float32(threshold)), x * y, 0.0)\n"
    )
    check = opgen("check", "scaled_product_backward", "--product", "Ascend910B", "--quick")
    assert check.returncode == 0, check.stdout[-3000:]
    assert " 0 failed" in check.stdout


def test_new_op_rejects_bad_names_and_families(tmp_path: Path) -> None:
    env = {**os.environ}
    bad = subprocess.run(
        [sys.executable, "-m", "codegen", "--specs", str(tmp_path), "new", "my_op", "--family", "elementwise"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and "must be UpperCamelCase" in bad.stderr
    fam = subprocess.run(
        [sys.executable, "-m", "codegen", "--specs", str(tmp_path), "new", "MyOp", "--family", "reduce"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert fam.returncode == 2
    assert (
        fam.stderr == "error: --family: no family 'reduce'; the families are: elementwise, foreach, gather_scatter, "
        "index_accumulate, row_reduce\n"
    )


def test_an_out_of_tree_spec_dir_keeps_its_references_next_to_it(tmp_path: Path) -> None:
    src = project_paths()
    shutil.copytree(src.specs, tmp_path / "specs")
    shutil.copytree(src.reference, tmp_path / "reference", ignore=shutil.ignore_patterns("__pycache__"))
    specs = str(tmp_path / "specs")

    def opgen(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "codegen", "--specs", specs, *args],
            capture_output=True,
            text=True,
            check=False,
            timeout=1200,
        )

    made = opgen("new", "FooBackward", "--family", "elementwise")
    assert made.returncode == 0, made.stderr
    stub = tmp_path / "reference" / "foo_backward.py"
    assert stub.is_file() and not (src.reference / "foo_backward.py").exists()
    # the project's generated/ has no folder for the new op: the check refuses before it builds anything
    check = opgen("check", "foo_backward", "--quick", "--product", "Ascend910B")
    assert check.returncode == 2 and "generated/ is behind the specs" in check.stderr, check.stderr
    assert f"`opgen --specs {specs} generate` brings the tree up to date" in check.stderr
    gen = opgen("generate", "foo_backward", "--out", str(tmp_path / "generated"))
    assert gen.returncode == 0, gen.stderr
    generated = ("--generated", str(tmp_path / "generated"))
    check = opgen("check", "foo_backward", "--quick", "--product", "Ascend910B", *generated)
    assert check.returncode == 1
    # the table wraps a long cell at spaces (the temporary path's length varies): compare with the words joined
    assert f"reference not implemented: {stub} is a stub (REFERENCE_IMPLEMENTED = False)" in " ".join(
        check.stdout.split()
    )
    assert "does not exist" not in check.stdout
    stub.write_text(
        "import numpy as np\n\n\ndef reference(x, y, threshold):\n"
        "    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)\n"
        "    return np.where(x > float(np.float32(threshold)), x * y, 0.0)\n"
    )
    check = opgen("check", "foo_backward", "--quick", "--product", "Ascend910B", *generated)
    assert check.returncode == 0, check.stdout[-3000:]
    assert " 0 failed" in check.stdout


def test_new_op_creates_a_missing_reference_dir_and_writes_nothing_when_it_cannot(tmp_path: Path) -> None:
    def new(specs: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "codegen", "--specs", str(specs), "new", "BarBackward", "--family", "elementwise"],
            capture_output=True,
            text=True,
            check=False,
        )

    catalogue = (Path(__file__).resolve().parents[1] / "specs" / "products.yaml").read_text()
    (tmp_path / "a" / "specs").mkdir(parents=True)
    (tmp_path / "a" / "specs" / "products.yaml").write_text(catalogue)
    made = new(tmp_path / "a" / "specs")
    assert made.returncode == 0, made.stderr
    assert (tmp_path / "a" / "reference" / "bar_backward.py").is_file()
    assert (tmp_path / "a" / "specs" / "bar_backward.yaml").is_file()
    (tmp_path / "b" / "specs").mkdir(parents=True)
    (tmp_path / "b" / "specs" / "products.yaml").write_text(catalogue)
    (tmp_path / "b" / "reference").write_text("a file where the reference directory belongs\n")
    failed = new(tmp_path / "b" / "specs")
    assert failed.returncode == 2
    assert f"cannot create the reference directory {tmp_path / 'b' / 'reference'}" in failed.stderr
    assert [p.name for p in (tmp_path / "b" / "specs").iterdir()] == ["products.yaml"]
    missing = new(tmp_path / "c" / "specs")
    assert missing.returncode == 2 and "does not exist" in missing.stderr
    assert not (tmp_path / "c").exists()
    # a spec directory without the product catalogue: the spec could never load, so nothing is written
    (tmp_path / "d" / "specs").mkdir(parents=True)
    bare = new(tmp_path / "d" / "specs")
    assert bare.returncode == 2
    assert f"spec directory {tmp_path / 'd' / 'specs'} has no products.yaml" in bare.stderr
    assert list((tmp_path / "d" / "specs").iterdir()) == []
    assert not (tmp_path / "d" / "reference").exists()


@pytest.mark.parametrize(
    ("name", "clash"),
    [
        ("SigmoidGrad", "gives the device OpType 'SigmoidGrad', which "),  # sigmoid_backward.yaml's OpType
        ("SoftmaxV2", "gives the device OpType 'SoftmaxV2', which "),  # softmax.yaml's
    ],
)
def test_new_op_refuses_a_name_whose_op_type_or_kernel_another_spec_uses(tmp_path: Path, name: str, clash: str) -> None:
    """A review helper ran `opgen new SigmoidGrad`: the starter took op_type SigmoidGrad and kernel sigmoid_grad,
    which sigmoid_backward.yaml uses, and every command then failed to load the project."""
    specs = tmp_path / "specs"
    shutil.copytree(project_paths().specs, specs)
    before = sorted(p.name for p in specs.iterdir())
    proc = subprocess.run(
        [sys.executable, "-m", "codegen", "--specs", str(specs), "new", name, "--family", "elementwise"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert clash in proc.stderr and "choose another name" in proc.stderr, proc.stderr
    assert sorted(p.name for p in specs.iterdir()) == before
    assert not (tmp_path / "reference").exists()


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("Errno", "'errno' is a macro of errno.h, a header the generated code includes; choose another name"),
        ("Stdin", "'stdin' is a macro of stdio.h, a header the generated code includes; choose another name"),
        ("Int", "'int' is a C++ keyword; choose another name"),
        ("Restrict", "'restrict' is a C keyword; choose another name"),
    ],
)
def test_new_op_refuses_every_kernel_name_the_loader_refuses(tmp_path: Path, name: str, problem: str) -> None:
    """`opgen new Errno` wrote a spec whose kernel 'errno' (a header macro) the loader then refused: `new`
    shares the loader's kernel name rule and writes nothing."""
    from codegen.new import NewOpError, new_op
    from codegen.spec.naming import kernel_problem

    specs = tmp_path / "specs"
    specs.mkdir()
    shutil.copy(project_paths().specs / "products.yaml", specs)
    kernel = name.lower()
    assert kernel_problem(kernel) == problem  # the rule the loader applies to a spec's kernel
    with pytest.raises(NewOpError) as info:
        new_op(name, "elementwise", specs, tmp_path / "reference")
    assert str(info.value) == f"op name '{name}' gives the kernel name '{kernel}': {problem}; nothing written"
    assert sorted(p.name for p in specs.iterdir()) == ["products.yaml"]
    assert not (tmp_path / "reference").exists()


def test_new_op_names_the_loader_accepts_load(tmp_path: Path) -> None:
    """A name next to the refused ones is written, and its spec loads."""
    from codegen.new import new_op
    from codegen.spec.loader import load_specs

    specs = tmp_path / "specs"
    specs.mkdir()
    shutil.copy(project_paths().specs / "products.yaml", specs)
    new_op("Errnum", "elementwise", specs, tmp_path / "reference")
    assert [s.kernel for s in load_specs(specs)[1].values()] == ["errnum"]
