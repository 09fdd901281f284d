"""Finds SGLang's memory files and imports them, real code from the tree, stubs for the rest.

Where the files come from:
- `--engine-src DIR`: an SGLang checkout (`DIR/python/sglang/...`), `DIR` being `python/` itself
  (`DIR/sglang/...`), or a partial tree with that layout holding at least `kRequiredFiles` (what a
  CPU-only CI job gets from `git sparse-checkout set python/sglang/srt/mem_cache
  python/sglang/kernels/ops/memory`);
- otherwise the installed `sglang` package (found without importing it).

How they are imported: a meta-path finder placed first serves (1) the stubs of `stubs.kStubs`,
and (2) every `sglang.*` folder of the tree as a bare package whose `__init__.py` is NOT run (the
real ones import the whole engine); the default path finder then imports the tree's real `.py`
files (`allocator/paged.py` ...) through those packages. A required file that is missing is an
error naming it.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import logging
import os
import re
import subprocess
import sys
from pathlib import Path


def _stubs():
    """The stub table, imported only once torch is known to be there (the stubs use it)."""
    from . import stubs
    return stubs

# Files the adapter imports, relative to the folder holding `sglang/`, by pool.
kRequiredFiles = {
    "allocator": (
        "sglang/srt/mem_cache/allocator/base.py",
        "sglang/srt/mem_cache/allocator/token.py",
        "sglang/srt/mem_cache/allocator/paged.py",
    ),
    "host": ("sglang/srt/mem_cache/pool_host/base.py",),
}
# Where the allocation kernels live when paged.py does not say (recent versions).
kKernelModuleDefault = "sglang.kernels.ops.memory.allocator"
# The sparse checkout a CPU-only job needs.
kSparseCheckout = "git sparse-checkout set python/sglang/srt/mem_cache python/sglang/kernels/ops/memory"
# Seconds we wait for `git rev-parse` when naming a checkout's commit.
kGitTimeoutS = 2.0
# The kernel module paged.py imports alloc_extend_kernel from.
kKernelImportPattern = re.compile(r"from\s+(sglang(?:\.\w+)+)\s+import\s*\(?[\w\s,]*?\balloc_extend_kernel\b")


class LoadError(Exception):
    """SGLang cannot be loaded. `missing` names what to get: "torch", "sglang" or files."""

    def __init__(self, message: str, missing=()):
        super().__init__(message)
        self.missing = list(missing)


class SglangTree:
    """Where SGLang's files are: `root` holds `sglang/`; `shown` is how paths are named to the user."""

    def __init__(self, root: Path, prefix: str, origin: str):
        self.root = root
        # What to put before `sglang/...` when naming a file to the user (e.g. "python/").
        self.prefix = prefix
        self.origin = origin

    def shown(self, relative: str) -> str:
        return self.prefix + relative

    def kernel_module(self) -> str:
        """The module paged.py imports its kernels from (read from its text, not executed)."""
        paged = self.root / kRequiredFiles["allocator"][2]
        try:
            match = kKernelImportPattern.search(paged.read_text(encoding="utf-8"))
        except OSError:
            match = None
        return match.group(1) if match else kKernelModuleDefault

    def required_files(self, pools) -> list:
        files = [f for pool in pools for f in kRequiredFiles[pool]]
        if "allocator" in pools:
            files.append(self.kernel_module().replace(".", "/") + ".py")
        return files

    def missing_files(self, pools) -> list:
        return [self.shown(f) for f in self.required_files(pools) if not (self.root / f).is_file()]


def find_tree(engine_src) -> SglangTree:
    """The tree named by `--engine-src`, or the installed package's.

    @throws LoadError naming "sglang" when nothing is installed and no tree is given.
    """
    if engine_src is None:
        spec = importlib.util.find_spec("sglang")
        if spec is None or not spec.submodule_search_locations:
            raise LoadError(
                f"no sglang package is installed for {sys.executable}: pip install sglang, or pass "
                f"--engine-src DIR (an SGLang checkout, or a sparse one: {kSparseCheckout})", ["sglang"])
        package = Path(list(spec.submodule_search_locations)[0])
        return SglangTree(package.parent, f"{package.parent}/", f"installed package at {package}{_installed_version()}")
    given = Path(engine_src).resolve()
    if (given / "python" / "sglang").is_dir():
        return SglangTree(given / "python", "python/", f"source tree {given}{_tree_version(given, given / 'python')}")
    if (given / "sglang").is_dir():
        return SglangTree(given, "", f"source tree {given}{_tree_version(given, given)}")
    # Neither layout: name the files as a checkout would hold them.
    return SglangTree(given / "python", "python/", f"source tree {given}")


