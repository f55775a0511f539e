"""The indexing operators on the meta device against PyTorch's: every overload of the
family (functional, in-place, ``out=``) on contiguous, transposed, channels-last, 0-dim,
empty and expanded inputs of several dtypes, bad input raising PyTorch's errors, the
data-dependent operators refused as PyTorch refuses them, and autograd through them.

Each case is compared with PyTorch's meta result and CPU result (``check_op``): index
tensors hold 1s on the CPU, so an index out of range for a small input is a CPU error
that PyTorch's meta kernels, which read no index, do not raise.
"""

import pytest
import torch
from meta_checks import (
    assert_meta_same,
    check_op,
    meta_pair,
    metadata,
    outcome,
    raise_,
    torch_cpu,
)
from oracle import assert_same_error

import vizgrad as vg
import vizgrad.ops.padding as _padding  # the pads are bound to no Python function

# Inputs by name: (size, stride); None strides are row-major.
G = {
    "contiguous": ((2, 3, 4, 5), None),
    "channels_last": ((2, 3, 4, 5), (60, 1, 15, 3)),
    "transposed": ((4, 3), (1, 4)),
    "matrix": ((3, 4), None),
    "vector": ((5,), None),
    "scalar": ((), ()),
    "empty": ((0, 3), None),
    "expanded": ((3, 4), (0, 1)),
    "stepped": ((3, 2), (8, 2)),
}
SELF = ("contiguous", "channels_last", "transposed", "scalar", "empty", "expanded", "stepped")
DTYPES = ("float32", "int64", "bool")


def _pairs(*specs):
    """Meta pairs from ``(geometry name or a row-major size, dtype)`` specs."""
    result = []
    for geometry, dtype in specs:
        size, stride = G[geometry] if isinstance(geometry, str) else (geometry, None)
        result.append(meta_pair(size, stride, dtype))
    return result


def _check(fn, *specs):
    check_op(fn, _pairs(*specs))


L = "int64"

# --- ops of one tensor and integer arguments, on every input geometry ---------------------

UNARY = {
    "flip": lambda lib, x: lib.flip(x, (0, -1) if x.dim() else ()),
    "flip_bad_dim": lambda lib, x: lib.flip(x, (5,)),
    "flip_repeated_dim": lambda lib, x: lib.flip(x, (0, 0)),
    "roll_flat": lambda lib, x: lib.roll(x, 2),
    "roll_dims": lambda lib, x: lib.roll(x, (1, 2), (0, -1)),
    "roll_mismatch": lambda lib, x: lib.roll(x, (1, 2), (0,)),
    "rot90": lambda lib, x: lib.rot90(x),
    "rot90_k2": lambda lib, x: lib.rot90(x, 2, (-1, 0)),
    "rot90_k0": lambda lib, x: lib.rot90(x, 4),
    "rot90_k3": lambda lib, x: lib.rot90(x, -1, (1, 0)),
    "rot90_same_dims": lambda lib, x: lib.rot90(x, 1, (0, 0)),
    "repeat": lambda lib, x: x.repeat(2, *([1] * x.dim())),
    "repeat_same_dims": lambda lib, x: x.repeat(*([2] * x.dim())),
    "repeat_too_few": lambda lib, x: x.repeat(()),
    "repeat_negative": lambda lib, x: x.repeat(-1, *([1] * x.dim())),
    "cat_self": lambda lib, x: lib.cat([x, x], -1 if x.dim() else 0),
    "cat_dim1": lambda lib, x: lib.cat([x, x], 1),
    "stack": lambda lib, x: lib.stack([x, x]),
    "stack_last": lambda lib, x: lib.stack([x, x], -1),
    # In-place views change the metadata of an alias of the input: ``check_op`` runs each
    # case on the same tensors, which must stay as they were.
    "t_": lambda lib, x: _alias(x).t_(),
    "transpose_": lambda lib, x: _alias(x).transpose_(0, -1),
    "squeeze_": lambda lib, x: _alias(x).squeeze_(),
    "squeeze_dim": lambda lib, x: _alias(x).squeeze_(0),
    "squeeze_dims": lambda lib, x: _alias(x).squeeze_((0, -1)),
    "unsqueeze_": lambda lib, x: _alias(x).unsqueeze_(-1),
    "as_strided_": lambda lib, x: _alias(x).as_strided_((2,), (1,)),
}


def _alias(x):
    return x.as_strided(x.shape, x.stride(), x.storage_offset())


@pytest.mark.parametrize("geometry", SELF)
@pytest.mark.parametrize("op", UNARY)
def test_ops_of_one_tensor(op, geometry):
    for dtype in DTYPES:
        _check(UNARY[op], (geometry, dtype))


# --- ops with index tensors -----------------------------------------------------------------

