"""``vizgrad.jit.trace``: run a function once and keep the operators it called, as a graph.

Eager execution (lessons 6–7) builds the *autograd* graph while it runs and forgets the
forward: the Python code is the only description of the computation. PyTorch's tracer
(``torch/jit/_trace.py``, ``torch/csrc/jit/frontend/tracer.cpp``) keeps the forward
instead: it runs the code once on example inputs and records every operator call into a
static ``Graph`` whose values are the graph inputs, constants, parameters and earlier
nodes' outputs. The graph can be printed, inspected and run again on new inputs without
the Python code: the Python ``if``\\s and loops are gone, only the operators the example
run took remain.

vizgrad records from its own event stream (``vizgrad.events``), the way ``record()``
does for the views: each top-level call's ``OpDispatched`` event (at the AutogradCPU
key, ``parent == 0``) opens a node, its ``OpReturned`` binds the node's outputs. The
events name tensors by id; the call's Python arguments and result are read from the
dispatcher while those events are handled (``dispatcher.call_arguments``,
``dispatcher.call_result``), as PyTorch's tracer reads them at its ``Tracer`` dispatch
key. A tensor turned into a Python value (``bool(t)``, ``t.item()``) cannot be
recorded: the tracer is told (``vizgrad.tensor.python_value_watch``) and warns with
``TracerWarning``, as PyTorch does.
"""

from __future__ import annotations

import inspect
import warnings

from .. import dispatcher, events
from ..nn.modules.module import Module
from ..tensor import Tensor, python_value_watch
from .graph import (
    Graph,
    Node,
    Value,
    constant_text,
    tensor_type,
    value_type,
    wrapped_number_type,
)

__all__ = [
    "trace",
    "TracerWarning",
    "TracingCheckError",
    "ScriptFunction",
    "ScriptModule",
    "TracedModule",
    "TopLevelTracedModule",
]


class TracerWarning(Warning):
    """A trace may not generalize: a tensor became a Python value, a container output…

    (``torch.jit.TracerWarning``.)
    """


class TracingCheckError(Exception):
    """``check_trace`` found that tracing the function again gives another graph."""

    def __init__(self, graph_diff_error: str, tensor_compare_error: str | None = None):
        self.message = "Tracing failed sanity checks!\n"
        if graph_diff_error is not None:
            self.message += "ERROR: Graphs differed across invocations!\n" + graph_diff_error
        if tensor_compare_error is not None:
            self.message += tensor_compare_error
        super().__init__(self.message)


_CONSTANT_FUTURE = (
    " might cause the trace to be incorrect. We can't record the data flow of Python "
    "values, so this value will be treated as a constant in the future. This means that the "
    "trace might not generalize to other inputs!"
)
# PyTorch's words for each conversion (python_variable_methods.cpp, torch/_tensor.py).
_PYTHON_VALUE_WARNINGS = {
    kind: f"Converting a tensor to a Python {kind}{_CONSTANT_FUTURE}"
    for kind in ("boolean", "number", "integer", "float", "complex", "list")
}
_PYTHON_VALUE_WARNINGS["len"] = (
    "Using len to get tensor shape might cause the trace to be incorrect. Recommended usage "
    "would be tensor.shape[0]. Passing a tensor of different shape might lead to errors or "
    "silently give incorrect results."
)
_PYTHON_VALUE_WARNINGS["iter"] = (
    "Iterating over a tensor might cause the trace to be incorrect. Passing a tensor of "
    "different shape won't change the number of iterations executed (and might lead to "
    "errors or silently give incorrect results)."
)
_CONTAINER_OUTPUT = (
    "Encountering a {} at the output of the tracer might cause the trace to be incorrect, "
    "this is only valid if the container structure does not change based on the module's "
    "inputs. Consider using a constant container instead (e.g. for `list`, use a `tuple` "
    "instead. for `dict`, use a `NamedTuple` instead). If you absolutely need this and know "
    "the side effects, pass strict=False to trace() to allow this behavior."
)
# Operators whose result differs from run to run: check_trace cannot compare them.
_NONDETERMINISTIC = frozenset({
    "aten::rand", "aten::randn", "aten::randint", "aten::rand_like", "aten::randn_like",
    "aten::randint_like", "aten::randperm", "aten::bernoulli", "aten::bernoulli_",
    "aten::normal", "aten::normal_", "aten::uniform_", "aten::multinomial",
    "aten::dropout", "aten::dropout_", "aten::feature_dropout", "aten::alpha_dropout",
})  # fmt: skip


