"""The ``opgen`` command line (also ``python -m codegen``).

Modules: :mod:`~codegen.cli.dispatch` (:func:`main`, the entry point), :mod:`~codegen.cli.parser` (the
argument parser), :mod:`~codegen.cli.options` (values checked before any work), :mod:`~codegen.cli.commands`
(``list``, ``generate``, ``build``, ``new``, ``import``, ``explain``) and :mod:`~codegen.cli.check` (``check``
and ``report merge``).
"""

from __future__ import annotations

from codegen.cli.dispatch import main

__all__ = ["main"]