INDEXED = {
    "gather": (lambda lib, x, i: lib.gather(x, 0, i), [("matrix", "float32"), ((2, 4), L)]),
    "gather_transposed": (
        lambda lib, x, i: lib.gather(x, 1, i),
        [("transposed", "int64"), ("transposed", L)],
    ),
    "gather_bad_dtype": (
        lambda lib, x, i: lib.gather(x, 0, i),
        [("matrix", "float32"), ((2, 4), "int16")],
    ),
    "gather_bad_dims": (lambda lib, x, i: lib.gather(x, 0, i), [("matrix", "float32"), ((2,), L)]),
    "gather_too_big": (lambda lib, x, i: lib.gather(x, 0, i), [("matrix", "float32"), ((2, 5), L)]),
    "gather_empty_index": (
        lambda lib, x, i: lib.gather(x, 0, i),
        [("matrix", "float32"), ((0,), "float32")],
    ),
    "gather_scalar": (lambda lib, x, i: lib.gather(x, 0, i), [("scalar", "float32"), ((), L)]),
    "gather_bad_dim": (lambda lib, x, i: lib.gather(x, 2, i), [("matrix", "float32"), ((2, 4), L)]),
    "index_select": (
        lambda lib, x, i: lib.index_select(x, 1, i),
        [("channels_last", "float32"), ((5,), L)],
    ),
    "index_select_transposed": (
        lambda lib, x, i: lib.index_select(x, 0, i),
        [("transposed", "bool"), ((2,), "int32")],
    ),
    "index_select_scalar": (
        lambda lib, x, i: lib.index_select(x, 0, i),
        [("scalar", "float32"), ((1,), L)],
    ),
    "index_select_scalar_bad": (
        lambda lib, x, i: lib.index_select(x, 0, i),
        [("scalar", "float32"), ((2,), L)],
    ),
    "index_select_2d_index": (
        lambda lib, x, i: lib.index_select(x, 0, i),
        [("matrix", "float32"), ((2, 2), L)],
    ),
    "index_select_float_index": (
        lambda lib, x, i: lib.index_select(x, 0, i),
        [("matrix", "float32"), ((2,), "float32")],
    ),
    "index_select_expanded": (
        lambda lib, x, i: lib.index_select(x, 1, i),
        [("expanded", "float32"), ((0,), L)],
    ),
    "take": (lambda lib, x, i: lib.take(x, i), [("transposed", "float32"), ((2, 3), L)]),
    "take_scalar": (lambda lib, x, i: lib.take(x, i), [("scalar", "int64"), ((), L)]),
    "take_int32": (lambda lib, x, i: lib.take(x, i), [("matrix", "float32"), ((2,), "int32")]),
    "take_from_empty": (lambda lib, x, i: lib.take(x, i), [("empty", "float32"), ((2,), L)]),
    "index": (lambda lib, x, i: x[i], [("channels_last", "float32"), ((2, 3), L)]),
    "index_second_dim": (lambda lib, x, i: x[:, i], [("transposed", "float32"), ((2, 1), L)]),
    "index_apart": (lambda lib, x, i: x[i, :, i], [("contiguous", "int64"), ((2,), L)]),
    "index_int32": (lambda lib, x, i: x[i, i], [("transposed", "float32"), ((2, 1), "int32")]),
    "index_float": (lambda lib, x, i: x[i], [("matrix", "float32"), ((2,), "float32")]),
    "index_expanded": (lambda lib, x, i: x[i], [("expanded", "float32"), ((3,), L)]),
    "index_empty": (lambda lib, x, i: x[i], [("empty", "float32"), ((0,), L)]),
}


@pytest.mark.parametrize("op", INDEXED)
def test_ops_with_an_index(op):
    fn, specs = INDEXED[op]
    _check(fn, *specs)


def test_index_broadcast_and_too_many_indices():
    _check(lambda lib, x, i, j: x[i, j], ("matrix", "float32"), ((2, 1), L), ((3,), L))
    _check(lambda lib, x, i, j: x[i, j], ("matrix", "float32"), ((2,), L), ((3,), L))
    _check(lambda lib, x, i: x[i, i, i], ("matrix", "float32"), ((2,), L))


# --- writes: functional and in place ----------------------------------------------------------

