"""``torch.nn.functional``: the layers as functions of their inputs and weights.

One module per family; every function runs the engine's operators, so each call is
dispatched, recorded and drawn like any other.
"""

from .activation import *  # noqa: F403
from .conv import *  # noqa: F403
from .distance import *  # noqa: F403
from .dropout import *  # noqa: F403
from .linear import *  # noqa: F403
from .loss import *  # noqa: F403
from .normalization import *  # noqa: F403
from .padding import *  # noqa: F403
from .pooling import *  # noqa: F403
from .sparse import *  # noqa: F403
from .vision import *  # noqa: F403
