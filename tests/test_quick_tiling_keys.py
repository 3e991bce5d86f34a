"""The quick matrix launches every tiling key the kernel has on the product: per family, one op on
Ascend910B, the keys the generated kernel compiles there (each ``TILING_KEY_IS(k)`` branch whose ``#if`` guards
hold at the product's NpuArch, read from the generated source) against the keys the quick cases launch (the
check's key pre-pass, :func:`codegen.check.driver.launched_tiling_keys`: the cases run in the runtime's key
listing mode, host code only). A key the planner adds without a case that launches it fails here, and so does
a kernel branch no call reaches on that product (a template defect: the guard should leave it out)."""

from __future__ import annotations

import re

import pytest

from codegen.check import driver
from codegen.check.results import Job
from codegen.paths import project_paths
from codegen.spec.generated_names import op_files
from codegen.specs import load_project

pytestmark = pytest.mark.heavy(120)

CATALOGUE, SPECS = load_project()

_KEY = re.compile(r"TILING_KEY_IS\((\d+)\)")
_DIRECTIVE = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$")


def _holds(condition: str, npu_arch: int) -> bool:
    """A guard of the generated kernel (``__NPU_ARCH__ == N`` terms joined by ``||``, ``&&``, ``!``, parens) at
    ``npu_arch``."""
    text = condition.replace("__NPU_ARCH__", str(npu_arch)).replace("||", " or ").replace("&&", " and ")
    text = re.sub(r"!(?!=)", " not ", text)
    if not re.fullmatch(r"[\d\s()=<>!a-z]*", text):
        raise ValueError(f"unexpected guard {condition!r}")
    return bool(eval(text))  # digits, comparisons and boolean operators only (checked above)


def compiled_keys(kernel: str, npu_arch: int) -> set[int]:
    """The tiling keys of ``kernel`` whose branch the preprocessor keeps at ``npu_arch``."""
    stack: list[tuple[bool, bool]] = []  # (this group active, some branch of it taken)
    keys: set[int] = set()
    for line in kernel.splitlines():
        m = _DIRECTIVE.match(line)
        if m:
            kind, rest = m.group(1), m.group(2).strip()
            outer = all(active for active, _ in stack)
            if kind == "if":
                value = _holds(rest, npu_arch)
                stack.append((outer and value, value))
            elif kind in ("ifdef", "ifndef"):
                stack.append((outer, True))  # include guards and feature macros: the branch stays
            elif kind == "elif":
                _, taken = stack.pop()
                outer = all(active for active, _ in stack)
                value = not taken and _holds(rest, npu_arch)
                stack.append((outer and value, taken or value))
            elif kind == "else":
                _, taken = stack.pop()
                outer = all(active for active, _ in stack)
                stack.append((outer and not taken, True))
            else:
                stack.pop()
            continue
        if all(active for active, _ in stack):
            keys.update(int(k) for k in _KEY.findall(line))
    return keys


def test_compiled_keys_follow_the_guards() -> None:
    text = "\n".join(
        [
            "if (TILING_KEY_IS(0)) {}",
            "#if !(__NPU_ARCH__ == 1001 || __NPU_ARCH__ == 2201)",
            "if (TILING_KEY_IS(3)) {}",
            "#endif",
            "#if __NPU_ARCH__ == 1001",
            "if (TILING_KEY_IS(7)) {}",
            "#else",
            "if (TILING_KEY_IS(8)) {}",
            "#endif",
        ]
    )
    assert compiled_keys(text, 2201) == {0, 8}
    assert compiled_keys(text, 1001) == {0, 7}
    assert compiled_keys(text, 3510) == {0, 3, 8}


def _one_op_per_family() -> list[str]:
    first: dict[str, str] = {}
    for name in sorted(SPECS):
        first.setdefault(SPECS[name].family, name)
    return sorted(first.values())


@pytest.mark.parametrize("op", _one_op_per_family())
def test_quick_matrix_launches_every_compiled_key(op: str) -> None:
    spec, product = SPECS[op], CATALOGUE.get("Ascend910B")
    kernel = (project_paths().generated / spec.folder / op_files(spec)["kernel_cpp"]).read_text()
    compiled = compiled_keys(kernel, product.npu_arch)
    job = Job(op, product.name, (), True, None, ("in_order",), False, None)
    launched = driver.launched_tiling_keys(job, spec, product, None)
    assert launched is not None
    assert launched <= compiled, sorted(launched - compiled)
    assert compiled == launched, f"keys no quick case launches: {sorted(compiled - launched)}"
