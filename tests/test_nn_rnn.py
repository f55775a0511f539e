"""RNN, LSTM, GRU and their cells against PyTorch.

Each test builds the module in vizgrad, copies its weights into PyTorch's module, runs
both on the same inputs and compares outputs, final states, ``grad_fn`` names (and, on
small cases, the whole backward graph), and every gradient. Float64 throughout, so
PyTorch's CPU LSTM takes its default implementation (float32 takes oneDNN, a fused
kernel with a node of its own).
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
import torch
from grad_oracle import check_gradients
from oracle import assert_same, assert_same_error, assert_same_outcome

import vizgrad as vg

MODULES = {
    "RNN": ("RNN", {}),
    "RNN_relu": ("RNN", {"nonlinearity": "relu"}),
    "LSTM": ("LSTM", {}),
    "GRU": ("GRU", {}),
}

CONFIGS = {
    "default": {},
    "two_layers": {"num_layers": 2},
    "bidirectional": {"bidirectional": True},
    "batch_first": {"batch_first": True},
    "no_bias": {"bias": False},
    "everything": {"num_layers": 2, "bidirectional": True, "batch_first": True},
}


def _copy_weights(vm, tm) -> None:
    """vizgrad's weights into PyTorch's module, name by name (the names must agree)."""
    vg_params = list(vm.named_parameters())
    torch_params = list(tm.named_parameters())
    assert [n for n, _ in vg_params] == [n for n, _ in torch_params]
    with torch.no_grad():
        for (_, v), (_, t) in zip(vg_params, torch_params, strict=True):
            t.copy_(torch.from_numpy(v.detach().numpy().copy()))


def _modules(name: str, *args, **kwargs):
    """The same module in both libraries, float64, with vizgrad's weights."""
    vm = getattr(vg.nn, name)(*args, **kwargs).double()
    tm = getattr(torch.nn, name)(*args, **kwargs).double()
    _copy_weights(vm, tm)
    return vm, tm


def _leaves(array: np.ndarray):
    return (vg.tensor(array).requires_grad_(), torch.tensor(array).requires_grad_())


def _flatten(result) -> list:
    """``(output, h_n)`` or ``(output, (h_n, c_n))`` as a flat list of tensors."""
    if isinstance(result, tuple | list):
        return [t for item in result for t in _flatten(item)]
    return [result]


def _backward_all(outputs, rng) -> list[np.ndarray]:
    """A random weight per output, the same in both libraries: one scalar to differentiate."""
    return [rng.standard_normal(tuple(t.shape)) for t in outputs]


def _compare_run(vm, tm, input_shape, *, hidden_shapes=None, seed=0):
    """Forward (with the given initial states or none) and backward in both; compare the
    outputs, their grad_fn names, and the gradients of the input, states and weights."""
    rng = np.random.default_rng(seed)
    v_x, t_x = _leaves(rng.standard_normal(input_shape))
    v_h, t_h = [], []
    for shape in hidden_shapes or []:
        v, t = _leaves(rng.standard_normal(shape))
        v_h.append(v)
        t_h.append(t)
    v_args = (v_x,) if not hidden_shapes else (v_x, v_h[0] if len(v_h) == 1 else tuple(v_h))
    t_args = (t_x,) if not hidden_shapes else (t_x, t_h[0] if len(t_h) == 1 else tuple(t_h))
    v_out = _flatten(vm(*v_args))
    t_out = _flatten(tm(*t_args))
    assert len(v_out) == len(t_out)
    for v, t in zip(v_out, t_out, strict=True):
        assert_same(v, t)
        assert v.grad_fn.name() == t.grad_fn.name()
    weights = _backward_all(t_out, rng)
    sum((v * vg.tensor(w)).sum() for v, w in zip(v_out, weights, strict=True)).backward()
    sum((t * torch.tensor(w)).sum() for t, w in zip(t_out, weights, strict=True)).backward()
    for v, t in zip([v_x, *v_h], [t_x, *t_h], strict=True):
        assert_same(v.grad, t.grad)
    for (name, v), (_, t) in zip(vm.named_parameters(), tm.named_parameters(), strict=True):
        assert v.grad is not None, name
        assert_same(v.grad, t.grad)
    return v_out, t_out


