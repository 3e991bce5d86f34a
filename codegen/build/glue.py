"""What the CANN build system would provide to an op's build: the glue translation unit (the kernel's
registration under its OpType, the product's facts and cost model) and the product's kernel macros."""

from __future__ import annotations

from codegen.registry import family
from codegen.spec.model import OpSpec, Product

#: The kernel macro naming the product (``-DOPGEN_PRODUCT_NAME="<name>"``, see :func:`product_macros`). The
#: runtime uses it only inside ``static_assert`` declarations (their messages, and glue.h's name check),
#: which emit no code and fire or not independently of the name: a kernel unit that compiles gives the same
#: object for every product name (a test guards both facts). So the kernel's cache key leaves it out unless
#: the op's own generated sources mention it, and products with equal NpuArch and capabilities (Ascend910B
#: and Ascend910_93) share one kernel object, as :mod:`codegen.check.matrix` lets them share one run. The
#: compiler still gets the macro, so a failing build names the product it was built for.
PRODUCT_NAME_MACRO = "-DOPGEN_PRODUCT_NAME="


def product_macros(product: Product) -> list[str]:
    """Preprocessor definitions a kernel is compiled with on ``product`` (as the CANN toolchain sets
    ``__NPU_ARCH__``), plus the emulator's capability switches."""
    return [
        f"-D__NPU_ARCH__={product.npu_arch}",
        f'-DOPGEN_PRODUCT_NAME="{product.name}"',
        f"-DOPGEN_HAS_DATACOPYPAD={1 if product.data_copy_pad else 0}",
    ]


def glue_source(spec: OpSpec, product: Product, kernel: bool = True) -> str:
    """The glue translation unit: registers the kernel for its OpType and defines the product's facts.

    With ``kernel=False`` (a host-only library, ``build_op(host_only=True)``) it defines the product's
    facts only and names no kernel symbol, so it links without the kernel's object."""
    dev = spec.device_interface  # the kernel takes the device op's inputs and outputs, workspace and tiling
    n_args = len(dev.inputs) + len(dev.outputs) + family(spec.family).scratch_outputs(spec) + 2
    params = ", ".join(["GM_ADDR"] * n_args)
    args = ", ".join(f"a[{i}]" for i in range(n_args))
    atomic = ", ".join(f"opgen_rt::DtypeId::{d.name}" for d in product.atomic_add_dtypes)
    registration = (
        f'extern "C" void {spec.kernel}({params});\n'
        f"static void opgen_entry_{spec.kernel}(uint8_t **a) {{ {spec.kernel}({args}); }}\n"
        f"OPGEN_RT_REGISTER_KERNEL({spec.op_type}, {spec.kernel}, opgen_entry_{spec.kernel});\n"
    )
    return (
        "// Written by ascend-opgen's builder (the CANN build system's role): kernel registration and product.\n"
        '#include "opgen_rt/glue.h"\n'
        f"{registration if kernel else ''}"
        f'OPGEN_RT_DEFINE_PRODUCT("{product.name}", "{product.config_name}", {product.soc_version}, '
        f"{product.npu_arch}, {product.ub_bytes}, 0, {product.vector_core_num}, "
        f"{'true' if product.bf16 else 'false'}, {'true' if product.data_copy_pad else 'false'}, "
        f"{{{atomic}}}, {product.queue_buffer_cap}, {'true' if product.hw_sync_all else 'false'}, "
        f"{product.sys_workspace_bytes}, {'true' if product.vector_sort else 'false'}"
        f"{cost_model_initializer(product)});\n"
    )


def cost_model_initializer(product: Product) -> str:
    """The trailing ``opgen_rt::CostModel`` argument of ``OPGEN_RT_DEFINE_PRODUCT`` for ``product`` (with its
    leading comma), or ``""`` when the catalogue gives the product no cost model (the emulator then keeps no
    timeline). Bandwidth goes in as bytes per second; every other figure as the catalogue gives it."""
    m = product.cost_model
    if m is None:
        return ""
    per = ", ".join(f"{v.cycles_per_repeat!r}" for v in m.vector)
    lat = ", ".join(f"{v.latency_cycles!r}" for v in m.vector)
    return (
        f", opgen_rt::CostModel{{true, {m.clock_mhz.value!r}, {m.gm_bandwidth_gbps.value * 1e9!r}, "
        f"{m.core_gm_bytes_per_cycle.value!r}, {m.dma_fixed_cycles.value!r}, {{{per}}}, {{{lat}}}, "
        f"{m.scalar_access_cycles.value!r}, {m.scalar_wait_cycles.value!r}}}"
    )


def _kernel_tiling_type(spec: OpSpec) -> str:
    return f"optiling::{spec.op_type}TilingData"
