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


# ----------------------------------------------------------------------------- canonical form against a rational reference

_NANO = Fraction(1, 10**9)
_REF_SUFFIX = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}


def _reference_canonical(number: str, suffix: str, exponent: int | None) -> str:
    """quantity.go's ``String`` worked out in rationals: the exact value rounded up to
    nano-units, printed in the format the suffix gives (binary SI below 1024 or not
    whole falls back to decimal SI), mantissa and a power of 1000."""
    amount = Fraction(number) * (Fraction(10) ** exponent if exponent is not None else SUFFIXES[suffix])
    nanos = amount / _NANO
    whole = nanos.numerator // nanos.denominator
    amount = Fraction(whole + (whole != nanos)) * _NANO
    if amount == 0:
        return "0"
    sign, amount = ("-" if amount < 0 else ""), abs(amount)
    fmt = "DecimalExponent" if exponent is not None else "BinarySI" if suffix.endswith("i") else "DecimalSI"
    if fmt == "BinarySI" and amount >= 1024 and amount.denominator == 1:
        n, e = int(amount), 0
        while n % 1024 == 0 and e < 6:
            n, e = n // 1024, e + 1
        return f"{sign}{n}{['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'][e]}"
    exp = 0
    while amount.denominator != 1:
        amount, exp = amount * 10, exp - 1
    n = int(amount)
    while n and n % 10 == 0:
        n, exp = n // 10, exp + 1
    while exp % 3:
        n, exp = n * 10, exp - 1
    if fmt != "DecimalExponent" and exp in _REF_SUFFIX:
        return f"{sign}{n}{_REF_SUFFIX[exp]}"
    return f"{sign}{n}" + (f"e{exp}" if exp else "")


_numbers = st.builds(lambda sign, whole, frac: f"{sign}{whole}{frac}", st.sampled_from(["", "+", "-"]),
                     st.sampled_from(["", "0", "1", "7", "12", "1024", "999999", "000123"]) | st.integers(0, 10**20).map(str),
                     st.sampled_from(["", "."]) | st.integers(0, 10**12).map(lambda f: f".{f}")
                     | st.from_regex(r"\.0{0,12}[0-9]{1,3}", fullmatch=True)).filter(
    lambda s: any(c.isdigit() for c in s))


@given(_numbers, st.sampled_from(sorted(SUFFIXES)), st.none() | st.integers(-30, 30))
def test_canonical_form_is_exact(number, suffix, exponent):
    """``2``, ``"2000m"``, ``"1.5Ki"``, ``"-3e-12"``, ...: the canonical spelling the
    API server stores is the exact value's, for any digits, suffix or exponent."""
    from rolloutctl.core.quantity import canonical_quantity

    text = number + (f"e{exponent}" if exponent is not None else suffix)
    assert canonical_quantity(text) == _reference_canonical(number, suffix, exponent)


@given(_numbers, st.sampled_from(sorted(SUFFIXES)), st.none() | st.integers(-30, 30))
def test_milli_units_are_exact(number, suffix, exponent):
    """Any digits, suffix or exponent: milli-units rounded up, and a negative quantity refused."""
    from rolloutctl.core.quantity import QuantityError

    text = number + (f"e{exponent}" if exponent is not None else suffix)
    milli = Fraction(number) * (Fraction(10) ** exponent if exponent is not None else SUFFIXES[suffix]) * 1000
    if milli < 0:
        try:
            parse_quantity(text)
        except QuantityError:
            return
        raise AssertionError(f"{text!r} accepted")
    n = int(milli)
    assert parse_quantity(text) == (n if n == milli else n + 1)


def test_extreme_exponents_are_answered_without_computing_the_power():
    """``1e-999999999`` is one nano-unit (rounded up, as upstream rounds to nano), a
    negative one rounds to zero; an exponent that does not fit 32 bits is not a quantity
    (``quantitySuffixer.interpret``); values beyond 10**4000 and numbers of more than
    4000 digits are refused as out of range. Each answers at once instead of building
    a number of a billion digits."""
    from rolloutctl.core.quantity import QuantityError, canonical_quantity

    assert canonical_quantity("1e-999999999") == "1e-9" and parse_quantity("1e-999999999") == 1
    assert canonical_quantity("-1e-999999999") == "0"
    assert canonical_quantity("5e-2147483648") == "1e-9"
    for text, message in (("1e2147483648", "does not fit 32 bits"), ("1e-2147483649", "does not fit 32 bits"),
                          ("1e" + "9" * 5000, "does not fit 32 bits"), ("1e999999999", "out of range"),
                          ("1" + "0" * 5000, "out of range"), ("1" + "0" * 5000 + "m", "out of range")):
        for f in (canonical_quantity, parse_quantity):
            try:
                f(text)
            except QuantityError as exc:
                assert message in str(exc), (text[:20], exc)
            else:
                raise AssertionError(f"{text[:20]!r} accepted by {f.__name__}")


@given(st.integers(0, 10**19) | st.sampled_from([1, 999, 1000, 1023, 1024, 2048, 3000, 10**18 - 1]),
       st.sampled_from(sorted(SUFFIXES)), st.booleans())
def test_already_canonical_quantities_print_as_written_and_others_exactly(number, suffix, as_int):
    """The short cut for what manifests mostly hold (``"500m"``, ``"2Gi"``, ``cpu: 3``)
    gives what the exact arithmetic gives, and so does everything it passes on
    (``"1000m"``, ``"1024Mi"``, ``1000``, leading zeros)."""
    from rolloutctl.core.quantity import _exact_canonical, canonical_quantity

    value = number if as_int else f"{number}{suffix}"
    assert canonical_quantity(value) == _exact_canonical(value)
    assert canonical_quantity(f"0{value}") == _exact_canonical(f"0{value}")


@given(st.integers(1, 10**6), st.sampled_from(["k", "M", "G", "T", "Ki", "Mi", "Gi", "Ti"]),
       st.integers(1, 10**6), st.sampled_from(["k", "M", "G", "T", "Ki", "Mi", "Gi", "Ti"]))
def test_a_memory_total_is_printed_in_its_shortest_exact_spelling(a, sa, b, sb):
    """Peak memory in a plan's summary: 8G + 12G is ``20G`` (not ``19531250Ki``), 8Gi +
    12Gi is ``20Gi``; whatever the spelling, it parses back to the same amount and no
    spelling of the amount in one suffix is shorter."""
    from rolloutctl.core.quantity import format_quantity

    total = parse_quantity(f"{a}{sa}") + parse_quantity(f"{b}{sb}")
    shown = format_quantity(total, "memory")
    assert parse_quantity(shown) == total
    units = total // 1000
    spellings = [str(units)] + [f"{units // m}{s}" for s, m in (("k", 10**3), ("M", 10**6), ("G", 10**9), ("T", 10**12),
                                                               ("P", 10**15), ("E", 10**18), ("Ki", 2**10), ("Mi", 2**20),
                                                               ("Gi", 2**30), ("Ti", 2**40), ("Pi", 2**50), ("Ei", 2**60))
                                if units % m == 0]
    assert len(shown) == min(len(x) for x in spellings)
