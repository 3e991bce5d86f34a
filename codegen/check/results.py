"""What a check run is made of: a :class:`Job` (the cases of one op on one product) and the :class:`CaseResult`
of each case. Shared by the driver (:mod:`codegen.check.driver`), the worker that runs a job in a child
process (:mod:`codegen.check.worker`) and the report."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import Any

#: What the report says of a failed case whose message is empty (an edited or hand-written result file; a
#: check run always says why a case failed).
NO_MESSAGE = "failed (no message recorded)"


@dataclass
class CaseResult:
    """Outcome of one case; ``counters`` are the emulator's per-launch totals (empty for status cases);
    ``kind`` names how a failed case failed when it did not return a result: ``timeout`` (it ran past its
    time limit and was killed) or ``crash`` (its process died), else empty; ``bound`` and ``bound_source``
    say what error the comparison accepted (see :func:`case_tolerance`)."""

    ident: str
    op: str
    product: str
    dtype: str
    shape: str
    name: str
    passed: bool
    status: int
    max_abs_err: float
    max_ulp_err: float
    message: str
    seconds: float
    counters: dict[str, Any] = field(default_factory=dict)
    #: the error accepted at the element of the largest absolute error (0 for status cases)
    bound: float = 0.0
    #: where the bound came from: ``derived`` (the instruction sequence), ``tolerance()`` (the reference
    #: module's), ``default`` (16 fp32 roundings) or empty for cases without a comparison
    bound_source: str = ""
    kind: str = ""
    #: for a product whose fingerprint equals another's: the product that ran the case (the result is that
    #: run's, see :mod:`codegen.check.matrix`); empty when the case ran on this product
    covered_by: str = ""

    def __post_init__(self) -> None:
        # A message is text a case's exception or the emulator produced: a lone surrogate in it (an
        # undecodable file name, say) cannot be printed or written as UTF-8, so it is kept as its escape.
        if isinstance(self.message, str) and not self.message.isascii():
            self.message = utf8_text(self.message)


def utf8_text(text: str) -> str:
    """``text`` with every lone surrogate code point (U+D800-U+DFFF, which no UTF-8 text can hold) written
    as its backslash escape (``\\ud800``); every other character unchanged."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def result_dict(result: CaseResult) -> dict[str, Any]:
    """The fields of ``result`` by name, for JSON: what ``dataclasses.asdict`` gives (the fields hold plain
    JSON values, no nested dataclasses), without its deep copy of ``counters`` (per-core lists of a
    many-core launch: a quarter of a millisecond a case). The values are ``result``'s own, not copies."""
    return {f.name: getattr(result, f.name) for f in fields(result)}


@dataclass(frozen=True)
class Job:
    """The cases of one (op, product), run in one worker process. ``specs_dir`` and ``products_file`` are
    the spec directory and product catalogue the op and product come from (None: the project's);
    ``timeout`` the time limit of every case in seconds (None: derived from each case's size, see
    :func:`codegen.check.worker.case_timeout`)."""

    spec_snake: str
    product: str
    dtype_filter: tuple[str, ...]
    quick: bool
    generated: str | None
    core_orders: tuple[str, ...]
    sanitize: bool
    specs_dir: str | None
    products_file: str | None = None
    timeout: float | None = None
    #: indices of the units (:func:`codegen.check.worker.case_units`, the example program last) to run;
    #: None: all (``opgen check --shard`` runs a part)
    units: tuple[int, ...] | None = None
    #: products with this product's fingerprint: each gets a copy of every result, marked ``covered_by``
    covers: tuple[str, ...] = ()
    #: compile the kernel only for the tiling keys the job's units launch (``opgen check --sanitize``): a
    #: pre-pass on the op's plain build lists them (:func:`codegen.check.driver.launched_tiling_keys`); a
    #: launch of any other key is a ``[tiling key not built]`` kernel fault, a failed case
    launched_keys_only: bool = False
    #: ``opgen check --coverage``: the run's coverage folder; the job builds the op instrumented for gcov and
    #: writes its counts and summary under ``<folder>/<op>/<product>`` (:mod:`codegen.check.coverage`)
    coverage_dir: str | None = None


def covered_name(text: str, ran: str, product: str) -> str:
    """``text`` (a result's ident or message) of product ``ran`` as the text of ``product``, which has the same
    fingerprint and gets a copy of the result: every whole-word ``ran`` replaced by ``product``."""
    return re.sub(rf"(?<![\w]){re.escape(ran)}(?![\w])", lambda _: product, text)
