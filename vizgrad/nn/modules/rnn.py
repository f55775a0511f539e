"""Recurrent modules: RNN, LSTM, GRU and their cells (``torch/nn/modules/rnn.py``).

A recurrent layer reads a sequence one step at a time and carries a hidden state from
step to step. The modules own the weights (``weight_ih_l0``, ``weight_hh_l0``,
``bias_ih_l0``, ``bias_hh_l0``, with ``_reverse`` for the second direction of a
bidirectional layer), check their inputs, make the zero initial state when none is
given, and call the operators of ``vizgrad.ops.rnn`` (``torch._VF.lstm``…), which
unroll the sequence on the engine's operators. The cells (``RNNCell``, ``LSTMCell``,
``GRUCell``) are one step, for writing the loop yourself.

A ``PackedSequence`` input (variable-length sequences) is not supported.
"""

from __future__ import annotations

import math
import numbers
import warnings
import weakref

from ...ops import creation
from ...ops import rnn as rnn_ops
from ...tensor import Tensor
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = [
    "RNNBase",
    "RNN",
    "LSTM",
    "GRU",
    "RNNCellBase",
    "RNNCell",
    "LSTMCell",
    "GRUCell",
]

_rnn_impls = {"RNN_TANH": rnn_ops.rnn_tanh, "RNN_RELU": rnn_ops.rnn_relu}


def _apply_permutation(tensor: Tensor, permutation: Tensor, dim: int = 1) -> Tensor:
    return tensor.index_select(dim, permutation)


class RNNBase(Module):
    """``torch.nn.RNNBase``: the weights and checks shared by ``RNN``, ``LSTM`` and ``GRU``.

    For each layer and direction it registers ``weight_ih_l{k}`` (gates x inputs),
    ``weight_hh_l{k}`` (gates x hidden), then, with ``bias``, ``bias_ih_l{k}`` and
    ``bias_hh_l{k}`` (two biases where one would do: cuDNN's layout), and for an LSTM
    with ``proj_size`` ``weight_hr_l{k}``. ``_flat_weights`` lists them in that order,
    which is the order the operators read them in.
    """

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first",
                     "dropout", "bidirectional", "proj_size"]  # fmt: skip

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device=None,
        dtype=None,
    ) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        self._flat_weight_refs = []
        num_directions = 2 if bidirectional else 1

        if (
            not isinstance(dropout, numbers.Number)
            or not 0 <= dropout <= 1
            or isinstance(dropout, bool)
        ):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of "
                "an element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                "dropout expects num_layers greater than 1, but got "
                f"dropout={dropout} and num_layers={num_layers}",
                stacklevel=2,
            )
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(
                f"batch_first should be of type bool, got: {type(batch_first).__name__}"
            )
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections"
            )
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")

        gates = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}.get(mode)
        if gates is None:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = gates * hidden_size

        self._flat_weights_names = []
        self._all_weights = []
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                w_ih = Parameter(creation.empty((gate_size, layer_input_size), **factory_kwargs))
                w_hh = Parameter(creation.empty((gate_size, real_hidden_size), **factory_kwargs))
                b_ih = Parameter(creation.empty(gate_size, **factory_kwargs))
                b_hh = Parameter(creation.empty(gate_size, **factory_kwargs))
                layer_params = (w_ih, w_hh, b_ih, b_hh) if bias else (w_ih, w_hh)
                param_names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    param_names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if proj_size > 0:
                    w_hr = Parameter(creation.empty((proj_size, hidden_size), **factory_kwargs))
                    layer_params += (w_hr,)
                    param_names += ["weight_hr_l{}{}"]
                suffix = "_reverse" if direction == 1 else ""
                param_names = [name.format(layer, suffix) for name in param_names]
                for name, param in zip(param_names, layer_params, strict=True):
                    setattr(self, name, param)
                self._flat_weights_names.extend(param_names)
                self._all_weights.append(param_names)

        self._init_flat_weights()
        self.reset_parameters()

    def _init_flat_weights(self) -> None:
        self._flat_weights = [getattr(self, name) if hasattr(self, name) else None
                              for name in self._flat_weights_names]  # fmt: skip
        self._flat_weight_refs = [weakref.ref(w) if w is not None else None
                                  for w in self._flat_weights]  # fmt: skip
        self.flatten_parameters()

    def __setattr__(self, attr, value) -> None:
        # Keep ``_flat_weights`` up to date when a weight is replaced (``rnn.weight_ih_l0 = ...``).
        if "_flat_weights_names" in self.__dict__ and attr in self._flat_weights_names:
            self._flat_weights[self._flat_weights_names.index(attr)] = value
        super().__setattr__(attr, value)

    def flatten_parameters(self) -> None:
        """Packs the weights into one buffer for cuDNN in PyTorch, on a GPU only.

        On the CPU it does nothing, in PyTorch as here: vizgrad has no cuDNN.
        """

    def _apply(self, fn, recurse=True):
        self._flat_weight_refs = []
        result = super()._apply(fn, recurse)
        self._init_flat_weights()
        return result

    def reset_parameters(self) -> None:
        """Every weight and bias from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def check_input(self, input: Tensor, batch_sizes) -> None:
        if input.dtype != self._flat_weights[0].dtype:
            weight_dtype = self._flat_weights[0].dtype
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight_dtype}). "
                f"Convert input: input.to({weight_dtype}), or convert model: "
                f"model.to({input.dtype})"
            )
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(
                f"input must have {expected_input_dim} dimensions, got {input.dim()}"
            )
        if self.input_size != input.size(-1):
            raise RuntimeError(
                "input.size(-1) must be equal to input_size. Expected "
                f"{self.input_size}, got {input.size(-1)}"
            )

    def get_expected_hidden_size(self, input: Tensor, batch_sizes) -> tuple[int, int, int]:
        mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, size)

    def check_hidden_size(self, hx: Tensor, expected_hidden_size,
                          msg: str = "Expected hidden size {}, got {}") -> None:  # fmt: skip
        if hx.size() != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def _weights_have_changed(self) -> bool:
        """True when a weight was replaced by another object since ``_flat_weights`` was made
        (``torch.func.functional_call`` does it)."""
        for ref, name in zip(self._flat_weight_refs, self._flat_weights_names, strict=True):
            weight = getattr(self, name) if hasattr(self, name) else None
            if weight is not None and ref is not None and ref() is not weight:
                return True
        return False

    def check_forward_args(self, input: Tensor, hidden: Tensor, batch_sizes) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx: Tensor, permutation: Tensor | None):
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _update_flat_weights(self) -> None:
        if self._weights_have_changed():
            self._init_flat_weights()

    def __getstate__(self):
        self._update_flat_weights()
        state = self.__dict__.copy()
        del state["_flat_weight_refs"]  # weak references cannot be pickled
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._flat_weight_refs = [weakref.ref(w) if w is not None else None
                                  for w in self._flat_weights]  # fmt: skip

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The weights of each layer and direction, as lists in ``_flat_weights`` order."""
        return [[getattr(self, weight) for weight in weights] for weights in self._all_weights]

    # --- what RNN and GRU share: one hidden state ------------------------------------------

    def _run_one_hidden(self, operator, input: Tensor, hx: Tensor | None):
        """``RNN.forward`` and ``GRU.forward`` past the input's dimension check: unbatched
        (2-D) input gets a batch dim of 1, and its ``hx`` one too; ``hx`` defaults to zeros
        of ``(layers * directions, batch, hidden)``."""
        self._update_flat_weights()
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
            if hx is not None:
                if hx.dim() != 2:
                    raise RuntimeError(
                        "For unbatched 2-D input, hx should also be 2-D but got "
                        f"{hx.dim()}-D tensor"
                    )
                hx = hx.unsqueeze(1)
        elif hx is not None and hx.dim() != 3:
            raise RuntimeError(
                f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor"
            )
        if hx is None:
            num_directions = 2 if self.bidirectional else 1
            max_batch_size = input.size(0) if self.batch_first else input.size(1)
            hx = creation.zeros(self.num_layers * num_directions, max_batch_size,
                                self.hidden_size, dtype=input.dtype)  # fmt: skip
        else:
            hx = self.permute_hidden(hx, None)
        self.check_forward_args(input, hx, None)
        output, hidden = operator(input, hx, self._flat_weights, self.bias, self.num_layers,
                                  self.dropout, self.training, self.bidirectional,
                                  self.batch_first)  # fmt: skip
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, self.permute_hidden(hidden, None)


