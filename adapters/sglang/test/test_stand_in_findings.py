"""The stand-in behaves as SGLang does on every finding of README.md (probe_findings.py).

The expected verdicts are what the probes gave against SGLang's real files (README.md, "What
kvfuzz finds in SGLang"): the stand-in must reproduce each, on both CPU extend paths.
"""
import unittest

import support  # noqa: F401  (puts the adapter on sys.path)

import probe_findings
from sglang_adapter import tree_loader

# Probes SGLang's code does NOT confirm, per extend path; every other probe is confirmed.
kRefutedByPath = {
    # alloc_extend_naive raises on an extend whose seq < prefix (a shape mismatch) ...
    "naive": {"extend-seq-below-prefix"},
    # ... where the kernel accepts it and a page is handed out twice.
    "kernel": set(),
}


class StandInFindingsTest(unittest.TestCase):
    def tearDown(self):
        tree_loader.forget_imports()

    def check(self, extend_path):
        tree_loader.forget_imports()
        _, _, results = probe_findings.run(str(support.kStandIn), extend_path)
        self.assertEqual(len(results), len(probe_findings.PROBES))
        for result in results:
            with self.subTest(probe=result["id"]):
                expect = result["id"] not in kRefutedByPath[extend_path]
                self.assertEqual(result["confirmed"], expect, result["evidence"])

    def test_naive_extend_path(self):
        self.check("naive")

    def test_kernel_extend_path(self):
        self.check("kernel")


if __name__ == "__main__":
    unittest.main()
