"""runtime/include declares the real CANN names with the real signatures, and generated code uses no other.

The facts live in ``tests/data/cann_declarations.yaml`` (each with the public file it was read from):

* every entry with a ``probe`` is compiled: the address of ``probe.expr`` initialises a pointer of exactly
  ``probe.type``, so the return type, the parameter types, their reference-ness and the const-qualification
  of a member function must all match the real declaration (a GlobalTensor::SetValue declared const, as the
  emulation once did, no longer compiles);
* every AscendC / acl / aclnn / opdev / gert / OpDef / tiling name that the generated tree uses (an identifier
  runtime/include declares, not one the generated file declares itself) must have an entry.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from codegen.paths import project_paths

PATHS = project_paths()
TABLE = PATHS.root / "tests" / "data" / "cann_declarations.yaml"
INCLUDE = PATHS.root / "runtime" / "include"
GENERATED = PATHS.root / "generated"
KINDS = {"namespace", "class", "method", "function", "enum", "enumerator", "type", "macro", "constant", "name"}


def _entries() -> list[dict[str, Any]]:
    data = yaml.safe_load(TABLE.read_text(encoding="utf-8"))
    return list(data["declarations"])


def _strip(text: str) -> str:
    """C++ text without comments and string literals (their words are not names the code uses)."""
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def _probe_source(entries: list[dict[str, Any]], side: str) -> str:
    includes = (
        ["kernel_operator.h"]
        if side == "kernel"
        else sorted(
            {
                m
                for f in GENERATED.glob("*/op_[ha]*/*.cpp")
                for m in re.findall(r'#include "([^"]+)"', f.read_text(encoding="utf-8"))
                if (INCLUDE / m).is_file()
            }
        )
    )
    lines = [f'#include "{h}"' for h in includes]
    lines.append("void OpgenDeclarationProbe() {")
    for i, e in enumerate(x for x in entries if x.get("side") == side and "probe" in x):
        probe = e["probe"]
        lines.append(f"  {{ using P = {probe['type']}; P p{i} = {probe['expr']}; (void)p{i}; }}  // {e['name']}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _compile(source: str, tmp_path: Path, name: str) -> subprocess.CompletedProcess[str]:
    src = tmp_path / f"{name}.cpp"
    src.write_text(source, encoding="utf-8")
    return subprocess.run(
        ["g++", "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-D__NPU_ARCH__=2201",
         '-DOPGEN_PRODUCT_NAME="Ascend910B"', "-DOPGEN_HAS_DATACOPYPAD=1", "-I", str(INCLUDE), str(src)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip


def test_every_entry_names_its_kind_side_and_public_source() -> None:
    entries = _entries()
    assert len({e["name"] for e in entries}) == len(entries), "duplicate names in the table"
    for e in entries:
        assert e.get("kind") in KINDS, e
        assert e.get("side") in ("kernel", "host"), e
        assert re.search(
            r"(mirror-cann/asc-devkit|hicann/\w+|Ascend/metadef|asc-devkit docs|CANN toolchain)", e.get("source", "")
        ), e


@pytest.mark.parametrize("side", ["kernel", "host"])
def test_runtime_declarations_have_the_real_signatures(side: str, tmp_path: Path) -> None:
    entries = _entries()
    assert any(e.get("side") == side and "probe" in e for e in entries)
    got = _compile(_probe_source(entries, side), tmp_path, f"probe_{side}")
    assert got.returncode == 0, got.stderr[-4000:]


def test_the_probe_rejects_a_wrong_signature(tmp_path: Path) -> None:
    """The check can fail: the const GlobalTensor::SetValue of the old emulation does not match."""
    wrong = [
        {
            "name": "GlobalTensor::SetValue declared const",
            "side": "kernel",
            "probe": {
                "type": "void (AscendC::GlobalTensor<float>::*)(uint64_t, float) const",
                "expr": "&AscendC::GlobalTensor<float>::SetValue",
            },
        }
    ]
    assert _compile(_probe_source(wrong, "kernel"), tmp_path, "probe_wrong").returncode != 0


_DECL_PATTERNS = (
    r"\b(?:class|struct|union|enum(?:\s+class)?)\s+([A-Za-z_]\w*)",
    r"#\s*define\s+([A-Za-z_]\w*)",
    r"\busing\s+([A-Za-z_]\w*)\s*=",
    r"\btypedef\b[^;]*?\b([A-Za-z_]\w*)\s*;",
    r"([A-Za-z_]\w*)\s*\(",
    r"\bnamespace\s+([A-Za-z_]\w*)",
    r"\bOPGEN_RT_\w+\(\s*([A-Za-z_]\w*)",
    r"\bconst(?:expr)?\s+[\w:]+\s+([A-Za-z_]\w*)\s*=",
)


#: Headers of runtime/include that mirror no CANN header and that only the generated op_host unit tests
#: (``tests/ut/``) include: googletest's subset and the emulation's tiling-case helper with its attr values.
UT_ONLY_HEADERS = ("gtest/gtest.h", "opgen_rt/ut_tiling.h", "opgen_rt/attr_value.h")


def _runtime_names(only: tuple[str, ...] | None = None) -> set[str]:
    """Identifiers runtime/include declares (functions, methods, types, macros, enumerators, constants), in
    the headers ``only`` names (relative paths; default all)."""
    names: set[str] = set()
    for f in INCLUDE.rglob("*.h"):
        rel = f.relative_to(INCLUDE).as_posix()
        if only is not None and rel not in only:
            continue
        text = _strip(f.read_text(encoding="utf-8"))
        for pattern in _DECL_PATTERNS:
            names.update(re.findall(pattern, text))
        for body in re.findall(r"\benum\b[^{;]*\{([^}]*)\}", text):
            names.update(re.findall(r"([A-Za-z_]\w*)\s*(?:=[^,]*)?(?:,|$)", body))
    return names


def _own_names(text: str) -> set[str]:
    """Names a generated file declares itself: types, template parameters, macros, functions, constants."""
    own: set[str] = set()
    for pattern in (
        r"\b(?:class|struct|typename|enum(?:\s+class)?)\s+([A-Za-z_]\w*)",
        r"#\s*define\s+([A-Za-z_]\w*)",
        r"\busing\s+([A-Za-z_]\w*)\s*=",
        r"\b(?:constexpr|const)\s+[\w:<>]+\s+([A-Za-z_]\w*)\s*[=({]",
        r"^[\w:<>,\s\*&]*?[\w>\*&]\s+[\*&]?([A-Za-z_]\w*)\s*\([^;]*?\)\s*(?:const\s*)?\{",
        r"\b(?:int\d+_t|uint\d+_t|int32_t|bool|int|TEMPLATE)\s+([A-Z]\w*)\s*[,>]",
    ):
        own.update(re.findall(pattern, text, flags=re.M))
    return own


def _used_api_names() -> dict[str, set[str]]:
    """CANN names the generated C++ uses, each with the generated files that use it."""
    runtime = _runtime_names()
    # in a unit test, a name the unit-test headers declare is theirs (not CANN's), so not in the table
    ut_only = _runtime_names(only=UT_ONLY_HEADERS)
    used: dict[str, set[str]] = {}
    for f in sorted(GENERATED.rglob("*")):
        if f.suffix not in (".cpp", ".h"):
            continue
        text = _strip(f.read_text(encoding="utf-8"))
        own = _own_names(text)
        if "tests/ut/" in f.relative_to(GENERATED).as_posix():
            own |= ut_only
        for name in set(re.findall(r"\b[A-Za-z_]\w*\b", text)):
            api_like = name[0].isupper() or name.startswith(("acl", "__aicore", "__global", "__gm"))
            if api_like and name in runtime and name not in own:
                used.setdefault(name, set()).add(str(f.relative_to(GENERATED)))
    return used


def test_every_name_the_generated_code_uses_is_in_the_table() -> None:
    table = {re.split(r"[ (]", e["name"])[0].split("::")[-1] for e in _entries()}
    used = _used_api_names()
    assert {"SetValue", "SyncAll", "GetUserWorkspace", "GetLibApiWorkSpaceSize", "aclCreateTensor"} <= set(used)
    missing = {name: sorted(files)[:3] for name, files in used.items() if name not in table}
    assert not missing, f"names used by generated code without an entry in {TABLE.name}: {missing}"