def _hidden_shapes(kind: str, kwargs: dict, batch: int, hidden: int, proj: int = 0):
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    h = (layers, batch, proj or hidden)
    return [h, (layers, batch, hidden)] if kind == "LSTM" else [h]


# --- the layers ----------------------------------------------------------------------------


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("kind", MODULES)
@pytest.mark.parametrize("given_state", [False, True], ids=["zeros", "h0"])
def test_layer_matches_torch(kind, config, given_state):
    name, extra = MODULES[kind]
    kwargs = {**extra, **CONFIGS[config]}
    vm, tm = _modules(name, 3, 4, **kwargs)
    seq, batch = 5, 2
    shape = (batch, seq, 3) if kwargs.get("batch_first") else (seq, batch, 3)
    hidden = _hidden_shapes(name, kwargs, batch, 4) if given_state else None
    _compare_run(vm, tm, shape, hidden_shapes=hidden)


@pytest.mark.parametrize("config", ["default", "everything", "no_bias"])
def test_lstm_with_projections(config):
    kwargs = {**CONFIGS[config], "proj_size": 2}
    vm, tm = _modules("LSTM", 3, 5, **kwargs)
    assert [tuple(p.shape) for p in vm.parameters()] == [tuple(p.shape) for p in tm.parameters()]
    shape = (2, 4, 3) if kwargs.get("batch_first") else (4, 2, 3)
    _compare_run(vm, tm, shape)
    _compare_run(vm, tm, shape, hidden_shapes=_hidden_shapes("LSTM", kwargs, 2, 5, proj=2))


@pytest.mark.parametrize("kind", MODULES)
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("given_state", [False, True], ids=["zeros", "h0"])
def test_unbatched_input(kind, batch_first, given_state):
    name, extra = MODULES[kind]
    vm, tm = _modules(name, 3, 4, num_layers=2, bidirectional=True, batch_first=batch_first,
                      **extra)  # fmt: skip
    hidden = [(4, 4)] * (2 if name == "LSTM" else 1) if given_state else None
    v_out, _ = _compare_run(vm, tm, (6, 3), hidden_shapes=hidden)
    assert tuple(v_out[0].shape) == (6, 8)
    assert all(tuple(h.shape) == (4, 4) for h in v_out[1:])


def _graph(fn, seen=None) -> list:
    """The backward graph below ``fn``, depth first, as nested node names."""
    if fn is None:
        return [None]
    seen = {} if seen is None else seen
    name = fn.name().replace("torch::autograd::", "").replace("vizgrad::autograd::", "")
    if id(fn) in seen:
        return [name, seen[id(fn)]]
    seen[id(fn)] = len(seen)
    return [name, [_graph(next_fn, seen) for next_fn, _ in fn.next_functions]]


@pytest.mark.parametrize("kind", MODULES)
@pytest.mark.parametrize(
    "config",
    [{}, {"bidirectional": True}, {"batch_first": True}, {"bias": False}, {"num_layers": 2}],
    ids=["default", "bidirectional", "batch_first", "no_bias", "two_layers"],
)
def test_backward_graph_is_torchs(kind, config):
    """The unrolled graph has PyTorch's nodes, in PyTorch's order: ``linear`` as
    ``addmm`` (with ``view`` for the whole sequence), ``unbind`` into steps,
    ``unsafe_chunk`` into gates, the gates squashed in place, ``stack`` and ``cat``."""
    name, extra = MODULES[kind]
    vm, tm = _modules(name, 3, 4, **extra, **config)
    shape = (2, 2, 3)
    x = np.random.default_rng(1).standard_normal(shape)
    v_out = _flatten(vm(vg.tensor(x).requires_grad_()))
    t_out = _flatten(tm(torch.tensor(x).requires_grad_()))
    for v, t in zip(v_out, t_out, strict=True):
        assert _graph(v.grad_fn) == _graph(t.grad_fn)


