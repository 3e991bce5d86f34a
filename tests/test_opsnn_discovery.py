"""ops-nn's discovery rules, applied to the generated tree: every op folder is one that ops-nn's build finds,
registers an OpDef from and compiles a kernel for, on every SoC it has a binary config for.

The rules are facts read from hicann/ops-nn's CMake (commit e5c3fa932), restated here:

- ``cmake/variables.cmake`` sets ``OP_CATEGORY_LIST``; ``add_category_subdirectory`` (``cmake/func.cmake``)
  looks for ops only in those first-level folders, and takes each of their subfolders as an op folder whose
  name is the op's name (``OP_NAME``). A folder anywhere else is never looked at.
- The same macro enters an op folder through its ``CMakeLists.txt`` (unless that file calls
  ``add_sources(``, which belongs to another build path), else through ``op_host/CMakeLists.txt``; a folder
  with neither is passed over without a message.
- ``add_modules_sources`` (``cmake/func.cmake``) takes one ``ACLNNTYPE`` per ``OPTYPE``; an ``ACLNNTYPE``
  other than ``aclnn``, ``aclnn_inner``, ``aclnn_exclude`` or ``no_need_aclnn`` is a fatal error, and for the
  first three the OpDef sources are the files matching ``op_host/<OPTYPE>_def*.cpp`` (a glob: when nothing
  matches, no OpDef is registered and nothing says so).
- ``get_op_type_and_validate`` (``cmake/gen_ops_info.cmake``) compiles no kernel for a folder without
  ``op_kernel/``; for a SoC (compute unit) it reads the OpType from
  ``op_host/config/<soc>/<OP_NAME>_binary.json`` (its ``op_type`` entry), else from ``OP_ADD(...)`` in
  ``<OP_NAME>_def.cpp`` (``get_op_type_from_op_name``, ``cmake/func.cmake``).
- ``add_custom_kernel_library`` (``cmake/custom_kernel.cmake``) builds a kernel for a folder and SoC only
  when both ``op_host/config/<soc>/<OP_NAME>_binary.json`` and ``op_kernel/<OP_NAME>.cpp`` exist, and takes
  the OpDef from ``op_host/<OP_NAME>_def.cpp``.
- ``add_tiling_sources`` and ``add_modules_sources`` (``cmake/func.cmake``) build the files matching
  ``op_host/*_tiling*.cpp`` and ``op_host/*_infershape*.cpp``.
- ``add_op_subdirectory`` (``cmake/func.cmake``) enters the op folder's ``tests/`` (with ``ENABLE_TEST``)
  only through a ``CMakeLists.txt`` there; ops-nn's own ``tests/`` and ``tests/ut/`` CMakeLists.txt enter
  each subfolder holding one; ``add_modules_ut_sources`` (``cmake/ut.cmake``) takes ``test_*_tiling.cpp``
  into a tiling test module and ``test_*_infershape.cpp`` into an infershape one (by the ``HOSTNAME``'s
  name), from its ``DIR``.

A kernel whose binary config names another OpType than the OpDef registers, or a binary config for a SoC the
OpDef does not register (``AddConfig``), would be built for an op ops-nn cannot launch there; both are
reported too. :func:`discovery_problems` applies these rules to a tree; the tests run it on ``generated/``
and on copies with one folder broken in each way the rules can miss an op.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from codegen.paths import project_paths
from codegen.spec.catalogue import load_catalogue
from codegen.specs import load_project

#: ``OP_CATEGORY_LIST`` of ops-nn's ``cmake/variables.cmake``, in its order.
OPS_NN_CATEGORIES = (
    "matmul",
    "conv",
    "activation",
    "foreach",
    "hash",
    "vfusion",
    "index",
    "loss",
    "norm",
    "optim",
    "pooling",
    "quant",
    "rnn",
    "control",
)
#: The ``ACLNNTYPE`` values for which ``add_modules_sources`` globs the OpDef sources.
OPDEF_ACLNN_TYPES = ("aclnn", "aclnn_inner", "aclnn_exclude")
#: The ``ACLNNTYPE`` values ``add_modules_sources`` accepts at all.
ACLNN_TYPES = (*OPDEF_ACLNN_TYPES, "no_need_aclnn")

GENERATED = project_paths().generated
_CALL = re.compile(r"^\s*add_modules_sources\s*\((.*?)\)", re.MULTILINE | re.DOTALL)
_OP_ADD = re.compile(r"^\s*OP_ADD\s*\(\s*(\w+)\s*\)", re.MULTILINE)
_ADD_CONFIG = re.compile(r"AddConfig\s*\(\s*\"(\w+)\"")
#: The keywords of ``add_modules_sources`` (``cmake_parse_arguments`` in ``cmake/func.cmake``).
_KEYWORDS = ("HOSTNAME", "MODE", "DIR", "OPTYPE", "ACLNNTYPE", "COMPUTE_UNIT", "TILING_DIR", "DISABLE_IN_OPP")


def _arguments(call: str) -> dict[str, list[str]]:
    """The keyword arguments of one ``add_modules_sources(...)`` call's text (comments removed)."""
    words = re.sub(r"#[^\n]*", "", call).split()
    found: dict[str, list[str]] = {}
    current = ""
    for word in words:
        if word in _KEYWORDS:
            current = word
            found.setdefault(word, [])
        elif current:
            found[current].append(word)
    return found


