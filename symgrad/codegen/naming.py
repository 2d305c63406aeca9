"""The naming pass of emission: each temporary takes the name of one
already dead (a register allocation over the names), so the arrays alive at
once are the program's widest point, not its length: a generated function
holds ``Program.max_live`` arrays of one block at most.  Short programs (up
to ``REUSE_AFTER`` statements) keep one name per value, for reading."""

from __future__ import annotations

from .program import Statement

__all__ = ["reuse_names", "REUSE_AFTER"]

# Programs longer than this reuse the names (and so the arrays) of dead values.
REUSE_AFTER = 32


def reuse_names(statements: list[Statement], kept: set[str]) -> tuple[dict[str, str], int]:
    """Give each statement the name of a temporary already dead (read for
    the last time by this very statement, or before); ``kept`` (the
    results) stay alive to the end.  Renames the statements (their trees
    are renamed when printed) and returns the renaming and the number of
    temporaries alive at once, at most.

    >>> from symgrad.codegen.program import Statement
    >>> sts = [Statement(f"t{i}", "", False, frozenset({f"t{i - 1}"} if i else ()))
    ...        for i in range(40)]
    >>> rename, live = reuse_names(sts, {"t39"})
    >>> sorted({st.name for st in sts}), live
    (['t0'], 2)
    """
    last: dict[str, int] = {}
    for i, st in enumerate(statements):
        for r in st.reads:
            last[r] = i
    end = len(statements)
    for k in kept:
        last[k] = end
    reuse = len(statements) > REUSE_AFTER
    rename: dict[str, str] = {}
    free: list[str] = []  # dead names, the latest freed on top
    live = peak = 0
    for i, st in enumerate(statements):
        peak = max(peak, live + 1)  # (a value read for the last time dies after this line)
        dying = [rename.get(r, r) for r in sorted(st.reads) if last[r] == i]
        # (sorted: the same source every time)
        free.extend(dying)
        live += 1 - len(dying)
        if st.name not in last:  # never read (cannot happen for a program's values)
            last[st.name] = i
        if reuse and free:
            rename[st.name] = free.pop()
        elif not reuse:
            free.clear()
        st.name = rename.get(st.name, st.name)
    return rename, peak