WRITES = {
    "scatter": (
        lambda lib, x, i, s: lib.scatter(x, 0, i, s),
        [("transposed", "float32"), ((2, 3), L), ((2, 3), "float32")],
    ),
    "scatter_": (
        lambda lib, x, i, s: x.scatter_(1, i, s),
        [("transposed", "float32"), ((2, 2), L), ((3, 3), "float32")],
    ),
    "scatter_value": (
        lambda lib, x, i: lib.scatter(x, 0, i, 2.0),
        [("channels_last", "float32"), ((1, 2, 2, 2), L)],
    ),
    "scatter_value_": (lambda lib, x, i: x.scatter_(0, i, 2), [("matrix", "int64"), ((2, 2), L)]),
    "scatter_reduce": (
        lambda lib, x, i, s: lib.scatter(x, 0, i, s, reduce="add"),
        [("transposed", "float32"), ((2, 3), L), ((2, 3), "float32")],
    ),
    "scatter_reduce_": (
        lambda lib, x, i, s: x.scatter_(0, i, s, reduce="multiply"),
        [("transposed", "float32"), ((2, 3), L), ((2, 3), "float32")],
    ),
    "scatter_bad_reduce": (
        lambda lib, x, i, s: lib.scatter(x, 0, i, s, reduce="max"),
        [("transposed", "float32"), ((2, 3), L), ((2, 3), "float32")],
    ),
    "scatter_value_reduce": (
        lambda lib, x, i: lib.scatter(x, 0, i, 2.0, reduce="add"),
        [("matrix", "float32"), ((2, 2), L)],
    ),
    "scatter_value_reduce_": (
        lambda lib, x, i: x.scatter_(0, i, 2.0, reduce="multiply"),
        [("transposed", "float32"), ((2, 2), L)],
    ),
    "scatter_dtype": (
        lambda lib, x, i, s: lib.scatter(x, 0, i, s),
        [("matrix", "float32"), ((2, 3), L), ((2, 3), "float64")],
    ),
    "scatter_index_dtype": (
        lambda lib, x, i, s: lib.scatter(x, 0, i, s),
        [("matrix", "float32"), ((2, 3), "int16"), ((2, 3), "float32")],
    ),
    "scatter_too_big": (
        lambda lib, x, i, s: lib.scatter(x, 0, i, s),
        [("matrix", "float32"), ((2, 5), L), ((2, 5), "float32")],
    ),
    "scatter_dims": (
        lambda lib, x, i, s: lib.scatter(x, 0, i, s),
        [("matrix", "float32"), ((2,), L), ((2, 3), "float32")],
    ),
    "scatter_scalar": (
        lambda lib, x, i, s: lib.scatter(x, 0, i, s),
        [("scalar", "float32"), ((), L), ((), "float32")],
    ),
    "scatter_empty": (
        lambda lib, x, i, s: lib.scatter(x, 1, i, s),
        [("empty", "float32"), ((0, 2), L), ((0, 2), "float32")],
    ),
    "scatter_add": (
        lambda lib, x, i, s: lib.scatter_add(x, 0, i, s),
        [("transposed", "float32"), ((2, 3), L), ((2, 3), "float32")],
    ),
    "scatter_add_": (
        lambda lib, x, i, s: x.scatter_add_(0, i, s),
        [("channels_last", "int64"), ((1, 2, 2, 2), L), ((2, 3, 4, 5), "int64")],
    ),
    "scatter_add_bad": (
        lambda lib, x, i, s: x.scatter_add_(0, i, s),
        [("matrix", "float32"), ((2, 3), L), ((2, 3), "int64")],
    ),
    "scatter_reduce_two": (
        lambda lib, x, i, s: lib.scatter_reduce(x, 0, i, s, "mean"),
        [("transposed", "float32"), ((2, 3), L), ((2, 3), "float32")],
    ),
    "scatter_reduce_two_": (
        lambda lib, x, i, s: x.scatter_reduce_(0, i, s, "amax", include_self=False),
        [("transposed", "int64"), ((2, 3), L), ((2, 3), "int64")],
    ),
    "scatter_reduce_bad": (
        lambda lib, x, i, s: lib.scatter_reduce(x, 0, i, s, "max_"),
        [("matrix", "float32"), ((2, 3), L), ((2, 3), "float32")],
    ),
    "scatter_reduce_bool_mean": (
        lambda lib, x, i, s: lib.scatter_reduce(x, 0, i, s, "mean"),
        [("matrix", "bool"), ((2, 3), L), ((2, 3), "bool")],
    ),
    "index_add": (
        lambda lib, x, i, s: lib.index_add(x, 0, i, s, alpha=2),
        [("transposed", "float32"), ((2,), L), ((2, 3), "float32")],
    ),
    "index_add_": (
        lambda lib, x, i, s: x.index_add_(1, i, s),
        [("channels_last", "float32"), ((2,), "int32"), ((2, 2, 4, 5), "float32")],
    ),
    "index_add_scalar": (
        lambda lib, x, i, s: lib.index_add(x, 0, i, s),
        [("scalar", "float32"), ((1,), L), ((), "float32")],
    ),
    "index_add_bad_count": (
        lambda lib, x, i, s: lib.index_add(x, 0, i, s),
        [("matrix", "float32"), ((3,), L), ((2, 4), "float32")],
    ),
    "index_add_bad_shape": (
        lambda lib, x, i, s: lib.index_add(x, 0, i, s),
        [("matrix", "float32"), ((2,), L), ((2, 3), "float32")],
    ),
    "index_add_bad_dtype": (
        lambda lib, x, i, s: lib.index_add(x, 0, i, s),
        [("matrix", "float32"), ((2,), L), ((2, 4), "int64")],
    ),
    "index_copy": (
        lambda lib, x, i, s: lib.index_copy(x, 0, i, s),
        [("transposed", "float32"), ((2,), L), ((2, 3), "float32")],
    ),
    "index_copy_": (
        lambda lib, x, i, s: x.index_copy_(1, i, s),
        [("matrix", "int64"), ((2,), L), ((3, 2), "int64")],
    ),
    "index_copy_int32": (
        lambda lib, x, i, s: lib.index_copy(x, 0, i, s),
        [("matrix", "float32"), ((2,), "int32"), ((2, 4), "float32")],
    ),
    "index_copy_bad": (
        lambda lib, x, i, s: lib.index_copy(x, 0, i, s),
        [("matrix", "float32"), ((2,), L), ((2, 3), "float32")],
    ),
    "index_fill": (
        lambda lib, x, i: lib.index_fill(x, 0, i, 2.0),
        [("transposed", "float32"), ((2,), L)],
    ),
    "index_fill_": (
        lambda lib, x, i: x.index_fill_(1, i, 2),
        [("channels_last", "int64"), ((2,), L)],
    ),
    "index_fill_tensor": (
        lambda lib, x, i, v: lib.index_fill(x, 0, i, v),
        [("transposed", "float32"), ((2,), L), ((), "float32")],
    ),
    "index_fill_tensor_": (
        lambda lib, x, i, v: x.index_fill_(0, i, v),
        [("matrix", "float32"), ((2,), L), ((), "float32")],
    ),
    "index_fill_bad_value": (
        lambda lib, x, i, v: lib.index_fill(x, 0, i, v),
        [("matrix", "float32"), ((2,), L), ((1,), "float32")],
    ),
    "index_fill_int32": (
        lambda lib, x, i: lib.index_fill(x, 0, i, 1),
        [("matrix", "float32"), ((2,), "int32")],
    ),
    "index_fill_complex": (
        lambda lib, x, i: lib.index_fill(x, 0, i, 1j),
        [("matrix", "float32"), ((2,), L)],
    ),
    "index_reduce": (
        lambda lib, x, i, s: lib.index_reduce(x, 0, i, s, "prod"),
        [("transposed", "float32"), ((2,), L), ((2, 3), "float32")],
    ),
    "index_reduce_": (
        lambda lib, x, i, s: x.index_reduce_(0, i, s, "amax", include_self=False),
        [("matrix", "float32"), ((2,), L), ((2, 4), "float32")],
    ),
    "index_reduce_bad": (
        lambda lib, x, i, s: lib.index_reduce(x, 0, i, s, "sum"),
        [("matrix", "float32"), ((2,), L), ((2, 4), "float32")],
    ),
    "masked_fill": (
        lambda lib, x, m: lib.masked_fill(x, m, 2.0),
        [("transposed", "float32"), ((4, 3), "bool")],
    ),
    "masked_fill_broadcast": (
        lambda lib, x, m: lib.masked_fill(x, m, 2.0),
        [("transposed", "float32"), ((2, 4, 3), "bool")],
    ),
    "masked_fill_": (
        lambda lib, x, m: x.masked_fill_(m, 2),
        [("channels_last", "int64"), ((5,), "bool")],
    ),
    "masked_fill_broadcast_": (
        lambda lib, x, m: x.masked_fill_(m, 2),
        [("matrix", "float32"), ((2, 3, 4), "bool")],
    ),
    "masked_fill_tensor": (
        lambda lib, x, m, v: lib.masked_fill(x, m, v),
        [("matrix", "float32"), ((3, 1), "bool"), ((), "float32")],
    ),
    "masked_fill_tensor_": (
        lambda lib, x, m, v: x.masked_fill_(m, v),
        [("transposed", "float32"), ((3,), "bool"), ((), "float32")],
    ),
    "masked_fill_bad_mask": (
        lambda lib, x, m: lib.masked_fill(x, m, 2.0),
        [("matrix", "float32"), ((3, 4), "int64")],
    ),
    "masked_fill_bad_value": (
        lambda lib, x, m, v: lib.masked_fill(x, m, v),
        [("matrix", "float32"), ((3, 4), "bool"), ((2,), "float32")],
    ),
    "masked_scatter": (
        lambda lib, x, m, s: lib.masked_scatter(x, m, s),
        [("transposed", "float32"), ((4, 3), "bool"), ((12,), "float32")],
    ),
    "masked_scatter_": (
        lambda lib, x, m, s: x.masked_scatter_(m, s),
        [("transposed", "float32"), ((3,), "bool"), ((12,), "float32")],
    ),
    "masked_scatter_dtype": (
        lambda lib, x, m, s: lib.masked_scatter(x, m, s),
        [("matrix", "float32"), ((3, 4), "bool"), ((12,), "float64")],
    ),
    "masked_scatter_shape": (
        lambda lib, x, m, s: x.masked_scatter_(m, s),
        [("matrix", "float32"), ((2, 4), "bool"), ((24,), "float32")],
    ),
    "put": (
        lambda lib, x, i, s: lib.put(x, i, s),
        [("transposed", "float32"), ((2,), L), ((2,), "float32")],
    ),
    "put_": (
        lambda lib, x, i, s: x.put_(i, s, True),
        [("channels_last", "int64"), ((2, 2), L), ((4,), "int64")],
    ),
    "put_counts": (
        lambda lib, x, i, s: lib.put(x, i, s),
        [("matrix", "float32"), ((2,), L), ((3,), "float32")],
    ),
    "put_int32": (
        lambda lib, x, i, s: lib.put(x, i, s),
        [("matrix", "float32"), ((2,), "int32"), ((2,), "float32")],
    ),
    "put_empty": (
        lambda lib, x, i, s: lib.put(x, i, s),
        [("empty", "float32"), ((2,), L), ((2,), "float32")],
    ),
    "index_put": (
        lambda lib, x, i, v: lib.index_put(x, (i,), v),
        [("transposed", "float32"), ((2,), L), ((3,), "float32")],
    ),
    "index_put_": (
        lambda lib, x, i, v: x.index_put_((None, i), v, True),
        [("channels_last", "float32"), ((2,), L), ((), "float32")],
    ),
    "setitem": (
        lambda lib, x, i, v: x.__setitem__(i, v) or x,
        [("transposed", "float32"), ((2,), L), ((3,), "float32")],
    ),
}


