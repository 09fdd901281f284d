#!/usr/bin/env python3
"""A complete kvfuzz allocator provider in Python, speaking kvfuzz-allocator/1 on stdin/stdout.

One JSON request per line in, one JSON reply per line out (fuzz/PROTOCOL.md). Free pages wait in
a FIFO queue: pages given back join the back, allocations take from the front, so the page freed
longest ago is reused first. It implements the allocator contract of CONTRACT.md (repository
root); a rejected call answers {"ok":false,"error":"Name: message"} and changes nothing.
Standard library only.

    pnpm validate --cmd "python3 fuzz/examples/fifo_allocator.py"
"""
import json
import sys
import traceback
from collections import deque

PROTOCOL = "kvfuzz-allocator/1"
NAME = "fifo-python"
# Slot ids must stay exact in the validator's Int32Array results.
SIZE_TOKENS_MAX = 2 ** 30

# Page states. Page 0 is reserved (padded tokens write there) and is never handed out.
FREE, HELD, QUEUED, RESERVED = 0, 1, 2, 3


class Rejection(Exception):
    """A call the contract rejects. The class name is the error name on the wire."""


class ProtocolError(Rejection): pass   # a malformed request: unknown op, missing field, wrong type
class ConfigError(Rejection): pass
class ArgumentError(Rejection): pass
class DoubleFreeError(Rejection): pass
class SlotRangeError(Rejection): pass
class SegmentError(Rejection): pass
class LastLocError(Rejection): pass
class FreeGroupError(Rejection): pass
class StateError(Rejection): pass


def is_int(value):
    """A JSON integer (true/false and 4.0 are not)."""
    return isinstance(value, int) and not isinstance(value, bool)


