"""The sparse COO layout against PyTorch: construction, parts, coalescing, conversions,
the SparseCPU kernels, their gradients, printing, errors and the dispatch trace."""

import io
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch
from oracle import assert_same, assert_same_error

import vizgrad as vg

# PyTorch warns once that invariant checks are off; the tests that compare that warning
# say so, the others silence it in both libraries.
pytestmark = [
    pytest.mark.filterwarnings("ignore:Sparse invariant checks"),
    # torch.mm of two sparse COO matrices goes through its beta CSR layout, and says so.
    pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta"),
]

# (indices, values, size): the cases every comparison runs on.
CASES = {
    "coalesced": ([[0, 1, 1], [0, 0, 2]], [3.0, 4.0, 5.0], (2, 3)),
    "unsorted": ([[1, 0, 1], [2, 2, 0]], [3.0, 4.0, 5.0], (2, 3)),
    "duplicates": ([[0, 0, 1], [1, 1, 0]], [1.0, 2.0, 3.0], (2, 3)),
    "empty": (np.zeros((2, 0), dtype=np.int64), np.zeros(0, dtype=np.float32), (2, 3)),
    "hybrid": ([[0, 2, 0]], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], (3, 2)),
    "scalar": (np.zeros((0, 1), dtype=np.int64), [5.0], ()),
    "one": ([[1], [2]], [7.0], (2, 3)),
}


def sparse_pair(name, **options):
    indices, values, size = CASES[name]
    v = vg.sparse_coo_tensor(vg.tensor(np.asarray(indices)), vg.tensor(np.asarray(values, dtype=np.float32)),
                             size, **options)  # fmt: skip
    t = torch.sparse_coo_tensor(torch.tensor(np.asarray(indices)),
                                torch.tensor(np.asarray(values, dtype=np.float32)), size,
                                **{k: (getattr(torch, str(o).split(".")[-1]) if isinstance(o, vg.dtype) else o)
                                   for k, o in options.items()})  # fmt: skip
    return v, t


def assert_same_sparse(v, t):
    """The same sparse tensor: layout, size, dtype, flag, parts (as stored) and printout."""
    assert t.layout == torch.sparse_coo and v.layout is vg.sparse_coo
    assert v.is_sparse and t.is_sparse
    assert tuple(v.shape) == tuple(t.shape)
    assert v.dtype.name == str(t.dtype).split(".")[-1]
    assert v.is_coalesced() == t.is_coalesced()
    assert (v._nnz(), v.sparse_dim(), v.dense_dim()) == (t._nnz(), t.sparse_dim(), t.dense_dim())
    assert_same(v._indices(), t._indices(), check_stride=False)
    assert_same(v._values(), t._values(), check_stride=False)
    assert repr(v) == repr(t).replace("torch.", "vizgrad.")


@pytest.mark.parametrize("name", CASES)
def test_construction_parts_and_printing(name):
    assert_same_sparse(*sparse_pair(name))


@pytest.mark.parametrize("name", CASES)
def test_dense_form_and_coalesce(name):
    v, t = sparse_pair(name)
    assert_same(v.to_dense(), t.to_dense())
    assert_same_sparse(v.coalesce(), t.coalesce())
    assert_same(v.coalesce().indices(), t.coalesce().indices(), check_stride=False)
    assert_same(v.coalesce().values(), t.coalesce().values(), check_stride=False)
    if not t.is_coalesced():
        assert_same_error(v.indices, t.indices)
        assert_same_error(v.values, t.values)
    else:
        assert v.coalesce() is v


def test_inferred_size_dtype_flags_and_requires_grad():
    for options in ({}, {"dtype": vg.float64}, {"is_coalesced": True}, {"requires_grad": True}):
        torch_options = {k: (torch.float64 if k == "dtype" else o) for k, o in options.items()}
        if options.get("requires_grad"):  # int64 values
            assert_same_error(
                lambda o=options: vg.sparse_coo_tensor([[1, 0], [2, 0]], [1, 2], **o),
                lambda o=torch_options: torch.sparse_coo_tensor([[1, 0], [2, 0]], [1, 2], **o),
            )
            continue
        v = vg.sparse_coo_tensor([[1, 0], [2, 0]], [1, 2], **options)
        assert_same_sparse(v, torch.sparse_coo_tensor([[1, 0], [2, 0]], [1, 2], **torch_options))
    v, t = sparse_pair("coalesced", requires_grad=True)
    assert repr(v) == repr(t).replace("torch.", "vizgrad.")
    assert v.requires_grad and v.is_leaf
    assert str(v.device) == str(t.device) == "cpu" and v.is_cpu and not v.is_meta