def _warn_python_value(what: str) -> None:
    """The tracer's ``python_value_watch`` observer: warn where the user's code converted.

    A conversion made inside an operator (a kernel reading a scalar) is the engine's own
    business, as PyTorch's C++ kernels never pass through ``Tensor.__bool__``.
    """
    if dispatcher.current_call():
        return
    # stacklevel 3: this function, the Tensor method, then the line that converted.
    warnings.warn(_PYTHON_VALUE_WARNINGS[what], TracerWarning, stacklevel=3)


# --- recording ------------------------------------------------------------------------------


class _Tracer:
    """Builds a ``Graph`` from the events of one run (``tracer::TracingState``).

    ``values`` maps each tensor the graph knows (by the id events name it by) to the
    ``Value`` that holds it now: a graph input, a parameter read with ``prim::GetAttr``,
    or a node's output. A tensor the graph does not know becomes a constant.
    """

    def __init__(self, graph: Graph, module: Module | None = None, self_value: Value | None = None):
        self.graph = graph
        self.values: dict[int, Value] = {}
        self.pending: dict[int, Node] = {}  # call id -> the node waiting for its result
        self.self_value = self_value
        self.attributes: dict[str, Value] = {}  # "0.weight" -> its prim::GetAttr value
        self.parameters: dict[int, str] = {}
        if module is not None:
            named = [*module.named_parameters(), *module.named_buffers()]
            self.parameters = {t._id: name for name, t in named}

    def on_event(self, event) -> None:
        if isinstance(event, events.OpDispatched):
            # A call made by the traced code itself (parent 0), not from inside an
            # operator: one node, as the tracer key sees only the outermost calls. Its
            # first step (AutogradCPU, or BackendSelect for a factory of no tensor) is the
            # one whose action is "call".
            if event.action == "call" and not event.parent:
                op, args, kwargs = dispatcher.call_arguments()
                self.pending[event.call] = self.record_call(op, args, kwargs, event.module)
        elif isinstance(event, events.OpReturned):
            node = self.pending.pop(event.call, None)
            if node is None:
                return
            if event.error:  # the call raised: it made nothing to record
                self.graph._nodes.remove(node)
            else:
                self.bind_outputs(node, dispatcher.call_result())

    # --- the inputs of a node ----------------------------------------------------------------

    def record_call(self, op, args: tuple, kwargs: dict, module_path: tuple) -> Node:
        """``tracer::preRecordTrace``: a node for ``op`` reading a value per argument."""
        # One input per schema argument, in the schema's order, as torch's graph shows
        # them: what the call passed, or the argument's default (a constant the node
        # shows but the call, run again, leaves to the operator as this one did).
        arg_values, kwarg_values, inputs = [], {}, []
        schema_arguments = [a for a in op.function_schema.arguments if a.name not in op.out_names]
        for position, argument in enumerate(schema_arguments):
            if position < len(args):
                value = self.input_value(args[position], argument.type)
                arg_values.append(value)
            elif argument.name in kwargs:
                value = self.input_value(kwargs[argument.name], argument.type)
                kwarg_values[argument.name] = value
            elif argument.has_default:
                value = self.input_value(argument.default, argument.type)
            else:
                continue
            inputs.append(value)
        for name in op.out_names:  # out= tensors last
            if name in kwargs:
                kwarg_values[name] = self.input_value(kwargs[name])
                inputs.append(kwarg_values[name])
        # A module's calls name the submodule they ran in, relative to the traced module.
        inner = module_path[-1][0] if module_path else ""
        scope = f"__module.{inner}" if inner else ""
        node = Node(self.graph, f"aten::{op.name}", inputs, op=op, args=tuple(arg_values),
                    kwargs=kwarg_values, scope=scope)  # fmt: skip
        return self.graph.append(node)

    def input_value(self, value, schema_type: str = "") -> Value:
        if isinstance(value, Tensor):
            return self.tensor_value(value)
        if isinstance(value, tuple | list):
            items = [self.input_value(v) for v in value]
            node = Node(self.graph, "prim::ListConstruct", items)
            node.container = list if isinstance(value, list) else tuple
            return self.graph.append(node, [value_type(value)]).output()
        if schema_type == "Tensor" and isinstance(value, int | float):
            # A Python number where the schema wants a Tensor (``x * 2``): torch wraps it
            # in a 0-dim tensor (``Long(...)`` constant ``{2}``); the call gets the number.
            return self.constant(value, wrapped_number_type(value))
        return self.constant(value)

    def constant(self, value, type_str: str | None = None) -> Value:
        attributes = {} if value is None else {"value": value}
        node = Node(self.graph, "prim::Constant", attributes=attributes)
        return self.graph.append(node, [type_str or value_type(value)]).output()

    def tensor_value(self, t: Tensor) -> Value:
        known = self.values.get(t._id)
        if known is not None:
            return known
        name = self.parameters.get(t._id)
        if name is not None:
            return self.attribute(name)
        # A tensor from outside the traced code (a global, a closure): baked in.
        return self.constant(t)

    def attribute(self, path: str) -> Value:
        """``self.0.weight`` read with one ``prim::GetAttr`` per step, each made once."""
        if path in self.attributes:
            return self.attributes[path]
        owner_path, _, name = path.rpartition(".")
        owner = self.attribute(owner_path) if owner_path else self.self_value
        is_module = path not in self.parameters.values()
        type_str = "Tensor" if not is_module else _module_type(self._module_at(path))
        node = Node(self.graph, "prim::GetAttr", [owner], attributes={"name": name})
        value_name = f"_{name}" if name[0].isdigit() else name
        value = self.graph.append(node, [type_str], [value_name]).output()
        self.attributes[path] = value
        return value

    def _module_at(self, path: str):
        module = self.self_value.example
        for part in path.split("."):
            module = getattr(module, part)
        return module

    # --- the outputs of a node ---------------------------------------------------------------

    def bind_outputs(self, node: Node, result) -> None:
        """``tracer::postRecordTrace``: the node's outputs now hold what the call returned."""
        if isinstance(result, Tensor):
            self.values[result._id] = self.graph._add_outputs(node, [tensor_type(result)])[0]
        elif isinstance(result, tuple | list) and all(isinstance(r, Tensor) for r in result):
            node.container = tuple
            outputs = self.graph._add_outputs(node, [tensor_type(r) for r in result])
            for r, value in zip(result, outputs, strict=True):
                self.values[r._id] = value
        elif result is not None:  # a Python number (``aten::size``…): nothing can read it
            self.graph._add_outputs(node, [value_type(result)])

    def output_value(self, out, strict: bool) -> Value:
        """The value the graph returns, built like the traced code's result."""
        if isinstance(out, Tensor):
            return self.tensor_value(out)
        if isinstance(out, tuple):
            kind = "prim::TupleConstruct"
            items = [self.output_value(o, strict) for o in out]
        elif isinstance(out, list):
            if strict:
                warnings.warn(_CONTAINER_OUTPUT.format("list"), TracerWarning, stacklevel=4)
            kind = "prim::ListConstruct"
            items = [self.output_value(o, strict) for o in out]
        elif isinstance(out, dict):
            if strict:
                raise RuntimeError(_CONTAINER_OUTPUT.format("dict"))
            kind = "prim::DictConstruct"
            items = []
            for key, o in out.items():
                items += [self.constant(key), self.output_value(o, strict)]
        else:
            raise RuntimeError(
                "Only tensors, lists, tuples of tensors, or dictionary of tensors can be output "
                "from traced functions"
            )
        node = Node(self.graph, kind, items)
        node.container = type(out) if kind != "prim::DictConstruct" else dict
        return self.graph.append(node, [_output_type(out)]).output()


