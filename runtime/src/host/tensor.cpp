// ascend-opgen host emulation: aclTensor and the array objects, their C API, and attribute values.
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>
#include <unordered_set>

#include "aclnn/acl_meta.h"
#include "dtype_convert.h"
#include "executor_state.h"
#include "opdev/common_types.h"
#include "opdev/data_type_utils.h"
#include "opdev/op_log.h"
#include "opdev/shape_utils.h"
#include "opgen_rt/attr_value.h"

aclTensor::aclTensor(const op::Shape &viewShape, const op::Strides &viewStrides, int64_t viewOffset,
                     op::DataType dataType, op::Format format, const op::Shape &storageShape, void *storageAddr)
    : viewShape_(viewShape),
      viewStrides_(viewStrides),
      viewOffset_(viewOffset),
      dataType_(dataType),
      storageFormat_(format),
      viewFormat_(format),
      originalFormat_(format),
      storageShape_(storageShape),
      originalShape_(viewShape),
      storageAddr_(storageAddr) {}

bool aclTensor::IsContiguous() const {
  if (IsEmpty()) {
    return true;
  }
  int64_t expected = 1;
  for (size_t i = viewShape_.GetDimNum(); i > 0; --i) {
    const int64_t dim = viewShape_.GetDim(i - 1);
    if (dim != 1) {
      if (i - 1 >= viewStrides_.size() || viewStrides_[i - 1] != expected) {
        return false;
      }
      expected *= dim;
    }
  }
  return true;
}

void *aclTensor::GetData() const {
  if (storageAddr_ == nullptr) {
    return nullptr;
  }
  return static_cast<uint8_t *>(storageAddr_) + viewOffset_ * static_cast<int64_t>(op::TypeSize(dataType_));
}

namespace opgen_rt {

op::Strides ContiguousStrides(const op::Shape &shape) {
  op::Strides strides(shape.GetDimNum(), 1);
  int64_t stride = 1;
  for (size_t i = shape.GetDimNum(); i > 0; --i) {
    strides[i - 1] = stride;
    stride *= shape.GetDim(i - 1) > 0 ? shape.GetDim(i - 1) : 1;
  }
  return strides;
}

uint64_t ViewExtentBytes(const aclTensor *t) {
  if (t->IsEmpty()) {
    return 0;
  }
  const op::Shape &shape = t->GetViewShape();
  const op::Strides &strides = t->GetViewStrides();
  int64_t last = t->GetViewOffset();
  for (size_t i = 0; i < shape.GetDimNum() && i < strides.size(); ++i) {
    last += (shape.GetDim(i) - 1) * strides[i];
  }
  return static_cast<uint64_t>(last + 1) * op::TypeSize(t->GetDataType());
}

AttrValue AttrValue::FromInt(int64_t v) {
  AttrValue a;
  a.kind = Kind::INT;
  a.i64 = v;
  a.u64 = static_cast<uint64_t>(v);
  a.i32 = static_cast<int32_t>(v);
  a.u32 = static_cast<uint32_t>(v);
  a.b = v != 0;
  a.f = static_cast<float>(v);
  a.d = static_cast<double>(v);
  return a;
}

AttrValue AttrValue::FromUint(uint64_t v) {
  AttrValue a = FromInt(static_cast<int64_t>(v));
  a.kind = Kind::UINT;
  a.f = static_cast<float>(v);
  a.d = static_cast<double>(v);
  return a;
}

AttrValue AttrValue::FromBool(bool v) {
  AttrValue a = FromInt(v ? 1 : 0);
  a.kind = Kind::BOOL;
  return a;
}

AttrValue AttrValue::FromFloat(float v) {
  AttrValue a = FromDouble(static_cast<double>(v));
  a.kind = Kind::FLOAT;
  a.f = v;
  return a;
}

AttrValue AttrValue::FromDouble(double v) {
  AttrValue a;
  a.kind = Kind::DOUBLE;
  a.d = v;
  a.f = static_cast<float>(v);
  a.b = v != 0.0;
  // Integer views of a floating attribute truncate (and are only meaningful in range).
  if (v >= -9.2e18 && v <= 9.2e18) {
    a.i64 = static_cast<int64_t>(v);
    a.u64 = static_cast<uint64_t>(a.i64);
    a.i32 = static_cast<int32_t>(a.i64);
    a.u32 = static_cast<uint32_t>(a.i64);
  }
  return a;
}

AttrValue AttrValue::FromString(const std::string &v) {
  AttrValue a;
  a.kind = Kind::STRING;
  a.s = v;
  return a;
}

AttrValue AttrValue::FromListInt(const std::vector<int64_t> &v) {
  AttrValue a;
  a.kind = Kind::LIST_INT;
  a.listInt = gert::TypedContinuousVector<int64_t>(v);
  return a;
}

AttrValue AttrValue::FromListFloat(const std::vector<float> &v) {
  AttrValue a;
  a.kind = Kind::LIST_FLOAT;
  a.listFloat = gert::TypedContinuousVector<float>(v);
  return a;
}

AttrValue AttrValue::FromListBool(const std::vector<bool> &v) {
  AttrValue a;
  a.kind = Kind::LIST_BOOL;
  a.listBool = gert::TypedContinuousVector<bool>(v);
  return a;
}

const char *AttrValue::KindName() const {
  switch (kind) {
    case Kind::INT:
      return "int";
    case Kind::UINT:
      return "uint";
    case Kind::BOOL:
      return "bool";
    case Kind::FLOAT:
      return "float";
    case Kind::DOUBLE:
      return "double";
    case Kind::STRING:
      return "string";
    case Kind::LIST_INT:
      return "list_int";
    case Kind::LIST_FLOAT:
      return "list_float";
    case Kind::LIST_BOOL:
      return "list_bool";
  }
  return "unknown";
}

}  // namespace opgen_rt

