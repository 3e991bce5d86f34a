"""The shared view of each generated file kind (the template every family uses unless it has its own), and the
assembly of an op's views from them and a family's own."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

from codegen.plan.common_view import common_view
from codegen.plan.example import ExampleData
from codegen.plan.opdef import OpDefRegistration
from codegen.plan.ops_nn import Proto, ops_nn_view
from codegen.plan.products import spec_products
from codegen.plan.signature import SignatureParam
from codegen.plan.tiling_fields import TilingFieldRow
from codegen.plan.unit_tests import (
    UtFieldSlot,
    UtInferCase,
    UtInferSuite,
    UtTilingCase,
    UtTilingSuite,
    tiling_field_slots,
    ut_attr,
    ut_datatype_cases,
    ut_tiling_view,
)
from codegen.plan.views import BinaryJsonView, KindView, OpViews, freeze, view_from
from codegen.spec.generated_names import op_files
from codegen.spec.model import Catalogue, OpSpec, Product


@dataclass(frozen=True)
class AclnnHeaderView(KindView):
    """``op_api/aclnn_<op>.h``: include guard, parameter docs lines, the phase-1 signature."""

    KIND: ClassVar[str] = "op_api_h"
    guard: str
    header_doc: tuple[str, ...]
    signature: tuple[SignatureParam, ...]


@dataclass(frozen=True)
class CMakeView(KindView):
    """``CMakeLists.txt``: the SoC config names the OpDef registers."""

    KIND: ClassVar[str] = "cmake"
    compute_units: tuple[str, ...]


@dataclass(frozen=True)
class TestsCMakeView(KindView):
    """``tests/CMakeLists.txt``: ops-nn's entry into the op's tests, which enters ``ut/`` (no field beyond
    ``op``)."""

    KIND: ClassVar[str] = "tests_cmake"


@dataclass(frozen=True)
class TestsUtCMakeView(KindView):
    """``tests/ut/CMakeLists.txt``: the entry into the op_host unit tests, which enters ``op_host/`` (no field
    beyond ``op``)."""

    KIND: ClassVar[str] = "tests_ut_cmake"


@dataclass(frozen=True)
class UtCMakeView(KindView):
    """``tests/ut/op_host/CMakeLists.txt``: ops-nn's collection of the op_host unit tests (no field beyond
    ``op``)."""

    KIND: ClassVar[str] = "ut_cmake"


@dataclass(frozen=True)
class ProtoView(KindView):
    """``op_graph/<kernel>_proto.h``: the IR registration (``proto``: inputs, outputs, attrs)."""

    KIND: ClassVar[str] = "proto_h"
    proto: Proto


@dataclass(frozen=True)
class L0HeaderView(KindView):
    """``op_api/<kernel>.h``: the L0 function's parameters (C declarations, aclnn order) and its return type
    (``l0_return``: one ``const aclTensor *``, or a ``std::tuple`` of them for an op with several outputs)."""

    KIND: ClassVar[str] = "l0_h"
    l0_params: tuple[str, ...]
    l0_return: str = "const aclTensor *"


@dataclass(frozen=True)
class TilingHeaderView(KindView):
    """``op_host/<kernel>_tiling.h``: the tiling struct (``tiling_fields``: name, c_type, comment, value,
    set_comment)."""

    KIND: ClassVar[str] = "tiling_h"
    guard: str
    tiling_fields: tuple[TilingFieldRow, ...]
    tiling_type: str


@dataclass(frozen=True)
class UtTilingDefView(KindView):
    """``tests/ut/op_kernel/<kernel>_tiling_def.h``: the tiling struct of ``op_host/<kernel>_tiling.h`` as a
    plain struct with ``GET_TILING_DATA``, which ops-nn's kernel unit tests force-include when they compile the
    kernel on the CPU (hicann/ops-nn cmake/ut.cmake, AddOpTestCase); the same fields as :class:`TilingHeaderView`."""

    KIND: ClassVar[str] = "ut_tiling_def_h"
    guard: str
    tiling_fields: tuple[TilingFieldRow, ...]
    tiling_type: str


@dataclass(frozen=True)
class OpDefView(KindView):
    """``op_host/<kernel>_def.cpp``: the OpDef registration (:func:`opdef_view` or the family's)."""

    KIND: ClassVar[str] = "def_cpp"
    opdef: OpDefRegistration


@dataclass(frozen=True)
class ExampleView(KindView):
    """``examples/test_aclnn_<op>.cpp``: the example data (:func:`example_view`, None without an example)."""

    KIND: ClassVar[str] = "example_cpp"
    example: ExampleData | None
    files: Mapping[str, str]
    signature: tuple[SignatureParam, ...]


@dataclass(frozen=True)
class UtTilingView(KindView):
    """``tests/ut/op_host/test_<kernel>_tiling.cpp``: the unit-test cases (:func:`ut_tiling_view`) and where
    each tiling field lies in the tiling data (``field_slots``, :func:`ut_context_view`)."""

    KIND: ClassVar[str] = "ut_tiling_cpp"
    ut_tiling: UtTilingSuite
    field_slots: Mapping[str, UtFieldSlot]


@dataclass(frozen=True)
class UtInferShapeView(KindView):
    """``tests/ut/op_host/test_<kernel>_infershape.cpp``: the InferShape unit-test cases and the context's
    outputs (``num_outputs``, ``output_instances``: :func:`ut_context_view`)."""

    KIND: ClassVar[str] = "ut_infershape_cpp"
    ut_infer: UtInferSuite
    num_outputs: int
    output_instances: str


#: The shared view class of each kind (the template every family uses unless it has its own); a family's own
#: template of a kind reads a subclass of it, or, for a kind without a shared template, its own :class:`KindView`.
SHARED_VIEWS: dict[str, type[KindView] | type[BinaryJsonView]] = {
    c.KIND: c
    for c in (
        AclnnHeaderView,
        CMakeView,
        TestsCMakeView,
        TestsUtCMakeView,
        UtCMakeView,
        ProtoView,
        BinaryJsonView,
        L0HeaderView,
        TilingHeaderView,
        UtTilingDefView,
        OpDefView,
        ExampleView,
        UtTilingView,
        UtInferShapeView,
    )
}


def op_views(
    spec: OpSpec,
    catalogue: Catalogue,
    parts: Mapping[str, Any],
    own: Mapping[str, type[KindView]],
) -> OpViews:
    """The views of ``spec``: for each kind in ``own`` the family's view class, for every other kind the shared
    view of :data:`SHARED_VIEWS`, each filled from ``parts`` (:func:`common_view` entries, updated with
    :func:`ops_nn_view`, :func:`ut_tiling_view` and the family's own entries) with :func:`view_from`.

    Raises:
        KeyError: a kind of :func:`op_files` has no view class, or ``parts`` lacks a field a view declares.
    """
    files = op_files(spec, spec_products(spec, catalogue))
    views: dict[str, KindView | BinaryJsonView] = {}
    for kind in dict.fromkeys(k.split(":")[0] for k in files):
        cls = own.get(kind) or SHARED_VIEWS.get(kind)
        if cls is None:
            raise KeyError(f"file kind '{kind}' has no shared view: the family must give its own view class")
        if cls is BinaryJsonView:
            views[kind] = BinaryJsonView(freeze(parts["binary_configs"]))
        else:
            views[kind] = view_from(cls, parts)  # type: ignore[type-var]
    return OpViews(MappingProxyType(dict(files)), MappingProxyType(views))


#: A family's own view entries of an op, by name: called with the spec, the catalogue and the entries every
#: family shares (:func:`common_view`, ``products`` among them), it returns what its templates read besides
#: (an entry of the same name replaces the shared one, as the family's ``opdef`` does).
FamilyParts = Callable[[OpSpec, Catalogue, Mapping[str, Any]], Mapping[str, Any]]


def family_views(
    spec: OpSpec,
    catalogue: Catalogue,
    own: Mapping[str, type[KindView]],
    family_parts: FamilyParts,
    ut_tiling_cases: Callable[[OpSpec, list[Product]], Sequence[UtTilingCase]],
    ut_infer_cases: Callable[[OpSpec], Sequence[UtInferCase]],
) -> OpViews:
    """Every view of ``spec`` (a family's ``build_views``): the :func:`common_view` entries, updated with the
    family's (``family_parts``), then the ops-nn build files' (:func:`ops_nn_view`, with the OpDef the entries
    hold then) and the op_host unit tests' (:func:`ut_tiling_view` of the family's cases on the spec's
    products), rendered into the family's view classes ``own`` and the shared ones by :func:`op_views`.

    Raises:
        KeyError: as :func:`op_views`; whatever ``family_parts`` and the case functions raise.
    """
    parts = common_view(spec, catalogue)
    products: list[Product] = parts["products"]
    parts.update(family_parts(spec, catalogue, parts))
    parts.update(ops_nn_view(spec, products, parts["opdef"]))
    parts.update(ut_tiling_view(spec, ut_tiling_cases(spec, products), ut_infer_cases(spec)))
    parts.update(ut_context_view(parts["tiling_fields"], parts["opdef"]))
    opdef: OpDefRegistration = parts["opdef"]
    suite: UtInferSuite = parts["ut_infer"]
    parts["ut_infer"] = dataclasses.replace(
        suite,
        dtype_cases=ut_datatype_cases(
            [p.dtypes for p in opdef.default.inputs],
            [p.dtypes for p in opdef.default.outputs],
            suite.cases[0].attrs if suite.cases else (),
            _column_attrs(spec, products),
        ),
    )
    return op_views(spec, catalogue, parts, own)


def _column_attrs(spec: OpSpec, products: list[Product]) -> list[dict[str, str]]:
    """Per dtype column of the OpDef's default lists (the ``device.dtype_columns`` some product registers), the
    :func:`ut_attr` elements of the constant device attrs it sets, by name (empty without columns)."""
    dev = spec.device_interface
    types = {a.name: a.type for a in dev.attrs}
    return [
        {n: ut_attr(n, types[n], v) for n, v in c.attrs}
        for c in dev.columns
        if any(c.combo.allowed_on(p) for p in products)
    ]


def ut_context_view(tiling_fields: Sequence[TilingFieldRow], opdef: OpDefRegistration) -> dict[str, Any]:
    """View entries the unit tests' context fakers need beyond the cases: ``field_slots`` (where each tiling
    field lies in the tiling data, :func:`tiling_field_slots`), ``num_outputs`` (the OpDef's outputs) and
    ``output_instances`` (``IrInstanceNum``'s output list: 1 per output)."""
    n = len(opdef.default.outputs)
    return {
        "field_slots": tiling_field_slots(tiling_fields),
        "num_outputs": n,
        "output_instances": "{" + ", ".join(["1"] * n) + "}",
    }
