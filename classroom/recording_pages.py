"""Inside the kernel of an exported lesson: each Timeline's recording as a replay page.

A ``Timeline`` (``rec.show()``) scrubs by asking the kernel for each step's views; an
exported page has no kernel. So, once the lesson has run, every Timeline still alive
has its recording written as the self-contained replay page ``rec.to_html`` makes
(``vizgrad.widgets.export_html``), under the Timeline's widget id, for the exporter
to put where the Timeline was shown.
"""

from __future__ import annotations

import json
from pathlib import Path

from ipywidgets.widgets.widget import _instances  # ipywidgets' live widgets, by model id
from vizgrad.widgets import Timeline, export_html

__all__ = ["write_recording_pages"]


def write_recording_pages(directory) -> dict:
    """Write a replay page per live Timeline into ``directory``; ``{model_id: file}``."""
    directory = Path(directory)
    pages = {}
    for model_id, widget in list(_instances.items()):
        if isinstance(widget, Timeline):
            path = directory / f"{model_id}.html"
            export_html(widget.recording, path, names=widget.names, title="recording")
            pages[model_id] = str(path)
    (directory / "pages.json").write_text(json.dumps(pages), encoding="utf-8")
    return pages
