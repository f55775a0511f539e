"""Every widget test starts and ends with nobody listening to the engine.

Views subscribe to the event bus while they are open; a test that forgets to close one
would make the next tests see a live bus. Closing every widget after each test (as a
notebook's kernel restart would) keeps the tests independent.
"""

import ipywidgets
import pytest

from vizgrad import events


@pytest.fixture(autouse=True)
def close_widgets_after_test():
    yield
    ipywidgets.Widget.close_all()
    leaked = events.bus.subscribers()
    for callback in leaked:
        events.bus.unsubscribe(callback)
    assert not leaked, f"a view stayed subscribed after close(): {leaked}"
