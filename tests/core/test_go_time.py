"""``core.go_time.parse_duration`` is Go's ``time.ParseDuration``: what Go accepts, the
nanoseconds it returns, and what it rejects. The tables are the cases of Go's own
``src/time/time_test.go`` (``parseDurationTests``, ``parseDurationErrorTests``) plus the
inputs a manifest is likely to carry; the properties compare with exact arithmetic.
The rules that read durations (Grove's ``terminationDelay``, KubeRay's initializing
timeout) are checked through the rules themselves at the end."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from rolloutctl.core.go_time import UNITS, parse_duration, parse_duration_seconds

NS, US, MS, S, M, H = 1, 1_000, 1_000_000, 1_000_000_000, 60_000_000_000, 3_600_000_000_000
MAX, MIN = (1 << 63) - 1, -(1 << 63)


@pytest.mark.parametrize("text,want", [
    ("0", 0), ("5s", 5 * S), ("30s", 30 * S), ("1478s", 1478 * S),
    ("-5s", -5 * S), ("+5s", 5 * S), ("-0", 0), ("+0", 0),
    ("5.0s", 5 * S), ("5.6s", 5 * S + 600 * MS), ("5.s", 5 * S), (".5s", 500 * MS), ("1.0s", S), ("1.00s", S),
    ("1.004s", S + 4 * MS), ("1.0040s", S + 4 * MS), ("100.00100s", 100 * S + MS),
    ("10ns", 10 * NS), ("11us", 11 * US), ("12\u00b5s", 12 * US), ("12\u03bcs", 12 * US), ("13ms", 13 * MS),
    ("14s", 14 * S), ("15m", 15 * M), ("16h", 16 * H),
    ("3h30m", 3 * H + 30 * M), ("10.5s4m", 4 * M + 10 * S + 500 * MS), ("-2m3.4s", -(2 * M + 3 * S + 400 * MS)),
    ("1h2m3s4ms5us6ns", H + 2 * M + 3 * S + 4 * MS + 5 * US + 6 * NS), ("39h9m14.425s", 39 * H + 9 * M + 14 * S + 425 * MS),
    ("52763797000ns", 52763797000), ("0.3333333333333333333h", 20 * M), ("9007199254740993ns", (1 << 53) + 1),
    ("9223372036854775807ns", MAX), ("9223372036854775.807us", MAX), ("9223372036s854ms775us807ns", MAX),
    ("-9223372036854775808ns", MIN), ("-9223372036854775.808us", MIN), ("-9223372036s854ms775us808ns", MIN),
    ("-2562047h47m16.854775808s", MIN), ("0.100000000000000000000h", 6 * M),
    ("0.830103483285477580700h", 49 * M + 48 * S + 372539827 * NS),
    # what manifests carry: the Grove default, KubeRay's examples; 1.1m is 66 s exactly (no float error)
    ("4h", 4 * H), ("1h30m", 90 * M), ("300ms", 300 * MS), ("1.5h", 90 * M), ("1.1m", 66 * S),
])
def test_go_accepts(text, want):
    assert parse_duration(text) == want


@pytest.mark.parametrize("text", [
    "", "3", "-", "s", ".", "-.", ".s", "+.s", "1d", "\x85\x85", "\ufffd", "\ufffd hello \ufffd world",
    "9223372036854775810ns", "9223372036854775808ns", "-9223372036854775809ns", "9223372036854776us",
    "3000000h", "9223372036854ms775us808ns",
    # no trimming, no other digits, no exponent, no repeated sign, no unit without a number
    " 5m", "5m ", "5 m", "\t1h", "1h\n", "\u0665s", "\uff15s", "1e3s", "--5s", "+-5s", "5s-3s", "1.5.5s", "h5",
    "4", "1S", "1H", "1sec", "1min",
])
def test_go_rejects(text):
    assert parse_duration(text) is None and parse_duration_seconds(text) is None


@pytest.mark.parametrize("value", [None, 5, 5.0, True, b"5s", ["5s"], {"s": 5}])
def test_only_strings_are_durations(value):
    assert parse_duration(value) is None


def test_seconds():
    assert parse_duration_seconds("4h") == 14400.0
    assert parse_duration_seconds("-5s") == -5.0
    assert parse_duration_seconds("300ms") == 0.3
    assert parse_duration_seconds("0") == 0.0


_NUMBER = st.one_of(
    st.integers(0, 10**6).map(str),
    st.tuples(st.integers(0, 10**6), st.text("0123456789", max_size=12)).map(lambda t: f"{t[0]}.{t[1]}"),
    st.text("0123456789", min_size=1, max_size=12).map(lambda d: "." + d),
)
_PAIRS = st.lists(st.tuples(_NUMBER, st.sampled_from([u for u, _ in UNITS])), min_size=1, max_size=5)


def _exact(pairs) -> Fraction:
    unit = dict(UNITS)
    return sum((Fraction(n) * unit[u] for n, u in pairs), Fraction(0))


@given(_PAIRS, st.sampled_from(["", "+", "-"]))
def test_well_formed_durations_parse_to_their_value(pairs, sign):
    """Each NUMBER UNIT pair adds its value; Go truncates each fraction to whole
    nanoseconds (at most 1 ns lost per pair). Integer parts are exact."""
    text = sign + "".join(n + u for n, u in pairs)
    exact = _exact(pairs) * (-1 if sign == "-" else 1)
    assume(abs(exact) < 2**62)  # inside int64 nanoseconds (overflow: the test below)
    got = parse_duration(text)
    assert got is not None
    assert abs(Fraction(got) - exact) <= len(pairs)
    if all("." not in n for n, _ in pairs):
        assert got == exact


@given(_PAIRS, st.integers(0, 40), st.sampled_from([" ", "\t", "\n", "x", "d", "\u0665", "\uff11", "e", ",", "_"]))
def test_any_foreign_character_is_rejected(pairs, at, bad):
    """Go reads ASCII digits, one point per number and the eight units, nothing else."""
    text = "".join(n + u for n, u in pairs)
    at = min(at, len(text))
    assert parse_duration(text[:at] + bad + text[at:]) is None


@given(st.integers(0, MAX))
def test_nanoseconds_round_trip_up_to_the_int64_bound(n):
    assert parse_duration(f"{n}ns") == n
    assert parse_duration(f"-{n}ns") == -n
    assert parse_duration(f"{n + (1 << 63)}ns") is None


@given(st.integers(0, 10**7), st.sampled_from([u for u, _ in UNITS]))
def test_overflow_is_an_error_not_a_large_value(n, unit):
    value = n * dict(UNITS)[unit]
    assert parse_duration(f"{n}{unit}") == (value if value <= MAX else None)


# ----------------------------------------------------------------------------- through the rules


def _grove_rules(termination_delay: str) -> set[str]:
    from tests.lint.cases import pcs
    from tests.lint.test_grove_validation import rules

    return set(rules(pcs(template=f"terminationDelay: {termination_delay!r}")))


@pytest.mark.parametrize("delay,ok", [("30m", True), ("4h", True), ("1.5h", True), ("0s", False),
                                      ("3000000h", False), ("30 m", False), ("\u0663m", False)])
def test_grove_termination_delay_is_read_as_go_reads_it(delay, ok):
    assert ("GV023" not in _grove_rules(delay)) is ok


@pytest.mark.parametrize("timeout,ok", [("5m", True), ("300", True), ("0300", True), ("-5m", False), (" 5m", False),
                                        ("3000000h", False), ("\u0665m", False), (" 300", False), ("\u0663\u0660\u0660", False),
                                        ("9223372036854775808", False), ("0", False), ("-3", False)])
def test_kuberay_initializing_timeout_is_read_as_go_reads_it(timeout, ok):
    """``validateInitializingTimeout``: a Go duration (``time.ParseDuration``), else integer
    seconds (``strconv.Atoi``), positive; neither trims nor reads other digits."""
    from rolloutctl.kinds.kuberay.validation import validate
    from tests.kinds.kuberay.helpers import base, edit, obj

    raw = edit(base(), lambda d: d["metadata"].__setitem__("annotations", {"ray.io/initializing-timeout": timeout}))
    assert ("RS003" not in {f.rule for f in validate(obj(raw))}) is ok


@pytest.mark.parametrize("timeout,seconds", [("5m", 300.0), ("300", 300.0), ("1.5h", 5400.0), (" 300", None),
                                             ("5m ", None), ("\u0665m", None), ("", None), (None, None)])
def test_kuberay_get_initializing_timeout(timeout, seconds):
    """``getInitializingTimeout``: what the model waits for before InitializingTimeout."""
    from rolloutctl.kinds.kuberay.validation.util import parse_initializing_timeout

    assert parse_initializing_timeout(timeout) == seconds


def test_format_duration_writes_go_durations():
    """``time.Duration.String`` (Go's own examples and edge cases)."""
    from rolloutctl.core.go_time import format_duration

    cases = {0: "0s", 1: "1ns", 1100: "1.1µs", 2_200_000: "2.2ms", 3_300_000_000: "3.3s", 600 * 10**9: "10m0s",
             (4 * 60 + 5) * 10**9: "4m5s", (5 * 3600 + 6 * 60 + 7) * 10**9 + 1_000_000: "5h6m7.001s",
             3600 * 10**9: "1h0m0s", -1500 * 10**6: "-1.5s", 9_007_199_254_740_993: "2501h59m59.254740993s"}
    assert {ns: format_duration(ns) for ns in cases} == cases


def test_format_duration_reads_back():
    from hypothesis import given
    from hypothesis import strategies as st

    from rolloutctl.core.go_time import format_duration, parse_duration

    @given(st.integers(-(2**63) + 1, 2**63 - 1))
    def roundtrip(ns):
        assert parse_duration(format_duration(ns)) == ns

    roundtrip()
