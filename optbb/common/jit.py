"""The decorator of every compiled kernel: Numba's ``njit``, compiling one specialisation per argument *type*.

Numba types a constant argument of a call between compiled functions as a literal (``Literal[int](0)``), and so
does a variable that still holds its first constant value (``kept = 0`` before a loop).  Plain ``numba.njit`` then
compiles the callee once more for every such value: ``f(a, 0)``, ``f(a, 1)`` and ``f(a, i)`` cost three
compilations of ``f`` in a fresh process, and each copy is optimised again inside every caller.  The dispatcher
below hands the callee plain integer types instead (the caller casts its constant), so each kernel compiles once
per combination of array and scalar types.  The generated code is the same: the caller's constant still reaches
LLVM, which propagates it when it inlines the callee.  Boolean literals are kept: a ``True``/``False`` argument
selects a specialised loop on purpose.
"""
from __future__ import annotations

from numba import types
from numba.core import config
from numba.core.registry import CPUDispatcher

__all__ = ["njit"]


def _plain(ty):
    return types.unliteral(ty) if isinstance(ty, types.IntegerLiteral) else ty


class KernelDispatcher(CPUDispatcher):
    """A CPU dispatcher whose calls from compiled code are typed with plain integers in place of literals."""

    def get_call_template(self, args, kws):
        return super().get_call_template(tuple(_plain(a) for a in args), {k: _plain(v) for k, v in kws.items()})


def njit(func=None, *, cache: bool = False, locals: dict | None = None, **options):
    """``numba.njit`` with :class:`KernelDispatcher` (``cache``, ``inline``, ``locals`` and the other options of
    ``numba.njit``; explicit signatures are not supported, every kernel compiles lazily)."""
    targetoptions = dict(options, nopython=True)
    targetoptions.setdefault("boundscheck", None)

    def wrap(f):
        if config.DISABLE_JIT:
            return f
        disp = KernelDispatcher(py_func=f, locals=locals or {}, targetoptions=targetoptions)
        if cache:
            disp.enable_caching()
        return disp

    return wrap if func is None else wrap(func)
