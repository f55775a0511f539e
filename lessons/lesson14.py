"""Lesson 14 — data: ``vizgrad.utils.data`` (``torch.utils.data``): datasets, samplers,
batching and collation, on the 8x8 digits of ``vizgrad.datasets.Digits``.

A ``DataLoader`` is three parts: a *sampler* says which indices to load, the *dataset*
turns an index into a sample (``dataset[i]``), and ``collate_fn`` turns a list of
samples into a batch. The helpers here are the small datasets the notebook builds on
(``Squares``, ``Countdown``, ``Sentences``, ``Windows``-style series) and the reference
``pad_collate``; every expected answer is computed by vizgrad's own ``DataLoader`` and
samplers on the same calls the notebook shows, and the tests compare them with
``torch.utils.data``.
"""

from __future__ import annotations

import inspect

import numpy as np

import vizgrad as vg
from vizgrad.datasets import Digits
from vizgrad.utils.data import (
    BatchSampler,
    DataLoader,
    Dataset,
    IterableDataset,
    SequentialSampler,
)

from .exercise import Wrong, exercise
from .lesson07 import numbers_of

__all__ = ["Squares", "Countdown", "Sentences", "SENTENCES", "pad_collate", "show_digit",
           "SERIES", "WINDOW", "window_pairs", "BATCH_SIZE"]  # fmt: skip


# --- small datasets for the notebook ---------------------------------------------------


class Squares(Dataset):
    """A map-style dataset: sample ``i`` is ``(i, i * i)``, for ``i < n``.

    All a map-style dataset needs: ``__getitem__`` (an index in, a sample out) and
    ``__len__`` (how many indices are valid). Nothing is stored: samples are made on demand.
    """

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, index: int):
        if not 0 <= index < self.n:
            raise IndexError(f"index {index} is out of range for Squares({self.n})")
        return vg.tensor(float(index)), vg.tensor(float(index * index))


class Countdown(IterableDataset):
    """An iterable-style dataset: the stream ``start, start - 1, ..., 1``.

    A stream has no indices: the ``DataLoader`` just calls ``iter()`` on it and pulls
    ``batch_size`` samples at a time; a sampler, ``shuffle`` or ``len`` make no sense here.
    """

    def __init__(self, start: int) -> None:
        self.start = start

    def __iter__(self):
        yield from range(self.start, 0, -1)


# Token ids of short "sentences" of different lengths, and a label each (1: a question).
SENTENCES = [
    ([5, 12, 7], 0),
    ([3, 9], 1),
    ([8, 1, 4, 6, 2], 0),
    ([11], 1),
    ([2, 2, 10, 3], 0),
    ([7, 5], 1),
]


class Sentences(Dataset):
    """Sample ``i`` is ``(tokens, label)``: an int64 tensor of token ids, whose length
    varies from sample to sample, and an int. ``default_collate`` cannot stack these."""

    def __init__(self, sentences=SENTENCES) -> None:
        self.sentences = list(sentences)

    def __len__(self) -> int:
        return len(self.sentences)

    def __getitem__(self, index: int):
        tokens, label = self.sentences[index]
        return vg.tensor(tokens), label


def pad_collate(batch, padding_value: int = 0):
    """A ``collate_fn`` for ``Sentences``: ``(padded, lengths, labels)``.

    ``padded`` is ``(batch, longest)``, each sequence followed by ``padding_value``;
    ``lengths`` says how many entries of each row are real (``pack_padded_sequence`` and
    attention masks need it); ``labels`` is an int64 tensor.
    """
    sequences = [tokens for tokens, _ in batch]
    lengths = vg.tensor([len(s) for s in sequences])
    padded = vg.full((len(sequences), int(lengths.max())), padding_value,
                     dtype=sequences[0].dtype)  # fmt: skip
    for row, sequence in enumerate(sequences):
        padded[row, : len(sequence)] = sequence
    labels = vg.tensor([label for _, label in batch])
    return padded, lengths, labels


