// ascend-opgen host emulation, internal: each stream's own thread, and the device buffers its unsynchronised
// work may touch. On a device, phase 2 of an aclnn call only queues its launches on the stream: until
// aclrtSynchronizeStream (or aclrtSynchronizeDevice, aclrtDestroyStream) returns, the host must not read what
// they write nor write what they read. The emulator runs a stream's work on a thread of its own, in queue
// order, as the device does, and also records those buffers, so that a host access to them is refused
// (aclrtMemcpy, aclrtMemset, the Python API's reads) deterministically, whatever the timing.
#ifndef OPGEN_RT_HOST_STREAM_STATE_H
#define OPGEN_RT_HOST_STREAM_STATE_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "acl/acl_base.h"

namespace opgen_rt {

// Records [ptr, ptr + bytes) as touched by work queued on `stream` (nullptr: the default stream): written
// when `written`, else read. `what` names the buffer in messages ("output out of aclnnFoo (kernel foo)").
void MarkStreamPending(aclrtStream stream, const void *ptr, size_t bytes, bool written, const std::string &what);

// The message for a host access of [ptr, ptr + bytes) by `api` that races with unsynchronised work, or ""
// when there is none: a host read (`hostWrite` false) races with pending writes, a host write with pending
// reads and writes. Pending work of `sameStream` (an async copy queued behind it) is ordered, not a race;
// pass kAnyStream to treat every stream's work as unordered.
std::string PendingHostAccess(const char *api, const void *ptr, size_t bytes, bool hostWrite, aclrtStream sameStream);

// Queues `work` on the thread of `stream` (nullptr: the default stream) behind the work queued there before,
// and returns at once; false (nothing queued, and what was marked pending on that handle forgotten) when
// `stream` is neither nullptr nor a live stream. The thread
// calls work(true) and keeps a non-zero status it returns, with the error text the work logged, as the
// stream's error: once a task failed, the stream's later tasks are not run (work(false) only releases what
// it holds) until aclrtSynchronizeStream reports the error (ACL_ERROR_RT_VECTOR_CORE_EXCEPTION for a kernel
// fault, ACLNN_ERR_RUNTIME_ERROR from the task; ACL_ERROR_RT_INTERNAL_ERROR for any other status).
bool EnqueueStreamWork(aclrtStream stream, std::function<int32_t(bool run)> work);

// Waits until every stream's queued work has finished, without taking their errors (aclrtFree and the
// destruction of an executor wait so, since the work may still use the memory).
void WaitAllStreamWork();

// Distinct from every real stream handle and from nullptr (the default stream).
extern const aclrtStream kAnyStream;

}  // namespace opgen_rt

#endif  // OPGEN_RT_HOST_STREAM_STATE_H
