"""Run the examples of PyTorch's own documentation with vizgrad in torch's place.

Every function's docstring in torch ends with ``>>>`` examples. This module runs each
example twice, line by line: once with ``torch`` bound to PyTorch, once with ``torch``
bound to vizgrad, and compares the value of every expression line (the lines whose
printed value the docs show), or the exception class when torch raises.

Random inputs (``torch.randn(3, 3)``) would differ between the two libraries, whose
generators are not the same: the PyTorch run records what each random constructor
returned, and the vizgrad run replays those values, in order, as vizgrad tensors. A
replayed tensor holds the values torch's tensor ended with, so a random fill that an
example chains on (``torch.randn(4).uniform_(1, 2)``) keeps them in the vizgrad run.
``import torch`` and ``from torch.linalg import multi_dot`` in an example import
vizgrad's modules in the vizgrad run. That lets the examples keep their own code while
comparing like with like.
"""

from __future__ import annotations

import builtins
import contextlib
import doctest
import functools
import importlib
import math
import numbers
from unittest import mock

import numpy as np
import torch

import vizgrad as vg

# torch's constructors of random (or uninitialised) values, replayed in the vizgrad run.
RANDOM_CONSTRUCTORS = frozenset({
    "rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like",
    "normal", "bernoulli", "multinomial", "poisson", "empty", "empty_like",
})  # fmt: skip
# The in-place random fills of a tensor; on a replayed tensor they keep torch's values.
RANDOM_FILLS = ("uniform_", "normal_", "random_", "exponential_", "cauchy_", "log_normal_",
                "geometric_", "bernoulli_")  # fmt: skip


def documented(qualified_name: str):
    """``torch.<qualified_name>`` (``"linalg.det"``, ``"Tensor.view"``)."""
    obj = torch
    for part in qualified_name.split("."):
        obj = getattr(obj, part)
    return obj


def examples(qualified_name: str) -> list[str]:
    """The source of each ``>>>`` example of ``torch.<qualified_name>``'s docstring."""
    doc = documented(qualified_name).__doc__ or ""
    return [example.source for example in doctest.DocTestParser().get_examples(doc)]


class _Recorder:
    """``torch`` for the PyTorch run: random constructors' results are kept, in order."""

    def __init__(self):
        self.recorded: list[torch.Tensor] = []

    def __getattr__(self, name):
        value = getattr(torch, name)
        if name not in RANDOM_CONSTRUCTORS:
            return value

        def record(*args, **kwargs):
            result = value(*args, **kwargs)
            self.recorded.append(result)
            return result

        return record


class _Replayer:
    """``torch`` for the vizgrad run: vizgrad, but random constructors give back, in
    order, what PyTorch's gave in the first run."""

    def __init__(self, recorded):
        self._recorded = list(recorded)
        self.replayed: set[int] = set()  # ids of the tensors handed out

    def __getattr__(self, name):
        if name not in RANDOM_CONSTRUCTORS:
            return getattr(vg, name)

        def replay(*args, **kwargs):
            if not self._recorded:
                raise AssertionError(f"vizgrad's run called torch.{name} more times than torch's")
            recorded = self._recorded.pop(0)
            result = vg.from_numpy(recorded.detach().resolve_conj().numpy().copy())
            self.replayed.add(id(result))
            return result.requires_grad_(recorded.requires_grad)

        return replay

    @contextlib.contextmanager
    def random_fills_kept(self):
        """While an example runs, a random fill of a replayed tensor leaves it as it is:
        it already holds the values torch's fill drew."""
        replayed = self.replayed

        def keep_or_fill(fill):
            def fill_unless_replayed(tensor, *args, **kwargs):
                return tensor if id(tensor) in replayed else fill(tensor, *args, **kwargs)

            return fill_unless_replayed

        with contextlib.ExitStack() as stack:
            for name in RANDOM_FILLS:
                fill = getattr(vg.Tensor, name, None)
                if fill is None:  # a fill vizgrad lacks fails in the example, as it should
                    continue
                stack.enter_context(mock.patch.object(vg.Tensor, name, keep_or_fill(fill)))
            yield