class RNN(RNNBase):
    """``torch.nn.RNN``: a stack of Elman layers, ``h_t = tanh(x_t W_ih^T + b_ih +
    h_{t-1} W_hh^T + b_hh)`` (or ``relu`` with ``nonlinearity='relu'``).

    ``RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True,
    batch_first=False, dropout=0.0, bidirectional=False)``; ``forward(input, hx=None)``
    returns ``(output, h_n)``: the last layer's state at every step, and every layer's
    state after the last step.
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(
                f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        super().__init__(mode, *args, **kwargs)

    def forward(self, input: Tensor, hx: Tensor | None = None):
        if input.dim() not in (2, 3):
            raise ValueError(
                f"RNN: Expected input to be 2D or 3D, got {input.dim()}D tensor instead"
            )
        return self._run_one_hidden(_rnn_impls[self.mode], input, hx)


class LSTM(RNNBase):
    """``torch.nn.LSTM``: a stack of LSTM layers. Each step computes four gates from
    ``x_t`` and ``h_{t-1}`` (input ``i``, forget ``f``, cell ``g``, output ``o``),
    ``c_t = f*c_{t-1} + i*g`` and ``h_t = o*tanh(c_t)``; with ``proj_size > 0``, ``h_t``
    is projected to ``proj_size`` features by ``weight_hr_l{k}``.

    ``forward(input, (h_0, c_0)=None)`` returns ``(output, (h_n, c_n))``.
    """

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input: Tensor, batch_sizes) -> tuple[int, int, int]:
        mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input: Tensor, hidden, batch_sizes) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")  # fmt: skip
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")  # fmt: skip

    def permute_hidden(self, hx, permutation: Tensor | None):
        if permutation is None:
            return hx
        return _apply_permutation(hx[0], permutation), _apply_permutation(hx[1], permutation)

    def forward(self, input: Tensor, hx=None):
        self._update_flat_weights()
        num_directions = 2 if self.bidirectional else 1
        real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        if input.dim() not in (2, 3):
            raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D instead")
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
        max_batch_size = input.size(0) if self.batch_first else input.size(1)
        if hx is None:
            layers = self.num_layers * num_directions
            h_zeros = creation.zeros(layers, max_batch_size, real_hidden_size, dtype=input.dtype)
            c_zeros = creation.zeros(layers, max_batch_size, self.hidden_size, dtype=input.dtype)
            hx = (h_zeros, c_zeros)
            self.check_forward_args(input, hx, None)
        else:
            if is_batched:
                if hx[0].dim() != 3 or hx[1].dim() != 3:
                    raise RuntimeError(
                        "For batched 3-D input, hx and cx should also be 3-D but got "
                        f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors"
                    )
            else:
                if hx[0].dim() != 2 or hx[1].dim() != 2:
                    raise RuntimeError(
                        "For unbatched 2-D input, hx and cx should also be 2-D but got "
                        f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors"
                    )
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
            self.check_forward_args(input, hx, None)
            hx = self.permute_hidden(hx, None)
        output, h_n, c_n = rnn_ops.lstm(input, hx, self._flat_weights, self.bias,
                                        self.num_layers, self.dropout, self.training,
                                        self.bidirectional, self.batch_first)  # fmt: skip
        hidden = (h_n, c_n)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = (h_n.squeeze(1), c_n.squeeze(1))
        return output, self.permute_hidden(hidden, None)


class GRU(RNNBase):
    """``torch.nn.GRU``: a stack of GRU layers. Each step computes a reset gate ``r``,
    an update gate ``z`` and a new gate ``n = tanh(W_in x + b_in + r*(W_hn h + b_hn))``,
    and ``h_t = (1 - z)*n + z*h_{t-1}``.

    ``forward(input, hx=None)`` returns ``(output, h_n)``.
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input: Tensor, hx: Tensor | None = None):
        if input.dim() not in (2, 3):
            raise ValueError(f"GRU: Expected input to be 2D or 3D, got {input.dim()}D instead")
        return self._run_one_hidden(rnn_ops.gru, input, hx)


