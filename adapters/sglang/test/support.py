"""Shared paths and helpers of the adapter's Python tests (plain unittest)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

kAdapterDir = Path(__file__).resolve().parents[1]
kStandIn = kAdapterDir / "test" / "stand-in"
kScript = kAdapterDir / "kvfuzz_sglang.py"
# The interpreter the adapter runs with in tests: Debian's, where python3-torch lives.
kPython = os.environ.get("KVFUZZ_PYTHON") or ("/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable)
# Seconds a subprocess of the adapter may take (it imports torch).
kSubprocessTimeoutS = 120

if str(kAdapterDir) not in sys.path:
    sys.path.insert(0, str(kAdapterDir))


def copy_stand_in() -> Path:
    """A throw-away copy of the stand-in tree (the caller removes it with shutil.rmtree)."""
    target = Path(tempfile.mkdtemp(prefix="kvfuzz-sglang-stand-in-"))
    shutil.copytree(kStandIn, target / "tree")
    return target / "tree"


def run_adapter(args, lines=(), env=None):
    """Runs the adapter with `args`, feeding `lines` (dicts or raw strings); returns (status, replies, stderr)."""
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    done = subprocess.run([kPython, str(kScript), *args], input=text, capture_output=True, text=True,
                          timeout=kSubprocessTimeoutS, env={**os.environ, **(env or {})}, check=False)
    replies = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return done.returncode, replies, done.stderr
