"""The cases of a row-reduce op's host inputs (``device.host_inputs``: optional aclnn inputs the device op does
not take, as aclnnLayerNormBackward's ``biasOptional``): the L2 API checks them and launches nothing with them."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from codegen.check.cases import ACLNN_ERR_PARAM_INVALID, Case
from codegen.families.row_reduce.cases.status import good_call
from codegen.families.row_reduce.plan.tensors import compute_of
from codegen.runner import numpy_dtype
from codegen.spec.model import DType, OpSpec, Product

#: dtypes a host input of none of them is given to be refused (the first it does not list)
_FOREIGN = (DType.INT32, DType.INT8, DType.DOUBLE)


def host_input_cases(spec: OpSpec, product: Product, dt: DType, rng: np.random.Generator) -> Iterator[Case]:
    """On the call :func:`status.good_call` gives for the device op (first-input dtype ``dt``), each host input
    of ``spec``: given in each of its dtypes ``product`` supports (a value case: the outputs are those of the
    call without it), of another shape than the rows input's (the spec's ``shape_status``) and of a dtype it
    does not list (161002). Nothing without host inputs."""
    launched = spec.launched()
    good = good_call(launched, product, dt, rng)
    rows = compute_of(launched).row_inputs
    shape = good[rows[0]].shape if rows else good[launched.input_names[0]].shape
    for t in (t for t in spec.inputs if t.name in spec.host_input_names):
        for d in (d for d in t.dtypes if product.supports(d)):
            given = rng.standard_normal(shape).astype(numpy_dtype(d))
            yield Case(
                spec.snake, product.name, dt.name, str(list(shape)), f"{t.name} {d.name} given", {**good, t.name: given}
            )
        first = np.ones(shape, numpy_dtype(t.dtypes[0]))
        wrong = np.ones((*shape[:-1], shape[-1] // 2), first.dtype)
        code = spec.shape_status
        yield Case(
            spec.snake,
            product.name,
            dt.name,
            "error",
            f"{t.name} of shape {list(wrong.shape)} -> {code}",
            {**good, t.name: wrong},
            expect_status=code,
        )
        foreign = next(d for d in _FOREIGN if d not in t.dtypes)
        yield Case(
            spec.snake,
            product.name,
            dt.name,
            "error",
            f"{t.name} {foreign.name} -> {ACLNN_ERR_PARAM_INVALID}",
            {**good, t.name: first.astype(numpy_dtype(foreign))},
            expect_status=ACLNN_ERR_PARAM_INVALID,
        )
