// ascend-opgen host emulation: the OpDef as JSON (see opgen_rt_opdef_json in opgen_rt/c_api.h).
// Hand-written runtime code; not a CANN header.
#ifndef OPGEN_RT_OP_DEF_JSON_H
#define OPGEN_RT_OP_DEF_JSON_H

#include <string>

#include "register/op_def.h"

namespace opgen_rt {

std::string OpDefToJson(const ops::OpDef &def);

}  // namespace opgen_rt

#endif  // OPGEN_RT_OP_DEF_JSON_H
