"""The allocator ops of `kvfuzz-allocator/1`, each a call of SGLang's own allocator on torch CPU.

Op by op (page size = kernelPageSize × dcpSize):

| op | page size 1: `TokenToKVPoolAllocator` | page size ≥ 2: `PagedTokenToKVPoolAllocator` |
| --- | --- | --- |
| create | `TokenToKVPoolAllocator(size, dtype, device, kvcache, need_sort)` | `PagedTokenToKVPoolAllocator(size, page_size, dtype, device, kvcache, need_sort)` |
| availableSize | `available_size()` | `available_size()` |
| alloc | `alloc(needSize)` | `alloc(needSize)` |
| allocExtend | `alloc(Σ(seq − prefix))`, as `alloc_for_extend` does at page 1 | `alloc_extend(prefix_lens, prefix_lens_cpu, seq_lens, seq_lens_cpu, last_loc, extend_num_tokens)` |
| allocDecode | `alloc(batch size)`, as `alloc_for_decode` does at page 1 | `alloc_decode(seq_lens, seq_lens_cpu, last_loc)` |
| free | `free(tensor)` | `free(tensor)` |
| freeSegments | `free_segments([(tensor, start_pos), ...])` (else `free_segment` per segment, else `free`) | same |
| freeGroupBegin / End | `free_group_begin()` / `free_group_end()` | same |
| backupState / restoreState | `backup_state()` / `restore_state()` when the version has them, else the adapter's own snapshot of the free lists | same |
| clear | `clear()` | `clear()` |

Values pass to SGLang as the request holds them: a fractional or negative size reaches SGLang's
code, which decides (that is what the validator judges). Arrays are int64 tensors.
"""
from __future__ import annotations

import collections
import hashlib
import inspect
import json
import os

import torch

from . import cpu_triton
from .errors import AdapterLimit, ProtocolError, StateError
from .wire import boolean, field, int_list, is_int, json_number, number

# The KV dtype the allocators are built with: stored only, no KV buffer exists.
kKvDtype = torch.float16
kDevice = "cpu"
# Pools larger than this are refused by the adapter (the validator draws a few hundred pages).
kSizeTokensMax = 1 << 26
# Requests per extend or decode batch the adapter passes on: the interpreted kernels do O(batch²)
# work (each program sums the requests before it); the validator's batches hold at most 9.
kBatchSizeMax = 1 << 12
# Snapshots kept for restoreState when SGLang's own backup_state object must be held here.
kSnapshotsMax = 256
# The environment variable SGLang reads when an allocator is built (its debug checks).
kDebugEnv = "SGLANG_DEBUG_MEMORY_POOL"
# The allocator attributes an adapter snapshot copies, when the version has them.
kSnapshotAttrs = ("free_pages", "release_pages", "staged_pages", "num_staged_pages")
kAdapterSnapshotKind = "kvfuzz-sglang/adapter-snapshot"
# The naive extend path's stand-ins for pages read past the free list start at this slot: above
# every pool the adapter builds (kSizeTokensMax), and below 2^31 with room for 2^30 more slots.
kPastPoolSlot = 1 << 30
assert kSizeTokensMax < kPastPoolSlot


class ExtendPaths:
    """Which CPU code computes a paged extend's layout; see `install_cpu_paths`."""

    NAIVE = "naive"
    KERNEL = "kernel"


def install_cpu_paths(loaded, extend_path: str) -> str:
    """Wires the kernel launches of `paged.py` to CPU code and returns a one-line description.

    - Extend: `alloc_extend_naive` from paged.py, SGLang's own CPU reference (its tests route the
      Triton launch there the same way), unless `extend_path` is "kernel" or the version has none;
      then `alloc_extend_kernel`'s body runs under the CPU Triton (`cpu_triton`). alloc_extend runs
      the kernel BEFORE its capacity check, and on a GPU the kernel then reads past the end of the
      free list; alloc_extend_naive raises IndexError/RuntimeError there instead. So the naive path
      is given the free list extended with stand-ins for what the kernel reads past its end
      (distinct pages past every pool): SGLang's capacity check then answers, as on a GPU.
    - Decode: SGLang has no CPU reference; `alloc_decode_kernel`'s body runs under the CPU Triton.
    """
    kernels = loaded.kernel_module
    naive = getattr(loaded.paged_module, "alloc_extend_naive", None)
    extend_kernel = getattr(kernels, "alloc_extend_kernel", None)
    if isinstance(extend_kernel, cpu_triton.CpuKernel):
        if extend_path == ExtendPaths.NAIVE and naive is not None:
            extend_kernel.cpu_path = _naive_extend_launch(naive)
            extend_kernel.cpu_path_name = "paged.alloc_extend_naive"
            extend = "extend: paged.alloc_extend_naive"
        else:
            extend_kernel.cpu_path = None
            extend = "extend: alloc_extend_kernel interpreted"
    else:
        extend = "extend: no alloc_extend_kernel in the kernel module"
    return f"{extend}; decode: alloc_decode_kernel interpreted"