def div_ceil(a, b):
    return -(-a // b)


class FifoAllocator:
    """Free pages in a deque (front = reused first); state[p] is FREE, HELD, QUEUED or RESERVED.

    Invariants: the queue holds exactly the FREE pages, once each; self.group (a list, or None when
    no group is open) holds exactly the QUEUED pages, in the order they were given back.
    """

    def __init__(self, config):
        if not isinstance(config, dict):
            raise ConfigError(f"config {config!r} is not an object")
        sizes = {}
        for name, default in (("sizeTokens", None), ("kernelPageSize", 1), ("dcpSize", 1)):
            sizes[name] = config.get(name, default)
            if not is_int(sizes[name]) or sizes[name] <= 0:
                raise ConfigError(f"{name} {json.dumps(sizes[name])} is not a positive integer")
        for name, default in (("needSort", False), ("checks", True)):
            if not isinstance(config.get(name, default), bool):
                raise ConfigError(f"{name} {json.dumps(config.get(name))} is not a boolean")
        size_tokens, dcp_size = sizes["sizeTokens"], sizes["dcpSize"]
        if dcp_size & (dcp_size - 1):
            raise ConfigError(f"dcpSize {dcp_size} is not a power of two")
        if size_tokens > SIZE_TOKENS_MAX:
            raise ConfigError(f"sizeTokens {size_tokens} exceeds the maximum {SIZE_TOKENS_MAX}")
        self.ps = sizes["kernelPageSize"] * dcp_size
        if size_tokens % self.ps:
            raise ConfigError(f"sizeTokens {size_tokens} is not a multiple of the page size {self.ps} "
                              f"(kernelPageSize {sizes['kernelPageSize']} x dcpSize {dcp_size})")
        # needSort is accepted and ignored: contract mode accepts any page choice, and ours is FIFO.
        self.checks = config.get("checks", True)
        self.num_pages = size_tokens // self.ps
        self.slot_end = (self.num_pages + 1) * self.ps
        self.clear()

    def clear(self):
        self.queue = deque(range(1, self.num_pages + 1))
        self.state = bytearray([FREE]) * (self.num_pages + 1)
        self.state[0] = RESERVED
        self.group = None

    def available_size(self):
        return len(self.queue) * self.ps

    def _take(self, count):
        """The first `count` pages of the queue, now held; None (nothing taken) when fewer are free."""
        if count > len(self.queue):
            return None
        pages = [self.queue.popleft() for _ in range(count)]
        for page in pages:
            self.state[page] = HELD
        return pages

    def _slots(self, page, count):
        """Slots at offsets 0 .. count-1 of a page."""
        return range(page * self.ps, page * self.ps + count)

    def alloc(self, need):
        if not is_int(need) or need < 0:
            raise ArgumentError(f"alloc size {json.dumps(need)} is not a non-negative integer")
        if need % self.ps:
            raise ArgumentError(f"alloc size {need} is not a multiple of the page size {self.ps}")
        pages = self._take(need // self.ps)
        return None if pages is None else [slot for page in pages for slot in self._slots(page, self.ps)]

    def alloc_extend(self, prefix_lens, seq_lens, last_loc):
        if not len(prefix_lens) == len(seq_lens) == len(last_loc):
            raise ArgumentError(f"extend batch arrays differ in length: prefixLens {len(prefix_lens)}, "
                                f"seqLens {len(seq_lens)}, lastLoc {len(last_loc)}")
        rows = list(zip(prefix_lens, seq_lens, last_loc))
        for i, (pre, seq, last) in enumerate(rows):
            for name, value in (("prefixLens", pre), ("seqLens", seq)):
                if not is_int(value) or value < 0:
                    raise ArgumentError(f"request {i}: {name} {json.dumps(value)} is not a non-negative integer")
            if seq < pre:
                raise ArgumentError(f"request {i}: seqLens {seq} < prefixLens {pre}")
            if not is_int(last):
                raise ArgumentError(f"request {i}: lastLoc {json.dumps(last)} is not an integer")
        if self.checks:
            for i, (pre, _, last) in enumerate(rows):
                self._check_last_loc(i, pre, last, "prefixLens")
        pages = self._take(sum(div_ceil(seq, self.ps) - div_ceil(pre, self.ps) for pre, seq, _ in rows))
        if pages is None:
            return None
        new_pages, out = iter(pages), []
        for pre, seq, last in rows:
            # Part 1: positions up to the end of lastLoc's page (or seq, if sooner) follow lastLoc.
            first_new_block = div_ceil(pre, self.ps)
            out.extend(range(last + 1, last + 1 + min(seq, first_new_block * self.ps) - pre))
            # Parts 2 and 3: one new page per page block; a partial last block sits at offsets 0 ...
            for block in range(first_new_block, div_ceil(seq, self.ps)):
                out.extend(self._slots(next(new_pages), min(self.ps, seq - block * self.ps)))
        return out

    def alloc_decode(self, seq_lens, last_loc):
        if len(last_loc) != len(seq_lens):
            raise ArgumentError(f"decode batch arrays differ in length: seqLens {len(seq_lens)}, lastLoc {len(last_loc)}")
        rows = list(zip(seq_lens, last_loc))
        for i, (seq, last) in enumerate(rows):
            if not is_int(seq) or seq < 1:
                raise ArgumentError(f"request {i}: seqLens {json.dumps(seq)} is not an integer >= 1")
            if not is_int(last):
                raise ArgumentError(f"request {i}: lastLoc {json.dumps(last)} is not an integer")
        if self.checks:
            for i, (seq, last) in enumerate(rows):
                self._check_last_loc(i, seq - 1, last, "seqLens - 1")
        # The new token's row position seq-1 opens a page exactly when it is page-aligned.
        pages = self._take(sum(1 for seq, _ in rows if (seq - 1) % self.ps == 0))
        if pages is None:
            return None
        new_pages = iter(pages)
        return [next(new_pages) * self.ps if (seq - 1) % self.ps == 0 else last + 1 for seq, last in rows]

    def free(self, indices):
        if self.checks:
            self._check_slots(indices)
        # dict.fromkeys dedupes and keeps the order met: the queue receives pages in call order.
        pages = list(dict.fromkeys(slot // self.ps for slot in indices if is_int(slot)))
        if self.checks:
            self._check_held(pages)
        self._give_back(pages)

    def free_segments(self, segments):
        prev_end = -1
        for segment in segments:
            start, length = segment["startPos"], len(segment["indices"])
            if length == 0:
                continue
            if not is_int(start) or start < 0:
                raise SegmentError(f"segment start {json.dumps(start)} is not a non-negative integer")
            # Disjointness before alignment: a seam that meets inside a page reads "shares a page".
            if prev_end >= 0 and start // self.ps <= (prev_end - 1) // self.ps:
                raise SegmentError(f"segment at {start} shares a page with the one ending at {prev_end} (page_size {self.ps})")
            if start % self.ps:
                raise SegmentError(f"segment start {start} is not page-aligned (page_size {self.ps})")
            prev_end = start + length
        # The row page structure makes the first slot of each page block its page's representative.
        blocks = [(segment["indices"], segment["startPos"], i) for segment in segments
                  for i in range(0, len(segment["indices"]), self.ps)]
        if self.checks:
            for segment in segments:
                self._check_slots(segment["indices"])
            for indices, start, i in blocks:
                self._check_block(indices, start, i)
            self._check_held([indices[i] // self.ps for indices, _, i in blocks])
        self._give_back([indices[i] // self.ps for indices, _, i in blocks if is_int(indices[i])])

    def _give_back(self, pages):
        """Held pages to the back of the queue, or into the open group. Others are skipped (checks off: undefined)."""
        for page in pages:
            if 0 <= page <= self.num_pages and self.state[page] == HELD:
                self.state[page] = FREE if self.group is None else QUEUED
                (self.queue if self.group is None else self.group).append(page)

    def group_begin(self):
        if self.group is not None:
            raise FreeGroupError("free groups cannot be nested")
        self.group = []

    def group_end(self):
        if self.group is None:
            raise FreeGroupError("freeGroupEnd without a matching freeGroupBegin")
        for page in self.group:
            self.state[page] = FREE
        self.queue.extend(self.group)
        self.group = None

    def backup(self):
        if self.group is not None:
            raise FreeGroupError("backupState inside an open free group")
        return {"kind": "fifo-python/state", "pageSize": self.ps, "numPages": self.num_pages, "queue": list(self.queue)}

    def restore(self, state):
        if not isinstance(state, dict) or state.get("kind") != "fifo-python/state":
            raise StateError(f"restoreState was given {json.dumps(state)[:80]}, which backupState did not return")
        if state.get("pageSize") != self.ps or state.get("numPages") != self.num_pages:
            raise StateError(f"restoreState: snapshot of pageSize {state.get('pageSize')} x {state.get('numPages')} pages "
                             f"does not fit pageSize {self.ps} x {self.num_pages} pages")
        pages = state.get("queue")
        if (not isinstance(pages, list) or not all(is_int(page) and 1 <= page <= self.num_pages for page in pages)
                or len(set(pages)) != len(pages)):
            raise StateError("restoreState: the snapshot's queue is not a list of distinct pages in [1, numPages]")
        if self.group is not None:
            raise FreeGroupError("restoreState inside an open free group")
        # Held pages are the ones not in the queue: no group is open at a backup.
        self.queue = deque(pages)
        self.state = bytearray([HELD]) * (self.num_pages + 1)
        self.state[0] = RESERVED
        for page in pages:
            self.state[page] = FREE

    # ---- checks (checks on) -----------------------------------------------------------------------

    def _check_slots(self, indices):
        bad = [slot for slot in indices if not is_int(slot) or not 0 <= slot < self.slot_end]
        if bad:
            raise SlotRangeError(f"slots outside [0, {self.slot_end}): {json.dumps(bad)}")

    def _check_held(self, pages):
        """Every page held, and none twice in this call; names every offender."""
        seen, bad = set(), []
        for page in pages:
            if self.state[page] != HELD or page in seen:
                bad.append(page)
            seen.add(page)
        if bad:
            raise DoubleFreeError(f"pages not currently allocated: [{', '.join(map(str, bad))}]")

    def _check_block(self, indices, start_pos, block_start):
        """The row page structure: a page block's slots are offsets 0, 1, ... of one page."""
        page = indices[block_start] // self.ps
        for i in range(block_start, min(block_start + self.ps, len(indices))):
            expect = page * self.ps + (i - block_start)
            if indices[i] != expect:
                raise SegmentError(f"segment at {start_pos}: row position {start_pos + i} holds slot {indices[i]}, "
                                   f"expected {expect} (offset {i - block_start} of page {page}): "
                                   "the row breaks its page structure")

    def _check_last_loc(self, request, held, last, held_name):
        """lastLoc is the slot of row position held-1: -1 for an empty row, else aligned and in a held page."""
        where = f"request {request}: lastLoc {last}"
        if held == 0:
            if last != -1:
                raise LastLocError(f"{where} must be -1 when {held_name} is 0")
        elif not 0 <= last < self.slot_end:
            raise LastLocError(f"{where} is outside [0, {self.slot_end}) for {held_name} {held}")
        elif (last + 1) % self.ps != held % self.ps:
            raise LastLocError(f"{where} does not fit {held_name} {held}: (lastLoc + 1) % {self.ps} = "
                               f"{(last + 1) % self.ps}, {held_name} % {self.ps} = {held % self.ps}")
        elif self.state[last // self.ps] != HELD:
            raise LastLocError(f"{where} lies in page {last // self.ps}, which is not held")


# ---- the protocol ---------------------------------------------------------------------------------

def field(request, name, kind=None):
    """A required request field, of the given JSON type when one is named."""
    if name not in request:
        raise ProtocolError(f"{request['op']} needs the field {name!r}")
    if kind is not None and not isinstance(request[name], kind):
        raise ProtocolError(f"{request['op']}: field {name!r} must be a JSON {'array' if kind is list else 'object'}")
    return request[name]


def segments_of(request):
    segments = field(request, "segments", list)
    if not all(isinstance(s, dict) and isinstance(s.get("indices"), list) and "startPos" in s for s in segments):
        raise ProtocolError('freeSegments: every segment must be {"indices": [...], "startPos": S}')
    return segments


def ok(_done=None, **fields):
    """A success reply. Ops without a result pass their call as `_done`, so it runs before the reply is built."""
    return {"ok": True, **fields}


OPS = {
    "availableSize": lambda a, r: ok(value=a.available_size()),
    "alloc": lambda a, r: ok(indices=a.alloc(field(r, "needSize"))),
    "allocExtend": lambda a, r: ok(indices=a.alloc_extend(
        field(r, "prefixLens", list), field(r, "seqLens", list), field(r, "lastLoc", list))),
    "allocDecode": lambda a, r: ok(indices=a.alloc_decode(field(r, "seqLens", list), field(r, "lastLoc", list))),
    "free": lambda a, r: ok(a.free(field(r, "indices", list))),
    "freeSegments": lambda a, r: ok(a.free_segments(segments_of(r))),
    "freeGroupBegin": lambda a, r: ok(a.group_begin()),
    "freeGroupEnd": lambda a, r: ok(a.group_end()),
    "backupState": lambda a, r: ok(state=a.backup()),
    "restoreState": lambda a, r: ok(a.restore(field(r, "state"))),
    "clear": lambda a, r: ok(a.clear()),
}


def handle(request, allocator):
    """One request: returns (reply, allocator). Raises Rejection for a call that must be refused."""
    op = request["op"]
    if op == "hello":
        if request.get("protocol") != PROTOCOL:
            # PROTOCOL.md spells this reply out: the message starts "unsupported protocol".
            return {"ok": False, "error": f"unsupported protocol {json.dumps(request.get('protocol'))}: "
                                          f"this program speaks {PROTOCOL}"}, allocator
        return ok(protocol=PROTOCOL, name=NAME), allocator
    if op == "create":
        allocator = FifoAllocator(field(request, "config", dict))  # a rejected create keeps the old one
        return ok(pageSize=allocator.ps, numPages=allocator.num_pages), allocator
    if op == "bye":
        return ok(), allocator
    if op not in OPS:
        raise ProtocolError(f"unknown op {json.dumps(op)}")
    if allocator is None:
        raise StateError(f"{op} before create: there is no allocator yet")
    return OPS[op](allocator, request), allocator


def main():
    allocator = None
    for line in sys.stdin:
        if not line.strip():
            continue
        request = None
        try:
            request = json.loads(line)
            if not isinstance(request, dict) or not isinstance(request.get("op"), str):
                raise ProtocolError('a request must be a JSON object with a string "op"')
            reply, allocator = handle(request, allocator)
        except json.JSONDecodeError as error:
            reply = {"ok": False, "error": f"ProtocolError: the line is not JSON ({error.msg})"}
        except Rejection as error:
            reply = {"ok": False, "error": f"{type(error).__name__}: {error}"}
        except Exception as error:  # our own bug: show it on stderr and answer, so the validator reports it
            traceback.print_exc(file=sys.stderr)
            reply = {"ok": False, "error": f"InternalError: {type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(reply, separators=(",", ":")) + "\n")
        sys.stdout.flush()
        if isinstance(request, dict) and request.get("op") == "bye":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