namespace {

bool ReadDims(const int64_t *dims, uint64_t num, const char *what, op::Shape &shape) {
  if (num > gert::Shape::kMaxDimNum) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "aclCreateTensor: %s has %llu dimensions; at most %zu are supported.", what,
            static_cast<unsigned long long>(num), gert::Shape::kMaxDimNum);
    return false;
  }
  if (num > 0 && dims == nullptr) {
    OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "aclCreateTensor: %s is nullptr but its length is %llu.", what,
            static_cast<unsigned long long>(num));
    return false;
  }
  for (uint64_t i = 0; i < num; ++i) {
    if (dims[i] < 0) {
      OP_LOGE(ACLNN_ERR_PARAM_INVALID, "aclCreateTensor: %s[%llu] is %lld; dimensions must be >= 0.", what,
              static_cast<unsigned long long>(i), static_cast<long long>(dims[i]));
      return false;
    }
    shape.AppendDim(dims[i]);
  }
  if (shape.GetShapeSize() < 0) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "aclCreateTensor: the element count of %s overflows int64.", what);
    return false;
  }
  return true;
}

int64_t *CopyToNewArray(const std::vector<int64_t> &values, uint64_t &count) {
  count = values.size();
  auto *array = new int64_t[values.empty() ? 1 : values.size()];
  for (size_t i = 0; i < values.size(); ++i) {
    array[i] = values[i];
  }
  return array;
}

}  // namespace