def test_invariants_warning_is_pytorchs_and_given_once():
    # PyTorch warns once per process, so its warning is read in a process of its own.
    script = (
        "import warnings, torch\nwith warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    torch.sparse_coo_tensor([[0]], [1.0], (2,))\n"
        "    torch.sparse_coo_tensor([[0]], [1.0], (2,))\n"
        "print(len(w)); print(w[0].message)"
    )
    count, torch_message = subprocess.run([sys.executable, "-c", script], capture_output=True,
                                          text=True, check=True).stdout.split("\n", 1)  # fmt: skip
    vg.ops.sparse_coo._warned_invariants[0] = False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vg.sparse_coo_tensor([[0]], [1.0], (2,))
        vg.sparse_coo_tensor([[0]], [1.0], (2,))
        vg.sparse_coo_tensor([[0]], [1.0], (2,), check_invariants=False)
    assert len(caught) == int(count) == 1
    assert torch_message.startswith(str(caught[0].message).strip())


BAD_CONSTRUCTIONS = [
    (
        lambda lib: lib.sparse_coo_tensor(
            lib.tensor([[0, 5]]), lib.tensor([1.0, 2.0]), (3,), check_invariants=True
        )
    ),  # fmt: skip
    (
        lambda lib: lib.sparse_coo_tensor(
            lib.tensor([[0, -1]]), lib.tensor([1.0, 2.0]), (3,), check_invariants=True
        )
    ),  # fmt: skip
    lambda lib: lib.sparse_coo_tensor(lib.tensor([[0, -1]]), lib.tensor([1.0, 2.0])),
    lambda lib: lib.sparse_coo_tensor(lib.tensor([0, 1]), lib.tensor([1.0, 2.0]), (3,)),
    lambda lib: lib.sparse_coo_tensor(lib.tensor([0, 1]), lib.tensor([1.0, 2.0])),
    lambda lib: lib.sparse_coo_tensor(lib.tensor([[0, 1]]), lib.tensor([1.0, 2.0, 3.0]), (3,)),
    lambda lib: lib.sparse_coo_tensor(lib.tensor([[0, 1]]), lib.tensor([1.0, 2.0]), (3, 4)),
    lambda lib: lib.sparse_coo_tensor(lib.tensor([[0, 1]]), lib.tensor([[1.0, 2.0]] * 2), (3, 3)),
    lambda lib: lib.sparse_coo_tensor([[0, 1]], [1, 2], (3,), requires_grad=True),
    lambda lib: lib.sparse_coo_tensor(
        [[1, 0]], [1.0, 2], (3,), is_coalesced=True, check_invariants=True
    ),
]


@pytest.mark.parametrize("make", BAD_CONSTRUCTIONS)
def test_bad_constructions_raise_pytorchs_errors(make):
    assert_same_error(lambda: make(vg), lambda: make(torch))


def test_constructions_pytorch_does_not_check_by_default():
    for make in (
        lambda lib: lib.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (1,)),
        lambda lib: lib.sparse_coo_tensor([[1, 0]], [1.0, 2.0], (3,), is_coalesced=True),
        lambda lib: lib.sparse_coo_tensor([[0, 1]], 5.0 if lib is vg else 5.0, (3,)),
    ):
        try:
            expected = make(torch)
        except RuntimeError:
            assert_same_error(lambda m=make: m(vg), lambda m=make: m(torch))
            continue
        v = make(vg)
        assert repr(v) == repr(expected).replace("torch.", "vizgrad.")
        assert v.is_coalesced() == expected.is_coalesced()


