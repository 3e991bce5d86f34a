"""Product capabilities a row-reduce kernel branches on: NpuArchs without fp32 ReduceMax/ReduceSum and
NpuArchs with DataCacheCleanAndInvalid on GM, as preprocessor conditions over the op's products."""

from __future__ import annotations

from codegen.spec.model import Product

#: NpuArchs whose ReduceSum/ReduceMax take half only (asc-devkit docs ReduceSum.md / ReduceMax.md: Atlas
#: training series products support half; emulated in runtime/include/opgen_rt/device/reduce.h): fp32 rows are
#: reduced there by halving with Max/Add and finishing on the scalar unit.
FP32_REDUCE_MISSING_ARCHS = (1001,)
#: NpuArchs with DataCacheCleanAndInvalid on GM (asc-devkit impl/basic_api/kernel_reg.h implements it for 2201,
#: 3002, 3003, 3113, 3510, 5102; the form without DcciDst also exists on the Atlas inference series, 2002;
#: hiascend atlasascendc_api_07_0177): where a product without DataCopyPad has it, a kernel writes back the
#: scalar cache lines of a partial block; elsewhere (Ascend910, an NpuArch the header does not know) it cannot.
DCCI_ARCHS = (2002, 2201, 3002, 3003, 3113, 3510, 5102)


def no_fp32_reduce_condition(products: list[Product]) -> str:
    """The preprocessor condition (``__NPU_ARCH__ == a || ...``, "0" for none) of the products' NpuArchs in
    :data:`FP32_REDUCE_MISSING_ARCHS`."""
    return (
        " || ".join(
            f"__NPU_ARCH__ == {a}" for a in sorted({p.npu_arch for p in products} & set(FP32_REDUCE_MISSING_ARCHS))
        )
        or "0"
    )


def dcci_flush_condition(products: list[Product]) -> str:
    """The preprocessor condition (``__NPU_ARCH__ == a || ...``, "0" for none) of the NpuArchs of products
    without DataCopyPad that are in :data:`DCCI_ARCHS`: the kernel writes back the scalar cache lines of a
    partial block there."""
    return (
        " || ".join(
            f"__NPU_ARCH__ == {a}"
            for a in sorted({p.npu_arch for p in products if not p.data_copy_pad} & set(DCCI_ARCHS))
        )
        or "0"
    )
