"""The plan stage shared by every family: the ops-nn file set, common view parts and the C++ of constraints."""