def _output_type(out) -> str:
    if isinstance(out, Tensor):
        return "Tensor"
    if isinstance(out, tuple):
        return "(" + ", ".join(_output_type(o) for o in out) + ")"
    if isinstance(out, list):
        return "Tensor[]"
    return "Dict(str, Tensor)"


def _module_type(module: Module) -> str:
    cls = type(module)
    return f"__torch__.{cls.__module__}.{cls.__qualname__}"


def _record(fn, inputs: tuple, names: list[str], strict: bool, module: Module | None = None):
    """Run ``fn(*inputs)`` once, recording its operator calls: ``(graph, fn's result)``."""
    graph = Graph()
    self_value = None
    if module is not None:
        self_value = graph.add_input("self", _module_type(module))
        self_value.example = module
    tracer = _Tracer(graph, module, self_value)
    for name, x in zip(names, inputs, strict=True):
        value = graph.add_input(name, tensor_type(x))
        value.example = x
        tracer.values[x._id] = value
    previous = python_value_watch.observer
    python_value_watch.observer = _warn_python_value
    events.subscribe(tracer.on_event, kinds={"op_dispatched", "op_returned"})
    try:
        out = fn(*inputs)
    finally:
        events.unsubscribe(tracer.on_event)
        python_value_watch.observer = previous
    graph.set_output(tracer.output_value(out, strict))
    graph.eliminate_dead_code()
    return graph, out


