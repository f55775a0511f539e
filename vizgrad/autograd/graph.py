"""The backward graph: nodes, edges and saved tensors (``torch/csrc/autograd/function.h``).

Every differentiable operation that sees an input requiring grad records a **node**
(its ``grad_fn``). A node knows how to turn the gradient of its outputs into
gradients of its inputs, and where those go next: ``next_functions``, one
``(node, input_nr)`` edge per tensor input (``(None, 0)`` where the input needs no
gradient). Leaves that require grad end in an ``AccumulateGrad`` node, which adds
the arriving gradient into ``leaf.grad``.

Nodes carry a ``sequence_nr``: the order they were created in. The engine runs the
ready node with the highest one first, so backward visits nodes in reverse creation
order wherever the graph allows.
"""

from __future__ import annotations

import itertools
import re
import sys

from .. import events, module_scope
from ..dispatcher import current_call
from .accumulate import accumulate_into_leaf

__all__ = [
    "Node",
    "AccumulateGrad",
    "SavedTensor",
    "RemovableHandle",
    "gradient_edge",
    "set_grad_fn",
    "rebase_grad_fn",
    "announce_node",
]

# AccumulateGrad runs as soon as it is ready: PyTorch gives it the largest sequence_nr.
MAX_SEQUENCE_NR = sys.maxsize
_node_ids = itertools.count(1)


class _SequenceCounter:
    __slots__ = ("next",)

    def __init__(self):
        self.next = 0

    def take(self) -> int:
        value = self.next
        self.next += 1
        return value


sequence_counter = _SequenceCounter()


class RemovableHandle:
    """What ``register_hook`` returns: ``handle.remove()`` takes the hook away."""

    _ids = itertools.count()

    def __init__(self, hooks: dict):
        self._hooks = hooks
        self.id = next(self._ids)

    def remove(self) -> None:
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


class Node:
    """``torch.autograd.graph.Node``: one step of the backward pass.

    Subclasses implement ``apply(grad_outputs) -> grad_inputs``: from the gradients of
    this node's outputs to one gradient per entry of ``next_functions``.
    """

    def __init__(self, next_edges=(), sequence_nr: int | None = None):
        self._next_edges = tuple(next_edges)
        self.sequence_nr = sequence_counter.take() if sequence_nr is None else sequence_nr
        self._id = next(_node_ids)
        self._hooks: dict = {}
        self._pre_hooks: dict = {}
        # ``(output_nr, hooks)``: the hook dicts of the tensors this node outputs, each
        # registered by the tensor's first ``register_hook`` (``add_tensor_pre_hook``).
        self._tensor_pre_hooks: list = []
        # ``output_nr -> tensor`` for each output whose gradient ``retain_grad()`` keeps.
        self._retain_grad_hooks: dict = {}
        self.metadata: dict = {}
        path = module_scope.current_path()
        if path:  # made in a module's forward: say which (the views group nodes by it)
            self.metadata["module"] = path
        self._anomaly_trace = None  # the forward stack, kept by detect_anomaly

    def name(self) -> str:
        return type(self).__name__

    @property
    def next_functions(self) -> tuple:
        return self._next_edges

    def _sequence_nr(self) -> int:  # noqa: D401 - PyTorch exposes it as a method
        return self.sequence_nr

    def register_hook(self, hook) -> RemovableHandle:
        """``hook(grad_inputs, grad_outputs)`` runs after the node; it may return new grad_inputs."""
        handle = RemovableHandle(self._hooks)
        self._hooks[handle.id] = hook
        return handle

    def register_prehook(self, hook) -> RemovableHandle:
        """``hook(grad_outputs)`` runs before the node; it may return new grad_outputs."""
        handle = RemovableHandle(self._pre_hooks)
        self._pre_hooks[handle.id] = hook
        return handle

    def tensor_pre_hooks(self):
        """The ``Tensor.register_hook`` hooks to run on this node's output gradients."""
        return self._tensor_pre_hooks

    def _register_hook_dict(self, hooks: dict, output_nr: int) -> None:
        """Run the hooks of ``hooks`` (one tensor's) on output ``output_nr``'s gradient."""
        self._tensor_pre_hooks.append((output_nr, hooks))

    def apply(self, grad_outputs: tuple) -> tuple:
        raise NotImplementedError

    def _release(self) -> None:
        """Free saved tensors after a backward without ``retain_graph``."""

    def __call__(self, *grad_outputs):
        return self.apply(grad_outputs)

    def __repr__(self) -> str:
        # PyTorch's nodes are C++ classes and print as Python prints any object, by the
        # class name alone: ``<AddBackward0 object at 0x7f...>``.
        return f"<{self.name().rsplit('::', 1)[-1]} object at {id(self):#x}>"


