"""Every mapping between the type worlds opgen writes in, in one place (in the spirit of torchgen's
``api/types``): spec dtypes and attr types, and what each is in aclnn C++, AscendC device code, tiling data,
OpDef registration, ``binary.json``, ctypes, printf and NumPy; plus the ``aclnnStatus`` codes.

This module sits at the bottom of the import graph: it imports nothing from ``codegen``. Everything else
reads these tables; no other module keeps its own dtype or attr-type table (``tests/test_types.py`` checks
both the facts and that rule).

Sources of the facts:

- ``aclDataType`` names and values: CANN ``acl/acl_base.h`` (mirrored in ``runtime/include/acl/acl_base.h``;
  reference/ascend-platform.md, "aclnn conventions").
- ``ge::DataType`` enumerators (``DT_<NAME>``): metadef ``graph/types.h``, equal in value to aclDataType.
- ``aclnnStatus`` codes: CANN ``opdev/op_errno.h`` (mirrored in ``runtime/include/opdev/op_errno.h``).
- OpDef attr setters ``Int`` / ``Bool`` / ``Float`` / ``String``: metadef ``register/op_def.h``
  (``OpAttrDef``).
"""

from __future__ import annotations

import ctypes
import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = [
    "ACLNN_STATUS_CODES",
    "ARRAY_ATTR_TYPES",
    "ATTR_TYPE_INFO",
    "DEVICE_ATTR_TYPE_INFO",
    "FLOAT_DTYPE_MAX",
    "GRAPH_ATTR_TYPES",
    "GRAPH_DATA_TYPES",
    "GRAPH_TENSOR_TYPE_CLASSES",
    "TORCH_SCHEMA_TYPES",
    "AclnnStatus",
    "AttrTypeInfo",
    "DType",
    "DTypeInfo",
    "DeviceAttrTypeInfo",
    "compute_dtypes",
]


class AclnnStatus(enum.IntEnum):
    """``aclnnStatus`` codes (``int32_t``), CANN ``opdev/op_errno.h``; members compare equal to the ints."""

    ACLNN_SUCCESS = 0
    ACLNN_ERR_PARAM_NULLPTR = 161001
    ACLNN_ERR_PARAM_INVALID = 161002
    ACLNN_ERR_RUNTIME_ERROR = 361001
    ACLNN_ERR_INNER = 561000
    ACLNN_ERR_INNER_INFERSHAPE_ERROR = 561001
    ACLNN_ERR_INNER_TILING_ERROR = 561002
    ACLNN_ERR_INNER_FIND_KERNEL_ERROR = 561003
    ACLNN_ERR_INNER_CREATE_EXECUTOR = 561101
    ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR = 561102
    ACLNN_ERR_INNER_NULLPTR = 561103


#: The error codes a spec may name (every :class:`AclnnStatus` but success), code -> name.
ACLNN_STATUS_CODES: dict[int, str] = {int(s): s.name for s in AclnnStatus if s is not AclnnStatus.ACLNN_SUCCESS}


@dataclass(frozen=True)
class DTypeInfo:
    """What one tensor dtype is in each type world.

    Attributes:
        itemsize: bytes per element.
        numpy_name: the NumPy dtype name (``bfloat16`` needs ``ml_dtypes`` registered); also the dtype name
            ops-nn's ``<kernel>_binary.json`` uses.
        kernel_type: the AscendC element type in device code (``half``, ``bfloat16_t``, ...).
        host_type: the C++ host type of one element in example programs: FLOAT16 as acl's ``aclFloat16``
            (``typedef uint16_t aclFloat16``, acl/acl_base.h), BF16 as raw ``uint16_t`` bits (acl has no
            bf16 host type).
        floating: a floating-point type.
    """

    itemsize: int
    numpy_name: str
    kernel_type: str
    host_type: str
    floating: bool


