"""The backward engine (``torch/csrc/autograd/engine.cpp``), step by step.

1. **Find the graph.** From the roots, walk ``next_functions`` and count, for every
   node, how many edges point at it: its *dependencies*.
2. **Run what is ready.** A node is ready when all its dependencies have delivered
   their gradients. Ready nodes wait in a priority queue; the one with the highest
   ``sequence_nr`` (the most recently created) runs first.
3. **Apply the node.** Its tensor hooks and pre-hooks may change the incoming
   gradients (``hooks``); it computes one gradient per next edge (the vector-Jacobian
   product); the engine checks each (``validate_outputs``: it sums a broadcast gradient
   down to its input's shape, casts it to the input's dtype, refuses any other shape);
   its post-hooks run; the gradients are *added* into the buffers of the next nodes
   (paths that meet sum their gradients), whose dependency counts go down.
4. **Free the graph** (saved tensors) unless ``retain_graph=True``.

Every step is emitted as an event, so a view can replay the algorithm.
"""

from __future__ import annotations

import heapq
import itertools

import numpy as np

from .. import events
from ..ops.creation import zeros
from ..ops.reductions import sum as _sum
from ..ops.shape_views import _view_op
from ..shape import broadcast_shapes
from .accumulate import caller_held_gradients, summarize
from .anomaly import anomaly_state
from .grad_mode import state as grad_state
from .graph import AccumulateGrad, gradient_edge
from .hooks import call_post_hooks, call_pre_hooks, call_tensor_pre_hooks
from .view_history import refresh_view_grad_fn

__all__ = ["run_backward"]

# The operators ``at::sum_to`` calls, as C++ calls them: dispatched, not parsed.
_sum_op, _sum_dims_op = _sum.overloads["sum"], _sum.overloads["sum.dim_IntList"]


def _make_root_grads(tensors, grad_tensors):
    """The edge each root's gradient enters the graph by (the gradients were made by the caller)."""
    if len(grad_tensors) != len(tensors):
        raise RuntimeError(f"got {len(tensors)} tensors and {len(grad_tensors)} gradients")
    roots = []
    for i, (t, g) in enumerate(zip(tensors, grad_tensors, strict=True)):
        if not t.requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        refresh_view_grad_fn(t)
        roots.append((gradient_edge(t), g))
    return roots


def _dependencies(root_nodes) -> dict:
    deps: dict = {}
    seen = set(root_nodes)
    stack = list(root_nodes)
    while stack:
        node = stack.pop()
        for next_node, _ in node.next_functions:
            if next_node is None:
                continue
            deps[next_node] = deps.get(next_node, 0) + 1
            if next_node not in seen:
                seen.add(next_node)
                stack.append(next_node)
    return deps


def _needed_nodes(root_nodes, targets) -> set:
    """The nodes that must run to reach the targets (PyTorch's ``exec_info``).

    A node runs only if one of its next nodes leads to a target; a target itself is
    not run unless it leads further (its incoming gradient is captured instead).
    """
    leads: dict = {}  # node -> True if it is a target or leads to one
    needed: set = set()
    stack = [(node, False) for node in root_nodes]
    while stack:  # iterative post-order: deep graphs must not hit the recursion limit
        node, children_done = stack.pop()
        if children_done:
            runs = any(leads.get(n, False) for n, _ in node.next_functions if n is not None)
            if runs:
                needed.add(node)
            leads[node] = runs or node in targets
            continue
        if node in leads:
            continue
        leads[node] = False  # visiting
        stack.append((node, True))
        stack.extend((n, False) for n, _ in node.next_functions if n is not None and n not in leads)
    return needed


_COMPLEX_MISMATCH = (
    "Expected isFloatingType(grad.scalar_type()) || (input_is_complex == grad_is_complex) to "
    "be true, but got false.  (Could this error message be improved?  If so, please report an "
    "enhancement request to PyTorch.)"
)


