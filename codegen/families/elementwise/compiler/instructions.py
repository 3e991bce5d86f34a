"""The formula language's vector instruction set: which AscendC instruction computes each operator and
function over tensor values, the comparison modes, and which functions carry a NaN operand."""

from __future__ import annotations

#: Unary functions of the formula language and the AscendC instruction that computes each.
UNARY_INSTRUCTIONS = {"exp": "Exp", "log": "Ln", "abs": "Abs", "sqrt": "Sqrt", "relu": "Relu", "rsqrt": "Rsqrt"}
#: Comparison operators and the ``CMPMODE`` of ``Compare``/``Compares``; FLIPPED is the mode with the
#: operands swapped (``s < x`` is ``x > s``).
CMP_MODES = {"<": "LT", "<=": "LE", ">": "GT", ">=": "GE", "==": "EQ", "!=": "NE"}
FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
#: Tensor-tensor binary operators and their instructions.
BINARY_INSTRUCTIONS = {"+": "Add", "-": "Sub", "*": "Mul", "/": "Div"}
#: Binary functions and their tensor-tensor / tensor-scalar instructions.
MINMAX_INSTRUCTIONS = {"min": ("Min", "Mins"), "max": ("Max", "Maxs")}
#: Tensor-tensor instructions whose two operands commute (value numbering takes them in either order).
COMMUTATIVE = frozenset({"Add", "Mul", "Max", "Min"})
#: Functions whose instruction (sequence) turns a NaN operand into a NaN result (see ``_Builder.nan_sources``);
#: ``relu``, ``min`` and ``max`` are not among them (a ``Max`` drops a NaN; their NaN keep may be dropped).
NAN_STRICT_FUNCTIONS = frozenset({"exp", "log", "abs", "sqrt", "rsqrt", "erf"})
#: Every function a formula may apply to tensor values: an instruction, a rewrite (``_rewrite_function``), or
#: an instruction sequence of the builder (``sigmoid``, ``erf``, ``where``).
COMPILED_FUNCTIONS = frozenset(
    {*UNARY_INSTRUCTIONS, *MINMAX_INSTRUCTIONS, "sigmoid", "tanh", "log1p", "sign", "clamp", "pow", "erf", "where"}
)
