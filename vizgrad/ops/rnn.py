"""Recurrent layers: ``rnn_tanh``, ``rnn_relu``, ``lstm``, ``gru`` and their cells (``RNN.cpp``).

A recurrent layer runs one *cell* over a sequence: at each step the cell mixes the
step's input with the hidden state it carries, and the new hidden state is both that
step's output and the next step's memory. As in PyTorch these operators are
CompositeImplicitAutograd: they are written with other operators (``addmm``,
``sigmoid_``, ``tanh``, ``mul``, ``stack``…), each of which records its own node, so
the backward graph of an LSTM is the real unrolled graph, step by step.

The pieces, as ``RNN.cpp`` writes them for the CPU:

* a **cell** maps ``(input, hidden)`` to the new hidden state (for an LSTM a pair
  ``(h, c)``). ``RNN``: ``tanh(W_ih x + b_ih + W_hh h + b_hh)``; ``LSTM``: four gates
  in the order input, forget, cell, output (``i, f, g, o``), ``c' = f*c + i*g``,
  ``h' = o*tanh(c')``; ``GRU``: gates reset, update, new (``r, z, n``) with the reset
  gate applied to ``W_hn h + b_hn``, ``h' = (h - n)*z + n``;
* a **layer** projects the whole sequence through ``W_ih`` at once (one matrix
  product instead of one per step), ``unbind``s it into steps, runs the cell over
  them and ``stack``s the outputs; a bidirectional layer runs a second cell over the
  steps reversed and ``cat``s both outputs along the features;
* a **stack** feeds each layer's output to the next (through ``dropout`` while
  training), and ``stack``s the final hidden states of all layers.

PyTorch's CPU LSTM takes a oneDNN kernel (node ``MkldnnRnnLayerBackward0``) for
float32 inputs when it can; vizgrad always runs the default implementation above, the
one PyTorch runs for float64 (or with ``torch.backends.mkldnn`` disabled). The
``.data`` overloads (a ``PackedSequence``'s data and batch sizes) are not declared.
"""

from __future__ import annotations

from ..dispatcher import COMPOSITE_IMPLICIT
from ..tensor import Tensor
from .arithmetic import add, mul, sub
from .declaration import native_function
from .dropout import dropout
from .joining import cat, stack
from .linalg import addmm, matmul
from .permutations import t, transpose
from .shape_views import _view as view
from .shape_views import reshape
from .splitting import unbind, unsafe_chunk
from .unary import relu, sigmoid, tanh

__all__ = [
    "rnn_tanh",
    "rnn_relu",
    "lstm",
    "gru",
    "rnn_tanh_cell",
    "rnn_relu_cell",
    "lstm_cell",
    "gru_cell",
]

# The overloads the cells call, straight to the dispatcher (no Python argument
# parsing): a step of an LSTM makes a dozen calls, a sequence thousands. A direct call
# passes every argument the schema has, defaults too (``alpha=1``), as the parser would.
_dropout = dropout.overloads["dropout"]
_addmm_op = addmm.overloads["addmm"]
_matmul = matmul.overloads["matmul"]
_t = t.overloads["t"]
_reshape = reshape.overloads["reshape"]
_view = view.overloads["view"]
_add_op, _add_inplace_op = add.overloads["add.Tensor"], add.overloads["add_.Tensor"]
_sub_op = sub.overloads["sub.Tensor"]
_mul, _mul_ = mul.overloads["mul.Tensor"], mul.overloads["mul_.Tensor"]
_sigmoid_ = sigmoid.overloads["sigmoid_"]
_tanh, _tanh_ = tanh.overloads["tanh"], tanh.overloads["tanh_"]
_relu = relu.overloads["relu"]
_unbind = unbind.overloads["unbind.int"]
_unsafe_chunk = unsafe_chunk.overloads["unsafe_chunk"]
_stack = stack.overloads["stack"]
_cat = cat.overloads["cat"]
_transpose = transpose.overloads["transpose.int"]
_transpose_ = transpose.overloads["transpose_"]


