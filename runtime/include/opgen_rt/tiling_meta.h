// ascend-opgen host emulation: a registry of tiling-data layouts (field names, types, offsets), so the host
// side can show a launch's tiling as named values (opgen_rt_last_launch_stats, opgen_rt_run_tiling_json).
// Hand-written runtime code; not a CANN header.
//
// Who registers: REGISTER_TILING_DATA_CLASS(OpType, ClassName) in register/tilingdata_base.h (device side)
// calls RegisterTilingClassMeta once per OpType, describing the bytes SaveToBuffer() writes. Registering
// the same OpType again replaces the earlier entry (the macro may run in several translation units).
// Implemented on the host side (runtime/src/host/tiling_meta.cpp).
#ifndef OPGEN_RT_TILING_META_H
#define OPGEN_RT_TILING_META_H

#include <cstddef>
#include <string>
#include <vector>

namespace opgen_rt {

struct TilingFieldMeta {
  std::string name;     // field name, as in TILING_DATA_FIELD_DEF(type, name)
  std::string type;     // element C type as spelled: "int8_t" ... "uint64_t", "float", "double", "bool",
                        // "char"; anything else (a nested struct) is shown as hex bytes
  size_t offset = 0;    // byte offset in the buffer SaveToBuffer() writes
  size_t elemSize = 0;  // bytes of one element
  size_t count = 1;     // elements (> 1 for TILING_DATA_FIELD_DEF_ARR)
};

struct TilingClassMeta {
  std::string className;  // e.g. "SoftMarginLossGradTilingData"
  size_t dataSize = 0;    // GetDataSize() of the class
  std::vector<TilingFieldMeta> fields;
};

bool RegisterTilingClassMeta(const char *opType, const TilingClassMeta &meta);
// nullptr when nothing was registered for `opType`. The pointer stays valid until the next registration
// for the same OpType.
const TilingClassMeta *FindTilingClassMeta(const char *opType);

// The tiling bytes `data` (`size` bytes, laid out as `meta`) as a JSON object {"field": value, ...}; arrays
// become JSON arrays; fields past `size` are null. Without meta: {"raw": "<hex>"}.
std::string TilingDataToJson(const TilingClassMeta *meta, const void *data, size_t size);

}  // namespace opgen_rt

#endif  // OPGEN_RT_TILING_META_H
