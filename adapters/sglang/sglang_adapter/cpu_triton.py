"""A CPU stand-in for the `triton` package, so that SGLang's allocation kernels run on torch CPU.

SGLang's paged allocator launches Triton kernels (`alloc_extend_kernel[(bs,)](...)`). Triton is
not installed here and cannot launch on CPU tensors anyway, so the loader serves this module as
`triton` and `triton.language`. A kernel decorated with `@triton.jit` becomes a `CpuKernel`; a
launch either goes to a CPU path the adapter registered for that kernel (`cpu_path`, e.g.
SGLang's own `alloc_extend_naive`) or runs the kernel's own Python body once per program id,
with the `triton.language` operations below done by torch.

How the emulation models the GPU where it is undefined:
- A load past either end of a tensor (a kernel reading past the free list when the pool is short,
  or past a batch array shorter than the grid) returns `kOutOfBoundsBase + offset`: distinct
  values no pool holds, so an output built from them is recognisable and never collides with a
  real page. Each such read is counted in `launch_report`.
- A store past either end is dropped and counted (a GPU would corrupt memory or fault).
- A masked-off lane of a load reads `other`, or 0 without it (what Triton's code generation does).
- Integer `//` and `%` follow Python's floor rules (torch's); Triton truncates toward zero. They
  differ only for negative operands, which valid traffic never produces.
- A `range` loop in a kernel runs at most `kLoopIterationsMax` times; past that the launch raises
  RuntimeError (a GPU would spin on such a bound, read from past an array's end).
"""
from __future__ import annotations

import inspect
import itertools
import types

import torch

# Out-of-bounds loads return this plus the offset read: far above any slot (kvfuzz slots are
# int32) yet exact in int64 after a multiplication by any page size up to 2^20.
kOutOfBoundsBase = 1 << 40
# int32 tensors cannot hold kOutOfBoundsBase; their out-of-bounds loads use this base instead.
kOutOfBoundsBaseInt32 = 1 << 30
# Grids beyond three dimensions do not exist in Triton.
kGridDimsMax = 3
# Iterations one `range` loop of an interpreted kernel may run. A loop bound computed from a value
# read past the end of an array (kOutOfBoundsBase) would otherwise run for ages; SGLang's extend
# kernel loops once per 4096 tokens, so this allows extends of 2^28 tokens.
kLoopIterationsMax = 1 << 16


class Pointer:
    """A tensor argument inside a kernel: the tensor and an element offset (an int or a tensor)."""

    __slots__ = ("tensor", "offset")

    def __init__(self, tensor: torch.Tensor, offset=0):
        self.tensor = tensor
        self.offset = offset

    def __add__(self, other):
        return Pointer(self.tensor, self.offset + other)

    __radd__ = __add__

    def __sub__(self, other):
        return Pointer(self.tensor, self.offset - other)


class LaunchReport:
    """What the last launch did outside its tensors (reset at every launch)."""

    def __init__(self):
        self.kernel = None
        self.path = None
        self.loads_out_of_bounds = 0
        self.stores_dropped = 0

    def reset(self, kernel: str, path: str):
        self.kernel, self.path = kernel, path
        self.loads_out_of_bounds = 0
        self.stores_dropped = 0


launch_report = LaunchReport()

# The program id of the running program, per grid axis (the interpreter runs one at a time).
_program = [0, 0, 0]


def _offsets_and_mask(pointer: Pointer, mask):
    if not isinstance(pointer, Pointer):
        raise TypeError(f"tl.load/tl.store expects a pointer (a tensor argument plus offsets), got {type(pointer).__name__}")
    offsets = torch.as_tensor(pointer.offset, dtype=torch.int64)
    if mask is None:
        lanes = torch.ones(offsets.shape, dtype=torch.bool)
    else:
        lanes = torch.as_tensor(mask, dtype=torch.bool).expand(offsets.shape)
    return offsets, lanes


