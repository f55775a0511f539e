"""DispatchState -> an HTML tree of operator calls, or the plain dispatch trace text.

Two readings of the same calls:

* ``render_tree_html``: each call with its dispatch keys and what each key decided —
  the autograd key's node and saved tensors, ADInplaceOrView's view or version bump
  (or its fall-through for a functional op), the backend, the dtype kernel with its
  broadcast shape, promoted dtype and why, and the output strides; nested calls sit
  under the key they were made from.
* ``render_text``: PyTorch's ``TORCH_SHOW_DISPATCH_TRACE`` wording, the same text as
  ``str(vizgrad.dispatch_trace())`` for the same code.

Both filter by operator name (a case-insensitive substring): a call is kept when its
name matches, with everything it called, and its callers are kept as context.

Pure and deterministic: no widget library; every string that reaches HTML is escaped.
"""

from __future__ import annotations

import functools
import html

from ..state.dispatch import (
    AUTOGRAD_KEY,
    BACKEND_SELECT_KEY,
    INPLACE_OR_VIEW_KEY,
    VARIANT_LABELS,
    DispatchState,
    DispatchStep,
    OperatorCall,
)

__all__ = [
    "DEFAULT_MAX_CALLS",
    "kept_calls",
    "step_decision",
    "fall_through_decision",
    "kernel_decision",
    "call_outputs",
    "render_tree_html",
    "render_call_html",
    "render_call_text",
    "tree_notice_html",
    "render_text",
    "render_text_html",
]

# The keys that decide something before the backend kernel runs: the dtype row follows
# the backend's step, not theirs.
_ABOVE_THE_BACKEND = (AUTOGRAD_KEY, INPLACE_OR_VIEW_KEY, BACKEND_SELECT_KEY)

# Operator names, keys and most sentences repeat from call to call: escape each once.
escape = functools.lru_cache(maxsize=8192)(html.escape)

# A long recording shows its most recent top-level calls; the rest are counted, not drawn.
DEFAULT_MAX_CALLS = 200


# --- which calls a filter keeps --------------------------------------------------------


class _AllCalls:
    """All ``n`` calls, unfiltered: membership and a count without building a set (a set
    of every call would make each step cost in proportion to the recording's length)."""

    __slots__ = ("n",)

    def __init__(self, n: int):
        self.n = n

    def __contains__(self, index) -> bool:
        return 0 <= index < self.n

    def __len__(self) -> int:
        return self.n


def kept_calls(state: DispatchState, filter_text: str = "") -> tuple[set, set]:
    """``(kept, context)``: calls to show, and those among them shown only as callers."""
    if not filter_text.strip():
        return _AllCalls(len(state.calls)), set()
    needle = filter_text.strip().lower()
    calls = state.calls
    kept, matched_subtree = set(), [False] * len(calls)
    for call in calls:  # parents come before their children in ``calls``
        inside = needle in call.op.lower() or (call.parent >= 0 and matched_subtree[call.parent])
        matched_subtree[call.index] = inside
        if inside:
            kept.add(call.index)
    context = set()
    for index in list(kept):
        parent = calls[index].parent
        while parent >= 0 and parent not in kept and parent not in context:
            context.add(parent)
            parent = calls[parent].parent
    return kept | context, context


def _window(state: DispatchState, kept: set, max_calls: int | None) -> tuple[list, int]:
    """The most recent ``max_calls`` kept top-level calls, and how many were left out."""
    roots = state.roots if isinstance(kept, _AllCalls) else [i for i in state.roots if i in kept]
    if max_calls is None or len(roots) <= max_calls:
        return roots, 0
    return roots[-max_calls:], len(roots) - max_calls


# --- what each step decided, in words ----------------------------------------------------


def _ids(ids) -> str:
    return ", ".join(f"#{i}" for i in ids) if ids else "none"


def _dims(values) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def call_outputs(call: OperatorCall) -> list[int]:
    """The tensors a call produced or wrote, as far as its events tell."""
    if call.writes:
        return [w["tensor"] for w in call.writes]
    if call.views:
        return [v["tensor"] for v in call.views]
    if call.kernel is not None:
        return [call.kernel["output"]]
    return [c["tensor"] for c in call.created]