_DTYPE_INFO: dict[str, DTypeInfo] = {
    "FLOAT": DTypeInfo(4, "float32", "float", "float", True),
    "FLOAT16": DTypeInfo(2, "float16", "half", "aclFloat16", True),
    "INT8": DTypeInfo(1, "int8", "int8_t", "int8_t", False),
    "INT32": DTypeInfo(4, "int32", "int32_t", "int32_t", False),
    "UINT8": DTypeInfo(1, "uint8", "uint8_t", "uint8_t", False),
    "INT16": DTypeInfo(2, "int16", "int16_t", "int16_t", False),
    "UINT16": DTypeInfo(2, "uint16", "uint16_t", "uint16_t", False),
    "UINT32": DTypeInfo(4, "uint32", "uint32_t", "uint32_t", False),
    "INT64": DTypeInfo(8, "int64", "int64_t", "int64_t", False),
    "UINT64": DTypeInfo(8, "uint64", "uint64_t", "uint64_t", False),
    "DOUBLE": DTypeInfo(8, "float64", "double", "double", True),
    "BOOL": DTypeInfo(1, "bool", "bool", "bool", False),
    "BF16": DTypeInfo(2, "bfloat16", "bfloat16_t", "uint16_t", True),
}


#: Bytes of each scalar C type a tiling-struct field may be declared with (TILING_DATA_FIELD_DEF): the integer
#: and floating element types of :data:`_DTYPE_INFO` by their C++ name (``half``, ``bfloat16_t`` and ``bool``
#: are no tiling field types).
TILING_FIELD_BYTES: dict[str, int] = {
    info.kernel_type: info.itemsize
    for info in _DTYPE_INFO.values()
    if info.kernel_type not in ("half", "bfloat16_t", "bool")
}


#: The largest finite value of each floating tensor dtype, by spec name (FLOAT is float32's, 3.4028234663852886e38;
#: FLOAT16 65504, BF16 ``(2 - 2**-7) * 2**127``): an example value beyond it would be an infinity.
FLOAT_DTYPE_MAX = {
    "FLOAT": 3.4028234663852886e38,
    "FLOAT16": 65504.0,
    "BF16": 3.3895313892515355e38,
    "DOUBLE": 1.7976931348623157e308,
}


class DType(enum.Enum):
    """Tensor element types, named as the spec writes them; the value is the ``aclDataType`` code.

    The codes come from CANN's ``aclDataType`` (``acl/acl_base.h``). ``DType["BF16"]`` looks a member up
    by spec name, ``DType(27)`` by aclDataType code.
    """

    FLOAT = 0
    FLOAT16 = 1
    INT8 = 2
    INT32 = 3
    UINT8 = 4
    INT16 = 6
    UINT16 = 7
    UINT32 = 8
    INT64 = 9
    UINT64 = 10
    DOUBLE = 11
    BOOL = 12
    BF16 = 27

    @property
    def info(self) -> DTypeInfo:
        """This dtype's row of the type table."""
        return _DTYPE_INFO[self.name]

    @property
    def acl_id(self) -> int:
        """The ``aclDataType`` value (FLOAT 0, FLOAT16 1, ..., BF16 27)."""
        return int(self.value)

    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return self.info.itemsize

    @property
    def ge_name(self) -> str:
        """The ``ge::DataType`` / ``op::DataType`` enumerator, e.g. ``DT_FLOAT16``, ``DT_BF16``."""
        return f"DT_{self.name}"

    @property
    def acl_name(self) -> str:
        """The ``aclDataType`` enumerator, e.g. ``ACL_FLOAT``, ``ACL_BF16``."""
        return f"ACL_{self.name}"

    @property
    def numpy_name(self) -> str:
        """The NumPy dtype name (``bfloat16`` needs ``ml_dtypes`` registered)."""
        return self.info.numpy_name

    @property
    def binary_name(self) -> str:
        """The dtype name in ops-nn's ``op_host/config/<soc>/<kernel>_binary.json`` (``float32``, ``bfloat16``,
        ...; the NumPy names)."""
        return self.info.numpy_name

    @property
    def kernel_type(self) -> str:
        """The AscendC element type in device code: ``float``, ``half``, ``bfloat16_t``, ``int64_t``, ..."""
        return self.info.kernel_type

    @property
    def host_type(self) -> str:
        """The C++ host type of one element in example programs: ``aclFloat16`` for FLOAT16, raw ``uint16_t``
        bits for BF16, the C type of the others."""
        return self.info.host_type

    @property
    def printf_format(self) -> str:
        """The printf conversion example programs print one element with (``%.9g`` for floating types,
        printed as float; ``%lld`` for the others, cast to ``long long``)."""
        return "%.9g" if self.is_floating else "%lld"

    @property
    def is_floating(self) -> bool:
        """True for FLOAT, FLOAT16, BF16 and DOUBLE."""
        return self.info.floating

    @property
    def is_16bit_float(self) -> bool:
        """True for FLOAT16 and BF16 (computed in fp32 by the kernels, rounded once)."""
        return self.info.floating and self.info.itemsize == 2

    @property
    def is_integer(self) -> bool:
        """True for the signed and unsigned integer types (not BOOL)."""
        return not self.is_floating and self is not DType.BOOL


