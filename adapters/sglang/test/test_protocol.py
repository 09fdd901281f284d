"""The adapter over `kvfuzz-allocator/1`, driving the stand-in SGLang tree."""
import shutil
import unittest

import support

kHello = {"op": "hello", "protocol": "kvfuzz-allocator/1"}
kStandInArgs = ["--engine-src", str(support.kStandIn)]


def paged(checks=True, need_sort=False, size=32):
    return {"op": "create", "config": {"sizeTokens": size, "kernelPageSize": 2, "dcpSize": 2,
                                       "needSort": need_sort, "checks": checks}}


class ExchangeTest(unittest.TestCase):
    def test_the_worked_exchange_of_protocol_md_with_sglang_s_choices(self):
        status, replies, _ = support.run_adapter(kStandInArgs, [
            kHello,
            paged(),
            {"op": "alloc", "needSize": 8},
            {"op": "allocExtend", "prefixLens": [6], "seqLens": [9], "lastLoc": [9]},
            {"op": "free", "indices": [4, 5, 6, 7]},
            {"op": "alloc", "needSize": 4},
            {"op": "allocDecode", "seqLens": [10], "lastLoc": [12]},
            {"op": "availableSize"},
            {"op": "bye"},
        ])
        self.assertEqual(status, 0)
        hello, create, alloc, extend, free, again, decode, available, bye = replies
        self.assertEqual(hello["protocol"], "kvfuzz-allocator/1")
        self.assertIn("stubbed", hello)
        self.assertEqual(create, {"ok": True, "pageSize": 4, "numPages": 8})
        self.assertEqual(alloc["indices"], [4, 5, 6, 7, 8, 9, 10, 11])
        self.assertEqual(extend["indices"], [10, 11, 12])
        self.assertEqual(free, {"ok": True})
        # LIFO: the page just given back is handed out next.
        self.assertEqual(again["indices"], [4, 5, 6, 7])
        self.assertEqual(decode["indices"], [13])
        # Held: pages 1 and 2 (alloc, then page 1 again), page 3 (the extend's tail and the decode).
        self.assertEqual(available["value"], 32 - 12)
        self.assertEqual(bye, {"ok": True})

    def test_page_size_one_goes_through_the_token_allocator_alloc(self):
        _, replies, _ = support.run_adapter(kStandInArgs, [
            {"op": "create", "config": {"sizeTokens": 6, "kernelPageSize": 1, "dcpSize": 1, "needSort": False, "checks": True}},
            {"op": "allocExtend", "prefixLens": [0, 3], "seqLens": [2, 5], "lastLoc": [-1, 40]},
            {"op": "free", "indices": [1]},
            {"op": "allocDecode", "seqLens": [3, 6], "lastLoc": [2, 4]},
            {"op": "allocDecode", "seqLens": [4], "lastLoc": [5]},
        ])
        create, extend, _, decode, again = replies
        self.assertEqual(create["numPages"], 6)
        self.assertEqual(extend["indices"], [1, 2, 3, 4])
        self.assertEqual(decode["indices"], [5, 6])
        # FIFO: slot 1 comes back only once the free list runs short.
        self.assertEqual(again["indices"], [1])

    def test_sglang_s_exceptions_are_refusals_naming_where(self):
        _, replies, _ = support.run_adapter(kStandInArgs, [
            paged(checks=True),
            {"op": "alloc", "needSize": 3},
            {"op": "freeGroupBegin"},
            {"op": "freeGroupBegin"},
            {"op": "availableSize"},
        ])
        self.assertEqual(replies[1]["ok"], False)
        self.assertTrue(replies[1]["error"].startswith("AssertionError: The allocation size should be page-aligned (at paged.py:"))
        self.assertEqual(replies[3]["error"].split(" (at ")[0], "AssertionError: free groups cannot be nested")
        self.assertEqual(replies[4], {"ok": True, "value": 32})

    def test_checks_turn_on_sglang_s_debug_mode(self):
        _, replies, _ = support.run_adapter(kStandInArgs, [
            paged(checks=False), {"op": "alloc", "needSize": 6},
            paged(checks=True), {"op": "alloc", "needSize": 6},
        ])
        self.assertEqual(replies[1]["indices"], [4, 5, 6, 7])
        self.assertIs(replies[3]["ok"], False)

    def test_no_request_ends_the_process(self):
        status, replies, _ = support.run_adapter(kStandInArgs, [
            "this is not json",
            "[1, 2]",
            {"op": "nope"},
            {"op": "alloc", "needSize": 4},
            {"op": "create"},
            {"op": "create", "config": {"sizeTokens": 8, "kernelPageSize": "2", "dcpSize": 1, "needSort": False, "checks": True}},
            {"op": "create", "config": {"sizeTokens": 8, "kernelPageSize": 0, "dcpSize": 1, "needSort": False, "checks": True}},
            paged(),
            {"op": "free", "indices": [1.5]},
            {"op": "free", "indices": [10 ** 30]},
            {"op": "freeSegments", "segments": [{"indices": [4]}]},
            {"op": "restoreState", "state": {"kind": "something else"}},
            {"op": "hostAlloc", "n": 2},
            {"op": "alloc", "needSize": 1e300},
            {"op": "availableSize"},
        ])
        self.assertEqual(status, 0)
        self.assertEqual(len(replies), 15)
        errors = [r.get("error", "") for r in replies[:14]]
        self.assertTrue(errors[0].startswith("ProtocolError: the line is not JSON"))
        self.assertTrue(errors[1].startswith("ProtocolError"))
        self.assertTrue(errors[2].startswith("ProtocolError: unknown op"))
        self.assertTrue(errors[3].startswith("StateError: alloc before create"))
        self.assertTrue(errors[5].startswith("ProtocolError"))
        self.assertTrue(errors[6].startswith("ZeroDivisionError"))
        for i in (8, 9, 10):
            self.assertTrue(errors[i].startswith("ProtocolError"), errors[i])
        self.assertTrue(errors[11].startswith("StateError"))
        self.assertTrue(errors[12].startswith("StateError: hostAlloc before createHost"))
        self.assertEqual(replies[14], {"ok": True, "value": 32})

    def test_an_adapter_snapshot_restores_the_free_lists(self):
        _, replies, _ = support.run_adapter(kStandInArgs, [
            paged(need_sort=True),
            {"op": "alloc", "needSize": 8},
            {"op": "backupState"},
            {"op": "free", "indices": [4]},
            {"op": "alloc", "needSize": 24},
            {"op": "availableSize"},
        ])
        state = replies[2]["state"]
        self.assertEqual(state["kind"], "kvfuzz-sglang/adapter-snapshot")
        _, replies, _ = support.run_adapter(kStandInArgs, [
            paged(need_sort=True),
            {"op": "alloc", "needSize": 8},
            {"op": "free", "indices": [4]},
            {"op": "alloc", "needSize": 28},
            {"op": "restoreState", "state": state},
            {"op": "availableSize"},
            {"op": "alloc", "needSize": 24},
        ])
        self.assertEqual(replies[4], {"ok": True})
        self.assertEqual(replies[5]["value"], 24)
        self.assertEqual(replies[6]["indices"], list(range(12, 36)))

    def test_sglang_s_own_backup_state_is_used_when_the_version_has_it(self):
        tree = support.copy_stand_in()
        try:
            base = tree / "python/sglang/srt/mem_cache/allocator/base.py"
            base.write_text(base.read_text() + (
                "\n    def backup_state(self):\n        return (self.free_pages, self.release_pages)\n"
                "\n    def restore_state(self, state):\n        self.free_pages, self.release_pages = state\n"))
            _, replies, _ = support.run_adapter(["--engine-src", str(tree)], [
                {"op": "create", "config": {"sizeTokens": 4, "kernelPageSize": 1, "dcpSize": 1, "needSort": False, "checks": True}},
                {"op": "backupState"},
                {"op": "alloc", "needSize": 3},
                {"op": "backupState"},
                {"op": "restoreState", "state": {"handle": 1}},
                {"op": "availableSize"},
            ])
        finally:
            shutil.rmtree(tree.parent)
        first, second = replies[1], replies[3]
        self.assertEqual(first["state"], {"handle": 1})
        self.assertEqual(len(first["digest"]), 64)
        self.assertNotEqual(first["digest"], second["digest"])
        self.assertEqual(replies[5]["value"], 4)