# --- running a graph ------------------------------------------------------------------------


def run_graph(graph: Graph, inputs: list):
    """Run the recorded operators on ``inputs`` (one per graph input), not the Python code."""
    env = {id(v): x for v, x in zip(graph.inputs(), inputs, strict=True)}
    for node in graph.nodes():
        kind = node.kind()
        ins = [env[id(v)] for v in node.inputs()]
        if kind == "prim::Constant":
            results = [node.attributes.get("value")]
        elif kind == "prim::GetAttr":
            results = [getattr(ins[0], node["name"])]
        elif kind == "prim::DictConstruct":
            results = [dict(zip(ins[0::2], ins[1::2], strict=True))]
        elif kind.startswith("prim::"):  # ListConstruct, TupleConstruct
            results = [node.container(ins)]
        else:
            args = [env[id(v)] for v in node.args]
            kwargs = {name: env[id(v)] for name, v in node.kwargs.items()}
            result = node.op(*args, **kwargs)
            results = list(result) if node.container is tuple else [result]
        for value, result in zip(node.outputs(), results, strict=False):
            env[id(value)] = result
    return env[id(graph.return_node())]


# --- the code view --------------------------------------------------------------------------


def python_code(graph: Graph, name: str, has_self: bool) -> str:
    """The graph as Python-like source (``ScriptFunction.code``): one line per operator."""
    exprs: dict[int, str] = {}
    lines = []
    params = []
    for i, value in enumerate(graph.inputs()):
        var = value.debugName().replace(".", "_")
        exprs[id(value)] = var
        if not (has_self and i == 0):
            params.append(f"{var}: Tensor")
    if has_self:
        header = f"def {name}(self,\n    " + ",\n    ".join(params) + ")"
    else:
        header = f"def {name}(" + ", ".join(params) + ")"
    returned = graph.return_node()
    out_type = returned.type_str if returned is not None else "None"
    out_type = "Tensor" if "(" not in out_type or out_type.startswith(("Float(", "Double(")) else (
        "Tuple[" + out_type.strip("()") + "]"
    )  # fmt: skip
    lines.append(f"{header} -> {out_type}:")
    tensor_constants = 0
    temp = 0
    # Names the source already uses (inputs, attributes read): temporaries avoid them.
    used = set(exprs.values()) | {
        n.output().debugName().replace(".", "_")
        for n in graph.nodes()
        if n.kind() == "prim::GetAttr"
    }
    for node in graph.nodes():
        kind = node.kind()
        ins = [exprs[id(v)] for v in node.inputs()]
        if kind == "prim::Constant":
            value = node.attributes.get("value")
            if isinstance(value, Tensor):
                exprs[id(node.output())] = f"CONSTANTS.c{tensor_constants}"
                tensor_constants += 1
            else:
                exprs[id(node.output())] = (
                    repr(value) if not hasattr(value, "name") else constant_text(value)
                )
            continue
        if kind in ("prim::ListConstruct", "prim::TupleConstruct"):
            inner = ", ".join(ins) + (
                "," if kind == "prim::TupleConstruct" and len(ins) == 1 else ""
            )
            exprs[id(node.output())] = (
                f"[{inner}]" if kind == "prim::ListConstruct" else f"({inner})"
            )
            continue
        if kind == "prim::DictConstruct":
            pairs = ", ".join(f"{k}: {v}" for k, v in zip(ins[0::2], ins[1::2], strict=True))
            exprs[id(node.output())] = "{" + pairs + "}"
            continue
        outs = []
        for value in node.outputs():
            if kind == "prim::GetAttr":
                var = value.debugName().replace(".", "_")
            else:
                while f"_{temp}" in used:
                    temp += 1
                var = f"_{temp}"
                temp += 1
            exprs[id(value)] = var
            outs.append(var)
        if kind == "prim::GetAttr":
            attr = node["name"]
            read = f"{ins[0]}.{attr}" if attr.isidentifier() else f'getattr({ins[0]}, "{attr}")'
            lines.append(f"  {outs[0]} = {read}")
            continue
        arguments = [exprs[id(v)] for v in node.args]
        arguments += [f"{k}={exprs[id(v)]}" for k, v in node.kwargs.items()]
        call = f"torch.{kind.split('::')[1]}({', '.join(arguments)})"
        lines.append(f"  {', '.join(outs)} = {call}" if outs else f"  {call}")
    lines.append(f"  return {exprs[id(returned)]}" if returned is not None else "  return None")
    return "\n".join(lines) + "\n"