class RNNCellBase(Module):
    """``torch.nn.RNNCellBase``: the weights of one cell, ``weight_ih`` (``num_chunks *
    hidden_size`` x ``input_size``), ``weight_hh``, and the biases ``bias_ih`` and
    ``bias_hh`` (registered as ``None`` without ``bias``)."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device=None, dtype=None) -> None:  # fmt: skip
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        gates = num_chunks * hidden_size
        self.weight_ih = Parameter(creation.empty((gates, input_size), **factory_kwargs))
        self.weight_hh = Parameter(creation.empty((gates, hidden_size), **factory_kwargs))
        if bias:
            self.bias_ih = Parameter(creation.empty(gates, **factory_kwargs))
            self.bias_hh = Parameter(creation.empty(gates, **factory_kwargs))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        """Every weight and bias from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _batched(self, name: str, input: Tensor, hx: Tensor | None):
        """A 1-D input (one sample) becomes a batch of one; ``hx`` defaults to zeros."""
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = creation.zeros(input.size(0), self.hidden_size, dtype=input.dtype)
        elif not is_batched:
            hx = hx.unsqueeze(0)
        return input, hx, is_batched


class RNNCell(RNNCellBase):
    """``torch.nn.RNNCell``: one Elman step, ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)``
    (``relu`` with ``nonlinearity='relu'``)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device=None, dtype=None) -> None:  # fmt: skip
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, hx, is_batched = self._batched("RNNCell", input, hx)
        if self.nonlinearity == "tanh":
            operator = rnn_ops.rnn_tanh_cell
        elif self.nonlinearity == "relu":
            operator = rnn_ops.rnn_relu_cell
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        result = operator(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return result if is_batched else result.squeeze(0)


class LSTMCell(RNNCellBase):
    """``torch.nn.LSTMCell``: one LSTM step, ``(h', c')`` from ``input`` and ``(h, c)``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:  # fmt: skip
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for index, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(
                        f"LSTMCell: Expected hx[{index}] to be 1D or 2D, got {value.dim()}D instead"
                    )
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = creation.zeros(input.size(0), self.hidden_size, dtype=input.dtype)
            hx = (zeros, zeros)
        elif not is_batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        h, c = rnn_ops.lstm_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih,
                                 self.bias_hh)  # fmt: skip
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """``torch.nn.GRUCell``: one GRU step, ``h'`` from ``input`` and ``h``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:  # fmt: skip
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, hx, is_batched = self._batched("GRUCell", input, hx)
        result = rnn_ops.gru_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih,
                                  self.bias_hh)  # fmt: skip
        return result if is_batched else result.squeeze(0)