def test_coordinates_out_of_bounds_are_refused_where_they_would_be_read():
    # PyTorch builds such a tensor unchecked by default and reads past its memory later;
    # vizgrad builds it too, then refuses to read it, with the message of PyTorch's check.
    v = vg.sparse_coo_tensor([[0, 5]], [1.0, 2.0], (3,))
    message = "size is inconsistent with indices: for dim 0, size is 3 but found index 5"
    for read in (v.to_dense, v.coalesce, lambda: v * vg.ones(3), lambda: vg.ones(3) + v,
                 lambda: vg.ones(3).sparse_mask(v), lambda: v * v):  # fmt: skip
        with pytest.raises(RuntimeError, match=message):
            read()
    assert_same_error(
        lambda: vg.sparse_coo_tensor([[0, 5]], [1.0, 2.0], (3,), check_invariants=True),
        lambda: torch.sparse_coo_tensor([[0, 5]], [1.0, 2.0], (3,), check_invariants=True),
    )


def test_no_storage_no_strides_of_memory():
    v, t = sparse_pair("coalesced")
    assert v.stride() == t.stride() and v.stride(0) == t.stride(0)
    assert v.is_contiguous() == t.is_contiguous()
    assert v.storage_offset() == t.storage_offset()
    for method in ("data_ptr", "untyped_storage", "tolist", "numpy"):
        assert_same_error(getattr(v, method), getattr(t, method))
    assert_same_error(lambda: v.view(6), lambda: t.view(6))
    one_v, one_t = sparse_pair("one")
    assert_same_error(one_v.item, one_t.item)
    v1, t1 = vg.sparse_coo_tensor([[0]], [2.5], (1,)), torch.sparse_coo_tensor([[0]], [2.5], (1,))
    assert v1.item() == t1.item()


def test_strided_tensors_answer_the_sparse_queries_as_pytorch():
    v, t = vg.ones(2, 3), torch.ones(2, 3)
    assert (v.sparse_dim(), v.dense_dim(), v.is_sparse, v.layout) == (0, 2, False, vg.strided)
    assert (t.sparse_dim(), t.dense_dim(), t.is_sparse) == (0, 2, False)
    for method in ("indices", "values", "coalesce", "is_coalesced", "_values", "_nnz",
                   "_indices"):  # fmt: skip
        assert_same_error(getattr(v, method), getattr(t, method))
    assert v.to_dense() is v


def test_to_sparse_and_back():
    rng = np.random.default_rng(0)
    array = rng.integers(-1, 2, size=(3, 4, 2)).astype(np.float32)
    v, t = vg.tensor(array), torch.tensor(array)
    assert_same_sparse(v.to_sparse(), t.to_sparse())
    for sparse_dims in (1, 2, 3):
        assert_same_sparse(v.to_sparse(sparse_dims), t.to_sparse(sparse_dims))
        assert_same(v.to_sparse(sparse_dims).to_dense(), t.to_sparse(sparse_dims).to_dense())
    assert_same_sparse(v.to_sparse(dense_dim=1), t.to_sparse(dense_dim=1))
    assert_same_sparse(vg.tensor(3.0).to_sparse(), torch.tensor(3.0).to_sparse())
    for bad in (4, 0):
        assert_same_error(lambda b=bad: v.to_sparse(b), lambda b=bad: t.to_sparse(b))
    sv, st = v.to_sparse(), t.to_sparse()
    assert sv.to_sparse() is sv and st.to_sparse() is st
    assert_same_error(lambda: sv.to_sparse(1), lambda: st.to_sparse(1))
    assert_same_error(lambda: sv.to_dense(vg.float64), lambda: st.to_dense(torch.float64))


# --- the SparseCPU kernels --------------------------------------------------------------


@pytest.mark.parametrize("left", ["coalesced", "unsorted", "duplicates", "empty", "one"])
@pytest.mark.parametrize("right", ["coalesced", "duplicates", "empty"])
def test_add_sparse_sparse(left, right):
    (a, ta), (b, tb) = sparse_pair(left), sparse_pair(right)
    assert_same_sparse(a + b, ta + tb)
    assert_same_sparse(vg.add(a, b, alpha=2), torch.add(ta, tb, alpha=2))
    assert_same_sparse(a.coalesce() + b.coalesce(), ta.coalesce() + tb.coalesce())


