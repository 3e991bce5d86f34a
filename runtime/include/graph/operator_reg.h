// ascend-opgen host emulation of CANN's graph/operator_reg.h: the REG_OP prototype macros an op's
// op_graph/<op>_proto.h uses (hicann/metadef inc/external/graph/operator_reg.h), for compile checks only.
//
//   REG_OP(SoftMarginLossGrad)
//       .INPUT(predict, TensorType({DT_FLOAT16, DT_FLOAT, DT_BF16}))
//       .OUTPUT(gradient, TensorType({DT_FLOAT16, DT_FLOAT, DT_BF16}))
//       .ATTR(reduction, String, "mean")
//       .OP_END_FACTORY_REG(SoftMarginLossGrad)
//
// CANN expands these into an operator class with typed accessors for the graph builder; the emulation
// expands them (each after the '.' the prototype writes) into a class op::<Name> whose static Describe()
// chains the same entries through ge::OpRegDescriber, so the header compiles as CANN's does: an input's or
// output's type argument is kept as text (CANN's INPUT/OUTPUT pass `#t` to Operator::InputRegister as the
// tensor's dtype symbol, so it is never compiled), a DATATYPE's TensorType is compiled (a dtype that is not
// a ge::DataType fails), and an attribute type that does not exist or a default of the wrong kind does not
// compile. Nothing reads the description at run time.
#ifndef OPGEN_GRAPH_OPERATOR_REG_H
#define OPGEN_GRAPH_OPERATOR_REG_H

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "graph/types.h"

namespace ge {

class TensorType {
 public:
  explicit TensorType(DataType dt) : types_{dt} {}
  TensorType(const std::initializer_list<DataType> &initial_types) : types_(initial_types) {}
  const std::vector<DataType> &Types() const {
    return types_;
  }

 private:
  std::vector<DataType> types_;
};

namespace opgen_attr {
// The attribute value types REG_OP's ATTR / REQUIRED_ATTR name (Int, Float, Bool, String, ListInt, ...).
using Int = int64_t;
using Float = float;
using Bool = bool;
using String = std::string;
using ListInt = std::vector<int64_t>;
using ListFloat = std::vector<float>;
using ListBool = std::vector<bool>;
}  // namespace opgen_attr

class OpRegDescriber {
 public:
  explicit OpRegDescriber(const char *name) : name_(name) {
    (void)name_;
  }
  // An input's or output's dtype symbol: the text of the proto's type argument, as CANN stores it.
  OpRegDescriber &Input(const char *name, const char *datatypeSymbol) {
    (void)name;
    (void)datatypeSymbol;
    return *this;
  }
  OpRegDescriber &Output(const char *name, const char *datatypeSymbol) {
    return Input(name, datatypeSymbol);
  }
  // A DATATYPE name and the dtypes it ranges over (its TensorType is evaluated, as CANN's is).
  OpRegDescriber &DataType(const char *name, const TensorType &typeRange) {
    (void)name;
    (void)typeRange;
    return *this;
  }
  template <typename T>
  OpRegDescriber &Attr(const char *name, const T &defaultValue) {
    (void)name;
    (void)defaultValue;
    return *this;
  }
  OpRegDescriber &RequiredAttr(const char *name) {
    (void)name;
    return *this;
  }
  OpRegDescriber &End(const char *name) {
    (void)name;
    return *this;
  }

 private:
  const char *name_;
};

}  // namespace ge

#define REG_OP(x)                            \
  namespace op {                             \
  class x {                                  \
   public:                                   \
    static void Describe() {                 \
      ::ge::OpRegDescriber(#x)
#define INPUT(x, t) Input(#x, #t)
#define OPTIONAL_INPUT(x, t) Input(#x, #t)
#define DYNAMIC_INPUT(x, t) Input(#x, #t)
#define OUTPUT(x, t) Output(#x, #t)
#define DYNAMIC_OUTPUT(x, t) Output(#x, #t)
#define DATATYPE(x, t) DataType(#x, t)
#define ATTR(x, Type, ...) template Attr<::ge::opgen_attr::Type>(#x, ::ge::opgen_attr::Type(__VA_ARGS__))
#define REQUIRED_ATTR(x, Type) RequiredAttr(#x)
#define OP_END_FACTORY_REG(x) \
  End(#x);                    \
  }                           \
  }                           \
  ;                           \
  }

#endif  // OPGEN_GRAPH_OPERATOR_REG_H
