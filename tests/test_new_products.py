"""A product the templates have never heard of: a catalogue with two extra SoCs, every op regenerated for them
with ``opgen --products FILE --specs DIR`` (every op's text checked), and one op of each distinct set of
template paths (``template_signature``: every family) compiled and checked on AscendX3, with no template edit.

- ``AscendX2``: a new NpuArch (2202) with Atlas A2-class capabilities but no bf16, a smaller UB (131072
  bytes) and 20 vector cores.
- ``AscendX3``: a new NpuArch (2203) without DataCopyPad and with 4 queue buffers per position, so the
  kernels must take their aligned-copy path and the tilings their shallower buffer depth from the
  capabilities, not from product names.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest
import template_paths

from codegen.build import build_op
from codegen.paths import project_paths
from codegen.runner import OpCallable
from codegen.spec.errors import SpecErrors
from codegen.spec.loader import load_specs
from codegen.spec.model import Catalogue, OpSpec
from codegen.specs import load_project

pytestmark = pytest.mark.heavy(130)  # about 130 s alone: scheduled before lighter files

NEW_PRODUCTS = """\
  - name: AscendX2
    doc_term: Test SoC X2 (Atlas A2 class, no bf16)
    config_name: ascendx2
    soc_version: ASCENDX2
    npu_arch: 2202
    ub_bytes: 131072
    vector_core_num: 20
    bf16: false
    data_copy_pad: true
    atomic_add_dtypes: [INT8, INT16, FLOAT16, INT32, FLOAT]
    queue_buffer_cap: 8
    hw_sync_all: true
    sys_workspace_bytes: 16777216
    source: "test product (tests/test_new_products.py)"
  - name: AscendX3
    doc_term: Test SoC X3 (no DataCopyPad, 4 queue buffers, no hardware SyncAll)
    config_name: ascendx3
    soc_version: ASCENDX3
    npu_arch: 2203
    ub_bytes: 196608
    vector_core_num: 24
    bf16: false
    data_copy_pad: false
    atomic_add_dtypes: [FLOAT]
    queue_buffer_cap: 4
    hw_sync_all: false
    sys_workspace_bytes: 2097152
    source: "test product (tests/test_new_products.py)"
"""
NEW = ("AscendX2", "AscendX3")
_PRODUCTS_LINE = re.compile(r"^products: \[(.*)\]", re.MULTILINE)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "codegen", *args], capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A spec directory whose ops also list the new products, the extended catalogue (outside it), and the
    tree generated from both."""
    root = tmp_path_factory.mktemp("new_products")
    specs = root / "specs"
    specs.mkdir()
    src = project_paths().specs
    catalogue = root / "catalogue.yaml"
    catalogue.write_text((src / "products.yaml").read_text() + NEW_PRODUCTS)
    for path in sorted(src.glob("*.yaml")):
        if path.name == "products.yaml":
            continue
        text, count = _PRODUCTS_LINE.subn(lambda m: f"products: [{m.group(1)}, {', '.join(NEW)}]", path.read_text())
        assert count == 1, f"{path.name}: no one-line products list to extend"
        (specs / path.name).write_text(text)
    # References live next to the spec directory (<specs>/../reference), as `opgen new` writes them.
    shutil.copytree(project_paths().reference, root / "reference", ignore=shutil.ignore_patterns("__pycache__"))
    generated = root / "generated"
    proc = _run("--products", str(catalogue), "--specs", str(specs), "generate", "--out", str(generated))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return {"specs": specs, "catalogue": catalogue, "generated": generated}


def _host_library(project: dict[str, Path], op: str, product: str) -> OpCallable:
    """The (op, product) library of the generated tree of :func:`project` without its kernel
    (``build_op(host_only=True)``: the full library's host units, product glue and runtime), for a test that
    calls the tiling or reads the product's facts only: its kernel is not compiled for a launch that never
    comes (no op is checked on AscendX2)."""
    catalogue, specs = load_project(project["specs"], project["catalogue"])
    return OpCallable(build_op(specs[op], catalogue.get(product), project["generated"], host_only=True))


