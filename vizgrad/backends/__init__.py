"""``torch.backends``: the backends a build could use; vizgrad reports none but the CPU."""

from . import mps