def test_add_with_dense_and_errors():
    v, t = sparse_pair("duplicates")
    dense = np.arange(6, dtype=np.float32).reshape(2, 3)
    dv, dt = vg.tensor(dense), torch.tensor(dense)
    assert_same(dv + v, dt + t)
    assert_same(vg.add(dv, v, alpha=3), torch.add(dt, t, alpha=3))
    assert_same(vg.ones(2, 3, dtype=vg.int64) + v, torch.ones(2, 3, dtype=torch.int64) + t)
    assert_same_error(lambda: v + dv, lambda: t + dt)
    assert_same_error(lambda: vg.ones(3) + v, lambda: torch.ones(3) + t)
    h, th = sparse_pair("hybrid")
    assert_same_sparse(h + h, th + th)
    other = vg.sparse_coo_tensor([[0, 1]], [3.0, 4.0], (3,))
    assert_same_error(lambda: v + other,
                      lambda: t + torch.sparse_coo_tensor([[0, 1]], [3.0, 4.0], (3,)))  # fmt: skip
    ints_v = vg.sparse_coo_tensor([[0, 1], [2, 0]], [3, 4], (2, 3))
    ints_t = torch.sparse_coo_tensor([[0, 1], [2, 0]], [3, 4], (2, 3))
    assert_same_sparse(v + ints_v, t + ints_t)


@pytest.mark.parametrize("name", ["coalesced", "unsorted", "duplicates", "empty", "hybrid"])
def test_mul_neg_clone(name):
    v, t = sparse_pair(name)
    assert_same_sparse(v * 2, t * 2)
    assert_same_sparse(2.5 * v, 2.5 * t)
    assert_same_sparse(v * vg.tensor(3, dtype=vg.int64), t * torch.tensor(3))
    assert_same_sparse(v * 1j, t * 1j)
    assert_same_sparse(-v, -t)
    assert_same_sparse(v.clone(), t.clone())
    assert_same_sparse(v.coalesce() * 2, t.coalesce() * 2)
    assert_same_error(lambda: v.clone(memory_format=vg.contiguous_format),
                      lambda: t.clone(memory_format=torch.contiguous_format))  # fmt: skip


def test_mul_by_dense_and_by_sparse():
    v, t = sparse_pair("unsorted")
    dense = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert_same_sparse(v * vg.tensor(dense), t * torch.tensor(dense))
    assert_same_sparse(vg.tensor(dense) * v, torch.tensor(dense) * t)
    assert_same_sparse(v * vg.tensor([1.0, 2.0, 3.0]), t * torch.tensor([1.0, 2.0, 3.0]))
    # Two coalesced operands: the product stores the coordinates both store.
    w, tw = sparse_pair("coalesced")
    a, ta = v.coalesce(), t.coalesce()
    assert_same_sparse(a * w.coalesce(), ta * tw.coalesce())
    assert_same_sparse(a * a, ta * ta)


@pytest.mark.parametrize("name", ["coalesced", "unsorted", "duplicates", "empty", "hybrid"])
def test_sum(name):
    v, t = sparse_pair(name)
    assert_same(v.sum(), t.sum())
    assert_same(v.sum(dtype=vg.float64), t.sum(dtype=torch.float64))
    for dim in (0, 1, -1, (0, 1)):
        expected = t.sum(dim)
        got = v.sum(dim)
        if expected.is_sparse:
            assert_same_sparse(got, expected)
        else:
            assert_same(got, expected)
    assert_same_error(lambda: v.sum(2), lambda: t.sum(2))
    assert_same_error(lambda: v.sum((0, 0)), lambda: t.sum((0, 0)))


def test_sum_keepdim_and_integers():
    for name in ("duplicates", "one", "empty", "hybrid"):
        v, t = sparse_pair(name)
        for dim in (0, 1):
            expected = t.sum(dim, keepdim=True)
            if expected.is_sparse:
                assert_same_sparse(v.sum(dim, keepdim=True), expected)
            else:
                assert_same(v.sum(dim, keepdim=True), expected)
    iv = vg.sparse_coo_tensor([[0, 1]], [1, 2], (3,))
    it = torch.sparse_coo_tensor([[0, 1]], [1, 2], (3,))
    assert_same(iv.sum(), it.sum())
    assert_same(v.sum(dtype=vg.float64), t.sum(dtype=torch.float64))


