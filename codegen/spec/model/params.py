"""The aclnn parameters of an op: its tensors (:class:`TensorSpec`) and host attributes (:class:`AttrSpec`),
with the value sets they are checked against (ranks, attr types, aclScalar dtypes, storage formats)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from codegen.spec.errors import SourceLoc
from codegen.spec.expr import Expr, ExprType
from codegen.spec.model.products import Product
from codegen.types import ARRAY_ATTR_TYPES, ATTR_TYPE_INFO, DType

#: Highest tensor rank aclnn APIs accept (CANN checks ``GetDimNum() <= 8``; error 161002 above it).
MAX_RANK = 8

#: Attribute types whose values expressions read, with the type the values have there (the array types of
#: :data:`ARRAY_ATTR_TYPES` are not among them).
ATTR_TYPES: dict[str, ExprType] = {
    name: ExprType[info.expr_kind] for name, info in ATTR_TYPE_INFO.items() if info.expr_kind
}
#: Highest length a spec may give an array attr: CANN's aclnn APIs take at most 8 dims
#: (:data:`MAX_RANK`), and no array parameter of ops-nn's norm APIs is longer.
MAX_ARRAY_LENGTH = MAX_RANK
#: An array attr's ``length: any``: any length, 0 included (the model's ``length`` is then None).
ANY_LENGTH = "any"

#: aclScalar dtypes a ``scalar`` attr accepts by default: every real and bool dtype CANN casts to a floating
#: tensor dtype (op::CanCast); the unsigned 16/32/64-bit types are not among the types CANN's activation
#: APIs list.
SCALAR_DTYPES_DEFAULT: tuple[str, ...] = (
    "FLOAT",
    "FLOAT16",
    "BF16",
    "DOUBLE",
    "INT8",
    "INT16",
    "INT32",
    "INT64",
    "UINT8",
    "BOOL",
)
#: aclDataType values of the dtypes an aclScalar may have (acl/acl_base.h, through the type table).
SCALAR_ACL_IDS: dict[str, int] = {d.name: d.acl_id for d in DType}

#: The aclScalar dtypes holding a real number, widest first.
FLOATING_SCALARS = ("DOUBLE", "FLOAT", "FLOAT16", "BF16")


def number_scalar_dtype(scalar_dtypes: Sequence[str]) -> str:
    """The aclScalar dtype a real number for a ``scalar`` attr accepting ``scalar_dtypes`` (names of
    :data:`SCALAR_ACL_IDS`, non-empty) is passed as, by the Python API and so for the attr's ``default``: a
    number is a C double, so ``DOUBLE`` when listed (an API may take a DOUBLE scalar beside every tensor dtype,
    where FLOAT suits FLOAT and BF16 tensors only), else the first floating dtype listed (``FLOAT``), else the
    first dtype."""
    if "DOUBLE" in scalar_dtypes:
        return "DOUBLE"
    return next((d for d in scalar_dtypes if d in FLOATING_SCALARS), scalar_dtypes[0])


@dataclass(frozen=True)
class TensorSpec:
    """An input or output tensor of an op.

    Attributes:
        name: aclnn parameter name (a C identifier).
        dtypes: the spec's ``dtypes``: the dtypes the op accepts on a product :attr:`product_dtypes` does not
            name, without those the product lacks (BF16) (spec order).
        rank: inclusive ``(lo, hi)`` with ``0 <= lo <= hi <= 8``.
        description: one-sentence documentation.
        optional: the tensor may be a null pointer (inputs only).
        shape: outputs: the shape expression (a tensor name, ``broadcast(...)`` or ``shape(...)``); inputs: None.
        loc: the tensor's entry.
        const: outputs only: the aclnn signature declares it ``const aclTensor *`` (as CANN does for some
            APIs, e.g. aclnnEmbeddingDenseBackward's ``out``).
        default: optional inputs only: the value every element takes when the tensor is null (e.g. 1.0 for a
            weight), or None; a family may require one on every optional input.
        header_name: the parameter's name in CANN's aclnn header where ``name`` cannot be it (a Python
            keyword, or a name the generated op API declares itself), else ``""``: the generated header and
            document use it (:attr:`c_name`); the definition, expressions and the Python API use ``name``.
        nullable: outputs only: the caller may pass a null pointer (the output is then not produced; the
            device op still has it, zero-sized, and its kernel writes none of it), as aclnnAddRmsNorm's
            ``rstdOut`` and ``xOut``; ``present(name)`` in a constraint tells whether it was given.
        is_list: the spec's ``list: true``: the parameter is a tensor list (``const aclTensorList *``; an output
            ``aclTensorList *``), any number of tensors of this entry's dtypes and ranks, each of its own shape
            (opbase ``include/aclnn/acl_meta.h`` ``aclCreateTensorList``); only a family that declares
            ``tensor_lists`` takes one.
        product_dtypes: the spec's ``product_dtypes``: ``(product name, dtypes)`` pairs, each the whole dtype
            list of the tensor on that product in place of :attr:`dtypes` (CANN's docs and L2 code list more
            dtypes on some products, e.g. aclnnIndexFillTensor's INT8, UINT8, INT16 and DOUBLE on Ascend950
            only); empty when every product takes :attr:`dtypes`. Only a family that declares
            ``product_dtypes`` takes it.
    """

    name: str
    dtypes: tuple[DType, ...]
    rank: tuple[int, int]
    description: str
    optional: bool
    shape: Expr | None
    loc: SourceLoc
    const: bool = False
    default: float | None = None
    formats: tuple[str, ...] = ("ND",)
    header_name: str = ""
    nullable: bool = False
    is_list: bool = False
    product_dtypes: tuple[tuple[str, tuple[DType, ...]], ...] = ()

    @property
    def c_name(self) -> str:
        """The parameter's name in the aclnn header: :attr:`header_name`, else :attr:`name`."""
        return self.header_name or self.name

    @property
    def all_dtypes(self) -> tuple[DType, ...]:
        """Every dtype the tensor takes on some product: :attr:`dtypes`, then the dtypes only the lists of
        :attr:`product_dtypes` hold, in their order (what a kernel, a device op's default dtype list or a family's
        dtype rules must cover)."""
        out = list(self.dtypes)
        for _, dts in self.product_dtypes:
            out.extend(d for d in dts if d not in out)
        return tuple(out)

    def dtypes_for(self, product: Product) -> tuple[DType, ...]:
        """The dtypes of this tensor on ``product``: its :attr:`product_dtypes` list when the spec names the
        product there, else :attr:`dtypes`; in either case without those the product lacks (BF16)."""
        listed = dict(self.product_dtypes).get(product.name, self.dtypes)
        return tuple(d for d in listed if product.supports(d))


