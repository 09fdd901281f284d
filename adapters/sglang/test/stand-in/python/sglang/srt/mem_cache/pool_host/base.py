"""kvfuzz stand-in for SGLang's `pool_host/base.py` (HostKVCache), written for kvfuzz's tests.

Same constructor, sizing and slot bookkeeping as the SGLang version the adapter targets: size =
(size // page_size + 1) × page_size; slots from 0; alloc takes the front of the free list and
asserts none is in use; free asserts every slot is in use (`slot_used`, by tensor indexing, so a
slot named twice passes and a negative slot wraps), then queues the chunk for a later merge.
"""
from __future__ import annotations

import abc
import threading

import psutil
import torch

from sglang.srt.mem_cache.memory_pool import KVCache
from sglang.srt.mem_cache.pool_host.common import get_allocator_from_storage
from sglang.srt.utils import is_cuda

_is_cuda = is_cuda()

# Host memory left to the rest of the machine when a pool is sized.
HICACHE_HOST_MEMORY_RESERVE_BYTES: int = 10 * (1024**3)


class HostKVCache(abc.ABC):
    def __init__(self, device_pool: KVCache, host_to_device_ratio: float, host_size: int, page_size: int,
                 layout: str, pin_memory: bool, device: str, allocator_type: str = "default"):
        self.device_pool = device_pool
        self.page_size = page_size
        self.layout = layout
        self.pin_memory = pin_memory
        self.device = device
        self.allocator = get_allocator_from_storage(allocator_type)
        self.dtype = device_pool.store_dtype
        self.size_per_token = self.get_size_per_token()
        if host_size > 0:
            self.size = int(host_size * 1e9 // self.size_per_token)
        else:
            self.size = int(device_pool.size * host_to_device_ratio)
        # Whole pages, and always one page more.
        self.page_num = self.size // self.page_size + 1
        self.size = self.page_num * self.page_size
        wanted = self.size * self.size_per_token
        if wanted > psutil.virtual_memory().available - HICACHE_HOST_MEMORY_RESERVE_BYTES:
            raise ValueError(f"Not enough host memory available for {wanted} bytes")
        self.kv_buffer = self.init_kv_buffer()
        self.lock = threading.RLock()
        self.clear()

    @abc.abstractmethod
    def get_size_per_token(self):
        raise NotImplementedError()

    @abc.abstractmethod
    def init_kv_buffer(self):
        raise NotImplementedError()

    @abc.abstractmethod
    def load_to_device_per_layer(self, device_pool, host_indices, device_indices, layer_id, io_backend) -> None:
        raise NotImplementedError()

    @abc.abstractmethod
    def backup_from_device_all_layer(self, device_pool, host_indices, device_indices, io_backend) -> None:
        raise NotImplementedError()

    def clear(self):
        with self.lock:
            self.free_slots = torch.arange(self.size, dtype=torch.int64)
            # Freed chunks wait here until an alloc finds free_slots short.
            self.release_slots = []
            self.num_release_slots = 0
            self.slot_used = torch.zeros(self.size, dtype=torch.bool)

    def available_size(self):
        with self.lock:
            return len(self.free_slots) + self.num_release_slots

    def _merge_release_slots(self):
        if self.num_release_slots:
            self.free_slots = torch.cat([self.free_slots, *self.release_slots])
            self.release_slots = []
            self.num_release_slots = 0

    def alloc(self, need_size: int):
        with self.lock:
            assert need_size % self.page_size == 0, "The requested size should be a multiple of the page size."
            if need_size > self.available_size():
                return None
            if need_size > len(self.free_slots):
                self._merge_release_slots()
            taken = self.free_slots[:need_size]
            self.free_slots = self.free_slots[need_size:]
            in_use = self.slot_used[taken]
            assert not in_use.any(), f"Double-alloc detected: slots already allocated: {taken[in_use].tolist()}."
            self.slot_used[taken] = True
            return taken

    def free(self, indices: torch.Tensor) -> int:
        with self.lock:
            indices = indices.cpu()
            if indices.numel() == 0:
                return 0
            in_use = self.slot_used[indices]
            assert in_use.all(), f"Double-free detected: slots not currently allocated: {indices[~in_use].tolist()}."
            self.slot_used[indices] = False
            self.release_slots.append(indices)
            self.num_release_slots += len(indices)
            return len(indices)
