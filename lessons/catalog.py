"""The lessons, in order: titles, notebooks and the modules that hold their exercises."""

from __future__ import annotations

import importlib
from dataclasses import dataclass

__all__ = ["Lesson", "LESSONS", "load_all"]


@dataclass(frozen=True)
class Lesson:
    number: int
    title: str
    notebook: str  # file name under notebooks/
    module: str  # module under vizgrad.lessons holding its exercises


LESSONS = (
    Lesson(1, "What a tensor is", "01-what-a-tensor-is.ipynb", "lesson01"),
    Lesson(2, "Strides", "02-strides.ipynb", "lesson02"),
    Lesson(3, "Views", "03-views.ipynb", "lesson03"),
    Lesson(4, "Broadcasting and type promotion", "04-broadcasting-and-promotion.ipynb", "lesson04"),
    Lesson(5, "Dispatch", "05-dispatch.ipynb", "lesson05"),
    Lesson(6, "The autograd graph", "06-the-autograd-graph.ipynb", "lesson06"),
    Lesson(7, "The backward engine step by step", "07-the-backward-engine.ipynb", "lesson07"),
    Lesson(8, "Controlling autograd", "08-controlling-autograd.ipynb", "lesson08"),
    Lesson(
        9, "In-place operations and version counters", "09-in-place-and-versions.ipynb", "lesson09"
    ),  # fmt: skip
    Lesson(10, "Writing your own operator", "10-your-own-operator.ipynb", "lesson10"),
    Lesson(11, "nn.Module inside", "11-nn-module-inside.ipynb", "lesson11"),
    Lesson(12, "Losses", "12-losses.ipynb", "lesson12"),
    Lesson(13, "Optimizers", "13-optimizers.ipynb", "lesson13"),
    Lesson(14, "Data", "14-data.ipynb", "lesson14"),
    Lesson(15, "Training end to end", "15-training-end-to-end.ipynb", "lesson15"),
    Lesson(16, "From dynamic to static graphs", "16-static-graphs.ipynb", "lesson16"),
    Lesson(17, "The matmul family and einsum", "17-matmul-and-einsum.ipynb", "lesson17"),
)


def load_all() -> None:
    """Import every lesson module that exists, so its exercises are registered."""
    for lesson in LESSONS:
        try:
            importlib.import_module(f"vizgrad.lessons.{lesson.module}")
        except ModuleNotFoundError as error:
            if error.name != f"vizgrad.lessons.{lesson.module}":
                raise