namespace {

// The stored scalar as double (exact for every dtype aclCreateScalar accepts except int64/uint64 beyond 2^53).
double ScalarAsDouble(const unsigned char *b, op::DataType t) {
  switch (t) {
    case ge::DT_FLOAT: {
      float v;
      std::memcpy(&v, b, sizeof(v));
      return static_cast<double>(v);
    }
    case ge::DT_DOUBLE: {
      double v;
      std::memcpy(&v, b, sizeof(v));
      return v;
    }
    case ge::DT_FLOAT16:
    case ge::DT_BF16: {
      uint16_t bits;
      std::memcpy(&bits, b, sizeof(bits));
      return t == ge::DT_FLOAT16 ? opgen_rt::HalfBitsToDouble(bits) : opgen_rt::Bf16BitsToDouble(bits);
    }
    case ge::DT_INT8:
      return static_cast<double>(static_cast<int8_t>(b[0]));
    case ge::DT_UINT8:
      return static_cast<double>(b[0]);
    case ge::DT_BOOL:
      return b[0] != 0 ? 1.0 : 0.0;
    case ge::DT_INT16: {
      int16_t v;
      std::memcpy(&v, b, sizeof(v));
      return static_cast<double>(v);
    }
    case ge::DT_UINT16: {
      uint16_t v;
      std::memcpy(&v, b, sizeof(v));
      return static_cast<double>(v);
    }
    case ge::DT_INT32: {
      int32_t v;
      std::memcpy(&v, b, sizeof(v));
      return static_cast<double>(v);
    }
    case ge::DT_UINT32: {
      uint32_t v;
      std::memcpy(&v, b, sizeof(v));
      return static_cast<double>(v);
    }
    case ge::DT_INT64: {
      int64_t v;
      std::memcpy(&v, b, sizeof(v));
      return static_cast<double>(v);
    }
    case ge::DT_UINT64: {
      uint64_t v;
      std::memcpy(&v, b, sizeof(v));
      return static_cast<double>(v);
    }
    default:
      return 0.0;
  }
}

bool ScalarDtypeSupported(op::DataType t) {
  switch (t) {
    case ge::DT_FLOAT:
    case ge::DT_DOUBLE:
    case ge::DT_FLOAT16:
    case ge::DT_BF16:
    case ge::DT_INT8:
    case ge::DT_UINT8:
    case ge::DT_BOOL:
    case ge::DT_INT16:
    case ge::DT_UINT16:
    case ge::DT_INT32:
    case ge::DT_UINT32:
    case ge::DT_INT64:
    case ge::DT_UINT64:
      return true;
    default:
      return false;
  }
}

}  // namespace

aclScalar::aclScalar(const void *data, op::DataType dataType) : dataType_(dataType) {
  const size_t bytes = op::TypeSize(dataType);
  size_ = (bytes > 0 && bytes <= sizeof(bytes_)) ? bytes : 0;
  if (data != nullptr && size_ > 0) {
    std::memcpy(bytes_, data, size_);
  }
}

float aclScalar::ToFloat() const {
  return static_cast<float>(ScalarAsDouble(bytes_, dataType_));
}

double aclScalar::ToDouble() const {
  return ScalarAsDouble(bytes_, dataType_);
}

bool aclScalar::ToBool() const {
  return ScalarAsDouble(bytes_, dataType_) != 0.0;
}

int32_t aclScalar::ToInt32() const {
  return static_cast<int32_t>(ToInt64());
}

int64_t aclScalar::ToInt64() const {
  if (dataType_ == ge::DT_INT64) {
    int64_t v;
    std::memcpy(&v, bytes_, sizeof(v));
    return v;
  }
  const double d = ScalarAsDouble(bytes_, dataType_);
  // static_cast of a double outside int64 is undefined behaviour: saturate as the hardware converters do.
  if (!(d == d)) {
    return 0;
  }
  if (d >= 9223372036854775807.0) {
    return INT64_MAX;
  }
  if (d <= -9223372036854775808.0) {
    return INT64_MIN;
  }
  return static_cast<int64_t>(d);
}

