#!/usr/bin/env python3
"""SGLang's own allocator and host pool behind kvfuzz's protocol `kvfuzz-allocator/1`.

    pnpm validate --engine sglang [--engine-src DIR] [--pool host] [--mode exact] [--report]
    /usr/bin/python3 adapters/sglang/kvfuzz_sglang.py [--engine-src DIR] [--pool allocator|host] [--extend-path naive|kernel]
    /usr/bin/python3 adapters/sglang/kvfuzz_sglang.py [--engine-src DIR] --check [--pool allocator|host]

One JSON request per line on stdin, one reply per line on stdout (fuzz/PROTOCOL.md). The process
serves both pools: `create` builds SGLang's `TokenToKVPoolAllocator` (page size 1) or
`PagedTokenToKVPoolAllocator`, `createHost` its `HostKVCache`. SGLang's exceptions come back as
`{"ok":false,"error":"Name: message (at file:line in function)"}`; no request ends the process.
See adapters/sglang/README.md for the loader, the stubs and the CPU paths.

`--check` loads everything, builds each pool once, prints one JSON line and exits 0, or exits 1
with `{"ok":false,"missing":[...],"error":"..."}`.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sglang_adapter.errors import ProtocolError, Rejection, StateError  # noqa: E402
from sglang_adapter.tree_loader import LoadError, load  # noqa: E402
from sglang_adapter.wire import describe_exception  # noqa: E402

PROTOCOL = "kvfuzz-allocator/1"
NAME = "sglang (adapters/sglang)"
# Which extend path runs when --extend-path is not given (the CLI's --engine passes none).
kExtendPathEnv = "KVFUZZ_SGLANG_EXTEND_PATH"

ALLOCATOR_OPS = {
    "availableSize": "available_size", "alloc": "alloc", "allocExtend": "alloc_extend",
    "allocDecode": "alloc_decode", "free": "free", "freeSegments": "free_segments",
    "freeGroupBegin": "free_group_begin", "freeGroupEnd": "free_group_end",
    "backupState": "backup_state", "restoreState": "restore_state", "clear": "clear",
}
HOST_OPS = {"hostAvailableSize": "available_size", "hostAlloc": "alloc", "hostFree": "free", "hostClear": "clear"}


class Adapter:
    """The protocol's state: what was loaded (or why not), and the current allocator and host pool."""

    def __init__(self, loaded, load_error, cpu_paths):
        self.loaded = loaded
        self.load_error = load_error
        self.cpu_paths = cpu_paths
        self.allocator = None
        self.host_pool = None

    def handle(self, request: dict) -> dict:
        op = request["op"]
        if op == "hello":
            if request.get("protocol") != PROTOCOL:
                return {"ok": False, "error": f"unsupported protocol {json.dumps(request.get('protocol'))}: "
                                              f"this program speaks {PROTOCOL}"}
            if self.load_error is not None:
                return {"ok": False, "error": f"the sglang adapter cannot run: {self.load_error}"}
            return {"ok": True, "protocol": PROTOCOL, "name": NAME, "sglang": self.loaded.describe(),
                    "cpuPaths": self.cpu_paths, "stubbed": self.loaded.stubbed()}
        if op == "bye":
            return {"ok": True}
        if self.load_error is not None:
            raise StateError(f"the sglang adapter cannot run: {self.load_error}")
        if op in ("create", *ALLOCATOR_OPS) and "allocator" not in self.loaded.pools:
            raise StateError(f"{op}: this adapter was started for the host pool only (--pool host)")
        if op in ("createHost", *HOST_OPS) and "host" not in self.loaded.pools:
            raise StateError(f"{op}: this adapter was started for the allocator only (--pool allocator)")
        if op == "create":
            config = request.get("config")
            if not isinstance(config, dict):
                raise ProtocolError("create needs a config object")
            from sglang_adapter.allocator_provider import SglangAllocator
            # A refused create keeps the previous allocator.
            self.allocator = SglangAllocator(self.loaded, config)
            return {"ok": True, "pageSize": self.allocator.page_size, "numPages": self.allocator.num_pages}
        if op == "createHost":
            config = request.get("config")
            if not isinstance(config, dict):
                raise ProtocolError("createHost needs a config object")
            from sglang_adapter.host_pool_provider import SglangHostPool
            self.host_pool = SglangHostPool(self.loaded, config)
            return {"ok": True, "size": self.host_pool.size}
        if op in ALLOCATOR_OPS:
            if self.allocator is None:
                raise StateError(f"{op} before create: there is no allocator yet")
            return {"ok": True, **getattr(self.allocator, ALLOCATOR_OPS[op])(request)}
        if op in HOST_OPS:
            if self.host_pool is None:
                raise StateError(f"{op} before createHost: there is no host pool yet")
            return {"ok": True, **getattr(self.host_pool, HOST_OPS[op])(request)}
        raise ProtocolError(f"unknown op {json.dumps(op)}")