def _installed_version() -> str:
    try:
        from importlib.metadata import version
        return f" (version {version('sglang')})"
    except Exception:  # no metadata: an editable or copied install
        return ""


def _tree_version(given: Path, root: Path) -> str:
    """"(version X, commit Y)" from `sglang/version.py` and git, each when known."""
    parts = []
    try:
        match = re.search(r"__version__\s*=\s*['\"]([^'\"]+)", (root / "sglang" / "version.py").read_text(encoding="utf-8"))
        if match:
            parts.append(f"version {match.group(1)}")
    except OSError:
        pass
    if (given / ".git").exists():
        try:
            head = subprocess.run(["git", "-C", str(given), "rev-parse", "HEAD"], capture_output=True, text=True,
                                  timeout=kGitTimeoutS, check=False).stdout.strip()
            if re.fullmatch(r"[0-9a-f]{40}", head):
                parts.append(f"commit {head}")
        except (OSError, subprocess.SubprocessError):
            pass
    return f" ({', '.join(parts)})" if parts else " (version unknown)"


class _Stubbed(importlib.abc.Loader):
    def __init__(self, build):
        self.build = build

    def create_module(self, spec):
        module = self.build()
        module.__kvfuzz_stub__ = True
        return module

    def exec_module(self, module):
        pass


class _BarePackage(importlib.abc.Loader):
    """A package of the tree without its `__init__.py` run: only its folder, for its submodules."""

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__kvfuzz_bare_package__ = True


class TreeFinder(importlib.abc.MetaPathFinder):
    """First on `sys.meta_path`: stubs, then the tree's `sglang` folders as bare packages."""

    def __init__(self, tree: SglangTree):
        self.tree = tree
        self.served = []

    def find_spec(self, fullname, path=None, target=None):
        stubs = _stubs()
        stub = stubs.kStubs.get(fullname)
        if stub is not None:
            build, only_when_missing = stub
            if not (only_when_missing and self._installed(fullname)):
                if fullname not in self.served:
                    self.served.append(fullname)
                # A stub with stubbed submodules (triton) must be a package for them to import.
                is_package = any(name.startswith(fullname + ".") for name in stubs.kStubs)
                return importlib.machinery.ModuleSpec(fullname, _Stubbed(build), is_package=is_package)
        if fullname == "sglang" or fullname.startswith("sglang."):
            folder = self.tree.root.joinpath(*fullname.split("."))
            if folder.is_dir():
                spec = importlib.machinery.ModuleSpec(fullname, _BarePackage(), is_package=True)
                spec.submodule_search_locations = [str(folder)]
                return spec
            if any(name.startswith(fullname + ".") for name in stubs.kStubs):
                # A package a sparse tree lacks, holding a stub (sglang.srt.distributed): an empty one.
                return importlib.machinery.ModuleSpec(fullname, _BarePackage(), is_package=True)
        return None

    def _installed(self, fullname) -> bool:
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            try:
                if finder.find_spec(fullname, None) is not None:
                    return True
            except (ImportError, ValueError):
                continue
        return False


class LoadedSglang:
    """SGLang's classes, imported from the tree. Attributes are None for a pool not loaded."""

    def __init__(self, tree: SglangTree, finder: TreeFinder, pools):
        self.tree = tree
        self.finder = finder
        self.pools = tuple(pools)
        self.token_allocator = None
        self.paged_allocator = None
        self.paged_module = None
        self.kernel_module = None
        self.host_module = None
        self.host_kv_cache = None
        # Module-level values the adapter changes, with why (listed with the stubs).
        self.patched = []

    def stubbed(self) -> list:
        stubs = _stubs()
        return [stubs.kStubReasons.get(name, name) for name in self.finder.served] + self.patched

    def describe(self) -> str:
        return f"{self.tree.origin}"