@pytest.mark.parametrize("op", WRITES)
def test_writes(op):
    fn, specs = WRITES[op]
    _check(fn, *specs)


@pytest.mark.parametrize("op", [op for op in WRITES if op.endswith("_")])
def test_inplace_writes_keep_self(op):
    fn, specs = WRITES[op]
    pairs = _pairs(*specs)
    before = metadata(pairs[0][0])
    result, error = outcome(fn, vg, *[p[0] for p in pairs])
    if error is None:
        assert result is pairs[0][0] and metadata(result) == before


# --- shapes: joining, triangles, diagonals, padding, splitting, searching -------------------


def _pad(lib, name):
    return getattr(torch._C._nn, name) if lib is torch else getattr(_padding, name)


def _backward_op(lib, name):
    return getattr(torch.ops.aten, name) if lib is torch else getattr(_padding, name)


def _grad_input_op(lib, name):
    if lib is torch:
        return getattr(torch.ops.aten, name).grad_input
    return getattr(_padding, name).overloads[f"{name}.grad_input"]


SHAPED = {
    "cat": (lambda lib, x, y: lib.cat([x, y]), [("transposed", "float32"), ((2, 3), "int64")]),
    "cat_channels_last": (
        lambda lib, x, y: lib.cat([x, y], 1),
        [("channels_last", "float32"), ("channels_last", "float32")],
    ),
    "cat_skips_empty": (
        lambda lib, x, y: lib.cat([x, y], 1),
        [("matrix", "bool"), ((0,), "float32")],
    ),
    "cat_bad_shape": (
        lambda lib, x, y: lib.cat([x, y]),
        [("matrix", "float32"), ((2, 3), "float32")],
    ),
    "cat_scalar": (lambda lib, x: lib.cat([x]), [("scalar", "float32")]),
    "stack_bad": (
        lambda lib, x, y: lib.stack([x, y]),
        [("matrix", "float32"), ((4, 3), "float32")],
    ),
    "tril": (lambda lib, x: lib.tril(x, 1), [("channels_last", "float32")]),
    "triu": (lambda lib, x: lib.triu(x, -1), [("transposed", "int64")]),
    "tril_vector": (lambda lib, x: lib.tril(x), [("vector", "float32")]),
    "tril_": (lambda lib, x: x.tril_(), [("transposed", "float32")]),
    "triu_": (lambda lib, x: x.triu_(2), [("expanded", "bool")]),
    "triu_vector_": (lambda lib, x: x.triu_(), [("vector", "float32")]),
    "diag_embed": (lambda lib, x: lib.diag_embed(x, 1, 0, 2), [("transposed", "float32")]),
    "diag_embed_same_dims": (lambda lib, x: lib.diag_embed(x, 0, 1, -2), [("matrix", "float32")]),
    "diagonal_copy": (lambda lib, x: lib.diagonal_copy(x, -1, 3, 1), [("channels_last", "int64")]),
    "diagonal_copy_same_dims": (
        lambda lib, x: lib.diagonal_copy(x, 0, 1, 1),
        [("matrix", "float32")],
    ),
    "block_diag": (
        lambda lib, x, y, z: lib.block_diag(x, y, z),
        [("transposed", "float32"), ((2,), "int64"), ((), "float32")],
    ),
    "block_diag_3d": (lambda lib, x: lib.block_diag(x), [("contiguous", "float32")]),
    "constant_pad_nd": (
        lambda lib, x: lib.constant_pad_nd(x, (1, 2, 0, 1)),
        [("channels_last", "float32")],
    ),
    "constant_pad_nd_crop": (
        lambda lib, x: lib.constant_pad_nd(x, (-1, 0)),
        [("transposed", "float32")],
    ),
    "constant_pad_nd_odd": (lambda lib, x: lib.constant_pad_nd(x, (1,)), [("matrix", "float32")]),
    "constant_pad_nd_negative": (
        lambda lib, x: lib.constant_pad_nd(x, (-5, 0)),
        [("matrix", "float32")],
    ),
    "reflection_pad1d": (
        lambda lib, x: _pad(lib, "reflection_pad1d")(x, (1, 2)),
        [((2, 3, 4), "float32")],
    ),
    "reflection_pad2d": (
        lambda lib, x: _pad(lib, "reflection_pad2d")(x, (1, 2, 0, 1)),
        [("channels_last", "float32")],
    ),
    "reflection_pad2d_too_big": (
        lambda lib, x: _pad(lib, "reflection_pad2d")(x, (5, 2, 0, 1)),
        [("channels_last", "float32")],
    ),
    "reflection_pad3d": (
        lambda lib, x: _pad(lib, "reflection_pad3d")(x, (1, 1, 1, 0, 0, 1)),
        [((1, 2, 3, 4, 5), "float64")],
    ),
    "replication_pad1d": (
        lambda lib, x: _pad(lib, "replication_pad1d")(x, (3, 0)),
        [("transposed", "float32")],
    ),
    "replication_pad2d": (
        lambda lib, x: _pad(lib, "replication_pad2d")(x, (1, 1, 2, 2)),
        [("contiguous", "float32")],
    ),
    "replication_pad3d": (
        lambda lib, x: _pad(lib, "replication_pad3d")(x, (1, 1, 1, 0, 0, 1)),
        [((2, 3, 4, 5), "float32")],
    ),
    "replication_pad2d_bool": (
        lambda lib, x: _pad(lib, "replication_pad2d")(x, (1, 1, 2, 2)),
        [("contiguous", "bool")],
    ),
    "replication_pad1d_bad_dims": (
        lambda lib, x: _pad(lib, "replication_pad1d")(x, (1, 1)),
        [("vector", "float32")],
    ),
    "reflection_pad1d_backward": (
        lambda lib, g, x: _backward_op(lib, "reflection_pad1d_backward")(g, x, (1, 2)),
        [((2, 3, 7), "float32"), ((2, 3, 4), "float32")],
    ),
    "reflection_pad2d_backward": (
        lambda lib, g, x: _backward_op(lib, "reflection_pad2d_backward")(g, x, (1, 2, 0, 1)),
        [((2, 3, 5, 8), "float32"), ("channels_last", "float32")],
    ),
    "replication_pad3d_backward": (
        lambda lib, g, x: _backward_op(lib, "replication_pad3d_backward")(g, x, (1, 1, 1, 0, 0, 1)),
        [((2, 4, 5, 7), "float32"), ((2, 3, 4, 5), "float32")],
    ),
    "narrow_copy": (lambda lib, x: lib.narrow_copy(x, 1, 1, 2), [("transposed", "float32")]),
    "narrow_copy_negative": (
        lambda lib, x: lib.narrow_copy(x, 0, -2, 2),
        [("channels_last", "int64")],
    ),
    "narrow_copy_too_long": (lambda lib, x: lib.narrow_copy(x, 0, 1, 9), [("matrix", "float32")]),
    "unsafe_split": (lambda lib, x: lib.unsafe_split(x, 2, 1)[-1], [("transposed", "float32")]),
    "unsafe_split_with_sizes": (
        lambda lib, x: lib.unsafe_split_with_sizes(x, (1, 2), 1)[1],
        [("channels_last", "float32")],
    ),
    "unsafe_split_bad_sizes": (
        lambda lib, x: lib.unsafe_split_with_sizes(x, (1, 1), 1),
        [("matrix", "float32")],
    ),
    "select_scatter": (
        lambda lib, x, s: lib.select_scatter(x, s, 0, 1),
        [("transposed", "float32"), ((3,), "float32")],
    ),
    "slice_scatter": (
        lambda lib, x, s: lib.slice_scatter(x, s, 1, 0, 3, 2),
        [("channels_last", "float32"), ((2, 2, 4, 5), "float32")],
    ),
    "slice_scatter_bad": (
        lambda lib, x, s: lib.slice_scatter(x, s, 0, 0, 2),
        [("transposed", "float32"), ((3, 3), "float32")],
    ),
    "diagonal_scatter": (
        lambda lib, x, s: lib.diagonal_scatter(x, s, 1),
        [("transposed", "float32"), ((2,), "float32")],
    ),
    "as_strided_scatter": (
        lambda lib, x, s: lib.as_strided_scatter(x, s, (2, 2), (1, 2), 1),
        [("transposed", "float32"), ((2, 2), "float32")],
    ),
    "as_strided_scatter_expanded": (
        lambda lib, x, s: lib.as_strided_scatter(x, s, (2,), (1,)),
        [("expanded", "float32"), ((2,), "float32")],
    ),
    "embedding": (
        lambda lib, w, i: lib.nn.functional.embedding(i, w),
        [("transposed", "float32"), ((2, 3), L)],
    ),
    "embedding_bad_weight": (
        lambda lib, w, i: lib.embedding(w, i),
        [("vector", "float32"), ((2,), L)],
    ),
    "embedding_bad_index": (
        lambda lib, w, i: lib.embedding(w, i),
        [("matrix", "float32"), ((2,), "float32")],
    ),
    "embedding_renorm_": (
        lambda lib, w, i: lib.embedding_renorm_(_alias(w), i, 1.0, 2.0),
        [("transposed", "float32"), ((3,), L)],
    ),
    "isin": (lambda lib, x, y: lib.isin(x, y), [("transposed", "float32"), ((3,), "int64")]),
    "isin_scalar": (lambda lib, x: lib.isin(x, 1), [("channels_last", "int64")]),
    "isin_scalar_tensor": (lambda lib, y: lib.isin(2.0, y), [("transposed", "float32")]),
    "isin_bool": (lambda lib, x, y: lib.isin(x, y), [("matrix", "bool"), ((3,), "bool")]),
    "bucketize": (
        lambda lib, x, b: lib.bucketize(x, b, right=True),
        [("transposed", "float32"), ((4,), "float32")],
    ),
    "bucketize_scalar": (lambda lib, b: lib.bucketize(1.5, b, out_int32=True), [((4,), "float64")]),
    "bucketize_2d": (
        lambda lib, x, b: lib.bucketize(x, b),
        [("matrix", "float32"), ((2, 2), "float32")],
    ),
    "searchsorted": (
        lambda lib, s, x: lib.searchsorted(s, x, side="right"),
        [((4, 5), "float32"), ("transposed", "float32")],
    ),
    "searchsorted_scalar": (lambda lib, s: lib.searchsorted(s, 2), [((5,), "int64")]),
    "searchsorted_sorter": (
        lambda lib, s, x, o: lib.searchsorted(s, x, sorter=o),
        [((5,), "float32"), ("matrix", "float32"), ((5,), L)],
    ),
    "searchsorted_bad_side": (
        lambda lib, s, x: lib.searchsorted(s, x, side="middle"),
        [((5,), "float32"), ("matrix", "float32")],
    ),
    "searchsorted_bad_dims": (
        lambda lib, s, x: lib.searchsorted(s, x),
        [((2, 5), "float32"), ("matrix", "float32")],
    ),
    "histc": (lambda lib, x: lib.histc(x, 7, 0, 1), [("transposed", "float32")]),
    "histc_data_range": (lambda lib, x: lib.histc(x, 3), [("channels_last", "float64")]),
    "histc_int": (lambda lib, x: lib.histc(x, 3, 0, 1), [("matrix", "int64")]),
    "histc_bad_bins": (lambda lib, x: lib.histc(x, 0), [("matrix", "float32")]),
    "histc_bad_range": (lambda lib, x: lib.histc(x, 3, 2, 1), [("matrix", "float32")]),
    "repeat_interleave_output_size": (
        lambda lib, r: lib.repeat_interleave(r, output_size=3),
        [((3,), L)],
    ),
    "repeat_interleave_self": (
        lambda lib, x, r: lib.repeat_interleave(x, r, dim=1, output_size=3),
        [("transposed", "float32"), ((3,), L)],
    ),
    "resize_as_": (
        lambda lib, x, y: _alias(x).resize_as_(y),
        [("matrix", "float32"), ("transposed", "float32")],
    ),
}


