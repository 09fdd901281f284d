"""sglang_adapter/cpu_triton.py: the CPU stand-in for Triton that runs SGLang's kernels."""
import random
import unittest

import support  # noqa: F401  (puts the adapter on sys.path)
import torch

from sglang_adapter import cpu_triton as ct
from sglang_adapter import tree_loader


tl = ct.language_module()


@ct.jit
def copy_kernel(src_ptr, dst_ptr, n, block: tl.constexpr):
    offsets = tl.program_id(0) * block + tl.arange(0, block)
    tl.store(dst_ptr + offsets, tl.load(src_ptr + offsets, mask=offsets < n, other=-1), mask=offsets < n)


@ct.jit(do_not_specialize=["src_ptr"])
def read_past_end_kernel(src_ptr, dst_ptr, count):
    offsets = tl.arange(0, 8)
    tl.store(dst_ptr + offsets, tl.load(src_ptr + offsets), mask=offsets < count)


@ct.jit
def long_loop_kernel(bound_ptr, dst_ptr):
    for i in range(tl.load(bound_ptr + 0)):
        tl.store(dst_ptr + 0, i)


@ct.jit
def store_past_end_kernel(dst_ptr):
    tl.store(dst_ptr + tl.arange(0, 4), tl.arange(0, 4))


class LoadStoreTest(unittest.TestCase):
    def test_grid_programs_each_copy_their_block(self):
        src = torch.arange(10, dtype=torch.int64) * 3
        dst = torch.full((10,), -9, dtype=torch.int64)
        copy_kernel[(3,)](src, dst, 10, 4)
        self.assertEqual(dst.tolist(), src.tolist())

    def test_masked_lanes_read_other_and_are_not_stored(self):
        src = torch.arange(3, dtype=torch.int64)
        dst = torch.full((3,), -9, dtype=torch.int64)
        copy_kernel[(1,)](src, dst, 2, 4)
        self.assertEqual(dst.tolist(), [0, 1, -9])
        self.assertEqual(ct.launch_report.loads_out_of_bounds, 0)

    def test_loads_past_the_end_are_distinct_out_of_pool_values_and_counted(self):
        src = torch.tensor([7, 8], dtype=torch.int64)
        dst = torch.zeros(8, dtype=torch.int64)
        read_past_end_kernel[(1,)](src, dst, 4)
        self.assertEqual(dst[:4].tolist(), [7, 8, ct.kOutOfBoundsBase + 2, ct.kOutOfBoundsBase + 3])
        self.assertEqual(ct.launch_report.loads_out_of_bounds, 6)

    def test_stores_past_the_end_are_dropped_and_counted(self):
        dst = torch.zeros(2, dtype=torch.int64)
        store_past_end_kernel[(1,)](dst)
        self.assertEqual(dst.tolist(), [0, 1])
        self.assertEqual(ct.launch_report.stores_dropped, 2)

    def test_a_loop_bound_read_past_an_array_is_refused_not_run(self):
        dst = torch.zeros(1, dtype=torch.int64)
        long_loop_kernel[(1,)](torch.tensor([3]), dst)
        self.assertEqual(dst.tolist(), [2])
        with self.assertRaisesRegex(RuntimeError, "exceeds the CPU Triton's limit"):
            long_loop_kernel[(1,)](torch.tensor([ct.kLoopIterationsMax + 1]), dst)

    def test_a_cpu_path_replaces_the_body_and_gets_the_arguments_by_name(self):
        seen = {}
        copy_kernel.cpu_path = lambda **kwargs: seen.update(kwargs)
        try:
            copy_kernel[(1,)](torch.zeros(1), torch.zeros(1), 1, 4)
        finally:
            copy_kernel.cpu_path = None
        self.assertEqual(sorted(seen), ["block", "dst_ptr", "n", "src_ptr"])

    def test_helpers(self):
        self.assertEqual([ct.next_power_of_2(n) for n in (0, 1, 2, 3, 9)], [1, 1, 2, 4, 16])
        self.assertEqual(ct.cdiv(9, 4), 3)


class StandInKernelsTest(unittest.TestCase):
    """The stand-in's kernels (interpreted) agree with its alloc_extend_naive and with the decode rule."""

    @classmethod
    def setUpClass(cls):
        tree_loader.forget_imports()
        cls.loaded = tree_loader.load(str(support.kStandIn), ("allocator",))

    @classmethod
    def tearDownClass(cls):
        tree_loader.forget_imports()

    def test_extend_kernel_matches_naive_on_random_batches(self):
        kernels, naive = self.loaded.kernel_module, self.loaded.paged_module.alloc_extend_naive
        rng = random.Random(5)
        for _ in range(300):
            ps = rng.choice([2, 3, 4, 8, 64])
            batch = rng.randint(0, 6)
            pre = [rng.randint(0, 100) for _ in range(batch)]
            seq = [p + rng.randint(0, 90) for p in pre]
            last = [rng.randint(0, 40) * ps + (p - 1) % ps if p else -1 for p in pre]
            need = sum(-(-s // ps) - -(-p // ps) for p, s in zip(pre, seq))
            free = torch.tensor(rng.sample(range(1, 4000), need), dtype=torch.int64)
            args = [torch.tensor(x, dtype=torch.int64) for x in (pre, seq, last)]
            expect = torch.full((sum(seq) - sum(pre),), -1, dtype=torch.int64)
            got = expect.clone()
            naive(*args, free, expect, ps, "cpu")
            kernels.alloc_extend_kernel[(batch,)](*args, free, got, ct.next_power_of_2(batch), ps)
            self.assertEqual(got.tolist(), expect.tolist(), (ps, pre, seq))
            self.assertEqual(ct.launch_report.loads_out_of_bounds, 0)

    def test_decode_kernel_opens_a_page_exactly_when_seq_mod_page_is_one(self):
        kernels = self.loaded.kernel_module
        seq = torch.tensor([5, 6, 9, 12, 13])
        last = torch.tensor([3, 20, 7, 26, 43])
        out = torch.zeros(5, dtype=torch.int64)
        kernels.alloc_decode_kernel[(5,)](seq, last, torch.tensor([7, 9, 11]), out, 8, 4)
        self.assertEqual(out.tolist(), [28, 21, 36, 27, 44])


if __name__ == "__main__":
    unittest.main()