def _op_folder_problems(root: Path, folder: Path) -> list[str]:
    """What ops-nn's rules say about one op folder (``folder`` inside a category of ``root``)."""
    name = folder.name
    where = folder.relative_to(root).as_posix()
    cmake = folder / "CMakeLists.txt"
    if not cmake.is_file():
        if not (folder / "op_host" / "CMakeLists.txt").is_file():
            return [f"{where}: no CMakeLists.txt and no op_host/CMakeLists.txt: ops-nn passes the folder over"]
        cmake = folder / "op_host" / "CMakeLists.txt"
    text = cmake.read_text(encoding="utf-8")
    problems = []
    if re.search(r"add_sources\s*\(", text) and cmake.parent == folder:
        problems.append(f"{where}: CMakeLists.txt calls add_sources(: ops-nn does not build it as an op folder")
    calls = [_arguments(c) for c in _CALL.findall(text)]
    if not calls:
        problems.append(f"{where}: {cmake.name} calls no add_modules_sources: no OpDef is registered")
    for args in calls:
        optypes, aclnn = args.get("OPTYPE", []), args.get("ACLNNTYPE", [])
        if not optypes or len(optypes) != len(aclnn):
            problems.append(f"{where}: OPTYPE {optypes} and ACLNNTYPE {aclnn} are not one-to-one")
            continue
        for optype, kind in zip(optypes, aclnn, strict=True):
            if kind not in ACLNN_TYPES:
                problems.append(f"{where}: ACLNNTYPE {kind} is not one of {', '.join(ACLNN_TYPES)}")
            elif kind in OPDEF_ACLNN_TYPES and not sorted((folder / "op_host").glob(f"{optype}_def*.cpp")):
                problems.append(f"{where}: no op_host/{optype}_def*.cpp for OPTYPE {optype}: no OpDef is registered")
    for kind in ("tiling", "infershape"):
        if not sorted((folder / "op_host").glob(f"*_{kind}*.cpp")):
            problems.append(f"{where}: no op_host/*_{kind}*.cpp: no {kind} is built")
    problems += _unit_test_problems(folder, where)
    if not (folder / "op_kernel").is_dir():
        return [*problems, f"{where}: no op_kernel/: no kernel is compiled"]
    if not (folder / "op_kernel" / f"{name}.cpp").is_file():
        problems.append(f"{where}: no op_kernel/{name}.cpp: no kernel is compiled for any SoC")
    definition = folder / "op_host" / f"{name}_def.cpp"
    registered, socs = "", set()
    if definition.is_file():
        def_text = definition.read_text(encoding="utf-8")
        ops = _OP_ADD.findall(def_text)
        registered = ops[0] if len(ops) == 1 else ""
        socs = set(_ADD_CONFIG.findall(def_text))
        if len(ops) != 1:
            problems.append(f"{where}: op_host/{name}_def.cpp has {len(ops)} OP_ADD, not one")
    else:
        problems.append(f"{where}: no op_host/{name}_def.cpp: the kernel build finds no OpDef")
    configs = sorted(p for p in (folder / "op_host" / "config").glob("*") if p.is_dir())
    if not configs:
        problems.append(f"{where}: no op_host/config/<soc>/: no SoC has a binary config")
    for config in configs:
        soc = config.name
        for other in sorted(config.glob("*_binary.json")):
            if other.name != f"{name}_binary.json":
                problems.append(f"{where}: op_host/config/{soc}/{other.name} is not {name}_binary.json: never read")
        binary = config / f"{name}_binary.json"
        if not binary.is_file():
            problems.append(f"{where}: no op_host/config/{soc}/{name}_binary.json: no kernel is built for {soc}")
            continue
        op_type = json.loads(binary.read_text(encoding="utf-8")).get("op_type")
        if registered and op_type != registered:
            problems.append(f"{where}: {soc}'s binary config is for {op_type}, the OpDef registers {registered}")
        if definition.is_file() and soc not in socs:
            problems.append(f'{where}: the OpDef registers no AddConfig("{soc}") for its binary config')
    return problems


