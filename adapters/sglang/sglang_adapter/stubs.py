"""The modules the adapter serves in place of the real ones, each with the smallest faithful behaviour.

Only what SGLang's allocator, host-pool and kernel files import from elsewhere is stubbed: those
modules pull in the whole engine (a model runner, CUDA, distributed state), or are not installed
here. Each builder returns a fresh module; `tree_loader` serves it on import and records its name,
so `--check` and `hello` list exactly the stubs a version used.
"""
from __future__ import annotations

import collections
import os
import types

import torch

from . import cpu_triton

# What SGLang's get_bool_env_var reads as true; anything else is false.
kTruthyEnvValues = ("true", "1")


class StubModule(types.ModuleType):
    """A stub module that names itself when asked for a name it lacks."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(
            f"kvfuzz's stub of {self.__name__} has no {name!r}: this SGLang version imports a helper the "
            f"adapter does not provide (adapters/sglang/sglang_adapter/stubs.py)")


def _module(name: str, doc: str) -> StubModule:
    module = StubModule(name)
    module.__doc__ = doc
    module.__kvfuzz_stub__ = True
    return module


# ---- sglang.srt.utils ------------------------------------------------------------------------------

def get_bool_env_var(name: str, default: str = "false") -> bool:
    """SGLang's rule: the variable (or `default`) lower-cased is "true" or "1"."""
    return os.getenv(name, default).lower() in kTruthyEnvValues


def get_num_new_pages(seq_lens, page_size, prefix_lens=None, decode=False) -> int:
    """Pages a batch needs, counted on CPU tensors as SGLang does.

    Decode: the requests whose new length starts a page (`seq % page_size == 1`). Extend:
    Σ ceil(seq / page_size) − ceil(prefix / page_size).
    """
    cpu = torch.device("cpu")
    assert seq_lens.device == cpu
    if prefix_lens is None or decode:
        assert decode
        return int((seq_lens % page_size == 1).int().sum().item())
    assert prefix_lens.device == cpu
    pages_after = (seq_lens + page_size - 1) // page_size
    pages_before = (prefix_lens + page_size - 1) // page_size
    return int(torch.sum(pages_after - pages_before).to(torch.int64).item())


def next_power_of_2(n: int) -> int:
    return 1 if n <= 1 else 1 << (int(n) - 1).bit_length()


def is_hip() -> bool:
    return getattr(torch.version, "hip", None) is not None


def is_cuda() -> bool:
    return torch.cuda.is_available() and getattr(torch.version, "cuda", None) is not None


def is_npu() -> bool:
    return False


def srt_utils() -> StubModule:
    module = _module("sglang.srt.utils", "kvfuzz stub: the helpers SGLang's memory files import.")
    for fn in (get_bool_env_var, get_num_new_pages, next_power_of_2, is_hip, is_cuda, is_npu):
        setattr(module, fn.__name__, fn)
    return module


# ---- sglang.srt.environ -----------------------------------------------------------------------------

class _EnvVar:
    """`envs.NAME`: `.get()` reads the variable now; unset is False, "true"/"1" True, digits an int."""

    def __init__(self, name: str):
        self.name = name

    def get(self):
        raw = os.getenv(self.name)
        if raw is None or raw.lower() in ("", "false", "0"):
            return False
        if raw.lower() in kTruthyEnvValues:
            return True
        return int(raw) if raw.lstrip("-").isdigit() else raw

    def is_set(self) -> bool:
        return self.name in os.environ

    @property
    def value(self):
        return self.get()


class _Envs:
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _EnvVar(name)


def srt_environ() -> StubModule:
    module = _module("sglang.srt.environ", "kvfuzz stub: environment flags read from os.environ.")
    module.envs = _Envs()
    return module


# ---- sglang.srt.mem_cache.memory_pool ---------------------------------------------------------------

class KVCache:
    """A name only: the host pool's type annotation and the adapter's device-pool stand-in."""


def memory_pool() -> StubModule:
    module = _module("sglang.srt.mem_cache.memory_pool", "kvfuzz stub: the KVCache name the pools import.")
    module.KVCache = KVCache
    return module


# ---- sglang.srt.mem_cache.pool_host.common ----------------------------------------------------------

