"""Lesson 14's checkers and helpers: expected answers agree with torch.utils.data on the same
calls; typical mistakes get their explanation; bad types are explained."""

import math

import numpy as np
import pytest
import torch
import torch.utils.data as tdata
from vizgrad.lessons import check
from vizgrad.lessons import lesson14 as L

import vizgrad as vg
import vizgrad.utils.data as vdata
from tests.lesson_feedback import assert_wrong, same_storage

# --- the helpers ------------------------------------------------------------------------------


def test_squares_and_countdown_batch_as_torch_does():
    class TorchSquares(tdata.Dataset):
        def __len__(self):
            return 10

        def __getitem__(self, i):
            return torch.tensor(float(i)), torch.tensor(float(i * i))

    ours = [(x.tolist(), y.tolist()) for x, y in vdata.DataLoader(L.Squares(10), batch_size=4)]
    theirs = [(x.tolist(), y.tolist()) for x, y in tdata.DataLoader(TorchSquares(), batch_size=4)]
    assert ours == theirs

    class TorchCountdown(tdata.IterableDataset):
        def __iter__(self):
            yield from range(7, 0, -1)

    ours = [b.tolist() for b in vdata.DataLoader(L.Countdown(7), batch_size=3)]
    assert ours == [b.tolist() for b in tdata.DataLoader(TorchCountdown(), batch_size=3)]
    with pytest.raises(IndexError):
        L.Squares(3)[3]


def test_pad_collate_is_torch_pad_sequence():
    for (padded, lengths, labels), indices in zip(
        vdata.DataLoader(L.Sentences(), batch_size=4, collate_fn=L.pad_collate),
        ([0, 1, 2, 3], [4, 5]),
        strict=True,
    ):
        sequences = [torch.tensor(L.SENTENCES[i][0]) for i in indices]
        expected = torch.nn.utils.rnn.pad_sequence(sequences, batch_first=True)
        assert padded.tolist() == expected.tolist() and padded.dtype == vg.int64
        assert lengths.tolist() == [len(s) for s in sequences]
        assert labels.tolist() == [L.SENTENCES[i][1] for i in indices]


def test_default_collate_of_samples_copies_as_torch_does():
    inputs, tinputs = vg.arange(12.0).reshape(4, 3), torch.arange(12.0).reshape(4, 3)
    samples = [vdata.TensorDataset(inputs)[i][0] for i in (1, 3)]
    tsamples = [tdata.TensorDataset(tinputs)[i][0] for i in (1, 3)]
    assert same_storage(samples[0], inputs) and same_storage(tsamples[0], tinputs)
    batch, tbatch = vdata.default_collate(samples), tdata.default_collate(tsamples)
    assert batch.tolist() == tbatch.tolist()
    assert not same_storage(batch, inputs) and not same_storage(tbatch, tinputs)


def test_show_digit_draws_eight_rows():
    image, _ = L.Digits()[0]
    rows = L.show_digit(image).splitlines()
    assert len(rows) == 8 and all(len(row) == 16 for row in rows)


# --- exercise 1: number of batches ---------------------------------------------------------------


def _torch_num_batches(n=1438, batch_size=L.BATCH_SIZE):
    data = tdata.TensorDataset(torch.zeros(n))
    return (len(tdata.DataLoader(data, batch_size=batch_size)),
            len(tdata.DataLoader(data, batch_size=batch_size, drop_last=True)))  # fmt: skip