@dataclass(frozen=True)
class AttrTypeInfo:
    """What one spec attr type (``int64``, ``uint64``, ``bool``, ``double``, ``float``, ``scalar``, ``string``,
    ``int_array``, ``bool_array``) is in each type world.

    Attributes:
        c_type: the C++ parameter type in the aclnn signature, the L0 call and example programs.
        tiling_type: the type of the attr's field in the kernel's tiling data (``uint64`` values are carried
            as ``int64_t``, ``double`` as ``float``: the kernel computes in fp32).
        opdef_setter: the ``OpAttrDef`` setter of the OpDef registration (``Int``, ``Bool``, ``Float``).
        ctype: the ctypes type the runner passes the value as.
        printf_format: the printf conversion of the value in messages (``%s`` for bool, printed as
            ``true``/``false``).
        printf_cast: the C++ type the value is cast to for ``printf_format`` (None for bool).
        expr_kind: the name of the ``codegen.spec.expr.ExprType`` its values have in expressions (``INT``,
            ``BOOL``, ``FLOAT``; ``uint64`` attrs are read as int64, CANN's convention for ``paddingIdx``).
        device_type: the device (OpDef) attr value type it is registered as when the spec has no ``device``
            section (:data:`DEVICE_ATTR_TYPE_INFO`).
        int_range: for integer types (and the elements of ``int_array``) the inclusive ``(lo, hi)`` range of the
            C type, else None.
        array: for an array type, the acl object the parameter points to (``aclIntArray``, ``aclBoolArray``:
            opbase ``include/aclnn/acl_meta.h``), made with ``aclCreate<array>`` and destroyed with
            ``aclDestroy<array>``; ``""`` for a single value. An array is not a value expressions can read
            (``expr_kind`` ``""``), and the device op does not take it (``tiling_type``, ``opdef_setter``,
            ``device_type``, ``printf_format`` ``""``).
    """

    c_type: str
    tiling_type: str
    opdef_setter: str
    ctype: Any
    printf_format: str
    printf_cast: str | None
    expr_kind: str
    device_type: str
    int_range: tuple[int, int] | None
    array: str = ""


