"""Load-time rules on expressions that type-check but would fail later: at generation or on the device (a
family's own rules on its compute section live in its package).

* :func:`~codegen.spec.rules.zero_division.zero_division`: a host expression (compute scalar, constraint,
  output shape, a formula's subexpression without tensor values) must not divide by anything that may be 0
  (``//`` and ``%`` by an integer 0 are a ``SIGFPE`` in the generated C++; ``/`` is a double division and
  gives inf or NaN): a literal 0, an attribute, ``rank()`` (0 for a 0-d tensor), ``dim()`` or ``numel()``
  (0 for an empty tensor), unless its form proves it nonzero: a guard on the way to the division (``a if
  mode != 0 else b``, ``rank(out) > 0 and ...``), an unconditional constraint on every product (``require:
  "mode > 0"``), the attribute's ``values``, the tensor's rank rule, or what the generated code guarantees
  (the platform's ``coreNum``/``ubBytes``; names a family's compute section declares nonzero, e.g.
  ``numel`` of an output whose tiling runs only when it is non-empty).
* :func:`~codegen.spec.rules.overflow.constant_problem`: a host expression must not hold a constant part
  that overflows int64 (``99999999999 * 99999999999 * 99999999999``): it would be undefined behaviour in
  the generated C++.

Both rules rest on what conditions prove (:mod:`~codegen.spec.rules.guards`) and on shape calls read as
names (:mod:`~codegen.spec.rules.atoms`).
"""
