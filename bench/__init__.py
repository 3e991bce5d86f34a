"""ascend-opgen benchmark suite (not tests): generation, checking, emulator throughput and data movement.

Run ``python bench/run.py --help`` (or ``python -m bench.run``); ``python bench/compare.py A.json B.json``
compares two result files.
"""
