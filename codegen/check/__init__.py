"""Checking generated ops against NumPy references: case matrices, comparison, the ``opgen check`` driver."""