class HostPoolTest(unittest.TestCase):
    def test_the_host_exchange_of_protocol_md(self):
        _, replies, _ = support.run_adapter(kStandInArgs, [
            {"op": "createHost", "config": {"sizeTokens": 8, "pageSize": 2, "dcpSize": 1, "checks": True}},
            {"op": "hostAlloc", "n": 4},
            {"op": "hostFree", "indices": [1, 7]},
            {"op": "hostFree", "indices": [0, 1]},
            {"op": "hostAvailableSize"},
            {"op": "hostClear"},
            {"op": "hostAvailableSize"},
        ])
        create, alloc, bad, good, available, clear, after = replies
        self.assertEqual(create, {"ok": True, "size": 10})
        self.assertEqual(alloc["indices"], [0, 1, 2, 3])
        self.assertTrue(bad["error"].startswith("AssertionError: Double-free detected: slots not currently allocated: [7]."))
        self.assertEqual(good, {"ok": True, "count": 2})
        self.assertEqual(available["value"], 8)
        self.assertEqual(clear, {"ok": True})
        self.assertEqual(after["value"], 10)

    def test_pool_host_serves_the_host_pool_only(self):
        _, replies, _ = support.run_adapter([*kStandInArgs, "--pool", "host"], [
            paged(),
            {"op": "createHost", "config": {"sizeTokens": 8, "pageSize": 2, "dcpSize": 1, "checks": True}},
        ])
        self.assertTrue(replies[0]["error"].startswith("StateError: create: this adapter was started for the host pool only"))
        self.assertEqual(replies[1], {"ok": True, "size": 10})

    def test_the_allocator_and_the_host_pool_live_side_by_side(self):
        _, replies, _ = support.run_adapter(kStandInArgs, [
            paged(),
            {"op": "createHost", "config": {"sizeTokens": 0, "pageSize": 4, "dcpSize": 1, "checks": False}},
            {"op": "alloc", "needSize": 4},
            {"op": "hostAlloc", "n": 4},
        ])
        self.assertEqual(replies[1]["size"], 4)
        self.assertEqual(replies[2]["indices"], [4, 5, 6, 7])
        self.assertEqual(replies[3]["indices"], [0, 1, 2, 3])


if __name__ == "__main__":
    unittest.main()
