"""Small datasets for the lessons, with no network.

- ``load_digits`` / ``Digits``: 1,797 real 8x8 handwritten digits (UCI, CC BY 4.0),
  shipped with the package.
- ``make_moons``, ``make_circles``, ``make_spirals``, ``make_blobs``: synthetic 2-D
  classification problems drawn with vizgrad's generators.
"""

from .digits import Digits, load_digits
from .synthetic import make_blobs, make_circles, make_moons, make_spirals

__all__ = ["Digits", "load_digits", "make_blobs", "make_circles", "make_moons", "make_spirals"]
