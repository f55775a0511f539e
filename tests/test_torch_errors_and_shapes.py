"""Shapes, dims and errors at the edges: 0-dim, empty, size-1 and expanded inputs.

Each test calls the same thing in torch and vizgrad and compares the results (values,
dtype, shape, strides) or the errors (exception class and message): a dim a 0-d tensor
does not have, a view of sizes that do not multiply out, the layout of ``roll``/``flip``/
``cat`` on empty and channels-last inputs, ``sum_to_size`` to ``()``, the shape of
``normal``'s samples, ``broadcast_shapes``, writes through a tensor with no elements,
element counts and storage sizes that overflow int64, dtype arguments of the wrong
type, and the 0-d cases of ``isclose``, ``put``, ``take`` and ``squeeze``'s backward.
"""

import itertools

import pytest
import torch
from oracle import assert_same_error, assert_same_outcome

import vizgrad as vg

LIBS = {"torch": torch, "vg": vg}


def check_call(call, *, lines=1):
    """``call(lib)`` in both libraries: the same result, or the same error.

    ``lines`` of the messages are compared exactly when both raise (PyTorch's messages
    that say more on their second line: ``unflatten got an unexpected error:``).
    """
    assert_same_outcome(lambda: call(vg), lambda: call(torch), message_lines=lines)


def layout(t):
    """What a sampled tensor is, apart from its random values."""
    name = type(t.grad_fn).__name__ if t.grad_fn is not None else None
    return tuple(t.shape), str(t.dtype).split(".")[-1], t.stride(), name


# --- a 0-d tensor has no dim to ask about (``maybe_wrap_dim(..., wrap_scalar=false)``) ----


@pytest.mark.parametrize("dim", [0, -1, 1, -2])
@pytest.mark.parametrize("what", ["size", "stride"])
def test_size_and_stride_of_a_dim_of_a_0d_tensor(what, dim):
    check_call(lambda lib: getattr(lib.tensor(1.0), what)(dim))


@pytest.mark.parametrize("dim", [0, -1, 1, 5])
def test_unbind_of_a_0d_tensor(dim):
    check_call(lambda lib: lib.tensor(1.0).unbind(dim))


UNFLATTEN_SHAPES = [(), (0,), (1,), (6,), (2, 0, 3), (2, 3), (4, 1, 6)]
UNFLATTEN_SIZES = [(), (1,), (-1,), (0,), (2, -1), (-1, -1), (0, -1), (-1, 0), (2, 3), (6,),
                   (-2, -3), (-2, 3), (1, -1, 1), (5, 0), (3,), (1, 1, 1)]  # fmt: skip


@pytest.mark.parametrize("shape", UNFLATTEN_SHAPES)
@pytest.mark.parametrize("dim", [-4, -2, -1, 0, 1, 3])
def test_unflatten_against_torch(shape, dim):
    """Every sizes on every dim: the view, or the error with its second line (the
    "unexpected error" PyTorch wraps: no dims on a 0-d tensor, -1 twice, a negative size)."""
    for sizes in UNFLATTEN_SIZES:
        check_call(lambda lib, sizes=sizes: lib.ones(shape).unflatten(dim, sizes), lines=2)


def test_unflatten_of_a_0d_tensor_is_refused():
    assert_same_error(lambda: vg.tensor(1.0).unflatten(-1, (1,)),
                      lambda: torch.tensor(1.0).unflatten(-1, (1,)))  # fmt: skip


# --- roll, flip, cat and stack: which layout, which error ---------------------------------


def _roll_input(lib, kind):
    return {
        "0d": lambda: lib.tensor(1.0),
        "empty": lambda: lib.empty(0),
        "empty_t": lambda: lib.empty(0, 3).t(),
        "empty_3d": lambda: lib.empty(2, 0, 3).permute(2, 0, 1),
        "size1": lambda: lib.ones(1),
        "transposed": lambda: lib.arange(6.0).reshape(2, 3).t(),
        "expanded": lambda: lib.arange(3.0).expand(2, 3),
        "channels_last": lambda: (
            lib.arange(16.0).reshape(1, 4, 2, 2).contiguous(memory_format=lib.channels_last)
        ),
        "stepped": lambda: lib.arange(12.0).reshape(3, 4).t()[::2],
    }[kind]()