def test_templates_and_generated_code_never_name_a_product(project: dict[str, Path]) -> None:
    catalogue, _ = load_specs(project["specs"], project["catalogue"])
    words = {w for p in catalogue.products for w in (p.name, p.soc_version, p.config_name)}
    for template in project_paths().templates.rglob("*.j2"):
        text = template.read_text()
        assert not [w for w in words if re.search(rf"\b{w}\b", text)], template
    for source in project["generated"].rglob("*"):
        if source.suffix in (".cpp", ".h"):
            text = source.read_text()
            # Product names appear only in comments and as OpDef AddConfig names (strings), never as code.
            code = "\n".join(line.split("//")[0] for line in text.splitlines())
            assert "SocVersion" not in code, source
            assert not re.search(r"\bASCENDX[23]\b", code), source


def test_kernels_and_tilings_follow_the_capabilities(project: dict[str, Path]) -> None:
    for kernel in project["generated"].glob("*/*/op_kernel/*.cpp"):
        text = kernel.read_text()
        # AscendX3 has no DataCopyPad: its NpuArch takes the whole-block DataCopy path.
        assert "__NPU_ARCH__ == 2203" in text, kernel
        assert "__NPU_ARCH__ == 2202" not in text.split("DataCopyPad")[0], kernel
    smlb = project["generated"] / "loss" / "soft_margin_loss_grad"
    tiling = (smlb / "op_host" / "soft_margin_loss_grad_tiling.cpp").read_text()
    assert re.search(r"case 2203:.*\n\s+return 4;", tiling), "AscendX3's queue buffer cap"
    for product, in_num in (("AscendX2", 2), ("AscendX3", 1)):
        fn = _host_library(project, "soft_margin_loss_backward", product)
        tensor = {"shape": [4096], "dtype": "FLOAT"}
        got = fn.run_tiling({"inputs": [tensor] * 3, "outputs": [tensor], "attrs": {"reduction": "mean"}})
        assert got["status"] == 0, got
        # 3 inputs: min(2, cap // 3) buffers each: 2 with 8 per position, 1 with 4.
        assert (got["tiling"]["inBufferNum"], got["tiling"]["outBufferNum"]) == (in_num, 2), (product, got)


def test_the_builder_passes_the_catalogue_facts(project: dict[str, Path]) -> None:
    catalogue, _ = load_project(project["specs"], project["catalogue"])
    for name in NEW:
        p = catalogue.get(name)
        # the product's facts are the glue unit's, which a library without the kernel holds too
        fn = _host_library(project, "mse_loss_backward", name)
        fn.lib.opgen_rt_product_json.restype = __import__("ctypes").c_char_p
        facts = json.loads(fn.lib.opgen_rt_product_json().decode())
        assert facts["name"] == p.name and facts["config_name"] == p.config_name
        assert (facts["npu_arch"], facts["ub_bytes"], facts["vector_core_num"], facts["queue_buffer_cap"]) == (
            p.npu_arch,
            p.ub_bytes,
            p.vector_core_num,
            p.queue_buffer_cap,
        )
        assert (facts["bf16"], facts["data_copy_pad"]) == (p.bf16, p.data_copy_pad)
        # CANN's SocVersion enum does not know the SoC; the runtime reports it as CANN would.
        assert facts["soc_version"] == "RESERVED_VERSION"


def template_signature(spec: OpSpec, catalogue: Catalogue) -> tuple[object, ...]:
    """:func:`template_paths.template_signature` over the new products."""
    return template_paths.template_signature(spec, catalogue, NEW)


def representatives(specs: Mapping[str, OpSpec], catalogue: Catalogue) -> list[str]:
    """:func:`template_paths.representatives` over the new products: the first op of each template signature."""
    return template_paths.representatives(specs, catalogue, NEW)


