"""vizgrad's benchmarks: ``python -m benchmarks`` (or ``make bench``).

Each case runs the same computation in vizgrad, NumPy and (when installed) PyTorch in
one process, and prints the times side by side with vizgrad's ratio and the target
an issue set for it. Speed is measured here, never in timed tests.
"""