ROLL_INPUTS = ["0d", "empty", "empty_t", "empty_3d", "size1", "transposed", "expanded",
               "channels_last", "stepped"]  # fmt: skip
ROLL_ARGS = [dict(shifts=1), dict(shifts=1, dims=0), dict(shifts=-7, dims=-1),
             dict(shifts=1, dims=1), dict(shifts=1, dims=5), dict(shifts=(1, 2), dims=(0, 1)),
             dict(shifts=(1, 1), dims=(0, 0)), dict(shifts=(1, 2)), dict(shifts=(1, 1), dims=(5, 6)),
             dict(shifts=(), dims=())]  # fmt: skip


@pytest.mark.parametrize("kind", ROLL_INPUTS)
@pytest.mark.parametrize("args", ROLL_ARGS, ids=str)
def test_roll_against_torch(kind, args):
    """A 0-d tensor has no dim to roll along; an empty one is cloned as it is (its strides
    kept, its dims never looked at); otherwise ``cat`` of two pieces lays the result out."""
    check_call(lambda lib: lib.roll(_roll_input(lib, kind), **args))


@pytest.mark.parametrize("kind", ROLL_INPUTS)
@pytest.mark.parametrize("dims", [(), (0,), (-1,), (1,), (0, 1), (0, 0), (5,)], ids=str)
def test_flip_against_torch(kind, dims):
    check_call(lambda lib: lib.flip(_roll_input(lib, kind), dims))


def test_roll_of_an_empty_transposed_tensor_keeps_its_strides():
    assert vg.roll(vg.empty(0, 3).t(), 1, 0).stride() == (1, 3)
    assert vg.flip(vg.empty(0, 3).t(), (0,)).stride() == (1, 3)


@pytest.mark.parametrize("kind", ["transposed", "channels_last", "empty_t"])
def test_roll_backward(kind):
    def call(lib):
        x = _roll_input(lib, kind).clone().requires_grad_()
        y = lib.roll(x, 1, 0)
        (y * lib.arange(float(y.numel())).reshape(y.shape)).sum().backward()
        return y.detach(), x.grad

    check_call(call)


def _channels_last(lib, *size):
    return (
        lib.arange(float(torch.Size(size).numel()))
        .reshape(size)
        .contiguous(memory_format=lib.channels_last)
    )


CAT_CALLS = {
    "both_channels_last": lambda lib: lib.cat([_channels_last(lib, 1, 2, 2, 2)] * 2),
    "along_channels": lambda lib: lib.cat([_channels_last(lib, 1, 2, 2, 2)] * 2, 1),
    "along_width": lambda lib: lib.cat([_channels_last(lib, 1, 2, 2, 2)] * 2, 3),
    "one_contiguous": lambda lib: lib.cat([_channels_last(lib, 1, 2, 2, 2), lib.ones(1, 2, 2, 2)]),
    "with_skipped_empty": lambda lib: lib.cat([_channels_last(lib, 1, 2, 2, 2), lib.empty(0)]),
    "single": lambda lib: lib.cat([_channels_last(lib, 1, 2, 2, 2)]),
    "promoted": lambda lib: lib.cat(
        [_channels_last(lib, 1, 2, 2, 2).double(), _channels_last(lib, 1, 2, 2, 2)]
    ),
    "size1_channel": lambda lib: lib.cat(
        [lib.ones(2, 1, 2, 2).as_strided((2, 1, 2, 2), (4, 1, 2, 1))] * 2
    ),
    "size1_spatial": lambda lib: lib.cat([_channels_last(lib, 2, 3, 1, 1)] * 2),
    "no_elements": lambda lib: lib.cat([_channels_last(lib, 0, 2, 2, 2)] * 2),
    "permuted_5d": lambda lib: lib.cat([lib.ones(1, 2, 2, 2, 3).permute(0, 4, 1, 2, 3)] * 2),
    "transposed_2d": lambda lib: lib.cat([lib.ones(3, 4).t()] * 2),
    "stepped_channels_last": lambda lib: lib.cat([_channels_last(lib, 2, 3, 2, 5)[..., ::2]] * 2),
    "expanded": lambda lib: lib.cat([_channels_last(lib, 1, 2, 2, 2).expand(3, 2, 2, 2)] * 2),
    "stack_dim0": lambda lib: lib.stack([_channels_last(lib, 1, 2, 2, 2)] * 2),
    "stack_dim1": lambda lib: lib.stack([_channels_last(lib, 1, 2, 2, 2)] * 2, 1),
    "stack_last": lambda lib: lib.stack([_channels_last(lib, 1, 2, 2, 2)] * 2, -1),
    "stack_transposed": lambda lib: lib.stack([lib.ones(3, 4).t()] * 3, 1),
    "stack_0d": lambda lib: lib.stack([lib.tensor(1.0)] * 2),
    "hstack": lambda lib: lib.hstack([_channels_last(lib, 1, 2, 2, 2)] * 2),
}


