// Declarations of what the CANN device compiler provides as builtins and g++ does not, force-included by
// tools/compile_public_headers.py into the kernel syntax checks of the NpuArch that reach them. Nothing here is
// part of the generated tree or of runtime/.
//
// __isfinite: asc-devkit's SIMT headers for NpuArch 3510 call it (impl/simt_api/cpp/dav_3510/
// kernel_simt_cmp_impl.h, IsFiniteImpl; impl/simt_api/math_functions_impl.h, isfinite) and declare it nowhere;
// asc-devkit's own CPU tests define it with this signature (tests/api/simt_api/common_simt/
// math_functions_debug.cpp).
#pragma once
bool __isfinite(float x);