def _unit_test_problems(folder: Path, where: str) -> list[str]:
    """What ops-nn's test build does with the op folder's op_host unit tests (see the module doc)."""
    chain = ("tests", "tests/ut", "tests/ut/op_host")
    for i, sub in enumerate(chain):
        cmake = folder / sub / "CMakeLists.txt"
        if not cmake.is_file():
            return [f"{where}: no {sub}/CMakeLists.txt: the op_host unit tests are never built"]
        if i + 1 < len(chain) and "add_subdirectory" not in cmake.read_text(encoding="utf-8"):
            return [f"{where}: {sub}/CMakeLists.txt enters no subfolder: the op_host unit tests are never built"]
    text = (folder / chain[-1] / "CMakeLists.txt").read_text(encoding="utf-8")
    hosts = [m.split() for m in re.findall(r"add_modules_ut_sources\s*\((.*?)\)", text, re.DOTALL)]
    problems = []
    for kind, module in (("tiling", "OP_TILING_MODULE_NAME"), ("infershape", "OP_INFERSHAPE_MODULE_NAME")):
        if not any(
            args[args.index("HOSTNAME") + 1 :][:1] == [f"${{{module}}}"] for args in hosts if "HOSTNAME" in args
        ):
            problems.append(f"{where}: tests/ut/op_host/CMakeLists.txt adds no {kind} unit tests ({module})")
        elif not sorted((folder / chain[-1]).glob(f"test_*_{kind}.cpp")):
            problems.append(f"{where}: no tests/ut/op_host/test_*_{kind}.cpp: no {kind} unit test is built")
    return problems


def op_folders(root: Path) -> list[Path]:
    """The op folders ops-nn's build would look at under ``root``: every subfolder of a category folder."""
    return sorted(
        folder
        for category in OPS_NN_CATEGORIES
        if (root / category).is_dir()
        for folder in (root / category).iterdir()
        if folder.is_dir()
    )


def discovery_problems(root: Path) -> list[str]:
    """Every way ``root`` (a generated tree) breaks ops-nn's discovery rules (see the module doc), as
    ``<folder>: what ops-nn does with it`` lines, in path order; empty when ops-nn finds every op in full.
    A first-level folder that is no category is reported as such (its ops are never found)."""
    problems = [
        f"{p.name}/: not a category of OP_CATEGORY_LIST: ops-nn never looks inside"
        for p in sorted(root.iterdir())
        if p.is_dir() and not p.name.startswith(".") and p.name not in OPS_NN_CATEGORIES
    ]
    for folder in op_folders(root):
        problems += _op_folder_problems(root, folder)
    return problems