def test_representatives_cover_every_family_and_template_path(project: dict[str, Path]) -> None:
    catalogue, specs = load_specs(project["specs"], project["catalogue"])
    chosen = representatives(specs, catalogue)
    assert {specs[op].family for op in chosen} == {s.family for s in specs.values()}
    signatures = {template_signature(specs[op], catalogue) for op in chosen}
    assert len(signatures) == len(chosen)  # no two representatives take the same paths
    assert all(template_signature(s, catalogue) in signatures for s in specs.values())  # every op is represented
    # The queue and UB split differ with the device inputs: a one-input and a two-input row op (Softmax and
    # SoftmaxBackward) are checked separately.
    assert template_signature(specs["softmax"], catalogue) != template_signature(specs["softmax_backward"], catalogue)
    assert len(chosen) < len(specs)


def test_every_family_passes_the_quick_check_on_the_new_products(project: dict[str, Path], tmp_path: Path) -> None:
    """``opgen check --quick`` of one op per :func:`template_signature` on AscendX3 (every op is generated for
    both new products above and its text checked; compiling and running all of them would repeat the same
    template paths).

    AscendX3 is the product whose capabilities take the templates' other paths (no DataCopyPad, 4 queue
    buffers, no hardware SyncAll), so every combination of template switches runs there. AscendX2 is
    generated and its tiling run (above), not checked here: what its quick check would add (an NpuArch no
    template knows, no bf16, a smaller UB, with DataCopyPad) is what tests/test_any_product.py's quick check
    runs for one op of every family on two more such products, one with a single core and DataCopyPad, one
    with a 24 KiB UB and no bf16."""
    catalogue, specs = load_specs(project["specs"], project["catalogue"])
    chosen = representatives(specs, catalogue)
    report = tmp_path / "check.json"
    args = ["--products", str(project["catalogue"]), "--specs", str(project["specs"]), "check", *chosen, "--quick"]
    args += ["--generated", str(project["generated"]), "-j", "2", "--json", str(report), "--product", "AscendX3"]
    proc = _run(*args)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    data = json.loads(report.read_text())
    assert data["failed"] == 0 and data["passed"] > 0
    assert {(c["op"], c["product"]) for c in data["cases"]} == {(op, "AscendX3") for op in chosen}
    assert {specs[op].family for op in chosen} == {s.family for s in specs.values()}


def test_a_constraint_covers_whole_npu_arches(tmp_path: Path) -> None:
    """A second NpuArch-1001 product in embedding_dense_backward's products, left out of the Atlas training
    limit: the generated check selects by NpuArch, so the spec must list it (or the catalogue must give it
    an NpuArch of its own)."""
    src = project_paths().specs
    twin = (
        "  - name: Ascend910Twin\n    doc_term: test\n    config_name: ascend910twin\n    soc_version: ASCEND910TWIN\n"
        "    npu_arch: 1001\n    ub_bytes: 262144\n    vector_core_num: 30\n    bf16: false\n"
        "    data_copy_pad: false\n    atomic_add_dtypes: [FLOAT]\n    queue_buffer_cap: 4\n    hw_sync_all: false\n"
        "    sys_workspace_bytes: 2097152\n    source: test\n"
    )
    (tmp_path / "products.yaml").write_text((src / "products.yaml").read_text() + twin)
    spec = (src / "embedding_dense_backward.yaml").read_text()
    spec, count = _PRODUCTS_LINE.subn(lambda m: f"products: [{m.group(1)}, Ascend910Twin]", spec)
    assert count == 1
    (tmp_path / "embedding_dense_backward.yaml").write_text(spec)
    with pytest.raises(SpecErrors) as info:
        load_specs(tmp_path)
    assert [e.message for e in info.value.errors] == [
        "'Ascend910Twin' is missing: it shares npu_arch 1001 with a listed product, and the generated check "
        "selects products by NpuArch; list it too"
    ]
