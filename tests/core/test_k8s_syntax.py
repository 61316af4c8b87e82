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
