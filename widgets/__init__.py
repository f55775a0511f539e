"""vizgrad.widgets: the Jupyter views of the engine (stride maps, dispatch traces, the backward DAG).

They subscribe to ``vizgrad.events`` and read tensors through their public API only;
the engine never imports this package. The views themselves are built by the
"views" issue; this package exists so that the layout (``vizgrad.widgets`` installed
from ``widgets/``) is in place from the first commit.
"""

from .dispatch_trace import DispatchTrace  # noqa: E402, F401
from .export import export_html  # noqa: E402, F401
from .graph_view import GraphView  # noqa: E402, F401
from .recording import Recording, record  # noqa: E402, F401
from .stride_map import StrideMap  # noqa: E402, F401
from .timeline import Timeline  # noqa: E402, F401
