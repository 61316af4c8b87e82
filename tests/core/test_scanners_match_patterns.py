"""The scanners that stand for upstream's regular expressions accept exactly what the
patterns do, read as Go's ``regexp`` reads them (``$`` is the end of the text; classes
are ASCII): names and label values, quantities (the parser's grammar and the CRDs'
pattern), go-yaml's float syntax, ``strconv.Atoi``'s, and the display of generated
names. Each is checked on every short string over an alphabet of the characters that
matter, and on random longer ones."""

from __future__ import annotations

import itertools
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from rolloutctl.admit.validator import go_pattern, pattern_test
from rolloutctl.core import k8s_syntax as k
from rolloutctl.core.go_strconv import atoi
from rolloutctl.core.quantity import QUANTITY_PATTERN, matches_quantity_pattern, split_quantity
from rolloutctl.core.timestamps import RFC3339_PATTERN, parse_time
from rolloutctl.kinds.kuberay.api import display
from rolloutctl.core.goyaml import GO_FLOAT_PATTERN, go_float_syntax


def _go(pattern: str) -> re.Pattern[str]:
    return re.compile(go_pattern(pattern), re.ASCII)


NAMES = [(k.dns1123_label_ok, k.DNS1123_LABEL_FMT), (k.dns1123_subdomain_ok, k.DNS1123_SUBDOMAIN_FMT),
         (k.dns1035_label_ok, k.DNS1035_LABEL_FMT), (k.qualified_name_part_ok, k.QUALIFIED_NAME_FMT),
         (k.label_value_ok, k.LABEL_VALUE_FMT)]
NAME_ALPHABET = "az09AZ-_./ \n\u0131\u0663"  # (dotless i and an Arabic-Indic digit: not ASCII)
NUMBER_ALPHABET = "019.+-eEKMGimnuk \n\u0663x_"

#: the quantity parser's grammar (quantity.go ``parseQuantityString``), as groups
QUANTITY_GRAMMAR = re.compile(r"([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+))(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)"
                              r"|[eE]([+-]?[0-9]+))?")


def _short(alphabet: str, most: int):
    for n in range(most + 1):
        for chars in itertools.product(alphabet, repeat=n):
            yield "".join(chars)


def test_name_predicates_match_upstream_patterns_on_every_short_string():
    checks = [(fn, _go(fmt)) for fn, fmt in NAMES]
    for s in _short(NAME_ALPHABET, 3):
        for fn, rx in checks:
            assert fn(s) == bool(rx.search(s)), (fn.__name__, s)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=NAME_ALPHABET, max_size=12))
def test_name_predicates_match_upstream_patterns(s):
    for fn, fmt in NAMES:
        assert fn(s) == bool(_go(fmt).search(s)), (fn.__name__, s)


def test_quantity_scanners_match_the_grammar_and_the_crd_pattern_on_every_short_string():
    crd = _go(QUANTITY_PATTERN)
    for s in _short(NUMBER_ALPHABET, 4):
        m = QUANTITY_GRAMMAR.fullmatch(s)
        assert split_quantity(s) == (m.groups() if m else None), s
        assert matches_quantity_pattern(s) == bool(crd.search(s)), s


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=NUMBER_ALPHABET, max_size=10))
def test_quantity_scanners_match_the_grammar_and_the_crd_pattern(s):
    m = QUANTITY_GRAMMAR.fullmatch(s)
    assert split_quantity(s) == (m.groups() if m else None)
    assert matches_quantity_pattern(s) == bool(_go(QUANTITY_PATTERN).search(s))


def test_a_quantity_with_a_final_newline_fails_the_crd_pattern_as_in_go():
    """Python's ``$`` would let ``1Gi\\n`` through; Go's regexp and the scanner do not."""
    assert matches_quantity_pattern("1Gi") and not matches_quantity_pattern("1Gi\n")
    assert pattern_test(QUANTITY_PATTERN)("500m") and not pattern_test(QUANTITY_PATTERN)("500m\n")
    assert not matches_quantity_pattern("\u0663")  # (Go's [0-9] is ASCII)


def test_go_float_and_atoi_syntax_on_every_short_string():
    flt = _go(GO_FLOAT_PATTERN)
    for s in _short(NUMBER_ALPHABET, 4):
        assert go_float_syntax(s) == bool(flt.search(s)), s
        whole = re.fullmatch(r"[+-]?[0-9]+", s, re.ASCII)
        assert atoi(s) == (int(s) if whole else None), s


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["-", "<random", ">", "1", "27", "x", "-<random", "<", "-<random1>"]), max_size=8))
def test_generated_names_display_as_the_pattern_rewrites_them(parts):
    name = "".join(parts)
    assert display(name) == re.sub(r"-<random[0-9]*>", "-<random>", name)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(["2024", "-", "01", "31", "T", "t", " ", ":", "59", ".", "5", "Z", "z", "+", "02:00",
                                 "\u0663", "x", "2024-01-31T10:20:30", "2024-01-31T10:20:30.25"]), max_size=9))
def test_times_parse_where_the_rfc3339_layout_matches(parts):
    v = "".join(parts)
    assert (parse_time(v) is not None) == bool(_go(RFC3339_PATTERN).search(v)), v


def test_a_time_reads_its_fraction_and_offset():
    assert parse_time("1970-01-01T00:00:01.5Z") == 1.5
    assert parse_time("1970-01-01T01:00:00+01:00") == 0.0
    assert parse_time("1970-01-01T00:00:00.Z") is None and parse_time("1970-01-01T00:00:00") is None
