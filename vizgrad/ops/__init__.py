"""The operators, each declared once: schemas, kernels, derivative, kind, variants.

One module per family (pointwise, reductions, views, indexing, …). Cross-cutting work
lives in shared places: ``declaration`` (``native_function``: one declaration becomes
the function, method, in-place and ``out=`` variants, with the argument parser of
``vizgrad.arg_parser``), ``iterator`` (broadcasting, type promotion, output allocation,
``out=`` and in-place checks: PyTorch's TensorIterator) and ``registry`` (every
overload by name).
"""