def _autograd_decision(call: OperatorCall) -> str:
    """The autograd key's decision as the dispatcher announced it (the step's note), then
    what it recorded, once the node events have come.

    A call is *in progress* from its first ``OpDispatched`` until its ``OpReturned``:
    until then the decision is told as a decision ("records AddBackward0 once the kernel
    returns"), never as an outcome ("nothing recorded").
    """
    parts = []
    for node in call.nodes:
        if node.get("variable"):
            parts.append(f"created {node['name']} (node #{node['node']}) for leaf "
                         f"#{node['variable']}")  # fmt: skip
        else:
            saved = f"; saved {_ids(node['saved'])} for backward" if node["saved"] else ""
            parts.append(f"recorded {node['name']} (node #{node['node']}) as grad_fn of "
                         f"{_ids(node['outputs'])}{saved}")  # fmt: skip
    if any(not node.get("variable") for node in call.nodes):
        return "; ".join(parts)
    note = next((s.note for s in call.steps if s.key == AUTOGRAD_KEY and s.note), "")
    if note.startswith("records "):
        if not call.returned:
            # Decided, not done: the node is recorded when the kernel returns.
            parts.append(f"{note} once the kernel returns (call in progress)")
        elif call.error:
            parts.append(f"{note} once the kernel returns, but the call raised {call.error}: "
                         f"no {note.removeprefix('records ')} recorded")  # fmt: skip
        else:
            parts.append(f"{note} (the node's event is not in this recording)")
    elif note.startswith("CompositeImplicitAutograd"):
        parts.append(note)
    elif note:
        parts.append(f"{note}; redispatch below autograd")
    elif len(call.steps) == 1 and call.children:  # a recording made before notes existed
        parts.append("CompositeImplicitAutograd: no node of its own; the calls it makes "
                     "record theirs")  # fmt: skip
    elif not call.returned:  # no note to read (an old recording): the outcome is not known yet
        parts.append("call in progress: what autograd records is known when it returns")
    else:
        parts.append("nothing recorded (no input requires grad, or grad mode is off); "
                     "redispatch below autograd")  # fmt: skip
    return "; ".join(parts)


def _inplace_or_view_decision(call: OperatorCall) -> str:
    if call.views:
        return "; ".join(
            f"view: #{v['tensor']} shares the storage of base #{v['base']} — size "
            f"{_dims(v['shape'])}, stride {_dims(v['stride'])}, offset {v['offset']} "
            "(no data copied)"
            for v in call.views
        )
    if call.variant == "non_differentiable_view":
        return "shares storage and version counter; autograd does not see a view (_base None)"
    if call.writes:
        return "; ".join(f"version bump: #{w['tensor']} is now at version {w['version']}"
                         for w in call.writes)  # fmt: skip
    if call.variant == "view":
        return "view bookkeeping: the result shares its input's storage and version counter"
    return "version bump of the written tensor"


def _backend_decision(call: OperatorCall, step: DispatchStep) -> str:
    # Another backend than CPU (SparseCPU, Meta) was chosen for a reason the dispatcher
    # gives in its note ("an argument has layout sparse_coo").
    words = (
        f"{step.key} backend (strided) kernel" if step.key == "CPU" or not step.note else step.note
    )
    if step.action == "call" and step.depth > 0:
        words = (f"{step.key} kernel called from inside a kernel: autograd and ADInplaceOrView "
                 "are skipped")  # fmt: skip
    if call.kernel is None and call.created and not call.views:
        made = call.created[-1]
        words += (f"; output #{made['tensor']} {made['dtype']}, size {_dims(made['shape'])}, "
                  f"strides {_dims(made['stride'])}")  # fmt: skip
    return words


def step_decision(call: OperatorCall, step: DispatchStep) -> str:
    """What dispatch key ``step.key`` decided for this call, in a sentence."""
    if step.key == AUTOGRAD_KEY:
        return _autograd_decision(call)
    if step.key == INPLACE_OR_VIEW_KEY:
        return _inplace_or_view_decision(call)
    if step.key == BACKEND_SELECT_KEY:  # a factory: which backend its device= names
        return step.note
    return _backend_decision(call, step)


