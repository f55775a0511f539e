"""Lesson 10 — writing your own operator: a custom ``vizgrad.autograd.Function`` checked
with ``gradcheck``, and how it maps onto PyTorch's kernels (``native_functions.yaml``)
and derivative formulas (``derivatives.yaml``).

Every written backward is checked twice: with ``gradcheck`` (finite differences) and
against the gradient vizgrad's own operators give for the same function.
"""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path

import numpy as np

import vizgrad as vg
from vizgrad.autograd import Function, GradcheckError, gradcheck
from vizgrad.autograd.formula import Saved
from vizgrad.ops import arithmetic

from .exercise import Part, Wrong, exercise, require_all
from .lesson07 import numbers_of

__all__ = ["make_cube", "make_mul", "vizgrad_declaration", "pytorch_yaml_entry"]

# float64 inputs away from 0, so finite differences are accurate and x, y never vanish.
X_VALUES = [0.7, -1.3, 2.1]
Y_VALUES = [1.5, 0.4, -0.9]
GRAD_OUT = [1.0, -2.0, 0.5]  # not all ones, so a backward that ignores grad is caught


def _inputs(values, requires_grad=True):
    return vg.tensor(values, dtype=vg.float64, requires_grad=requires_grad)


# --- showing the declarations ----------------------------------------------------------


