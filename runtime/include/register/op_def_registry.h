// ascend-opgen host emulation of CANN's register/op_def_registry.h: OP_ADD registers an OpDef subclass
// (named after its OpType) when the library loads.
#ifndef OPGEN_REGISTER_OP_DEF_REGISTRY_H
#define OPGEN_REGISTER_OP_DEF_REGISTRY_H

#include "register/op_def.h"

namespace ops {

using OpDefCreator = OpDef (*)(const char *name);

// Stores the OpDef built by `creator` under `opType` (a later registration replaces an earlier one).
bool OpDefRegister(const char *opType, OpDefCreator creator);
// nullptr when the op type was never registered.
const OpDef *FindOpDef(const char *opType);

}  // namespace ops

#define OP_ADD(opType, ...)                                          \
  [[maybe_unused]] static const bool g_opgen_op_def_added_##opType = \
      ::ops::OpDefRegister(#opType, [](const char *name) -> ::ops::OpDef { return opType(name); })

#endif  // OPGEN_REGISTER_OP_DEF_REGISTRY_H
