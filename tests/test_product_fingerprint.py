"""Each distinct target once (issue 18, item 2): the product fingerprint of :mod:`codegen.check.matrix`.

The test derives which catalogue fields matter from where they are read, not from a list of its own: a field
matters when changing it on one product changes what that product's build or run sees, i.e. the builder's
glue (every fact the emulator gets, :func:`codegen.build.glue_source`) and macros, or the compiled files the
templates render for the op. Parametrised over every field of :class:`codegen.spec.model.Product`:

- a field that matters splits Ascend910B and Ascend910_93 (today's pair) once it differs between them;
- a field that matters nowhere keeps them together;
- the identity fields (name, config name, SoC version), which every build mentions only to register the
  product, keep them together while no compiled source tests them, and split them when one does.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path
from typing import Any

import pytest

from codegen.build import glue_source
from codegen.build.glue import product_macros
from codegen.check.matrix import (
    COMPILED_KINDS,
    COMPILED_KINDS_KERNEL,
    PRODUCT_FIELD_ROLES,
    distinct_targets,
    product_fingerprint,
)
from codegen.generate import render_all
from codegen.paths import project_paths
from codegen.spec.errors import SourceLoc
from codegen.spec.generated_names import op_files
from codegen.spec.model import Catalogue, CostModel, DType, Figure, Product
from codegen.specs import load_project

PAIR = ("Ascend910B", "Ascend910_93")
#: one op of each family (the fields are read by the family planners and templates)
OPS = ("sigmoid_backward", "embedding_dense_backward")
FIELDS = [f.name for f in dataclasses.fields(Product)]


def _other(value: Any) -> Any:
    """A different value of the same kind, valid in a catalogue."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value * 2
    if isinstance(value, str):
        return value + "X"
    if isinstance(value, tuple):
        return value[:-1] if len(value) > 1 else (*value, DType.INT32)
    if isinstance(value, SourceLoc):
        return SourceLoc(value.file + ".other", value.line + 7)
    if isinstance(value, CostModel):
        return dataclasses.replace(value, clock_mhz=Figure(value.clock_mhz.value * 2, value.clock_mhz.source))
    raise AssertionError(f"no mutation for {value!r}")


def _with(catalogue: Catalogue, name: str, field: str, value: Any) -> tuple[Catalogue, Product]:
    changed = dataclasses.replace(catalogue.get(name), **{field: value})
    products = tuple(changed if p.name == name else p for p in catalogue.products)
    return dataclasses.replace(catalogue, products=products), changed


def _seen(spec: Any, catalogue: Catalogue, product: Product) -> tuple[str, str, dict[str, str]]:
    """What the build and run of ``spec`` on ``product`` read: glue, macros, compiled rendered files."""
    files = op_files(spec, list(catalogue.products))
    (rendered,) = render_all({spec.snake: spec}, catalogue)
    compiled = {files[k]: rendered.files[files[k]] for k in (*COMPILED_KINDS, *COMPILED_KINDS_KERNEL)}
    binary = files.get(f"binary_json:{product.config_name}")
    if binary is not None:
        compiled["binary.json"] = rendered.files[binary]
    return glue_source(spec, product), " ".join(product_macros(product)), compiled


@pytest.fixture(scope="module")
def project() -> tuple[Catalogue, dict[str, Any]]:
    return load_project(None, None)


def test_every_catalogue_field_has_a_role() -> None:
    assert set(FIELDS) == set(PRODUCT_FIELD_ROLES)
    assert set(PRODUCT_FIELD_ROLES.values()) == {"behaviour", "identity", "documentation"}


def test_today_ascend910b_and_ascend910_93_are_the_only_pair(project: tuple[Catalogue, dict[str, Any]]) -> None:
    catalogue, specs = project
    generated = project_paths().generated
    for spec in specs.values():
        products = [catalogue.get(p) for p in spec.products]
        groups = distinct_targets(spec, products, generated)
        shared = [(runs.name, tuple(p.name for p in covers)) for runs, covers in groups if covers]
        expected = [(PAIR[0], (PAIR[1],))] if set(PAIR) <= set(spec.products) else []
        assert shared == expected, spec.snake
        assert len(groups) == len(products) - len(expected)