def test_non_contiguous_input():
    """A transposed (batch-first) or stepped input: ``linear`` takes the ``matmul`` path."""
    vm, tm = _modules("LSTM", 3, 4, batch_first=True, bidirectional=True)
    x = np.random.default_rng(2).standard_normal((6, 2, 3))
    v_x = vg.tensor(x).requires_grad_()
    t_x = torch.tensor(x).requires_grad_()
    v_out = _flatten(vm(v_x.transpose(0, 1)[:, ::2]))
    t_out = _flatten(tm(t_x.transpose(0, 1)[:, ::2]))
    for v, t in zip(v_out, t_out, strict=True):
        assert_same(v, t)
        assert _graph(v.grad_fn) == _graph(t.grad_fn)
    sum(v.sum() for v in v_out).backward()
    sum(t.sum() for t in t_out).backward()
    assert_same(v_x.grad, t_x.grad)


@pytest.mark.parametrize("kind", MODULES)
def test_empty_batch_and_empty_sequence(kind):
    name, extra = MODULES[kind]
    vm, tm = _modules(name, 3, 4, **extra)
    for shape in [(5, 0, 3), (0, 2, 3)]:
        x = np.zeros(shape)
        assert_same_outcome(lambda x=x: vm(vg.tensor(x)), lambda x=x: tm(torch.tensor(x)))


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_float32(kind):
    """float32 weights and inputs give float32 results (PyTorch's LSTM runs oneDNN here:
    the values agree to float32 precision)."""
    vm = getattr(vg.nn, kind)(3, 4, num_layers=2)
    tm = getattr(torch.nn, kind)(3, 4, num_layers=2)
    _copy_weights(vm, tm)
    x = np.random.default_rng(3).standard_normal((5, 2, 3)).astype(np.float32)
    for v, t in zip(_flatten(vm(vg.tensor(x))), _flatten(tm(torch.tensor(x))), strict=True):
        assert_same(v, t, rtol=1e-5, atol=1e-6)


# --- dropout between layers ----------------------------------------------------------------


def test_dropout_warning_with_one_layer():
    assert_same_outcome(lambda: vg.nn.LSTM(3, 4, dropout=0.5).extra_repr(),
                        lambda: torch.nn.LSTM(3, 4, dropout=0.5).extra_repr(),
                        compare_warnings=True)  # fmt: skip
    assert_same_outcome(lambda: vg.nn.GRU(3, 4, num_layers=2, dropout=0.5).extra_repr(),
                        lambda: torch.nn.GRU(3, 4, num_layers=2, dropout=0.5).extra_repr(),
                        compare_warnings=True)  # fmt: skip


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_dropout_in_eval_mode_and_at_one(kind):
    """In eval mode dropout does nothing; at ``p=1`` while training it zeroes the second
    layer's input entirely: both are deterministic, so they compare with PyTorch."""
    vm, tm = _modules(kind, 3, 4, num_layers=2, dropout=0.5)
    vm.eval()
    tm.eval()
    _compare_run(vm, tm, (4, 2, 3))
    vm, tm = _modules(kind, 3, 4, num_layers=2, dropout=1.0)
    _compare_run(vm, tm, (4, 2, 3))


