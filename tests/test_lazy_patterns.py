"""Patterns compiled on first use behave as `re.compile` does, compile once, and a short
process that checks one plain sentence compiles few of the detectors' patterns."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import threading

from confidante.lazy_patterns import compile_on_use


def test_a_pattern_compiled_on_use_answers_as_re_does() -> None:
    text = "PIN: 4 8 1 9, then code 7731; pin 12"
    pattern = r"(?P<noun>pin|code)\W+(?P<v>[\d ]+\d)"
    lazy, eager = compile_on_use(pattern, re.I), re.compile(pattern, re.I)
    assert lazy.pattern == pattern
    assert [m.span("v") for m in lazy.finditer(text)] == [m.span("v") for m in eager.finditer(text)]
    assert lazy.search(text, 5).group() == eager.search(text, 5).group()
    assert lazy.match(text).group("noun") == "PIN"
    assert lazy.fullmatch("code 12") is not None and lazy.fullmatch("code") is None
    assert lazy.findall(text) == eager.findall(text)
    assert lazy.sub("#", text) == eager.sub("#", text)
    assert lazy.subn("#", text) == eager.subn("#", text)
    assert lazy.split(text) == eager.split(text)
    assert lazy.groupindex == eager.groupindex and lazy.flags == eager.flags


def test_it_compiles_once_even_from_many_threads() -> None:
    lazy = compile_on_use(r"\d{4}")
    results: list[bool] = []

    def use() -> None:
        results.append(all(lazy.search(f"code {n:04d}") is not None for n in range(200)))

    threads = [threading.Thread(target=use) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [True] * 8
    # after the first use the compiled pattern's own method answers: no wrapper in between
    assert lazy.search.__self__.__class__ is re.Pattern  # type: ignore[attr-defined]


def test_checking_one_plain_sentence_compiles_few_patterns() -> None:
    """What a CLI `remember` pays: the guard on one ordinary sentence compiles only the
    patterns that sentence reaches, not the few hundred the detectors hold."""
    code = textwrap.dedent(
        """
        import re._compiler as rc
        from confidante.privacy import classify
        count = [0]
        original = rc.compile
        def counting(*args, **kwargs):
            count[0] += 1
            return original(*args, **kwargs)
        rc.compile = counting
        assert classify("we had a lovely walk by the river on sunday") == []
        print(count[0])
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    compiled = int(out.stdout.strip())
    from confidante.privacy import detectors

    held = sum(
        1
        for module in {d.find.__module__ for d in detectors.DETECTORS}
        for value in vars(sys.modules[module]).values()
        if hasattr(value, "pattern") and hasattr(value, "finditer")
    )
    assert held > 150  # the detectors hold a few hundred patterns
    assert compiled < held // 3, (compiled, held)