@pytest.mark.parametrize("op", SHAPED)
def test_shape_ops(op):
    fn, specs = SHAPED[op]
    _check(fn, *specs)


# --- out= overloads: resized as PyTorch's CPU kernels resize them ---------------------------

OUTS = {
    "gather": (
        lambda lib, x, i, out: lib.gather(x, 1, i, out=out),
        [("transposed", "float32"), ((4, 2), L)],
    ),
    "index_select": (
        lambda lib, x, i, out: lib.index_select(x, 0, i, out=out),
        [("transposed", "float32"), ((5,), L)],
    ),
    "take": (
        lambda lib, x, i, out: lib.take(x, i, out=out),
        [("transposed", "float32"), ((2, 2), L)],
    ),
    "index": (
        lambda lib, x, i, out: (
            torch.ops.aten.index.Tensor_out
            if lib is torch
            else lib.ops.advanced_indexing._index.overloads["index.Tensor_out"]
        )(x, [None, i], out=out),
        [("transposed", "float32"), ((2,), L)],
    ),
    "scatter": (
        lambda lib, x, i, s, out: lib.scatter(x, 0, i, s, out=out),
        [("transposed", "float32"), ((2, 3), L), ((2, 3), "float32")],
    ),
    "scatter_value_reduce": (
        lambda lib, x, i, out: lib.scatter(x, 0, i, 2.0, reduce="add", out=out),
        [("transposed", "float32"), ((2, 3), L)],
    ),
    "scatter_add": (
        lambda lib, x, i, s, out: lib.scatter_add(x, 0, i, s, out=out),
        [("channels_last", "float32"), ((1, 3, 4, 5), L), ((1, 3, 4, 5), "float32")],
    ),
    "scatter_reduce": (
        lambda lib, x, i, s, out: lib.scatter_reduce(x, 0, i, s, "amin", out=out),
        [("transposed", "float32"), ((2, 3), L), ((2, 3), "float32")],
    ),
    "index_add": (
        lambda lib, x, i, s, out: lib.index_add(x, 0, i, s, out=out),
        [("transposed", "float32"), ((2,), L), ((2, 3), "float32")],
    ),
    "index_copy": (
        lambda lib, x, i, s, out: lib.index_copy(x, 0, i, s, out=out),
        [("transposed", "float32"), ((2,), L), ((2, 3), "float32")],
    ),
    "index_reduce": (
        lambda lib, x, i, s, out: lib.index_reduce(x, 0, i, s, "mean", out=out),
        [("transposed", "float32"), ((2,), L), ((2, 3), "float32")],
    ),
    "cat": (
        lambda lib, x, y, out: lib.cat([x, y], 1, out=out),
        [("channels_last", "float32"), ("channels_last", "float32")],
    ),
    "stack": (
        lambda lib, x, y, out: lib.stack([x, y], 1, out=out),
        [("transposed", "float32"), ("transposed", "float32")],
    ),
    "tril": (lambda lib, x, out: lib.tril(x, out=out), [("transposed", "float32")]),
    "triu": (lambda lib, x, out: lib.triu(x, 1, out=out), [("channels_last", "float32")]),
    "tril_vector": (lambda lib, x, out: lib.tril(x, out=out), [("vector", "float32")]),
    "diag": (lambda lib, x, out: lib.diag(x, 1, out=out), [("transposed", "float32")]),
    "diag_vector": (lambda lib, x, out: lib.diag(x, -1, out=out), [("vector", "float32")]),
    "diagonal_copy": (
        lambda lib, x, out: lib.diagonal_copy(x, 0, 0, 2, out=out),
        [("channels_last", "float32")],
    ),
    "narrow_copy": (
        lambda lib, x, out: lib.narrow_copy(x, 1, 0, 2, out=out),
        [("transposed", "float32")],
    ),
    "slice_scatter": (
        lambda lib, x, s, out: lib.slice_scatter(x, s, 0, 1, out=out),
        [("transposed", "float32"), ((3, 3), "float32")],
    ),
    "reflection_pad1d": (
        lambda lib, x, out: _pad(lib, "reflection_pad1d")(x, (1, 2), out=out),
        [("transposed", "float32")],
    ),
    "replication_pad2d": (
        lambda lib, x, out: _pad(lib, "replication_pad2d")(x, (1, 2, 1, 0), out=out),
        [("channels_last", "float32")],
    ),
    "reflection_pad2d_backward": (
        lambda lib, g, x, out: _grad_input_op(lib, "reflection_pad2d_backward")(
            g, x, (1, 2, 0, 1), grad_input=out
        ),
        [((2, 3, 5, 8), "float32"), ("channels_last", "float32")],
    ),
    "isin": (
        lambda lib, x, y, out: lib.isin(x, y, out=out),
        [("transposed", "float32"), ((3,), "float32")],
    ),
    "bucketize": (
        lambda lib, x, b, out: lib.bucketize(x, b, out=out),
        [("transposed", "float32"), ((4,), "float32")],
    ),
    "searchsorted": (
        lambda lib, s, x, out: lib.searchsorted(s, x, out=out),
        [((4,), "float32"), ("transposed", "float32")],
    ),
    "histc": (lambda lib, x, out: lib.histc(x, 4, 0, 1, out=out), [("transposed", "float32")]),
}
_OUT_DTYPES = {"isin": "bool", "bucketize": "int64", "searchsorted": "int64"}