def test_dropout_while_training():
    """``p=0.5``: some of the first layer's outputs reach the second layer doubled, the
    others not at all, through a recorded product (``MulBackward0``), as in PyTorch."""
    vg.manual_seed(0)
    vm = vg.nn.RNN(3, 50, num_layers=2, dropout=0.5).double()
    x = vg.tensor(np.random.default_rng(4).standard_normal((1, 1, 3)))
    train_out, _ = vm(x)
    vm.eval()
    eval_out, _ = vm(x)
    assert not np.allclose(train_out.detach().numpy(), eval_out.detach().numpy())
    vm.train()
    _, h_n = vm(x)
    # The second layer's input projection reads the dropped-out first layer's output:
    # Stack <- Tanh <- Add <- Unbind <- View <- Addmm <- View <- Mul.
    layer_1 = h_n.grad_fn.next_functions[1][0].next_functions[0][0]
    addmm = layer_1.next_functions[1][0].next_functions[0][0].next_functions[0][0]
    assert addmm.name() == "AddmmBackward0"
    assert addmm.next_functions[1][0].name() == "ViewBackward0"
    product = addmm.next_functions[1][0].next_functions[0][0]
    assert product.name() == "MulBackward0"
    mask = product._saved_other.numpy()
    assert set(np.unique(mask)) <= {0.0, 2.0}
    assert 0.25 < (mask == 0).mean() < 0.75


# --- the cells -----------------------------------------------------------------------------

CELLS = {
    "RNNCell": ("RNNCell", {}),
    "RNNCell_relu": ("RNNCell", {"nonlinearity": "relu"}),
    "LSTMCell": ("LSTMCell", {}),
    "GRUCell": ("GRUCell", {}),
}


@pytest.mark.parametrize("kind", CELLS)
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("given_state", [False, True], ids=["zeros", "h0"])
def test_cell_matches_torch(kind, bias, batched, given_state):
    name, extra = CELLS[kind]
    vm, tm = _modules(name, 3, 4, bias=bias, **extra)
    batch = (2,) if batched else ()
    hidden = [(*batch, 4)] * (2 if name == "LSTMCell" else 1) if given_state else None
    _compare_run(vm, tm, (*batch, 3), hidden_shapes=hidden)


@pytest.mark.parametrize("kind", CELLS)
def test_cell_graph_is_torchs(kind):
    name, extra = CELLS[kind]
    vm, tm = _modules(name, 3, 4, **extra)
    x = np.random.default_rng(5).standard_normal((2, 3))
    h = np.random.default_rng(6).standard_normal((2, 4))
    state_v = (vg.tensor(h), vg.tensor(h)) if name == "LSTMCell" else vg.tensor(h)
    state_t = (torch.tensor(h), torch.tensor(h)) if name == "LSTMCell" else torch.tensor(h)
    v_out = _flatten(vm(vg.tensor(x), state_v))
    t_out = _flatten(tm(torch.tensor(x), state_t))
    for v, t in zip(v_out, t_out, strict=True):
        assert _graph(v.grad_fn) == _graph(t.grad_fn)


def test_cells_unrolled_by_hand_match_the_layer():
    """An LSTMCell looped over a sequence gives the LSTM's output (same weights)."""
    cell = vg.nn.LSTMCell(3, 4).double()
    layer = vg.nn.LSTM(3, 4).double()
    with vg.no_grad():
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(layer, f"{name}_l0").copy_(getattr(cell, name))
    x = vg.tensor(np.random.default_rng(7).standard_normal((5, 2, 3)))
    h = c = vg.zeros(2, 4, dtype=vg.float64)
    outputs = []
    for step in range(5):
        h, c = cell(x[step], (h, c))
        outputs.append(h)
    output, (h_n, c_n) = layer(x)
    np.testing.assert_allclose(vg.stack(outputs).detach().numpy(), output.detach().numpy())
    np.testing.assert_allclose(c.detach().numpy(), c_n[0].detach().numpy())


# --- the operators ---------------------------------------------------------------------------


def _weights(gates: int, input_size: int, hidden: int, rng, bias=True):
    shapes = [(gates * hidden, input_size), (gates * hidden, hidden)]
    if bias:
        shapes += [(gates * hidden,), (gates * hidden,)]
    arrays = [rng.standard_normal(s) for s in shapes]
    return [vg.tensor(a) for a in arrays], [torch.tensor(a) for a in arrays]


@pytest.mark.parametrize("op, gates", [("rnn_tanh_cell", 1), ("rnn_relu_cell", 1),
                                       ("gru_cell", 3), ("lstm_cell", 4)])  # fmt: skip