@pytest.mark.parametrize("name", CAT_CALLS)
def test_cat_keeps_the_inputs_suggested_memory_format(name):
    """``cat``'s output is channels-last when every input suggests it, else contiguous."""
    check_call(CAT_CALLS[name])


def test_cat_of_channels_last_inputs_is_channels_last():
    x = vg.ones(1, 2, 2, 2).contiguous(memory_format=vg.channels_last)
    assert vg.cat([x, x]).stride() == (8, 1, 4, 2)


def test_stack_of_channels_last_inputs_backward():
    def call(lib):
        x = _channels_last(lib, 1, 2, 2, 2).requires_grad_()
        y = lib.stack([x, x * 2], 1)
        (y * lib.arange(float(y.numel())).reshape(y.shape)).sum().backward()
        return y.detach(), x.grad, y.grad_fn.name()

    check_call(call)


# --- sum_to_size: ``at::sum_to`` ----------------------------------------------------------


SUM_TO = [((2, 3), (2, 3)), ((2, 3), (1, 3)), ((2, 3), (3,)), ((), ()), ((2, 3), ()),
          ((0, 3), (0, 3)), ((0, 3), (1, 3)), ((2, 3), (2, 1)), ((1, 3), (1, 3)),
          ((2, 3), (1,)), ((3,), (1, 1)), ((2, 3), (2, 2)), ((2, 3), (4, 2, 3))]  # fmt: skip


@pytest.mark.parametrize("dtype", ["bool", "int8", "float32"])
@pytest.mark.parametrize(("shape", "target"), SUM_TO, ids=str)
def test_sum_to_size_against_torch(shape, target, dtype):
    """Nothing to sum: the tensor itself. To ``()``: ``sum()``, a new tensor of sum's dtype
    (int64 for bool and int8), even from a 0-d tensor."""

    def call(lib):
        x = lib.ones(shape, dtype=getattr(lib, dtype))
        result = x.sum_to_size(target)
        return result, result is x

    check_call(call)


@pytest.mark.parametrize(("shape", "target"), SUM_TO[:11], ids=str)
def test_sum_to_size_records_what_torch_records(shape, target):
    def call(lib):
        x = lib.ones(shape, requires_grad=True)
        result = x.sum_to_size(target)
        name = type(result.grad_fn).__name__ if result.grad_fn is not None else None
        return result.detach(), result is x, str(name)

    check_call(call)


# --- normal: the shape and layout of the samples --------------------------------------------


NORMAL_SHAPES = [(), (0,), (1,), (0, 3), (2, 3)]


