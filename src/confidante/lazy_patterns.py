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

    def __getattr__(self, name: str) -> Any:
        """Only what this object lacks: on first use, compile, keep the compiled pattern's
        methods as this object's own (so they are found directly from then on), answer."""
        if name.startswith("_"):  # never compile for copy, pickle or a missing slot
            raise AttributeError(name)
        compiled = re.compile(self.pattern, self._flags)
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)


def compile_on_use(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """A pattern that behaves as `re.compile(pattern, flags)` and compiles on first use."""
    return cast(re.Pattern[str], _OnUse(pattern, flags))