def vizgrad_declaration(name: str = "mul") -> str:
    """The source lines that declare ``name`` in ``vizgrad/ops/arithmetic.py``."""
    lines = Path(inspect.getsourcefile(arithmetic)).read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{name} = native_function("))
    end = next(i for i in range(start + 1, len(lines)) if lines[i] == ")")
    return "\n".join(lines[start : end + 1])


_YAML_FILES = {
    "native_functions.yaml": ("packaged", "ATen", "native", "native_functions.yaml"),
    "derivatives.yaml": ("packaged", "autograd", "derivatives.yaml"),
}


def pytorch_yaml_entry(file: str, schema_name: str) -> str:
    """The entry for ``schema_name`` (``mul.Tensor``) in PyTorch's own yaml file, read from
    the copy that ships with torch (``torchgen/packaged``), without importing torch."""
    spec = importlib.util.find_spec("torchgen")
    if spec is None or not spec.submodule_search_locations:
        return f"(torch is not installed here: cannot show {file})"
    path = Path(next(iter(spec.submodule_search_locations))).joinpath(*_YAML_FILES[file])
    if not path.exists():
        return f"({file} is not in this torch installation)"
    key = "- func: " if file == "native_functions.yaml" else "- name: "
    block: list[str] = []
    for line in path.read_text().splitlines():
        if block:
            if line.startswith("- ") or not line.strip():
                break
            block.append(line)
        elif line.startswith(f"{key}{schema_name}("):
            block.append(line)
    return "\n".join(block) or f"(no entry {schema_name} in {file})"


# --- exercise 1: the backward of x ** 3 -------------------------------------------------


def make_cube(backward):
    """A ``Function`` computing x ** 3 (saving x) with the given ``backward``."""

    class Cube(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

    Cube.backward = staticmethod(backward)
    return Cube


def _run_backward(function, inputs, grad_out):
    """The gradients the engine gets from ``function``'s backward, or Wrong with the error."""
    try:
        out = function.apply(*inputs)
        wanted = [t for t in inputs if t.requires_grad]
        return vg.autograd.grad(out, wanted, grad_out, allow_unused=True)
    except Wrong:
        raise
    except Exception as error:  # noqa: BLE001 - the student's backward may raise anything
        raise Wrong(f"running backward raised {type(error).__name__}: {error}") from None


def _gradcheck_message(function, inputs) -> str | None:
    """None if gradcheck passes, else the first line of its complaint."""
    try:
        gradcheck(function.apply, inputs)
    except GradcheckError as error:
        return str(error).splitlines()[0]
    except Exception as error:  # noqa: BLE001
        return f"{type(error).__name__}: {error}"
    return None


@exercise(
    "10.cube_backward",
    "Cube.forward computes x ** 3 and saves x. Write its backward(ctx, grad): the gradient "
    "of the input, given the gradient of the output.",
    hints=(
        "Read x back with (x,) = ctx.saved_tensors.",
        "d(x³)/dx = 3x². The chain rule multiplies it by the incoming gradient.",
        "return grad * 3 * x * x",
    ),
    solution="""
def backward(ctx, grad):
    (x,) = ctx.saved_tensors
    return grad * 3 * x * x

answer = backward
check("10.cube_backward", answer)
""",
    explanation="backward returns one gradient per input of forward: the incoming gradient "
    "times the local derivative 3x² (a vector-Jacobian product with a diagonal Jacobian). "
    "gradcheck agrees with finite differences.",
)
def _(answer):
    if not callable(answer):
        raise Wrong(f"answer with the function backward itself, not a {type(answer).__name__}.")
    cube = make_cube(answer)
    x, grad_out = _inputs(X_VALUES), vg.tensor(GRAD_OUT, dtype=vg.float64)
    (got,) = _run_backward(cube, (x,), grad_out)
    if got is None:
        raise Wrong("backward returned None for x: x requires grad, so it needs a gradient.")
    got = numbers_of(got)
    xs, g = np.asarray(X_VALUES), np.asarray(GRAD_OUT)
    (expected,) = vg.autograd.grad(x**3, x, grad_out)  # vizgrad's own PowBackward0
    if np.allclose(got, numbers_of(expected)):
        problem = _gradcheck_message(cube, (_inputs(X_VALUES),))
        if problem:
            raise Wrong(f"the values are right but gradcheck fails: {problem}")
        return
    if np.allclose(got, 3 * xs**2):
        raise Wrong("that is 3x², the derivative alone: multiply by the incoming gradient "
                    "grad (the chain rule); with grad = [1, -2, 0.5] it matters.")  # fmt: skip
    if np.allclose(got, g * xs**2) or np.allclose(got, g * 3 * xs):
        raise Wrong("grad is used, but the derivative is wrong: d(x³)/dx = 3x².")
    raise Wrong("the gradient differs from the derivative of x³; gradcheck says: "
                f"{_gradcheck_message(cube, (_inputs(X_VALUES),))}")  # fmt: skip


# --- exercise 2: needs_input_grad ------------------------------------------------------


def make_mul(backward, log: list | None = None):
    """A ``Function`` computing x * y (saving both) with the given ``backward``; ``log``
    collects what each call of backward returned."""

    def logged_backward(ctx, grad):
        result = backward(ctx, grad)
        if log is not None:
            log.append(result if isinstance(result, tuple) else (result,))
        return result

    class Mul(Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y

    Mul.backward = staticmethod(logged_backward)
    return Mul


@exercise(
    "10.needs_input_grad",
    "Mul.forward computes x * y and saves both. Write backward(ctx, grad) returning the "
    "gradients of x and y, and None for an input whose ctx.needs_input_grad is False.",
    hints=(
        "Return a tuple with one entry per input of forward: (gradient of x, gradient of y).",
        "The product rule: d(xy)/dx = y, d(xy)/dy = x, each times grad.",
        "ctx.needs_input_grad is a tuple of booleans, one per input: compute a gradient only "
        "where it is True, else put None.",
    ),
    solution="""
def backward(ctx, grad):
    x, y = ctx.saved_tensors
    grad_x = grad * y if ctx.needs_input_grad[0] else None
    grad_y = grad * x if ctx.needs_input_grad[1] else None
    return grad_x, grad_y

answer = backward
check("10.needs_input_grad", answer)
""",
    explanation="One gradient per input, and None where nobody needs it: the engine would "
    "drop it anyway, so computing it is wasted work. PyTorch's generated backward "
    "functions skip those formulas the same way (should_compute_output).",
)
def _(answer):
    if not callable(answer):
        raise Wrong(f"answer with the function backward itself, not a {type(answer).__name__}.")
    grad_out = vg.tensor(GRAD_OUT, dtype=vg.float64)
    x, y = _inputs(X_VALUES), _inputs(Y_VALUES)
    got = _run_backward(make_mul(answer), (x, y), grad_out)
    expected = vg.autograd.grad(x * y, (x, y), grad_out)  # vizgrad's own MulBackward0
    for name, g, e, other in zip("xy", got, expected, "yx", strict=True):
        if g is None:
            raise Wrong(f"with both inputs requiring grad, backward returned None for {name}: "
                        f"it needs grad * {other}.")  # fmt: skip
        if not np.allclose(numbers_of(g), numbers_of(e)):
            raise Wrong(f"the gradient of {name} is wrong: d(x * y)/d{name} = {other}, times "
                        "grad.")  # fmt: skip
    problem = _gradcheck_message(make_mul(answer), (_inputs(X_VALUES), _inputs(Y_VALUES)))
    if problem:
        raise Wrong(f"the values are right but gradcheck fails: {problem}")
    for needed, name in ((0, "x"), (1, "y")):
        log: list = []
        inputs = [_inputs(X_VALUES, needed == 0), _inputs(Y_VALUES, needed == 1)]
        _run_backward(make_mul(answer, log), inputs, grad_out)
        skipped = 1 - needed
        if log and len(log[0]) > skipped and log[0][skipped] is not None:
            flags = tuple(i == needed for i in range(2))
            raise Wrong(f"when only {name} requires grad, ctx.needs_input_grad is {flags}, but "
                        f"backward still computed a gradient for {'xy'[skipped]}: return None "
                        "there (the engine would throw it away).")  # fmt: skip


# --- exercise 3: the overloads of one declaration ---------------------------------------


def _short(qualname: str) -> str:
    return qualname.strip().removeprefix("aten::")


@exercise(
    "10.overloads",
    "The single native_function(...) declaration of mul in vizgrad/ops/arithmetic.py registers "
    "several overloads, as native_functions.yaml lists them. Name them all (schema names "
    "like 'mul.Tensor').",
    hints=(
        "There is one overload per variant: the function/method, the in-place method, and "
        "the one that writes into out=.",
        "In-place overloads have a trailing underscore in their name; out= overloads are "
        "called <name>.out.",
        "mul.overloads is a dict {schema name: Operator}; each Operator has a .qualname "
        "and a .variant.",
    ),
    solution="""
answer = ["mul.Tensor", "mul_.Tensor", "mul.out"]
check("10.overloads", answer)
""",
    explanation="mul.Tensor (function and method), mul_.Tensor (in place) and mul.out (out=): "
    "the same three entries as PyTorch's native_functions.yaml, all sharing one kernel.",
)
def _(answer):
    if isinstance(answer, str) or not isinstance(answer, list | tuple | set):
        raise Wrong("answer with a list of schema names, e.g. ['mul.Tensor', ...].")
    expected = {op.variant: _short(op.qualname) for op in vg.mul.overloads.values()}
    given = {_short(str(name)) for name in answer}
    role = {"functional": "the function/method overload",
            "inplace": "the in-place overload",
            "out": "the out= overload"}  # fmt: skip
    why = {"functional": "vg.mul(x, y) and x.mul(y) return a new tensor",
           "inplace": "x.mul_(y) writes x: an in-place operator's name gets a trailing "
                      "underscore",
           "out": "torch.mul(x, y, out=z) writes z: its overload name is 'out'"}  # fmt: skip
    parts = []
    for variant, name in expected.items():
        if name in given:
            parts.append(Part(f"{role.get(variant, variant)}: {name}"))
        else:
            parts.append(Part(f"{role.get(variant, variant)}: not in your list",
                              f"{why.get(variant, variant)}; it is {name}."))  # fmt: skip
    extra = sorted(given - set(expected.values()))
    if extra:
        parts.append(Part(f"also listed: {', '.join(extra)}", "this declaration does not "
                          "register that; native_functions.yaml spells each overload "
                          "name.overload_name, like mul.Tensor."))  # fmt: skip
    require_all(parts)


# --- exercise 4: a derivatives.yaml entry ------------------------------------------------


def _div_function(grads: dict):
    """a / b as a Function whose backward uses the given formulas (as a FormulaNode would)."""

    class Div(Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a / b

        @staticmethod
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            saved = Saved({"self": a, "other": b})
            return grads["self"](grad, saved), grads["other"](grad, saved)

    return Div


@exercise(
    "10.div_formula",
    "Write the derivative formulas of div.Tensor (self / other) the way vizgrad declares "
    "them: a dict {'self': f, 'other': g}, each f(grad, saved) reading saved.self and "
    "saved.other.",
    hints=(
        "d(a/b)/da = 1/b; d(a/b)/db = -a/b². Each is multiplied by grad.",
        "Look at mul's declaration above: 'self': lambda grad, saved: grad * saved.other.",
        "'other': lambda grad, saved: -grad * saved.self / (saved.other * saved.other)",
    ),
    solution="""
answer = {
    "self": lambda grad, saved: grad / saved.other,
    "other": lambda grad, saved: -grad * saved.self / (saved.other * saved.other),
}
check("10.div_formula", answer)
""",
    explanation="These are PyTorch's div_tensor_self_backward (grad / other) and "
    "div_tensor_other_backward (-grad * self / other²). Written with operators, they can "
    "be differentiated again (create_graph).",
)
def _(answer):
    if not isinstance(answer, dict) or set(answer) != {"self", "other"}:
        raise Wrong("answer with a dict with two keys, 'self' and 'other', each a function "
                    "f(grad, saved).")  # fmt: skip
    if not all(callable(f) for f in answer.values()):
        raise Wrong("both values must be functions f(grad, saved), e.g. lambda grad, saved: ...")
    a, b = _inputs(X_VALUES), _inputs(Y_VALUES)
    grad_out = vg.tensor(GRAD_OUT, dtype=vg.float64)
    expected = vg.autograd.grad(a / b, (a, b), grad_out)  # vizgrad's own DivBackward0
    saved = Saved({"self": a.detach(), "other": b.detach()})
    av, bv, g = np.asarray(X_VALUES), np.asarray(Y_VALUES), np.asarray(GRAD_OUT)
    derivative = {"self": "d(a/b)/da = 1/b", "other": "d(a/b)/db = -a/b²"}
    parts = []
    for name, want in zip(("self", "other"), expected, strict=True):
        label = f"the formula for {name}"
        try:
            got = numbers_of(answer[name](grad_out, saved))
        except Exception as error:  # noqa: BLE001 - the student's formula may raise anything
            parts.append(Part(label, f"it raised {type(error).__name__}: {error}"))
            continue
        if got is None or got.shape != (3,):
            parts.append(Part(label, "it must return a tensor of the input's shape."))
        elif np.allclose(got, numbers_of(want)):
            parts.append(Part(label))
        elif name == "other" and np.allclose(got, g * av / bv**2):
            parts.append(Part(label, f"the sign is wrong: {derivative[name]}."))
        elif np.allclose(got, g * bv) or np.allclose(got, g * av):
            parts.append(Part(label, f"it looks like mul's; for a quotient, {derivative[name]}, "
                                     "times grad."))  # fmt: skip
        elif name == "other" and np.allclose(got, -g / bv**2):
            parts.append(Part(label, f"it forgets saved.self: {derivative[name]}."))
        else:
            parts.append(Part(label, "it does not give the gradient vizgrad's DivBackward0 "
                                     f"computes; {derivative[name]}, times grad."))  # fmt: skip
    require_all(parts)
    problem = _gradcheck_message(_div_function(answer), (_inputs(X_VALUES), _inputs(Y_VALUES)))
    if problem:
        raise Wrong(f"the values are right but gradcheck fails: {problem}")
