"""The elementwise family: each output element is a formula of the inputs' elements at the same (broadcast)
index, computed in fp32 by a streaming vector kernel (a formula that only selects among inputs and literals
may also list integer dtypes, whose elements it selects as they are; see :mod:`codegen.registry` for the
package layout)."""

from codegen.registry import Family

_STARTER = """\
# {aclnn}: TODO describe the operator. Starter spec written by `opgen new`; edit every field.
op: {op}
op_type: {op_type}
category: activation                # TODO the ops-nn category folder: one of products.yaml's op_categories
family: elementwise
summary: TODO one paragraph describing {aclnn}.
products: [Ascend910, Ascend910B, Ascend910_93, Ascend950]
deterministic: true
inputs:
  - name: x
    dtypes: [FLOAT, FLOAT16, BF16]
    rank: [0, 8]
    description: TODO first input.
  - name: y
    dtypes: [FLOAT, FLOAT16, BF16]
    rank: [0, 8]
    description: TODO second input.
attrs:
  - name: threshold
    type: scalar                    # a const aclScalar * parameter (aclCreateScalar on the caller's side)
    default: 0.0
    description: TODO x above threshold keeps x * y; elsewhere the result is 0.
outputs:
  - name: out
    dtypes: [FLOAT, FLOAT16, BF16]
    rank: [0, 8]
    shape: "broadcast(x, y)"
    description: TODO the result, in the broadcast shape.
compute:
  promote: [x, y]
  scalars: {{}}
  # A comparison is a per-element condition; where(cond, a, b) selects (Compares + Select on the device).
  out: "where(x > threshold, x * y, 0)"
tiling:
  buffer_num: 2
  ub_reserved_bytes: 0
  min_bytes_per_core: 32768
notes: []
example:
  inputs:
    x: {{shape: [2, 2], dtype: FLOAT, values: [1, 2, 3, 4]}}
    y: {{shape: [2, 2], dtype: FLOAT, values: [1, 1, 2, 2]}}
  attrs: {{threshold: 0.0}}
  output: {{shape: [2, 2], dtype: FLOAT}}
"""

FAMILY = Family(
    name="elementwise",
    summary="output = formula of the inputs' elements (broadcast), streamed through UB in fp32",
    device_section=True,
    dtype_columns=True,
    starter=_STARTER,
    starter_params="x: np.ndarray, y: np.ndarray, threshold: float",
)