# --- what trace returns ---------------------------------------------------------------------


def _declaration(name: str, graph: Graph, has_self: bool) -> str:
    params = []
    for i, value in enumerate(graph.inputs()):
        kind = value.type_str if has_self and i == 0 else "Tensor"
        params.append(f"{kind} {value.debugName()}")
    returned = graph.return_node()
    out = returned.type_str if returned is not None else "NoneType"
    if out.split("(")[0] in ("Float", "Double", "Half", "Long", "Int", "Bool", "Short",
                             "Char", "Byte", "BFloat16", "ComplexFloat", "ComplexDouble"):  # fmt: skip
        out = "Tensor"
    return f"{name}({', '.join(params)}) -> {out}"


def _check_call(name: str, graph: Graph, args: tuple, has_self: bool) -> None:
    """A traced function takes exactly the tensors it was traced with (torch's schema check)."""
    expected = graph.inputs()[1:] if has_self else graph.inputs()
    declaration = _declaration(name, graph, has_self)
    if len(args) > len(expected):
        given = len(args) + has_self
        raise RuntimeError(
            f"{name}() expected at most {len(expected) + has_self} argument(s) but received "
            f"{given} argument(s). Declaration: {declaration}"
        )
    if len(args) < len(expected):
        missing = expected[len(args)].debugName()
        raise RuntimeError(
            f"{name}() is missing value for argument '{missing}'. Declaration: {declaration}"
        )
    for position, (value, arg) in enumerate(zip(expected, args, strict=True)):
        if not isinstance(arg, Tensor):
            raise RuntimeError(
                f"{name}() Expected a value of type 'Tensor' for argument "
                f"'{value.debugName()}' but instead found type '{type(arg).__name__}'.\n"
                f"Position: {position + has_self}\nDeclaration: {declaration}"
            )


class ScriptFunction:
    """A traced function (``torch.jit.ScriptFunction``): its graph, its code, and a call
    that runs the recorded operators."""

    def __init__(self, name: str, graph: Graph):
        self.name = name
        self._graph = graph

    @property
    def graph(self) -> Graph:
        return self._graph

    @property
    def inlined_graph(self) -> Graph:
        """The graph with every call inlined: a traced function calls nothing, so its graph."""
        return self._graph

    @property
    def code(self) -> str:
        return python_code(self._graph, self.name, has_self=False)

    def __call__(self, *args):
        _check_call(self.name, self._graph, args, has_self=False)
        return run_graph(self._graph, list(args))

    def __repr__(self) -> str:
        return f"<vizgrad.jit.ScriptFunction {self.name}>"


class ScriptModule(Module):
    """A module whose forward is a graph (``torch.jit.ScriptModule``)."""


