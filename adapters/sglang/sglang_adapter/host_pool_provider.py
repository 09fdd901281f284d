"""The host-pool ops of `kvfuzz-allocator/1` (PROTOCOL.md, "Host pools"), on SGLang's `HostKVCache`.

Only `HostKVCache`'s slot bookkeeping runs: the adapter subclasses it with `get_size_per_token()`
0 and `init_kv_buffer()` None (no KV memory), and every other abstract method raising, and builds
it through its own `__init__` with a device-pool stand-in whose `size` is the protocol's
`sizeTokens` and `host_to_device_ratio` 1.0 — so SGLang's sizing rule
`(size // page_size + 1) × page_size` makes the size.

| op | SGLang call |
| --- | --- |
| createHost | `HostKVCache.__init__(device_pool, 1.0, 0, page_size, "layer_first", False, "cpu"[, dcp_size])` |
| hostAvailableSize | `available_size()` |
| hostAlloc | `alloc(n)` |
| hostFree | `free(tensor)` (returns the count) |
| hostClear | `clear()` |

`checks` changes nothing here: the pool's `slot_used` checks always run. `dcpSize` reaches SGLang
only when its constructor takes a DCP size (`dcp_size`/`dcp_world_size`); the device-pool
stand-in then holds one rank's rows (`sizeTokens // dcpSize`) and the size replied is SGLang's
`logical_size`. Without such a parameter (pool_host/base.py at 712c0617) dcpSize is not used.
"""
from __future__ import annotations

import inspect

import torch

from .errors import AdapterLimit, ProtocolError
from .wire import boolean, int_list, json_number, number

kSizeTokensMax = 1 << 26
# Constructor parameters a DCP-aware HostKVCache may name for the DCP size.
kDcpParams = ("dcp_size", "dcp_world_size")


class DevicePoolStandIn:
    """What `HostKVCache.__init__` reads of the device KV pool; it holds no KV memory."""

    def __init__(self, size, page_size):
        self.size = size
        self.page_size = page_size
        self.store_dtype = torch.float16
        self.dtype = torch.float16
        self.start_layer = 0
        self.end_layer = 1
        self.layer_num = 1
        self.layer_shard_enabled = False


def _not_emulated(name):
    def method(self, *args, **kwargs):
        raise NotImplementedError(f"kvfuzz's host pool runs slot bookkeeping only: {name} moves KV data")
    method.__name__ = name
    return method


def bookkeeping_class(host_kv_cache):
    """A concrete `HostKVCache` whose KV-data methods are absent and whose buffer is nothing.

    It has one layer and no draft layers (`layer_num`, `target_layer_num`: newer versions read them
    in `__init__`, where a KV subclass has set them).
    """
    namespace = {name: _not_emulated(name) for name in getattr(host_kv_cache, "__abstractmethods__", ())}
    namespace["get_size_per_token"] = lambda self: 0
    namespace["init_kv_buffer"] = lambda self: None
    namespace["layer_num"] = 1
    namespace["target_layer_num"] = 1
    return type("SlotBookkeepingHostKVCache", (host_kv_cache,), namespace)


class SglangHostPool:
    def __init__(self, loaded, config: dict):
        op = "createHost"
        size_tokens = number(config, "sizeTokens", op)
        page_size = number(config, "pageSize", op)
        dcp = number(config, "dcpSize", op) if "dcpSize" in config else 1
        if "checks" in config:
            boolean(config, "checks", op)
        if abs(size_tokens) > kSizeTokensMax:
            raise AdapterLimit(f"sizeTokens {size_tokens} is past the adapter's limit {kSizeTokensMax}")
        cls = bookkeeping_class(loaded.host_kv_cache)
        params = inspect.signature(loaded.host_kv_cache.__init__).parameters
        takes_dcp = [name for name in kDcpParams if name in params]
        # Under DCP the device pool is one rank's: sizeTokens / dcpSize rows (SGLang's logical size is
        # then page_num × the widened page). Without a DCP parameter dcpSize never reaches SGLang.
        device_rows = size_tokens if not takes_dcp else (
            size_tokens // dcp if isinstance(size_tokens, int) and isinstance(dcp, int) and dcp != 0 else
            size_tokens / dcp if dcp != 0 else size_tokens)
        arguments = {"device_pool": DevicePoolStandIn(device_rows, page_size), "host_to_device_ratio": 1.0,
                     "host_size": 0, "page_size": page_size, "layout": "layer_first", "pin_memory": False,
                     "device": "cpu", "allocator_type": "default"}
        arguments.update({name: dcp for name in takes_dcp})
        unknown = [name for name, p in params.items()
                   if name != "self" and p.default is inspect.Parameter.empty and name not in arguments
                   and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        if unknown:
            raise ProtocolError(f"this SGLang HostKVCache needs {unknown}, which the adapter does not know how to fill")
        self.engine = cls(**{k: v for k, v in arguments.items() if k in params})
        # The protocol's size is in the slots alloc hands out: SGLang's logical size under DCP.
        self.size = json_number(getattr(self.engine, "logical_size", self.engine.size))

    def available_size(self, request):
        return {"value": json_number(self.engine.available_size())}

    def alloc(self, request):
        result = self.engine.alloc(number(request, "n"))
        return {"indices": None if result is None else [json_number(v) for v in result.tolist()]}

    def free(self, request):
        count = self.engine.free(torch.tensor(int_list(request, "indices"), dtype=torch.int64))
        return {"count": json_number(count)}

    def clear(self, request):
        self.engine.clear()
        return {}
