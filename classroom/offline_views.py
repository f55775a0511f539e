"""Inside the kernel of an exported lesson: what a page without a kernel cannot ask for.

Two kinds of widget live on messages from the kernel, so their saved state alone does
not show what the lesson ended with:

* a **Timeline** (``rec.show()``) asks the kernel for each step's views as it scrubs.
  Its recording is written as the self-contained replay page ``rec.to_html`` makes
  (``vizgrad.widgets.export_html``);
* a plotly **FigureWidget** (lesson 15's live chart) receives its traces as updates,
  which the saved state does not accumulate. Its figure, as it is now, is written as
  plotly JSON, for plotly.js to draw.

Both are keyed by widget id, for the exporter to put where each was shown.
"""

from __future__ import annotations

import json
from pathlib import Path

import plotly.io
from ipywidgets.widgets.widget import _instances  # ipywidgets' live widgets, by model id
from plotly.graph_objects import FigureWidget
from vizgrad.widgets import Timeline, export_html

__all__ = ["write_offline_views"]


def write_offline_views(directory) -> dict:
    """Write a replay page per live Timeline and the figure of every live FigureWidget
    into ``directory``; ``{"recordings": {model_id: file}, "figures": {model_id: figure}}``."""
    directory = Path(directory)
    views = {"recordings": {}, "figures": {}}
    for model_id, widget in list(_instances.items()):
        if isinstance(widget, Timeline):
            path = directory / f"{model_id}.html"
            export_html(widget.recording, path, names=widget.names, title="recording")
            views["recordings"][model_id] = str(path)
        elif isinstance(widget, FigureWidget):
            views["figures"][model_id] = json.loads(plotly.io.to_json(widget))
    (directory / "views.json").write_text(json.dumps(views), encoding="utf-8")
    return views