@pytest.mark.parametrize("name", ["coalesced", "unsorted", "duplicates", "empty", "one"])
def test_mm_matmul_and_sparse_mm(name):
    v, t = sparse_pair(name)
    dense = np.arange(6, dtype=np.float32).reshape(3, 2)
    dv, dt = vg.tensor(dense), torch.tensor(dense)
    assert_same(vg.mm(v, dv), torch.mm(t, dt))
    assert_same(v @ dv, t @ dt)
    assert_same(vg.matmul(v, dv), torch.matmul(t, dt))
    assert_same(vg.sparse.mm(v, dv), torch.sparse.mm(t, dt))
    assert_same(vg.mm(dv.t(), v.t()), torch.mm(dt.t(), t.t()))
    assert_same_sparse(
        vg.mm(v.coalesce(), v.coalesce().t()), torch.mm(t.coalesce(), t.coalesce().t())
    )
    if name != "empty":  # (PyTorch skips its dtype check when nothing is stored)
        assert_same_error(lambda: vg.mm(v, vg.ones(3, 2, dtype=vg.float64)),
                          lambda: torch.mm(t, torch.ones(3, 2, dtype=torch.float64)))  # fmt: skip


def test_t():
    for name in ("coalesced", "unsorted", "duplicates", "empty", "one"):
        v, t = sparse_pair(name)
        assert_same_sparse(v.t(), t.t())
        assert_same_sparse(v.t().t(), t.t().t())
    one_d_v = vg.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (3,))
    assert_same_sparse(one_d_v.t(), torch.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (3,)).t())
    three = ([[0, 1], [2, 0], [0, 1]], [3.0, 4.0], (2, 3, 2))
    assert_same_error(lambda: vg.sparse_coo_tensor(*three).t(),
                      lambda: torch.sparse_coo_tensor(*three).t())  # fmt: skip


NARROWS = [(0, 0, 1), (1, 1, 1), (2, 1, 1), (3, 0, 2), (0, 0, 0), (-1, 0, 1), (0, 1, 5),
           (0, -1, 1), (0, 0, -1)]  # fmt: skip


@pytest.mark.parametrize("args", NARROWS)
def test_narrow_copy(args):
    array = np.arange(16).reshape(2, 2, 2, 2)
    for sparse_dims in (2, 4):
        v, t = vg.tensor(array).to_sparse(sparse_dims), torch.tensor(array).to_sparse(sparse_dims)
        try:
            expected = torch.narrow_copy(t, *args)
        except RuntimeError:
            assert_same_error(
                lambda v=v: vg.narrow_copy(v, *args), lambda t=t: torch.narrow_copy(t, *args)
            )
            continue
        assert_same_sparse(vg.narrow_copy(v, *args), expected)
    u, tu = sparse_pair("unsorted")
    if 0 <= args[0] < 2 and args[1] >= 0 and args[2] >= 0 and args[1] + args[2] <= 2:
        assert_same_sparse(u.narrow_copy(*args), tu.narrow_copy(*args))


@pytest.mark.parametrize("name", ["coalesced", "one", "empty", "hybrid"])
def test_unsqueeze(name):
    v, t = sparse_pair(name)
    for dim in range(-v.dim() - 1, v.dim() + 1):
        assert_same_sparse(v.unsqueeze(dim), t.unsqueeze(dim))
    assert_same_error(lambda: v.unsqueeze(v.dim() + 1), lambda: t.unsqueeze(t.dim() + 1))


def test_sparse_mask():
    v, t = sparse_pair("unsorted")
    dense = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert_same_sparse(vg.tensor(dense).sparse_mask(v), torch.tensor(dense).sparse_mask(t))
    assert_same_sparse(vg.tensor(dense).sparse_mask(v.coalesce()),
                       torch.tensor(dense).sparse_mask(t.coalesce()))  # fmt: skip


def test_an_operator_without_a_sparse_kernel_raises_pytorchs_error():
    v, t = sparse_pair("coalesced")
    for call in (lambda lib, x: lib.cumsum(x, 0), lambda lib, x: x.exp()):
        _, torch_error = assert_same_error(lambda c=call: c(vg, v), lambda c=call: c(torch, t))
        first_sentence = str(torch_error).split(". ")[0]
        vg_error = pytest.raises(NotImplementedError, call, vg, v).value
        assert str(vg_error).startswith(first_sentence + ". ")
    assert_same_error(lambda: vg.ones(2)._nnz(), lambda: torch.ones(2)._nnz())
    assert "from the 'CPU' backend" in str(
        pytest.raises(NotImplementedError, vg.ones(2)._nnz).value
    )