namespace {

// The caller-made objects (aclCreateTensor, aclCreateScalar, aclCreateTensorList, aclCreateScalarList) that
// are alive, and the addresses of those destroyed since (until an allocation reuses the address). A destroy
// of an address in `destroyed` is reported instead of freeing the object twice, as CANN's runtime would.
struct Liveness {
  std::mutex mutex;
  std::unordered_set<const void *> alive;
  std::unordered_set<const void *> destroyed;
};

// Destroyed addresses remembered at most (an allocation reusing an address forgets it sooner).
constexpr size_t kRememberedDestroys = size_t{1} << 16;

Liveness &Objects() {
  static Liveness *objects = new Liveness();  // never destroyed: destroys may run during static teardown
  return *objects;
}

template <typename T>
T *Register(T *object) {
  if (object != nullptr) {
    Liveness &o = Objects();
    std::lock_guard<std::mutex> lock(o.mutex);
    o.destroyed.erase(object);
    o.alive.insert(object);
  }
  return object;
}

enum class Fate { ALIVE, DESTROYED, UNKNOWN };

// Marks `object` destroyed when it is alive; says what it was.
Fate Retire(const void *object) {
  Liveness &o = Objects();
  std::lock_guard<std::mutex> lock(o.mutex);
  if (o.alive.erase(object) > 0) {
    if (o.destroyed.size() >= kRememberedDestroys) {
      o.destroyed.erase(o.destroyed.begin());  // bounded memory: forget one (any) older destroy
    }
    o.destroyed.insert(object);
    return Fate::ALIVE;
  }
  return o.destroyed.count(object) > 0 ? Fate::DESTROYED : Fate::UNKNOWN;
}

bool IsDestroyed(const void *object) {
  Liveness &o = Objects();
  std::lock_guard<std::mutex> lock(o.mutex);
  return o.destroyed.count(object) > 0;
}

// Destroys the elements of `list` (made by aclCreateTensorList / aclCreateScalarList) with `destroy`. An
// element no longer alive (destroyed on its own, through another list, or earlier in this list) is reported
// and skipped; the rest are destroyed. Returns false, after reporting it, when the list itself was destroyed
// before (the caller must not delete it again); `status` is the call's status.
template <typename List, typename Element>
bool DestroyElements(const List *list, const char *func, const char *what, aclnnStatus (*destroy)(const Element *),
                     aclnnStatus &status) {
  status = ACLNN_SUCCESS;
  if (Retire(list) == Fate::DESTROYED) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s: list %p was already destroyed.", func, static_cast<const void *>(list));
    status = ACLNN_ERR_PARAM_INVALID;
    return false;
  }
  uint64_t dead = 0;
  uint64_t firstDead = 0;
  const void *firstDeadPtr = nullptr;
  for (uint64_t i = 0; i < list->Size(); ++i) {
    const Element *e = (*list)[i];
    if (e != nullptr && IsDestroyed(e)) {
      firstDead = dead == 0 ? i : firstDead;
      firstDeadPtr = dead == 0 ? static_cast<const void *>(e) : firstDeadPtr;
      ++dead;
      continue;
    }
    const aclnnStatus s = destroy(e);
    status = status == ACLNN_SUCCESS ? s : status;
  }
  if (dead > 0) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID,
            "%s: %s %llu of the list (%p) was already destroyed (%llu element(s) in all): a list destroys its "
            "elements, so an element must not be destroyed on its own, sit twice in the list, or sit in a second "
            "list that is destroyed too.",
            func, what, static_cast<unsigned long long>(firstDead), firstDeadPtr, static_cast<unsigned long long>(dead));
    status = ACLNN_ERR_PARAM_INVALID;
  }
  return true;
}

}  // namespace

extern "C" {

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t *stride,
                           int64_t offset, aclFormat format, const int64_t *storageDims, uint64_t storageDimsNum,
                           void *tensorData) {
  op::Shape viewShape;
  op::Shape storageShape;
  if (!ReadDims(viewDims, viewDimsNum, "viewDims", viewShape) ||
      !ReadDims(storageDims, storageDimsNum, "storageDims", storageShape)) {
    return nullptr;
  }
  const auto dtype = op::ToOpDataType(dataType);
  if (op::TypeSize(dtype) == 0) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "aclCreateTensor: unsupported dataType %d.", static_cast<int>(dataType));
    return nullptr;
  }
  if (offset < 0) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "aclCreateTensor: offset %lld is negative.", static_cast<long long>(offset));
    return nullptr;
  }
  op::Strides strides;
  if (stride == nullptr) {
    strides = opgen_rt::ContiguousStrides(viewShape);
  } else {
    strides.assign(stride, stride + viewDimsNum);
    for (uint64_t i = 0; i < viewDimsNum; ++i) {
      if (stride[i] < 0) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "aclCreateTensor: stride[%llu] is %lld; strides must be >= 0.",
                static_cast<unsigned long long>(i), static_cast<long long>(stride[i]));
        return nullptr;
      }
    }
  }
  auto *tensor = new (std::nothrow)
      aclTensor(viewShape, strides, offset, dtype, static_cast<op::Format>(format), storageShape, tensorData);
  if (tensor == nullptr) {
    return nullptr;
  }
  // The view must lie inside the storage.
  const uint64_t need = opgen_rt::ViewExtentBytes(tensor);
  const auto storageBytes = static_cast<uint64_t>(storageShape.GetShapeSize()) * op::TypeSize(dtype);
  if (need > storageBytes) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID,
            "aclCreateTensor: the view (shape %s, strides %s, offset %lld) reaches element %llu, past the storage "
            "of %s (%lld elements).",
            op::ToString(viewShape).GetString(), op::ToString(strides).GetString(), static_cast<long long>(offset),
            static_cast<unsigned long long>(need / op::TypeSize(dtype) - 1), op::ToString(storageShape).GetString(),
            static_cast<long long>(storageShape.GetShapeSize()));
    delete tensor;
    return nullptr;
  }
  return Register(tensor);
}

