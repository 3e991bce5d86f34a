"""The model of a gather/scatter op's ``compute`` section (:class:`GatherScatterCompute`) and the family's
constants; :mod:`codegen.families.gather_scatter.compute` documents the section and parses it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from codegen.spec.errors import SourceLoc
from codegen.spec.model import DeviceAttr, DeviceInterface, DeviceTensor, DType

if TYPE_CHECKING:
    from codegen.spec.model import OpSpec

#: The directions the family generates.
DIRECTIONS: tuple[str, ...] = ("gather", "gather_elements", "fill", "scatter_add", "index_add")
#: The direction that gathers one source element per index element (``torch.gather``).
ELEMENTS = "gather_elements"
#: The direction that sets the slices along dim an index array names to a value (``Tensor.index_fill``).
FILL = "fill"
#: The direction that adds src's elements into the source at the index's positions (``Tensor.scatter_add``).
SCATTER_ADD = "scatter_add"
#: The row scatter-add: src's slices along dim added, times alpha, at the 1-d index's positions (``Tensor.index_add``).
INDEX_ADD = "index_add"
#: The dtype of the positions tensor the L2 API of a fill hands the device op.
FILL_INDEX_DTYPE = DType.INT64
#: Index dtypes the kernels read (the tiling key's index digit is the position).
INDEX_DTYPES: tuple[DType, ...] = (DType.INT32, DType.INT64)
#: What a negative index selects (``negative_index``): a zero row, or the row ``index + A`` (wrapped).
NEGATIVE_POLICIES: tuple[str, ...] = ("zero", "wrap")
#: The ``dim`` value that reads the source flattened (``P = Q = 1``).
FLATTEN = "flatten"


@dataclass(frozen=True)
class GatherScatterCompute:
    """What each tensor and attr of a gather/scatter op is.

    Attributes:
        direction: ``gather`` (read by index, write dense).
        source: the input the rows are read from, viewed as ``[P, A, Q]``.
        index: the index input (INT32 or INT64; 0-d or 1-d for an attr dim, any rank otherwise): ``K``
            positions along ``dim``, in order.
        dest: the output, ``[P, K, Q]`` in the source's dims, of the source's dtype.
        dim: the int64 attr naming the dim, or None when the dim is a constant or the source is flattened.
        dim_const: the constant dim (``flatten``: 0 of the flattened source), or None for an attr.
        flatten: whether the source is read flattened (``dim: flatten``).
        elements: whether one element is gathered per index element (``direction: gather_elements``; the
            index has the source's rank and the output its shape).
        negative: what a negative index selects (:data:`NEGATIVE_POLICIES`).
        loc: the ``compute`` entry.
        value: for ``direction: fill``, the scalar attr holding the fill value (``index`` then names an
            int_array attr); None otherwise.
        src: for ``direction: scatter_add`` and ``index_add``, the input whose elements are added; None otherwise.
        alpha: for ``direction: index_add``, the scalar attr src's elements are multiplied by; None otherwise.
    """

    direction: str
    source: str
    index: str
    dest: str
    dim: str | None
    dim_const: int | None
    flatten: bool
    negative: str
    loc: SourceLoc
    elements: bool = False
    value: str | None = None
    src: str | None = None
    alpha: str | None = None

    @property
    def scatter(self) -> bool:
        """Whether the op adds src's elements at the index's positions (``direction: scatter_add`` or
        ``index_add``)."""
        return self.src is not None

    @property
    def rows(self) -> bool:
        """Whether the op is a row scatter (``direction: index_add``: a 1-d index, src's slices along dim
        added times ``alpha``)."""
        return self.direction == INDEX_ADD

    @property
    def fill(self) -> bool:
        """Whether the op fills slices (``direction: fill``) instead of gathering."""
        return self.value is not None

    @property
    def implies_device(self) -> bool:
        """Whether :meth:`device_interface` gives the device op (a fill), so that the spec needs no ``device``
        section for its array or scalar attr (the loader reads this)."""
        return self.fill or self.alpha is not None

    def device_interface(self, spec: OpSpec) -> DeviceInterface | None:
        """The device op a fill or an index_add implies (None for the other directions, which take the aclnn
        interface). A fill: inputs ``source``, ``index`` (the positions as a 1-d :data:`FILL_INDEX_DTYPE` tensor
        made of the int_array) and ``value`` (one element of the source's dtype made of the aclScalar), the
        output ``dest``, the int attr ``dim`` (REQUIRED). An index_add: inputs ``source``, ``index``, ``src`` and
        ``alpha`` (one element of the source's dtype made of the aclScalar), the output ``dest``, the int attr
        ``dim``."""
        loc = self.loc
        if self.alpha is not None and self.src is not None and self.dim is not None:
            return DeviceInterface(
                inputs=(
                    DeviceTensor(self.source, self.source, loc),
                    DeviceTensor(self.index, self.index, loc),
                    DeviceTensor(self.src, self.src, loc),
                    DeviceTensor(self.alpha, self.alpha, loc, like=self.source),
                ),
                outputs=(DeviceTensor(self.dest, self.dest, loc),),
                attrs=(DeviceAttr(self.dim, self.dim, "int", None, loc),),
                dtypes=None,
                loc=loc,
            )
        if self.value is None or self.dim is None:
            return None
        return DeviceInterface(
            inputs=(
                DeviceTensor(self.source, self.source, loc),
                DeviceTensor(self.index, self.index, loc, dtype=FILL_INDEX_DTYPE),
                DeviceTensor(self.value, self.value, loc, like=self.source),
            ),
            outputs=(DeviceTensor(self.dest, self.dest, loc),),
            attrs=(DeviceAttr(self.dim, self.dim, "int", None, loc),),
            dtypes=None,
            loc=loc,
        )

    def shape_rule(self) -> str:
        """The output shape rule ``dim``'s kind asks for (the spec's output ``shape`` must be this text)."""
        if self.fill or self.scatter:
            return self.source
        if self.elements:
            return self.index
        if self.flatten:
            return f"inserted(shape(numel({self.source})), 0, {self.index})"
        if self.dim is None:
            return f"inserted({self.source}, {self.dim_const}, {self.index})"
        return f"replaced({self.source}, {self.dim}, numel({self.index}))"

    def view(self, source: tuple[int, ...], dim_value: int | None = None) -> tuple[tuple[int, ...], int]:
        """``(shape, dim)`` the tiling views ``source`` with (:func:`~.plan.tiling.pqa` takes them): the
        source's shape and ``dim_value`` (the attr's value) for an attr dim, the shape and the constant for a
        constant dim, ``(numel,)`` and 0 for a flattened source."""
        if self.flatten:
            n = 1
            for d in source:
                n *= d
            return (n,), 0
        if self.dim is None:
            assert self.dim_const is not None
            return source, self.dim_const
        if dim_value is None:
            raise ValueError(f"the attr {self.dim} needs a value")
        return source, dim_value

    def out_shape(
        self, source: tuple[int, ...], index: tuple[int, ...], dim_value: int | None = None
    ) -> tuple[int, ...]:
        """The output's shape for a source and an index of these shapes (:meth:`shape_rule`; ``dim_value``: the
        attr's value, for an attr dim only).

        Raises:
            ValueError: the dim is out of range for ``source``.
        """
        if self.fill or self.scatter:
            if dim_value is None:
                raise ValueError(f"the attr {self.dim} needs a value")
            rank = max(len(source), 1)
            if not -rank <= dim_value < rank:
                raise ValueError(f"dim {dim_value} is out of range for rank {len(source)}")
            return source
        if self.elements:
            if dim_value is None:
                raise ValueError(f"the attr {self.dim} needs a value")
            rank = max(len(source), 1)
            if not -rank <= dim_value < rank:
                raise ValueError(f"dim {dim_value} is out of range for rank {len(source)}")
            return index
        if self.flatten:
            return index
        if self.dim is None:
            d = self.dim_const
            assert d is not None
            if d >= len(source):
                raise ValueError(f"dim {d} is out of range for rank {len(source)}")
            return (*source[:d], *index, *source[d + 1 :])
        if dim_value is None:
            raise ValueError(f"the attr {self.dim} needs a value")
        rank = max(len(source), 1)
        if not -rank <= dim_value < rank:
            raise ValueError(f"dim {dim_value} is out of range for rank {len(source)}")
        if not source:
            return ()
        k = 1
        for d in index:
            k *= d
        axis = dim_value % rank
        return (*source[:axis], k, *source[axis + 1 :])

    def first_output_shape(self, shape: tuple[int, ...], attrs: Mapping[str, object]) -> tuple[int, ...]:
        """``shape``: the output shape rule alone gives the output's shape (``attrs`` unused)."""
        return shape