class TracedModule(ScriptModule):
    """A module made by tracing another one (``torch.jit.TracedModule``)."""


class TopLevelTracedModule(TracedModule):
    """What ``trace(module, ...)`` returns (``torch.jit.TopLevelTracedModule``).

    It shares the traced module's parameters, buffers and submodules, so training either
    one trains both. Its ``forward`` runs the recorded graph, whose ``prim::GetAttr``
    nodes read the parameters at call time. (PyTorch keeps each submodule's forward as
    its own graph and shows ``prim::CallMethod`` nodes in ``graph``, the operators in
    ``inlined_graph``; vizgrad's graph is the inlined one, with each node's module scope.)
    """

    def __init__(self, module: Module, graph: Graph):
        super().__init__()
        # The traced module's own dicts, copied: the tensors and submodules are shared.
        object.__setattr__(self, "_parameters", dict(module._parameters))
        object.__setattr__(self, "_buffers", dict(module._buffers))
        object.__setattr__(self, "_modules", dict(module._modules))
        object.__setattr__(self, "training", module.training)
        object.__setattr__(self, "original_name", type(module).__name__)
        object.__setattr__(self, "_traced_graph", graph)

    @property
    def graph(self) -> Graph:
        return self._traced_graph

    @property
    def inlined_graph(self) -> Graph:
        return self._traced_graph

    @property
    def code(self) -> str:
        return python_code(self._traced_graph, "forward", has_self=True)

    def forward(self, *args):
        _check_call("forward", self._traced_graph, args, has_self=True)
        return run_graph(self._traced_graph, [self, *args])

    def _get_name(self) -> str:
        return self.original_name

    def extra_repr(self) -> str:
        return f"original_name={self.original_name}"


# --- trace ----------------------------------------------------------------------------------


def _input_names(fn, count: int) -> list[str]:
    """The graph inputs' names: the traced function's parameter names, as torch's."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = []
    for i in range(count):
        if i < len(params) and params[i].kind in (params[i].POSITIONAL_ONLY,
                                                  params[i].POSITIONAL_OR_KEYWORD):  # fmt: skip
            names.append(params[i].name)
        else:
            names.append(f"args.{i}" if params and params[-1].kind == params[-1].VAR_POSITIONAL
                         else f"input.{i}")  # fmt: skip
    return names


def _clone(x: Tensor) -> Tensor:
    return x.detach().clone().requires_grad_(x.requires_grad)


def _flatten(out) -> list:
    if isinstance(out, tuple | list):
        return [t for o in out for t in _flatten(o)]
    if isinstance(out, dict):
        return [t for o in out.values() for t in _flatten(o)]
    return [out]


def _mismatch(i: int, traced: Tensor, expected: Tensor, tolerance: float) -> str | None:
    """torch.testing's report for the first output that is not close, else None."""
    a = traced.detach().numpy().astype("float64").reshape(-1)
    b = expected.detach().numpy().astype("float64").reshape(-1)
    if a.shape != b.shape:
        return (f"Output nr {i}. of the traced function does not match the corresponding output "
                f"of the Python function. Detailed error:\nThe values for attribute 'shape' do "
                f"not match: {tuple(traced.shape)} != {tuple(expected.shape)}.")  # fmt: skip
    diff = abs(a - b)
    bad = diff > tolerance + tolerance * abs(b)
    if not bad.any():
        return None
    worst = int(diff.argmax())
    relative = diff / abs(b).clip(min=1e-300)
    worst_rel = int(relative.argmax())
    shape = tuple(expected.shape)

    def at(flat: int) -> tuple:
        index = []
        for n in reversed(shape):
            index.append(flat % n)
            flat //= n
        return tuple(reversed(index))

    return (
        f"Output nr {i}. of the traced function does not match the corresponding output of the "
        f"Python function. Detailed error:\nTensor-likes are not close!\n\n"
        f"Mismatched elements: {int(bad.sum())} / {bad.size} "
        f"({100 * bad.sum() / bad.size:.1f}%)\n"
        f"Greatest absolute difference: {diff[worst]} at index {at(worst)} "
        f"(up to {tolerance} allowed)\n"
        f"Greatest relative difference: {relative[worst_rel]} at index {at(worst_rel)} "
        f"(up to {tolerance} allowed)"
    )