# --- gradients --------------------------------------------------------------------------


def grad_pair(name="unsorted"):
    v, t = sparse_pair(name, requires_grad=True)
    dense = np.arange(6, dtype=np.float32).reshape(3, 2)
    return v, t, vg.tensor(dense, requires_grad=True), torch.tensor(dense, requires_grad=True)


def assert_same_grad(v_grad, t_grad):
    assert v_grad.layout is (vg.sparse_coo if t_grad.is_sparse else vg.strided)
    if t_grad.is_sparse:
        assert_same_sparse(v_grad, t_grad)
    else:
        assert_same(v_grad, t_grad)


@pytest.mark.parametrize("name", ["coalesced", "unsorted", "duplicates"])
def test_mm_gradients(name):
    v, t, m, tm = grad_pair(name)
    y, ty = vg.mm(v, m), torch.mm(t, tm)
    assert y.grad_fn.name() == ty.grad_fn.name() == "MmBackward0"
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    assert_same_grad(v.grad, t.grad)  # torch.mm: the sparse operand's gradient is dense
    assert_same_grad(m.grad, tm.grad)


@pytest.mark.parametrize("name", ["coalesced", "unsorted", "duplicates"])
def test_sparse_mm_gradients_are_sparse(name):
    v, t, m, tm = grad_pair(name)
    y, ty = vg.sparse.mm(v, m), torch.sparse.mm(t, tm)
    assert y.grad_fn.name() == ty.grad_fn.name() == "SparseAddmmBackward0"
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    assert_same_grad(v.grad, t.grad)
    assert_same_grad(m.grad, tm.grad)


def test_sparse_mm_gradient_matches_finite_differences_on_the_stored_elements():
    v, _, m, _ = grad_pair("coalesced")
    vg.sparse.mm(v, m).pow(2).sum().backward()
    indices, values = v._indices()._array, v._values()._array.astype(np.float64)
    dense = m.detach().numpy().astype(np.float64)

    def loss(vals):
        s = np.zeros((2, 3))
        np.add.at(s, tuple(indices), vals)
        return ((s @ dense) ** 2).sum()

    eps = 1e-4
    numeric = [
        (loss(values + eps * e) - loss(values - eps * e)) / (2 * eps) for e in np.eye(len(values))
    ]
    np.testing.assert_allclose(v.grad._values().numpy(), numeric, rtol=1e-3)


OPS_WITH_GRADS = {
    "sum": lambda x: x.sum(),
    "mul": lambda x: x * 2,
    "neg": lambda x: -x,
    "clone": lambda x: x.clone(),
    "to_dense": lambda x: x.to_dense(),
    "coalesce": lambda x: x.coalesce(),
    "t": lambda x: x.t(),
    "add_dense": lambda x: (torch.ones(2, 3) if isinstance(x, torch.Tensor) else vg.ones(2, 3)) + x,
}


@pytest.mark.parametrize("op", OPS_WITH_GRADS)
def test_gradients_through_sparse_operators(op):
    v, t, _, _ = grad_pair("unsorted")
    y, ty = OPS_WITH_GRADS[op](v), OPS_WITH_GRADS[op](t)
    assert y.grad_fn.name() == ty.grad_fn.name()
    assert y.layout is (vg.sparse_coo if ty.is_sparse else vg.strided)
    (y.to_dense() if y.is_sparse else y).sum().backward()
    (ty.to_dense() if ty.is_sparse else ty).sum().backward()
    assert_same_grad(v.grad, t.grad)


