"""``dispatch_trace()``: watch every operator call walk the dispatch keys.

PyTorch prints this when run with ``TORCH_SHOW_DISPATCH_TRACE=1``::

     [call] op=[aten::add.Tensor], key=[AutogradCPU]
      [redispatch] op=[aten::add.Tensor], key=[CPU]

vizgrad builds the same text from its event stream, so the trace is exactly what
the dispatcher did, not a description of it::

    with vizgrad.dispatch_trace() as trace:
        y = x + 1
    print(trace)            # PyTorch's wording
    print(trace.explain())  # with what each key decided: dtype, broadcast shape, strides
"""

from __future__ import annotations

from . import events

__all__ = ["dispatch_trace", "DispatchTraceLog"]

_KEY_ROLE = {
    "AutogradCPU": "autograd: records a grad_fn if an input requires grad",
    "ADInplaceOrView": "view bookkeeping / version bump",
    "Negative": "resolves inputs with the negative bit (a lazy negation) before the kernel",
    "Conjugate": "resolves inputs with the conjugate bit (a lazy conj()) before the kernel",
    "BackendSelect": "a factory: picks the backend from device=",
    "CPU": "CPU backend kernel",
    "SparseCPU": "sparse COO backend kernel",
    "Meta": "meta backend kernel: the result's metadata, no data",
}


class DispatchTraceLog:
    """The events of the calls made inside ``with dispatch_trace()``, in order."""

    def __init__(self):
        self.events: list[events.Event] = []

    def __call__(self, event: events.Event) -> None:
        self.events.append(event)

    @property
    def steps(self) -> list[events.OpDispatched]:
        """One entry per (operator, dispatch key) visited."""
        return [e for e in self.events if isinstance(e, events.OpDispatched)]

    @property
    def ops(self) -> list[str]:
        """The operators called from outside the dispatcher (depth 0), in order."""
        return [s.op for s in self.steps if s.depth == 0]

    def lines(self) -> list[str]:
        """The trace in PyTorch's own wording (``TORCH_SHOW_DISPATCH_TRACE``)."""
        return [f"{' ' * (s.depth + 1)}[{s.action}] op=[{s.op}], key=[{s.key}]" for s in self.steps]

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def __repr__(self) -> str:
        return f"<DispatchTraceLog: {len(self.ops)} calls, {len(self.steps)} steps>"

    def explain(self) -> str:
        """The trace with what each step decided, for reading in a lesson."""
        out = []
        depth = 0
        for e in self.events:
            if isinstance(e, events.OpDispatched):
                depth = e.depth + 1
                variant = f" ({e.variant})" if e.key == "AutogradCPU" else ""
                out.append(
                    f"{' ' * depth}[{e.action}] op=[{e.op}], key=[{e.key}]{variant}"
                    f"  # {_KEY_ROLE.get(e.key, e.key)}"
                )
            elif isinstance(e, events.KernelChosen):
                out.append(
                    f"{' ' * (depth + 1)}dtype kernel: {e.dtype} ({e.reason}); "
                    f"iterates over shape {list(e.shape)}; output strides {list(e.output_stride)}"
                )
            elif isinstance(e, events.ViewCreated):
                out.append(
                    f"{' ' * (depth + 1)}view of tensor #{e.base}: size {list(e.shape)}, "
                    f"stride {list(e.stride)}, offset {e.offset} (no data copied)"
                )
            elif isinstance(e, events.InplaceWrite):
                out.append(f"{' ' * (depth + 1)}tensor #{e.tensor} written: version -> {e.version}")
        return "\n".join(out)


class dispatch_trace:  # noqa: N801 - used like a function, as PyTorch's context managers
    """Context manager: record the dispatch steps of every call made inside it."""

    def __init__(self):
        self.log = DispatchTraceLog()

    def __enter__(self) -> DispatchTraceLog:
        events.subscribe(self.log)
        return self.log

    def __exit__(self, *exc) -> None:
        events.unsubscribe(self.log)
