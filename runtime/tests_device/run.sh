#!/usr/bin/env bash
# Builds and runs the device-runtime tests of the ascend-opgen host emulation (runtime/tests_device).
# Usage: runtime/tests_device/run.sh [--no-bench]
#   BUILD_DIR=...      build folder (default: $TMPDIR/opgen_rt_tests_device)
#   EXTRA_FLAGS=...    extra compile and link flags, e.g. "-fsanitize=address,undefined"
#   OPGEN_CONTRACT_DIR=...  run the contract kernel from that folder instead of the test copy
#   JOBS=N             compiler processes at a time (default 2, at most the CPU count: pytest runs the suite
#                      with 2 workers, so two is the ceiling there)
# Exits non-zero when a build or a test fails. Every translation unit builds warning-free with
# -Wall -Wextra -Werror. The translation units are independent: they are all compiled first, JOBS at a time,
# then the programs are linked and run one after another in the order below (their output in that order).
set -u -o pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RT="$(cd "${HERE}/.." && pwd)"
CONTRACT="${OPGEN_CONTRACT_DIR:-}"
BUILD="${BUILD_DIR:-${TMPDIR:-/tmp}/opgen_rt_tests_device}"
CXX="${CXX:-g++}"
read -r -a EXTRA <<< "${EXTRA_FLAGS:-}"
CXXFLAGS=(-std=c++17 -O2 -fPIC -Wall -Wextra -Werror -pthread -I "${RT}/include" -I "${HERE}" "${EXTRA[@]}")
BENCH=1
if [[ "${1:-}" == "--no-bench" ]]; then BENCH=0; fi
JOBS="${JOBS:-2}"
CPUS="$(nproc 2> /dev/null || echo 1)"
if ! [[ "${JOBS}" =~ ^[1-9][0-9]*$ ]]; then JOBS=2; fi
if ((JOBS > CPUS)); then JOBS="${CPUS}"; fi

mkdir -p "${BUILD}"
FAILED=0
PASSED=0
fail() { echo "FAILED: $*"; FAILED=$((FAILED + 1)); }
pass() { echo "ok: $*"; PASSED=$((PASSED + 1)); }

# Flags of one product build (the builder passes the same ones).
product_flags() {
  case "$1" in
    Ascend910B) echo "-D__NPU_ARCH__=2201 -DOPGEN_PRODUCT_NAME=\"Ascend910B\" -DOPGEN_HAS_DATACOPYPAD=1" ;;
    Ascend910) echo "-D__NPU_ARCH__=1001 -DOPGEN_PRODUCT_NAME=\"Ascend910\" -DOPGEN_HAS_DATACOPYPAD=0" ;;
    Ascend950) echo "-D__NPU_ARCH__=3510 -DOPGEN_PRODUCT_NAME=\"Ascend950\" -DOPGEN_HAS_DATACOPYPAD=1" ;;
  esac
}

# Phase 1: `queue OUT SRC FLAGS...` starts compiling SRC into OUT in the background (at most JOBS at a time);
# the compiler's exit status goes to OUT.status, its messages to OUT.log, the description to OUT.what.
RUNNING=0
queue() {
  local out="$1" src="$2"
  shift 2
  if ((RUNNING >= JOBS)); then
    wait -n
    RUNNING=$((RUNNING - 1))
  fi
  rm -f "${out}" "${out}.status" "${out}.reported"
  echo "compile $(basename "${src}") $*" > "${out}.what"
  ( "${CXX}" "${CXXFLAGS[@]}" "$@" -c "${src}" -o "${out}" 2> "${out}.log"; echo $? > "${out}.status" ) &
  RUNNING=$((RUNNING + 1))
}

# Phase 2: `compiled OUT` is whether OUT compiled; a failure is printed and counted once per object.
compiled() {
  local out="$1"
  if [[ "$(cat "${out}.status" 2> /dev/null)" == 0 ]]; then
    return 0
  fi
  if [[ ! -e "${out}.reported" ]]; then
    cat "${out}.log" 2> /dev/null
    fail "$(cat "${out}.what" 2> /dev/null || echo "compile ${out}")"
    touch "${out}.reported"
  fi
  return 1
}