def fall_through_decision(call: OperatorCall) -> str | None:
    """ADInplaceOrView's fall-through, for a functional call that skipped that key."""
    keys = call.keys
    if call.variant == "functional" and AUTOGRAD_KEY in keys and len(keys) > 1:
        return "fall-through: a functional op needs no view or version bookkeeping"
    return None


def kernel_decision(call: OperatorCall) -> str | None:
    """The second dispatch: which dtype loop ran, over what shape, and why that dtype."""
    k = call.kernel
    if k is None:
        return None
    inputs = ", ".join(k["input_dtypes"])
    return (f"{k['dtype']} kernel over broadcast shape {_dims(k['shape'])} (inputs {inputs}: "
            f"{k['reason']}); output #{k['output']} strides {_dims(k['output_stride'])}")  # fmt: skip


# --- HTML ------------------------------------------------------------------------------


def _step_html(key: str, text: str, extra_class: str = "") -> str:
    cls = f"vg-trace-step {extra_class}".strip()
    return (f'<li class="{cls}" data-key="{escape(key)}"><span class="vg-trace-key">'
            f'{escape(key)}</span> <span class="vg-trace-decision">{escape(text)}</span></li>')  # fmt: skip


def _call_head_html(call: OperatorCall) -> str:
    variant = VARIANT_LABELS.get(call.variant, call.variant)
    outputs = call_outputs(call)
    flow = f"{_ids(call.inputs)} → {_ids(outputs)}" if outputs else _ids(call.inputs)
    during = (f' <span class="vg-trace-during">in backward: {escape(call.during)}</span>'
              if call.during else "")  # fmt: skip
    # A call that raised (its OpReturned named the exception) ends without a result; one
    # whose OpReturned has not come yet is still running.
    if call.error:
        status = f' <span class="vg-trace-error">raised {escape(call.error)}</span>'
    elif not call.returned:
        status = ' <span class="vg-trace-running-note">in progress: not returned yet</span>'
    else:
        status = ""
    return (f'<div class="vg-trace-head"><span class="vg-trace-op">{escape(call.op)}</span> '
            f'<span class="vg-trace-variant vg-variant-{escape(call.variant)}">'
            f'{escape(variant)}</span> <span class="vg-trace-io">{escape(flow)}</span>'
            f"{during}{status}</div>")  # fmt: skip


# A closed call never changes again (see DispatchState), so, unfiltered and away from
# the highlighted call, its HTML is the same at every step of a timeline: it is kept
# here, by object, so a scrubber step renders only the calls still open.
_HTML_CACHE: dict[int, tuple[OperatorCall, str]] = {}
_HTML_CACHE_SIZE = 4096


class _Render:
    """What one rendering needs to know besides the call: filter, highlight, open calls."""

    __slots__ = ("state", "kept", "context", "current", "may_cache")

    def __init__(self, state, kept, context, current, filtered):
        self.state, self.kept, self.context, self.current = state, kept, context, current
        # The highlighted call and its callers, and calls still open, are drawn afresh.
        fresh = set(state.open_calls)
        while current >= 0:
            fresh.add(current)
            current = state.calls[current].parent
        self.may_cache = (lambda index: index not in fresh) if not filtered else None


def _call_html(r: _Render, call: OperatorCall, out: list) -> None:
    if r.may_cache is not None and r.may_cache(call.index):
        cached = _HTML_CACHE.get(id(call))
        if cached is None or cached[0] is not call:
            part: list = []
            _draw_call(r, call, part)
            if len(_HTML_CACHE) >= _HTML_CACHE_SIZE:
                _HTML_CACHE.pop(next(iter(_HTML_CACHE)))  # the oldest entry
            cached = _HTML_CACHE[id(call)] = (call, "".join(part))
        out.append(cached[1])
        return
    _draw_call(r, call, out)


