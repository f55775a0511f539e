"""The pure render layer: state in, JSON-able data / HTML / DOT out.

Nothing here imports a widget library (ipywidgets, anywidget, traitlets), so every
view's output can be computed and tested without Jupyter, and is deterministic.
"""
