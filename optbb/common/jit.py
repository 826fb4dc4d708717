"""The decorator of every compiled kernel: Numba's ``njit``, compiling one specialisation per argument *type*.

Numba types a constant argument of a call between compiled functions as a literal (``Literal[int](0)``), and so
does a variable that still holds its first constant value (``kept = 0`` before a loop).  Plain ``numba.njit`` then
compiles the callee once more for every such value: ``f(a, 0)``, ``f(a, 1)`` and ``f(a, i)`` cost three
compilations of ``f`` in a fresh process, and each copy is optimised again inside every caller.  The dispatcher
below hands the callee plain integer types instead (the caller casts its constant; an omitted integer argument
is passed as its default), so each kernel compiles once per combination of array and scalar types.  The generated
code is the same: the caller's constant still reaches LLVM, which propagates it when it inlines the callee.
Boolean literals are kept: a ``True``/``False`` argument selects a specialised loop on purpose.
"""
from __future__ import annotations

from numba import types
from numba.core import config, typing
from numba.core.registry import CPUDispatcher

__all__ = ["njit"]


def _plain(ty):
    """``int64`` for an integer literal or an omitted integer argument (its default); any other type unchanged."""
    if isinstance(ty, types.IntegerLiteral):
        return types.unliteral(ty)
    if isinstance(ty, types.Omitted) and isinstance(ty.value, int) and not isinstance(ty.value, bool):
        return types.int64
    return ty


class KernelDispatcher(CPUDispatcher):
    """A CPU dispatcher whose calls from compiled code are typed with plain integers in place of literals."""

    def get_call_template(self, args, kws):
        # Numba's Dispatcher.get_call_template, with the folded argument types made plain before compiling: a
        # caller lowers an omitted argument as its default converted to the signature's type.
        pysig, args = self._compiler.fold_argument_types(args, kws)
        args = tuple(_plain(a) for a in args)
        if self._can_compile:
            self.compile(args)
        template = typing.make_concrete_template(f"CallTemplate({self.py_func.__name__})", key=self.py_func.__name__,
                                                 signatures=self.nopython_signatures)
        return template, pysig, args, {}


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
