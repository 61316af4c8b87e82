"""Name and key syntax as k8s.io/apimachinery/pkg/util/validation/validation.go decides it,
shared by admission (ObjectMeta), generateName prefixes and the Grove webhook rules."""

import pytest

from rolloutctl.core.k8s_syntax import is_dns1123_label, is_dns1123_subdomain, is_qualified_name, is_valid_label_value


@pytest.mark.parametrize("key", ["app", "example.com/MyName", "a.b-c_d", "k8s.io/x", "A1"])
def test_qualified_names_the_api_server_accepts(key):
    assert is_qualified_name(key) == []


def test_qualified_name_errors_accumulate_like_IsQualifiedName():
    # a bad prefix and a bad name part are both reported, as upstream appends both
    errs = is_qualified_name("Bad_Prefix/-name")
    assert any(e.startswith("prefix part ") for e in errs)
    assert any(e.startswith("name part ") for e in errs)
    assert is_qualified_name("/x") == ["prefix part must be non-empty"]
    assert is_qualified_name("a/b/c")[0].startswith("a qualified name ")
    assert is_qualified_name("x" * 64) == ["name part must be no more than 63 characters"]


def test_label_values_IsValidLabelValue():
    assert is_valid_label_value("") == []
    assert is_valid_label_value("v1.2_x-y") == []
    assert is_valid_label_value("x" * 64) == ["must be no more than 63 characters"]
    assert len(is_valid_label_value("-x")) == 1


def test_dns1123_names():
    assert is_dns1123_subdomain("my.svc-1") == []
    assert is_dns1123_subdomain("My") != []
    assert is_dns1123_label("a.b") != []
    assert is_dns1123_label("x" * 64)[0] == "must be no more than 63 characters"


# The regexes of k8s.io/apimachinery/pkg/util/validation/validation.go are Go regexps
# anchored with ^...$, where $ is the end of the text: a value with a trailing newline is
# invalid. (In Python, $ also matches before a final newline.)
@pytest.mark.parametrize("check, good", [
    (is_dns1123_label, "abc"),            # dns1123LabelFmt
    (is_dns1123_subdomain, "a.b-c"),      # dns1123SubdomainFmt
    (is_qualified_name, "example.com/My_Name"),  # qualifiedNameFmt with a subdomain prefix
    (is_valid_label_value, "v1.2_x"),     # labelValueFmt
])
@pytest.mark.parametrize("suffix", ["\n", "\r\n", "\n\n", " ", "\t"])
def test_trailing_whitespace_is_invalid_as_in_go_regexp(check, good, suffix):
    assert check(good) == []
    assert check(good + suffix) != []


def test_a_newline_in_a_qualified_name_prefix_is_reported_on_the_prefix():
    assert any(e.startswith("prefix part ") for e in is_qualified_name("example.com\n/name"))


@pytest.mark.parametrize("value, ok", [
    ("", False), ("a", True), ("a-b", True), ("-a", False), ("a-", False), ("A", False), ("a.b", False),
    ("a" * 63, True), ("a" * 64, False), ("a\n", False), ("\na", False),
])
def test_dns1123_label_table(value, ok):
    assert (is_dns1123_label(value) == []) is ok


@pytest.mark.parametrize("value, ok", [
    ("a.b", True), ("a..b", False), (".a", False), ("a.", False), ("a" * 253, True), ("a" * 254, False),
    ("a.b\n", False),
])
def test_dns1123_subdomain_table(value, ok):
    assert (is_dns1123_subdomain(value) == []) is ok


@pytest.mark.parametrize("value, ok", [
    ("", True), ("A_b.c-9", True), ("_a", False), ("a_", False), ("a" * 63, True), ("a\n", False),
])
def test_label_value_table(value, ok):
    assert (is_valid_label_value(value) == []) is ok