@dataclass(frozen=True)
class AttrSpec:
    """A host attribute (scalar parameter) of an op.

    Attributes:
        name: aclnn parameter name (a C identifier).
        type: one of ``int64``, ``uint64``, ``bool``, ``double``, ``float`` (:data:`ATTR_TYPES`),
            ``scalar``: a ``const aclScalar *`` parameter whose value (converted to double) the op uses as a
            float, or an array (:data:`ARRAY_ATTR_TYPES`): ``int_array`` (``const aclIntArray *``) or
            ``bool_array`` (``const aclBoolArray *``), checked by the L2 API (not null, its length in
            :attr:`length`) and not read by expressions.
        values: for integer attrs, the allowed values with their names in spec order, e.g.
            ``((0, "none"), (1, "mean"), (2, "sum"))``; None when any value of the type is allowed.
        default: the default value (of the attr's type; a tuple of ints or bools for an array) or None when
            the attr is required.
        description: one-sentence documentation.
        loc: the attr's entry.

    In expressions, ``uint64`` attrs are read as ``int64`` (CANN's convention for e.g. ``paddingIdx``).
    ``header_name``: as :attr:`TensorSpec.header_name` (e.g. ``lambda``, a Python keyword, for ``lambd``).
    ``const``: a by-value attr (``int64``, ``uint64``, ``bool``, ``double``, ``float``) that CANN's header declares
    ``const`` (aclnnGather's ``const int64_t dim``); the declaration then says so. The calling convention is the
    same either way; the header reads as CANN's.
    """

    name: str
    type: str
    values: tuple[tuple[int, str], ...] | None
    default: int | float | bool | str | tuple[int, ...] | tuple[bool, ...] | None
    description: str
    loc: SourceLoc
    #: ``string`` attrs (a ``char *`` parameter) keep their allowed strings in ``values`` as
    #: ``((0, "none"), (1, "tanh"))``: expressions see the index, ``default`` is the string.
    #: ``scalar`` attrs: the aclScalar dtypes accepted (names of :data:`SCALAR_ACL_IDS`; a Python number and the
    #: default are passed as :attr:`number_dtype`); empty for other types.
    scalar_dtypes: tuple[str, ...] = ()
    header_name: str = ""
    #: array attrs: the inclusive ``(lo, hi)`` range of lengths the L2 API accepts (a fixed length ``n`` is
    #: ``(n, n)``; ``1 <= lo <= hi <=`` :data:`MAX_ARRAY_LENGTH`); None for other types and for an array of
    #: any length (``length: any``, :data:`ANY_LENGTH`).
    length: tuple[int, int] | None = None
    const: bool = False

    @property
    def c_name(self) -> str:
        """The parameter's name in the aclnn header: :attr:`header_name`, else :attr:`name`."""
        return self.header_name or self.name

    @property
    def number_dtype(self) -> str:
        """A ``scalar`` attr's aclScalar dtype for a real number (:func:`number_scalar_dtype`: ``DOUBLE`` where
        it takes one); "" for other types."""
        return number_scalar_dtype(self.scalar_dtypes) if self.scalar_dtypes else ""

    @property
    def is_array(self) -> bool:
        """True for an ``int_array`` or ``bool_array`` attr (a pointer to an acl array object)."""
        return self.type in ARRAY_ATTR_TYPES

    @property
    def cpp_type(self) -> str:
        """The C++ parameter type: ``int64_t``, ``uint64_t``, ``bool``, ``double``, ``float``, or
        ``const aclIntArray *`` / ``const aclBoolArray *`` for an array."""
        return ATTR_TYPE_INFO[self.type].c_type

    @property
    def expr_type(self) -> ExprType:
        """The type of the attr's value in expressions (INT, BOOL or FLOAT)."""
        return ATTR_TYPES[self.type]

    def expr_value(self, value: object) -> object:
        """``value`` as expressions see it: a ``string`` attr's text becomes the index of that value (-1 for a
        string outside ``values``); other values are returned unchanged."""
        if self.type == "string" and isinstance(value, str):
            return next((k for k, n in self.values or () if n == value), -1)
        return value


#: Storage formats a spec may list for a tensor, with their ``aclFormat`` values (acl/acl_base.h). ND-layout
#: formats only: a private format (FRACTAL_NZ, NC1HWC0, ...) stores the data in another layout, which the
#: generated kernels do not read.
ACL_FORMATS: dict[str, int] = {"ND": 2, "NCHW": 0, "NHWC": 1, "HWCN": 16, "NDHWC": 27, "NCDHW": 30}
#: Private formats (``aclFormat`` values) a check case may use as a format the op rejects.
PRIVATE_ACL_FORMATS: dict[str, int] = {"FRACTAL_NZ": 29, "NC1HWC0": 3, "FRACTAL_Z": 4, "NDC1HWC0": 32}


def absent_optional_shapes(inputs: Sequence[TensorSpec], present: Collection[str]) -> dict[str, tuple[int, ...]]:
    """The optional ``inputs`` not in ``present`` (null in a call), each bound to the 0-d shape ``()``, for
    evaluating a shape rule: a null optional input takes no part in ``broadcast(...)``, and a 0-d shape
    broadcasts with any shape to that shape (NumPy rules), so the rule's value is the one without it."""
    return {t.name: () for t in inputs if t.optional and t.name not in present}
