// ascend-opgen runtime host tests: binds OpgenTestOp's and OpgenListOp's kernels (what the builder's glue does for real ops).
// The product comes from the op library's own glue.
#include "opgen_rt/glue.h"

extern "C" void opgen_test_op(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
static void opgen_entry_opgen_test_op(uint8_t **a) {
  opgen_test_op(a[0], a[1], a[2], a[3], a[4]);
}
OPGEN_RT_REGISTER_KERNEL(OpgenTestOp, opgen_test_op, opgen_entry_opgen_test_op);

extern "C" void opgen_list_op(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
static void opgen_entry_opgen_list_op(uint8_t **a) {
  opgen_list_op(a[0], a[1], a[2], a[3]);
}
OPGEN_RT_REGISTER_KERNEL(OpgenListOp, opgen_list_op, opgen_entry_opgen_list_op);