class AccumulateGrad(Node):
    """The sink of a leaf: adds the arriving gradient into ``variable.grad``."""

    def __init__(self, variable):
        super().__init__((), MAX_SEQUENCE_NR)
        self.variable = variable
        parameter = module_scope.parameter_name(variable)
        if parameter is not None:
            self.metadata["parameter"] = parameter

    def name(self) -> str:
        # PyTorch names its C++-only nodes by their qualified C++ name.
        return "vizgrad::autograd::AccumulateGrad"

    def tensor_pre_hooks(self):
        """A leaf's hooks live in its AutogradMeta (``impl::hooks``)."""
        hooks = self.variable._autograd_meta.backward_hooks
        return ((0, hooks),) if hooks else ()

    def apply(self, grad_outputs: tuple) -> tuple:
        accumulate_into_leaf(self.variable, grad_outputs[0])
        return ()


def gradient_edge(tensor) -> tuple:
    """The edge a gradient for ``tensor`` travels: its grad_fn, or its AccumulateGrad.

    Tensors that don't require grad give ``(None, 0)``. A leaf keeps one
    AccumulateGrad node for its whole life, in its AutogradMeta (PyTorch keeps it
    weakly; we keep it).
    """
    meta = tensor._autograd_meta if tensor is not None else None
    if meta is None or not meta.requires_grad:
        return (None, 0)
    # A view whose base was written in place since gets its history from the base here.
    grad_fn = meta.current_grad_fn(tensor)
    if grad_fn is not None:
        return (grad_fn, meta.output_nr)
    if not meta.told_to_require_grad():
        # A view made under no_grad of a base that requires grad requires grad too, but
        # has no node and no accumulator: its gradient goes nowhere, as in PyTorch.
        return (None, 0)
    if meta.grad_accumulator is None:
        meta.grad_accumulator = AccumulateGrad(tensor)
        announce_node(meta.grad_accumulator, variable=tensor)
    return (meta.grad_accumulator, 0)


def set_grad_fn(tensor, node: Node, output_nr: int = 0):
    """Make ``tensor`` output ``output_nr`` of ``node`` (``set_history``); returns its AutogradMeta."""
    meta = tensor._materialize_autograd_meta()
    meta.grad_fn = node
    meta.output_nr = output_nr
    meta.requires_grad = True
    return meta


def rebase_grad_fn(tensor, node: Node, output_nr: int = 0):
    """Give ``tensor`` a new ``grad_fn`` in place of the one it had; returns its AutogradMeta.

    What an in-place write does to the tensor it wrote, and what regenerating a view's
    history does to the view (PyTorch's ``rebase_history`` followed by
    ``update_tensor_hooks_on_new_gradfn``): hooks registered from now on go to a new
    dict, registered with ``node`` (the old dict stays with the old node, so earlier hooks
    see the gradient of the value they were registered on); ``retain_grad()`` keeps the
    gradient of the tensor's current value, so its hook moves to ``node``.
    """
    meta = tensor._materialize_autograd_meta()
    old_fn, old_output_nr = meta.grad_fn, meta.output_nr
    set_grad_fn(tensor, node, output_nr)
    meta.backward_hooks = None
    if meta.retains_grad and old_fn is not None:
        retaining = old_fn._retain_grad_hooks.pop(old_output_nr, None)
        if retaining is not None:
            node._retain_grad_hooks[output_nr] = retaining
    return meta


