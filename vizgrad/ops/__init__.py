"""The operators, each declared once: schema, variants, CPU kernel, derivative slot.

One module per family (pointwise, reductions, views, indexing, …). Cross-cutting work
lives in two shared places: ``iterator`` (broadcasting, type promotion, output
allocation, ``out=`` and in-place checks: PyTorch's TensorIterator) and ``registry``
(turning one declaration into the function, method, in-place and ``out=`` variants).
"""
