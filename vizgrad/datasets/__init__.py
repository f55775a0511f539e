"""Small datasets for the lessons, with no network: the 8x8 handwritten digits and
synthetic generators (moons, circles, spirals, blobs)."""
