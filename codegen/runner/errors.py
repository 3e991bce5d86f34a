"""The error a call through the aclnn C ABI raises for a non-zero status."""

from __future__ import annotations

#: acl's generic failure status (acl_base.h), which the emulated acl calls answer to a host access of a
#: buffer a launch not yet synchronised may touch.
ACL_ERROR_FAILURE = 500001


class AclnnError(Exception):
    """A non-zero ``aclnnStatus``: ``status`` (int, e.g. 161002) and ``message`` (aclGetRecentErrMsg)."""

    def __init__(self, status: int, message: str, phase: int) -> None:
        super().__init__(f"aclnn status {status} in phase {phase}: {message}")
        self.status = status
        self.message = message
        self.phase = phase