def _import_as(library: str):
    """``__import__`` for an example's namespace: ``torch`` (and ``torch.linalg``…) is
    ``library``'s module of that name."""

    def import_(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "torch" or name.startswith("torch."):
            module = importlib.import_module(library + name.removeprefix("torch"))
            return module if fromlist else importlib.import_module(library)
        return builtins.__import__(name, globals, locals, fromlist, level)

    return import_


def _namespace(torch_name, library: str) -> dict:
    """What an example sees: ``torch`` and the modules PyTorch's examples use unimported."""
    return {"torch": torch_name, "math": math, "np": np, "functools": functools,
            "__builtins__": {**vars(builtins), "__import__": _import_as(library)}}  # fmt: skip


def _run_line(source: str, namespace: dict):
    """The value of an expression line (or None for a statement), or the exception."""
    try:
        try:
            code = compile(source, "<doc example>", "eval")
        except SyntaxError:
            exec(compile(source, "<doc example>", "exec"), namespace)
            return ("value", None)
        return ("value", eval(code, namespace))
    except Exception as error:  # noqa: BLE001 - compared with the other library's outcome
        return ("error", error)


def run_both(qualified_name: str) -> list[tuple[str, tuple, tuple]]:
    """Each example line with its outcome in PyTorch and in vizgrad."""
    sources = examples(qualified_name)
    recorder = _Recorder()
    torch.manual_seed(0)
    torch_space = _namespace(recorder, "torch")
    torch_outcomes = [_run_line(source, torch_space) for source in sources]
    replayer = _Replayer(recorder.recorded)
    vizgrad_space = _namespace(replayer, "vizgrad")
    with replayer.random_fills_kept():
        vizgrad_outcomes = [_run_line(source, vizgrad_space) for source in sources]
    return list(zip(sources, torch_outcomes, vizgrad_outcomes, strict=True))


def _as_comparable(value):
    """A plain Python/NumPy form of a result of either library, for comparison."""
    if isinstance(value, (torch.Tensor, vg.Tensor)) and value.is_sparse:
        # No NumPy form: its printout shows all it holds (indices, values, size, dtype).
        return ("sparse", repr(value).replace("torch.", "vizgrad."))
    if isinstance(value, torch.Tensor):
        value = value.detach().resolve_conj().resolve_neg()
        return ("tensor", str(value.dtype).removeprefix("torch."), value.numpy())
    if isinstance(value, vg.Tensor):
        value = value.detach().resolve_conj().resolve_neg()
        return ("tensor", value.dtype.name, value.numpy())
    if isinstance(value, (torch.dtype, vg.dtype)):
        return ("dtype", str(value).split(".")[-1])
    if isinstance(value, (torch.Size, vg.Size)):
        return ("size", tuple(value))
    if isinstance(value, (list, tuple)):
        return ("sequence", [_as_comparable(item) for item in value])
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, numbers.Number):
        return ("number", complex(value))
    return ("other", repr(value).replace("torch.", "vizgrad."))


def _dtype_name(name: str) -> str:
    return {"float": "float32", "double": "float64", "long": "int64", "int": "int32",
            "half": "float16", "cfloat": "complex64", "cdouble": "complex128"}.get(name, name)  # fmt: skip


def assert_same_outcome(source: str, expected: tuple, actual: tuple, *, values=True) -> None:
    """The vizgrad outcome of one example line equals PyTorch's (without ``values``, only
    the kind, dtype and shape of a result: ``new_empty``'s memory is uninitialised)."""
    if expected[0] == "error":
        assert actual[0] == "error", (
            f"{source!r}: torch raised {expected[1]!r}, vizgrad gave {actual[1]!r}"
        )
        assert type(actual[1]).__name__ == type(expected[1]).__name__, (
            f"{source!r}: torch raised {expected[1]!r}, vizgrad raised {actual[1]!r}"
        )
        return
    if actual[0] == "error":
        raise AssertionError(f"{source!r}: vizgrad raised {actual[1]!r}") from actual[1]
    _assert_same_value(source, _as_comparable(expected[1]), _as_comparable(actual[1]), values)


def _assert_same_value(source, expected, actual, values=True) -> None:
    assert expected[0] == actual[0], f"{source!r}: torch gave {expected}, vizgrad gave {actual}"
    kind = expected[0]
    if kind == "tensor":
        assert _dtype_name(actual[1]) == _dtype_name(expected[1]), (
            f"{source!r}: dtype {actual[1]} != {expected[1]}"
        )
        assert actual[2].shape == expected[2].shape, (
            f"{source!r}: shape {actual[2].shape} != {expected[2].shape}"
        )
        if not values:
            return
        np.testing.assert_allclose(
            actual[2], expected[2], rtol=1e-5, atol=1e-6, equal_nan=True, err_msg=source
        )
    elif kind == "sequence":
        assert len(actual[1]) == len(expected[1]), (
            f"{source!r}: {len(actual[1])} results != {len(expected[1])}"
        )
        for e, a in zip(expected[1], actual[1], strict=True):
            _assert_same_value(source, e, a, values)
    elif kind == "number":
        assert np.isclose(actual[1], expected[1], rtol=1e-5, atol=1e-6, equal_nan=True), (
            f"{source!r}: {actual[1]} != {expected[1]}"
        )
    elif kind == "dtype":
        assert _dtype_name(actual[1]) == _dtype_name(expected[1]), source
    else:
        assert actual[1] == expected[1], f"{source!r}: {actual[1]!r} != {expected[1]!r}"