def _normal_call(kind, mean_shape, std_shape, out_shape, requires_grad):
    def call(lib):
        mean = lib.zeros(mean_shape, requires_grad=requires_grad)
        std = lib.ones(std_shape, requires_grad=requires_grad)
        kwargs = {} if out_shape is None else {"out": lib.empty(out_shape)}
        if kind == "Tensor_Tensor":
            return layout(lib.normal(mean, std, **kwargs))
        if kind == "Tensor_float":
            return layout(lib.normal(mean, 2.0, **kwargs))
        return layout(lib.normal(1.0, std, **kwargs))

    return call


@pytest.mark.parametrize("kind", ["Tensor_Tensor", "Tensor_float", "float_Tensor"])
@pytest.mark.parametrize(("mean_shape", "std_shape"),
                         list(itertools.product(NORMAL_SHAPES, NORMAL_SHAPES)), ids=str)  # fmt: skip
@pytest.mark.parametrize("out_shape", [None, (0,), (2, 2), ()], ids=str)
def test_normal_shapes_against_torch(kind, mean_shape, std_shape, out_shape):
    """0-d mean and std give 0-d samples; ``normal(Tensor mean, float std, out=)``
    broadcasts ``mean`` with ``out``'s own shape, as PyTorch does."""
    check_call(_normal_call(kind, mean_shape, std_shape, out_shape, False))


@pytest.mark.parametrize("kind", ["Tensor_Tensor", "Tensor_float", "float_Tensor"])
@pytest.mark.parametrize("shape", NORMAL_SHAPES, ids=str)
def test_normal_records_its_node_at_every_shape(kind, shape):
    check_call(_normal_call(kind, shape, shape, None, True))


def test_normal_of_0d_tensors_is_0d():
    assert vg.normal(vg.tensor(0.0), vg.tensor(1.0)).shape == ()


NORMAL_ERRORS = {
    "complex_std": lambda lib: lib.normal(lib.zeros(2), lib.ones(2, dtype=lib.complex64)),
    "complex_std_float_mean": lambda lib: lib.normal(0.0, lib.ones(2, dtype=lib.complex64)),
    "negative_std_long_mean": lambda lib: lib.normal(lib.zeros(2, dtype=lib.long), -lib.ones(2)),
    "long_out": lambda lib: lib.normal(lib.zeros(2), lib.ones(2), out=lib.empty(0, dtype=lib.long)),
    "long_out_float_mean": lambda lib: lib.normal(0.0, lib.ones(2), out=lib.empty(0, dtype=lib.long)),
    "expanded_out": lambda lib: lib.normal(lib.zeros(2), lib.ones(2), out=lib.zeros(1).expand(2)),
    "out_mismatch": lambda lib: lib.normal(lib.zeros(2, 3), 1.0, out=lib.empty(3, 2)),
    "empty_out_mismatch": lambda lib: lib.normal(lib.zeros(2), 1.0, out=lib.empty(0)),
    "normal__long_negative": lambda lib: lib.zeros(2, dtype=lib.long).normal_(0, -1),
    "size_out_long_negative": lambda lib: lib.normal(0.0, -1.0, (3,), out=lib.empty(2, dtype=lib.long)),
    "size_out_negative_size": lambda lib: lib.normal(0.0, 1.0, (-3,), out=lib.empty(2)),
    "complex_mean": lambda lib: lib.normal(lib.zeros(2, dtype=lib.complex64), lib.ones(2)),
    "complex_mean_float_out": lambda lib: lib.normal(lib.zeros(2, dtype=lib.complex64), 2.0, out=lib.empty(2)),
    "float64_out": lambda lib: lib.normal(lib.zeros(2), 2.0, out=lib.empty(2, dtype=lib.float64)),
    "transposed_out": lambda lib: lib.normal(lib.zeros(3, 2).t(), 2.0, out=lib.empty(3, 2).t()),
}  # fmt: skip


@pytest.mark.parametrize("name", NORMAL_ERRORS)
def test_normal_checks_in_torchs_order(name):
    check_call(lambda lib: _layout_or_value(NORMAL_ERRORS[name](lib)))


def _layout_or_value(result):
    return layout(result) if hasattr(result, "stride") else result


