"""kvfuzz stand-in for SGLang's allocation kernels, written for kvfuzz's tests (no SGLang code).

Triton-style kernels with SGLang's names and launch signatures; under the adapter they run on
the CPU Triton of `sglang_adapter/cpu_triton.py`. Request `pid` takes the free pages after those
of the requests before it, in batch order, as SGLang's kernels do; when the free list is short
they read past its end, and the caller throws the output away.
"""
import triton
import triton.language as tl


@triton.jit
def alloc_extend_kernel(pre_lens_ptr, seq_lens_ptr, last_loc_ptr, free_page_ptr, out_indices,
                        bs_upper: tl.constexpr, page_size: tl.constexpr):
    pid = tl.program_id(0)
    lanes = tl.arange(0, bs_upper)
    earlier = lanes < pid
    pre_earlier = tl.load(pre_lens_ptr + lanes, mask=earlier, other=0)
    seq_earlier = tl.load(seq_lens_ptr + lanes, mask=earlier, other=0)
    out_start = tl.sum(seq_earlier - pre_earlier)
    page_start = tl.sum((seq_earlier + page_size - 1) // page_size - (pre_earlier + page_size - 1) // page_size)

    pre = tl.load(pre_lens_ptr + pid)
    seq = tl.load(seq_lens_ptr + pid)
    last = tl.load(last_loc_ptr + pid)
    count = seq - pre
    first_new_block = (pre + page_size - 1) // page_size
    BLOCK: tl.constexpr = 1024
    # One lane per new position: the rest of lastLoc's page follows lastLoc, the others sit at
    # their offset in the page of their block.
    for block in range((count + BLOCK - 1) // BLOCK):
        i = block * BLOCK + tl.arange(0, BLOCK)
        position = pre + i
        in_last_page = position < first_new_block * page_size
        page = tl.load(free_page_ptr + page_start + position // page_size - first_new_block,
                       mask=(i < count) & (position >= first_new_block * page_size), other=0)
        slot = tl.where(in_last_page, last + 1 + i, page * page_size + position % page_size)
        tl.store(out_indices + out_start + i, slot, mask=i < count)


@triton.jit
def alloc_decode_kernel(seq_lens_ptr, last_loc_ptr, free_page_ptr, out_indices,
                        bs_upper: tl.constexpr, page_size: tl.constexpr):
    pid = tl.program_id(0)
    lanes = tl.arange(0, bs_upper)
    seq_earlier = tl.load(seq_lens_ptr + lanes, mask=lanes < pid, other=1)
    # A request opens a page when its new token (position seq - 1) is the first of one.
    page_start = tl.sum(((seq_earlier - 1) % page_size == 0) & (lanes < pid))
    seq = tl.load(seq_lens_ptr + pid)
    if (seq - 1) % page_size == 0:
        tl.store(out_indices + pid, tl.load(free_page_ptr + page_start) * page_size)
    else:
        tl.store(out_indices + pid, tl.load(last_loc_ptr + pid) + 1)
