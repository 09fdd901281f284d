"""`kvfuzz_sglang.py --check`: the one JSON line the CLI reads before starting the adapter."""
import shutil
import tempfile
import unittest
from pathlib import Path

import support


class CheckTest(unittest.TestCase):
    def test_a_complete_tree_passes_with_exactly_the_documented_fields(self):
        status, replies, _ = support.run_adapter(["--engine-src", str(support.kStandIn), "--check"])
        self.assertEqual(status, 0)
        self.assertEqual(len(replies), 1)
        answer = replies[0]
        self.assertEqual(set(answer), {"ok", "sglang", "torch", "python", "stubbed"})
        self.assertIs(answer["ok"], True)
        self.assertIn(str(support.kStandIn), answer["sglang"])
        self.assertTrue(answer["python"].startswith(support.kPython))
        self.assertTrue(any(s.startswith("triton:") for s in answer["stubbed"]))

    def test_a_missing_file_fails_naming_it(self):
        tree = support.copy_stand_in()
        try:
            (tree / "python/sglang/srt/mem_cache/allocator/paged.py").unlink()
            status, replies, _ = support.run_adapter(["--engine-src", str(tree), "--check"])
            self.assertEqual(status, 1)
            self.assertEqual(set(replies[0]), {"ok", "missing", "error"})
            self.assertIs(replies[0]["ok"], False)
            self.assertIn("python/sglang/srt/mem_cache/allocator/paged.py", replies[0]["missing"])
            self.assertIn("git sparse-checkout set python/sglang/srt/mem_cache", replies[0]["error"])
        finally:
            shutil.rmtree(tree.parent)

    def test_pool_narrows_what_is_required(self):
        tree = support.copy_stand_in()
        try:
            shutil.rmtree(tree / "python/sglang/srt/mem_cache/pool_host")
            status, _, _ = support.run_adapter(["--engine-src", str(tree), "--check"])
            self.assertEqual(status, 1)
            status, replies, _ = support.run_adapter(["--engine-src", str(tree), "--check", "--pool", "allocator"])
            self.assertEqual(status, 0, replies)
        finally:
            shutil.rmtree(tree.parent)

    def test_missing_torch_is_named_with_how_to_get_it(self):
        shadow = Path(tempfile.mkdtemp(prefix="kvfuzz-no-torch-"))
        try:
            (shadow / "torch").mkdir()
            (shadow / "torch" / "__init__.py").write_text("raise ImportError('No module named torch (test)')\n")
            status, replies, _ = support.run_adapter(["--engine-src", str(support.kStandIn), "--check"],
                                                     env={"PYTHONPATH": str(shadow)})
            self.assertEqual(status, 1)
            self.assertEqual(replies[0]["missing"], ["torch"])
            self.assertIn("apt-get install python3-torch", replies[0]["error"])
            self.assertIn("ci/setup.sh", replies[0]["error"])
        finally:
            shutil.rmtree(shadow)

    def test_a_missing_folder_names_the_checkout_files(self):
        status, replies, _ = support.run_adapter(["--engine-src", "/nonexistent/sglang", "--check"])
        self.assertEqual(status, 1)
        self.assertIn("python/sglang/srt/mem_cache/pool_host/base.py", replies[0]["missing"])


if __name__ == "__main__":
    unittest.main()
