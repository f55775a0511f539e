"""utils.data against torch.utils.data: datasets, random_split, samplers, collation and the
DataLoader's batches, lengths and argument errors."""

import collections
import itertools
import warnings

import numpy as np
import pytest
import torch
import torch.utils.data as tdata

import vizgrad as vg
import vizgrad.utils.data as vdata
from tests.oracle import assert_same, assert_same_error

Point = collections.namedtuple("Point", "x y")


def to_plain(value):
    """A batch as nested Python/NumPy values with dtype names, whichever library made it."""
    if isinstance(value, (vg.Tensor, torch.Tensor)):
        return ("tensor", str(value.dtype).split(".")[-1], value.shape and tuple(value.shape),
                value.tolist())  # fmt: skip
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return (type(value).__name__, *map(to_plain, value))
    if isinstance(value, dict):
        return {key: to_plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [to_plain(item) for item in value])
    return value


def pair_tensors(array: np.ndarray):
    return vg.tensor(array), torch.tensor(array)


# ---- datasets -----------------------------------------------------------------------


def test_tensor_dataset_rows_and_length():
    x, tx = pair_tensors(np.arange(12.0, dtype=np.float32).reshape(6, 2))
    y, ty = pair_tensors(np.arange(6))
    ds, tds = vdata.TensorDataset(x, y), tdata.TensorDataset(tx, ty)
    assert len(ds) == len(tds) == 6
    for i in (0, 5, -1):
        for a, b in zip(ds[i], tds[i], strict=True):
            assert_same(a, b)
    assert_same_error(
        lambda: vdata.TensorDataset(x, y[:3]), lambda: tdata.TensorDataset(tx, ty[:3])
    )


def test_concat_and_subset_index_like_torch():
    parts = [list(range(3)), list(range(10, 15)), list(range(20, 22))]
    cat, tcat = vdata.ConcatDataset(parts), tdata.ConcatDataset(parts)
    assert len(cat) == len(tcat) and cat.cumulative_sizes == tcat.cumulative_sizes
    assert [cat[i] for i in range(-len(cat), len(cat))] == [
        tcat[i] for i in range(-len(tcat), len(tcat))
    ]
    assert_same_error(lambda: cat[-11], lambda: tcat[-11])
    assert_same_error(lambda: vdata.ConcatDataset([]), lambda: tdata.ConcatDataset([]))
    sub, tsub = vdata.Subset(parts[1], [4, 0, 2]), tdata.Subset(parts[1], [4, 0, 2])
    assert [sub[i] for i in range(3)] == [tsub[i] for i in range(3)] and len(sub) == 3


def test_dataset_addition_and_stack():
    a, b = vdata.TensorDataset(vg.arange(3)), vdata.TensorDataset(vg.arange(4))
    assert isinstance(a + b, vdata.ConcatDataset) and len(a + b) == 7
    stacked = vdata.StackDataset(x=[1, 2], y=["a", "b"])
    assert stacked[1] == tdata.StackDataset(x=[1, 2], y=["a", "b"])[1]
    assert_same_error(
        lambda: vdata.StackDataset([1], [1, 2]), lambda: tdata.StackDataset([1], [1, 2])
    )
    assert_same_error(lambda: vdata.StackDataset(), lambda: tdata.StackDataset())


def stream_class(base):
    """An iterable dataset of ``range(n)`` that reports ``length`` (true or not) as its size."""

    class Stream(base):
        def __init__(self, n, length=None):
            self.n, self.length = n, length

        def __iter__(self):
            return iter(range(self.n))

        def __len__(self):
            return self.n if self.length is None else self.length

    return Stream


Stream, TorchStream = stream_class(vdata.IterableDataset), stream_class(tdata.IterableDataset)


def test_chain_dataset_streams_in_order():
    chained = Stream(3) + Stream(2)
    assert list(chained) == list(TorchStream(3) + TorchStream(2)) and len(chained) == 5
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(vdata.ChainDataset([[1, 2]]))


# ---- random_split ----------------------------------------------------------------------


