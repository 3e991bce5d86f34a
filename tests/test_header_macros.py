"""Names that are macros of the headers the generated code includes (``errno``, ``EOF``, ...) are refused when
the spec loads, at their line; the recorded macro list is what the compiler's preprocessor gives."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from codegen.build.header_macros import header_macros_of_generated_code, template_includes
from codegen.build.toolchain import CXX
from codegen.paths import project_paths
from codegen.spec.errors import SpecErrors
from codegen.spec.loader import load_op_spec, load_specs
from codegen.spec.naming import header_macros

OP = "mse_loss_backward"


def _available(header: str) -> bool:
    probe = subprocess.run(
        [CXX, "-std=c++17", "-E", f"-I{project_paths().runtime / 'include'}", "-x", "c++", "-"],
        input=f"#include {header}\n",
        capture_output=True,
        text=True,
        check=False,
    )
    return probe.returncode == 0


def test_the_recorded_macros_are_the_preprocessors() -> None:
    collected = header_macros_of_generated_code()
    recorded = dict(header_macros())
    # the C library's own names are among them, each with the header the preprocessor found it in
    assert collected["errno"] == "errno.h" and collected["EOF"] == "stdio.h" and collected["stdin"] == "stdio.h"
    assert collected["OP_LOGE"] == "opdev/op_log.h"
    missing = [h for h in template_includes(project_paths().templates) if not _available(h)]
    if missing:  # a machine without Google Test: its macros cannot be collected here
        assert collected.items() <= recorded.items(), missing
    else:
        assert collected == recorded, (
            "re-record: python -c 'from codegen.build import record_header_macros; record_header_macros()'"
        )


def _spec_with(tmp: Path, old: str, new: str) -> tuple[Path, int]:
    text = (project_paths().specs / f"{OP}.yaml").read_text()
    if not re.search(rf"\b(name|kernel): {old}\b", text):  # the kernel the spec derives: name it
        text = re.sub(r"^category: ", f"kernel: {old}\ncategory: ", text, count=1, flags=re.MULTILINE)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if re.search(rf"\b(name|kernel): {old}\b", t))
    path = tmp / f"{OP}.yaml"
    path.write_text(re.sub(rf"\b{old}\b", new, text))
    return path, line


@pytest.mark.parametrize(
    ("old", "new", "field", "header"),
    [
        ("gradOutput", "errno", "inputs[0].name", "errno.h"),
        ("gradOutput", "EOF", "inputs[0].name", "stdio.h"),
        ("reduction", "stdout", "attrs[0].name", "stdio.h"),
        ("mse_loss_grad", "stdin", "kernel", "stdio.h"),
    ],
)
def test_a_macro_name_is_refused_at_its_line(tmp_path: Path, old: str, new: str, field: str, header: str) -> None:
    catalogue = load_specs(project_paths().specs)[0]
    path, line = _spec_with(tmp_path, old, new)
    with pytest.raises(SpecErrors) as info:
        load_op_spec(path, catalogue)
    message = (
        f"{path}:{line}: {field}: '{new}' is a macro of {header}, a header the generated code includes; "
        "choose another name"
    )
    assert message in str(info.value).splitlines()


def test_cs_restrict_keyword_is_refused(tmp_path: Path) -> None:
    catalogue = load_specs(project_paths().specs)[0]
    path, line = _spec_with(tmp_path, "gradOutput", "restrict")
    with pytest.raises(SpecErrors) as info:
        load_op_spec(path, catalogue)
    assert f"{path}:{line}: inputs[0].name: 'restrict' is a C keyword; choose another name" in str(info.value)


def test_the_project_loads_with_the_macro_rule() -> None:
    assert shutil.which(CXX) is not None
    _, specs = load_specs(project_paths().specs)
    names = {n for s in specs.values() for n in (*s.input_names, *s.output_names, *s.attr_names, s.kernel)}
    assert not names & set(header_macros())