def test_cell_operators_and_gradcheck(op, gates):
    """``torch.<op>`` called directly; gradients against PyTorch and finite differences."""
    rng = np.random.default_rng(8)
    v_w, t_w = _weights(gates, 3, 4, rng)
    shapes = [(2, 3), (2, 4), (2, 4)] if op == "lstm_cell" else [(2, 3), (2, 4)]

    def call(lib, weights):
        def fn(x, *state):
            hx = list(state) if op == "lstm_cell" else state[0]
            return getattr(lib, op)(x, hx, *weights)

        return fn

    check_gradients(call(vg, v_w), call(torch, t_w), shapes)


def test_layer_operator_called_directly():
    """``torch.lstm`` with a flat weight list, as ``nn.LSTM.forward`` calls it."""
    rng = np.random.default_rng(9)
    v_w, t_w = [], []
    for layer_input in (3, 3, 8, 8):  # layer 0 both directions, then layer 1
        v, t = _weights(4, layer_input, 4, rng)
        v_w += v
        t_w += t
    x = rng.standard_normal((5, 2, 3))
    h = [rng.standard_normal((4, 2, 4)) for _ in range(2)]
    v_out = vg.lstm(vg.tensor(x), [vg.tensor(a) for a in h], v_w, True, 2, 0.0, False, True,
                    False)  # fmt: skip
    t_out = torch.lstm(torch.tensor(x), [torch.tensor(a) for a in h], t_w, True, 2, 0.0, False,
                       True, False)  # fmt: skip
    assert isinstance(v_out, tuple) and len(v_out) == 3
    assert_same(v_out, t_out)


def test_gru_cell_gradcheck_whole_step():
    """Finite differences through every input of a GRU step, weights and biases too."""
    rng = np.random.default_rng(10)
    arrays = [rng.standard_normal(s) for s in [(2, 3), (2, 4), (12, 3), (12, 4), (12,), (12,)]]
    inputs = [vg.tensor(a).requires_grad_() for a in arrays]
    assert vg.autograd.gradcheck(vg.gru_cell, inputs)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, w: lib.rnn_tanh_cell(
            lib.ones(2, 5, dtype=lib.float64), lib.ones(2, 4, dtype=lib.float64), *w
        ),  # fmt: skip
        lambda lib, w: lib.rnn_tanh_cell(
            lib.ones(3, 3, dtype=lib.float64), lib.ones(2, 4, dtype=lib.float64), *w
        ),  # fmt: skip
        lambda lib, w: lib.rnn_tanh_cell(
            lib.ones(2, 3, dtype=lib.float64), lib.ones(2, 5, dtype=lib.float64), *w
        ),  # fmt: skip
        lambda lib, w: lib.gru_cell(
            lib.ones(2, 3, dtype=lib.float64), lib.ones(2, 4, dtype=lib.float64), *w
        ),  # fmt: skip
        lambda lib, w: lib.lstm_cell(
            lib.ones(2, 3, dtype=lib.float64), [lib.ones(2, 4, dtype=lib.float64)], *w
        ),  # fmt: skip
        lambda lib, w: lib.rnn_tanh_cell(
            lib.ones(3, dtype=lib.float64), lib.ones(4, dtype=lib.float64), *w
        ),  # fmt: skip
        lambda lib, w: lib.rnn_tanh(
            lib.ones(2, 2, 3, dtype=lib.float64),
            lib.ones(1, 2, 4, dtype=lib.float64),
            w[:3],
            True,
            1,
            0.0,
            False,
            False,
            False,
        ),  # fmt: skip
        lambda lib, w: lib.lstm(
            lib.ones(2, 2, 3, dtype=lib.float64),
            [lib.ones(1, 2, 4, dtype=lib.float64)],
            w,
            True,
            1,
            0.0,
            False,
            False,
            False,
        ),  # fmt: skip
        lambda lib, w: lib.lstm(
            lib.ones(2, 2, 3, dtype=lib.float64),
            [lib.ones(2, 4, dtype=lib.float64)] * 2,
            w,
            True,
            1,
            0.0,
            False,
            False,
            False,
        ),  # fmt: skip
        lambda lib, w: lib.lstm(
            lib.ones(2, 2, 3, dtype=lib.float64),
            [lib.ones(2, 2, 4, dtype=lib.float64)] * 2,
            w,
            True,
            1,
            0.0,
            False,
            False,
            False,
        ),  # fmt: skip
    ],
    ids=[
        "input_size",
        "batch",
        "hidden_size",
        "gru_gate_count",
        "lstm_one_state",
        "one_dim_input",
        "param_count",
        "lstm_one_state_layer",
        "lstm_2d_state",
        "lstm_layers",
    ],  # fmt: skip
)
def test_operator_errors(call):
    rng = np.random.default_rng(11)
    v_w, t_w = _weights(1, 3, 4, rng)
    assert_same_error(lambda: call(vg, v_w), lambda: call(torch, t_w))


