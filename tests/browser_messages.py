"""What a view's front end sends, delivered as the kernel delivers it, without a browser.

In a kernel, a message from the browser reaches a widget through its comm:
``comm.handle_msg(msg)`` calls the widget's ``_handle_msg``, which sets traits
(``"method": "update"``) or hands a custom message to the callbacks registered with
``on_msg`` (``"method": "custom"``). These helpers build those messages, so a
headless test goes through exactly the path a click takes (and sees what the
student would see: ipywidgets swallows the error, the view shows it).
"""

from __future__ import annotations


def _deliver(widget, data: dict) -> None:
    widget.comm.handle_msg({"content": {"comm_id": widget.model_id, "data": data},
                            "buffers": []})  # fmt: skip


def send_message(widget, content: dict) -> None:
    """``model.send(content)`` in the front end: a custom message."""
    _deliver(widget, {"method": "custom", "content": content})


def set_from_browser(widget, **state) -> None:
    """``model.set(name, value); model.save_changes()`` in the front end."""
    _deliver(widget, {"method": "update", "state": state, "buffer_paths": []})
