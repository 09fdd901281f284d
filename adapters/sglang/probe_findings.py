#!/usr/bin/env python3
"""Replays each finding of README.md ("What kvfuzz finds in SGLang") against an SGLang tree.

    /usr/bin/python3 adapters/sglang/probe_findings.py --engine-src DIR [--extend-path kernel] [--json]

Each probe is a short exchange of `kvfuzz-allocator/1` requests sent to the adapter (in this
process) and a judgement of the replies: "confirmed" when SGLang behaves as the finding says,
"refuted" otherwise, with the replies that show it. Exit status 0 when every probe ran.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import kvfuzz_sglang  # noqa: E402

# A small paged pool: page 4 (kernel page 2 × DCP 2), 8 pages.
kPage = 4
kPaged = {"sizeTokens": 32, "kernelPageSize": 2, "dcpSize": 2, "needSort": False}


def paged(checks):
    return {"op": "create", "config": {**kPaged, "checks": checks}}


def slots_of_page(page):
    return list(range(page * kPage, (page + 1) * kPage))


class Session:
    """Requests to one adapter; every reply kept for the evidence."""

    def __init__(self, adapter):
        self.adapter = adapter
        self.log = []

    def __call__(self, **request):
        text, _ = kvfuzz_sglang.reply_for(self.adapter, json.dumps(request))
        reply = json.loads(text)
        self.log.append((request, reply))
        return reply

    def available(self):
        return self(op="availableSize")["value"]


def _ok(reply):
    return reply.get("ok") is True


def _err(reply):
    return reply.get("error", "")


# ---- the probes: (id, finding, function(session) -> (confirmed, evidence)) -------------------------

def negative_alloc(s):
    out = []
    for checks in (False, True):
        s(**paged(checks))
        reply = s(op="alloc", needSize=-4)
        out.append((checks, reply))
    confirmed = all(_ok(r) and r["indices"] is not None and len(r["indices"]) == 28 for _, r in out)
    return confirmed, "; ".join(f"checks {c}: alloc(-4) -> {len(r['indices']) if _ok(r) and r['indices'] else _err(r) or r} slots" for c, r in out)


def unaligned_alloc(s):
    s(**paged(False))
    off = s(op="alloc", needSize=6)
    s(**paged(True))
    on = s(op="alloc", needSize=6)
    confirmed = _ok(off) and len(off["indices"]) == 4 and not _ok(on) and "page-aligned" in _err(on)
    return confirmed, f"checks off: alloc(6) -> {off.get('indices')}; checks on: {_err(on)}"


def arrays_differ(s):
    s(**paged(False))
    before = s.available()
    reply = s(op="allocExtend", prefixLens=[0], seqLens=[4, 4], lastLoc=[-1])
    after = s.available()
    accepted_leak = _ok(reply) and reply["indices"] is not None and len(reply["indices"]) == 4 and before - after == 2 * kPage
    other = s(op="allocExtend", prefixLens=[0, 0], seqLens=[4], lastLoc=[-1, -1])
    evidence = (f"allocExtend(prefixLens [0], seqLens [4,4]) -> {reply.get('indices', _err(reply))}, "
                f"available {before} -> {after}; prefixLens [0,0], seqLens [4] -> {other.get('indices', _err(other))}")
    return accepted_leak, evidence


def segments_not_atomic(s):
    s(**paged(True))
    s(op="alloc", needSize=8)
    before = s.available()
    reply = s(op="freeSegments", segments=[{"indices": slots_of_page(1), "startPos": 0},
                                            {"indices": slots_of_page(2), "startPos": 2}])
    after = s.available()
    return (not _ok(reply) and after == before + kPage), f"{_err(reply)}; available {before} -> {after}"


def page_zero(s):
    s(**paged(True))
    freed = s(op="free", indices=[0, 1, 2, 3])
    everything = s(op="alloc", needSize=36)
    handed = _ok(everything) and everything["indices"] is not None and 0 in everything["indices"]
    return (_ok(freed) and handed), f"free([0..3]) -> {freed}; alloc(36) -> {everything.get('indices')}"


def group_double_free(s):
    results = []
    for kind in ("plain", "segment", "plain+segment"):
        s(**paged(True))
        s(op="alloc", needSize=4)
        s(op="freeGroupBegin")
        first = s(op="free", indices=slots_of_page(1)) if kind != "segment" else \
            s(op="freeSegments", segments=[{"indices": slots_of_page(1), "startPos": 0}])
        second = s(op="free", indices=slots_of_page(1)) if kind == "plain" else \
            s(op="freeSegments", segments=[{"indices": slots_of_page(1), "startPos": 0}])
        end = s(op="freeGroupEnd")
        results.append((kind, first, second, end, s.available()))
    plain = results[0]
    confirmed = all(_ok(r) for r in plain[1:4])
    evidence = "; ".join(f"{kind}: second give-back {'accepted' if _ok(second) else _err(second)}, group end "
                         f"{'accepted' if _ok(end) else _err(end)}, available after {avail}"
                         for kind, _, second, end, avail in results)
    return confirmed, evidence


def empty_prefix_last_loc(s):
    s(**paged(True))
    replies = [s(op="allocExtend", prefixLens=[0], seqLens=[2], lastLoc=[last]) for last in (3, 7)]
    return all(_ok(r) for r in replies), "; ".join(f"prefix 0, lastLoc {last} -> {r.get('indices', _err(r))}"
                                                  for last, r in zip((3, 7), replies))


def short_extend_null(s):
    s(**paged(True))
    s(op="alloc", needSize=28)
    reply = s(op="allocExtend", prefixLens=[0, 0, 0], seqLens=[1, 1, 4], lastLoc=[-1, -1, -1])
    return (_ok(reply) and reply["indices"] is None), f"1 page free, extend needing 3 (debug on) -> {reply}"


def naive_short_pool(s):
    import torch
    naive = getattr(s.adapter.loaded.paged_module, "alloc_extend_naive", None)
    if naive is None:
        return False, "this version has no alloc_extend_naive"
    errors = []
    for pre, seq, free in (([0], [1], []), ([0], [8], [5])):
        out = torch.empty((seq[0] - pre[0],), dtype=torch.int64)
        try:
            naive(torch.tensor(pre), torch.tensor(seq), torch.tensor([-1]), torch.tensor(free, dtype=torch.int64), out, kPage, "cpu")
            errors.append(f"prefix {pre} seq {seq} free {free}: no error")
        except Exception as error:  # what we are looking for
            errors.append(f"prefix {pre} seq {seq} free {free}: {type(error).__name__}: {str(error)[:80]}")
    return all("no error" not in e for e in errors), "; ".join(errors)


def group_end_without_begin(s):
    s(**paged(True))
    end = s(op="freeGroupEnd")
    s(op="freeGroupBegin")
    nested = s(op="freeGroupBegin")
    return (_ok(end) and not _ok(nested)), f"freeGroupEnd alone -> {end}; nested begin -> {_err(nested)}"


def double_free(s):
    s(**paged(True))
    s(op="alloc", needSize=4)
    s(op="free", indices=slots_of_page(1))
    before = s.available()
    on = s(op="free", indices=slots_of_page(1))
    after_on = s.available()
    s(**paged(False))
    s(op="alloc", needSize=4)
    s(op="free", indices=slots_of_page(1))
    off = s(op="free", indices=slots_of_page(1))
    twice = s(op="alloc", needSize=8)
    confirmed = (not _ok(on) and after_on == before + kPage and _ok(off) and _ok(twice)
                 and twice["indices"] is not None and twice["indices"][:4] == twice["indices"][4:])
    return confirmed, (f"checks on: {_err(on)}, available {before} -> {after_on}; checks off: accepted, "
                       f"then alloc(8) -> {twice.get('indices')}")


def slot_past_pool(s):
    s(**paged(True))
    past = s(op="free", indices=[36])
    neg = s(op="free", indices=[-4])
    everything = s(op="alloc", needSize=40)
    handed = everything.get("indices") or []
    return (_ok(past) and _ok(neg) and 36 in handed and -4 in handed), \
        f"free([36]) -> {past}; free([-4]) -> {neg}; alloc(40) -> {handed}"


def seq_below_prefix(s):
    s(**paged(False))
    reply = s(op="allocExtend", prefixLens=[0, 5], seqLens=[8, 3], lastLoc=[-1, 4])
    after = s.available()
    again = s(op="alloc", needSize=4)
    overlap = _ok(reply) and _ok(again) and set(again["indices"] or []) & set(reply["indices"] or [])
    return bool(overlap), f"extend -> {reply.get('indices', _err(reply))}, available {after}; alloc(4) -> {again.get('indices')}"


def create_bad_sizes(s):
    cases = [{"sizeTokens": 3, "kernelPageSize": 1, "dcpSize": 2}, {"sizeTokens": 0, "kernelPageSize": 2, "dcpSize": 1},
             {"sizeTokens": 8, "kernelPageSize": 0, "dcpSize": 1}, {"sizeTokens": 8.5, "kernelPageSize": 2, "dcpSize": 1},
             {"sizeTokens": 8, "kernelPageSize": -2, "dcpSize": 1}]
    replies = [s(op="create", config={**c, "needSort": False, "checks": True}) for c in cases]
    accepted = [c for c, r in zip(cases, replies) if _ok(r)]
    return bool(accepted), "; ".join(f"{c} -> {r if _ok(r) else _err(r)}" for c, r in zip(cases, replies))


def decode_page_zero(s):
    s(**paged(True))
    reply = s(op="allocDecode", seqLens=[2], lastLoc=[0])
    return (_ok(reply) and reply["indices"] == [1]), f"allocDecode(seq 2, lastLoc 0) -> {reply.get('indices', _err(reply))}"


def token_named_twice(s):
    s(op="create", config={"sizeTokens": 4, "kernelPageSize": 1, "dcpSize": 1, "needSort": False, "checks": True})
    s(op="alloc", needSize=2)
    freed = s(op="free", indices=[1, 1])
    avail = s.available()
    everything = s(op="alloc", needSize=4)
    zero = s(op="free", indices=[0])
    again = s(op="alloc", needSize=1)
    confirmed = _ok(freed) and avail == 4 and everything.get("indices") == [3, 4, 1, 1] and _ok(zero) and again.get("indices") == [0]
    return confirmed, (f"page 1, slots 1 and 2 held: free([1,1]) -> available {avail}; alloc(4) -> {everything.get('indices')}; "
                       f"free([0]) -> {zero}; alloc(1) -> {again.get('indices')}")


def host(size_tokens, page, dcp=1):
    return {"op": "createHost", "config": {"sizeTokens": size_tokens, "pageSize": page, "dcpSize": dcp, "checks": True}}


def host_named_twice(s):
    s(**host(8, 2))
    s(op="hostAlloc", n=10)
    freed = s(op="hostFree", indices=[2, 2])
    avail = s(op="hostAvailableSize")["value"]
    again = s(op="hostAlloc", n=2)
    return (_ok(freed) and freed["count"] == 2 and again.get("indices") == [2, 2]), \
        f"hostFree([2,2]) -> {freed}, available {avail}; hostAlloc(2) -> {again.get('indices', _err(again))}"


def host_negative_wraps(s):
    s(**host(3, 1))
    s(op="hostAlloc", n=4)
    freed = s(op="hostFree", indices=[-1])
    again = s(op="hostAlloc", n=1)
    return (_ok(freed) and again.get("indices") == [-1]), f"hostFree([-1]) -> {freed}; hostAlloc(1) -> {again.get('indices', _err(again))}"


def host_negative_alloc(s):
    s(**host(8, 2))
    reply = s(op="hostAlloc", n=-4)
    return (_ok(reply) and reply["indices"] == [0, 1, 2, 3, 4, 5]), f"hostAlloc(-4) -> {reply.get('indices', _err(reply))}"


def host_past_size(s):
    s(**host(8, 2))
    s(op="hostAlloc", n=10)
    reply = s(op="hostFree", indices=[10])
    return (not _ok(reply) and "IndexError" in _err(reply)), f"hostFree([10]) on a pool of 10 -> {_err(reply)}"


def host_bad_config(s):
    cases = [(-2, 2, 1), (2.5, 2, 1), (8, 3, 2), (8, -2, 1), (8, 0, 1)]
    replies = [s(**host(*c)) for c in cases]
    return any(_ok(r) for r in replies), "; ".join(
        f"sizeTokens {c[0]}, pageSize {c[1]}, dcpSize {c[2]} -> {r if _ok(r) else _err(r)}" for c, r in zip(cases, replies))


PROBES = [
    ("alloc-negative", "a negative alloc hands out all but k pages (debug mode too)", negative_alloc),
    ("alloc-unaligned", "a non-page-multiple alloc rounds down with checks off; debug mode asserts", unaligned_alloc),
    ("extend-arrays-differ", "extend arrays of different lengths are accepted, leaking a page", arrays_differ),
    ("segments-not-atomic", "free_segments releases earlier segments before a later one fails its check", segments_not_atomic),
    ("free-page-zero", "freeing page 0 is accepted in debug mode, and page 0 is then handed out", page_zero),
    ("group-double-free", "a double free inside a free group is accepted", group_double_free),
    ("extend-empty-prefix-lastloc", "an empty prefix's lastLoc is checked only modulo the page", empty_prefix_last_loc),
    ("extend-short-null", "a short extend in debug mode answers null here (its uniqueness assert runs first)", short_extend_null),
    ("naive-short-pool", "alloc_extend_naive raises on a short free list", naive_short_pool),
    ("group-end-alone", "free_group_end without a begin is accepted (a nested begin asserts)", group_end_without_begin),
    ("double-free", "a double free: debug mode asserts after releasing; checks off hands the page out twice", double_free),
    ("free-past-pool", "slots past the pool or negative are released and handed out (debug mode too)", slot_past_pool),
    ("extend-seq-below-prefix", "an extend with seq < prefix is accepted and a page is handed out twice", seq_below_prefix),
    ("create-bad-sizes", "create accepts sizes A2 refuses", create_bad_sizes),
    ("decode-trusts-lastloc", "decode trusts lastLoc: in page 0 it hands out slot 1", decode_page_zero),
    ("token-named-twice", "page size 1 (debug mode too): a slot named twice in one free is freed twice, and slot 0 is accepted and handed out", token_named_twice),
    ("host-named-twice", "host free of a slot named twice passes slot_used, counts twice, and alloc hands it out twice", host_named_twice),
    ("host-negative-wraps", "host free([-1]) frees the last slot, and alloc then hands out slot -1", host_negative_wraps),
    ("host-negative-alloc", "host alloc(-4) hands out all but 4 free slots", host_negative_alloc),
    ("host-past-size", "host free of a slot at size raises IndexError (refused)", host_past_size),
    ("host-bad-config", "host create accepts configurations H2 refuses", host_bad_config),
]


def run(engine_src, extend_path):
    loaded, cpu_paths = kvfuzz_sglang._load(engine_src, ("allocator", "host"), extend_path)
    adapter = kvfuzz_sglang.Adapter(loaded, None, cpu_paths)
    results = []
    for probe_id, finding, probe in PROBES:
        session = Session(adapter)
        try:
            confirmed, evidence = probe(session)
        except Exception as error:  # a probe that broke is reported, not fatal
            confirmed, evidence = False, f"probe failed: {type(error).__name__}: {error}"
        results.append({"id": probe_id, "finding": finding, "confirmed": bool(confirmed), "evidence": evidence})
    return loaded.describe(), cpu_paths, results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine-src", metavar="DIR")
    parser.add_argument("--extend-path", choices=("naive", "kernel"), default="naive")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of a table")
    args = parser.parse_args(argv)
    origin, cpu_paths, results = run(args.engine_src, args.extend_path)
    if args.json:
        print(json.dumps({"sglang": origin, "cpuPaths": cpu_paths, "probes": results}, indent=1))
        return 0
    print(f"SGLang: {origin}\nCPU paths: {cpu_paths}\n")
    for r in results:
        print(f"{'confirmed' if r['confirmed'] else 'refuted  '}  {r['id']}: {r['finding']}\n           {r['evidence']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