def test_unsafe_chunk_and_split():
    """The pieces are not autograd views: each can be written in place (the RNN cells
    squash their gates so); their gradients are joined back (``UnsafeSplitBackward0``)."""
    for lib in (vg, torch):
        x = lib.ones(2, 6, dtype=lib.float64)
        pieces = lib.unsafe_chunk(x, 3, 1)
        assert [tuple(p.shape) for p in pieces] == [(2, 2)] * 3
        assert all(p._base is None for p in pieces)
    check_gradients(lambda x: vg.unsafe_chunk(x * 1, 4, 1)[1].sigmoid_(),
                    lambda x: torch.unsafe_chunk(x * 1, 4, 1)[1].sigmoid_(), [(3, 8)])  # fmt: skip
    check_gradients(lambda x: vg.unsafe_split(x, 3, 0)[1], lambda x: torch.unsafe_split(x, 3, 0)[1],
                    [(7, 2)], grad_fn_name="UnsafeSplitBackward0")  # fmt: skip
    check_gradients(lambda x: vg.unsafe_split_with_sizes(x, [1, 3], 1)[1],
                    lambda x: torch.unsafe_split_with_sizes(x, [1, 3], 1)[1], [(2, 4)])  # fmt: skip
    assert_same_outcome(lambda: vg.unsafe_chunk(vg.ones(0), 3), lambda: torch.unsafe_chunk(
        torch.ones(0), 3))  # fmt: skip
    assert_same_error(lambda: vg.unsafe_chunk(vg.tensor(1.0), 2),
                      lambda: torch.unsafe_chunk(torch.tensor(1.0), 2))  # fmt: skip
    assert_same_error(lambda: vg.unsafe_chunk(vg.ones(3), 0),
                      lambda: torch.unsafe_chunk(torch.ones(3), 0))  # fmt: skip


# --- module state: parameters, reprs, state_dict -----------------------------------------------


def _nested(nn):
    """A module holding a layer and a cell: their reprs and keys nest under its own."""
    module = nn.Module()
    module.encoder = nn.LSTM(4, 8, num_layers=2)
    module.cell = nn.GRUCell(8, 2)
    return module


@pytest.mark.parametrize(
    "build",
    [
        lambda nn: nn.RNN(10, 20),
        lambda nn: nn.RNN(10, 20, 2, "relu", False, True, 0.5, True),
        lambda nn: nn.LSTM(10, 20, num_layers=2, batch_first=True, bidirectional=True),
        lambda nn: nn.LSTM(10, 20, proj_size=5, bias=False),
        lambda nn: nn.GRU(10, 20, num_layers=3, dropout=0.25),
        lambda nn: nn.RNNCell(10, 20),
        lambda nn: nn.RNNCell(10, 20, bias=False, nonlinearity="relu"),
        lambda nn: nn.LSTMCell(10, 20),
        lambda nn: nn.GRUCell(10, 20, bias=False),
        lambda nn: _nested(nn),
    ],
)
def test_repr_parameters_and_state_dict(build):
    vm, tm = build(vg.nn), build(torch.nn)
    assert repr(vm) == repr(tm)
    assert list(vm.state_dict()) == list(tm.state_dict())
    assert [(n, tuple(p.shape), p.dtype.name) for n, p in vm.named_parameters()] == [
        (n, tuple(p.shape), str(p.dtype).split(".")[-1]) for n, p in tm.named_parameters()
    ]
    if hasattr(tm, "all_weights"):
        assert [[tuple(w.shape) for w in ws] for ws in vm.all_weights] == [
            [tuple(w.shape) for w in ws] for ws in tm.all_weights
        ]
        assert vm.all_weights[0][0] is vm.weight_ih_l0
        assert vm.flatten_parameters() is None
    if hasattr(tm, "bias_ih") and tm.bias_ih is None:
        assert vm.bias_ih is None and vm.bias_hh is None


