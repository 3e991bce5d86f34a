// ascend-opgen host emulation of CANN's exe_graph/runtime/runtime_attrs.h: the attributes a tiling reads,
// by their index in the OpDef (the order of OP_ATTR in the L0 launch).
#ifndef OPGEN_EXE_GRAPH_RUNTIME_RUNTIME_ATTRS_H
#define OPGEN_EXE_GRAPH_RUNTIME_RUNTIME_ATTRS_H

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "exe_graph/runtime/continuous_vector.h"
#include "opgen_rt/attr_value.h"

namespace opgen_rt {
class TilingContextBuilder;
class InferContextBuilder;
}

namespace gert {

class RuntimeAttrs {
 public:
  // Pointer to attribute `index` as T (int64_t, int32_t, uint64_t, uint32_t, bool, float, double, char for
  // the string, or TypedContinuousVector<int64_t|float|bool> for lists); nullptr when there is no such
  // attribute or the attribute cannot be read as T. CANN declares no GetListBool (metadef
  // inc/external/exe_graph/runtime/runtime_attrs.h): a ListBool attr is read with
  // GetAttrPointer<TypedContinuousVector<bool>>.
  template <typename T>
  const T *GetAttrPointer(size_t index) const {
    if (index >= attrs_.size()) {
      return nullptr;
    }
    const opgen_rt::AttrValue &a = attrs_[index];
    using K = opgen_rt::AttrValue::Kind;
    const bool scalar =
        a.kind == K::INT || a.kind == K::UINT || a.kind == K::BOOL || a.kind == K::FLOAT || a.kind == K::DOUBLE;
    if constexpr (std::is_same_v<T, int64_t>) {
      return scalar ? &a.i64 : nullptr;
    } else if constexpr (std::is_same_v<T, uint64_t>) {
      return scalar ? &a.u64 : nullptr;
    } else if constexpr (std::is_same_v<T, int32_t>) {
      return scalar ? &a.i32 : nullptr;
    } else if constexpr (std::is_same_v<T, uint32_t>) {
      return scalar ? &a.u32 : nullptr;
    } else if constexpr (std::is_same_v<T, bool>) {
      return scalar ? &a.b : nullptr;
    } else if constexpr (std::is_same_v<T, float>) {
      return scalar ? &a.f : nullptr;
    } else if constexpr (std::is_same_v<T, double>) {
      return scalar ? &a.d : nullptr;
    } else if constexpr (std::is_same_v<T, char>) {
      return a.kind == K::STRING ? a.s.c_str() : nullptr;
    } else if constexpr (std::is_same_v<T, TypedContinuousVector<int64_t>>) {
      return a.kind == K::LIST_INT ? &a.listInt : nullptr;
    } else if constexpr (std::is_same_v<T, TypedContinuousVector<float>>) {
      return a.kind == K::LIST_FLOAT ? &a.listFloat : nullptr;
    } else if constexpr (std::is_same_v<T, TypedContinuousVector<bool>>) {
      return a.kind == K::LIST_BOOL ? &a.listBool : nullptr;
    } else {
      static_assert(std::is_same_v<T, void>, "GetAttrPointer: unsupported attribute type");
      return nullptr;
    }
  }

  const int64_t *GetInt(size_t index) const {
    return GetAttrPointer<int64_t>(index);
  }
  const bool *GetBool(size_t index) const {
    return GetAttrPointer<bool>(index);
  }
  const float *GetFloat(size_t index) const {
    return GetAttrPointer<float>(index);
  }
  const char *GetStr(size_t index) const {
    return GetAttrPointer<char>(index);
  }
  const TypedContinuousVector<int64_t> *GetListInt(size_t index) const {
    return GetAttrPointer<TypedContinuousVector<int64_t>>(index);
  }
  const TypedContinuousVector<float> *GetListFloat(size_t index) const {
    return GetAttrPointer<TypedContinuousVector<float>>(index);
  }
  size_t GetAttrNum() const {
    return attrs_.size();
  }

 private:
  friend class opgen_rt::TilingContextBuilder;
  friend class opgen_rt::InferContextBuilder;
  std::vector<opgen_rt::AttrValue> attrs_;
};

}  // namespace gert

#endif  // OPGEN_EXE_GRAPH_RUNTIME_RUNTIME_ATTRS_H