class NoHostMemory:
    """The host tensor allocator: the adapter allocates no KV memory, so it must never be asked."""

    def allocate(self, dims, dtype, device):
        raise RuntimeError("kvfuzz's host pool runs slot bookkeeping only: no KV buffer is allocated")


def get_allocator_from_storage(allocator_type="default"):
    return NoHostMemory()


def _cuda_host_unregister(buffer) -> None:
    """Nothing was registered: there is no buffer."""


def pool_host_common() -> StubModule:
    module = _module("sglang.srt.mem_cache.pool_host.common",
                     "kvfuzz stub: the host tensor allocator hooks HostKVCache imports.")
    module.get_allocator_from_storage = get_allocator_from_storage
    module._cuda_host_unregister = _cuda_host_unregister
    module.HostTensorAllocator = NoHostMemory
    return module


# ---- sglang.srt.distributed.parallel_state and sglang.srt.runtime_context -----------------------------

def _group_not_initialized(*args, **kwargs):
    """SGLang's group getters assert when their group was never built: a single-process job here."""
    raise AssertionError("kvfuzz's adapter runs one process: no distributed group is initialized")


def parallel_state() -> StubModule:
    module = _module("sglang.srt.distributed.parallel_state",
                     "kvfuzz stub: group getters of a job with no distributed groups.")
    module.get_world_group = _group_not_initialized
    module.get_pp_group = _group_not_initialized
    module.get_tp_group = _group_not_initialized
    return module


class _Parallel:
    """One node, no parallelism, no DCP."""

    nnodes = 1
    dcp_enabled = False
    dcp_size = 1
    tp_size = 1
    pp_size = 1


def runtime_context() -> StubModule:
    module = _module("sglang.srt.runtime_context", "kvfuzz stub: a single-node, single-rank job.")
    module.get_parallel = _Parallel
    return module


# ---- psutil (only when it is not installed) ---------------------------------------------------------

_VirtualMemory = collections.namedtuple("svmem", ["total", "available"])


def virtual_memory():
    """Total and available bytes from /proc/meminfo (what psutil reads on Linux)."""
    fields = {}
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                key, _, rest = line.partition(":")
                fields[key] = int(rest.split()[0]) * 1024
    except OSError:
        pass
    total = fields.get("MemTotal", 0)
    return _VirtualMemory(total=total, available=fields.get("MemAvailable", total))


def psutil() -> StubModule:
    module = _module("psutil", "kvfuzz stub: virtual_memory() from /proc/meminfo.")
    module.virtual_memory = virtual_memory
    return module


# ---- the table the loader serves ---------------------------------------------------------------------

# Module name -> (builder, serve only when the real module cannot be found).
kStubs = {
    "triton": (lambda: cpu_triton.triton_module(cpu_triton.language_module()), False),
    "triton.language": (cpu_triton.language_module, False),
    "sglang.srt.utils": (srt_utils, False),
    "sglang.srt.environ": (srt_environ, False),
    "sglang.srt.mem_cache.memory_pool": (memory_pool, False),
    "sglang.srt.mem_cache.pool_host.common": (pool_host_common, False),
    "sglang.srt.distributed.parallel_state": (parallel_state, False),
    "sglang.srt.runtime_context": (runtime_context, False),
    "psutil": (psutil, True),
}

# Why each stub is there, as `--check` and `hello` print it.
kStubReasons = {
    "triton": "triton: kernels run on CPU (adapter's launcher)",
    "triton.language": "triton.language: torch on CPU",
    "sglang.srt.utils": "sglang.srt.utils: get_bool_env_var, get_num_new_pages, next_power_of_2, is_hip, is_cuda",
    "sglang.srt.environ": "sglang.srt.environ: envs read from os.environ",
    "sglang.srt.mem_cache.memory_pool": "sglang.srt.mem_cache.memory_pool: the KVCache name",
    "sglang.srt.mem_cache.pool_host.common": "sglang.srt.mem_cache.pool_host.common: no host KV memory",
    "sglang.srt.distributed.parallel_state": "sglang.srt.distributed.parallel_state: no distributed groups",
    "sglang.srt.runtime_context": "sglang.srt.runtime_context: one node, one rank",
    "psutil": "psutil: not installed; virtual_memory from /proc/meminfo",
}