#: Attribute types a spec may declare, in the order the spec documentation lists them.
ATTR_TYPE_INFO: dict[str, AttrTypeInfo] = {
    "int64": AttrTypeInfo(
        "int64_t", "int64_t", "Int", ctypes.c_int64, "%lld", "long long", "INT", "int", (-(2**63), 2**63 - 1)
    ),
    "uint64": AttrTypeInfo(
        "uint64_t", "int64_t", "Int", ctypes.c_uint64, "%llu", "unsigned long long", "INT", "int", (0, 2**64 - 1)
    ),
    "bool": AttrTypeInfo("bool", "bool", "Bool", ctypes.c_bool, "%s", None, "BOOL", "bool", None),
    "double": AttrTypeInfo("double", "float", "Float", ctypes.c_double, "%g", "double", "FLOAT", "float", None),
    "float": AttrTypeInfo("float", "float", "Float", ctypes.c_float, "%g", "double", "FLOAT", "float", None),
    # A ``const aclScalar *`` parameter: the runner passes the aclScalar handle; phase 1 reads its value with
    # ``ToDouble()`` and the device gets it as a float attr (c_type: the L0 and kernel-side type).
    "scalar": AttrTypeInfo("float", "float", "Float", ctypes.c_void_p, "%g", "double", "FLOAT", "float", None),
    # A ``char *`` parameter with a fixed list of values: the host checks and the kernel see the index of the
    # value in the list (-1: none of them); the device gets the text as a string attr.
    "string": AttrTypeInfo("int64_t", "int64_t", "String", ctypes.c_char_p, "%lld", "long long", "INT", "string", None),
    # A ``const aclIntArray *`` / ``const aclBoolArray *`` parameter (aclnnLayerNorm's ``normalizedShape``,
    # aclnnLayerNormBackward's ``outputMask``): the L2 API checks it is not null and its length; the runner
    # passes the handle it made with aclCreateIntArray / aclCreateBoolArray.
    "int_array": AttrTypeInfo(
        "const aclIntArray *", "", "", ctypes.c_void_p, "", None, "", "", (-(2**63), 2**63 - 1), "aclIntArray"
    ),
    "bool_array": AttrTypeInfo("const aclBoolArray *", "", "", ctypes.c_void_p, "", None, "", "", None, "aclBoolArray"),
}

#: The array attr types (:attr:`AttrTypeInfo.array` set), in :data:`ATTR_TYPE_INFO` order.
ARRAY_ATTR_TYPES: tuple[str, ...] = tuple(name for name, info in ATTR_TYPE_INFO.items() if info.array)


@dataclass(frozen=True)
class DeviceAttrTypeInfo:
    """What one device (OpDef) attr value type is: its ``OpAttrDef`` setter and its ``binary.json`` dtype.

    Attributes:
        opdef_setter: ``Int``, ``Bool``, ``Float``, ``String``, ``ListInt`` or ``ListBool`` (metadef
            ``register/op_def.h``).
        binary_type: the attr ``dtype`` in ``<kernel>_binary.json`` (``int``, ``bool``, ``float``, ``string``,
            ``list_int``: ops-nn ``activation/softmax_v2/op_host/config/ascend950/softmax_v2_binary.json``;
            ``list_bool``: ``norm/layer_norm_grad_v3/op_host/config/ascend910b/layer_norm_grad_v3_binary.json``).
        l0_type: the C++ type of the attr's value in the L0 launch (``int64_t``, ``bool``, ``float``;
            ``const std::string &``; ``aclIntArray *`` for a list of int64, which the L0 API allocates with
            ``executor->AllocIntArray``, as ops-nn ``activation/log_softmax_v2/op_api/log_softmax_v2.cpp`` does).
        is_list: the value is a list (``ListInt``: ``{-1}`` in the OpDef, proto and unit tests).
    """

    opdef_setter: str
    binary_type: str
    l0_type: str
    is_list: bool = False


#: Value types of device (OpDef) attributes, as the spec's ``device.attrs`` names them.
DEVICE_ATTR_TYPE_INFO: dict[str, DeviceAttrTypeInfo] = {
    "int": DeviceAttrTypeInfo("Int", "int", "int64_t"),
    "bool": DeviceAttrTypeInfo("Bool", "bool", "bool"),
    "float": DeviceAttrTypeInfo("Float", "float", "float"),
    "string": DeviceAttrTypeInfo("String", "string", "const std::string &"),
    # a list of int64 (``ListInt``, e.g. SoftmaxV2's ``axes``): carries an integer aclnn attr as the one-element
    # list {value}
    "list_int": DeviceAttrTypeInfo("ListInt", "list_int", "aclIntArray *", is_list=True),
    # a list of bools (``ListBool``, e.g. LayerNormGradV3's ``output_mask``): carries a bool_array aclnn attr, the
    # caller's aclBoolArray passed on as it is
    "list_bool": DeviceAttrTypeInfo("ListBool", "list_bool", "const aclBoolArray *", is_list=True),
}