def _out_of_bounds_values(offsets: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    base = kOutOfBoundsBaseInt32 if dtype in (torch.int32, torch.int16, torch.int8, torch.uint8) else kOutOfBoundsBase
    return (base + offsets).to(dtype)


def load(pointer, mask=None, other=None, **_hints):
    """`tl.load`: elements at the pointer's offsets; see the module comment for lanes past the tensor."""
    offsets, lanes = _offsets_and_mask(pointer, mask)
    flat = pointer.tensor.reshape(-1)
    inside = (offsets >= 0) & (offsets < flat.numel())
    values = torch.zeros(offsets.shape, dtype=flat.dtype)
    if other is not None:
        values[...] = torch.as_tensor(other, dtype=flat.dtype)
    live = lanes & inside
    values[live] = flat[offsets[live]]
    past = lanes & ~inside
    if bool(past.any()):
        launch_report.loads_out_of_bounds += int(past.sum())
        values[past] = _out_of_bounds_values(offsets[past], flat.dtype)
    return values


def store(pointer, value, mask=None, **_hints):
    """`tl.store`: writes the lanes inside the tensor; lanes past it are dropped and counted."""
    offsets, lanes = _offsets_and_mask(pointer, mask)
    target = pointer.tensor
    if not target.is_contiguous():
        raise ValueError("tl.store into a non-contiguous tensor is not emulated")
    flat = target.view(-1)
    inside = (offsets >= 0) & (offsets < flat.numel())
    values = torch.as_tensor(value).to(flat.dtype).expand(offsets.shape)
    keep = lanes & inside
    flat[offsets[keep]] = values[keep]
    launch_report.stores_dropped += int((lanes & ~inside).sum())


def program_id(axis):
    return _program[axis]


def arange(start, end):
    return torch.arange(int(start), int(end), dtype=torch.int64)


def sum(x, axis=None, **_options):  # noqa: A001 - the name is triton.language's
    x = torch.as_tensor(x)
    return torch.sum(x) if axis is None else torch.sum(x, dim=axis)


def where(condition, x, y):
    return torch.where(torch.as_tensor(condition, dtype=torch.bool), torch.as_tensor(x), torch.as_tensor(y))


def minimum(x, y):
    return torch.minimum(torch.as_tensor(x), torch.as_tensor(y))


def maximum(x, y):
    return torch.maximum(torch.as_tensor(x), torch.as_tensor(y))


def debug_barrier():
    """One program runs at a time here: nothing to wait for."""


class constexpr:  # noqa: N801 - the name is triton.language's
    """Only an annotation here: compile-time parameters arrive as plain Python values."""

    def __init__(self, value=None):
        self.value = value


def next_power_of_2(n: int) -> int:
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def cdiv(x, y):
    return -(-x // y)


class CpuKernel:
    """A `@triton.jit` function: `kernel[grid](*args)` runs `cpu_path` or interprets the body.

    `cpu_path(**bound_arguments)` gets the launch's arguments by the kernel's parameter names.
    """

    def __init__(self, fn, options):
        self.fn = fn
        self._body = None
        self.options = options
        self.signature = inspect.signature(fn)
        self.cpu_path = None
        self.cpu_path_name = None
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self._launch(grid, args, kwargs)

    def _launch(self, grid, args, kwargs):
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        if self.cpu_path is not None:
            launch_report.reset(self.fn.__name__, self.cpu_path_name)
            self.cpu_path(**bound.arguments)
            return
        launch_report.reset(self.fn.__name__, "interpreted kernel body")
        if callable(grid):
            grid = grid(bound.arguments)
        dims = tuple(int(g) for g in (grid if isinstance(grid, (tuple, list)) else (grid,)))
        if not 1 <= len(dims) <= kGridDimsMax:
            raise ValueError(f"a grid has 1 to {kGridDimsMax} dimensions, got {dims}")
        call = {name: (Pointer(value) if isinstance(value, torch.Tensor) else value)
                for name, value in bound.arguments.items()}
        body = self._bounded_body()
        for pid in itertools.product(*(range(d) for d in dims)):
            for axis, value in enumerate(pid):
                _program[axis] = value
            body(**call)

    def _bounded_body(self):
        """The kernel function with `range` bounded (built at the first launch, when its module is complete)."""
        if self._body is None:
            name = self.fn.__name__

            def bounded_range(*args):
                loop = range(*(int(a) for a in args))
                if len(loop) > kLoopIterationsMax:
                    raise RuntimeError(f"{name}: a loop of {len(loop)} iterations exceeds the CPU Triton's limit "
                                       f"{kLoopIterationsMax} (its bound was read past the end of an array?)")
                return loop

            scope = dict(self.fn.__globals__)
            scope["range"] = bounded_range
            self._body = types.FunctionType(self.fn.__code__, scope, name, self.fn.__defaults__, self.fn.__closure__)
        return self._body


def jit(fn=None, **options):
    """`@triton.jit` and `@triton.jit(do_not_specialize=[...])` alike."""
    if fn is None:
        return lambda f: CpuKernel(f, options)
    return CpuKernel(fn, options)


def language_module() -> types.ModuleType:
    """The `triton.language` module: the operations above and torch's dtypes."""
    module = types.ModuleType("triton.language")
    module.__doc__ = "kvfuzz's CPU stand-in for triton.language (see sglang_adapter/cpu_triton.py)."
    for name in ("load", "store", "program_id", "arange", "sum", "where", "minimum", "maximum",
                 "debug_barrier", "constexpr", "cdiv"):
        setattr(module, name, globals()[name])
    for name in ("int8", "int16", "int32", "int64", "uint8", "float16", "bfloat16", "float32", "float64"):
        setattr(module, name, getattr(torch, name))
    module.int1 = torch.bool
    return module


def triton_module(language: types.ModuleType) -> types.ModuleType:
    """The `triton` module: `jit`, `next_power_of_2`, `cdiv` and `language`."""
    module = types.ModuleType("triton")
    module.__doc__ = "kvfuzz's CPU stand-in for triton (see sglang_adapter/cpu_triton.py)."
    module.__version__ = "0.0+kvfuzz-cpu"
    module.jit = jit
    module.next_power_of_2 = next_power_of_2
    module.cdiv = cdiv
    module.language = language
    return module
