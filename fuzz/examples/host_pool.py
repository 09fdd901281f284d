#!/usr/bin/env python3
"""A host (L2) slot pool provider speaking kvfuzz-allocator/1 (fuzz/PROTOCOL.md, "Host pools").

First-fit FIFO slot reuse with the engine's sizing rule (one extra page) and its slot_used
checks. `pnpm validate --pool host --cmd "python3 fuzz/examples/host_pool.py"` passes it in
contract mode (exact mode wants the reference's contiguous-run preference, which this lacks).
"""
import json
import sys
from collections import deque

PROTOCOL = "kvfuzz-allocator/1"


class Rejected(Exception):
    """A call the contract says must be refused; the pool is unchanged."""


def is_int(value):
    """A JSON integer (Python's bool is an int too, and is not one)."""
    return isinstance(value, int) and not isinstance(value, bool)


class HostPool:
    def __init__(self, config):
        size_tokens, page, dcp = config["sizeTokens"], config["pageSize"], config.get("dcpSize", 1)
        # 0 tokens is the engine's empty request: the extra page makes it a pool of one page.
        if not (is_int(size_tokens) and size_tokens >= 0):
            raise Rejected(f"ConfigError: sizeTokens {size_tokens} is not a non-negative integer")
        if not (is_int(dcp) and dcp > 0):
            raise Rejected(f"ConfigError: dcpSize {dcp} is not a positive integer")
        if not (is_int(page) and page > 0 and page % dcp == 0):
            raise Rejected(f"ConfigError: HiCache host pool page_size ({page}) must be a positive multiple of dcp_size ({dcp})")
        self.page = page
        # The engine's sizing rule: whole pages, then always one more.
        self.size = (size_tokens // page + 1) * page
        self.checks = config.get("checks", True)
        self.clear()

    def clear(self):
        self.free_slots = deque(range(self.size))
        self.used = [False] * self.size

    def alloc(self, n):
        if not is_int(n) or n < 0 or n % self.page != 0:
            raise Rejected(f"ArgumentError: The requested size should be a multiple of the page size. Got {n}.")
        if n > len(self.free_slots):
            return None
        taken = [self.free_slots.popleft() for _ in range(n)]
        for slot in taken:
            self.used[slot] = True
        return taken

    def free(self, indices):
        if self.checks:
            bad, seen = [], set()
            for slot in indices:
                # Range first: a negative slot would index self.used from its end.
                if not is_int(slot) or not 0 <= slot < self.size or not self.used[slot] or slot in seen:
                    bad.append(slot)
                seen.add(slot)
            if bad:
                raise Rejected(f"HostDoubleFreeError: Double-free detected: slots not currently allocated: {bad}.")
        for slot in indices:
            self.used[slot] = False
            self.free_slots.append(slot)
        return len(indices)


def handle(request, state):
    op = request.get("op")
    if op == "hello":
        if request.get("protocol") != PROTOCOL:
            return {"ok": False, "error": f"unsupported protocol {request.get('protocol')}"}
        return {"ok": True, "protocol": PROTOCOL, "name": "host-fifo-python"}
    if op == "bye":
        return {"ok": True}
    if op == "createHost":
        state["pool"] = HostPool(request["config"])
        return {"ok": True, "size": state["pool"].size}
    pool = state.get("pool")
    if pool is None:
        raise Rejected(f"StateError: {op} before createHost")
    if op == "hostAvailableSize":
        return {"ok": True, "value": len(pool.free_slots)}
    if op == "hostAlloc":
        return {"ok": True, "indices": pool.alloc(request.get("n"))}
    if op == "hostFree":
        return {"ok": True, "count": pool.free(request.get("indices", []))}
    if op == "hostClear":
        pool.clear()
        return {"ok": True}
    raise Rejected(f"ProtocolError: unknown op {op!r} (this program is a host pool only)")


def main():
    state = {}
    for line in sys.stdin:
        try:
            reply = handle(json.loads(line), state)
        except Rejected as rejected:
            reply = {"ok": False, "error": str(rejected)}
        except (ValueError, KeyError, TypeError) as error:
            reply = {"ok": False, "error": f"ProtocolError: {error}"}
        print(json.dumps(reply), flush=True)
        if reply.get("ok") and json.loads(line).get("op") == "bye":
            return


if __name__ == "__main__":
    main()