@pytest.mark.parametrize("lengths", [[3, 7], [0.3, 0.7], [0.3, 0.3, 0.4], [1 / 3] * 3, [10]])
def test_random_split_lengths_and_disjointness(lengths):
    data = list(range(10))
    splits = vdata.random_split(data, lengths, generator=vg.Generator().manual_seed(0))
    expected = tdata.random_split(data, lengths, generator=torch.Generator().manual_seed(0))
    assert [len(s) for s in splits] == [len(s) for s in expected]
    seen = [s[i] for s in splits for i in range(len(s))]
    assert sorted(seen) == data


def test_random_split_is_reproducible_with_a_generator():
    a = vdata.random_split(range(20), [0.5, 0.5], generator=vg.Generator().manual_seed(3))
    b = vdata.random_split(range(20), [0.5, 0.5], generator=vg.Generator().manual_seed(3))
    assert a[0].indices == b[0].indices


def test_random_split_warnings_and_errors():
    def warned(split, data):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            split(data, [0.9, 0.1, 0.0])
        return [str(w.message) for w in caught]

    assert warned(vdata.random_split, range(3)) == warned(tdata.random_split, range(3))
    for lengths in ([2, 2], [1.5, -0.5]):
        assert_same_error(
            lambda lengths=lengths: vdata.random_split(range(5), lengths),
            lambda lengths=lengths: tdata.random_split(range(5), lengths),
        )


# ---- samplers ---------------------------------------------------------------------------


def test_sequential_and_batch_samplers_match_torch():
    for size, batch, drop in [
        (10, 3, False),
        (10, 3, True),
        (9, 3, True),
        (0, 2, False),
        (1, 4, True),
    ]:
        data = range(size)
        mine = vdata.BatchSampler(vdata.SequentialSampler(data), batch, drop)
        theirs = tdata.BatchSampler(tdata.SequentialSampler(data), batch, drop)
        assert list(mine) == list(theirs) and len(mine) == len(theirs)


def test_random_samplers_are_permutations_or_draws():
    data = range(50)
    order = list(vdata.RandomSampler(data, generator=vg.Generator().manual_seed(1)))
    assert sorted(order) == list(data) and order != list(data)
    drawn = list(vdata.RandomSampler(data, replacement=True, num_samples=70))
    assert len(drawn) == 70 and all(0 <= i < 50 for i in drawn)
    longer = list(vdata.RandomSampler(range(4), num_samples=10))
    assert len(longer) == 10 and sorted(longer[:4]) == [0, 1, 2, 3]
    subset = list(vdata.SubsetRandomSampler([5, 7, 9]))
    assert sorted(subset) == [5, 7, 9]
    weighted = list(vdata.WeightedRandomSampler([0.0, 0.0, 1.0, 0.0], 6))
    assert weighted == [2] * 6
    no_repeat = list(vdata.WeightedRandomSampler([1, 1, 1, 1], 4, replacement=False))
    assert sorted(no_repeat) == [0, 1, 2, 3]


@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.RandomSampler(range(3), replacement=1),
        lambda m: m.RandomSampler(range(3), num_samples=0),
        lambda m: m.RandomSampler([], num_samples=None),
        lambda m: m.WeightedRandomSampler([1.0, 2.0], 0),
        lambda m: m.WeightedRandomSampler([1.0, 2.0], True),
        lambda m: m.WeightedRandomSampler([1.0, 2.0], 2, replacement="yes"),
        lambda m: m.WeightedRandomSampler([[1.0, 2.0]], 2),
        lambda m: m.BatchSampler(range(3), 0, False),
        lambda m: m.BatchSampler(range(3), 2.0, False),
        lambda m: m.BatchSampler(range(3), 2, 1),
    ],
)
def test_sampler_argument_errors(make):
    assert_same_error(lambda: make(vdata), lambda: make(tdata))


# ---- collation ----------------------------------------------------------------------------


