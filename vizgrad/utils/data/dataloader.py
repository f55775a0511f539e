"""``torch.utils.data.DataLoader``: an iterable of batches over a dataset.

Each step of the loop asks the *index sampler* for what to load next (a list of indices
when batching, one index when ``batch_size=None``), *fetches* those samples from the
dataset, and *collates* them into a batch. For an ``IterableDataset`` there are no
indices: the fetcher pulls ``batch_size`` samples from the stream. The argument checks,
their messages and ``len()`` are those of ``torch/utils/data/dataloader.py``.

vizgrad loads in the calling process only. PyTorch's ``num_workers > 0`` starts worker
processes; here the engine's events (which the views draw) and its tensors live in this
process, so a loader with workers is refused with a message saying so.
"""

from __future__ import annotations

import math
import warnings

from .collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader"]

# Attributes that define what a loader yields; torch forbids changing them afterwards.
_FROZEN_ATTRIBUTES = frozenset(
    ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")
)


class _InfiniteConstantSampler:
    """The "sampler" of an iterable-style dataset: ``None`` forever (there are no indices;
    with batching, a batch's worth of ``None`` tells the fetcher how many to pull)."""

    def __iter__(self):
        while True:
            yield None


def _check_arguments(num_workers, timeout, prefetch_factor, persistent_workers) -> None:
    if num_workers < 0:
        raise ValueError(
            "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing."
        )
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError(
            "prefetch_factor option could only be specified in multiprocessing."
            "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None."
        )
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    if num_workers > 0:
        raise ValueError(
            f"DataLoader(num_workers={num_workers}): vizgrad loads batches in this process "
            "only, because its tensors and the events the views draw live here. "
            "Pass num_workers=0 (the default)."
        )


class DataLoader:
    """Batches of a dataset, in the sampler's order (see the module docstring).

    ``DataLoader(dataset, batch_size=64, shuffle=True)`` is the common form: each epoch
    (each ``for batch in loader``) draws a new permutation; ``len(loader)`` is the number
    of batches, ``ceil(len(dataset) / batch_size)`` or, with ``drop_last=True``, the
    floor.
    """

    def __init__(
        self,
        dataset,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler=None,
        batch_sampler=None,
        num_workers: int = 0,
        collate_fn=None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn=None,
        multiprocessing_context=None,
        generator=None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        _check_arguments(num_workers, timeout, prefetch_factor, persistent_workers)
        if multiprocessing_context is not None:
            raise ValueError(
                "multiprocessing_context can only be used with multi-process loading "
                f"(num_workers > 0), but got num_workers={num_workers}"
            )
        self._is_iterable = isinstance(dataset, IterableDataset)
        if self._is_iterable:
            if shuffle not in {False, None}:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified shuffle option, "
                    f"but got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified sampler option, "
                    f"but got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler "
                    f"option, but got batch_sampler={batch_sampler}"
                )
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    "sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive "
                "with drop_last"
            )
        if sampler is None:
            if self._is_iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._length_reported = None  # len() of an IterableDataset, to warn when it lied
        self._initialized = True

    def __setattr__(self, name, value) -> None:
        if getattr(self, "_initialized", False) and name in _FROZEN_ATTRIBUTES:
            raise ValueError(
                f"{name} attribute should not be set after {type(self).__name__} is initialized"
            )
        super().__setattr__(name, value)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        if self._is_iterable:
            return self._iterate_stream()
        return self._iterate_indices()

    def _iterate_indices(self):
        fetch_batch = getattr(self.dataset, "__getitems__", None)
        for index in self._index_sampler:
            if not self._auto_collation:
                yield self.collate_fn(self.dataset[index])
            elif fetch_batch:
                yield self.collate_fn(fetch_batch(index))
            else:
                yield self.collate_fn([self.dataset[i] for i in index])

    def _iterate_stream(self):
        stream = iter(self.dataset)
        for yielded, request in enumerate(self._index_sampler, start=1):
            if self._auto_collation:
                # next() on the stream, as torch's fetcher: islice would call iter() on it
                # again, and a dataset that is its own iterator restarts in __iter__.
                batch = []
                for _ in request:
                    try:
                        batch.append(next(stream))
                    except StopIteration:
                        break
                if not batch or (self.drop_last and len(batch) < len(request)):
                    return
                data = self.collate_fn(batch)
            else:
                try:
                    data = self.collate_fn(next(stream))
                except StopIteration:
                    return
            if self._length_reported is not None and yielded > self._length_reported:
                warnings.warn(
                    f"Length of IterableDataset {self.dataset} was reported to be "
                    f"{self._length_reported}(when accessing len(dataloader)), but {yielded} "
                    "samples have been fetched. ",
                    stacklevel=2,
                )
            yield data
            if self._auto_collation and len(batch) < len(request):
                return  # the stream ended inside this batch

    def __len__(self) -> int:
        if self._is_iterable:
            # torch remembers the dataset's own length and later compares the number of
            # *batches* yielded with it; the warning says what it says for that reason.
            length = len(self.dataset)
            object.__setattr__(self, "_length_reported", length)
            if self.batch_size is not None:
                if self.drop_last:
                    return length // self.batch_size
                return math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)
