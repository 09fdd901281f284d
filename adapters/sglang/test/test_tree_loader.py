"""sglang_adapter/tree_loader.py: where SGLang's files come from and what is stubbed around them."""
import shutil
import sys
import unittest
from pathlib import Path

import support

from sglang_adapter import tree_loader


class LoaderTest(unittest.TestCase):
    def setUp(self):
        tree_loader.forget_imports()

    def tearDown(self):
        tree_loader.forget_imports()

    def test_a_checkout_layout_loads_both_pools_from_the_tree(self):
        loaded = tree_loader.load(str(support.kStandIn))
        self.assertEqual(loaded.paged_allocator.__name__, "PagedTokenToKVPoolAllocator")
        self.assertEqual(loaded.token_allocator.__name__, "TokenToKVPoolAllocator")
        self.assertEqual(loaded.host_kv_cache.__name__, "HostKVCache")
        paged_file = Path(sys.modules["sglang.srt.mem_cache.allocator.paged"].__file__)
        self.assertEqual(paged_file, support.kStandIn / "python/sglang/srt/mem_cache/allocator/paged.py")
        self.assertIn("version 0.0.0+kvfuzz-stand-in", loaded.describe())

    def test_the_python_folder_itself_is_accepted(self):
        loaded = tree_loader.load(str(support.kStandIn / "python"), ("allocator",))
        self.assertIsNotNone(loaded.paged_allocator)
        self.assertIsNone(loaded.host_kv_cache)

    def test_package_init_files_are_not_run(self):
        # The stand-in's sglang/__init__.py raises if it runs.
        tree_loader.load(str(support.kStandIn))
        self.assertTrue(sys.modules["sglang"].__kvfuzz_bare_package__)

    def test_stubs_are_served_and_listed(self):
        loaded = tree_loader.load(str(support.kStandIn))
        served = loaded.finder.served
        for name in ("triton", "triton.language", "sglang.srt.utils", "sglang.srt.mem_cache.memory_pool",
                     "sglang.srt.mem_cache.pool_host.common"):
            self.assertIn(name, served)
        self.assertNotIn("sglang.srt.environ", served)  # not imported by these files: not listed
        self.assertTrue(any("HICACHE_HOST_MEMORY_RESERVE_BYTES" in s for s in loaded.stubbed()))
        self.assertEqual(sys.modules["triton"].__version__, "0.0+kvfuzz-cpu")

    def test_a_missing_required_file_is_named(self):
        tree = support.copy_stand_in()
        try:
            (tree / "python/sglang/kernels/ops/memory/allocator.py").unlink()
            with self.assertRaises(tree_loader.LoadError) as caught:
                tree_loader.load(str(tree))
            self.assertEqual(caught.exception.missing, ["python/sglang/kernels/ops/memory/allocator.py"])
            self.assertIn("sparse-checkout", str(caught.exception))
        finally:
            shutil.rmtree(tree.parent)

    def test_only_the_asked_pools_files_are_required(self):
        tree = support.copy_stand_in()
        try:
            shutil.rmtree(tree / "python/sglang/srt/mem_cache/pool_host")
            with self.assertRaises(tree_loader.LoadError) as caught:
                tree_loader.load(str(tree))
            self.assertEqual(caught.exception.missing, ["python/sglang/srt/mem_cache/pool_host/base.py"])
            tree_loader.forget_imports()
            self.assertIsNotNone(tree_loader.load(str(tree), ("allocator",)).paged_allocator)
        finally:
            shutil.rmtree(tree.parent)

    def test_the_kernel_module_is_read_from_paged_py(self):
        tree = support.copy_stand_in()
        try:
            paged = tree / "python/sglang/srt/mem_cache/allocator/paged.py"
            paged.write_text(paged.read_text().replace("sglang.kernels.ops.memory.allocator",
                                                       "sglang.srt.mem_cache.triton_ops.allocator"))
            with self.assertRaises(tree_loader.LoadError) as caught:
                tree_loader.load(str(tree), ("allocator",))
            self.assertEqual(caught.exception.missing, ["python/sglang/srt/mem_cache/triton_ops/allocator.py"])
        finally:
            shutil.rmtree(tree.parent)

    def test_a_tree_that_is_not_sglang_names_every_file(self):
        with self.assertRaises(tree_loader.LoadError) as caught:
            tree_loader.load(str(support.kAdapterDir / "test"))
        self.assertIn("python/sglang/srt/mem_cache/allocator/paged.py", caught.exception.missing)

    def test_without_a_tree_the_installed_package_is_used_or_named_missing(self):
        try:
            loaded = tree_loader.load(None, ("allocator",))
        except tree_loader.LoadError as error:
            self.assertIn("sglang", error.missing[0])
        else:
            self.assertIn("installed package", loaded.describe())


if __name__ == "__main__":
    unittest.main()