COLLATE_CASES = {
    "ints": [1, 2, 3],
    "floats": [1.5, 2.0],
    "bools": [True, False],
    "strings": ["a", "b"],
    "bytes": [b"a", b"b"],
    "numpy arrays": [np.ones((2, 3), np.float32), np.zeros((2, 3), np.float32)],
    "numpy scalars": [np.float64(1.5), np.float64(2.5)],
    "numpy ints": [np.int32(1), np.int32(2)],
    "tuples": [(1, 2.0), (3, 4.0)],
    "lists": [[1, 2], [3, 4]],
    "dicts": [{"a": 1, "b": [1.0, 2.0]}, {"a": 2, "b": [3.0, 4.0]}],
    "ordered dicts": [collections.OrderedDict(x=1), collections.OrderedDict(x=2)],
    "namedtuples": [Point(1, 2.0), Point(3, 4.0)],
    "nested": [{"p": Point([1, 2], "s")}, {"p": Point([3, 4], "t")}],
}


@pytest.mark.parametrize("name", COLLATE_CASES)
def test_default_collate_like_torch(name):
    batch = COLLATE_CASES[name]
    assert to_plain(vdata.default_collate(batch)) == to_plain(tdata.default_collate(batch))


def test_default_collate_stacks_tensors_including_non_contiguous():
    rows = np.arange(24.0).reshape(4, 6)
    v = [vg.tensor(rows).t()[i] for i in range(3)]
    t = [torch.tensor(rows).t()[i] for i in range(3)]
    assert_same(vdata.default_collate(v), tdata.default_collate(t))


@pytest.mark.parametrize(
    "batch",
    [[object(), object()], [[1, 2], [3]], [np.array(["a"]), np.array(["b"])]],
    ids=["object", "ragged", "string array"],
)
def test_default_collate_errors(batch):
    assert_same_error(lambda: vdata.default_collate(batch), lambda: tdata.default_collate(batch))


@pytest.mark.parametrize("name", ["numpy arrays", "dicts", "namedtuples", "tuples", "strings"])
def test_default_convert_like_torch(name):
    sample = COLLATE_CASES[name][0]
    assert to_plain(vdata.default_convert(sample)) == to_plain(tdata.default_convert(sample))


# ---- the DataLoader -------------------------------------------------------------------------


def loaders(dataset, tdataset=None, **options):
    return vdata.DataLoader(dataset, **options), tdata.DataLoader(
        dataset if tdataset is None else tdataset, **options
    )


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"batch_size": 4},
        {"batch_size": 4, "drop_last": True},
        {"batch_size": 10},
        {"batch_size": None},
        {"batch_size": 3, "collate_fn": lambda batch: batch},
    ],
    ids=str,
)
def test_batches_of_a_map_dataset_match_torch(options):
    samples = [{"x": np.full(2, i, np.float32), "y": i, "name": f"s{i}"} for i in range(10)]
    mine, theirs = loaders(samples, **options)
    assert len(mine) == len(theirs)
    assert [to_plain(b) for b in mine] == [to_plain(b) for b in theirs]


def test_tensor_dataset_batches_and_epochs():
    x, tx = pair_tensors(np.arange(20.0, dtype=np.float32).reshape(10, 2))
    y, ty = pair_tensors(np.arange(10))
    mine, theirs = loaders(vdata.TensorDataset(x, y), tdata.TensorDataset(tx, ty), batch_size=4)
    for (a, b), (ta, tb) in zip(mine, theirs, strict=True):
        assert_same(a, ta)
        assert_same(b, tb)
    shuffled = vdata.DataLoader(vdata.TensorDataset(y), batch_size=3, shuffle=True)
    epochs = [vg.cat([b for (b,) in shuffled]).tolist() for _ in range(2)]
    assert all(sorted(e) == list(range(10)) for e in epochs) and epochs[0] != epochs[1]