def announce_node(node: Node, outputs=(), saved=(), variable=None) -> None:
    """Tell the views a node joined the graph: its outputs, edges and saved tensors.

    An ``AccumulateGrad`` also tells its leaf's shape and dtype (``output_meta``: what
    the gradient flowing into it must look like): the leaf may have been made before
    anyone listened, and then no ``TensorCreated`` describes it.
    """
    if not (events.bus.active and "node_created" in events.bus.wanted):
        return
    leaf_meta = ((variable._size, variable._dtype.name),) if variable is not None else ()
    events.bus.emit(
        events.NodeCreated(
            node._id,
            node.name(),
            node.sequence_nr,
            tuple(t._id for t in outputs),
            tuple(n._id if n is not None else 0 for n, _ in node.next_functions),
            tuple(t._id for t in saved),
            variable._id if variable is not None else 0,
            tuple(nr for _, nr in node.next_functions),
            current_call(),  # the operator call whose autograd key recorded it
            output_meta=leaf_meta,
            module=node.metadata.get("module", ()),
            parameter=node.metadata.get("parameter", ""),
        )
    )


def tensor_type_name(tensor) -> str:
    """PyTorch's legacy type name used in autograd messages: ``vizgrad.FloatTensor``."""
    return f"vizgrad.{tensor._dtype.scalar_name}Tensor"


class SavedTensor:
    """``SavedVariable``: a tensor saved for backward, with the version it had then.

    If the tensor is changed in place before backward reads it, unpacking raises
    PyTorch's "modified by an inplace operation" error instead of computing a wrong
    gradient from the new values.
    """

    __slots__ = ("tensor", "version", "grad_fn_name", "output_nr", "node", "is_output")

    def __init__(self, tensor, node=None, is_output: bool = False):
        if tensor._inference:
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors created "
                "in inference mode in computation tracked by autograd. To work around this, you "
                "can make a clone to get a normal tensor and use it in autograd, or use "
                "`vizgrad.no_grad()` instead of `vizgrad.inference_mode()`."
            )
        self.tensor = tensor
        self.version = tensor._version_counter.value
        self.node = node
        self.is_output = is_output
        meta = tensor._autograd_meta
        grad_fn = node if is_output else tensor._grad_fn
        self.grad_fn_name = grad_fn.name() if grad_fn is not None else None
        self.output_nr = meta.output_nr if meta is not None else 0

    def unpack(self, released: bool = False):
        if released:
            raise RuntimeError(FREED_GRAPH_MESSAGE)
        current = self.tensor._version_counter.value
        if "version_checked" in events.bus.wanted:
            events.bus.emit(
                events.VersionChecked(
                    self.node._id if self.node else 0, self.tensor._id, self.version, current
                )  # fmt: skip
            )
        if current != self.version:
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [{tensor_type_name(self.tensor)} {list(self.tensor._size)}]"
                f"{self._producer()} is at version {current}; expected version {self.version} "
                "instead. Hint: enable anomaly detection to find the operation that failed to "
                "compute its gradient, with vizgrad.autograd.set_detect_anomaly(True, "
                "check_nan=False)."
            )
        return self.tensor

    def _producer(self) -> str:
        """``, which is output 0 of Add,``: who made the tensor, as PyTorch's message says.

        A saved output names the node that made it; a saved input names its *current*
        ``grad_fn`` (the in-place op that changed it, or a view's regenerated history).
        """
        if self.is_output:
            name, output_nr = self.grad_fn_name, self.output_nr
        else:
            grad_fn = self.tensor.grad_fn
            name = grad_fn.name() if grad_fn is not None else None
            output_nr = self.tensor._autograd_meta.output_nr if grad_fn is not None else 0
        if name is None:
            return ""
        return f", which is output {output_nr} of {cpp_node_name(name)},"


def cpp_node_name(name: str) -> str:
    """A node's name as PyTorch's C++ messages print it: ``MulBackward0`` -> ``Mul``.

    Generated nodes drop ``Backward`` and an overload number of 0 (``TBackward1`` ->
    ``T1``); hand-written ones keep their qualified name (``…::CopySlices``).
    """
    match = re.fullmatch(r"(\w+)Backward(\d+)", name)
    if match is None:
        return name
    stem, overload = match.groups()
    return stem if overload == "0" else stem + overload


FREED_GRAPH_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling backward."
)
