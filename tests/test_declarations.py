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

import os
import re
import shutil
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
#: The emulation of ops-nn's tests/ut/common, which its op_host unit tests include by file name.
UT_COMMON = INCLUDE / "tests" / "ut" / "common"
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
        ["kernel_operator.h", "kernel_operator_list_tensor_intf.h"]
        if side == "kernel"
        else sorted(
            {
                m
                for f in [*GENERATED.glob("*/*/op_[ha]*/*.cpp"), *GENERATED.rglob("tests/ut/op_host/*.cpp")]
                for m in re.findall(r'#include "([^"]+)"', f.read_text(encoding="utf-8"))
                if any((d / m).is_file() for d in (INCLUDE, UT_COMMON))
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
         '-DOPGEN_PRODUCT_NAME="Ascend910B"', "-DOPGEN_HAS_DATACOPYPAD=1", "-I", str(UT_COMMON), "-I", str(INCLUDE),
         str(src)],
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
#: (``tests/ut/``) include: googletest's subset.
UT_ONLY_HEADERS = ("gtest/gtest.h",)


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
    """Names a generated file declares itself: types, template parameters, macros, functions, constants, a
    proto's DATATYPE names."""
    own: set[str] = set()
    for pattern in (
        r"\b(?:class|struct|typename|enum(?:\s+class)?)\s+([A-Za-z_]\w*)",
        r"#\s*define\s+([A-Za-z_]\w*)",
        r"\busing\s+([A-Za-z_]\w*)\s*=",
        r"\b(?:constexpr|const)\s+[\w:<>]+\s+([A-Za-z_]\w*)\s*[=({]",
        r"^[\w:<>,\s\*&]*?[\w>\*&]\s+[\*&]?([A-Za-z_]\w*)\s*\([^;]*?\)\s*(?:const\s*)?\{",
        r"\b(?:int\d+_t|uint\d+_t|int32_t|bool|int|TEMPLATE)\s+([A-Z]\w*)\s*[,>]",
        r"\.DATATYPE\(\s*([A-Za-z_]\w*)\s*,",  # a proto's own dtype symbol
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


def _call_of(entry: dict[str, Any]) -> str:
    """A call of ``entry``'s name (the probe's expression without ``&`` and template arguments) with one
    argument no declaration accepts, so that g++ lists every declaration of the name."""
    target = re.sub(r"<[^<>]*(?:<[^<>]*>[^<>]*)*>$", "", entry["probe"]["expr"].lstrip("&"))
    if entry["kind"] == "method":
        cls, _, method = target.rpartition("::")
        return f"std::declval<{cls} &>().{method}(OpgenNoMatch{{}})"
    return f"{target}(OpgenNoMatch{{}})"


#: g++'s (LC_ALL=C) notes and errors that quote a declaration the failed call considered: an overload
#: ("candidate"), the one function a non-overloaded name denotes ("initializing argument N of"), or a
#: function of no parameters ("too many arguments to function").
_DECL_NOTE = re.compile(r"(?:candidate: |initializing argument \d+ of |too many arguments to function )'(.*)'")


def _overload_sets(
    entries: list[dict[str, Any]], side: str, tmp_path: Path, include: Path = INCLUDE
) -> dict[str, set[str]]:
    """Every declaration runtime/include offers under the name of each entry (by entry name), as g++ prints
    it: each entry gets a call that matches no declaration, one per line, and the diagnostics of that line
    name every declaration overload resolution saw."""
    source = _probe_source([], side).replace("void OpgenDeclarationProbe() {\n}\n", "")
    lines = ["#include <utility>", source, "struct OpgenNoMatch {};"]
    first = len("\n".join(lines).splitlines()) + 1
    names = [e["name"] for e in entries]
    lines += [f"void OpgenOverloads{i}() {{ (void)({_call_of(e)}); }}" for i, e in enumerate(entries)]
    src = tmp_path / f"overloads_{side}.cpp"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc = subprocess.run(
        ["g++", "-std=c++17", "-fsyntax-only", "-fmax-errors=0", "-D__NPU_ARCH__=2201",
         '-DOPGEN_PRODUCT_NAME="Ascend910B"', "-DOPGEN_HAS_DATACOPYPAD=1",
         "-I", str(include / UT_COMMON.relative_to(INCLUDE)), "-I", str(include), str(src)],
        capture_output=True, text=True, check=False, env={**os.environ, "LC_ALL": "C"},
    )  # fmt: skip
    found: dict[str, set[str]] = {n: set() for n in names}
    current = None
    for line in proc.stderr.splitlines():
        at = re.match(rf"{re.escape(str(src))}:(\d+):\d+: error: ", line)
        if at:
            index = int(at.group(1)) - first
            current = names[index] if 0 <= index < len(names) else None
        note = _DECL_NOTE.search(line)
        if note and current is not None:
            found[current].add(note.group(1))
    return found


def _overload_entries(side: str) -> list[dict[str, Any]]:
    """Entries whose overload set the test compares: every host function or method with a probe, and every
    entry that records ``overloads`` (not one that records ``no_overload_set``)."""
    return [
        e
        for e in _entries()
        if e.get("side") == side
        and "probe" in e
        and e["kind"] in ("function", "method")
        and (side == "host" or "overloads" in e)
        and "no_overload_set" not in e
    ]


def test_the_emulation_declares_exactly_the_real_overloads(tmp_path: Path) -> None:
    """Where the real header has fixed overloads, runtime/include has the same ones and no catch-all template
    (a template IsNullptr taking any pointer hid an OP_CHECK_NULL on a `char *`); a name with one real
    declaration has one emulated declaration."""
    entries = _overload_entries("host")
    assert "IsNullptr" in {e["name"] for e in entries}
    found = _overload_sets(entries, "host", tmp_path)
    wrong = {}
    for e in entries:
        want = set(e.get("overloads", ()))
        got = found[e["name"]]
        if (want and got != want) or (not want and len(got) != 1):
            wrong[e["name"]] = {"table": sorted(want) or "one declaration", "runtime/include": sorted(got)}
    assert not wrong, wrong
    assert len(found["IsNullptr"]) == 6


def test_every_macro_calling_a_recorded_overload_set_is_used_or_in_the_table() -> None:
    """An entry reached through a macro names a macro of the table, and generated code that uses the macro
    is covered by the entry's overload comparison."""
    entries = _entries()
    macros = {e["name"] for e in entries if e["kind"] == "macro"}
    through = {e["name"]: e["used_through"] for e in entries if "used_through" in e}
    assert through == {"IsNullptr": "OP_CHECK_NULL"}
    assert set(through.values()) <= macros
    assert "OP_CHECK_NULL" in _used_api_names()


def test_the_overload_comparison_fails_for_a_catch_all_template(tmp_path: Path) -> None:
    """The comparison can fail: an emulation whose IsNullptr is one template over any pointer (as it once was)
    shows g++ a template candidate, not the six fixed overloads."""
    include = tmp_path / "include"
    shutil.copytree(INCLUDE, include)
    header = include / "aclnn_kernels" / "common" / "op_error_check.h"
    text = header.read_text(encoding="utf-8")
    start = text.index("static inline bool IsNullptr(const aclTensor *")
    end = text.index("// Phase-1 entry check")
    catch_all = "template <typename T>\ninline bool IsNullptr(const T *p, const char *) { return p == nullptr; }\n\n"
    header.write_text(text[:start] + catch_all + text[end:], encoding="utf-8")
    entry = next(e for e in _entries() if e["name"] == "IsNullptr")
    found = _overload_sets([entry], "host", tmp_path, include)
    assert found["IsNullptr"] and found["IsNullptr"] != set(entry["overloads"])
    assert all(d.startswith("template<") for d in found["IsNullptr"])


def test_op_check_null_on_a_char_pointer_does_not_compile(tmp_path: Path) -> None:
    """As against CANN's header: OP_CHECK_NULL takes aclnn objects only."""
    base = '#include "aclnn_kernels/common/op_error_check.h"\n'
    ok = base + "int F(const aclTensor *t) { OP_CHECK_NULL(t, return 1); return 0; }\n"
    bad = base + "int F(char *mode) { OP_CHECK_NULL(mode, return 1); return 0; }\n"
    assert _compile(ok, tmp_path, "null_tensor").returncode == 0
    got = _compile(bad, tmp_path, "null_char")
    assert got.returncode != 0 and "IsNullptr" in got.stderr


PARAMS_TABLE = PATHS.root / "tests" / "data" / "cann_aclnn_params.yaml"


def _canonical(decl: str) -> str:
    """A C parameter declaration with its spacing normalised: ``const aclTensor* x`` -> ``const aclTensor *x``."""
    return re.sub(r"\s*(\*+)\s*", r" \1", " ".join(decl.split())).strip()


def _params(text: str, function: str) -> list[str] | None:
    """The parameter declarations (type, constness and name; :func:`_canonical`) of the declaration of
    ``function`` in C header text, in order (None when not declared)."""
    found = re.search(rf"\b{function}\s*\(([^)]*)\)\s*;", _strip(text))
    if found is None:
        return None
    return [_canonical(p) for p in found.group(1).split(",")]


def test_every_generated_aclnn_header_declares_cann_parameters() -> None:
    """Both phases of every generated aclnn API declare their parameters as CANN's header does, in order:
    names (a caller by name, or a reader of CANN's docs, meets the same names), types and constness, the
    top-level ``const`` of a by-value parameter included (``const int64_t dim``, ``const aclrtStream stream``)."""
    table = yaml.safe_load(PARAMS_TABLE.read_text(encoding="utf-8"))["apis"]
    headers = sorted(GENERATED.rglob("op_api/aclnn_*.h"))
    assert len(headers) >= 29
    seen = set()
    wrong = {}
    for header in headers:
        text = header.read_text(encoding="utf-8")
        api = re.search(r"\b(aclnn\w+)GetWorkspaceSize\s*\(", text)
        assert api is not None, header
        name = api.group(1)
        assert name in table, f"{name} ({header}) has no entry in {PARAMS_TABLE.name}"
        seen.add(name)
        got = (_params(text, f"{name}GetWorkspaceSize"), _params(text, name))
        want = (table[name]["phase1"], table[name]["phase2"])
        if got != want:
            wrong[name] = {"generated": got, "CANN": want, "source": table[name]["source"]}
    assert not wrong, wrong
    assert seen == set(table), f"entries without a generated API: {sorted(set(table) - seen)}"
    for entry in table.values():
        assert re.match(r"hicann/ops-nn \S+/(op_api/aclnn_\w+\.h|docs/aclnn\w+\.md)", entry["source"]), entry
        assert all(d == _canonical(d) for d in (*entry["phase1"], *entry["phase2"])), entry


def test_the_parameters_are_compared() -> None:
    """The comparison can fail: on a name (the one the generator once gave aclnnSoftshrinkBackward's scalar,
    `lambd`, is not CANN's `lambda`) and on a by-value parameter's top-level const (aclnnGather's dim)."""
    old = "aclnnStatus aclnnSoftshrinkBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self, "
    old += "const aclScalar *lambd, aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor);"
    table = yaml.safe_load(PARAMS_TABLE.read_text(encoding="utf-8"))["apis"]
    assert _params(old, "aclnnSoftshrinkBackwardGetWorkspaceSize") != table["aclnnSoftshrinkBackward"]["phase1"]
    assert table["aclnnSoftshrinkBackward"]["phase1"][2] == "const aclScalar *lambda"
    plain = "aclnnStatus aclnnGatherGetWorkspaceSize(const aclTensor* self, int64_t dim, const aclTensor* index, "
    plain += "aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);"
    got = _params(plain, "aclnnGatherGetWorkspaceSize")
    assert got is not None and got[1] == "int64_t dim" and table["aclnnGather"]["phase1"][1] == "const int64_t dim"
    assert got[:1] + got[2:] == table["aclnnGather"]["phase1"][:1] + table["aclnnGather"]["phase1"][2:]