def test_the_catalogue_categories_are_ops_nn_category_list() -> None:
    assert load_catalogue(project_paths().specs / "products.yaml").categories == OPS_NN_CATEGORIES


def test_ops_nn_finds_every_generated_op_in_full() -> None:
    assert discovery_problems(GENERATED) == []
    _, specs = load_project()
    found = {p.relative_to(GENERATED).as_posix() for p in op_folders(GENERATED)}
    assert found == {spec.folder for spec in specs.values()}
    # A folder per OpType: each folder's OpDef registers its spec's OpType, and the binary configs say so.
    for spec in specs.values():
        folder = GENERATED / spec.folder
        text = (folder / "op_host" / f"{folder.name}_def.cpp").read_text(encoding="utf-8")
        assert _OP_ADD.findall(text) == [spec.op_type], spec.folder


def test_every_op_folder_beside_its_own_aclnn_api_excludes_opbuilds_aclnn_api() -> None:
    """op_api/ holds the aclnn API, so opbuild must not generate a second aclnn<OpType> from the OpDef:
    ACLNNTYPE aclnn_exclude, as ops-nn writes it beside a hand-written op_api (e.g. its activation/softmax_v2
    and loss/soft_margin_loss_grad)."""
    for folder in op_folders(GENERATED):
        assert sorted((folder / "op_api").glob("aclnn_*.cpp")), folder
        calls = [_arguments(c) for c in _CALL.findall((folder / "CMakeLists.txt").read_text(encoding="utf-8"))]
        assert [args["ACLNNTYPE"] for args in calls] == [["aclnn_exclude"]], folder


def _rename(old: str, new: str) -> Callable[[Path], None]:
    return lambda op: (op / old).rename(op / new)


def _edit(rel: str, old: str, new: str) -> Callable[[Path], None]:
    def apply(op: Path) -> None:
        text = (op / rel).read_text(encoding="utf-8")
        assert old in text, (rel, old)
        (op / rel).write_text(text.replace(old, new), encoding="utf-8")

    return apply


