"""vizgrad.lessons: exercise checkers and helpers used by the notebooks in ``notebooks/``.

Installed as ``vizgrad.lessons`` from ``lessons/``; it uses the engine and the widgets,
and neither of them imports it.
"""