@pytest.mark.parametrize("shape", [(), (0,), (2, 3)], ids=str)
@pytest.mark.parametrize("name", ["rand_like", "randn_like", "bernoulli"])
def test_sampling_like_keeps_0d_and_empty(name, shape):
    check_call(lambda lib: layout(getattr(lib, name)(lib.zeros(shape))))


# --- broadcast_shapes, and the broadcasting error of operators ------------------------------


BROADCAST_SHAPES = [
    (2, (3, 1)), ((2,), (3, 1), (1, 1, 1)), (), ((2,),), ((),), (None, (2,)), ((), 3),
    ([2], [3]), ((2,), [3]), ((3,), (2, 1, 1), (4,)), ((2, 3), (4, 3)), ((0,), (2,)),
    ((0,), (1,)), ((-1,),), ((-1,), (3,)), ((2.0,),), ((2.5,), (1,)), ("a",), (2.0,),
    ((True,),), (vg.Size([2, 1]), (3,)),
]  # fmt: skip


@pytest.mark.parametrize("shapes", BROADCAST_SHAPES, ids=str)
def test_broadcast_shapes_against_torch(shapes):
    """A ``Size``, from ints or sequences of them, with ``torch.broadcast_shapes``' own
    errors (the dim counted from the right, the argument's index; a negative size is a
    ``ValueError``)."""

    def call(lib):
        converted = [torch.Size(s) if lib is torch and isinstance(s, vg.Size) else s
                     for s in shapes]  # fmt: skip
        result = lib.broadcast_shapes(*converted)
        assert isinstance(result, lib.Size)
        return tuple(result)

    check_call(call)


def test_broadcast_shapes_takes_an_int():
    assert vg.broadcast_shapes(2, (3, 1)) == vg.Size([3, 2])
    assert isinstance(vg.broadcast_shapes(2, (3, 1)), vg.Size)


@pytest.mark.parametrize(
    "shapes",
    [((2, 3), (3, 2)), ((3,), (4,)), ((2, 1, 3), (5, 1)), ((0,), (2,)), ((2, 3), (4, 2, 2))],
    ids=str,
)
def test_operators_report_the_rightmost_mismatch(shapes):
    """``at::infer_size``: tensor a and b of the pair, the rightmost dim that disagrees."""
    check_call(lambda lib: lib.ones(shapes[0]) + lib.ones(shapes[1]))
    check_call(lambda lib: lib.where(lib.ones(shapes[0], dtype=lib.bool), lib.ones(shapes[1]), 0.0))


def test_three_operands_broadcast_pairwise():
    check_call(lambda lib: lib.where(lib.ones(3, dtype=lib.bool), lib.ones(4), lib.ones(2, 1, 1)))
    check_call(lambda lib: lib.addcmul(lib.ones(3), lib.ones(2, 1, 1), lib.ones(4)))


# --- writing through a tensor with no elements: nothing overlaps -----------------------------


EMPTY_WRITES = {
    "add_": lambda x, lib: x.add_(1),
    "mul_": lambda x, lib: x.mul_(lib.ones(2)),
    "copy_": lambda x, lib: x.copy_(lib.ones(2)),
    "fill_": lambda x, lib: x.fill_(1.0),
    "zero_": lambda x, lib: x.zero_(),
    "normal_": lambda x, lib: x.normal_(),
    "uniform_": lambda x, lib: x.uniform_(),
    "index_fill_": lambda x, lib: x.index_fill_(0, lib.tensor([], dtype=lib.long), 1.0),
    "masked_fill_": lambda x, lib: x.masked_fill_(lib.ones(2, dtype=lib.bool), 1.0),
    "out": lambda x, lib: lib.add(lib.ones(3, 0, 2), 1, out=x),
    "clamp_": lambda x, lib: x.clamp_(0, 1),
}


@pytest.mark.parametrize("name", EMPTY_WRITES)
@pytest.mark.parametrize("size", [(3, 0, 2), (0, 3, 2)], ids=str)
def test_an_expanded_tensor_with_no_elements_may_be_written(name, size):
    def call(lib):
        x = lib.zeros(1, 2).expand(*size)
        return EMPTY_WRITES[name](x, lib)

    check_call(call)