def validate_outputs(node, grads: tuple) -> tuple:
    """Check the gradients a node computed for its inputs (``validate_outputs``).

    One per next edge. Each that flows on (its edge leads somewhere) must fit the input
    it is for: a gradient of a shape the input broadcasts to is summed back down to the
    input's shape; one of another dtype is cast to the input's (a custom Function may
    return int64 for a float input); any other shape, or another device (but for a 0-dim
    gradient, which is moved), is an error.
    """
    edges = node.next_functions
    if len(grads) != len(edges):
        raise RuntimeError(
            f"function {node.name()} returned an incorrect number of gradients (expected "
            f"{len(edges)}, got {len(grads)})"
        )
    inputs = getattr(node, "_input_meta", None)
    if inputs is None:
        return grads
    checked = list(grads)
    for index, grad in enumerate(grads):
        if grad is None or edges[index][0] is None or inputs[index] is None:
            continue
        shape, dtype, device = inputs[index]
        if grad.device != device:
            if grad._size:
                raise RuntimeError(
                    f"Function {node.name()} returned an invalid gradient at index {index} - "
                    f"expected device {device} but got {grad.device}"
                )
            grad = grad.to(device)  # a 0-dim gradient is moved, as PyTorch moves it
        if grad._size != shape:
            try:
                target = broadcast_shapes(shape, grad._size)
            except RuntimeError:
                target = None
            if target != grad._size:
                raise RuntimeError(
                    f"Function {node.name()} returned an invalid gradient at index {index} - "
                    f"got {list(grad._size)} but expected shape compatible with {list(shape)}"
                )
            grad = _sum_to(grad, shape)
        if grad._dtype is not dtype:
            # A complex gradient for a real input is a formula's mistake (a declared
            # formula's real part is taken where it ran, ``handle_r_to_c``): PyTorch's check.
            if not grad._dtype.is_floating_point and dtype.is_complex != grad._dtype.is_complex:
                raise RuntimeError(_COMPLEX_MISMATCH)
            grad = grad.to(dtype)
        checked[index] = grad
    return tuple(checked)


def _sum_to(grad, shape: tuple):
    """``at::sum_to``: sum the broadcast dims (leading ones, and size-1 ones), keeping
    them, then view the result as ``shape`` if dims were added in front. PyTorch calls
    ``sum`` and ``view`` here, not the ``sum_to_size`` operator."""
    if not shape:
        return _sum_op(grad)
    leading = len(grad._size) - len(shape)
    dims = list(range(leading))
    dims += [leading + i for i, n in enumerate(shape) if n == 1 and grad._size[leading + i] != 1]
    if dims:
        grad = _sum_dims_op(grad, tuple(dims), True)
    return _view_op(grad, shape) if leading else grad


def _run_node(node, grad_outputs: tuple, create_graph: bool) -> tuple:
    previous = grad_state.enabled
    grad_state.enabled = create_graph
    try:
        outputs = node.apply(grad_outputs)
    except Exception as error:
        trace = getattr(node, "_anomaly_trace", None)
        if anomaly_state.enabled and trace:
            raise type(error)(
                f"{error}\n\nError detected in {node.name()}. Traceback of forward call that "
                f"caused the error:\n{trace}"
            ) from error
        raise
    finally:
        grad_state.enabled = previous
    outputs = validate_outputs(node, tuple(outputs))
    if anomaly_state.enabled and anomaly_state.check_nan:
        for i, grad in enumerate(outputs):
            if grad is not None and np.isnan(grad._array).any():
                raise RuntimeError(
                    f"Function '{node.name()}' returned nan values in its {i}th output."
                )
    return outputs


def run_backward(tensors, grad_tensors, *, retain_graph: bool, create_graph: bool,
                 inputs=None, allow_unused: bool = False, accumulate: bool = True):  # fmt: skip
    """Run the graph from ``tensors``; accumulate into leaves or return grads of ``inputs``."""
    roots = _make_root_grads(tensors, grad_tensors)
    # The caller still holds the gradients it passed (or that were made for it): a leaf
    # may not adopt one's layout as its ``.grad`` (see ``accumulate``).
    outer = caller_held_gradients.ids
    caller_held_gradients.ids = frozenset(id(g) for _, g in roots)
    try:
        return _run_graph(roots, retain_graph, create_graph, inputs, allow_unused, accumulate)
    finally:
        caller_held_gradients.ids = outer