def test_shuffle_is_reproducible_with_a_generator_or_manual_seed():
    def epoch(**kw):
        return [
            b.tolist() for b in vdata.DataLoader(list(range(12)), batch_size=5, shuffle=True, **kw)
        ]

    assert epoch(generator=vg.Generator().manual_seed(7)) == epoch(
        generator=vg.Generator().manual_seed(7)
    )
    vg.manual_seed(1)
    first = epoch()
    vg.manual_seed(1)
    assert epoch() == first


def test_custom_samplers_drive_the_order():
    data = list(range(8))
    mine, theirs = loaders(data, sampler=[7, 1, 3], batch_size=2)
    assert [to_plain(b) for b in mine] == [to_plain(b) for b in theirs]
    mine, theirs = loaders(data, batch_sampler=[[0, 1, 2], [5]])
    assert [to_plain(b) for b in mine] == [to_plain(b) for b in theirs] and len(mine) == 2


@pytest.mark.parametrize(
    "options",
    [
        {"batch_size": 3},
        {"batch_size": 3, "drop_last": True},
        {"batch_size": None},
        {"batch_size": 20},
    ],
    ids=str,
)
def test_iterable_datasets_batch_like_torch(options):
    mine, theirs = loaders(Stream(10), TorchStream(10), **options)
    assert [to_plain(b) for b in mine] == [to_plain(b) for b in theirs]
    assert len(mine) == len(theirs)


def test_iterable_dataset_that_lies_about_its_length_warns_like_torch():
    def messages(loader):
        len(loader)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            list(loader)
        return [str(w.message).split(" was reported")[1] for w in caught]

    mine, theirs = loaders(Stream(6, length=2), TorchStream(6, length=2), batch_size=2)
    assert messages(mine) == messages(theirs) and messages(mine)


@pytest.mark.parametrize(
    "options",
    [
        {"num_workers": -1},
        {"timeout": -1},
        {"prefetch_factor": 2},
        {"persistent_workers": True},
        {"sampler": [0, 1], "shuffle": True},
        {"batch_sampler": [[0]], "batch_size": 2},
        {"batch_sampler": [[0]], "drop_last": True},
        {"batch_size": None, "drop_last": True},
        {"batch_size": 0},
        {"multiprocessing_context": "fork"},
    ],
    ids=str,
)
def test_loader_argument_errors_match_torch(options):
    assert_same_error(
        lambda: vdata.DataLoader(list(range(4)), **options),
        lambda: tdata.DataLoader(list(range(4)), **options),
    )


@pytest.mark.parametrize(
    "options", [{"shuffle": True}, {"sampler": [0]}, {"batch_sampler": [[0]]}], ids=str
)
def test_iterable_dataset_refuses_samplers_like_torch(options):
    assert_same_error(
        lambda: vdata.DataLoader(Stream(3), **options),
        lambda: tdata.DataLoader(TorchStream(3), **options),
    )


def test_frozen_attributes_and_workers():
    mine, theirs = loaders(list(range(4)))
    assert_same_error(
        lambda: setattr(mine, "batch_size", 2), lambda: setattr(theirs, "batch_size", 2)
    )
    with pytest.raises(ValueError, match=r"num_workers=2.*in this process.*num_workers=0"):
        vdata.DataLoader(list(range(4)), num_workers=2)


def stream_iterator_class(base):
    """An iterable dataset that is its own iterator, restarting in ``__iter__``."""

    class Counter(base):
        def __iter__(self):
            self.n = 1
            return self

        def __next__(self):
            if self.n >= 12:
                raise StopIteration
            self.n += 1
            return self.n - 1

    return Counter


@pytest.mark.parametrize("batch_size", [5, None])
def test_an_iterable_dataset_that_is_its_own_iterator_is_read_once_like_torch(batch_size):
    mine, theirs = loaders(
        stream_iterator_class(vdata.IterableDataset)(),
        stream_iterator_class(tdata.IterableDataset)(),
        batch_size=batch_size,
    )
    # At most 20 batches: a loader restarting the stream would never end.
    batches = [to_plain(b) for b in itertools.islice(mine, 20)]
    assert batches == [to_plain(b) for b in theirs]
    assert len(batches) == (3 if batch_size else 11)
