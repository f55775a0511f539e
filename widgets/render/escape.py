"""Escaping user data for the places a view puts it: HTML, DOT labels, inline JSON.

Tensor names, labels and reprs come from the user, so a view must never let them
become markup. A name like ``<img src=x onerror=alert(1)>`` has to show as text, in
the widget and in an exported HTML file. Every view uses these helpers (or
``html.escape`` itself) for anything that did not come from vizgrad's own code.
"""

from __future__ import annotations

import html
import json

__all__ = ["escape_html", "escape_dot", "json_for_script"]


def escape_html(value) -> str:
    """Text safe inside HTML elements and quoted attributes (``&``, ``<``, ``>``, quotes)."""
    return html.escape(str(value), quote=True)


def escape_dot(value) -> str:
    """Text safe inside a double-quoted DOT label (``label="..."``).

    DOT reads backslash sequences (``\\n``, ``\\l``) and ends the string at a quote,
    so both are escaped; newlines become DOT's centred line break. Graphviz's SVG
    output escapes ``<`` and ``&`` itself, but a label also ends up in tooltips and
    exported pages, so angle brackets are escaped as HTML entities too.
    """
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace("\r\n", "\\n").replace("\n", "\\n")


def json_for_script(data) -> str:
    """JSON that can sit inside a ``<script>`` element of an HTML page.

    ``</script>`` (or ``<!--``) inside a string would end the script early; JSON allows
    ``\\u003c`` for ``<``, so the browser's HTML parser never sees a tag. U+2028/2029
    are escaped because older JavaScript engines treat them as line ends.
    """
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                          ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):  # fmt: skip
        text = text.replace(char, escaped)
    return text
