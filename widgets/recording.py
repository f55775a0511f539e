"""``vizgrad.widgets.record()``: capture a computation's events, to replay them later.

::

    with record() as rec:
        loss = model(x).sum()
        loss.backward()
    rec.show()               # the Timeline: stride maps, dispatch trace and DAG, one scrubber
    rec.show(names={"x": x}) # with the tensors' names (as GraphView and to_html take them)
    rec.to_html("run.html")  # the same replay as one self-contained page
    rec.to_html("run.html", names={"x": x}, title="one step", max_frames=200)
    text = rec.to_json()     # plain data; Recording.from_json(text) gives it back

A ``Recording`` is the engine's ``vizgrad.events.Recorder`` (a bounded buffer: at most
``max_events``, one million by default, the oldest dropped first) with the views'
entry points added. When the buffer drops events, ``notice`` says so, a warning is
shown when recording stops, and the Timeline shows the notice above its views.
"""

from __future__ import annotations

import json
import warnings

from vizgrad import events

from .export import export_html
from .timeline import Timeline, compact_in_place

__all__ = ["DEFAULT_MAX_EVENTS", "Recording", "record"]

DEFAULT_MAX_EVENTS = 1_000_000


class Recording(events.Recorder):
    """The events of one ``with record():`` block, ready to replay."""

    def __init__(self, max_events: int = DEFAULT_MAX_EVENTS):
        if max_events < 1:
            raise ValueError(f"max_events must be at least 1, got {max_events}")
        super().__init__(max_events=max_events)
        self._replay_cache: tuple | None = None
        # Read back by from_json: its ids are the recording's own, not this session's
        # tensors', so no live tensor can be named in it.
        self.loaded = False

    def __exit__(self, *exc) -> None:
        super().__exit__(*exc)
        if self.dropped:
            warnings.warn(self.notice, stacklevel=2)

    @property
    def notice(self) -> str:
        """What the bounded buffer lost, in words ("" when it kept everything)."""
        if not self.dropped:
            return ""
        return (f"The recording kept the last {len(self):,} events: the {self.dropped:,} "
                f"oldest were dropped (max_events={self.max_events:,}).")  # fmt: skip

    def event_dicts(self) -> list[dict]:
        """The events as a replay folds them: plain dicts with ids renumbered from 1
        (tensor #1, node #1), the values of a JSON round trip, so a replay never
        depends on what ran before. Sequences are tuples (``timeline.compact_event``):
        records the garbage collector need not scan. Read only (cached until more
        events arrive)."""
        key = (len(self._events), self._events[-1].seq if self._events else 0, self.dropped)
        if self._replay_cache is None or self._replay_cache[0] != key:
            self._replay_cache = (key, [compact_in_place(d) for d in self.to_dicts()])
        return self._replay_cache[1]

    # --- plain data ---------------------------------------------------------------------

    def to_json(self) -> str:
        data = json.loads(super().to_json())
        data["max_events"] = self.max_events
        return json.dumps(data)

    @classmethod
    def from_json(cls, text: str) -> Recording:
        """A recording saved by ``to_json`` (events are plain data: nothing is executed).

        Checked as it is read: a malformed or crafted file is a ``ValueError`` naming
        the field and what it should hold (``events.check_recording``)."""
        loaded = events.Recorder.from_json(text)  # checks the schema and every event
        max_events = json.loads(text).get("max_events", DEFAULT_MAX_EVENTS)
        if isinstance(max_events, bool) or not isinstance(max_events, int) or max_events < 1:
            raise ValueError(f"field 'max_events' must be an integer >= 1; got {max_events!r:.40}")
        rec = cls(max_events=max(max_events, len(loaded)))
        rec.dropped = loaded.dropped
        rec.loaded = True
        for event in loaded.events:
            rec(event)  # a Recorder is the bus's subscriber: calling it keeps the event
        return rec

    # --- the views ----------------------------------------------------------------------

    def show(self, **kwargs):
        """The Timeline of this recording (displayed when it is a cell's last value).

        ``names={"w": w}`` names tensors in its stride maps and DAG, as in ``to_html``;
        ``snapshot_every`` and ``interval_ms`` go to the ``Timeline`` too.
        """
        return Timeline(self, **kwargs)

    def to_html(self, path, **options):
        """Write one self-contained HTML page that replays this recording with a scrubber;
        returns its path. ``options`` go to ``widgets.export.export_html``:

        * ``names`` — the tensors' names, ``{"w": w, "x": x}`` (as ``GraphView(names=...)``
          and ``show(names=...)``), shown in the stride maps and the DAG instead of
          ``tensor #3``; a named tensor made before recording started is drawn with its
          shape (``widgets.names``);
        * ``title`` — the page's title and heading (default ``"vizgrad recording"``);
        * ``max_frames`` — at most this many steps become frames of the page's scrubber,
          evenly spaced, first and last kept (default: every step up to 250,000).
        """
        return export_html(self, path, **options)

    def __repr__(self) -> str:
        dropped = f", {self.dropped:,} dropped" if self.dropped else ""
        return f"<Recording: {len(self):,} events{dropped}>"


def record(max_events: int = DEFAULT_MAX_EVENTS) -> Recording:
    """``with record() as rec: ...`` keeps the events of the block (at most ``max_events``)."""
    return Recording(max_events=max_events)