def _add(self: Tensor, other: Tensor) -> Tensor:
    return _add_op(self, other, alpha=1)


def _add_(self: Tensor, other: Tensor) -> Tensor:
    return _add_inplace_op(self, other, alpha=1)


def _sub(self: Tensor, other: Tensor) -> Tensor:
    return _sub_op(self, other, alpha=1)


def _addmm(bias: Tensor, mat1: Tensor, mat2: Tensor) -> Tensor:
    return _addmm_op(bias, mat1, mat2, beta=1, alpha=1)


# --- the projections: ``at::linear``, as the cells call it --------------------------------


def _linear(input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
    """``at::linear(input, weight, bias)``: ``input @ weight.T + bias``, composed as
    PyTorch composes it on the CPU, so the same nodes are recorded.

    A 2-D input with a bias is one fused ``addmm`` (``AddmmBackward0``); a contiguous
    3-D one (a whole sequence) is flattened to 2-D, ``addmm``-ed and viewed back
    (``ViewBackward0``); anything else is a ``matmul`` plus the bias added in place.
    """
    if bias is not None:
        if input.dim() == 2:
            return _addmm(bias, input, _t(weight))
        if input.is_contiguous() and (input.dim() == 3 or bias.dim() == 1):
            sizes = input._size
            rows = 1
            for size in sizes[:-1]:
                rows *= size
            result = _addmm(bias, _reshape(input, (rows, sizes[-1])), _t(weight))
            return _view(result, (*sizes[:-1], result._size[1]))
    output = _matmul(input, _t(weight))
    if bias is not None:
        _add_(output, bias)
    return output


class _CellParams:
    """One direction of one layer's weights (``CellParams``): ``w_ih``, ``w_hh``, the
    optional biases and, for an LSTM with projections, ``w_hr``."""

    __slots__ = ("w_ih", "w_hh", "b_ih", "b_hh", "w_hr")

    def __init__(self, w_ih, w_hh, b_ih=None, b_hh=None, w_hr=None):
        self.w_ih, self.w_hh, self.b_ih, self.b_hh, self.w_hr = w_ih, w_hh, b_ih, b_hh, w_hr

    def linear_ih(self, input: Tensor) -> Tensor:
        return _linear(input, self.w_ih, self.b_ih)

    def linear_hh(self, hidden: Tensor) -> Tensor:
        return _linear(hidden, self.w_hh, self.b_hh)

    def matmul_hr(self, hidden: Tensor) -> Tensor:
        """An LSTM's projection of ``h`` to ``proj_size`` features (``h @ W_hr.T``)."""
        return hidden if self.w_hr is None else _matmul(hidden, _t(self.w_hr))


def _gather_params(params, has_biases: bool, has_projections: bool = False):
    """The flat list ``[w_ih, w_hh, b_ih, b_hh, (w_hr), ...]`` cut into one
    ``_CellParams`` per layer and direction, as the module lists its weights."""
    per_cell = (4 if has_biases else 2) + (1 if has_projections else 0)
    if len(params) % per_cell:
        raise RuntimeError("got an incorrect number of RNN parameters")
    cells = []
    for i in range(0, len(params), per_cell):
        w = params[i : i + per_cell]
        biases = (w[2], w[3]) if has_biases else (None, None)
        cells.append(_CellParams(w[0], w[1], *biases, w[-1] if has_projections else None))
    return cells


# --- the cells: one step ---------------------------------------------------------------


def _simple_cell(nonlinearity):
    """An Elman cell (``SimpleCell``): ``nonlinearity(W_hh h + b_hh + W_ih x + b_ih)``."""

    def cell(input, hidden, params, pre_compute_input=False):
        gates = params.linear_hh(hidden)
        return nonlinearity(_add_(gates, input if pre_compute_input else params.linear_ih(input)))

    return cell


def _lstm_cell(input, hidden, params, pre_compute_input=False):
    """``LSTMCell``: the four gates ``i, f, g, o`` from one product, squashed in place."""
    hx, cx = hidden
    gates = _add_(params.linear_hh(hx), input if pre_compute_input else params.linear_ih(input))
    ingate, forgetgate, cellgate, outgate = _unsafe_chunk(gates, 4, 1)
    ingate, forgetgate = _sigmoid_(ingate), _sigmoid_(forgetgate)
    cellgate, outgate = _tanh_(cellgate), _sigmoid_(outgate)
    cy = _add_(_mul(forgetgate, cx), _mul(ingate, cellgate))
    hy = _mul(outgate, _tanh(cy))
    return params.matmul_hr(hy), cy


def _gru_cell(input, hidden, params, pre_compute_input=False):
    """``GRUCell``: reset and update gates from both products, then the new gate, whose
    hidden part ``W_hn h + b_hn`` is scaled by the reset gate before it is added."""
    igates = _unsafe_chunk(input if pre_compute_input else params.linear_ih(input), 3, 1)
    hgates = _unsafe_chunk(params.linear_hh(hidden), 3, 1)
    reset_gate = _sigmoid_(_add_(hgates[0], igates[0]))
    input_gate = _sigmoid_(_add_(hgates[1], igates[1]))
    new_gate = _tanh_(_add(igates[2], _mul_(hgates[2], reset_gate)))
    return _add_(_mul_(_sub(hidden, new_gate), input_gate), new_gate)


def _hidden_as_output(hidden):
    """A step's output: the hidden state (``h`` of an LSTM's ``(h, c)``)."""
    return hidden[0] if isinstance(hidden, tuple) else hidden


# --- layers: a cell over a sequence ------------------------------------------------------

_EMPTY_SEQUENCE = "Expected sequence length to be larger than 0 in RNN"


def _run_steps(cell, steps, hidden, params):
    outputs = []
    for step in steps:
        hidden = cell(step, hidden, params, True)
        outputs.append(_hidden_as_output(hidden))
    return outputs, hidden


def _full_layer(cell, input, hidden, params):
    """``FullLayer``: ``W_ih`` applied to every step at once, then the cell step by step."""
    outputs, hidden = _run_steps(cell, _unbind(params.linear_ih(input), 0), hidden, params)
    if not outputs:
        raise RuntimeError(_EMPTY_SEQUENCE)
    return _stack(outputs, 0), hidden


def _bidirectional_layer(cell, input, hidden, params):
    """``FullBidirectionalLayer``: a forward pass, a pass over the reversed steps with
    the second direction's weights, and both outputs side by side along the features."""
    fw_output, fw_hidden = _full_layer(cell, input, hidden[0], params[0])
    steps = _unbind(params[1].linear_ih(input), 0)
    rev_outputs, rev_hidden = _run_steps(cell, reversed(steps), hidden[1], params[1])
    rev_outputs.reverse()
    rev_output = _stack(rev_outputs, 0)
    return _cat([fw_output, rev_output], fw_output.dim() - 1), (fw_hidden, rev_hidden)


def _pairs(values: list) -> list:
    if len(values) % 2:
        raise RuntimeError("Odd number of params or hiddens given to a bidirectional RNN")
    return [(values[i], values[i + 1]) for i in range(0, len(values), 2)]


def _apply_layer_stack(layer, cell, input, hiddens, params, num_layers, dropout_p, train):
    """Each layer's output is the next layer's input, through dropout while training
    (not after the last layer); returns the last output and every layer's final state."""
    if num_layers != len(hiddens):
        raise RuntimeError("Expected more hidden states in stacked_rnn")
    if num_layers != len(params):
        raise RuntimeError("Expected more weights in stacked_rnn")
    final_hiddens = []
    for layer_index in range(num_layers):
        input, final_hidden = layer(cell, input, hiddens[layer_index], params[layer_index])
        final_hiddens.append(final_hidden)
        if dropout_p != 0 and train and layer_index < num_layers - 1:
            input = _dropout(input, dropout_p, True)
    return input, final_hiddens


def _rnn_impl(cell, input, params, hiddens, num_layers, dropout_p, train, bidirectional):
    if not bidirectional:
        return _apply_layer_stack(_full_layer, cell, input, hiddens, params, num_layers,
                                  dropout_p, train)  # fmt: skip
    output, final_hiddens = _apply_layer_stack(
        _bidirectional_layer, cell, input, _pairs(hiddens), _pairs(params), num_layers,
        dropout_p, train,
    )  # fmt: skip
    return output, [h for pair in final_hiddens for h in pair]


# --- the operators -------------------------------------------------------------------------

_LAYER_ARGUMENTS = (
    "Tensor[] params, bool has_biases, int num_layers, float dropout, bool train, "
    "bool bidirectional, bool batch_first"
)


def _one_hidden_rnn(cell):
    """``rnn_tanh``, ``rnn_relu`` and ``gru`` (``ONE_HIDDEN_RNN``): one hidden state per
    layer and direction, ``hx`` of shape ``(layers * directions, batch, hidden)``."""

    def rnn(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
            batch_first):  # fmt: skip
        if batch_first:
            input = _transpose(input, 0, 1)
        output, final_hiddens = _rnn_impl(
            cell, input, _gather_params(params, has_biases), list(_unbind(hx, 0)),
            num_layers, dropout, train, bidirectional,
        )  # fmt: skip
        hy = _stack(final_hiddens, 0)
        if batch_first:
            _transpose_(output, 0, 1)
        return output, hy

    return rnn


def _lstm_kernel(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                 batch_first):  # fmt: skip
    """``lstm.input``: as ``rnn_tanh``, with a pair ``(h, c)`` per layer and direction.
    ``h`` narrower than ``c`` means the LSTM projects ``h`` (``proj_size``)."""
    if len(hx) != 2:
        raise RuntimeError("lstm expects two hidden states")
    has_projections = hx[0].size(2) != hx[1].size(2)
    if batch_first:
        input = _transpose(input, 0, 1)
    # One ``(h, c)`` per layer and direction, as many as ``h_0`` has (``_lstm_impl``).
    layer_hx, layer_cx = _unbind(hx[0], 0), _unbind(hx[1], 0)
    hiddens = [(h, layer_cx[i]) for i, h in enumerate(layer_hx)]
    output, final_hiddens = _rnn_impl(
        _lstm_cell, input, _gather_params(params, has_biases, has_projections), hiddens,
        num_layers, dropout, train, bidirectional,
    )  # fmt: skip
    hy = _stack([h for h, _ in final_hiddens], 0)
    cy = _stack([c for _, c in final_hiddens], 0)
    if batch_first:
        output = _transpose(output, 0, 1)
    return output, hy, cy


rnn_tanh = native_function(
    f"rnn_tanh.input(Tensor input, Tensor hx, {_LAYER_ARGUMENTS}) -> (Tensor, Tensor)",
    kernel=_one_hidden_rnn(_simple_cell(_tanh)),
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.rnn_tanh``: a stack of Elman RNN layers with ``tanh``: ``(output, h_n)``.",
)
rnn_relu = native_function(
    f"rnn_relu.input(Tensor input, Tensor hx, {_LAYER_ARGUMENTS}) -> (Tensor, Tensor)",
    kernel=_one_hidden_rnn(_simple_cell(_relu)),
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.rnn_relu``: a stack of Elman RNN layers with ``relu``: ``(output, h_n)``.",
)
gru = native_function(
    f"gru.input(Tensor input, Tensor hx, {_LAYER_ARGUMENTS}) -> (Tensor, Tensor)",
    kernel=_one_hidden_rnn(_gru_cell),
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.gru``: a stack of GRU layers: ``(output, h_n)``.",
)
lstm = native_function(
    f"lstm.input(Tensor input, Tensor[] hx, {_LAYER_ARGUMENTS}) -> (Tensor, Tensor, Tensor)",
    kernel=_lstm_kernel,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.lstm``: a stack of LSTM layers: ``(output, h_n, c_n)``.",
)


# --- the cells as operators ----------------------------------------------------------------


def _check_cell_input(input: Tensor, input_size: int) -> None:
    if input.size(1) != input_size:
        raise RuntimeError(
            f"input has inconsistent input_size: got {input.size(1)} expected {input_size}"
        )


def _check_cell_hidden(input: Tensor, hx: Tensor, hidden_size: int, label: int) -> None:
    if input.size(0) != hx.size(0):
        raise RuntimeError(
            f"Input batch size {input.size(0)} doesn't match hidden{label} batch size {hx.size(0)}"
        )
    if hx.size(1) != hidden_size:
        raise RuntimeError(
            f"hidden{label} has inconsistent hidden_size: got {hx.size(1)}, expected {hidden_size}"
        )


def _check_cell_weights(w_ih: Tensor, w_hh: Tensor, gates: int, hidden_size: int) -> None:
    for name, weight in (("weight_ih", w_ih), ("weight_hh", w_hh)):
        if weight.size(0) != gates * hidden_size:
            raise RuntimeError(
                f"{name} first dim must be {gates} * hidden_size = {gates * hidden_size}, "
                f"but got {weight.size(0)}"
            )


def _simple_cell_kernel(nonlinearity):
    """``rnn_tanh_cell``/``rnn_relu_cell``: one step of an Elman RNN."""
    cell = _simple_cell(nonlinearity)

    def kernel(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
        hidden_size = w_hh.size(1)
        _check_cell_weights(w_ih, w_hh, 1, hidden_size)
        _check_cell_input(input, w_ih.size(1))
        _check_cell_hidden(input, hx, hidden_size, 0)
        return cell(input, hx, _CellParams(w_ih, w_hh, b_ih, b_hh))

    return kernel


def _lstm_cell_kernel(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    hidden_size = w_hh.size(1)
    _check_cell_input(input, w_ih.size(1))
    _check_cell_weights(w_ih, w_hh, 4, hidden_size)
    _check_cell_hidden(input, hx[0], hidden_size, 0)
    _check_cell_hidden(input, hx[1], hidden_size, 1)
    return _lstm_cell(input, (hx[0], hx[1]), _CellParams(w_ih, w_hh, b_ih, b_hh))


def _gru_cell_kernel(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    hidden_size = w_hh.size(1)
    _check_cell_input(input, w_ih.size(1))
    _check_cell_hidden(input, hx, hidden_size, 0)
    _check_cell_weights(w_ih, w_hh, 3, hidden_size)
    return _gru_cell(input, hx, _CellParams(w_ih, w_hh, b_ih, b_hh))


_CELL_ARGUMENTS = "Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, Tensor? b_hh=None"

rnn_tanh_cell = native_function(
    f"rnn_tanh_cell(Tensor input, Tensor hx, {_CELL_ARGUMENTS}) -> Tensor",
    kernel=_simple_cell_kernel(_tanh),
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.rnn_tanh_cell``: ``tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)``.",
)
rnn_relu_cell = native_function(
    f"rnn_relu_cell(Tensor input, Tensor hx, {_CELL_ARGUMENTS}) -> Tensor",
    kernel=_simple_cell_kernel(_relu),
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.rnn_relu_cell``: ``relu(x W_ih^T + b_ih + h W_hh^T + b_hh)``.",
)
lstm_cell = native_function(
    f"lstm_cell(Tensor input, Tensor[] hx, {_CELL_ARGUMENTS}) -> (Tensor, Tensor)",
    kernel=_lstm_cell_kernel,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.lstm_cell``: one LSTM step, ``(h', c')`` from ``input`` and ``hx = (h, c)``.",
)
gru_cell = native_function(
    f"gru_cell(Tensor input, Tensor hx, {_CELL_ARGUMENTS}) -> Tensor",
    kernel=_gru_cell_kernel,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.gru_cell``: one GRU step, ``h'`` from ``input`` and ``hx``.",
)
