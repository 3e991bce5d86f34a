"""Identifiers the templates declare or derive from tensor and attr names, and the spec names that would
collide with them in the generated C++.

A tensor or attr name becomes a parameter of the aclnn API, the l0op function, the kernel entry and the
kernel's ``Init``, and the templates derive further identifiers from it (``xLocal``, ``xGm_``, ``xQueue_``
in the kernel, ``xContiguous``/``xCasted``/``xBroadcast`` in the op API, ``xAttr`` in the tiling function,
``xShape``/``xHostData``/``xDeviceAddr`` in the example program). A name that equals an identifier the
templates declare themselves in one of those scopes, or whose derived identifier does, or whose derived
identifier equals another spec name, gives a C++ redeclaration or shadowing error (``offset`` in the
kernel, ``tmp0`` as a compiler temporary, an input ``out`` next to the kernel's own ``outLocal``). Such
names are rejected at load time; the lists below follow the templates (``templates/op_kernel``,
``op_host``, ``op_api``, ``examples``, ``common``) and are deliberately conservative: every family's
identifiers are taken for every family.

:func:`op_files` names the files generated for an op (the ops-nn layout).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence

from .errors import SourceLoc
from .model import AttrSpec, OpSpec, Product, TensorSpec

__all__ = ["SCOPES", "generated_name_problems", "op_files", "output_path_collisions", "tree_files"]


class _Scope:
    """One generated function or class: what it declares itself and what it derives from spec names."""

    def __init__(self, where: str, declared: str, suffixes: Mapping[str, tuple[str, ...]]) -> None:
        self.where = where
        self.declared = frozenset(declared.split())
        self.suffixes = suffixes  # role ("input", "output", "attr") -> suffixes; roles absent here are not in scope


#: The generated scopes in which spec names and template identifiers meet.
SCOPES: tuple[_Scope, ...] = (
    _Scope(
        "the kernel",
        "blockIdx offset coreLength_ tileLength_ pipe_ outLocal n count done tiling tilingData workspace op T "
        "ABSENT TilingData CopyGmToUb CopyUbToGm Init Process CopyIn Compute CopyOut QUEUE_DEPTH BLOCK_BYTES "
        "nCmp CMP_ELEMS scalarInputs_ IsScalar ReadScalar FillScalar",
        {"input": ("", "Local", "Gm_", "Queue_", "Fill_", "Bits_"), "output": ("", "Gm_", "Queue_")},
    ),
    _Scope(
        "the op API",
        "uniqueExecutor broadcastShape promoteType result resultCasted viewCopyResult ret next joint "
        "CheckParams CheckConstraints BroadcastTensor ShapeDim outShape inShape RowCount npuArch ubSize sums sumsShape",
        {"input": ("", "Contiguous", "Casted", "Broadcast"), "output": ("",), "attr": ("",)},
    ),
    _Scope(
        "the tiling function",
        "context ascendcPlatform ubSize coreNum outStorage outShape totalLength dtypeDesc dtypeIndex variant "
        "tilingKey info blockElems totalBlocks usedCores blocksPerCore formerNum queueBufferCap inBufferNum "
        "outBufferNum bytesPerElement repeatElems tileLength tiling workspaces DtypeIndexOf KeyInfo KEY_INFO KEY_BYTES "
        "QueueBufferCap scalarInputs inputStorage",
        {"attr": ("", "Attr", "Text", "Known")},
    ),
    _Scope(
        "the example program",
        "deviceId stream ret workspaceSize executor workspaceAddr resultData resultBytes CreateAclTensor GetShapeSize",
        {
            "input": ("", "Shape", "HostData", "DeviceAddr"),
            "output": ("", "Shape", "HostData", "DeviceAddr"),
            "attr": ("",),
        },
    ),
)

#: Identifiers of the form ``tmp<N>``, ``tmp<N>_``, ``scalar<N>_``: the formula compiler's fp32 temporaries
#: and host scalar fields in the kernel.
_NUMBERED = re.compile(r"(tmp|scalar|mask)[0-9]+_?")


def generated_name_problems(
    inputs: Sequence[TensorSpec],
    outputs: Sequence[TensorSpec],
    attrs: Sequence[AttrSpec],
    skip: Collection[str] = (),
) -> list[tuple[str, SourceLoc, str]]:
    """Names that would collide in the generated C++, as ``(field path, loc, message)``.

    Args:
        inputs: the op's inputs.
        outputs: the op's outputs.
        attrs: the op's attrs.
        skip: names already reported as invalid or reserved (not reported again).

    Returns:
        One entry per offending name (its ``inputs[i].name``, ``attrs[i].name`` or ``outputs[i].name``
        field), in spec order; each message ends with ``; choose another name``.
    """
    entries: list[tuple[str, SourceLoc, str, str]] = [
        *((f"inputs[{i}].name", t.loc, t.name, "input") for i, t in enumerate(inputs)),
        *((f"attrs[{i}].name", a.loc, a.name, "attr") for i, a in enumerate(attrs)),
        *((f"outputs[{i}].name", t.loc, t.name, "output") for i, t in enumerate(outputs)),
    ]
    problems: list[tuple[str, SourceLoc, str]] = []
    for field, loc, name, role in entries:
        problem = None
        if name in skip:
            continue
        if _NUMBERED.fullmatch(name):
            problem = (
                f"'{name}' is taken by the formula compiler's temporaries and host scalars (tmpN, maskN, scalarN_)"
            )
        for scope in SCOPES:
            if problem:
                break
            others = {n + s for _, _, n, r in entries if n != name for s in scope.suffixes.get(r, ())}
            for suffix in scope.suffixes.get(role, ()):
                derived = name + suffix
                what = f"'{name}'" if not suffix else f"'{name}' gives '{derived}', which"
                if derived in scope.declared:
                    problem = f"{what} is declared by {scope.where}"
                elif derived in others:
                    problem = f"{what} is also derived from another tensor or attr name in {scope.where}"
                if problem:
                    break
        if problem:
            problems.append((field, loc, f"{problem}; choose another name"))
    return problems


def op_files(spec: OpSpec, products: list[Product] | None = None) -> dict[str, str]:
    """Relative paths of the generated files of ``spec``, keyed by template kind (ops-nn layout).

    With ``products`` (the op's catalogue products) the binary configs are included, one per SoC config
    name: kind ``binary_json:<config_name>`` at ``op_host/config/<config_name>/<kernel>_binary.json``."""
    files = {
        "cmake": "CMakeLists.txt",
        "op_api_h": f"op_api/aclnn_{spec.snake}.h",
        "op_api_cpp": f"op_api/aclnn_{spec.snake}.cpp",
        "l0_h": f"op_api/{spec.kernel}.h",
        "l0_cpp": f"op_api/{spec.kernel}.cpp",
        "proto_h": f"op_graph/{spec.kernel}_proto.h",
        "infershape_cpp": f"op_host/{spec.kernel}_infershape.cpp",
        "tiling_h": f"op_host/{spec.kernel}_tiling.h",
        "tiling_cpp": f"op_host/{spec.kernel}_tiling.cpp",
        "def_cpp": f"op_host/{spec.kernel}_def.cpp",
        "kernel_cpp": f"op_kernel/{spec.kernel}.cpp",
        "doc_md": f"docs/{spec.aclnn_name}.md",
        "example_cpp": f"examples/test_aclnn_{spec.snake}.cpp",
        "ut_tiling_cpp": f"tests/ut/op_host/test_{spec.kernel}_tiling.cpp",
        "ut_infershape_cpp": f"tests/ut/op_host/test_{spec.kernel}_infershape.cpp",
        "ut_tiling_def_h": f"tests/ut/op_kernel/{spec.kernel}_tiling_def.h",
        "tests_cmake": "tests/CMakeLists.txt",
        "tests_ut_cmake": "tests/ut/CMakeLists.txt",
        "ut_cmake": "tests/ut/op_host/CMakeLists.txt",
    }
    for p in products or []:
        files[f"binary_json:{p.config_name}"] = f"op_host/config/{p.config_name}/{spec.kernel}_binary.json"
    return files


#: Files at the root of an output tree (path -> what writes it), beside the op folders.
ROOT_FILES: Mapping[str, str] = {
    "OPERATORS.md": "the support matrix (OPERATORS.md)",
    ".opgen-manifest.json": "the generation manifest",
}

#: What each file kind of :func:`op_files` is, as messages name it.
FILE_KIND_NAMES: Mapping[str, str] = {
    "cmake": "the op's CMakeLists.txt",
    "op_api_h": "the aclnn API header",
    "op_api_cpp": "the aclnn API source",
    "l0_h": "the L0 API header",
    "l0_cpp": "the L0 API source",
    "proto_h": "the device op prototype",
    "infershape_cpp": "the InferShape source",
    "tiling_h": "the tiling header",
    "tiling_cpp": "the tiling source",
    "def_cpp": "the OpDef source",
    "kernel_cpp": "the kernel source",
    "doc_md": "the op's document",
    "example_cpp": "the example program",
    "ut_tiling_cpp": "the tiling unit test",
    "ut_infershape_cpp": "the InferShape unit test",
    "ut_tiling_def_h": "the kernel unit tests' tiling header",
    "binary_json": "the binary config",
}


def describe_kind(kind: str) -> str:
    """A file kind of :func:`op_files` (``binary_json:<config>`` too) as messages name it, with the kind."""
    base, _, config = kind.partition(":")
    what = FILE_KIND_NAMES.get(base, base)
    return f"{what} of {config} ({base})" if config else f"{what} ({kind})"


def tree_files(specs: Iterable[OpSpec], products: Mapping[str, Product]) -> dict[str, list[tuple[OpSpec | None, str]]]:
    """Every output path one generation could write (relative to the output root), each with its producers:
    ``(spec, file kind)`` for an op's file (:func:`op_files` under the op's folder, with the binary configs of
    the op's ``products`` found in ``products``), ``(None, description)`` for a root file
    (:data:`ROOT_FILES`). A path with more than one producer is a collision."""
    out: dict[str, list[tuple[OpSpec | None, str]]] = {rel: [(None, what)] for rel, what in ROOT_FILES.items()}
    for spec in specs:
        known = [products[p] for p in spec.products if p in products]
        for kind, rel in op_files(spec, known).items():
            out.setdefault(f"{spec.folder}/{rel}", []).append((spec, kind))
    return out


def output_path_collisions(
    paths: Mapping[str, Sequence[tuple[OpSpec | None, str]]],
) -> list[tuple[str, tuple[OpSpec | None, str], tuple[OpSpec | None, str], str]]:
    """The pairs of producers of ``paths`` (as :func:`tree_files` gives them) that would write over each other,
    as ``(path, first producer, second producer, how)``, sorted by path.

    Two producers collide when they have one path, when their paths differ only in letter case (one file on
    a case-insensitive file system, such as macOS's or Windows's default), or when one's path is a folder of
    the other's (a file where a folder must be). Every pair is compared, whatever names the specs chose.
    """
    found: list[tuple[str, tuple[OpSpec | None, str], tuple[OpSpec | None, str], str]] = []
    by_fold: dict[str, str] = {}
    for rel in sorted(paths):
        producers = list(paths[rel])
        for i in range(1, len(producers)):
            found.append((rel, producers[0], producers[i], "both write it"))
        first = by_fold.setdefault(rel.casefold(), rel)
        if first != rel:
            found.append((rel, paths[first][0], producers[0], f"its path differs from {first} only in letter case"))
    folded = {rel.casefold(): rel for rel in paths}
    for rel in sorted(paths):
        parts = rel.split("/")
        for n in range(1, len(parts)):
            folder = "/".join(parts[:n]).casefold()
            if folder in folded:
                other = folded[folder]
                found.append((rel, paths[other][0], paths[rel][0], f"{other} must be a folder for it"))
    return found


def producer_text(producer: tuple[OpSpec | None, str]) -> str:
    """One producer of :func:`tree_files` as messages name it: the op, its file kind and the spec file."""
    spec, kind = producer
    if spec is None:
        return kind
    return f"{describe_kind(kind)} of {spec.op} ({spec.path})"