def reply_for(adapter: Adapter, line: str):
    """The reply to one line, and whether it was `bye`. Never raises (but for KeyboardInterrupt)."""
    request = None
    try:
        request = json.loads(line)
        if not isinstance(request, dict) or not isinstance(request.get("op"), str):
            raise ProtocolError('a request must be a JSON object with a string "op"')
        reply = adapter.handle(request)
    except json.JSONDecodeError as error:
        reply = {"ok": False, "error": f"ProtocolError: the line is not JSON ({error.msg})"}
    except Rejection as error:
        reply = {"ok": False, "error": f"{type(error).__name__}: {error}"}
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # SGLang's refusal (AssertionError, IndexError, ...), or a SystemExit it raised
        root = adapter.loaded.tree.root if adapter.loaded is not None else None
        reply = {"ok": False, "error": describe_exception(error, root)}
        if os.environ.get("KVFUZZ_SGLANG_TRACEBACKS"):
            traceback.print_exception(type(error), error, error.__traceback__, file=sys.stderr)
    try:
        text = json.dumps(reply, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as error:
        text = json.dumps({"ok": False, "error": f"InternalError: the reply could not be written as JSON: {error}"})
    return text, isinstance(request, dict) and request.get("op") == "bye"


def _load(engine_src, pools, extend_path):
    loaded = load(engine_src, pools)  # checks torch first: the providers import it
    from sglang_adapter.allocator_provider import install_cpu_paths
    cpu_paths = install_cpu_paths(loaded, extend_path) if "allocator" in pools else None
    return loaded, cpu_paths


def check(engine_src, pools, extend_path) -> int:
    """`--check`: one JSON line; 0 when SGLang loads and each pool builds, else 1."""
    try:
        loaded, cpu_paths = _load(engine_src, pools, extend_path)
    except LoadError as error:
        print(json.dumps({"ok": False, "missing": error.missing, "error": str(error)}), file=_protocol_out)
        return 1
    adapter = Adapter(loaded, None, cpu_paths)
    smoke = []
    if "allocator" in pools:
        smoke += [{"op": "create", "config": {"sizeTokens": 16, "kernelPageSize": 2, "dcpSize": 2, "needSort": False, "checks": True}},
                  {"op": "allocExtend", "prefixLens": [0], "seqLens": [5], "lastLoc": [-1]},
                  {"op": "allocDecode", "seqLens": [6], "lastLoc": [8]},
                  {"op": "create", "config": {"sizeTokens": 4, "kernelPageSize": 1, "dcpSize": 1, "needSort": False, "checks": True}},
                  {"op": "alloc", "needSize": 2}]
    if "host" in pools:
        smoke += [{"op": "createHost", "config": {"sizeTokens": 8, "pageSize": 2, "dcpSize": 1, "checks": True}},
                  {"op": "hostAlloc", "n": 4}]
    for request in smoke:
        text, _ = reply_for(adapter, json.dumps(request))
        if not json.loads(text).get("ok"):
            print(json.dumps({"ok": False, "missing": [],
                              "error": f"SGLang from {loaded.describe()} loaded, but {request['op']} failed: {json.loads(text)['error']}"}),
                  file=_protocol_out)
            return 1
    import torch
    print(json.dumps({"ok": True, "sglang": loaded.describe(), "torch": torch.__version__,
                      "python": f"{sys.executable} {platform.python_version()}", "stubbed": loaded.stubbed()}),
          file=_protocol_out)
    return 0


def serve(engine_src, pools, extend_path) -> int:
    try:
        loaded, cpu_paths = _load(engine_src, pools, extend_path)
        adapter = Adapter(loaded, None, cpu_paths)
    except LoadError as error:
        adapter = Adapter(None, error, None)
    for line in sys.stdin:
        if not line.strip():
            continue
        text, bye = reply_for(adapter, line)
        _protocol_out.write(text + "\n")
        _protocol_out.flush()
        if bye:
            return 0
    return 0


def main(argv=None) -> int:
    global _protocol_out
    # The protocol's channel. Everything else that writes to stdout (SGLang's prints) goes to stderr.
    _protocol_out = sys.stdout
    sys.stdout = sys.stderr
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine-src", metavar="DIR", help="an SGLang checkout (or sparse one, or its python/ folder); default: the installed package")
    parser.add_argument("--check", action="store_true", help="print one JSON line saying whether everything loads, then exit")
    parser.add_argument("--pool", choices=("allocator", "host", "both"), default="both",
                        help="which pools to load (their files are required; default both)")
    parser.add_argument("--extend-path", choices=("naive", "kernel"), default=os.environ.get(kExtendPathEnv, "naive"),
                        help="paged extend on CPU: SGLang's alloc_extend_naive (default) or alloc_extend_kernel interpreted")
    args = parser.parse_args(argv)
    pools = ("allocator", "host") if args.pool == "both" else (args.pool,)
    if args.check:
        return check(args.engine_src, pools, args.extend_path)
    return serve(args.engine_src, pools, args.extend_path)


# Where replies and --check's line go; main() points sys.stdout at stderr after keeping it here.
_protocol_out = sys.stdout

if __name__ == "__main__":
    sys.exit(main())