link() {  # link OUT OBJS...
  local out="$1"
  shift
  if ! "${CXX}" -pthread "${EXTRA[@]}" -o "${out}" "$@" 2> "${out}.log"; then
    cat "${out}.log"
    fail "link $(basename "${out}")"
    return 1
  fi
  return 0
}

run() {  # run NAME BINARY
  local name="$1" bin="$2"
  if "${bin}"; then pass "${name}"; else fail "${name}"; fi
}

# ---- the device runtime and the harness ----
RT_OBJS=()
for src in "${RT}"/src/device/*.cpp; do
  obj="${BUILD}/rt_$(basename "${src}" .cpp).o"
  queue "${obj}" "${src}"
  RT_OBJS+=("${obj}")
done
# REGISTER_TILING_DATA_CLASS describes tiling fields to the host runtime's registry: link that part of
# the host side (runtime/src/host/tiling_meta.cpp and its JSON helper).
for src in "${RT}/src/host/tiling_meta.cpp" "${RT}/src/host/json.cpp"; do
  obj="${BUILD}/host_$(basename "${src}" .cpp).o"
  queue "${obj}" "${src}"
  RT_OBJS+=("${obj}")
done
queue "${BUILD}/harness.o" "${HERE}/harness.cpp"
COMMON=("${RT_OBJS[@]}" "${BUILD}/harness.o")
# every object of COMMON compiled (each failure reported once)
common_compiled() {
  local ok=0 obj
  for obj in "${COMMON[@]}"; do
    compiled "${obj}" || ok=1
  done
  return "${ok}"
}

# ---- 1. SoftMarginLossGrad kernels vs a double-precision reference ----
SMLG_KERNEL="${HERE}/kernels/smlg_contract.cpp"
SMLG_TILING_H="${HERE}/kernels/smlg_contract_tiling.h"
if [[ -n "${CONTRACT}" ]]; then
  SMLG_KERNEL="${CONTRACT}/soft_margin_loss_backward/op_kernel/soft_margin_loss_grad.cpp"
  SMLG_TILING_H="${CONTRACT}/soft_margin_loss_backward/op_host/soft_margin_loss_grad_tiling.h"
fi
BUFNUM_KERNEL="${HERE}/kernels/smlg_bufnum.cpp"
BUFNUM_TILING_H="${HERE}/kernels/smlg_bufnum_tiling.h"

smlg_compile() {  # smlg_compile NAME PRODUCT KERNEL TILING_H BUFNUM EXPECT_QUEUE_CAP
  local name="$1" product="$2" kernel="$3" tiling_h="$4" bufnum="$5" expect="$6"
  local pflags
  read -r -a pflags <<< "$(product_flags "${product}")"
  local tflags=(-include "${tiling_h}" -DOPGEN_KERNEL_TILING_TYPE=optiling::SoftMarginLossGradTilingData)
  queue "${BUILD}/${name}_kernel.o" "${kernel}" "${pflags[@]}" "${tflags[@]}"
  queue "${BUILD}/${name}_test.o" "${HERE}/test_smlg.cpp" "${tflags[@]}" \
    -DSMLG_TILING=optiling::SoftMarginLossGradTilingData -DSMLG_BUFNUM="${bufnum}" \
    -DSMLG_PRODUCT="\"${product}\"" -DSMLG_EXPECT_QUEUE_CAP="${expect}"
}

smlg_case() {  # smlg_case NAME (compiled by smlg_compile)
  local name="$1"
  compiled "${BUILD}/${name}_kernel.o" || return
  compiled "${BUILD}/${name}_test.o" || return
  common_compiled || return
  link "${BUILD}/${name}" "${BUILD}/${name}_kernel.o" "${BUILD}/${name}_test.o" "${COMMON[@]}" || return
  run "${name}" "${BUILD}/${name}"
}

UNIT_TESTS=(types ops faults sync_atomic reduce sort whole_sum timeline list)
BENCH_TFLAGS=(-include "${SMLG_TILING_H}" -DOPGEN_KERNEL_TILING_TYPE=optiling::SoftMarginLossGradTilingData)

# ---- phase 1: every translation unit, JOBS at a time (the longest ones early) ----
read -r -a pflags <<< "$(product_flags Ascend910B)"
queue "${BUILD}/test_ops.o" "${HERE}/test_ops.cpp" "${pflags[@]}"
for t in "${UNIT_TESTS[@]}"; do
  if [[ "${t}" != ops ]]; then
    queue "${BUILD}/test_${t}.o" "${HERE}/test_${t}.cpp" "${pflags[@]}"
  fi
done
smlg_compile smlg_contract_910b Ascend910B "${SMLG_KERNEL}" "${SMLG_TILING_H}" 0 0
smlg_compile smlg_contract_910_queue_cap Ascend910 "${SMLG_KERNEL}" "${SMLG_TILING_H}" 0 1
smlg_compile smlg_bufnum_910 Ascend910 "${BUFNUM_KERNEL}" "${BUFNUM_TILING_H}" 1 0
smlg_compile smlg_bufnum_910b Ascend910B "${BUFNUM_KERNEL}" "${BUFNUM_TILING_H}" 1 0
smlg_compile smlg_bufnum_950 Ascend950 "${BUFNUM_KERNEL}" "${BUFNUM_TILING_H}" 1 0
read -r -a pflags <<< "$(product_flags Ascend910)"
queue "${BUILD}/datacopypad_on_910.o" "${HERE}/kernels/datacopypad_on_910.cpp" "${pflags[@]}"
read -r -a pflags <<< "$(product_flags Ascend910B)"
queue "${BUILD}/datacopypad_on_910b.o" "${HERE}/kernels/datacopypad_on_910.cpp" "${pflags[@]}"
if [[ "${BENCH}" == 1 ]]; then
  queue "${BUILD}/bench_kernel.o" "${SMLG_KERNEL}" "${pflags[@]}" "${BENCH_TFLAGS[@]}"
  queue "${BUILD}/bench_smlg.o" "${HERE}/bench_smlg.cpp" "${BENCH_TFLAGS[@]}"
fi
wait

# ---- phase 2: link and run, in order ----
smlg_case smlg_contract_910b
smlg_case smlg_contract_910_queue_cap
smlg_case smlg_bufnum_910
smlg_case smlg_bufnum_910b
smlg_case smlg_bufnum_950

# ---- 2-4. unit tests: types, instructions, one broken kernel per fault rule, SyncAll and atomics, reductions,
# the whole-tensor sum combine (partials, barrier, ordered combine) ----
for t in "${UNIT_TESTS[@]}"; do
  if compiled "${BUILD}/test_${t}.o" && common_compiled; then
    link "${BUILD}/test_${t}" "${BUILD}/test_${t}.o" "${COMMON[@]}" && run "test_${t}" "${BUILD}/test_${t}"
  fi
done

# ---- 3. DataCopyPad on a product without it must not compile ----
if [[ "$(cat "${BUILD}/datacopypad_on_910.o.status" 2> /dev/null)" == 0 ]]; then
  fail "datacopypad_on_910 compiled, but DataCopyPad must be a compile-time error on Ascend910"
elif [[ ! -s "${BUILD}/datacopypad_on_910.o.status" ]]; then
  fail "datacopypad_on_910: the compiler did not finish (no exit status)"
elif grep -q "DataCopyPad is not available on Ascend910" "${BUILD}/datacopypad_on_910.o.log"; then
  pass "datacopypad_on_910 fails to compile with the expected message"
else
  cat "${BUILD}/datacopypad_on_910.o.log"
  fail "datacopypad_on_910 failed to compile, but without the expected message"
fi
if compiled "${BUILD}/datacopypad_on_910b.o"; then
  pass "the same kernel compiles on Ascend910B"
fi

# ---- benchmark: 2^24-element fp32 SoftMarginLossGrad ----
if [[ "${BENCH}" == 1 ]]; then
  if compiled "${BUILD}/bench_kernel.o" && compiled "${BUILD}/bench_smlg.o" && common_compiled &&
    link "${BUILD}/bench_smlg" "${BUILD}/bench_kernel.o" "${BUILD}/bench_smlg.o" "${COMMON[@]}"; then
    run bench_smlg "${BUILD}/bench_smlg"
  fi
fi

echo "${PASSED} passed, ${FAILED} failed"
[[ "${FAILED}" == 0 ]]
