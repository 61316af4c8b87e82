"""Quantities are exact: a whole number with any suffix (the integer fast path) gives
the same milli-units as the exact rational computation from quantity.go's table."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from rolloutctl.core.quantity import parse_quantity

SUFFIXES = {"": 1, "m": Fraction(1, 1000), "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "k": 10**3,
            "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18, "Ki": 2**10, "Mi": 2**20,
            "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}


def _exact(number: str, suffix: str) -> int:
    milli = Fraction(number) * SUFFIXES[suffix] * 1000
    n = int(milli)
    return n if n == milli else n + 1  # rounded up, as the API server does


@given(st.integers(min_value=0, max_value=10**12), st.sampled_from(sorted(SUFFIXES)), st.booleans())
def test_whole_numbers_with_any_suffix(n, suffix, zero_padded):
    number = f"00{n}" if zero_padded else str(n)
    assert parse_quantity(number + suffix) == _exact(number, suffix)


@given(st.integers(min_value=0, max_value=10**6), st.integers(min_value=0, max_value=999),
       st.sampled_from(sorted(SUFFIXES)))
def test_decimal_numbers_with_any_suffix(whole, frac, suffix):
    number = f"{whole}.{frac:03d}"
    assert parse_quantity(number + suffix) == _exact(number, suffix)


def test_examples():
    assert parse_quantity("8Gi") == 8 * 2**30 * 1000
    assert parse_quantity("100m") == 100
    assert parse_quantity("1n") == 1  # rounded up to a milli-unit
    assert parse_quantity("5e3") == 5_000_000
    assert parse_quantity(3) == 3000