@pytest.mark.parametrize("name", ["add_", "copy_", "fill_", "normal_", "out"])
def test_an_expanded_tensor_with_elements_is_still_refused(name):
    def call(lib):
        x = lib.zeros(1, 2).expand(3, 2)
        if name == "out":
            return lib.add(lib.ones(3, 2), 1, out=x)
        return EMPTY_WRITES[name](x, lib)

    check_call(call)


# --- element counts and storage sizes that overflow int64; negative sizes -------------------


H = 2**62
OVERFLOWING = [
    f"lib.zeros({H})", f"lib.empty({H})", f"lib.ones({H}, dtype=lib.float64)",
    "lib.ones(2**60, dtype=lib.float64)", "lib.empty(2**40, 2**40)", "lib.empty(2**31, 2**31, 2)",
    f"lib.full(({H},), 1.0)", f"lib.arange({H}.0)", f"lib.randn({H})", f"lib.rand({H})",
    f"lib.randint(3, ({H},))", f"lib.randperm({H})", f"lib.linspace(0, 1, {H})",
    f"lib.eye({H})", "lib.eye(2**31)", f"lib.empty_strided(({H},), (1,))",
    f"lib.empty_strided((2, {H}), ({H}, 1))", f"lib.zeros(1).new_zeros({H})",
    f"lib.zeros(1).new_empty({H})", f"lib.zeros(1).new_full(({H},), 2.0)",
    f"lib.zeros({H}, out=lib.empty(0))", f"lib.empty(0).resize_({H})",
    f"lib.empty({H}, dtype=lib.complex128)", f"lib.zeros(1).repeat({H})",
    f"lib.zeros(3).expand({H}, 3)", f"lib.zeros(3).expand({H}, 3) + 1",
    f"lib.tensor(1.0).expand({H}, {H})",
]  # fmt: skip


@pytest.mark.parametrize("call", OVERFLOWING)
def test_sizes_that_overflow_int64_are_refused_before_allocating(call):
    """``Storage size calculation overflowed with sizes=[...]`` (bytes past int64), or
    ``numel: integer multiplication overflow`` (elements past int64), never NumPy's."""
    assert_same_error(lambda: eval(call, {"lib": vg}), lambda: eval(call, {"lib": torch}))  # noqa: S307


def test_a_size_that_fits_but_cannot_be_had_is_the_allocators_error():
    vg_error, _ = assert_same_error(lambda: vg.ones(10**12), lambda: torch.ones(10**12))
    assert "DefaultCPUAllocator: can't allocate memory" in str(vg_error)


NEGATIVE = [
    "lib.zeros(-3)", "lib.zeros(2, -3)", "lib.ones(-3)", "lib.empty(-3)", "lib.full((-3,), 1.0)",
    "lib.rand(-3)", "lib.randn(2, -3)", "lib.randint(3, (-3,))", "lib.normal(0.0, 1.0, (-3,))",
    "lib.zeros(1).new_zeros(-3)", "lib.empty_strided((-3,), (1,))", "lib.randperm(-3)",
    "lib.zeros((-3,), out=lib.empty(2))", "lib.ones((-3,), out=lib.empty(2))",
    "lib.empty((-3,), out=lib.empty(2))", "lib.full((-3,), 1.0, out=lib.empty(2))",
    "lib.rand((-3,), out=lib.empty(2))", "lib.randperm(-3, out=lib.empty(2, dtype=lib.long))",
    "lib.empty(2).resize_(-3)", "lib.empty(2).resize_(-3, 0)", "lib.empty(2).resize_(0, -3)",
    "lib.zeros((-3, 0), out=lib.empty(2))",
    "lib.empty(2, memory_format=lib.contiguous_format, out=lib.empty(0))",
    "lib.ones(3).expand(-2, 3)", "lib.ones(3).expand(3, -2)", "lib.ones(3).expand(-1, 3)",
    "lib.ones(3).expand(-2, -1)", "lib.ones(0).expand(-2, 0)", "lib.tensor(1.0).expand(-1)",
    "lib.tensor(1.0).expand(-1, 0)", "lib.tensor(1.0).expand(2, -1, 3)",
]  # fmt: skip