#: The ``ge::DataType`` enumerators a ``graph`` section's dtype lists may name, without their ``DT_`` prefix
#: (hicann/metadef ``inc/external/graph/types.h``, mirrored by ``runtime/include/graph/types.h``).
GRAPH_DATA_TYPES: tuple[str, ...] = (
    "FLOAT", "FLOAT16", "INT8", "INT32", "UINT8", "INT16", "UINT16", "UINT32", "INT64", "UINT64", "DOUBLE",
    "BOOL", "STRING", "DUAL_SUB_INT8", "DUAL_SUB_UINT8", "COMPLEX64", "COMPLEX128", "QINT8", "QINT16", "QINT32",
    "QUINT8", "QUINT16", "RESOURCE", "STRING_REF", "DUAL", "VARIANT", "BF16", "INT4", "UINT1", "INT2", "UINT2",
    "COMPLEX32", "HIFLOAT8", "FLOAT8_E5M2", "FLOAT8_E4M3FN", "FLOAT8_E8M0", "FLOAT6_E3M2", "FLOAT6_E2M3",
    "FLOAT4_E2M1", "FLOAT4_E1M2",
)  # fmt: skip

#: The names of metadef's dtype classes (the static ``TensorType`` functions of hicann/metadef
#: ``inc/external/graph/types.h``) a ``graph`` tensor may name as its symbol, as ops-nn's protos write
#: ``TensorType(UnaryDataType)``.
GRAPH_TENSOR_TYPE_CLASSES: tuple[str, ...] = (
    "ALL", "QuantifiedType", "OrdinaryType", "BasicType", "NumberType", "RealNumberType", "ComplexDataType",
    "IntegerDataType", "SignedDataType", "UnsignedDataType", "FloatingDataType", "IndexNumberType",
    "UnaryDataType", "FLOAT",
)  # fmt: skip

#: The attr value types of ``REG_OP``'s ``ATTR``/``REQUIRED_ATTR`` a ``graph`` section may name.
GRAPH_ATTR_TYPES: tuple[str, ...] = ("Int", "Float", "Bool", "String", "ListInt", "ListFloat", "ListBool")


#: The ``torch.library`` schema type of each spec attr type (``codegen.torch`` operators): PyTorch's
#: function-schema types ``int`` (64-bit; a ``uint64`` above 2^63 - 1 passes as its int64 bits, as the
#: runner takes ``paddingIdx=-1``), ``float`` (a C double), ``bool``, ``str`` and ``Scalar`` (a number of
#: any dtype, as an aclScalar), ``int[]`` and ``bool[]`` (an aclIntArray, an aclBoolArray), as
#: ``aten/src/ATen/native/native_functions.yaml`` spells them.
TORCH_SCHEMA_TYPES: dict[str, str] = {
    "int64": "int",
    "uint64": "int",
    "double": "float",
    "float": "float",
    "bool": "bool",
    "string": "str",
    "scalar": "Scalar",
    "int_array": "int[]",
    "bool_array": "bool[]",
}


class _Tensor(Protocol):
    @property
    def optional(self) -> bool: ...

    @property
    def all_dtypes(self) -> Sequence[DType]: ...

    def dtypes_for(self, product: Any) -> Sequence[DType]: ...


class _Op(Protocol):
    @property
    def inputs(self) -> Iterable[_Tensor]: ...


def compute_dtypes(spec: _Op, product: Any = None) -> list[DType]:
    """The dtypes an op computes on: the dtype list of its first required input on ``product`` (a
    :class:`~codegen.spec.model.Product`: its ``dtypes_for``), or every dtype it takes on some product when
    none is given, in spec order.

    This is the dtype a call is planned, explained and checked for when none is named (``opgen explain``,
    the check matrix's dtype loop, a family's tiling key); a family whose key follows another input puts
    that input first.

    Raises:
        ValueError: the op has no required input.
    """
    for t in spec.inputs:
        if not t.optional:
            return list(t.all_dtypes if product is None else t.dtypes_for(product))
    raise ValueError("the op has no required input, so no dtype selects its kernel")
