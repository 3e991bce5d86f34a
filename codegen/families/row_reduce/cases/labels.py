"""How a case's dtype column is labelled in the ``opgen check`` table."""

from __future__ import annotations

from codegen.spec.model import DtypeCombo


def combo_label(same_x: list[DtypeCombo], combo: DtypeCombo) -> str:
    """The ``opgen check`` table's dtype column for a case of ``combo``, one of ``same_x`` (the product's
    combinations of one first-input dtype): that dtype, followed when there are several by the tensors that
    tell them apart, e.g. ``FLOAT16 (gamma FLOAT)`` and ``FLOAT16 (gamma FLOAT16)``."""
    first = combo.dtypes[0][1].name
    varying = [n for n, _ in combo.dtypes if len({c.dtype(n) for c in same_x}) > 1]
    return f"{first} ({', '.join(f'{n} {combo.dtype(n).name}' for n in varying)})" if varying else first