def test_num_batches_right():
    assert check("14.num_batches", _torch_num_batches()).correct
    assert check("14.num_batches", [math.ceil(1438 / 64), 1438 // 64]).correct
    assert check("14.num_batches", (23.0, 22.0)).correct


def test_num_batches_wrong():
    without, with_drop = _torch_num_batches()
    assert_wrong("14.num_batches", (with_drop, without), "swapped")
    assert_wrong("14.num_batches", (with_drop, with_drop), "without drop_last", "round up")
    assert_wrong("14.num_batches", (1438 / 64, with_drop), "whole number")
    assert_wrong("14.num_batches", (30, with_drop), "without drop_last", "do not cover")
    assert_wrong("14.num_batches", (without, without), "with drop_last=True", "round down")
    assert_wrong("14.num_batches", 23, "tuple of two numbers")
    assert_wrong("14.num_batches", ("23", "22"), "whole number")


# --- exercise 2: the shape of a collated batch ------------------------------------------------


def _torch_batch_shapes():
    # The same samples as Digits gives, batched by torch's DataLoader.
    digits = L.Digits()

    class TorchDigits(tdata.Dataset):
        def __len__(self):
            return len(digits)

        def __getitem__(self, i):
            image, label = digits[i]
            return torch.tensor(image.tolist()), label

    images, labels = next(iter(tdata.DataLoader(TorchDigits(), batch_size=L.SHAPE_BATCH)))
    return images.shape, labels.shape


def test_batch_shape_right():
    images_shape, labels_shape = _torch_batch_shapes()
    assert check("14.batch_shape", (images_shape, labels_shape)).correct
    assert check("14.batch_shape", [[32, 1, 8, 8], [32]]).correct
    images, labels = next(iter(vdata.DataLoader(L.Digits(), batch_size=32)))
    assert check("14.batch_shape", (images.shape, labels.shape)).correct


def test_batch_shape_wrong():
    assert_wrong("14.batch_shape", ((1, 8, 8), (32,)), "images:", "shape of one image")
    assert_wrong("14.batch_shape", ((32, 8, 8), (32,)), "images:", "channel")
    assert_wrong("14.batch_shape", ((32, 64), (32,)), "images:", "does not")
    assert_wrong("14.batch_shape", ((32, 1, 8), (32,)), "images:", "is not the shape")
    assert_wrong("14.batch_shape", ((32, 1, 8, 8), (32, 1)), "labels:", "1-D")
    assert_wrong("14.batch_shape", ((32, 1, 8, 8), ()), "labels:", "one label per image")
    assert_wrong("14.batch_shape", ((32, 1, 8, 8), (16,)), "labels:", "is not the shape")
    message = assert_wrong("14.batch_shape", ((1, 8, 8), (32, 1)), "images:")
    assert "labels" not in message
    assert_wrong("14.batch_shape", "(32, 1, 8, 8)", "two shapes")
    assert_wrong("14.batch_shape", ("32x1x8x8", "32"), "tuple of ints")


# --- exercise 3: BatchSampler ------------------------------------------------------------------


def _torch_batches(drop_last):
    return list(tdata.BatchSampler(tdata.SequentialSampler(range(10)), 3, drop_last=drop_last))


def test_batch_sampler_right():
    assert check("14.batch_sampler", (_torch_batches(False), _torch_batches(True))).correct
    as_tuples = ([tuple(b) for b in _torch_batches(False)], [range(0, 3), range(3, 6), range(6, 9)])
    assert check("14.batch_sampler", as_tuples).correct


def test_batch_sampler_wrong():
    keep, drop = _torch_batches(False), _torch_batches(True)
    assert_wrong("14.batch_sampler", (drop, keep), "swapped")
    assert_wrong("14.batch_sampler", (drop, drop), "drop_last=False keeps")
    assert_wrong("14.batch_sampler", (keep, keep), "drop_last=True drops")
    assert_wrong("14.batch_sampler", (keep + [[]], drop), "no empty batch")
    assert_wrong("14.batch_sampler", ([[0, 1], [2, 3, 4], [5, 6, 7], [8, 9]], drop), "exactly 3")
    assert_wrong("14.batch_sampler", (keep[:3] + [[9, 0, 1]], drop), "wrap around")
    assert_wrong("14.batch_sampler", (keep, [[1, 2, 3]]), "drop_last=True:", "is not what")
    assert_wrong("14.batch_sampler", ([0, 1, 2], drop), "list of batches")
    assert_wrong("14.batch_sampler", keep, "tuple of two lists")


# --- exercise 4: a padding collate_fn ------------------------------------------------------


def _good_collate(batch):
    sequences = [tokens for tokens, _ in batch]
    lengths = vg.tensor([len(s) for s in sequences])
    padded = vg.zeros(len(batch), int(lengths.max()), dtype=vg.int64)
    for i, s in enumerate(sequences):
        padded[i, : len(s)] = s
    return padded, lengths, vg.tensor([label for _, label in batch])


def test_pad_collate_right():
    assert check("14.pad_collate", _good_collate).correct

    def with_torch_padding(batch):
        # torch's pad_sequence on the same sequences, turned back into vizgrad tensors.
        sequences = [torch.tensor(tokens.tolist()) for tokens, _ in batch]
        padded = torch.nn.utils.rnn.pad_sequence(sequences, batch_first=True)
        lengths = [len(s) for s in sequences]
        return vg.tensor(padded.tolist()), lengths, vg.tensor([label for _, label in batch])

    assert check("14.pad_collate", with_torch_padding).correct


def _variant(**changes):
    def collate(batch):
        padded, lengths, labels = _good_collate(batch)
        if "pad_to" in changes:
            wide = vg.zeros(len(batch), changes["pad_to"], dtype=vg.int64)
            wide[:, : padded.shape[1]] = padded
            padded = wide
        if changes.get("transpose"):
            padded = padded.t()
        if "pad_value" in changes:
            mask = vg.arange(padded.shape[1]).reshape(1, -1) >= lengths.reshape(-1, 1)
            padded = padded.masked_fill(mask, changes["pad_value"])
        if changes.get("labels_list"):
            labels = labels.tolist()
        if changes.get("no_lengths"):
            return padded, labels
        if changes.get("bad_lengths"):
            lengths = lengths + 1
        if changes.get("shifted"):
            padded = padded.roll(1, dims=1)
        return padded, lengths, labels

    return collate


def test_pad_collate_wrong():
    assert_wrong("14.pad_collate", _variant(pad_to=5), "batch 2", "own longest")
    assert_wrong("14.pad_collate", _variant(transpose=True), "batch first")
    assert_wrong("14.pad_collate", _variant(pad_value=-1), "padding is not 0")
    assert_wrong("14.pad_collate", _variant(shifted=True), "followed by zeros")
    assert_wrong("14.pad_collate", _variant(labels_list=True), "labels is a list")
    assert_wrong("14.pad_collate", _variant(no_lengths=True), "tuple of three")
    assert_wrong("14.pad_collate", _variant(bad_lengths=True), "lengths")
    assert_wrong("14.pad_collate", lambda batch: vdata.default_collate(batch), "raised")
    assert_wrong("14.pad_collate", lambda batch: ([1], [2], [3]), "padded is a list")
    assert_wrong("14.pad_collate", "collate_fn", "function itself")


# --- exercise 5: Windows.__getitem__ ----------------------------------------------------


def _windows(length=lambda s: len(s.series) - s.size, target=0, as_list=False):
    class Windows(vdata.Dataset):
        def __init__(self, series, size):
            self.series, self.size = series, size

        def __len__(self):
            return length(self)

        def __getitem__(self, i):
            window = self.series[i : i + self.size]
            return (window.tolist() if as_list else window), self.series[i + self.size + target]

    return Windows


def test_getitem_right_and_torch_agrees():
    assert check("14.getitem", _windows()).correct
    # The same class over a torch tensor gives torch's batches; the expected pairs match them.
    torch_windows = _windows()(torch.tensor(L.SERIES), L.WINDOW)
    batches = list(tdata.DataLoader(torch_windows, batch_size=2))
    expected = L.window_pairs()
    flat = [(w.tolist(), t.item()) for ws, ts in batches for w, t in zip(ws, ts, strict=True)]
    assert flat == [(w.tolist(), t.item()) for w, t in expected]


def test_getitem_wrong():
    assert_wrong(
        "14.getitem", _windows(length=lambda s: len(s.series) - s.size + 1), "one too many"
    )
    assert_wrong("14.getitem", _windows(length=lambda s: len(s.series)), "length of the series")
    assert_wrong("14.getitem", _windows(length=lambda s: 2), "count the starts")
    assert_wrong("14.getitem", _windows(target=-1), "window's last value")
    assert_wrong("14.getitem", _windows(as_list=True), "return each window as a tensor")

    class NoLen(vdata.Dataset):
        def __init__(self, series, size):
            self.series = series

    assert_wrong("14.getitem", NoLen, "__len__")

    class Broken(_windows()):
        def __getitem__(self, i):
            return self.series[i]

    assert_wrong("14.getitem", Broken, "pair")
    assert_wrong("14.getitem", _windows()(vg.tensor(L.SERIES), 3), "the class itself")


def test_window_pairs_by_first_principles():
    pairs = L.window_pairs()
    assert len(pairs) == len(L.SERIES) - L.WINDOW
    assert pairs[0][0].tolist() == [1.0, 4.0, 9.0] and pairs[0][1].item() == 16.0
    assert np.allclose(pairs[-1][0].tolist(), L.SERIES[-4:-1]) and pairs[-1][1].item() == 49.0