def _draw_call(r: _Render, call: OperatorCall, out: list) -> None:
    state, kept, context, current = r.state, r.kept, r.context, r.current
    classes = ["vg-trace-call"]
    if not call.returned:
        classes.append("vg-trace-running")
    if call.index in context:
        classes.append("vg-trace-context")
    if call.index == current:
        classes.append("vg-trace-current")
    out.append(f'<li class="{" ".join(classes)}" data-call="{call.index}" '
               f'data-op="{escape(call.op)}" data-variant="{escape(call.variant)}">')  # fmt: skip
    out.append(_call_head_html(call))
    out.append('<ol class="vg-trace-steps">')
    children = [state.calls[i] for i in call.children if i in kept]
    child_at = 0
    fall_through = fall_through_decision(call)
    for step in call.steps:
        # Nested calls go right after the key they were made from.
        while child_at < len(children) and children[child_at].seq < step.seq:
            _call_html(r, children[child_at], out)
            child_at += 1
        if fall_through and step.key != AUTOGRAD_KEY:
            out.append(_step_html(INPLACE_OR_VIEW_KEY, fall_through, "vg-trace-fallthrough"))
            fall_through = None
        out.append(_step_html(step.key, step_decision(call, step)))
        if step.key not in _ABOVE_THE_BACKEND and call.kernel is not None:
            out.append(_step_html("dtype", kernel_decision(call), "vg-trace-kernel"))
    for child in children[child_at:]:
        _call_html(r, child, out)
    out.append("</ol></li>")


def render_tree_html(
    state: DispatchState,
    filter_text: str = "",
    *,
    max_calls: int | None = DEFAULT_MAX_CALLS,
    current: int = -1,
) -> str:
    """The calls as nested lists (``.vg-trace-call`` > ``.vg-trace-steps`` > ``.vg-trace-step``)."""
    kept, context = kept_calls(state, filter_text)
    roots, left_out = _window(state, kept, max_calls)
    out = ['<div class="vg-trace">', tree_notice_html(left_out, len(roots))]
    if not roots:
        message = "no operator call matches the filter" if filter_text.strip() else "no calls"
        out.append(f'<div class="vg-trace-empty">{escape(message)}</div>')
    out.append('<ul class="vg-trace-tree">')
    r = _Render(state, kept, context, current, filtered=bool(filter_text.strip()))
    for index in roots:
        _call_html(r, state.calls[index], out)
    out.append("</ul></div>")
    return "".join(out)


def tree_notice_html(left_out: int, shown: int) -> str:
    """What a window of the most recent calls leaves out, as the tree says it ("" if nothing)."""
    if not left_out:
        return ""
    return (f'<div class="vg-trace-notice">{left_out} earlier calls not shown '
            f"(the {shown} most recent are).</div>")  # fmt: skip


def render_call_html(state: DispatchState, index: int) -> str:
    """One top-level call of the tree (``li.vg-trace-call``), unfiltered, nothing highlighted.

    An exported page stores each call's HTML once and puts a step's tree together from
    them (``render_tree_html`` is their concatenation inside the tree's list); it marks
    the current call itself (``vg-trace-current``).
    """
    out: list = []
    _call_html(
        _Render(state, _AllCalls(len(state.calls)), set(), -1, filtered=False),
        state.calls[index],
        out,
    )
    return "".join(out)


def render_call_text(state: DispatchState, index: int) -> str:
    """``render_text``'s lines for one top-level call and the calls inside it."""
    steps = [(step.seq, call.op, step) for call, _ in state.walk([index]) for step in call.steps]
    steps.sort(key=lambda item: item[0])
    return "\n".join(f"{' ' * (step.depth + 1)}[{step.action}] op=[{op}], key=[{step.key}]"
                     for _, op, step in steps)  # fmt: skip


# --- text ------------------------------------------------------------------------------


def render_text(
    state: DispatchState, filter_text: str = "", *, max_calls: int | None = None
) -> str:
    """PyTorch's dispatch trace wording, one line per key (``str(vizgrad.dispatch_trace())``)."""
    kept, _ = kept_calls(state, filter_text)
    roots, _ = _window(state, kept, max_calls)
    steps = [
        (step.seq, call.op, step)
        for call, _ in state.walk(roots)
        if call.index in kept
        for step in call.steps
    ]
    steps.sort(key=lambda item: item[0])
    return "\n".join(f"{' ' * (step.depth + 1)}[{step.action}] op=[{op}], key=[{step.key}]"
                     for _, op, step in steps)  # fmt: skip


def render_text_html(state: DispatchState, filter_text: str = "", **kwargs) -> str:
    """The text view as an escaped ``<pre class="vg-trace-text">``, for exported pages."""
    return f'<pre class="vg-trace-text">{escape(render_text(state, filter_text, **kwargs))}</pre>'
