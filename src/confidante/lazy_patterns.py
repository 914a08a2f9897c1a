"""Patterns compiled when first used.

The detectors hold a few hundred regular expressions. Compiling them all when the package is
imported cost a short-lived process (a CLI `remember`, a hook) about half a second before it
checked one sentence, most of it for patterns whose cheap gates never let that sentence
through. A pattern made by `compile_on_use` compiles on its first call, then puts the compiled
pattern's own methods in its place, so later calls cost what `re` costs.
"""

from __future__ import annotations

import re
from typing import Any, cast

_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split")


class _OnUse:
    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern
        self._flags = flags

    def _compiled(self) -> re.Pattern[str]:
        compiled = re.compile(self.pattern, self._flags)
        for name in _METHODS:  # instance attributes: found before the methods below
            setattr(self, name, getattr(compiled, name))
        return compiled

    def search(self, *args: Any) -> Any:
        return self._compiled().search(*args)

    def match(self, *args: Any) -> Any:
        return self._compiled().match(*args)

    def fullmatch(self, *args: Any) -> Any:
        return self._compiled().fullmatch(*args)

    def finditer(self, *args: Any) -> Any:
        return self._compiled().finditer(*args)

    def findall(self, *args: Any) -> Any:
        return self._compiled().findall(*args)

    def sub(self, *args: Any, **kwargs: Any) -> Any:
        return self._compiled().sub(*args, **kwargs)

    def subn(self, *args: Any, **kwargs: Any) -> Any:
        return self._compiled().subn(*args, **kwargs)

    def split(self, *args: Any, **kwargs: Any) -> Any:
        return self._compiled().split(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:  # flags, groups, groupindex
        return getattr(self._compiled(), name)


def compile_on_use(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """A pattern that behaves as `re.compile(pattern, flags)` and compiles on first use."""
    return cast(re.Pattern[str], _OnUse(pattern, flags))