def _run_graph(roots, retain_graph, create_graph, inputs, allow_unused, accumulate):
    """The backward pass itself: steps 1 to 4 of the module docstring."""
    root_nodes = list(dict.fromkeys(edge[0] for edge, _ in roots))

    # Where gradients are wanted: an edge per input (autograd.grad / backward(inputs=)).
    captures = None
    needed = None
    if inputs is not None:
        captures = []
        for t in inputs:
            refresh_view_grad_fn(t)
            captures.append(gradient_edge(t) if t.requires_grad else (None, 0))
        targets = {n for n, _ in captures if n is not None}
        needed = _needed_nodes(root_nodes, targets)
        if accumulate:  # backward(inputs=...): the leaves' AccumulateGrad nodes must run
            needed |= {n for n in targets if isinstance(n, AccumulateGrad)}
    captured: dict = {}

    deps = _dependencies(root_nodes)
    buffers: dict = {}
    for (node, nr), grad in roots:
        buffer = buffers.setdefault(node, [])
        buffer.extend([None] * (nr + 1 - len(buffer)))
        buffer[nr] = grad if buffer[nr] is None else buffer[nr] + grad

    order = itertools.count()
    ready = []
    for node in root_nodes:
        if deps.get(node, 0) == 0:
            heapq.heappush(ready, (-node.sequence_nr, next(order), node))
    if "backward_started" in events.bus.wanted:
        events.bus.emit(
            events.BackwardStarted(
                tuple(n._id for n in root_nodes), {n._id: c for n, c in deps.items()}
            )  # fmt: skip
        )
    # Read again: a view may start listening to the steps of a pass that starts in its graph.
    if "ready_queue_changed" in events.bus.wanted:
        _emit_queue(ready, {})

    while ready:
        _, _, node = heapq.heappop(ready)
        buffer = buffers.pop(node, [])
        buffer.extend([None] * (max(1, len(buffer)) - len(buffer)))
        buffer = call_tensor_pre_hooks(node, buffer)
        buffer = call_pre_hooks(node, buffer)

        if captures is not None:
            for i, (cap_node, nr) in enumerate(captures):
                if cap_node is node and nr < len(buffer) and buffer[nr] is not None:
                    captured[i] = buffer[nr]
        skip = (needed is not None and node not in needed) or (
            isinstance(node, AccumulateGrad) and not accumulate
        )
        if "node_started" in events.bus.wanted:
            events.bus.emit(
                events.NodeStarted(node._id, node.name(), tuple(summarize(g) for g in buffer))
            )

        if skip:
            grads = (None,) * len(node.next_functions)
        else:
            # From here the tuple is the engine's one reference to each gradient it hands
            # the node: AccumulateGrad steals a gradient nobody else holds (accumulate.py).
            grad_outputs = tuple(_fill_missing(node, buffer))
            buffer = None
            grads = _run_node(node, grad_outputs, create_graph)
            grads = call_post_hooks(node, grads, grad_outputs)
            grad_outputs = None
            if not retain_graph:
                node._release()
        if "node_finished" in events.bus.wanted:
            events.bus.emit(
                events.NodeFinished(node._id, node.name(), tuple(summarize(g) for g in grads))
            )

        counted = []  # the nodes whose dependency count this step changed
        for (next_node, nr), grad in zip(node.next_functions, grads, strict=True):
            if next_node is None:
                continue
            counted.append(next_node)
            if grad is not None:
                buffer = buffers.setdefault(next_node, [])
                buffer.extend([None] * (nr + 1 - len(buffer)))
                buffer[nr] = grad if buffer[nr] is None else buffer[nr] + grad
            deps[next_node] -= 1
            if deps[next_node] == 0:
                heapq.heappush(ready, (-next_node.sequence_nr, next(order), next_node))
        grads = grad = None  # the buffers hold them now, and only the buffers
        if "ready_queue_changed" in events.bus.wanted:
            _emit_queue(ready, {n._id: deps[n] for n in counted})

    if captures is None:
        return None
    if accumulate:
        # backward(inputs=[non_leaf]) accumulates into the non-leaf's .grad, as PyTorch does.
        for i, t in enumerate(inputs):
            grad = captured.get(i)
            if grad is not None and t._grad_fn is not None:
                meta = t._autograd_meta
                meta.grad = grad.detach() if meta.grad is None else meta.grad + grad.detach()
        return None
    results = []
    for i in range(len(inputs)):
        grad = captured.get(i)
        if grad is None and not allow_unused and accumulate is False:
            raise RuntimeError(
                f"The differentiated Tensor at index {i} appears to not have been used in the "
                "graph. Set allow_unused=True if this is the desired behavior."
            )
        results.append(grad)
    return results


def _fill_missing(node, buffer: list) -> list:
    """Outputs of a multi-output node that got no gradient count as zeros."""
    if all(g is not None for g in buffer):
        return buffer
    outputs = getattr(node, "_output_meta", None)
    if outputs is None:
        return buffer
    filled = list(buffer) + [None] * (len(outputs) - len(buffer))
    for i, meta in enumerate(outputs):
        if filled[i] is None and meta is not None:
            filled[i] = zeros(meta[0], dtype=meta[1], device=meta[2])
    return filled


def _emit_queue(ready, changed_counts: dict) -> None:
    """The ready queue in run order, and only the dependency counts this step changed
    (``BackwardStarted`` gave them all): sending every count at every step would make
    a pass of N nodes cost N * N."""
    queue = tuple(node._id for _, _, node in sorted(ready))
    events.bus.emit(events.ReadyQueueChanged(queue, changed_counts))
