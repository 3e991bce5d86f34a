// ascend-opgen host emulation: the C functions Python (ctypes) calls besides the acl/aclnn API.
// Hand-written; not a CANN header. Every returned string lives in a per-thread buffer that the next call of
// the same function on the same thread overwrites.
#ifndef OPGEN_RT_C_API_H
#define OPGEN_RT_C_API_H

#include <cstdint>

#ifdef __cplusplus
extern "C" {
#endif

// Core scheduling of later launches: 0 in order, 1 reversed, 2 shuffled (by `seed`), 3 concurrent.
// Returns 0, or -1 (with a message in aclGetRecentErrMsg()) for an unknown mode.
int32_t opgen_rt_set_core_order(int32_t mode, uint64_t seed);

// JSON of the most recent CommonOpExecutorRun in the process (any thread):
// {"status": int, "launches": [{"op_type", "kernel", "block_dim", "tiling_key", "workspace_bytes",
//   "tiling_data_size", "tiling": {field: value}, "ok": bool, "fault": str|null,
//   "cores": [{"gm_bytes_read", "gm_bytes_written", "gm_bytes_atomic_added", "ub_high_water_bytes",
//              "vector_instructions", "vector_elements", "gm_bytes_truncated"}], "notes": [str]}],
//  "host_tasks": [{"kind": "Contiguous"|"Cast"|"BroadcastTo"|"ViewCopy", "bytes_read", "bytes_written"}]}
// {"status": null, "launches": [], "host_tasks": []} before the first run.
const char *opgen_rt_last_launch_stats(void);

// How many executors phase 1 handed out that are neither consumed by phase 2 nor destroyed with
// aclDestroyAclOpExecutor (repeatable ones included): a caller that drops an executor leaks it.
uint64_t opgen_rt_live_executor_count(void);

// JSON of the OpDef registered for `opType`, or "null" when there is none:
// {"op_type", "inputs": [{"name", "param_type", "dtypes": ["DT_FLOAT", ...], "dtype_list": [...],
//   "formats": ["FORMAT_ND", ...], "unknown_shape_formats": [...], "value_depend", "init_value"}],
//  "outputs": [...], "attrs": [{"name", "attr_type", "type", "default"}],
//  "configs": {"ascend910b": null | {"inputs": [...], "outputs": [...], "flags": {...}}}}
const char *opgen_rt_opdef_json(const char *opType);

// "" when the host may access [ptr, ptr + bytes) (a read when `hostWrite` is 0, else a write), else the
// message naming `api`, the range and the buffer of the launch not yet synchronised that writes it (for a
// write: reads or writes it), on any stream. What the Python API asks before it reads a call's outputs.
const char *opgen_rt_pending_host_access(const char *api, const void *ptr, uint64_t bytes, int32_t hostWrite);

// JSON of the library's product (opgen_rt::CurrentProduct()).
const char *opgen_rt_product_json(void);

// Runs the tiling registered for `opType` on the described tensors and attributes; no memory is
// allocated for the tensors, so shapes of any size can be tried. Request (all keys optional but "inputs"):
// {"inputs":  [{"shape": [..], "dtype": "DT_FLOAT"|"FLOAT"|0, "format": "FORMAT_ND"|"ND"|2,
//              "storage_shape": [..]} | null, ...],
//  "outputs": [ same ],
//  "attrs":   [value, ...]  (by position)  or  {"name": value, ...}  (by OpDef attribute name; missing
//             optional attributes take their OpDef default),
//  "deterministic": 0|1}
// A JSON integer becomes an int attribute, true/false a bool, a number with a fraction or exponent a
// float, a string a string, a list of integers a list_int (of numbers a list_float, of booleans a
// list_bool). Response:
// {"status": 0 | aclnnStatus, "message": str, "block_dim", "tiling_key", "schedule_mode",
//  "workspace_sizes": [..], "tiling_data_size", "tiling": {field: value}, "tiling_raw": "hex"}
const char *opgen_rt_run_tiling_json(const char *opType, const char *requestJson);

// Runs the InferShape and InferDataType functions registered with IMPL_OP_INFERSHAPE(opType) on a JSON
// request {"inputs": [{"shape": [..], "dtype": "FLOAT"} | null, ...], "attrs": as above}; the output count
// is the OpDef's. Response: {"status": 0 | aclnnStatus, "message": str, "outputs": [{"shape": [..],
// "dtype": "DT_FLOAT"}, ...]}; 561001 when none is registered or a function returns failure.
const char *opgen_rt_run_infershape_json(const char *opType, const char *requestJson);

// A probe launch (64-bit offsets): runs the tiling on a request as opgen_rt_run_tiling_json takes it, then
// launches the registered kernel in probe mode (opgen_rt::LaunchRequest::probe) with every tensor and the
// workspace as reserved address space of its full size (no memory committed; any shape fits), running only
// the cores of the request's "cores": [index, ...]; with "max_accesses": n a core stops (without a fault) at its
// n-th GM access, and is listed in "stopped". Response: {"status": 0 | aclnnStatus, "message",
// "block_dim", "tiling_key", "tiling": {field: value}, "ok": bool, "fault": str|null, "spans": [{"core",
// "region": "input 0 (x)", "read": [lo, hi]|null, "write": [lo, hi]|null}], "stopped": [core, ...]} where lo and hi are byte offsets
// from the region's start of the first byte and one past the last byte the core touched.
const char *opgen_rt_probe_launch_json(const char *opType, const char *requestJson);

#ifdef __cplusplus
}
#endif

#endif  // OPGEN_RT_C_API_H
