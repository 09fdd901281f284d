"""kvfuzz stand-in for SGLang's `allocator/token.py` (page size 1), written for kvfuzz's tests.

As SGLang's on a CPU device: slot 0 is never handed out; given-back slots wait in a staging list
and join the back of the free list (FIFO reuse, sorted first under need_sort) only when an
allocation finds the free list short and the staged slots make up the difference. Nothing is
checked: a slot given back twice is free twice.
"""
from __future__ import annotations

import torch

from sglang.srt.mem_cache.allocator.base import BaseTokenToKVPoolAllocator


class TokenToKVPoolAllocator(BaseTokenToKVPoolAllocator):
    def __init__(self, size: int, dtype: torch.dtype, device: str, kvcache, need_sort: bool):
        super().__init__(size, 1, dtype, device, kvcache, need_sort)
        self.clear()

    def clear(self):
        self.free_pages = torch.arange(1, self.size + 1, dtype=torch.int64)
        self.release_pages = torch.empty((0,), dtype=torch.int64)
        # Given-back slots, one tensor per free, not yet in free_pages.
        self.staged_pages = []
        self.num_staged_pages = 0
        self.free_group = None

    def available_size(self):
        return len(self.free_pages) + len(self.release_pages) + self.num_staged_pages

    def merge_and_sort_free(self):
        if not self.staged_pages:
            return
        merged = torch.cat((self.free_pages, *self.staged_pages))
        self.free_pages = torch.sort(merged).values if self.need_sort else merged
        self.staged_pages = []
        self.num_staged_pages = 0

    def alloc(self, need_size: int):
        if need_size > len(self.free_pages):
            if need_size > self.available_size():
                return None
            self.merge_and_sort_free()
        taken = self.free_pages[:need_size]
        self.free_pages = self.free_pages[need_size:]
        return taken

    def free(self, free_index: torch.Tensor):
        if free_index.numel() == 0:
            return
        if self.free_group is not None:
            self.free_group.append(free_index.clone())
            return
        self.staged_pages.append(free_index.clone())
        self.num_staged_pages += free_index.numel()
