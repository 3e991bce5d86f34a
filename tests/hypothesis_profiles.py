"""Hypothesis profiles of the property tests that call generated kernels, chosen by ``OPGEN_HYPOTHESIS_PROFILE``.

- ``ci`` (the default): derandomized, so every run draws the same examples; a bounded number of examples per
  test, no deadline (a kernel call through the host emulation takes milliseconds to a second), no example
  database (nothing is written to ``.hypothesis/``).
- ``thorough``: at least 500 random examples per test, with the example database, for a local hunt::

      OPGEN_HYPOTHESIS_PROFILE=thorough .venv/bin/python -m pytest tests/test_pytorch_properties.py \\
          --hypothesis-show-statistics

The profiles are registered as ``opgen-ci`` and ``opgen-thorough`` (Hypothesis ships a ``ci`` profile of its own,
loaded automatically when ``CI`` is set; it is left alone) and are applied with :func:`profile_settings` as a
decorator on each property test, so the global Hypothesis settings of the other test modules do not change.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

#: The environment variable naming the profile.
PROFILE_ENV = "OPGEN_HYPOTHESIS_PROFILE"

#: Examples per property test in each profile.
CI_EXAMPLES = 40
THOROUGH_EXAMPLES = 600

_SLOW_CHECKS = (HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much)

settings.register_profile(
    "opgen-ci",
    max_examples=CI_EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=_SLOW_CHECKS,
)
settings.register_profile(
    "opgen-thorough",
    max_examples=THOROUGH_EXAMPLES,
    derandomize=False,
    deadline=None,
    print_blob=True,
    suppress_health_check=_SLOW_CHECKS,
)

_PROFILES = {"ci": "opgen-ci", "thorough": "opgen-thorough"}


def profile_name() -> str:
    """The profile ``OPGEN_HYPOTHESIS_PROFILE`` selects (``ci`` when unset).

    Raises:
        ValueError: the variable names no profile.
    """
    name = os.environ.get(PROFILE_ENV, "ci").strip() or "ci"
    if name not in _PROFILES:
        raise ValueError(f"{PROFILE_ENV}={name!r}: expected one of {', '.join(sorted(_PROFILES))}")
    return name


def profile_settings() -> settings:
    """The registered :class:`hypothesis.settings` of the selected profile, to decorate a ``@given`` test."""
    return settings.get_profile(_PROFILES[profile_name()])