def show_digit(image) -> str:
    """An 8x8 image (values 0..1) as text, darker characters for more ink."""
    shades = " .:-=+*#%@"
    rows = np.asarray(image.reshape(8, 8).tolist())
    return "\n".join("".join(shades[min(int(v * 9.999), 9)] * 2 for v in row) for row in rows)


# --- checking helpers ----------------------------------------------------------------------


def _shape_of(value):
    """A shape answer as a tuple of ints, or None if it is not one."""
    if isinstance(value, vg.Size) or (
        type(value).__module__.startswith("torch") and type(value).__name__ == "Size"
    ):
        return tuple(int(v) for v in value)
    if isinstance(value, list | tuple) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        return tuple(value)
    return None


def _int(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        if isinstance(value, float) and value.is_integer():
            return int(value)
        raise Wrong(f"{what}: answer with a whole number, not {value!r}.")
    return int(value)


def _index_lists(value, what: str) -> list[list[int]]:
    if isinstance(value, range):
        value = list(value)
    if not isinstance(value, list | tuple) or not all(
        isinstance(batch, list | tuple | range) for batch in value
    ):
        raise Wrong(f"{what}: answer with a list of batches, each a list of indices, like "
                    "[[0, 1, 2], [3, 4, 5]].")  # fmt: skip
    return [list(batch) for batch in value]


# --- exercise 1: how many batches -------------------------------------------------------

BATCH_SIZE = 64


def digits_train() -> Digits:
    """The training half of the digits (1,438 images)."""
    return Digits(train=True)


@exercise(
    "14.num_batches",
    f"dataset = Digits(train=True) has 1438 images. How many batches does "
    f"DataLoader(dataset, batch_size={BATCH_SIZE}) yield, and how many with drop_last=True? "
    "Answer a tuple (without, with).",
    hints=(
        f"1438 / {BATCH_SIZE} is not a whole number: the last batch is shorter.",
        "Without drop_last the short batch is yielded (round up); with drop_last=True it is "
        "dropped (round down).",
    ),
    solution="""
import math

answer = (math.ceil(1438 / 64), 1438 // 64)
check("14.num_batches", answer)
""",
    explanation=f"ceil(1438 / {BATCH_SIZE}) = 23 batches, the last with 1438 - 22 * 64 = 30 "
    "images; with drop_last=True those 30 are left out of the epoch (22 batches). len(loader) "
    "gives the count without iterating.",
)
def _(answer):
    if not isinstance(answer, list | tuple) or len(answer) != 2:
        raise Wrong("answer with a tuple of two numbers: (without drop_last, with drop_last).")
    dataset = digits_train()
    without = len(DataLoader(dataset, batch_size=BATCH_SIZE))
    with_drop = len(DataLoader(dataset, batch_size=BATCH_SIZE, drop_last=True))
    if isinstance(answer[0], float) and not answer[0].is_integer():
        raise Wrong(f"{answer[0]:g} is not a number of batches: a batch count is a whole "
                    "number; what happens to the images left over?")  # fmt: skip
    got = (_int(answer[0], "without drop_last"), _int(answer[1], "with drop_last"))
    if got == (with_drop, without):
        raise Wrong("the two are swapped: drop_last=True drops the short last batch, so it "
                    "gives fewer batches.")  # fmt: skip
    if got[0] != without:
        if got[0] == with_drop:
            raise Wrong(f"without drop_last: the last {len(dataset) % BATCH_SIZE} images still "
                        "form a (shorter) batch, so round up.")  # fmt: skip
        raise Wrong(f"without drop_last: {got[0]} batches of {BATCH_SIZE} do not cover 1438 "
                    "images exactly once.")  # fmt: skip
    if got[1] != with_drop:
        raise Wrong(f"with drop_last=True: only full batches of {BATCH_SIZE} are kept "
                    "(round down).")  # fmt: skip


# --- exercise 2: the shape of a collated batch ------------------------------------------------

SHAPE_BATCH = 32


@exercise(
    "14.batch_shape",
    f"images, labels = next(iter(DataLoader(Digits(), batch_size={SHAPE_BATCH}))). A sample is "
    "(image of shape (1, 8, 8), label an int). Give (images.shape, labels.shape) as two tuples.",
    hints=(
        "default_collate works on the structure of a sample: a (image, label) pair gives a pair "
        "of batches.",
        "Tensors are stacked along a new first dimension; Python ints become a 1-D int64 tensor.",
    ),
    solution="""
answer = ((32, 1, 8, 8), (32,))
check("14.batch_shape", answer)
""",
    explanation="default_collate transposes the list of pairs into a pair of lists, then stacks "
    "the images (a new first dimension of 32) and turns the 32 ints into tensor([...]) of shape "
    "(32,).",
)
def _(answer):
    if not isinstance(answer, list | tuple) or len(answer) != 2:
        raise Wrong("answer with two shapes: (images.shape, labels.shape), e.g. ((2, 3), (4,)).")
    images_shape, labels_shape = _shape_of(answer[0]), _shape_of(answer[1])
    if images_shape is None or labels_shape is None:
        raise Wrong("each shape is a tuple of ints, like (32, 5) or (7,).")
    images, labels = next(iter(DataLoader(Digits(), batch_size=SHAPE_BATCH)))
    expected_images, expected_labels = tuple(images.shape), tuple(labels.shape)
    if images_shape != expected_images:
        if images_shape == expected_images[1:]:
            raise Wrong("images: that is the shape of one image; the batch stacks 32 of them "
                        "along a new first dimension.")  # fmt: skip
        if images_shape == (SHAPE_BATCH, 8, 8):
            raise Wrong("images: the channel dimension stays: each image is (1, 8, 8), and "
                        "stacking adds the batch dimension in front.")  # fmt: skip
        if images_shape == (SHAPE_BATCH * 8, 8) or images_shape == (SHAPE_BATCH, 64):
            raise Wrong("images: default_collate stacks (a new dimension), it does not "
                        "concatenate or flatten.")  # fmt: skip
        raise Wrong(f"images: {images_shape} is not the shape of 32 stacked (1, 8, 8) images.")
    if labels_shape != expected_labels:
        if labels_shape in ((SHAPE_BATCH, 1), (1, SHAPE_BATCH)):
            raise Wrong("labels: each label is a Python int (no dimension); 32 of them become "
                        "a 1-D tensor.")  # fmt: skip
        if labels_shape == ():
            raise Wrong("labels: there is one label per image in the batch.")
        raise Wrong(f"labels: {labels_shape} is not the shape of 32 labels.")


# --- exercise 3: a BatchSampler over a SequentialSampler -----------------------------------

SAMPLER_LENGTH = 10
SAMPLER_BATCH = 3


def batch_sampler_batches(drop_last: bool) -> list[list[int]]:
    """``list(BatchSampler(SequentialSampler(range(10)), 3, drop_last))``."""
    sampler = SequentialSampler(range(SAMPLER_LENGTH))
    return list(BatchSampler(sampler, SAMPLER_BATCH, drop_last=drop_last))


@exercise(
    "14.batch_sampler",
    f"Predict list(BatchSampler(SequentialSampler(range({SAMPLER_LENGTH})), {SAMPLER_BATCH}, "
    "drop_last=False)) and the same with drop_last=True. Answer a tuple of two lists of lists.",
    hints=(
        "SequentialSampler yields 0, 1, 2, ..., 9; BatchSampler groups them in lists of 3.",
        "10 = 3 + 3 + 3 + 1: what happens to the last index with each drop_last?",
    ),
    solution="""
answer = (
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]],
    [[0, 1, 2], [3, 4, 5], [6, 7, 8]],
)
check("14.batch_sampler", answer)
""",
    explanation="The batch sampler is what the DataLoader iterates: each list of indices becomes "
    "one fetch and one collate. drop_last=True loses index 9 this epoch (with shuffle=True a "
    "different index is lost each epoch).",
)
def _(answer):
    if not isinstance(answer, list | tuple) or len(answer) != 2:
        raise Wrong("answer with a tuple of two lists of batches: (drop_last=False, "
                    "drop_last=True).")  # fmt: skip
    keep = _index_lists(answer[0], "drop_last=False")
    drop = _index_lists(answer[1], "drop_last=True")
    expected_keep, expected_drop = batch_sampler_batches(False), batch_sampler_batches(True)
    if keep == expected_drop and drop == expected_keep:
        raise Wrong("the two are swapped: drop_last=True is the one without the short batch.")
    for got, expected, name in ((keep, expected_keep, "drop_last=False"),
                                (drop, expected_drop, "drop_last=True")):  # fmt: skip
        if got == expected:
            continue
        if got == expected + [[]]:
            raise Wrong(f"{name}: no empty batch is yielded at the end.")
        if sorted(i for batch in got for i in batch) == list(range(SAMPLER_LENGTH)) and any(
            len(batch) != SAMPLER_BATCH for batch in got[:-1]
        ):
            raise Wrong(f"{name}: every batch but the last has exactly {SAMPLER_BATCH} indices.")
        if name == "drop_last=False" and got == expected_drop:
            raise Wrong("drop_last=False keeps the short last batch [9].")
        if name == "drop_last=True" and got == expected_keep:
            raise Wrong("drop_last=True drops the last batch when it is shorter than 3.")
        if name == "drop_last=False" and got and got[-1] == [9, 0, 1]:
            raise Wrong("drop_last=False: the sampler does not wrap around; the last batch is "
                        "just shorter.")  # fmt: skip
        raise Wrong(f"{name}: {got} is not what the batch sampler yields; group 0, 1, ..., 9 "
                    f"in order, {SAMPLER_BATCH} at a time.")  # fmt: skip


# --- exercise 4: a collate_fn that pads ---------------------------------------------------

PAD_BATCH = 4


def _run_collate(collate_fn):
    loader = DataLoader(Sentences(), batch_size=PAD_BATCH, collate_fn=collate_fn)
    return list(loader)


def _as_array(value):
    got = numbers_of(value)
    return None if got is None else got


@exercise(
    "14.pad_collate",
    "Write collate_fn(batch) for Sentences: batch is a list of (tokens, label) with tokens of "
    "different lengths. Return (padded, lengths, labels): padded of shape (batch, longest) with "
    "0 after each sequence, lengths the length of each, labels a tensor. Answer with the function.",
    hints=(
        "Split the batch: sequences = [tokens for tokens, label in batch], and the labels likewise.",
        "Make vg.zeros(len(batch), longest, dtype=vg.int64) and copy each sequence into the start "
        "of its row: padded[i, :len(s)] = s.",
        "lengths = vg.tensor([len(s) for s in sequences]); labels = vg.tensor(labels).",
    ),
    solution="""
def collate_fn(batch):
    sequences = [tokens for tokens, label in batch]
    lengths = vg.tensor([len(s) for s in sequences])
    padded = vg.zeros(len(batch), int(lengths.max()), dtype=vg.int64)
    for i, s in enumerate(sequences):
        padded[i, : len(s)] = s
    labels = vg.tensor([label for tokens, label in batch])
    return padded, lengths, labels

answer = collate_fn
check("14.pad_collate", answer)
""",
    explanation="Each batch is padded only to its own longest sequence (5 in the first batch, 4 "
    "in the second), not to the longest of the whole dataset: less wasted compute. The lengths "
    "let a model ignore the padding.",
)
def _(answer):
    if not callable(answer):
        raise Wrong(f"answer with the function itself (answer = collate_fn, without "
                    f"parentheses), not a {type(answer).__name__}.")  # fmt: skip
    expected = _run_collate(pad_collate)
    try:
        got = _run_collate(answer)
    except Exception as error:  # noqa: BLE001 - the student's code may raise anything
        raise Wrong(f"a DataLoader with your collate_fn raised {type(error).__name__}: "
                    f"{error}") from None  # fmt: skip
    for number, (mine, theirs) in enumerate(zip(got, expected, strict=True), start=1):
        if not isinstance(mine, list | tuple) or len(mine) != 3:
            raise Wrong("return a tuple of three: (padded, lengths, labels).")
        where = f"batch {number}"
        padded, lengths, labels = (_as_array(v) for v in mine)
        want_padded, want_lengths, want_labels = (_as_array(v) for v in theirs)
        if padded is None or not isinstance(mine[0], vg.Tensor):
            raise Wrong(f"{where}: padded is a {type(mine[0]).__name__}; return a tensor (a "
                        "model takes the batch as one tensor).")  # fmt: skip
        if padded.shape != want_padded.shape:
            if padded.shape == want_padded.shape[::-1]:
                raise Wrong(f"{where}: padded has shape {padded.shape}; put the batch first: "
                            "(batch, longest).")  # fmt: skip
            if padded.ndim == 2 and padded.shape[0] == want_padded.shape[0]:
                raise Wrong(
                    f"{where}: padded is {padded.shape[1]} wide; pad each batch to its "
                    f"own longest sequence ({want_padded.shape[1]} here)."
                )
            raise Wrong(f"{where}: padded has shape {padded.shape}, but a batch of "
                        f"{want_padded.shape[0]} sequences padded to the longest "
                        f"({want_padded.shape[1]}) is {want_padded.shape}.")  # fmt: skip
        if not np.array_equal(padded, want_padded):
            real = want_padded != 0
            if np.array_equal(padded[real], want_padded[real]):
                raise Wrong(f"{where}: the tokens are right but the padding is not 0.")
            raise Wrong(
                f"{where}: each row should be its sequence followed by zeros; row "
                f"{int(np.argmax((padded != want_padded).any(axis=1)))} is "
                f"{padded[int(np.argmax((padded != want_padded).any(axis=1)))].tolist()}."
            )
        if (
            lengths is None
            or lengths.shape != want_lengths.shape
            or not np.array_equal(lengths, want_lengths)
        ):
            raise Wrong(f"{where}: lengths should hold the number of real tokens of each row, "
                        "as a tensor or a list.")  # fmt: skip
        if not isinstance(mine[2], vg.Tensor):
            raise Wrong(f"{where}: labels is a {type(mine[2]).__name__}; return a tensor "
                        "(vg.tensor(labels)), as default_collate would.")  # fmt: skip
        if labels.shape != want_labels.shape or not np.array_equal(labels, want_labels):
            raise Wrong(f"{where}: labels should be the labels of the batch's samples, in order.")


# --- exercise 5: write a __getitem__ --------------------------------------------------------

SERIES = [1.0, 4.0, 9.0, 16.0, 25.0, 36.0, 49.0]
WINDOW = 3


def window_pairs(series=SERIES, size: int = WINDOW) -> list:
    """What the windows dataset must give: for each start i, (series[i : i + size],
    series[i + size]) — the past ``size`` values and the next one, to predict."""
    values = vg.tensor(series)
    return [(values[i : i + size], values[i + size]) for i in range(len(series) - size)]


@exercise(
    "14.getitem",
    f"Complete class Windows(Dataset): Windows(series, size) holds a 1-D tensor; sample i is "
    f"(series[i : i + size], series[i + size]): {WINDOW} past values and the next one. Write "
    "__len__ and __getitem__, and answer with the class.",
    hints=(
        "The last sample must still have a next value: the last start is len(series) - size - 1.",
        "So __len__ is len(series) - size.",
        "__getitem__(self, i): return self.series[i : i + self.size], self.series[i + self.size]",
    ),
    solution="""
class Windows(Dataset):
    def __init__(self, series, size):
        self.series = series
        self.size = size

    def __len__(self):
        return len(self.series) - self.size

    def __getitem__(self, i):
        return self.series[i : i + self.size], self.series[i + self.size]

answer = Windows
check("14.getitem", answer)
""",
    explanation="The DataLoader only ever calls len() (through the sampler) and dataset[i] for "
    "i < len(dataset): those two methods are the whole contract of a map-style dataset.",
)
def _(answer):
    if not inspect.isclass(answer):
        raise Wrong(f"answer with the class itself (answer = Windows), not a "
                    f"{type(answer).__name__}.")  # fmt: skip
    series = vg.tensor(SERIES)
    try:
        dataset = answer(series, WINDOW)
    except Exception as error:  # noqa: BLE001 - the student's code may raise anything
        raise Wrong(f"Windows(series, {WINDOW}) raised {type(error).__name__}: {error}") from None
    expected = window_pairs()
    try:
        length = len(dataset)
    except Exception as error:  # noqa: BLE001
        raise Wrong(f"len(dataset) raised {type(error).__name__}: {error}; write "
                    "__len__.") from None  # fmt: skip
    if length != len(expected):
        if length == len(expected) + 1:
            raise Wrong(
                f"len is {length}: one too many. The last window would have no next "
                f"value to predict ({len(SERIES)} values, windows of {WINDOW})."
            )
        if length == len(SERIES):
            raise Wrong(f"len is {length}, the length of the series; but a window needs "
                        f"{WINDOW} values plus the next one.")  # fmt: skip
        raise Wrong(f"len is {length}; count the starts i for which series[i + {WINDOW}] "
                    "exists.")  # fmt: skip
    for i, (want_window, want_next) in enumerate(expected):
        try:
            sample = dataset[i]
        except Exception as error:  # noqa: BLE001
            raise Wrong(f"dataset[{i}] raised {type(error).__name__}: {error}") from None
        if not isinstance(sample, list | tuple) or len(sample) != 2:
            raise Wrong(f"dataset[{i}] should be a pair (window, next value).")
        window, following = _as_array(sample[0]), _as_array(sample[1])
        if window is None or following is None:
            raise Wrong(f"dataset[{i}]: return tensors (slices of the series).")
        want_window, want_next = _as_array(want_window), _as_array(want_next)
        if window.shape != want_window.shape or not np.allclose(window, want_window):
            raise Wrong(f"dataset[{i}]: the window is {window.tolist()}; it should be the "
                        f"{WINDOW} values starting at position {i}.")  # fmt: skip
        if following.size != 1 or not np.allclose(following.reshape(()), want_next):
            previous = SERIES[i + WINDOW - 1]
            if following.size == 1 and np.isclose(float(following.reshape(())), previous):
                raise Wrong(f"dataset[{i}]: the target is the window's last value; it should "
                            "be the value right after the window.")  # fmt: skip
            raise Wrong(f"dataset[{i}]: the target is {following.tolist()}; it should be the "
                        "value right after the window.")  # fmt: skip
    loader = DataLoader(dataset, batch_size=2)
    try:
        windows, targets = next(iter(loader))
    except Exception as error:  # noqa: BLE001
        raise Wrong(f"a DataLoader over your dataset raised {type(error).__name__}: "
                    f"{error}") from None  # fmt: skip
    if not isinstance(windows, vg.Tensor) or tuple(windows.shape) != (2, WINDOW):
        raise Wrong(
            f"a DataLoader cannot stack your windows into a (2, {WINDOW}) tensor: "
            "return each window as a tensor (a slice of the series), not a list."
        )
