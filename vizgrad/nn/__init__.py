"""``torch.nn``: modules, parameters, the functional forms, initialisation and utilities."""

from . import functional, init, utils
from .modules import *  # noqa: F403
from .parameter import *  # noqa: F403