@pytest.mark.parametrize("name", ["LSTM", "GRUCell"])
def test_default_initialisation(name):
    """Every weight from ``U(-1/sqrt(hidden), 1/sqrt(hidden))``: inside the bounds, with
    the uniform distribution's mean and variance (``bound**2 / 3``)."""
    hidden = 64
    module = getattr(vg.nn, name)(32, hidden)
    bound = 1 / math.sqrt(hidden)
    values = np.concatenate([p.detach().numpy().ravel() for p in module.parameters()])
    assert values.min() >= -bound and values.max() <= bound
    assert abs(values.mean()) < 0.05 * bound
    assert abs(values.var() - bound**2 / 3) < 0.05 * bound**2
    assert values.min() < -0.95 * bound and values.max() > 0.95 * bound


def test_load_state_dict_from_torch_and_replaced_weight():
    tm = torch.nn.GRU(3, 4, num_layers=2).double()
    vm = vg.nn.GRU(3, 4, num_layers=2).double()
    vm.load_state_dict({k: vg.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    x = np.random.default_rng(12).standard_normal((3, 2, 3))
    assert_same(vm(vg.tensor(x)), tm(torch.tensor(x)))
    # A replaced weight is what the next forward uses (``_flat_weights`` follows it).
    new = np.random.default_rng(13).standard_normal((12, 4))
    vm.weight_hh_l1 = vg.nn.Parameter(vg.tensor(new))
    tm.weight_hh_l1 = torch.nn.Parameter(torch.tensor(new))
    assert vm._flat_weights[vm._flat_weights_names.index("weight_hh_l1")] is vm.weight_hh_l1
    assert_same(vm(vg.tensor(x)), tm(torch.tensor(x)))


def test_pickle_round_trip():
    vm = vg.nn.LSTM(3, 4, bidirectional=True).double()
    copy = pickle.loads(pickle.dumps(vm))
    x = vg.tensor(np.random.default_rng(14).standard_normal((2, 1, 3)))
    np.testing.assert_array_equal(copy(x)[0].detach().numpy(), vm(x)[0].detach().numpy())


# --- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "build",
    [
        lambda nn: nn.LSTM(3, 4, dropout=1.5),
        lambda nn: nn.LSTM(3, 4, dropout=True),
        lambda nn: nn.GRU(3, 4, bias=1),
        lambda nn: nn.GRU(3, 4, batch_first=None),
        lambda nn: nn.RNN(3.0, 4),
        lambda nn: nn.RNN(0, 4),
        lambda nn: nn.RNN(3, "4"),
        lambda nn: nn.RNN(3, 0),
        lambda nn: nn.LSTM(3, 4, num_layers=0),
        lambda nn: nn.LSTM(3, 4, proj_size=-1),
        lambda nn: nn.LSTM(3, 4, proj_size=4),
        lambda nn: nn.RNN(3, 4, proj_size=2),
        lambda nn: nn.GRU(3, 4, proj_size=2),
        lambda nn: nn.RNN(3, 4, nonlinearity="sigmoid"),
        lambda nn: nn.RNN(3, 4, 1, "gelu"),
    ],
)
def test_constructor_errors(build):
    assert_same_error(lambda: build(vg.nn), lambda: build(torch.nn))


@pytest.mark.parametrize(
    "name, kwargs, input_shape, state_shapes",
    [
        ("LSTM", {"num_layers": 2, "batch_first": True, "bidirectional": True}, (2, 5, 7), None),
        ("RNN", {}, (5, 2, 7), None),
        ("GRU", {}, (5, 2, 10), [(2, 2, 20)]),
        ("GRU", {"bidirectional": True}, (5, 3, 10), [(1, 3, 20)]),
        ("RNN", {}, (5, 3, 10), [(1, 2, 20)]),
        ("LSTM", {}, (5, 3, 10), [(1, 3, 20), (1, 3, 21)]),
        ("LSTM", {}, (5, 3, 10), [(1, 4, 20), (1, 3, 20)]),
        ("LSTM", {"proj_size": 5}, (5, 3, 10), [(1, 3, 20), (1, 3, 20)]),
        ("RNN", {}, (2, 5, 3, 10), None),
        ("LSTM", {}, (10,), None),
        ("GRU", {}, (5, 3, 10), [(3, 20)]),
        ("GRU", {}, (5, 10), [(1, 1, 20)]),
        ("LSTM", {}, (5, 3, 10), [(3, 20), (1, 3, 20)]),
        ("LSTM", {}, (5, 10), [(1, 1, 20), (1, 20)]),
    ],
)
def test_forward_errors(name, kwargs, input_shape, state_shapes):
    vm, tm = _modules(name, 10, 20, **kwargs)

    def call(lib, module):
        x = lib.zeros(input_shape, dtype=lib.float64)
        if state_shapes is None:
            return module(x)
        states = [lib.zeros(s, dtype=lib.float64) for s in state_shapes]
        return module(x, states[0] if len(states) == 1 else tuple(states))

    assert_same_error(lambda: call(vg, vm), lambda: call(torch, tm))


def test_forward_error_messages_say_the_sizes():
    """The issue's examples, word for word."""
    vm = vg.nn.LSTM(10, 20, num_layers=2, batch_first=True, bidirectional=True)
    with pytest.raises(RuntimeError) as error:
        vm(vg.zeros(3, 5, 7))
    assert str(error.value) == "input.size(-1) must be equal to input_size. Expected 10, got 7"
    vm = vg.nn.GRU(10, 20, num_layers=2)
    with pytest.raises(RuntimeError) as error:
        vm(vg.zeros(5, 3, 10), vg.zeros(2, 4, 20))
    assert str(error.value) == "Expected hidden size (2, 3, 20), got [2, 4, 20]"


def test_dtype_mismatch():
    assert_same_error(lambda: vg.nn.RNN(3, 4)(vg.zeros(2, 1, 3, dtype=vg.float64)),
                      lambda: torch.nn.RNN(3, 4)(torch.zeros(2, 1, 3, dtype=torch.float64)))  # fmt: skip


@pytest.mark.parametrize(
    "name, input_shape, state_shapes",
    [
        ("RNNCell", (2, 3, 3), None),
        ("RNNCell", (2, 3), [(1, 2, 4)]),
        ("GRUCell", (2, 5), None),
        ("GRUCell", (2, 3), [(3, 4)]),
        ("LSTMCell", (1, 2, 3), None),
        ("LSTMCell", (2, 3), [(2, 4), (1, 2, 4)]),
        ("LSTMCell", (2, 3), [(2, 4), (2, 5)]),
        ("GRUCell", (3,), [(2, 4)]),
    ],
)
def test_cell_errors(name, input_shape, state_shapes):
    vm, tm = _modules(name, 3, 4)

    def call(lib, module):
        x = lib.zeros(input_shape, dtype=lib.float64)
        if state_shapes is None:
            return module(x)
        states = [lib.zeros(s, dtype=lib.float64) for s in state_shapes]
        return module(x, states[0] if len(states) == 1 else tuple(states))

    assert_same_error(lambda: call(vg, vm), lambda: call(torch, tm))