@pytest.mark.parametrize("padding_idx", [None, 0])
def test_embedding_sparse_gradient_and_an_sgd_step(padding_idx):
    torch_layer = torch.nn.Embedding(4, 2, sparse=True, padding_idx=padding_idx)
    layer = vg.nn.Embedding(4, 2, sparse=True, padding_idx=padding_idx)
    with vg.no_grad():
        layer.weight.copy_(vg.tensor(torch_layer.weight.detach().numpy()))
    out, torch_out = layer(vg.tensor([1, 3, 1, 0])), torch_layer(torch.tensor([1, 3, 1, 0]))
    (out * out).sum().backward()
    (torch_out * torch_out).sum().backward()
    assert_same_sparse(layer.weight.grad, torch_layer.weight.grad)
    vg.optim.SGD(layer.parameters(), lr=0.5).step()
    torch.optim.SGD(torch_layer.parameters(), lr=0.5).step()
    assert_same(layer.weight, torch_layer.weight)


GATHERS = [((2, 3), 1, [[0, 0], [2, 1]]), ((2, 3), 0, [[1, 0, 1]]), ((6,), 0, [0, 0, 2]),
           ((), 0, 0), ((2, 2), -1, [[1], [1]])]  # fmt: skip


@pytest.mark.parametrize(("shape", "dim", "index"), GATHERS)
def test_gather_with_sparse_grad(shape, dim, index):
    v = vg.arange(float(np.prod(shape))).reshape(shape).requires_grad_()
    t = torch.arange(float(np.prod(shape))).reshape(shape).requires_grad_()
    y = v.gather(dim, vg.tensor(index), sparse_grad=True)
    ty = t.gather(dim, torch.tensor(index), sparse_grad=True)
    weights = np.arange(1.0, 1.0 + np.prod(ty.shape), dtype=np.float32).reshape(tuple(ty.shape))
    (y * vg.tensor(weights)).sum().backward()
    (ty * torch.tensor(weights)).sum().backward()
    assert_same_sparse(v.grad, t.grad)


def test_add_inplace_with_a_sparse_argument():
    v, t = sparse_pair("duplicates")
    dense_v, dense_t = vg.ones(2, 3), torch.ones(2, 3)
    assert dense_v.add_(v, alpha=2) is dense_v
    dense_t.add_(t, alpha=2)
    assert_same(dense_v, dense_t)
    a, ta = sparse_pair("coalesced")
    assert a.add_(v) is a
    ta.add_(t)
    assert_same_sparse(a, ta)
    assert_same_error(lambda: a.add_(vg.ones(2, 3)), lambda: ta.add_(torch.ones(2, 3)))


def test_values_and_to_sparse_gradients():
    v, t, _, _ = grad_pair("coalesced")
    c, tc = v.coalesce(), t.coalesce()
    y, ty = c.values(), tc.values()
    assert y.grad_fn.name() == ty.grad_fn.name() == "ValuesBackward0"
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    assert_same(v.grad.to_dense(), t.grad.to_dense())
    for make in (lambda x: x.to_sparse(), lambda x: x.to_sparse(1)):
        d, td = vg.ones(2, 3, requires_grad=True), torch.ones(2, 3, requires_grad=True)
        s, ts = make(d), make(td)
        assert s.grad_fn.name() == ts.grad_fn.name()
        (s.to_dense() * 3).sum().backward()
        (ts.to_dense() * 3).sum().backward()
        assert_same(d.grad, td.grad)


def test_printing_with_grad_fn_hybrid_and_dtypes():
    v, t, _, _ = grad_pair("unsorted")
    assert repr(v * 2) == repr(t * 2).replace("torch.", "vizgrad.")
    for values in ([1, 2, 3], [1.5, 2.0, 3.0]):
        for dtype in (None, vg.float64, vg.int32):
            options = {} if dtype is None else {"dtype": dtype}
            torch_options = {} if dtype is None else {"dtype": getattr(torch, dtype.name)}
            v = vg.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], values, (2, 3), **options)
            t = torch.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], values, (2, 3), **torch_options)
            assert repr(v) == repr(t).replace("torch.", "vizgrad.")
    big = np.arange(40, dtype=np.float32).reshape(20, 2) * 1e5
    assert repr(vg.tensor(big).to_sparse()) == repr(torch.tensor(big).to_sparse()).replace(
        "torch.", "vizgrad."
    )


