// ascend-opgen host emulation of CANN's register/tilingdata_base.h: the tiling data macros.
//
// BEGIN_TILING_DATA_DEF(Name) ... TILING_DATA_FIELD_DEF(type, field) ... END_TILING_DATA_DEF; declares one
// plain class used on both sides: the host tiling function fills it with set_<field>() and SaveToBuffer(),
// the kernel reads the same bytes back with GET_TILING_DATA and uses the public fields. The class is
// trivially copyable and standard-layout; its bytes are exactly what SaveToBuffer writes and GetDataSize()
// reports. REGISTER_TILING_DATA_CLASS(OpType, Name) also describes the fields (name, type, offset) to the
// host runtime's tiling registry (opgen_rt/tiling_meta.h), so launch statistics can show named values.
// Hand-written runtime code; not generated.
#ifndef OPGEN_RT_REGISTER_TILINGDATA_BASE_H
#define OPGEN_RT_REGISTER_TILINGDATA_BASE_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "opgen_rt/tiling_meta.h"

// Field descriptions are chained through overloads of a static member function, one per field, indexed by
// __COUNTER__ relative to the class's first value (member function bodies see the complete class, so
// offsetof works there). Static member functions do not change the layout.
#define OPGEN_TILING_COLLECT_(dataType, fieldName, elemCount, id)                                          \
  static void OpgenCollect(std::integral_constant<int, (id)-kOpgenFirstId>,                                \
                           std::vector<::opgen_rt::TilingFieldMeta> &out) {                                \
    OpgenCollect(std::integral_constant<int, (id)-kOpgenFirstId - 1>{}, out);                              \
    ::opgen_rt::TilingFieldMeta f;                                                                        \
    f.name = #fieldName;                                                                                  \
    f.type = #dataType;                                                                                   \
    f.offset = offsetof(OpgenSelf, fieldName);                                                            \
    f.elemSize = sizeof(dataType);                                                                        \
    f.count = (elemCount);                                                                                \
    out.push_back(f);                                                                                     \
  }

#define BEGIN_TILING_DATA_DEF(className)                                                                  \
  class className {                                                                                       \
   public:                                                                                                \
    using OpgenSelf = className;                                                                          \
    static constexpr int kOpgenFirstId = __COUNTER__;                                                     \
    static void OpgenCollect(std::integral_constant<int, 0>, std::vector<::opgen_rt::TilingFieldMeta> &) {}

// A scalar field `fieldName` with set_fieldName / get_fieldName.
#define TILING_DATA_FIELD_DEF(dataType, fieldName)            \
  dataType fieldName = dataType();                            \
  void set_##fieldName(dataType value) { fieldName = value; } \
  dataType get_##fieldName() const { return fieldName; }      \
  OPGEN_TILING_COLLECT_(dataType, fieldName, 1, __COUNTER__)

// A fixed-size array field; set_ copies arrSize elements from a pointer, get_ returns the array.
#define TILING_DATA_FIELD_DEF_ARR(dataType, arrSize, fieldName)                                     \
  dataType fieldName[arrSize] = {};                                                                 \
  void set_##fieldName(dataType *value) { std::memcpy(fieldName, value, sizeof(fieldName)); }       \
  dataType *get_##fieldName() { return fieldName; }                                                 \
  OPGEN_TILING_COLLECT_(dataType, fieldName, (arrSize), __COUNTER__)

// A nested tiling class field, set through its own setters (tiling.fieldName.set_x(...)).
#define TILING_DATA_FIELD_DEF_STRUCT(structType, fieldName) \
  structType fieldName;                                     \
  OPGEN_TILING_COLLECT_(structType, fieldName, 1, __COUNTER__)

#define END_TILING_DATA_DEF                                                                               \
  /* Copies the class into a raw tiling buffer of `capacity` bytes; nothing when it does not fit. */     \
  void SaveToBuffer(void *pData, size_t capacity) const {                                                \
    if (pData != nullptr && capacity >= sizeof(*this)) {                                                 \
      std::memcpy(pData, this, sizeof(*this));                                                           \
    }                                                                                                    \
  }                                                                                                      \
  size_t GetDataSize() const { return sizeof(*this); }                                                   \
  /* Every field, in declaration order (for the host runtime's tiling registry). */                      \
  static std::vector<::opgen_rt::TilingFieldMeta> OpgenFields() {                                        \
    std::vector<::opgen_rt::TilingFieldMeta> out;                                                        \
    OpgenCollect(std::integral_constant<int, __COUNTER__ - kOpgenFirstId - 1>{}, out);                   \
    return out;                                                                                          \
  }                                                                                                      \
  }

namespace opgen_rt {
template <typename TilingClass>
inline TilingClassMeta MakeTilingClassMeta(const char *className) {
  TilingClassMeta meta;
  meta.className = className;
  meta.dataSize = sizeof(TilingClass);
  meta.fields = TilingClass::OpgenFields();
  return meta;
}
}  // namespace opgen_rt

// Binds an op type to its tiling class: checks that the class can travel as raw bytes and describes its
// fields to the host runtime (registering the same OpType again, from another translation unit, replaces
// the entry with an identical one).
#define REGISTER_TILING_DATA_CLASS(opType, className)                                                     \
  static_assert(std::is_trivially_copyable<className>::value && std::is_standard_layout<className>::value, \
                #className " must be a trivially copyable standard-layout class");                       \
  using opType##TilingDataClass = className;                                                              \
  [[maybe_unused]] static const bool opgen_tiling_registered_##opType =                                   \
      ::opgen_rt::RegisterTilingClassMeta(#opType, ::opgen_rt::MakeTilingClassMeta<className>(#className));

#endif  // OPGEN_RT_REGISTER_TILINGDATA_BASE_H
