"""The functions ``lambdify`` returns: generated source, compiled, that
pickle.

A plain function made by ``exec`` cannot be pickled (``pickle`` looks it up
by name in a module, where it is not), and ``multiprocessing``,
``concurrent.futures`` and dask need to pickle it.  A
:class:`GeneratedFunction` pickles as its source, and unpickling compiles
the source again: with ``threads=1``, through ``eval`` alone, so the
loading process needs NumPy (and SciPy) but not symgrad, and gets the plain
function (with its ``source``): the pickle carries the text of
:mod:`symgrad.codegen.runtime` in place of the source's import of it;
otherwise through :func:`load` (its worker threads are then the loading
process's).  Calling it calls the generated
function directly: its class, made per function, has that function as
``__call__``.

Kernels the entry point may never call (``lambdify``'s for one point,
NumPy scalars, short batches, written in place) are written and compiled
when first called (:class:`_Later`): until then the module's name for each
is a stand-in that writes it, compiles it into the module, puts it in its
own place and calls it, under a lock (the entry point's blocks run on
threads).  The module's text grows as they are written, each kernel after
the entry point, so ``inspect.getsource`` and tracebacks read every line;
``source`` writes every kernel not yet written first: the whole module.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import linecache
import threading
from collections.abc import Callable
from types import CodeType

from ..rewrites import remainders
from . import runtime
from .pool import worker_pool
from .source import REMAINDER_IMPORT, RUNTIME_IMPORT
from .texts import shared_texts

__all__ = ["GeneratedFunction", "load"]

_counter = itertools.count()


# Evaluated on loading a serial function: run the run-time helpers (and
# Stirling's remainders where the source imports them), then its source
# without its imports of them, and return its function.
_PLAIN = (
    "exec(_runtime, _ns) or (_more in _source and exec(_more_text, _ns)) "
    "or exec(_source.replace(_import, '', 1).replace(_more, '', 1), _ns) "
    "or setattr(_ns[_name], 'source', _source) or _ns[_name]"
)


@functools.cache
def _runtime_text() -> str:
    return inspect.getsource(runtime)


@functools.cache
def _remainders_text() -> str:
    return inspect.getsource(remainders)


class GeneratedFunction:
    """A compiled function of generated source; ``source`` is the source
    (every kernel written: see the module's text), ``n_ops`` the number of
    operations, and ``inspect.getsource`` works."""

    __slots__ = ("__wrapped__", "_source", "_later", "n_ops", "threads", "__weakref__")

    @property
    def source(self) -> str:
        later = self._later
        if later is None:
            return self._source
        self._source = later.finish()
        self._later = None
        return self._source

    def __reduce__(self) -> tuple:
        if self.threads == 1:
            # serial: the source needs NumPy (and SciPy) only, so the loading
            # side needs no symgrad either; it gets the plain function
            source = self.source
            more = REMAINDER_IMPORT + "\n"
            state = {"_source": source, "_name": self.__name__, "_ns": {},
                     "_runtime": _runtime_text(), "_import": RUNTIME_IMPORT, "_more": more,
                     "_more_text": _remainders_text() if more in source else ""}
            return (eval, (_PLAIN, state))
        return (load, (self.source, self.__name__, self.threads, self.n_ops))

    def __repr__(self) -> str:
        ops = "1 operation" if self.n_ops == 1 else f"{self.n_ops} operations"
        return f"<symgrad generated function {self.__name__}, {ops}>"


# Entry points compiled, by their text (see load): at most _ENTRIES kept
_ENTRY_CODE: dict[str, CodeType] = {}
_ENTRIES = 256


def _moved(code: CodeType, filename: str, lines: int) -> CodeType:
    """``code`` (and the functions inside it) as if compiled ``lines`` lines
    further down in ``filename``: its tracebacks and ``inspect.getsource``
    then read the right lines of the whole source."""
    consts = tuple(_moved(c, filename, lines) if isinstance(c, CodeType) else c
                   for c in code.co_consts)
    return code.replace(co_filename=filename, co_firstlineno=code.co_firstlineno + lines,
                        co_consts=consts)


# The helper texts (codegen.texts.shared_texts), compiled once each
_SHARED_CODE: dict[str, CodeType] = {}


def _head(head: str, filename: str) -> list[CodeType]:
    """The module's text before its entry point, compiled in parts: each
    helper text it carries (compensated arithmetic is 465 lines: compiling
    it again for every function was most of the checker's compile time)
    from a cache, the rest (imports, kernels) anew, each part as if at its
    lines of ``filename``; run in order, they are the module."""
    cuts = []
    for text in shared_texts():
        at = head.find(text)
        if at >= 0 and (at == 0 or head[at - 1] == "\n"):
            cuts.append((at, text))
    out: list[CodeType] = []
    done = 0
    for at, text in sorted(cuts):
        if at < done:  # (overlapping texts: the rest is compiled whole)
            break
        if at > done:
            out.append(compile("\n" * head.count("\n", 0, done) + head[done:at],
                               filename, "exec"))
        code = _SHARED_CODE.get(text)
        if code is None:
            code = _SHARED_CODE[text] = compile(text, "<symgrad-helpers>", "exec")
        out.append(_moved(code, filename, head.count("\n", 0, at)))
        done = at + len(text)
    if done < len(head):
        out.append(compile("\n" * head.count("\n", 0, done) + head[done:], filename, "exec"))
    return out


def _compiled(source: str, filename: str, entry: int | None) -> list[CodeType]:
    """``source`` compiled; with ``entry`` (where the entry point's text
    begins), in parts, the entry point's taken from a cache by its
    text: many functions share one (the same arguments, outputs and type:
    the stability checker compiles a form's kernel and that entry point
    dozens of times a formula), and compiling it was a third of the cost;
    so are the helper texts (:func:`_head`)."""
    if entry is None:
        return _head(source, filename)
    head, text = source[:entry], source[entry:]
    code = _ENTRY_CODE.get(text)
    if code is None:
        if len(_ENTRY_CODE) >= _ENTRIES:
            _ENTRY_CODE.clear()
        code = _ENTRY_CODE[text] = compile(text, "<symgrad-entry>", "exec")
    return [*_head(head, filename), _moved(code, filename, head.count("\n"))]


class _Later:
    """The kernels of a generated module written and compiled when first
    called: ``makers`` maps the names a part of the text defines (a kernel,
    or a kernel and the function that runs it) to a function writing that
    part.  Each name starts as a stand-in (:meth:`stand_in`)."""

    def __init__(self, makers: dict[tuple[str, ...], Callable[[], str]], namespace: dict,
                 filename: str, text: str) -> None:
        self.makers = makers
        self.namespace = namespace
        self.filename = filename
        self.text = text
        self.lock = threading.Lock()
        for names in makers:
            for name in names:
                namespace[name] = self.stand_in(names, name)

    def stand_in(self, names: tuple[str, ...], name: str) -> Callable:
        """What the module calls ``name`` until its part is written: it
        writes the part (which puts the real function in its place) and
        calls the real function."""
        def stand_in(*args: object, **kwargs: object) -> object:
            self.make(names)
            return self.namespace[name](*args, **kwargs)
        return stand_in

    def make(self, names: tuple[str, ...]) -> None:
        """Write and compile the part defining ``names``, once (under the
        lock: another thread's call waits for it), after the text so far."""
        with self.lock:
            maker = self.makers.get(names)
            if maker is None:  # (written already, by another call)
                return
            part = maker()
            text = self.text + "\n\n"
            code = compile(part, self.filename, "exec")
            # Our own source, written from sanitized names and printed numbers only.
            exec(_moved(code, self.filename, text.count("\n")), self.namespace)  # noqa: S102
            self.text = text + part
            linecache.cache[self.filename] = (len(self.text), None,
                                              self.text.splitlines(True), self.filename)
            del self.makers[names]  # (only now: a part that failed fails again)

    def finish(self) -> str:
        """Write every part not written yet (in the order given); the whole text."""
        for names in list(self.makers):
            self.make(names)
        return self.text


def load(source: str, name: str, threads: int | None, n_ops: int,
         entry: int | None = None,
         later: dict[tuple[str, ...], Callable[[], str]] | None = None) -> GeneratedFunction:
    """Compile ``source`` (generated by symgrad) and wrap its function ``name``;
    the module's ``_pool`` gets worker threads for ``threads``.  ``entry``:
    where the entry point's text begins in ``source`` (compiled once per
    text), or None.  ``later``: the parts written when first called, by
    the names each defines (:class:`_Later`), in the order ``source``
    writes those not yet written."""
    filename = f"<symgrad-lambdify-{next(_counter)}>"
    namespace: dict = {}
    # Our own source, written from sanitized names and printed numbers only.
    for code in _compiled(source, filename, entry):
        exec(code, namespace)  # noqa: S102
    namespace["_pool"] = worker_pool(threads)  # used only when there are blocks
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    fn = namespace[name]
    cls = type(name, (GeneratedFunction,), {
        "__slots__": (), "__call__": staticmethod(fn), "__doc__": fn.__doc__,
        "__name__": name, "__module__": __name__,
    })
    out = cls()
    out.__wrapped__, out._source, out.n_ops, out.threads = fn, source, n_ops, threads
    out._later = _Later(later, namespace, filename, source) if later else None
    return out
