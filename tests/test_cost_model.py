"""The catalogue's cost models (``cost_model`` of specs/products.yaml): sources, validation with ``file:line``
errors, a product without one, the glue that hands one to the emulator, and the call figures
(:func:`codegen.perf.call_timeline`) from hand-made counters. Nothing here builds or runs a kernel."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegen.build.glue import cost_model_initializer
from codegen.paths import project_paths
from codegen.perf import call_timeline
from codegen.spec.catalogue import load_catalogue
from codegen.spec.errors import SpecErrors

PRODUCTS_YAML = project_paths().specs / "products.yaml"


def test_modelled_products_cite_every_figure() -> None:
    cat = load_catalogue(PRODUCTS_YAML)
    modelled = [p.name for p in cat.products if p.cost_model is not None]
    assert modelled == ["Ascend910B", "Ascend910_93", "Ascend950"]
    for name in modelled:
        model = cat.get(name).cost_model
        assert model is not None
        for field, value, source in model.figures():
            assert source.startswith("assumed") or "hicann/" in source, (name, field, source)
            assert float(value.split()[0]) >= 0, (name, field, value)
    a2 = cat.get("Ascend910B").cost_model
    assert a2 is not None
    assert (a2.clock_mhz.value, a2.gm_bandwidth_gbps.value, a2.core_gm_bytes_per_cycle.value) == (1800, 1600, 128)
    assert a2.gm_bandwidth_gbps.assumed and not a2.clock_mhz.assumed
    assert [(v.cycles_per_repeat, v.latency_cycles) for v in a2.vector] == [
        (1, 7),
        (2, 13),
        (1, 13),
        (1, 7),
        (1, 20),
        (1, 7),
        (2, 20),
    ]


def _line_of(text: str, needle: str, after: int = 0) -> int:
    """1-based line of the first line at or after line ``after`` holding ``needle``."""
    for i, line in enumerate(text.splitlines(), start=1):
        if i >= after and needle in line:
            return i
    raise AssertionError(needle)


def test_bad_figures_are_file_line_errors(tmp_path: Path) -> None:
    text = PRODUCTS_YAML.read_text()
    first = _line_of(text, "cost_model:")
    clock = _line_of(text, "clock_mhz:", first)
    cast = _line_of(text, "cast:", first)
    wait = _line_of(text, "scalar_wait_cycles:", first)
    lines = text.splitlines(keepends=True)
    lines[clock - 1] = lines[clock - 1].replace("{value: 1800,", "{value: -5,", 1)
    lines[cast - 1] = lines[cast - 1].replace("cast:", "casts:", 1)
    lines[wait - 1] = "      scalar_wait_cycles: {value: 18}\n"
    path = tmp_path / "products.yaml"
    path.write_text("".join(lines))
    with pytest.raises(SpecErrors) as info:
        load_catalogue(path)
    got = [str(e).replace(str(path), "P") for e in info.value.errors]
    assert got == [
        f"P:{clock}: products[1].cost_model.clock_mhz.value: -5 is out of range; allowed: > 0 and <= 10000",
        f"P:{cast}: products[1].cost_model.vector.casts: unknown key 'casts' (did you mean 'cast'?); allowed: "
        "arithmetic, cast, compare_select, division, reduction, sort, transcendental",
        f"P:{wait}: products[1].cost_model.scalar_wait_cycles.source: missing required key 'source'; required here: "
        "source, value",
    ]


def test_a_product_without_a_cost_model_loads_and_reports_the_model_unavailable(tmp_path: Path) -> None:
    from codegen.explain import model_section
    from codegen.specs import load_project

    cat = load_catalogue(PRODUCTS_YAML)
    product = cat.get("Ascend910")
    assert product.cost_model is None
    assert cost_model_initializer(product) == ""
    stats = {"launches": [{"cores": [{"gm_bytes_read": 64, "gm_bytes_written": 0}], "timeline": None}]}
    assert call_timeline(stats, product) is None
    _, specs = load_project()
    spec = next(s for s in specs.values() if s.op == "SoftMarginLossBackward")
    assert model_section(spec, product, "4,4", None) == (
        "performance model: unavailable on Ascend910 (the product catalogue gives it no cost_model)"
    )


def test_a_call_that_launches_no_kernel_is_modelled_as_such_not_as_a_zero_time_launch() -> None:
    """An empty Softmax input: the API returns before launching (0 launches), so the model says the tiling of
    the report is never used; an empty MseLoss with the mean reduction still launches (it writes NaN)."""
    from codegen.explain import model_section
    from codegen.specs import load_project

    catalogue, specs = load_project()
    product = catalogue.get("Ascend910B")
    softmax = next(s for s in specs.values() if s.aclnn_name == "aclnnSoftmax")
    assert "launches no kernel" in model_section(softmax, product, "4,0", None)
    mse = next(s for s in specs.values() if s.aclnn_name == "aclnnMseLoss")
    assert "modelled time:" in model_section(mse, product, "4,0", None)


def test_the_glue_hands_the_figures_to_the_emulator() -> None:
    product = load_catalogue(PRODUCTS_YAML).get("Ascend910B")
    assert cost_model_initializer(product) == (
        ", opgen_rt::CostModel{true, 1800.0, 1600000000000.0, 128.0, 50.0, {1.0, 2.0, 1.0, 1.0, 1.0, 1.0, "
        "2.0}, {7.0, 13.0, 13.0, 7.0, 20.0, 7.0, 20.0}, 10.0, 18.0}"
    )


def _core() -> dict:
    return {
        "gm_bytes_read": 1_000_000,
        "gm_bytes_written": 600_000,
        "gm_bytes_atomic_added": 0,
        "vector_elements": 4096,
    }


def _timeline(cycles: float, busy: tuple[float, float, float, float], copy: float, hidden: float, work: float) -> dict:
    return {
        "modelled_cycles": cycles,
        "pipe_busy_cycles": dict(zip(("S", "V", "MTE2", "MTE3"), busy, strict=True)),
        "copy_cycles": copy,
        "copy_hidden_cycles": hidden,
        "vector_work_cycles": work,
    }


def test_call_figures_from_counters() -> None:
    product = load_catalogue(PRODUCTS_YAML).get("Ascend910B")
    stats = {
        "launches": [
            {"cores": [_core(), _core()], "timeline": _timeline(3600, (0, 900, 3000, 1200), 3500, 700, 800)},
            {"cores": [_core()], "timeline": _timeline(1800, (10, 1500, 100, 100), 200, 100, 1400)},
        ]
    }
    tl = call_timeline(stats, product)
    assert tl is not None
    # slowest cores: 3600 + 1800 cycles at 1800 MHz = 3 us; their busy cycles add up per pipe
    assert tl.modelled_cycles == 5400 and tl.modelled_us == pytest.approx(3.0)
    assert tl.pipe_busy_cycles == {"S": 10, "V": 2400, "MTE2": 3100, "MTE3": 1300}
    assert tl.critical_pipe == "MTE2"
    assert tl.copy_hidden_fraction == pytest.approx(800 / 3700)
    # 3 cores x 1.6 MB = 4.8e6 bytes at min(1.6 TB/s, 48 x 128 B x 1.8 GHz = 11.06 TB/s) = 3 us
    assert tl.gm_bytes == 4_800_000 and tl.memory_bound_us == pytest.approx(3.0)
    # 2200 cycles of vector work over 48 cores at 1800 MHz
    assert tl.vector_bound_us == pytest.approx(2200 / 48 / 1800)
    assert tl.bound == "memory" and tl.roofline_fraction == pytest.approx(1.0)
    assert tl.vector_elements == 3 * 4096
