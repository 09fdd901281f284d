"""kvfuzz stand-in for SGLang's `allocator/paged.py`, written for kvfuzz's tests (no SGLang code).

What the adapter can observe behaves as SGLang's paged allocator does:
- pages 1 … size // page_size; page 0 is never in the free list;
- given-back pages go to the FRONT of the free list (LIFO reuse), or, under need_sort, to a
  staging list merged sorted when an allocation runs short;
- a plain free gives back the distinct pages of its slots, ascending; a segment free takes the
  first slot of each page block as its page; a free group gives back its plain frees, then its
  segment frees;
- extend and decode launch the allocation kernels before they check capacity, and return None
  (free list unchanged) when the batch needs more pages than are free;
- with SGLANG_DEBUG_MEMORY_POOL, the same debug assertions: lastLoc alignment, unique extend
  and decode output, no page twice in the free lists (checked after a free, not before).
"""
from __future__ import annotations

import torch

from sglang.kernels.ops.memory.allocator import alloc_decode_kernel, alloc_extend_kernel
from sglang.srt.mem_cache.allocator.base import BaseTokenToKVPoolAllocator
from sglang.srt.utils import get_bool_env_var, get_num_new_pages, next_power_of_2


def alloc_extend_naive(prefix_lens, seq_lens, last_loc, free_pages, out_indices, page_size, device):
    """The CPU layout of an extend, page block by page block: first the rest of lastLoc's page,
    then one page of `free_pages` per new block, taken in batch order."""
    written = 0
    next_page = 0
    for pre, seq, last in zip(prefix_lens.tolist(), seq_lens.tolist(), last_loc.tolist()):
        in_last_page = min(seq, -(-pre // page_size) * page_size) - pre
        if in_last_page > 0:
            out_indices[written:written + in_last_page] = last + 1 + torch.arange(in_last_page)
            written += in_last_page
        position = pre + max(in_last_page, 0)
        while position < seq:
            count = min(page_size, seq - position)
            # A short free list raises IndexError here, as SGLang's reference does.
            page = int(free_pages[next_page])
            out_indices[written:written + count] = page * page_size + torch.arange(count)
            written += count
            position += count
            next_page += 1


class PagedTokenToKVPoolAllocator(BaseTokenToKVPoolAllocator):
    def __init__(self, size: int, page_size: int, dtype: torch.dtype, device: str, kvcache, need_sort: bool):
        super().__init__(size, page_size, dtype, device, kvcache, need_sort)
        self.num_pages = size // page_size
        self.debug_mode = get_bool_env_var("SGLANG_DEBUG_MEMORY_POOL")
        self.clear()

    def clear(self):
        self.free_pages = torch.arange(1, self.num_pages + 1, dtype=torch.int64)
        self.free_group = None
        self.free_page_reps_group = []
        self.staged_pages = []
        self.num_staged_pages = 0

    def available_size(self):
        return (len(self.free_pages) + self.num_staged_pages) * self.page_size

    def get_all_free_pages(self):
        return torch.cat((self.free_pages, *self.staged_pages))

    def merge_and_sort_free(self):
        if not self.staged_pages:
            return
        self.free_pages = torch.sort(self.get_all_free_pages()).values
        self.staged_pages = []
        self.num_staged_pages = 0

    def _take_pages(self, count):
        taken = self.free_pages[:count]
        self.free_pages = self.free_pages[count:]
        return taken

    def alloc(self, need_size: int):
        if self.debug_mode:
            assert need_size % self.page_size == 0, "The allocation size should be page-aligned"
        pages_wanted = need_size // self.page_size
        if pages_wanted > len(self.free_pages):
            self.merge_and_sort_free()
        if pages_wanted > len(self.free_pages):
            return None
        pages = self._take_pages(pages_wanted)
        return (pages[:, None] * self.page_size + torch.arange(self.page_size)).reshape(-1)

    def alloc_extend(self, prefix_lens, prefix_lens_cpu, seq_lens, seq_lens_cpu, last_loc,
                     extend_num_tokens: int, num_new_pages: int = None):
        if self.debug_mode:
            assert torch.all((last_loc + 1) % self.page_size == prefix_lens % self.page_size)
        batch = len(prefix_lens)
        if extend_num_tokens // self.page_size + batch + 1 > len(self.free_pages):
            self.merge_and_sort_free()
        out = torch.empty((extend_num_tokens,), dtype=torch.int64)
        alloc_extend_kernel[(batch,)](prefix_lens, seq_lens, last_loc, self.free_pages, out,
                                      next_power_of_2(batch), self.page_size)
        if self.debug_mode:
            assert len(torch.unique(out)) == len(out)
        if num_new_pages is None:
            num_new_pages = get_num_new_pages(seq_lens=seq_lens_cpu, page_size=self.page_size,
                                              prefix_lens=prefix_lens_cpu)
        if num_new_pages > len(self.free_pages):
            return None
        self._take_pages(num_new_pages)
        return out

    def alloc_decode(self, seq_lens, seq_lens_cpu, last_loc):
        if self.debug_mode:
            assert torch.all((last_loc + 2) % self.page_size == seq_lens % self.page_size)
        batch = len(seq_lens)
        if batch > len(self.free_pages):
            self.merge_and_sort_free()
        out = torch.empty((batch,), dtype=torch.int64)
        alloc_decode_kernel[(batch,)](seq_lens, last_loc, self.free_pages, out, next_power_of_2(batch),
                                      self.page_size)
        if self.debug_mode:
            assert len(torch.unique(out)) == len(out)
        num_new_pages = get_num_new_pages(seq_lens=seq_lens_cpu, page_size=self.page_size, decode=True)
        if num_new_pages > len(self.free_pages):
            return None
        self._take_pages(num_new_pages)
        return out

    def free(self, free_index: torch.Tensor):
        if free_index.numel() == 0:
            return
        if self.free_group is not None:
            self.free_group.append(free_index.clone())
        else:
            self._release_page_ids(torch.unique(free_index // self.page_size))
        if self.debug_mode:
            self._debug_check_no_duplicate_pages()

    def free_segment(self, free_index: torch.Tensor, *, start_pos: int):
        if free_index.numel() == 0:
            return
        page = self.page_size
        assert start_pos % page == 0, f"free_segment start {start_pos} is not aligned to page_size {page}"
        # A page block's first slot stands for its page: no unique needed.
        firsts = free_index[::page]
        if self.debug_mode:
            assert torch.equal(torch.sort(firsts // page).values, torch.unique(free_index // page))
        if self.free_group is not None:
            self.free_page_reps_group.append(firsts.clone())
            return
        self._release_page_ids(firsts // page)
        if self.debug_mode:
            self._debug_check_no_duplicate_pages()

    def _debug_check_no_duplicate_pages(self):
        pages = self.get_all_free_pages()
        assert len(torch.unique(pages)) == len(pages)

    def _release_page_ids(self, *page_ids: torch.Tensor):
        if self.need_sort:
            self.staged_pages.extend(page_ids)
            self.num_staged_pages += sum(ids.numel() for ids in page_ids)
        else:
            self.free_pages = torch.cat((*page_ids, self.free_pages))

    def free_group_begin(self):
        super().free_group_begin()
        self.free_page_reps_group = []

    def free_group_end(self):
        super().free_group_end()
        if self.free_page_reps_group:
            self._release_page_ids(torch.cat(self.free_page_reps_group) // self.page_size)
            self.free_page_reps_group = []
        if self.debug_mode:
            self._debug_check_no_duplicate_pages()