@pytest.mark.parametrize("call", NEGATIVE)
def test_negative_sizes_against_torch(call):
    """Each factory's own check, ``resize_``'s count of elements for ``out=``, and
    ``expand``'s new dims, checked by the count of the view's elements."""
    check_call(lambda lib: _shape_of(eval(call, {"lib": lib})))  # noqa: S307


def _shape_of(t):
    return tuple(t.shape), t.stride()


# --- dtype arguments are parsed as PyTorch parses them --------------------------------------


TYPE_CALLS = [
    "lib.promote_types(lib.float32, 'x')", "lib.promote_types('x', lib.float32)",
    "lib.promote_types(None, lib.float32)", "lib.promote_types(lib.float32, 1)",
    "lib.promote_types(lib.float32)", "lib.promote_types(lib.float32, lib.int8, lib.int8)",
    "lib.promote_types(type1=lib.uint8, type2=lib.int8)", "lib.promote_types(lib.float32, lib.float64)",
    "lib.can_cast(lib.float32, 'x')", "lib.can_cast(from_=lib.float32, to=lib.int8)",
    "lib.can_cast(lib.int8, lib.float32)",
]  # fmt: skip


@pytest.mark.parametrize("call", TYPE_CALLS)
def test_dtype_arguments_against_torch(call):
    check_call(lambda lib: str(eval(call, {"lib": lib})).split(".")[-1])  # noqa: S307


# --- 0-d inputs of isclose, put, take and squeeze, forward and backward ----------------------


CLOSE_SHAPES = [((), ()), ((), (3,)), ((0,), ()), ((0,), (0,)), ((1,), ()), ((2, 1), (3,))]


@pytest.mark.parametrize(("a", "b"), CLOSE_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "complex64"])
def test_isclose_and_allclose_against_torch(a, b, dtype):
    check_call(lambda lib: lib.isclose(lib.ones(a, dtype=getattr(lib, dtype)),
                                       lib.ones(b, dtype=getattr(lib, dtype))))  # fmt: skip
    check_call(lambda lib: lib.allclose(lib.ones(a, dtype=getattr(lib, dtype)),
                                        lib.ones(b, dtype=getattr(lib, dtype))))  # fmt: skip


def test_allclose_of_0d_tensors():
    assert vg.allclose(vg.tensor(1.0), vg.tensor(1.0))


def _index(lib, kind):
    return {
        "0d": lambda: lib.tensor(0),
        "1d": lambda: lib.tensor([0, -1, 0]),
        "empty": lambda: lib.tensor([], dtype=lib.long),
        "out_of_range": lambda: lib.tensor([3]),
        "float": lambda: lib.tensor([0.0]),
    }[kind]()


INDEX_KINDS = ["0d", "1d", "empty", "out_of_range", "float"]


@pytest.mark.parametrize("shape", [(), (1,), (3,), (0,), (2, 3)], ids=str)
@pytest.mark.parametrize("kind", INDEX_KINDS)
def test_take_and_its_backward(shape, kind):
    def call(lib):
        x = lib.arange(1.0, 1.0 + torch.Size(shape).numel()).reshape(shape).requires_grad_()
        y = lib.take(x, _index(lib, kind))
        (y * 2).sum().backward()
        return y.detach(), x.grad, y.grad_fn.name()

    check_call(call)


@pytest.mark.parametrize("shape", [(), (1,), (3,), (0,)], ids=str)
@pytest.mark.parametrize("kind", INDEX_KINDS)
@pytest.mark.parametrize("accumulate", [False, True])
def test_put_and_its_backward(shape, kind, accumulate):
    def call(lib):
        x = lib.zeros(shape).requires_grad_()
        index = _index(lib, kind)
        source = (lib.arange(1.0, 1.0 + index.numel()).reshape(index.shape)).requires_grad_()
        y = lib.put(x * 1, index, source * 2, accumulate=accumulate)
        (y * 3).sum().backward()
        return y.detach(), x.grad, source.grad, y.grad_fn.name()

    check_call(call)


