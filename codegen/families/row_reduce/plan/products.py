"""Product capabilities a row-reduce kernel branches on beside the shared ones (:mod:`codegen.plan.products`):
NpuArchs with DataCacheCleanAndInvalid on GM, as a preprocessor condition over the op's products."""

from __future__ import annotations

from codegen.plan.products import archs_condition
from codegen.spec.model import Product

#: NpuArchs with DataCacheCleanAndInvalid on GM (asc-devkit impl/basic_api/kernel_reg.h implements it for 2201,
#: 3002, 3003, 3113, 3510, 5102; the form without DcciDst also exists on the Atlas inference series, 2002;
#: hiascend atlasascendc_api_07_0177): where a product without DataCopyPad has it, a kernel writes back the
#: scalar cache lines of a partial block; elsewhere (Ascend910, an NpuArch the header does not know) it cannot.
DCCI_ARCHS = (2002, 2201, 3002, 3003, 3113, 3510, 5102)


def dcci_flush_condition(products: list[Product]) -> str:
    """The preprocessor condition (``__NPU_ARCH__ == a || ...``, "0" for none) of the NpuArchs of products
    without DataCopyPad that are in :data:`DCCI_ARCHS`: the kernel writes back the scalar cache lines of a
    partial block there."""
    return archs_condition({p.npu_arch for p in products if not p.data_copy_pad} & set(DCCI_ARCHS))