@pytest.mark.parametrize("out", ["empty", "right_shape_transposed", "wrong_dtype"])
@pytest.mark.parametrize("op", OUTS)
def test_out_overloads(op, out):
    """``out`` resized (or kept, with the right shape) as PyTorch's CPU kernel leaves it;
    a wrong dtype refused as there."""
    fn, specs = OUTS[op]
    pairs = _pairs(*specs)
    dtype = _OUT_DTYPES.get(op, "float32")
    t_cpu_result, _ = outcome(
        fn, torch, *[torch_cpu(p[1]) for p in pairs], torch.empty(0, dtype=getattr(torch, dtype))
    )
    shape = (0,) if t_cpu_result is None else tuple(t_cpu_result.shape)
    if out == "empty":
        size, stride = (0,), None
    elif out == "right_shape_transposed":
        size = shape[::-1]
        stride = torch.empty(size).t().stride() if len(size) == 2 else None
        size = shape if len(size) == 2 else size
        if len(shape) != 2:
            size, stride = shape, None
    else:
        size, stride, dtype = (0,), None, "complex64" if dtype != "bool" else "float32"
    v_out, t_out = meta_pair(size, stride, dtype)
    t_cpu_out = torch_cpu(t_out)
    _, t_error = outcome(lambda: fn(torch, *[torch_cpu(p[1]) for p in pairs], t_cpu_out))
    if t_error is not None:
        assert_same_error(lambda: fn(vg, *[p[0] for p in pairs], v_out), lambda: raise_(t_error))
        return
    assert fn(vg, *[p[0] for p in pairs], v_out) is v_out
    assert v_out.is_meta and metadata(v_out) == metadata(t_cpu_out)


