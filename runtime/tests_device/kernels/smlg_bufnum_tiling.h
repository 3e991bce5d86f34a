// Test copy of the contract tiling header plus the planned buffer-count fields. runtime/tests_device only.
#ifndef OPGEN_TEST_SMLG_BUFNUM_TILING_H
#define OPGEN_TEST_SMLG_BUFNUM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SoftMarginLossGradTilingData)
TILING_DATA_FIELD_DEF(int64_t, totalLength);     // elements of out
TILING_DATA_FIELD_DEF(int64_t, formerNum);       // cores that take one extra 32-byte block
TILING_DATA_FIELD_DEF(int64_t, formerLength);    // elements per former core
TILING_DATA_FIELD_DEF(int64_t, tailLength);      // elements per other core (the last one may be shorter)
TILING_DATA_FIELD_DEF(int64_t, tileLength);      // elements per UB tile
TILING_DATA_FIELD_DEF(float, scale0);            // host-evaluated scalar: -(1/numel(out) if reduction == 1 else 1)
TILING_DATA_FIELD_DEF(int32_t, inBufferNum);     // buffers per input queue
TILING_DATA_FIELD_DEF(int32_t, outBufferNum);    // buffers per output queue
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SoftMarginLossGrad, SoftMarginLossGradTilingData)
}  // namespace optiling

#endif  // OPGEN_TEST_SMLG_BUFNUM_TILING_H
