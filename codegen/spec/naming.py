"""Naming rules of specs: C++ keywords, reserved names, identifier forms.

Nothing here writes files.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

from codegen.inputs import MAX_SPEC_BYTES, read_input_text
from codegen.spec.expr import (
    ExprType,
)
from codegen.spec.model import (
    DType,
)

# ------------------------------------------------------------------------------------------------ names

#: C++ keywords and alternative tokens (C++20), which cannot name a parameter or variable.
_CPP_KEYWORD_TEXT = """
    alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t
    class compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield
    decltype default delete do double dynamic_cast else enum explicit export extern false float for friend
    goto if inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private
    protected public register reinterpret_cast requires return short signed sizeof static static_assert
    static_cast struct switch template this thread_local throw true try typedef typeid typename union
    unsigned using virtual void volatile wchar_t while xor xor_eq
"""
CPP_KEYWORDS = frozenset(_CPP_KEYWORD_TEXT.split())
#: C (C17) keywords that C++ does not have: C's others are C++ keywords or start with '_' and a capital
#: (``_Bool``, reserved names); a C header of the generated code's includes may use them as keywords.
C_ONLY_KEYWORDS = frozenset({"restrict"})

#: The recorded macros of the headers the generated code includes (``name<TAB>header`` lines; ``#`` comments
#: name the source): :func:`codegen.build.record_header_macros` writes it, a test keeps it equal to what the
#: compiler's preprocessor gives.
HEADER_MACROS_FILE = Path(__file__).resolve().parent / "header_macros.txt"


@lru_cache(maxsize=1)
def header_macros() -> Mapping[str, str]:
    """The macros of the headers the generated code includes (``errno``, ``EOF``, ``stdin``, ``NULL``,
    ``OP_LOGE``, ...), each with its defining header, from :data:`HEADER_MACROS_FILE`: a spec name equal to
    one would be replaced by the preprocessor in the generated C++."""
    out: dict[str, str] = {}
    for line in read_input_text(HEADER_MACROS_FILE, MAX_SPEC_BYTES).splitlines():
        if line and not line.startswith("#"):
            name, _, header = line.partition("\t")
            out[name] = header
    return out


#: Names expressions give a meaning of their own (value: their type).
PLATFORM_NAMES: Mapping[str, ExprType] = {"coreNum": ExprType.INT, "ubBytes": ExprType.INT}

_DTYPE_NAMES = tuple(sorted(DType.__members__))

#: Identifiers that are valid C but taken in generated code or expressions, with the reason.
RESERVED_NAMES: Mapping[str, str] = {
    **{n: "a platform value in expressions" for n in PLATFORM_NAMES},
    **{n: "a dtype name in expressions" for n in _DTYPE_NAMES},
    **{n: "a parameter of the aclnn two-phase API" for n in ("workspaceSize", "executor", "workspace", "stream")},
    "tiling": "a parameter of the kernel entry",
    **{
        n: "a type name in generated C++"
        for n in (
            "half",
            "bfloat16_t",
            "int8_t",
            "int16_t",
            "int32_t",
            "int64_t",
            "uint8_t",
            "uint16_t",
            "uint32_t",
            "uint64_t",
            "size_t",
            "GM_ADDR",
            "aclTensor",
            "aclOpExecutor",
            "aclrtStream",
            "aclnnStatus",
            "aclDataType",
        )
    },
}

_C_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_UPPER_CAMEL = re.compile(r"[A-Z][A-Za-z0-9]*")
_SNAKE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")


#: The longest ``op``, ``op_type`` or ``kernel``: they name generated files (``test_aclnn_<op>.cpp``,
#: ``test_<kernel>_infershape.cpp``, ...), which must stay inside NAME_MAX (255 bytes on Linux) with their
#: prefixes and suffixes, the op's snake name included (up to one '_' per character).
MAX_NAME_CHARS = 128
#: The error message for a name longer than :data:`MAX_NAME_CHARS`.
TOO_LONG = f"must be at most {MAX_NAME_CHARS} characters (it names generated files, e.g. test_<kernel>_infershape.cpp)"


def is_upper_camel(name: str) -> bool:
    """Whether ``name`` may be an op or OpType name: ASCII letters and digits, starting with a capital and
    with at least one lower-case letter (``ABC`` is not UpperCamelCase)."""
    return bool(_UPPER_CAMEL.fullmatch(name)) and any(c.islower() for c in name)


def macro_problem(name: str) -> str | None:
    """Why ``name`` cannot appear in generated C++ as an identifier because a header the generated code
    includes defines it as a macro (:func:`header_macros`), or None."""
    header = header_macros().get(name)
    if header is None:
        return None
    return f"'{name}' is a macro of {header}, a header the generated code includes; choose another name"


def ops_nn_folder(op_type: str) -> str:
    """The folder (and file stem) ops-nn gives an OpType: its snake case as ops-nn's build scripts spell it
    (hicann/ops-nn ``scripts/util/ascendc_impl_build.py``, ``optype_snake_ex``): lower case, with a ``_``
    before a capital that follows a lower-case letter or a digit, and before a capital that follows a capital
    and is followed by a lower-case letter. ``ThresholdGradV2D`` -> ``threshold_grad_v2_d``,
    ``SmoothL1LossV2`` -> ``smooth_l1_loss_v2``. An op whose ops-nn folder differs says so in its spec
    (``kernel``)."""
    out = []
    for i, c in enumerate(op_type):
        if i and c.isupper():
            before, after = op_type[i - 1], op_type[i + 1 : i + 2]
            if not before.isupper() or after.islower():
                out.append("_")
        out.append(c.lower())
    return "".join(out)


def kernel_problem(kernel: str) -> str | None:
    """Why ``kernel`` cannot be an op's ``kernel`` name, or None when it can: at most
    :data:`MAX_NAME_CHARS` characters, snake_case, not a C++ or C keyword and not a macro of the headers the
    generated code includes (:func:`macro_problem`). The loader and ``opgen new`` share this rule."""
    if len(kernel) > MAX_NAME_CHARS:
        return TOO_LONG
    if not _SNAKE.fullmatch(kernel):
        return f"'{kernel}' is not snake_case (lower-case letters, digits and single '_', e.g. soft_margin_loss_grad)"
    if kernel in CPP_KEYWORDS:
        return f"'{kernel}' is a C++ keyword; choose another name"
    if kernel in C_ONLY_KEYWORDS:
        return f"'{kernel}' is a C keyword; choose another name"
    return macro_problem(kernel)


def name_problem(name: str, reserved: bool = True) -> str | None:
    """Why ``name`` cannot name a tensor, attr, scalar, let or constraint, or None when it can.

    It must be an ASCII C identifier, not a C or C++ keyword, not a Python keyword (expressions could not
    mention it), not a C++ reserved identifier (``__x``, ``_X``), not a macro of the headers the generated
    code includes (:func:`macro_problem`) and, when ``reserved``, not one of
    :data:`RESERVED_NAMES`. ``self`` is fine.
    """
    if not _C_IDENT.fullmatch(name):
        return f"'{name}' is not a valid C identifier (ASCII letters, digits and '_', not starting with a digit)"
    if name in CPP_KEYWORDS:
        return f"'{name}' is a C++ keyword; choose another name"
    if name in C_ONLY_KEYWORDS:
        return f"'{name}' is a C keyword; choose another name"
    if keyword.iskeyword(name):
        return f"'{name}' is a Python keyword and could not be written in expressions; choose another name"
    if name.startswith("__") or re.match(r"_[A-Z]", name):
        return f"'{name}' is reserved in C++ (names starting with '__' or '_' and a capital); choose another name"
    macro = macro_problem(name)
    if macro:
        return macro
    if reserved and name in RESERVED_NAMES:
        return f"'{name}' is reserved ({RESERVED_NAMES[name]}); choose another name"
    return None


def value_name_problem(label: str) -> str | None:
    """Why ``label`` cannot name a value of an integer attr's ``values`` (it becomes a C++ enumerator-like
    identifier: a C identifier, not a C++ keyword), or None when it can."""
    if not _C_IDENT.fullmatch(label) or label in CPP_KEYWORDS:
        return f"value name '{label}' must be a C identifier and not a C++ keyword"
    return None


# ------------------------------------------------------------------------------------------------ messages

#: Beginnings of words spoken with a consonant sound although their first letter is a vowel: "a uint64",
#: "a unit", "a one-element list".
_CONSONANT_SOUND = ("uint", "unit", "uniq", "unif", "univ", "union", "use", "usu", "uti", "one", "once", "eu")


def a_or_an(word: str) -> str:
    """The indefinite article before ``word`` in a message, by its sound: ``an`` before a vowel sound
    ("an int64", "an 8-byte", "an 11-byte", "an 18-byte", "an 800-byte", "an 8192-byte"), else ``a``
    ("a uint64", "a float", "a 16-byte", "a 110-byte", "a 4120-byte")."""
    digits = re.match(r"[0-9]+", word)
    if digits:
        number = digits.group().lstrip("0") or "0"
        # the number as spoken starts with its leading group of three digits: 18 of 18000, 8 of 8192
        lead = number[: len(number) % 3 or 3]
        return "an" if lead.startswith("8") or lead in ("11", "18") else "a"
    lower = word.lower()
    if lower.startswith(_CONSONANT_SOUND):
        return "a"
    return "an" if lower[:1] in ("a", "e", "i", "o", "u") else "a"