def test_names_are_where_pytorch_has_them():
    names = ["sparse_coo_tensor", "sparse_mask", "to_dense", "to_sparse", "coalesce",
             "is_coalesced", "indices", "values", "sparse_dim", "dense_dim", "_nnz",
             "_indices", "_values", "_coalesce", "_to_dense", "_to_sparse", "narrow_copy"]  # fmt: skip
    for name in names:
        assert (hasattr(vg, name), hasattr(vg.Tensor, name)) == (
            hasattr(torch, name),
            hasattr(torch.Tensor, name),
        ), name
    assert hasattr(vg.sparse, "mm") and hasattr(torch.sparse, "mm")


def test_layout_object():
    assert repr(vg.sparse_coo) == repr(torch.sparse_coo).replace("torch.", "vizgrad.")
    assert repr(vg.strided) == repr(torch.strided).replace("torch.", "vizgrad.")
    assert vg.sparse_coo is not vg.strided


# --- checkpoints --------------------------------------------------------------------


def saved_bytes(lib, obj) -> bytes:
    buffer = io.BytesIO()
    lib.save(obj, buffer)
    return buffer.getvalue()


def test_checkpoints_of_constructed_tensors_are_torchs_bytes():
    pairs = [sparse_pair(name) for name in ("coalesced", "duplicates", "hybrid", "one")]
    v_obj, t_obj = {"sparse": [v for v, _ in pairs]}, {"sparse": [t for _, t in pairs]}
    assert saved_bytes(vg, v_obj) == saved_bytes(torch, t_obj)


@pytest.mark.parametrize("name", CASES)
def test_checkpoints_load_both_ways(name):
    # (Bytes may differ: PyTorch's coalesce() keeps a storage as long as before, and an
    # empty tensor's strides are its own; what is saved reads back the same.)
    v, t = sparse_pair(name)
    v_obj, t_obj = [v, v.coalesce()], [t, t.coalesce()]
    for expected, loaded in ((t_obj, vg.load(io.BytesIO(saved_bytes(torch, t_obj)))),
                             (t_obj, vg.load(io.BytesIO(saved_bytes(vg, v_obj))))):  # fmt: skip
        for got, want in zip(loaded, expected, strict=True):
            assert_same_sparse(got, want)
    for got, want in zip(torch.load(io.BytesIO(saved_bytes(vg, v_obj))), t_obj, strict=True):
        assert repr(got) == repr(want) and got.is_coalesced() == want.is_coalesced()


def test_a_loaded_sparse_tensor_is_checked_only_when_used_as_in_pytorch():
    # PyTorch validates loaded sparse tensors only under check_sparse_tensor_invariants.
    data = saved_bytes(torch, torch.sparse_coo_tensor([[0, 5]], [1.0, 2.0], (3,)))
    v, t = vg.load(io.BytesIO(data)), torch.load(io.BytesIO(data))
    assert repr(v) == repr(t).replace("torch.", "vizgrad.")
    with pytest.raises(RuntimeError, match="size is inconsistent with indices"):
        v.to_dense()  # where PyTorch would read past the values' memory


# --- the dispatch trace --------------------------------------------------------------


def test_dispatch_trace_names_the_sparse_backend_and_why():
    v, _ = sparse_pair("coalesced")
    dense = vg.ones(2, 3)
    with vg.dispatch_trace() as trace:
        v * 2
    assert trace.lines() == [
        " [call] op=[aten::mul.Tensor], key=[AutogradCPU]",
        "  [redispatch] op=[aten::mul.Tensor], key=[SparseCPU]",
    ]
    assert "layout sparse_coo" in trace.steps[-1].note
    with vg.dispatch_trace() as trace:
        dense + v  # one sparse argument is enough
    assert [s.key for s in trace.steps] == ["AutogradCPU", "SparseCPU"]
    with vg.dispatch_trace() as trace, pytest.raises(NotImplementedError):
        vg.cumsum(v, 0)
    assert trace.steps[-1].key == "SparseCPU"
    assert "no SparseCPU kernel" in trace.steps[-1].note


def test_a_sparse_tensor_on_the_meta_device_is_refused_with_what_is_missing():
    """PyTorch makes one (its SparseMeta backend); vizgrad says it has none."""
    with pytest.raises(NotImplementedError, match="meta device holds strided tensors only"):
        vg.sparse_coo_tensor([[0]], [1.0], (2,), device="meta", check_invariants=False)
    assert torch.sparse_coo_tensor([[0]], [1.0], (2,), device="meta").is_meta
