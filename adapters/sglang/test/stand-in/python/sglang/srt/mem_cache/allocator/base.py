"""kvfuzz stand-in for SGLang's `allocator/base.py`, written for kvfuzz's tests (no SGLang code).

Same module path, class name and method signatures as the SGLang version the adapter targets
(free groups as None-or-list, `free_segments`, no `backup_state`); the behaviour the adapter can
observe is SGLang's: `free_segments` checks and frees one segment at a time, so a bad segment
finds the ones before it already freed.
"""
from __future__ import annotations

import abc

import torch


class BaseTokenToKVPoolAllocator(abc.ABC):
    @abc.abstractmethod
    def __init__(self, size: int, page_size: int, dtype: torch.dtype, device: str, kvcache, need_sort: bool):
        self.size = size
        self.page_size = page_size
        self.dtype = dtype
        self.device = device
        self._kvcache = kvcache
        self.need_sort = need_sort
        self.free_pages = None
        self.release_pages = None
        # None outside a free group; inside one, the frees it defers (copies).
        self.free_group = None

    def available_size(self):
        return (len(self.free_pages) + len(self.release_pages)) * self.page_size

    def get_all_free_pages(self):
        if self.release_pages is None or len(self.release_pages) == 0:
            return self.free_pages
        return torch.cat((self.free_pages, self.release_pages))

    def free_group_begin(self):
        assert self.free_group is None, "free groups cannot be nested"
        self.free_group = []

    def free_group_end(self):
        deferred = self.free_group
        self.free_group = None
        if deferred:
            self.free(torch.cat(deferred))

    def merge_and_sort_free(self):
        if len(self.release_pages) == 0:
            return
        self.free_pages = torch.sort(torch.cat((self.free_pages, self.release_pages))).values
        self.release_pages = self.release_pages[:0]

    def alloc_extend(self, *args, **kwargs):
        raise NotImplementedError("alloc_extend is only for paged allocator")

    def alloc_decode(self, *args, **kwargs):
        raise NotImplementedError("alloc_decode is only for paged allocator")

    @abc.abstractmethod
    def clear(self):
        raise NotImplementedError()

    @abc.abstractmethod
    def alloc(self, need_size: int):
        raise NotImplementedError()

    @abc.abstractmethod
    def free(self, free_index: torch.Tensor):
        raise NotImplementedError()

    def free_segment(self, free_index: torch.Tensor, *, start_pos: int):
        assert start_pos % self.page_size == 0, (
            f"free_segment start {start_pos} is not aligned to page_size {self.page_size}")
        self.free(free_index)

    def free_segments(self, segments):
        # Checked and freed one segment at a time (not atomic), as in SGLang.
        page = self.page_size
        end_before = None
        for free_index, start_pos in segments:
            if free_index.numel() == 0:
                continue
            if end_before is not None:
                assert start_pos // page > (end_before - 1) // page, (
                    f"segment at {start_pos} shares a page with the previous segment ending at "
                    f"{end_before} (page_size {page})")
            end_before = start_pos + free_index.numel()
            self.free_segment(free_index, start_pos=start_pos)
