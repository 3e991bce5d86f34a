"""Lowering an fp32 row-reduce formula to AscendC count-form vector calls on line buffers (one
:class:`LoweredFunction` per formula)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from codegen.families.row_reduce.plan.formulas import ROW_PREFIX
from codegen.spec.expr import Binary, Call, Expr, Name, Num, Unary
from codegen.spec.model import OpSpec


@dataclass(frozen=True)
class LoweredFunction:
    """A formula lowered to AscendC count-form calls: the C++ function ``name``, its body ``lines`` (one
    call each, on fp32 lines of ``n`` elements), the formula's ``source`` text and ``kept``: the indices of
    the kept subformulas (``saves``) it reaches, written or read."""

    name: str
    lines: tuple[str, ...]
    source: str
    kept: frozenset[int] = frozenset()


_BINARY_CALLS = {"+": "Add", "-": "Sub", "*": "Mul", "/": "Div"}
_UNARY_CALLS = {"exp": "Exp", "log": "Ln", "sqrt": "Sqrt"}


class Lowering:
    """Lowers an fp32 formula to AscendC count-form vector calls on line buffers.

    Operands: inputs ``ins[i]`` (fp32 lines); reductions and per-row values (``__row<j>``) either as scalars
    ``sc[k]`` / ``sc[NUM_RED + j]`` (``scalar=True``) or as lines ``reds[k]`` / ``rows[j]``; float attrs
    ``attrs[j]`` and literals as scalars. An operation of a line and a scalar is one ``Adds``/``Muls`` (a
    difference ``s - a`` two: ``Muls`` by -1 and ``Adds``); ``a + s * y`` (``s * y + a``, ``a - s * y``) with
    ``a`` computed is ``a`` into the destination and one ``Axpy`` of ``y`` by ``s`` into it; a scalar alone is
    ``Duplicate``d only where a line must hold it (``s / a``, a formula that is one scalar). Every inner node gets
    a temporary ``tmp[slot]`` (freed when its parent is computed); the root writes ``dst``.
    """

    def __init__(self, spec: OpSpec, reds: dict[str, int], row_values: int) -> None:
        # a per-row input (compute.per_row) is among ``reds``: a row scalar, not a line
        self.inputs = {n: i for i, n in enumerate(spec.input_names) if n not in reds}
        self.attrs = {a.name: i for i, a in enumerate(a for a in spec.attrs if a.type in ("float", "double"))}
        self.reds = reds
        self.row_values = row_values
        self.max_slots = 0

    def scalar(self, e: Expr, as_scalar: bool = True) -> str:
        """The C++ float of a scalar operand ``e`` (a reduction, a per-row value, a float attr, a literal), or
        "" when ``e`` is a line in this lowering."""
        if isinstance(e, Num):
            return f"static_cast<float>({float(e.value)!r})"
        if isinstance(e, Name):
            if e.id in self.attrs:
                return f"attrs[{self.attrs[e.id]}]"
            if as_scalar and e.id in self.reds:
                return f"sc[{self.reds[e.id]}]"
            if as_scalar and e.id.startswith(ROW_PREFIX):
                return f"sc[NUM_RED + {e.id[len(ROW_PREFIX) :]}]"
        return ""

    def function(
        self,
        name: str,
        expr: Expr,
        scalar: bool,
        saves: Mapping[str, int] | None = None,
        out: bool = False,
        returns: bool = False,
        ready: frozenset[int] = frozenset(),
    ) -> LoweredFunction:
        """``expr`` lowered into ``dst``. With ``saves`` (subformula text -> index ``j``; scalar lowering of a
        tile of whole rows): a reduction argument (``out`` False) writes subformula ``j`` into ``save[j]`` when
        ``keep``, and returns the line holding its value; an output reads ``save[j]`` when ``keep`` instead of
        computing it, and so does an argument for ``j`` in ``ready`` (an argument evaluated before it on the
        same row wrote it: the subformula is computed once per element). ``returns``: the function ends
        returning the line that holds the value."""
        lines: list[str] = []
        used: list[int] = []
        saves = saves or {}
        declared: dict[int, str] = {}  # kept subformulas already lowered: the line holding each
        busy: set[int] = set()  # kept subformulas being lowered

        def alloc() -> int:
            s = next(i for i in range(len(used) + 1) if i not in used)
            used.append(s)
            self.max_slots = max(self.max_slots, len(used))
            return s

        def free(s: int | None) -> None:
            if s is not None:
                used.remove(s)

        def line(e: Expr) -> str:
            """The line an operand name is, or ""."""
            if isinstance(e, Name):
                if e.id in self.inputs:
                    return f"ins[{self.inputs[e.id]}]"
                if not scalar and e.id in self.reds:
                    return f"reds[{self.reds[e.id]}]"
                if not scalar and e.id.startswith(ROW_PREFIX):
                    return f"rows[{e.id[len(ROW_PREFIX) :]}]"
            return ""

        def go(e: Expr, dst: str | None) -> tuple[str, int | None]:
            """Lowers a line-valued ``e`` (into ``dst``, else a temporary unless ``e`` is a line already)."""
            if dst is None and line(e):
                return line(e), None
            j = saves.get(str(e), -1)
            if j >= 0 and j in declared and dst is None:
                return declared[j], None
            if j >= 0 and j not in declared and j not in busy:
                return kept(e, j, dst)
            slot = None
            if dst is None:
                slot = alloc()
                dst = f"tmp[{slot}]"
            if line(e):  # a formula that is one line (an output equal to an input): a copy
                lines.append(f"Adds({dst}, {line(e)}, 0.0f, n);")
            elif self.scalar(e, scalar):
                lines.append(f"Duplicate({dst}, {self.scalar(e, scalar)}, n);")
            elif isinstance(e, Unary):
                a, sa = go(e.operand, None)
                lines.append(f"Muls({dst}, {a}, -1.0f, n);")
                free(sa)
            elif isinstance(e, Binary) and (fused := axpy(e)) is not None:
                # a + s * y, s * y + a, a - s * y (a computed, s a scalar): y into a temporary, a into dst, then
                # one Axpy(dst, y, +-s) (dst[i] = y[i] * s + dst[i]) instead of Muls and Add / Sub
                a_expr, y_expr, s = fused
                y, sy = go(y_expr, None)
                go(a_expr, dst)
                lines.append(f"Axpy({dst}, {y}, {s}, n);")
                free(sy)
            elif isinstance(e, Binary):
                ls, rs = self.scalar(e.left, scalar), self.scalar(e.right, scalar)
                if rs and e.op in "+-*/":
                    a, sa = go(e.left, None)
                    if e.op == "+":
                        lines.append(f"Adds({dst}, {a}, {rs}, n);")
                    elif e.op == "-":
                        lines.append(f"Adds({dst}, {a}, -({rs}), n);")
                    elif e.op == "*":
                        lines.append(f"Muls({dst}, {a}, {rs}, n);")
                    else:
                        lines.append(f"Muls({dst}, {a}, 1.0f / ({rs}), n);")
                    free(sa)
                elif ls and e.op in "+*":
                    b, sb = go(e.right, None)
                    lines.append(f"{'Adds' if e.op == '+' else 'Muls'}({dst}, {b}, {ls}, n);")
                    free(sb)
                elif ls and e.op == "-":
                    b, sb = go(e.right, None)
                    lines.append(f"Muls({dst}, {b}, -1.0f, n);")
                    lines.append(f"Adds({dst}, {dst}, {ls}, n);")
                    free(sb)
                else:
                    a, sa = go(e.left, None)
                    b, sb = go(e.right, None)
                    lines.append(f"{_BINARY_CALLS[e.op]}({dst}, {a}, {b}, n);")
                    free(sa)
                    free(sb)
            elif isinstance(e, Call):
                a, sa = go(e.args[0], None)
                lines.append(f"{_UNARY_CALLS[e.func]}({dst}, {a}, n);")
                free(sa)
            return dst, slot

        def axpy(e: Binary) -> tuple[Expr, Expr, str] | None:
            """``(a, y, s)`` where ``e`` is ``a + s * y``, ``s * y + a`` or ``a - s * y`` (``s * y``: ``y * s``,
            ``s * y`` or ``y / s`` with ``s`` a scalar and ``y`` a line value; ``s`` negated for the difference),
            ``a`` a computed line value (not an input or per-row line, not a kept subformula: computing it into
            the destination costs no copy); else None."""
            if e.op not in "+-":
                return None
            for a, term in ((e.left, e.right), (e.right, e.left)) if e.op == "+" else ((e.left, e.right),):
                if line(a) or self.scalar(a, scalar) or str(a) in saves or not isinstance(term, Binary):
                    continue
                ls, rs = self.scalar(term.left, scalar), self.scalar(term.right, scalar)
                if term.op == "*" and bool(ls) != bool(rs):
                    y, s = (term.left, rs) if rs else (term.right, ls)
                elif term.op == "/" and rs and not ls:
                    y, s = term.left, f"1.0f / ({rs})"
                else:
                    continue
                return a, y, s if e.op == "+" else f"-({s})"
            return None

        def kept(e: Expr, j: int, dst: str | None) -> tuple[str, int | None]:
            """Subformula ``j`` of the saves: written to ``save[j]`` (an argument) or read from it (an output)
            when ``keep``, else computed into ``dst`` or a temporary."""
            slot = alloc() if dst is None else None
            into = dst if dst is not None else f"tmp[{slot}]"
            var = f"kept{j}"
            busy.add(j)
            if not out and j not in ready:
                lines.append(f"const LocalTensor<float> {var} = keep ? save[{j}] : {into};")
                go(e, var)
            elif dst is not None and not returns:  # the whole output
                lines.append("if (keep) {")
                lines.append(f"Adds({dst}, save[{j}], 0.0f, n);")
                lines.append("} else {")
                go(e, dst)
                lines.append("}")
                var = dst
            else:
                lines.append(f"LocalTensor<float> {var} = save[{j}];")
                lines.append("if (!keep) {")
                go(e, into)
                lines.append(f"{var} = {into};")
                lines.append("}")
            busy.discard(j)
            declared[j] = var
            return var, slot

        result, _ = go(expr, "dst")
        if returns:
            lines.append(f"return {result};")
        return LoweredFunction(name, tuple(lines), str(expr).replace(ROW_PREFIX, "row"), frozenset(declared))