def test_structured_out_on_another_device():
    """PyTorch's C++ structured kernels refuse an ``out`` elsewhere in ``set_output``; the
    others, in the Python wrapper that would copy into it."""
    cases = [
        lambda lib, m, c, i: lib.gather(m, 0, i, out=c),
        lambda lib, m, c, i: lib.scatter_add(m, 0, i, m[:2], out=c),
        lambda lib, m, c, i: lib.index_reduce(m, 0, i[0, :2], m[:2], "prod", out=c),
        lambda lib, m, c, i: lib.index_add(m, 0, i[0, :2], m[:2], out=c),
        lambda lib, m, c, i: lib.index_select(m, 0, i[0], out=c),
        lambda lib, m, c, i: lib.cat([m], out=c),
        lambda lib, m, c, i: lib.histc(m, out=c),
    ]
    for fn in cases:
        _check_out_elsewhere(fn)


def _check_out_elsewhere(fn):
    (vm, tm), (vi, ti) = _pairs(("matrix", "float32"), ((2, 4), L))
    assert_same_error(lambda: fn(vg, vm, vg.empty(0), vi),
                      lambda: fn(torch, tm, torch.empty(0), ti))  # fmt: skip


# --- data-dependent shapes: refused as PyTorch's meta device refuses them ---------------------

DATA_DEPENDENT = {
    "nonzero": (lambda lib, x: lib.nonzero(x), [("matrix", "float32")]),
    "nonzero_tuple": (lambda lib, x: lib.nonzero(x, as_tuple=True), [("matrix", "float32")]),
    "nonzero_out": (lambda lib, x, o: lib.nonzero(x, out=o), [("matrix", "float32"), ((0,), L)]),
    "argwhere": (lambda lib, x: lib.argwhere(x), [("transposed", "int64")]),
    "where": (lambda lib, x: lib.where(x), [("transposed", "bool")]),
    "bool_mask": (lambda lib, x, m: x[m], [("matrix", "float32"), ((3, 4), "bool")]),
    "bool_mask_first_dim": (lambda lib, x, m: x[m], [("matrix", "float32"), ((3,), "bool")]),
    "masked_select": (
        lambda lib, x, m: lib.masked_select(x, m),
        [("matrix", "float32"), ((4,), "bool")],
    ),
    "masked_select_out": (
        lambda lib, x, m, o: lib.masked_select(x, m, out=o),
        [("matrix", "float32"), ((4,), "bool"), ((0,), "float32")],
    ),
    "unique": (lambda lib, x: lib.unique(x), [("matrix", "float32")]),
    "unique_dim": (lambda lib, x: lib.unique(x, dim=1), [("matrix", "float32")]),
    "unique_consecutive": (lambda lib, x: lib.unique_consecutive(x), [("matrix", "float32")]),
    "bincount": (lambda lib, x: lib.bincount(x), [((5,), L)]),
    "histogram": (lambda lib, x: lib.histogram(x, 4), [("matrix", "float32")]),
    "histogram_range": (
        lambda lib, x: lib.histogram(x, 4, range=(0.0, 1.0)),
        [("matrix", "float32")],
    ),
    "histogram_edges": (
        lambda lib, x, b: lib.histogram(x, b),
        [("matrix", "float32"), ((4,), "float32")],
    ),
    "histogram_out": (
        lambda lib, x, h, e: lib.histogram(x, 4, out=(h, e)),
        [("matrix", "float32"), ((0,), "float32"), ((0,), "float32")],
    ),
    "histogram_edges_out": (
        lambda lib, x, b, h, e: lib.histogram(x, b, out=(h, e)),
        [("matrix", "float32"), ((4,), "float32"), ((0,), "float32"), ((0,), "float32")],
    ),
    "histogramdd": (lambda lib, x: lib.histogramdd(x, [2, 2]), [((5, 2), "float32")]),
    "repeat_interleave": (lambda lib, r: lib.repeat_interleave(r), [((3,), L)]),
    "repeat_interleave_self": (
        lambda lib, x, r: lib.repeat_interleave(x, r, dim=0),
        [("matrix", "float32"), ((3,), L)],
    ),
}


@pytest.mark.parametrize("op", DATA_DEPENDENT)
def test_data_dependent_shapes_are_refused_as_pytorch_does(op):
    fn, specs = DATA_DEPENDENT[op]
    pairs = _pairs(*specs)
    assert_same_error(lambda: fn(vg, *[p[0] for p in pairs]),
                      lambda: fn(torch, *[p[1] for p in pairs]))  # fmt: skip


def test_meta_nonzero_names_no_option_vizgrad_lacks():
    """PyTorch's message ends by naming a ``torch.fx`` option; vizgrad has none, so its
    message says what to do instead."""
    x = vg.ones(3, device="meta")
    with pytest.raises(NotImplementedError) as raised:
        x[x > 0]
    assert "fx.experimental" not in str(raised.value)
    assert "Call it on a CPU tensor" in str(raised.value)


def test_cpu_index_or_mask_with_a_meta_self():
    """An index on the CPU (values there) beside a meta ``self``: as PyTorch, the plan reads
    the mask's values and the result is on the meta device."""
    v, t = meta_pair((3, 4))
    assert_meta_same(v[vg.tensor([True, False, True])], t[torch.tensor([True, False, True])])
    assert_meta_same(v[vg.tensor([[0, 2]])], t[torch.tensor([[0, 2]])])


