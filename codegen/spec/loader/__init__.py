"""Loading and validating op specs: the op parser and the directory loader.

The spec stage reads YAML in :mod:`codegen.spec.yaml_reader` (located nodes, and typed access to them through
:class:`~codegen.spec.yaml_reader.Reader`), holds the naming rules in :mod:`codegen.spec.naming` and loads the
product catalogue in :mod:`codegen.spec.catalogue`. This package parses each op spec against an explicit
schema into the frozen model of :mod:`codegen.spec.model`: a module a section (:mod:`.tensors`,
:mod:`.attrs`, :mod:`.tiling`, :mod:`.signature`, :mod:`.dtype_combos`, :mod:`.constraints`,
:mod:`.example`, :mod:`.device`), the readers they share (:mod:`.fields`) and the state they share
(:mod:`.state`). :mod:`.document` reads one document section by section; checks that relate entries
(unique names, expression names, divisions by a value that may be 0 in :mod:`.divisions`, the example and
the defaults against the constraints in :mod:`.admitted_calls`, tiling against the products) run after the
fields parse. :mod:`.project` loads files and directories and adds the cross-file checks. Every problem
becomes a :class:`~codegen.spec.errors.SpecError` and the loaders raise all of them together as
:class:`~codegen.spec.errors.SpecErrors`.

The loader knows no family by name: ``family:`` must name a package of the family registry
(:mod:`codegen.registry`), which parses the family's ``compute`` section (a
:data:`~codegen.spec.scopes.ComputeParser`), says whether a ``device`` section is allowed and gives the
family's expressions to check for a division by zero.

Nothing here writes files.
"""

from __future__ import annotations

from codegen.spec.catalogue import load_catalogue
from codegen.spec.loader.project import load_op_spec, load_specs

__all__ = [
    "load_catalogue",
    "load_op_spec",
    "load_specs",
]