def _check_trace(fn, graph: Graph, inputs: tuple, names, strict, module, traced) -> None:
    """``torch.jit._trace._check_trace``: trace again, run both, compare.

    The function is traced a second time on copies of the example inputs (so its
    TracerWarnings come twice, as in PyTorch); a different graph is a
    ``TracingCheckError``; outputs of the graph and of the Python code that differ are a
    ``TracerWarning`` (after one naming the nondeterministic nodes, if any).
    """
    copies = tuple(_clone(x) for x in inputs)
    again, python_out = _record(fn, copies, names, strict, module)
    kinds = [n.kind() for n in graph.nodes()]
    kinds_again = [n.kind() for n in again.nodes()]
    if kinds != kinds_again:
        raise TracingCheckError(
            f"\tFirst graph's operators:  {kinds}\n\tSecond graph's operators: {kinds_again}\n"
        )
    copies = tuple(_clone(x) for x in inputs)
    traced_out = traced(*copies)
    nondeterministic = [
        n for n in graph.nodes()
        if n.kind() in _NONDETERMINISTIC
        and not (n.kind().startswith("aten::dropout") and _train_is_false(n))
    ]  # fmt: skip
    if nondeterministic:
        listed = "\n".join(f"\t{n}" for n in nondeterministic)
        warnings.warn(
            "Trace had nondeterministic nodes. Did you forget call .eval() on your model? "
            f"Nodes:\n{listed}\nThis may cause errors in trace checking. To disable trace "
            "checking, pass check_trace=False to torch.jit.trace()",
            TracerWarning,
            stacklevel=4,
        )
    for i, (a, b) in enumerate(zip(_flatten(traced_out), _flatten(python_out), strict=True), 1):
        message = _mismatch(i, a, b, 1e-5)
        if message is not None:
            warnings.warn(message, TracerWarning, stacklevel=4)
            return


def _train_is_false(node: Node) -> bool:
    train = node.inputs()[2] if len(node.inputs()) > 2 else None
    return train is not None and train.node().attributes.get("value") is False


def trace(func, example_inputs=None, check_trace: bool = True, strict: bool = True):
    """Trace ``func`` (a function or an ``nn.Module``) on ``example_inputs``
    (``torch.jit.trace``).

    Runs it once, records every operator it called into a ``Graph``, and returns a
    ``ScriptFunction`` (for a function) or a ``TopLevelTracedModule`` (for a module)
    that runs the recorded graph. Python control flow is not recorded: the branch the
    example took is the only one the trace knows, and a tensor turned into a Python
    value (``bool(t)``, ``t.item()``) is a constant of the trace, with a
    ``TracerWarning``. ``check_trace`` traces again and compares; ``strict=False``
    allows list and dict outputs.

    (PyTorch 2.13 marks ``torch.jit.trace`` deprecated in favour of ``torch.compile`` and
    ``torch.export``, which capture ``torch.fx`` graphs; the idea they share is this one.)
    """
    if isinstance(example_inputs, Tensor):
        example_inputs = (example_inputs,)
    if not isinstance(example_inputs, tuple | list):
        raise TypeError(
            f"example_inputs must be a Tensor or a tuple of Tensors, not "
            f"{type(example_inputs).__name__}"
        )
    example_inputs = tuple(example_inputs)
    for x in example_inputs:
        if not isinstance(x, Tensor):
            raise RuntimeError(
                f"Type '{type(x).__name__}' cannot be traced. Only Tensors and (possibly nested) "
                "Lists, Dicts, and Tuples of Tensors can be traced"
            )
    module = func if isinstance(func, Module) else None
    signature_of = func.forward if module is not None else func
    names = _input_names(signature_of, len(example_inputs))
    graph, _ = _record(func, example_inputs, names, strict, module)
    if module is not None:
        traced = TopLevelTracedModule(module, graph)
    else:
        name = getattr(func, "__name__", "func")
        traced = ScriptFunction("_lambda" if name == "<lambda>" else name, graph)
    if check_trace:
        _check_trace(func, graph, example_inputs, names, strict, module, traced)
    return traced