PUT_ERRORS = [
    "lib.zeros(1).expand(3).put_(lib.tensor([0]), lib.ones(1))",
    "lib.zeros(1).expand(3).put_(lib.tensor([0.0]), lib.ones(1))",
    "lib.zeros(1).expand(3).put_(lib.tensor([0]), lib.ones(1, dtype=lib.long))",
    "lib.zeros(1).expand(3).put_(lib.tensor([0]), lib.ones(2))",
    "lib.zeros(0).put_(lib.tensor([0]), lib.ones(1))",
    "lib.zeros(0).expand(3, 0).put_(lib.tensor([0]), lib.ones(1))",
    "lib.zeros(()).put_(lib.tensor([0, 0, -1]), lib.tensor([1.0, 2.0, 3.0]))",
    "lib.zeros(()).put_(lib.tensor([0, 0, -1]), lib.tensor([1.0, 2.0, 3.0]), accumulate=True)",
    "lib.zeros(3, 2).t().put_(lib.tensor([[0], [5]]), lib.tensor([1.0, 2.0]))",
    "lib.take(lib.zeros(2), lib.tensor(1), out=lib.empty(0, dtype=lib.long))",
    "lib.take(lib.zeros(2), lib.tensor([[1]]), out=lib.empty(3))",
    "lib.take(lib.zeros(2), lib.tensor([1, 0]), out=lib.empty(1).expand(2))",
    "lib.take(lib.zeros(2), lib.tensor([1.0]), out=lib.empty(1, dtype=lib.long))",
]


@pytest.mark.parametrize("call", PUT_ERRORS)
def test_put_and_take_checks_in_torchs_order(call):
    check_call(lambda lib: eval(call, {"lib": lib}))  # noqa: S307


@pytest.mark.parametrize("shape", [(), (1,), (3,), (1, 2, 1), (0,)], ids=str)
@pytest.mark.parametrize("dim", [None, 0, -1, (0,), (), (0, -1), 2])
@pytest.mark.parametrize("inplace", [False, True])
def test_squeeze_and_its_backward(shape, dim, inplace):
    def call(lib):
        x = lib.ones(shape).requires_grad_()
        y = x * 2
        args = () if dim is None else (dim,)
        z = y.squeeze_(*args) if inplace else y.squeeze(*args)
        (z * 3).sum().backward()
        return z.detach(), x.grad, z.grad_fn.name()

    check_call(call)


@pytest.mark.parametrize(
    "call",
    ["lib.topk(lib.tensor(1.0), 1)", "lib.topk(lib.tensor(3.0), 0, largest=False)",
     "lib.topk(lib.tensor(1.0), 2)", "lib.tensor(2.0).topk(1, dim=-1)"],
)  # fmt: skip
def test_topk_of_a_0dim_tensor_is_the_tensor_itself(call):
    def outcome(lib):
        try:
            values, indices = eval(call, {"lib": lib})  # noqa: S307
        except RuntimeError as error:
            return str(error)
        return values.item(), indices.item(), values.dim(), str(indices.dtype).split(".")[-1]

    assert outcome(vg) == outcome(torch)


def test_a_view_as_the_same_dtype_is_an_alias_autograd_does_not_see():
    """``view.dtype`` is ``output_differentiability: [False]``: for its own dtype, the
    same memory and version counter, no ``_base``, no history."""
    seen = []
    for lib in (torch, vg):
        leaf = lib.ones(2, requires_grad=True)
        alias = leaf.view(lib.float32)
        plain = lib.ones(2)
        plain.view(lib.float32).add_(1)
        seen.append((alias.grad_fn, alias._base, alias.requires_grad, alias._is_view(),
                     plain.tolist(), plain._version))  # fmt: skip
    assert seen[0] == seen[1]