aclScalar *aclCreateScalar(void *value, aclDataType dataType) {
  if (value == nullptr) {
    OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "aclCreateScalar: value is null.");
    return nullptr;
  }
  const op::DataType t = op::ToOpDataType(dataType);
  if (!ScalarDtypeSupported(t)) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "aclCreateScalar: dataType %d is not supported.", static_cast<int>(dataType));
    return nullptr;
  }
  return Register(new (std::nothrow) aclScalar(value, t));
}

aclnnStatus aclDestroyScalar(const aclScalar *scalar) {
  if (scalar != nullptr && Retire(scalar) == Fate::DESTROYED) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID,
            "aclDestroyScalar: scalar %p was already destroyed (an aclScalar is destroyed once: by "
            "aclDestroyScalar, or by aclDestroyScalarList of the list holding it).",
            static_cast<const void *>(scalar));
    return ACLNN_ERR_PARAM_INVALID;
  }
  delete scalar;
  return ACLNN_SUCCESS;
}

aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size) {
  if (value == nullptr && size > 0) {
    return nullptr;
  }
  return new (std::nothrow) aclIntArray(value, size);
}

aclFloatArray *aclCreateFloatArray(const float *value, uint64_t size) {
  if (value == nullptr && size > 0) {
    return nullptr;
  }
  return new (std::nothrow) aclFloatArray(value, size);
}

aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size) {
  if (value == nullptr && size > 0) {
    return nullptr;
  }
  return new (std::nothrow) aclBoolArray(value, size);
}