def _naive_extend_launch(naive):
    def launch(pre_lens_ptr, seq_lens_ptr, last_loc_ptr, free_page_ptr, out_indices, bs_upper, page_size, **_rest):
        free_pages = free_page_ptr
        if pre_lens_ptr.shape == seq_lens_ptr.shape:
            need = int(torch.sum((seq_lens_ptr + page_size - 1) // page_size - (pre_lens_ptr + page_size - 1) // page_size))
            if need > len(free_pages):
                # Stands for what the GPU kernel reads past the end of the free list: distinct pages
                # past every pool, whose slots stay below 2^31 (alloc_extend_naive computes the
                # slots of a request's first and last page in int32: a 0-d int64 page id plus its
                # int32 `pos_in_page` promotes to int32).
                first = int(kPastPoolSlot // page_size)
                past = torch.arange(first, first + need - len(free_pages), dtype=torch.int64)
                free_pages = torch.cat((free_pages, past.to(free_pages.dtype)))
                cpu_triton.launch_report.loads_out_of_bounds += need - len(free_page_ptr)
        naive(pre_lens_ptr, seq_lens_ptr, last_loc_ptr, free_pages, out_indices, page_size, out_indices.device)
    return launch


def _check_batch(*arrays):
    """Refuses batches past what the adapter runs in bounded time and memory (never valid traffic)."""
    for values in arrays:
        if len(values) > kBatchSizeMax:
            raise AdapterLimit(f"a batch of {len(values)} requests is past the adapter's limit {kBatchSizeMax}")
        if any(abs(v) > kSizeTokensMax for v in values):
            raise AdapterLimit(f"a length or slot past ±{kSizeTokensMax} (the adapter's pool limit) in {values[:8]}")


def _call_by_name(method, **arguments):
    """Calls `method` with the arguments its signature names (versions differ in which they take)."""
    params = inspect.signature(method).parameters
    accepted = {k: v for k, v in arguments.items() if k in params}
    return method(**accepted)


def _tensor(values) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.int64)


def _slots(result):
    if result is None:
        return None
    return [json_number(v) for v in result.tolist()]


class SglangAllocator:
    """One SGLang allocator, driven op by op (see the module table)."""

    def __init__(self, loaded, config: dict):
        op = "create"
        size = number(config, "sizeTokens", op)
        kernel_page = number(config, "kernelPageSize", op) if "kernelPageSize" in config else 1
        dcp = number(config, "dcpSize", op) if "dcpSize" in config else 1
        need_sort = boolean(config, "needSort", op) if "needSort" in config else False
        checks = boolean(config, "checks", op) if "checks" in config else True
        if abs(size) > kSizeTokensMax:
            raise AdapterLimit(f"sizeTokens {size} is past the adapter's limit {kSizeTokensMax}")
        page_size = kernel_page * dcp
        # SGLang reads its debug flag when the allocator is built.
        os.environ[kDebugEnv] = "1" if checks else "0"
        self.checks = checks
        if page_size == 1:
            self.engine = _call_by_name(loaded.token_allocator, size=size, dtype=kKvDtype, device=kDevice,
                                        kvcache=None, need_sort=need_sort)
            self.page_size = 1
            self.num_pages = json_number(self.engine.size)
        else:
            self.engine = _call_by_name(loaded.paged_allocator, size=size, page_size=page_size, dtype=kKvDtype,
                                        device=kDevice, kvcache=None, need_sort=need_sort)
            self.page_size = json_number(self.engine.page_size)
            self.num_pages = json_number(self.engine.num_pages)
        self.token = page_size == 1
        self.snapshots = collections.OrderedDict()
        self.snapshot_serial = 0

    # ---- ops ---------------------------------------------------------------------------------------

    def available_size(self, request):
        return {"value": json_number(self.engine.available_size())}

    def alloc(self, request):
        return {"indices": _slots(self.engine.alloc(number(request, "needSize")))}

    def alloc_extend(self, request):
        prefix = int_list(request, "prefixLens")
        seq = int_list(request, "seqLens")
        last = int_list(request, "lastLoc")
        _check_batch(prefix, seq, last)
        # The scheduler's extend_num_tokens, Σ(seq − prefix); for arrays of different lengths (bad input,
        # which SGLang does not check) over the requests both arrays hold.
        extend_num_tokens = sum(s - p for p, s in zip(prefix, seq))
        if abs(extend_num_tokens) > kSizeTokensMax:
            raise AdapterLimit(f"an extend of {extend_num_tokens} tokens is past the adapter's limit {kSizeTokensMax}")
        if self.token:
            return {"indices": _slots(self.engine.alloc(extend_num_tokens))}
        prefix_lens, seq_lens = _tensor(prefix), _tensor(seq)
        result = _call_by_name(
            self.engine.alloc_extend, prefix_lens=prefix_lens, prefix_lens_cpu=prefix_lens.clone(),
            seq_lens=seq_lens, seq_lens_cpu=seq_lens.clone(), last_loc=_tensor(last),
            extend_num_tokens=extend_num_tokens)
        return {"indices": _slots(result)}

    def alloc_decode(self, request):
        seq = int_list(request, "seqLens")
        last = int_list(request, "lastLoc")
        _check_batch(seq, last)
        if self.token:
            return {"indices": _slots(self.engine.alloc(len(seq)))}
        seq_lens = _tensor(seq)
        result = _call_by_name(self.engine.alloc_decode, seq_lens=seq_lens, seq_lens_cpu=seq_lens.clone(),
                               last_loc=_tensor(last))
        return {"indices": _slots(result)}

    def free(self, request):
        self.engine.free(_tensor(int_list(request, "indices")))
        return {}

    def free_segments(self, request):
        raw = field(request, "segments")
        if not isinstance(raw, list) or not all(isinstance(s, dict) for s in raw):
            raise ProtocolError('freeSegments: segments must be [{"indices": [...], "startPos": S}, ...]')
        segments = []
        for i, segment in enumerate(raw):
            start = segment.get("startPos")
            if not is_int(start):
                raise ProtocolError(f"freeSegments: segment {i}: startPos must be an integer, got {start!r}")
            segments.append((_tensor(int_list(segment, "indices", f"freeSegments: segment {i}")), start))
        if hasattr(self.engine, "free_segments"):
            self.engine.free_segments(segments)
        elif hasattr(self.engine, "free_segment"):
            for indices, start in segments:
                self.engine.free_segment(indices, start_pos=start)
        else:
            self.engine.free(torch.cat([indices for indices, _ in segments]) if segments else _tensor([]))
        return {}

    def free_group_begin(self, request):
        self.engine.free_group_begin()
        return {}

    def free_group_end(self, request):
        self.engine.free_group_end()
        return {}

    def clear(self, request):
        self.engine.clear()
        return {}

    def backup_state(self, request):
        if hasattr(self.engine, "backup_state"):
            return self._keep_engine_snapshot(self.engine.backup_state())
        state = {"kind": kAdapterSnapshotKind,
                 "note": "taken by the adapter: this SGLang version has no backup_state",
                 "attrs": {name: _to_json(getattr(self.engine, name))
                           for name in kSnapshotAttrs if hasattr(self.engine, name)}}
        return {"state": state}

    def restore_state(self, request):
        state = field(request, "state")
        if isinstance(state, dict) and state.get("kind") == kAdapterSnapshotKind:
            attrs = state.get("attrs")
            if not isinstance(attrs, dict) or set(attrs) != {n for n in kSnapshotAttrs if hasattr(self.engine, n)}:
                raise StateError("restoreState: the snapshot's attributes do not fit this allocator")
            for name, value in attrs.items():
                setattr(self.engine, name, _from_json(value, name))
            return {}
        if isinstance(state, dict) and set(state) == {"handle"} and state["handle"] in self.snapshots:
            self.engine.restore_state(self.snapshots[state["handle"]])
            return {}
        raise StateError("restoreState was given a state backupState did not return (or one dropped: "
                         f"the adapter keeps the last {kSnapshotsMax})")

    def _keep_engine_snapshot(self, engine_state):
        """SGLang's own snapshot object stays here (it may hold live references, as SGLang's does);
        the reply carries a handle and a digest of its content now (PROTOCOL.md, module providers)."""
        self.snapshot_serial += 1
        handle = self.snapshot_serial
        self.snapshots[handle] = engine_state
        while len(self.snapshots) > kSnapshotsMax:
            self.snapshots.popitem(last=False)
        content = json.dumps(_to_json(engine_state), sort_keys=True, separators=(",", ":"))
        return {"state": {"handle": handle}, "digest": hashlib.sha256(content.encode()).hexdigest()}


def _to_json(value):
    """Tensors, lists/tuples of them, numbers and None, as JSON."""
    if isinstance(value, torch.Tensor):
        return {"tensor": value.tolist(), "dtype": str(value.dtype).replace("torch.", "")}
    if isinstance(value, (list, tuple)):
        return {"list" if isinstance(value, list) else "tuple": [_to_json(v) for v in value]}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return {"repr": repr(value)}


def _from_json(value, name):
    if isinstance(value, dict) and "tensor" in value:
        dtype = getattr(torch, str(value.get("dtype", "int64")), None)
        if not isinstance(dtype, torch.dtype):
            raise StateError(f"restoreState: {name} has dtype {value.get('dtype')!r}")
        return torch.tensor(value["tensor"], dtype=dtype)
    if isinstance(value, dict) and ("list" in value or "tuple" in value):
        items = [_from_json(v, name) for v in value.get("list", value.get("tuple"))]
        return items if "list" in value else tuple(items)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    raise StateError(f"restoreState: {name} holds {value!r}, which backupState does not write")
