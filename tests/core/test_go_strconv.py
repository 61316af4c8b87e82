"""``core.go_strconv.atoi`` is Go's ``strconv.Atoi`` on a 64-bit platform: the cases of
Go's ``src/strconv/atoi_test.go`` (``parseInt64Tests``, base 10) and the inputs an
annotation may carry, and a property against Python's own integer parsing of ASCII.
``quote`` is ``strconv.Quote``: the valid-UTF-8 cases of ``src/strconv/quote_test.go``
(``quotetests``, its ``out`` column)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rolloutctl.core.go_strconv import atoi, quote

MAX, MIN = (1 << 63) - 1, -(1 << 63)


@pytest.mark.parametrize("text,want", [
    ("0", 0), ("-0", 0), ("+0", 0), ("1", 1), ("-1", -1), ("+1", 1), ("12345", 12345), ("-12345", -12345),
    ("012345", 12345), ("-012345", -12345), ("98765432100", 98765432100), ("-98765432100", -98765432100),
    ("9223372036854775807", MAX), ("-9223372036854775808", MIN), ("300", 300),
])
def test_go_accepts(text, want):
    assert atoi(text) == want


@pytest.mark.parametrize("text", [
    "", "-", "+", "12345x", "-12345x", "9223372036854775808", "-9223372036854775809", "1_000", "0x1f", "1e3",
    " 300", "300 ", "3 00", "\t5", "5\n", "\u0663\u0660\u0660", "\uff13", "--5", "+-5", "5.0",
])
def test_go_rejects(text):
    assert atoi(text) is None


@pytest.mark.parametrize("value", [None, 5, 5.0, True, b"5"])
def test_only_strings(value):
    assert atoi(value) is None


@given(st.integers(MIN, MAX), st.sampled_from(["", "+"]), st.integers(0, 3))
def test_int64_round_trip(n, plus, zeros):
    text = ("-" if n < 0 else plus) + "0" * zeros + str(abs(n))
    assert atoi(text) == n


@given(st.integers(MAX + 1, MAX * 4))
def test_beyond_int64_is_an_error(n):
    assert atoi(str(n)) is None and atoi(str(-n - 1)) is None


@pytest.mark.parametrize("text,want", [
    ("\a\b\f\r\n\t\v", r'"\a\b\f\r\n\t\v"'), ("\\", r'"\\"'), ("\u263a", '"\u263a"'),
    ("\U0010ffff", r'"\U0010ffff"'), ("\x04", r'"\x04"'), ("!\u00a0!\u2000!\u3000!", r'"!\u00a0!\u2000!\u3000!"'),
    ("\x7f", r'"\x7f"'),
    # and the names KubeRay's messages quote
    ("small-group", '"small-group"'), ("GPU-Group", '"GPU-Group"'), ('a "b"', r'"a \"b\""'), ("", '""'),
])
def test_quote(text, want):
    assert quote(text) == want