aclnnStatus aclDestroyTensor(const aclTensor *tensor) {
  const Fate fate = tensor == nullptr ? Fate::UNKNOWN : Retire(tensor);
  if (fate == Fate::DESTROYED) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID,
            "aclDestroyTensor: tensor %p was already destroyed (an aclTensor is destroyed once: by "
            "aclDestroyTensor, or by aclDestroyTensorList of the list holding it).",
            static_cast<const void *>(tensor));
    return ACLNN_ERR_PARAM_INVALID;
  }
  if (fate == Fate::UNKNOWN && tensor != nullptr && tensor->IsExecutorOwned()) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "aclDestroyTensor: the tensor belongs to an executor.");
    return ACLNN_ERR_PARAM_INVALID;
  }
  delete tensor;
  return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyIntArray(const aclIntArray *array) {
  delete array;
  return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyFloatArray(const aclFloatArray *array) {
  delete array;
  return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyBoolArray(const aclBoolArray *array) {
  delete array;
  return ACLNN_SUCCESS;
}

aclTensorList::aclTensorList(const aclTensor *const *tensors, uint64_t size) {
  if (tensors != nullptr) {
    for (uint64_t i = 0; i < size; ++i) {
      tensors_.push_back(const_cast<aclTensor *>(tensors[i]));
    }
  }
}
aclTensorList::~aclTensorList() = default;
aclTensor *&aclTensorList::operator[](uint64_t i) {
  return tensors_[i];
}
const aclTensor *aclTensorList::operator[](uint64_t i) const {
  return tensors_[i];
}
uint64_t aclTensorList::Size() const {
  return tensors_.size();
}
const aclTensor *const *aclTensorList::GetData() const {
  return tensors_.empty() ? nullptr : tensors_.data();
}

aclScalarList::aclScalarList(const aclScalar *const *scalars, uint64_t size) {
  if (scalars != nullptr) {
    for (uint64_t i = 0; i < size; ++i) {
      scalars_.push_back(const_cast<aclScalar *>(scalars[i]));
    }
  }
}
aclScalarList::~aclScalarList() = default;
aclScalar *&aclScalarList::operator[](uint64_t i) {
  return scalars_[i];
}
const aclScalar *aclScalarList::operator[](uint64_t i) const {
  return scalars_[i];
}
uint64_t aclScalarList::Size() const {
  return scalars_.size();
}
const aclScalar *const *aclScalarList::GetData() const {
  return scalars_.empty() ? nullptr : scalars_.data();
}

aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size) {
  return Register(new (std::nothrow) aclTensorList(value, size));
}

aclScalarList *aclCreateScalarList(const aclScalar *const *value, uint64_t size) {
  return Register(new (std::nothrow) aclScalarList(value, size));
}


// The returned arrays are allocated with new[]; the caller releases them with delete[].
aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum) {
  if (tensor == nullptr || viewDims == nullptr || viewDimsNum == nullptr) {
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  *viewDims = CopyToNewArray(op::ToShapeVector(tensor->GetViewShape()), *viewDimsNum);
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims, uint64_t *storageDimsNum) {
  if (tensor == nullptr || storageDims == nullptr || storageDimsNum == nullptr) {
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  *storageDims = CopyToNewArray(op::ToShapeVector(tensor->GetStorageShape()), *storageDimsNum);
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue, uint64_t *stridesNum) {
  if (tensor == nullptr || stridesValue == nullptr || stridesNum == nullptr) {
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  *stridesValue = CopyToNewArray(tensor->GetViewStrides(), *stridesNum);
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset) {
  if (tensor == nullptr || offset == nullptr) {
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  *offset = tensor->GetViewOffset();
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format) {
  if (tensor == nullptr || format == nullptr) {
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  *format = static_cast<aclFormat>(tensor->GetStorageFormat());
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType) {
  if (tensor == nullptr || dataType == nullptr) {
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  *dataType = op::ToAclDataType(tensor->GetDataType());
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetIntArraySize(const aclIntArray *array, uint64_t *size) {
  if (array == nullptr || size == nullptr) {
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  *size = array->Size();
  return ACLNN_SUCCESS;
}

aclnnStatus aclSetRawTensorAddr(aclTensor *tensor, void *addr) {
  if (tensor == nullptr) {
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  tensor->SetStorageAddr(addr);
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetRawTensorAddr(const aclTensor *tensor, void **addr) {
  if (tensor == nullptr || addr == nullptr) {
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  *addr = tensor->GetStorageAddr();
  return ACLNN_SUCCESS;
}

}  // extern "C"

aclnnStatus aclDestroyTensorList(const aclTensorList *array) {
  aclnnStatus status = ACLNN_SUCCESS;
  if (array != nullptr && DestroyElements(array, "aclDestroyTensorList", "tensor", &aclDestroyTensor, status)) {
    delete array;
  }
  return status;
}

aclnnStatus aclDestroyScalarList(const aclScalarList *array) {
  aclnnStatus status = ACLNN_SUCCESS;
  if (array != nullptr && DestroyElements(array, "aclDestroyScalarList", "scalar", &aclDestroyScalar, status)) {
    delete array;
  }
  return status;
}

aclnnStatus aclGetTensorListSize(const aclTensorList *tensorList, uint64_t *size) {
  if (tensorList == nullptr || size == nullptr) {
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  *size = tensorList->Size();
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetScalarListSize(const aclScalarList *scalarList, uint64_t *size) {
  if (scalarList == nullptr || size == nullptr) {
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  *size = scalarList->Size();
  return ACLNN_SUCCESS;
}
