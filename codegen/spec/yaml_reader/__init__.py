"""Reading YAML into located nodes and typed access to them.

YAML is read with a strict SafeLoader subclass into located nodes (:class:`YScalar`, :class:`YSeq`,
:class:`YMap`: every value knows its file, line and field path; duplicate keys, aliases and merge keys
are rejected; booleans are only ``true``/``false``, integers decimal or ``0x``/``0o``). :class:`Reader`
gives typed access to them and records every problem as a :class:`~codegen.spec.errors.SpecError`.

The nodes are in :mod:`~codegen.spec.yaml_reader.nodes`, the file reading in
:mod:`~codegen.spec.yaml_reader.strict_load` and the typed access in :mod:`~codegen.spec.yaml_reader.reader`;
the spec loaders and every family's compute parser use the names this package exports.

Nothing here writes files.
"""

from __future__ import annotations

from codegen.spec.yaml_reader.nodes import YMap, YNode, YScalar, YSeq, map_entries
from codegen.spec.yaml_reader.reader import Reader
from codegen.spec.yaml_reader.strict_load import ALIAS_EXPANSION_BUDGET, MAX_YAML_DEPTH, QUESTION_RE, read_yaml

__all__ = [
    "ALIAS_EXPANSION_BUDGET",
    "MAX_YAML_DEPTH",
    "QUESTION_RE",
    "Reader",
    "YMap",
    "YNode",
    "YScalar",
    "YSeq",
    "map_entries",
    "read_yaml",
]