def require_torch():
    """Imports torch, or raises LoadError naming it and how to get it."""
    try:
        import torch  # noqa: F401
    except ImportError as error:
        raise LoadError(
            f"torch is not importable by {sys.executable} ({error}): install Debian's python3-torch "
            "(apt-get install python3-torch), or run bash ci/setup.sh as root", ["torch"]) from None


def load(engine_src=None, pools=("allocator", "host")) -> LoadedSglang:
    """Imports SGLang's allocator and host-pool classes for `pools` from the tree or the package.

    @throws LoadError naming torch, the package or the missing files, or an import that failed.
    """
    require_torch()
    tree = find_tree(engine_src)
    missing = tree.missing_files(pools)
    if missing:
        raise LoadError(
            f"the SGLang {tree.origin} lacks {', '.join(missing)}: use an SGLang checkout, or a sparse "
            f"one holding python/sglang/srt/mem_cache and python/sglang/kernels/ops/memory ({kSparseCheckout})",
            missing)
    stubs = _stubs()
    for name in list(sys.modules):
        always_stubbed = name in stubs.kStubs and not stubs.kStubs[name][1]
        if name == "sglang" or name.startswith("sglang.") or always_stubbed:
            raise LoadError(f"{name} is already imported in this process: the adapter loads SGLang once, first")
    stubs = _stubs()
    finder = TreeFinder(tree)
    sys.meta_path.insert(0, finder)
    # SGLang's warnings (a host pool smaller than the device pool ...) speak of a server, not of
    # the bookkeeping under test; errors still reach stderr.
    logging.getLogger("sglang").setLevel(logging.ERROR)
    loaded = LoadedSglang(tree, finder, pools)
    if "allocator" in pools:
        loaded.kernel_module = _import(tree, tree.kernel_module())
        loaded.token_allocator = _import(tree, "sglang.srt.mem_cache.allocator.token").TokenToKVPoolAllocator
        loaded.paged_module = _import(tree, "sglang.srt.mem_cache.allocator.paged")
        loaded.paged_allocator = loaded.paged_module.PagedTokenToKVPoolAllocator
    if "host" in pools:
        loaded.host_module = _import(tree, "sglang.srt.mem_cache.pool_host.base")
        loaded.host_kv_cache = loaded.host_module.HostKVCache
        if hasattr(loaded.host_module, "HICACHE_HOST_MEMORY_RESERVE_BYTES"):
            # The pool asks for 0 bytes (no KV buffer), but compares them with the machine's available
            # memory less a 10 GiB reserve, which a small CI machine does not have.
            loaded.host_module.HICACHE_HOST_MEMORY_RESERVE_BYTES = 0
            loaded.patched.append("pool_host/base.py HICACHE_HOST_MEMORY_RESERVE_BYTES = 0: the pool allocates no KV bytes")
    return loaded


def _import(tree: SglangTree, module: str):
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        name = error.name or ""
        if name.startswith("sglang"):
            wanted = tree.shown(name.replace(".", "/") + ".py")
            raise LoadError(f"importing {module} needs {name}, which the tree lacks ({wanted}); {kSparseCheckout}",
                            [wanted]) from None
        raise LoadError(f"importing {module} needs the package {name!r}, which {sys.executable} does not have",
                        [name]) from None
    except Exception as error:  # an import that raised: name the file and the error
        raise LoadError(f"importing {module} from {tree.origin} failed: {type(error).__name__}: {error}") from None


def forget_imports():
    """Drops the loaded SGLang, stub and finder state (tests load several trees in one process)."""
    for finder in [f for f in sys.meta_path if isinstance(f, TreeFinder)]:
        sys.meta_path.remove(finder)
    for name, module in list(sys.modules.items()):
        try:
            is_stub = getattr(module, "__kvfuzz_stub__", False) is True
        except Exception:  # a module object whose attribute lookup itself fails is not ours
            is_stub = False
        if name == "sglang" or name.startswith("sglang.") or is_stub:
            del sys.modules[name]
    os.environ.pop("SGLANG_DEBUG_MEMORY_POOL", None)
