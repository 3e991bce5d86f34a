"""The typed, frozen model of op specs and of the product catalogue.

The YAML is parsed once (:mod:`codegen.spec.loader`) into these dataclasses; later stages never see
dicts. Collections are tuples, mappings are tuples of ``(key, value)`` pairs in file order, and every
object that came from YAML carries the :class:`~codegen.spec.errors.SourceLoc` it came from.

The model is split by topic: :mod:`~codegen.spec.model.products` (the product catalogue),
:mod:`~codegen.spec.model.params` (tensors and attrs), :mod:`~codegen.spec.model.device` (the OpDef
interface), :mod:`~codegen.spec.model.graph` (the IR registration), :mod:`~codegen.spec.model.call_rules`
(dtype combinations and constraints),
:mod:`~codegen.spec.model.example` (the worked example) and :mod:`~codegen.spec.model.op` (the op spec as a
whole). Every stage reads the model, so its public names are importable from this package.
"""

from __future__ import annotations

from codegen.spec.model.call_rules import Constraint, DtypeCombo
from codegen.spec.model.device import (
    DEVICE_ATTR_TYPES,
    DeviceAttr,
    DeviceColumn,
    DeviceInterface,
    DeviceTensor,
    fixed_input_dtype,
    fixed_inputs,
    fixed_outputs,
)
from codegen.spec.model.example import Example, ExampleTensor
from codegen.spec.model.graph import GraphAttr, GraphProto, GraphTensor
from codegen.spec.model.op import PHASE2_NAMES, FamilyCompute, OpSpec, TilingSpec, snake_case
from codegen.spec.model.params import (
    ACL_FORMATS,
    ANY_LENGTH,
    ATTR_TYPES,
    MAX_ARRAY_LENGTH,
    MAX_RANK,
    PRIVATE_ACL_FORMATS,
    SCALAR_ACL_IDS,
    SCALAR_DTYPES_DEFAULT,
    AttrSpec,
    TensorSpec,
    absent_optional_shapes,
    number_scalar_dtype,
)
from codegen.spec.model.products import VECTOR_CLASSES, Catalogue, CostModel, Figure, Product, VectorCost
from codegen.types import ACLNN_STATUS_CODES, DType

__all__ = [
    "ACLNN_STATUS_CODES",
    "ACL_FORMATS",
    "ANY_LENGTH",
    "ATTR_TYPES",
    "DEVICE_ATTR_TYPES",
    "MAX_ARRAY_LENGTH",
    "MAX_RANK",
    "PHASE2_NAMES",
    "PRIVATE_ACL_FORMATS",
    "SCALAR_ACL_IDS",
    "SCALAR_DTYPES_DEFAULT",
    "VECTOR_CLASSES",
    "AttrSpec",
    "Catalogue",
    "Constraint",
    "CostModel",
    "DType",
    "DeviceAttr",
    "DeviceColumn",
    "DeviceInterface",
    "DeviceTensor",
    "DtypeCombo",
    "Example",
    "ExampleTensor",
    "FamilyCompute",
    "Figure",
    "GraphAttr",
    "GraphProto",
    "GraphTensor",
    "OpSpec",
    "Product",
    "TensorSpec",
    "TilingSpec",
    "VectorCost",
    "absent_optional_shapes",
    "fixed_input_dtype",
    "fixed_inputs",
    "fixed_outputs",
    "number_scalar_dtype",
    "snake_case",
]