# --- autograd through the meta device ---------------------------------------------------------

GRADS = {
    "index_select": lambda lib, x, i: lib.index_select(x, 0, i),
    "gather": lambda lib, x, i: lib.gather(x, 1, i.reshape(2, 1).expand(2, 4)),
    "index": lambda lib, x, i: x[i],
    "take": lambda lib, x, i: lib.take(x, i),
    "scatter": lambda lib, x, i: lib.scatter(x, 0, i.reshape(2, 1).expand(2, 4), 1.0),
    "index_add": lambda lib, x, i: lib.index_add(x, 0, i, x[:2]),
    "index_fill": lambda lib, x, i: lib.index_fill(x, 1, i, 0.0),
    "masked_fill": lambda lib, x, i: lib.masked_fill(x, x > 0, 0.0),
    "cat": lambda lib, x, i: lib.cat([x, x.t().t()]),
    "stack": lambda lib, x, i: lib.stack([x, x], 1),
    "flip_roll_rot90": lambda lib, x, i: lib.rot90(lib.roll(lib.flip(x, (0,)), 1, 1)),
    "repeat": lambda lib, x, i: x.repeat(2, 1),
    "tril_diag_embed": lambda lib, x, i: lib.diag_embed(lib.tril(x)),
    "constant_pad_nd": lambda lib, x, i: lib.constant_pad_nd(x, (1, 1)),
    "reflection_pad": lambda lib, x, i: lib.nn.functional.pad(
        x.unsqueeze(0), (1, 1), mode="reflect"
    ),
    "replication_pad": lambda lib, x, i: lib.nn.functional.pad(
        x.unsqueeze(0), (1, 1), mode="replicate"
    ),
    "slice_scatter": lambda lib, x, i: lib.slice_scatter(x, x[:1] * 2, 0, 0, 1),
    "embedding": lambda lib, x, i: lib.nn.functional.embedding(i, x),
}


@pytest.mark.parametrize("op", GRADS)
def test_backward_on_meta_tensors(op):
    """The gradient of a sum through the operator: PyTorch's meta gradient's metadata."""
    (vx, tx), (vi, ti) = meta_pair((3, 4), requires_grad=True), meta_pair((2,), dtype="int64")
    grads = []
    for lib, x, i in ((vg, vx, vi), (torch, tx, ti)):
        GRADS[op](lib, x, i).sum().backward()
        grads.append(x.grad)
    assert_meta_same(*grads)


# --- a CPU tensor beside a meta one -----------------------------------------------------------

MIXED = {
    "cat": lambda lib, m, c: lib.cat([m, c]),
    "cat_cpu_first": lambda lib, m, c: lib.cat([c, m[:2]]),
    "stack": lambda lib, m, c: lib.stack([m, c]),
    "index_add_": lambda lib, m, c: m.index_add_(0, c[0, :2].long(), m[:2]),
    "index_add": lambda lib, m, c: lib.index_add(m, 0, m[0, :3].long(), c[:2]),
    "masked_fill": lambda lib, m, c: m.masked_fill(c > 0, 1.0),
    "masked_fill_": lambda lib, m, c: m.masked_fill_(c > 0, 1.0),
    "index_select": lambda lib, m, c: lib.index_select(m, 0, c[0, :2].long()),
    "index": lambda lib, m, c: m[c[0, :2].long()],
    "bool_mask": lambda lib, m, c: m[c[:, 0] >= 0],
    "take": lambda lib, m, c: lib.take(m, c.long()),
    "scatter": lambda lib, m, c: lib.scatter(m, 0, c[:2].long(), m[:2]),
    "put_": lambda lib, m, c: m.put_(c[0, :2].long(), m.new_empty(2)),
    "isin": lambda lib, m, c: lib.isin(m, c),
    "select_scatter": lambda lib, m, c: lib.select_scatter(m, c[0], 0, 0),
}


@pytest.mark.parametrize("op", MIXED)
def test_a_cpu_tensor_beside_a_meta_one(op):
    """Refused where PyTorch refuses (the same words), else a meta result like PyTorch's."""
    v, t = meta_pair((3, 4))
    result, error = outcome(MIXED[op], torch, t, torch.zeros(3, 4))
    if error is not None:
        assert_same_error(lambda: MIXED[op](vg, v, vg.zeros(3, 4)), lambda: raise_(error))
        return
    assert_meta_same(MIXED[op](vg, v, vg.zeros(3, 4)), result)


PADS = [f"{kind}_pad{dims}d" for kind in ("reflection", "replication") for dims in (1, 2, 3)]


@pytest.mark.parametrize("name", PADS)
def test_every_pad_and_its_backward_with_out(name):
    """Forward and backward, functional and ``out=``, against PyTorch's CPU layout."""
    dims = int(name[-2])
    size = (2, 3, 4, 5, 6)[: dims + 2]
    padding = (1, 2, 0, 1, 1, 0)[: 2 * dims]
    stride = torch.empty(size).to(memory_format=torch.channels_last).stride() if dims == 2 else None
    ((vx, tx),) = _pairs((size, "float32")) if stride is None else [meta_pair(size, stride)]
    t_cpu = torch_cpu(tx)
    forward = getattr(torch._C._nn, name)
    t_result = forward(t_cpu, padding)
    v_result = getattr(_padding, name)(vx, padding)
    assert v_result.is_meta and metadata(v_result) == metadata(t_result)
    ((vg_out, tg_out),) = _pairs(((0,), "float32"))
    forward(t_cpu, padding, out=torch_cpu(tg_out))
    assert getattr(_padding, name)(vx, padding, out=vg_out) is vg_out
    assert metadata(vg_out) == metadata(forward(t_cpu, padding))
    ((vgrad, tgrad),) = _pairs((tuple(t_result.shape), "float32"))
    backward = getattr(torch.ops.aten, f"{name}_backward")
    t_grad = backward(torch_cpu(tgrad), t_cpu, padding)
    v_grad = getattr(_padding, f"{name}_backward")(vgrad, vx, padding)
    assert v_grad.is_meta and metadata(v_grad) == metadata(t_grad)
    t_in = torch.empty(0)
    backward.grad_input(torch_cpu(tgrad), t_cpu, padding, grad_input=t_in)
    v_in = vg.empty(0, device="meta")
    _grad_input_op(vg, f"{name}_backward")(vgrad, vx, padding, grad_input=v_in)
    assert metadata(v_in) == metadata(t_in)