@pytest.fixture(scope="module")
def seen_before(project: tuple[Catalogue, dict[str, Any]]) -> dict[str, tuple[str, str, dict[str, str]]]:
    catalogue, specs = project
    return {op: _seen(specs[op], catalogue, catalogue.get(PAIR[1])) for op in OPS}


@pytest.mark.parametrize("field", FIELDS)
def test_a_field_splits_the_pair_exactly_when_a_build_or_run_reads_it(
    field: str,
    project: tuple[Catalogue, dict[str, Any]],
    seen_before: dict[str, tuple[str, str, dict[str, str]]],
    tmp_path: Path,
) -> None:
    catalogue, specs = project
    role = PRODUCT_FIELD_ROLES[field]
    for op in OPS:
        spec = specs[op]
        before = catalogue.get(PAIR[1])
        changed_catalogue, changed = _with(catalogue, PAIR[1], field, _other(getattr(before, field)))
        first = catalogue.get(PAIR[0])
        # the generated tree as `opgen generate` would leave it for the changed catalogue (its config folder)
        generated = tmp_path / op
        shutil.copytree(project_paths().generated / spec.folder, generated / spec.folder)
        config = generated / spec.folder / "op_host" / "config"
        if changed.config_name != before.config_name:
            shutil.copytree(config / before.config_name, config / changed.config_name)
            for path in (generated / spec.folder).rglob("*_def.cpp"):  # the OpDef registers the new config name
                path.write_text(path.read_text().replace(f'"{before.config_name}"', f'"{changed.config_name}"'))
        split = product_fingerprint(spec, first, generated) != product_fingerprint(spec, changed, generated)
        if role == "identity":
            # registration only: what a build reads about it changes, but no compiled source tests it
            assert not split, f"{field} split the pair although no compiled source of {op} tests it"
            continue
        read = seen_before[op] != _seen(spec, changed_catalogue, changed)
        assert split == read, (
            f"{field} ({role}): the build/run of {op} {'reads' if read else 'does not read'} it, "
            f"but the fingerprint {'splits' if split else 'keeps'} the pair"
        )
        if role == "behaviour":
            assert read, f"{field} is marked behaviour but no build or run of {op} reads it"


@pytest.mark.parametrize(
    ("field", "line"),
    [
        ("soc_version", "static int opgen_probe() { return static_cast<int>(GetSocVersion()); }\n"),
        ("name", "static const char *opgen_probe = OPGEN_PRODUCT_NAME;\n"),
        ("name", "static const void *opgen_probe = &platform_ascendc::PlatformAscendC::GetSocLongVersion;\n"),
        ("config_name", 'static void opgen_probe(ops::OpDef &d) { d.AICore().AddConfig("ascend910_93", cfg); }\n'),
        ("config_name", 'static const char *opgen_probe = "ascend910_93";\n'),
    ],
)
def test_an_identity_field_splits_the_pair_when_the_compiled_code_tests_it(
    field: str, line: str, project: tuple[Catalogue, dict[str, Any]], tmp_path: Path
) -> None:
    catalogue, specs = project
    spec = specs["sigmoid_backward"]
    shutil.copytree(project_paths().generated / spec.folder, tmp_path / spec.folder)
    tiling = tmp_path / spec.folder / op_files(spec)["tiling_cpp"]
    first, second = catalogue.get(PAIR[0]), catalogue.get(PAIR[1])
    assert product_fingerprint(spec, first, tmp_path) == product_fingerprint(spec, second, tmp_path)
    tiling.write_text(tiling.read_text() + line)
    assert product_fingerprint(spec, first, tmp_path) != product_fingerprint(spec, second, tmp_path)


def test_the_generated_code_is_part_of_the_fingerprint(
    project: tuple[Catalogue, dict[str, Any]], tmp_path: Path
) -> None:
    catalogue, specs = project
    spec = specs["sigmoid_backward"]
    shutil.copytree(project_paths().generated / spec.folder, tmp_path / spec.folder)
    product = catalogue.get(PAIR[0])
    before = product_fingerprint(spec, product, tmp_path)
    kernel = tmp_path / spec.folder / op_files(spec)["kernel_cpp"]
    kernel.write_text(kernel.read_text() + "// edited\n")
    assert product_fingerprint(spec, product, tmp_path) != before
