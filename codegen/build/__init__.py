"""Building generated sources on the host: one shared library per (op, product), cached by content hash.

Each library holds the op's generated C++ (op_api, tiling, OpDef, kernel), a small glue translation unit
written here (the kernel's registration under its OpType and the product's facts, which the CANN build
system would otherwise provide) and the runtime emulation. Object files are cached in the user cache
directory under a SHA-256 of everything that determines them (source text of the file and every header it
can include, compiler flags and ``g++ --version``), so unchanged inputs are never compiled twice.

Modules: :mod:`~codegen.build.library` (an op's library and example program), :mod:`~codegen.build.glue`
(the glue unit and product macros), :mod:`~codegen.build.toolchain` (compiler, flags, running a command),
:mod:`~codegen.build.pch` (precompiled system headers), :mod:`~codegen.build.cache` (the cache's entries and
locks), :mod:`~codegen.build.errors` (what a build reports), :mod:`~codegen.build.header_macros` (the macros
the spec loader refuses as names). This package re-exports the API the other stages use.
"""

from __future__ import annotations

from codegen.build.cache import cache_dir
from codegen.build.errors import BuildError, CacheWarning, use_tool_warning_format
from codegen.build.glue import glue_source
from codegen.build.header_macros import record_header_macros
from codegen.build.library import BuiltOp, build_example, build_op

__all__ = [
    "BuildError",
    "BuiltOp",
    "CacheWarning",
    "build_example",
    "build_op",
    "cache_dir",
    "glue_source",
    "record_header_macros",
    "use_tool_warning_format",
]
