// ascend-opgen host emulation, internal: the device buffers each stream's unsynchronised work may touch.
// On a device, phase 2 of an aclnn call only queues its launches on the stream: until aclrtSynchronizeStream
// (or aclrtSynchronizeDevice, aclrtDestroyStream) returns, the host must not read what they write nor write
// what they read. The emulator runs the work inside the call, so it records those buffers instead and
// refuses a host access to them (aclrtMemcpy, aclrtMemset, the Python API's reads): deterministic, never
// timing-dependent.
#ifndef OPGEN_RT_HOST_STREAM_STATE_H
#define OPGEN_RT_HOST_STREAM_STATE_H

#include <cstddef>
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

// Distinct from every real stream handle and from nullptr (the default stream).
extern const aclrtStream kAnyStream;

}  // namespace opgen_rt

#endif  // OPGEN_RT_HOST_STREAM_STATE_H