_OP = "activation/sigmoid_grad"
BROKEN: dict[str, tuple[Callable[[Path], None], list[str]]] = {
    "kernel named otherwise": (
        _rename("op_kernel/sigmoid_grad.cpp", "op_kernel/sigmoid_backward.cpp"),
        [f"{_OP}: no op_kernel/sigmoid_grad.cpp: no kernel is compiled for any SoC"],
    ),
    "OpDef named otherwise": (
        _rename("op_host/sigmoid_grad_def.cpp", "op_host/sigmoid_backward_def.cpp"),
        [
            f"{_OP}: no op_host/sigmoid_grad_def*.cpp for OPTYPE sigmoid_grad: no OpDef is registered",
            f"{_OP}: no op_host/sigmoid_grad_def.cpp: the kernel build finds no OpDef",
        ],
    ),
    "binary config named otherwise": (
        _rename("op_host/config/ascend910b/sigmoid_grad_binary.json", "op_host/config/ascend910b/sigmoid_binary.json"),
        [
            f"{_OP}: op_host/config/ascend910b/sigmoid_binary.json is not sigmoid_grad_binary.json: never read",
            f"{_OP}: no op_host/config/ascend910b/sigmoid_grad_binary.json: no kernel is built for ascend910b",
        ],
    ),
    "binary config of another OpType": (
        _edit("op_host/config/ascend950/sigmoid_grad_binary.json", '"op_type": "SigmoidGrad"', '"op_type": "Sigmoid"'),
        [f"{_OP}: ascend950's binary config is for Sigmoid, the OpDef registers SigmoidGrad"],
    ),
    "binary config of a SoC the OpDef lacks": (
        _rename("op_host/config/ascend950", "op_host/config/ascend310b"),
        [f'{_OP}: the OpDef registers no AddConfig("ascend310b") for its binary config'],
    ),
    "OPTYPE naming no def file": (
        _edit("CMakeLists.txt", "OPTYPE sigmoid_grad", "OPTYPE SigmoidGrad"),
        [f"{_OP}: no op_host/SigmoidGrad_def*.cpp for OPTYPE SigmoidGrad: no OpDef is registered"],
    ),
    "unknown ACLNNTYPE": (
        _edit("CMakeLists.txt", "ACLNNTYPE aclnn_exclude", "ACLNNTYPE exclude"),
        [f"{_OP}: ACLNNTYPE exclude is not one of aclnn, aclnn_inner, aclnn_exclude, no_need_aclnn"],
    ),
    "no CMakeLists.txt": (
        lambda op: (op / "CMakeLists.txt").unlink(),
        [f"{_OP}: no CMakeLists.txt and no op_host/CMakeLists.txt: ops-nn passes the folder over"],
    ),
    "a unit test named otherwise": (
        _rename("tests/ut/op_host/test_sigmoid_grad_tiling.cpp", "tests/ut/op_host/sigmoid_grad_tiling_test.cpp"),
        [f"{_OP}: no tests/ut/op_host/test_*_tiling.cpp: no tiling unit test is built"],
    ),
    "unit tests not collected": (
        _edit("tests/ut/op_host/CMakeLists.txt", "${OP_INFERSHAPE_MODULE_NAME}", "${OP_TILING_MODULE_NAME}"),
        [f"{_OP}: tests/ut/op_host/CMakeLists.txt adds no infershape unit tests (OP_INFERSHAPE_MODULE_NAME)"],
    ),
    "no tests/ut/CMakeLists.txt": (
        lambda op: (op / "tests" / "ut" / "CMakeLists.txt").unlink(),
        [f"{_OP}: no tests/ut/CMakeLists.txt: the op_host unit tests are never built"],
    ),
    "infershape named otherwise": (
        _rename("op_host/sigmoid_grad_infershape.cpp", "op_host/sigmoid_grad_infer.cpp"),
        [f"{_OP}: no op_host/*_infershape*.cpp: no infershape is built"],
    ),
    "no op_kernel/": (
        lambda op: shutil.rmtree(op / "op_kernel"),
        [f"{_OP}: no op_kernel/: no kernel is compiled"],
    ),
    "folder named by the aclnn API": (
        lambda op: op.rename(op.parent / "sigmoid_backward"),
        [
            "activation/sigmoid_backward: no op_kernel/sigmoid_backward.cpp: no kernel is compiled for any SoC",
            "activation/sigmoid_backward: no op_host/sigmoid_backward_def.cpp: the kernel build finds no OpDef",
            *(
                line
                for soc in ("ascend310p", "ascend910", "ascend910_93", "ascend910b", "ascend950")
                for line in (
                    f"activation/sigmoid_backward: op_host/config/{soc}/sigmoid_grad_binary.json is not "
                    "sigmoid_backward_binary.json: never read",
                    f"activation/sigmoid_backward: no op_host/config/{soc}/sigmoid_backward_binary.json: no kernel "
                    f"is built for {soc}",
                )
            ),
        ],
    ),
    "folder outside a category": (
        lambda op: op.rename(op.parent.parent / "sigmoid_grad"),
        ["sigmoid_grad/: not a category of OP_CATEGORY_LIST: ops-nn never looks inside"],
    ),
}


@pytest.mark.parametrize("how", sorted(BROKEN))
def test_a_tree_with_one_broken_folder_fails_the_rules(tmp_path: Path, how: str) -> None:
    root = tmp_path / "generated"
    shutil.copytree(GENERATED / _OP, root / _OP)
    assert discovery_problems(root) == []  # the copy as generated: ops-nn finds it
    breaks, expected = BROKEN[how]
    breaks(root / _OP)
    assert discovery_problems(root) == expected
