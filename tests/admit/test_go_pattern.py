"""CRD ``pattern`` values are Go regexps (the API server compiles them with Go's regexp):
``$`` outside a character class is the end of the text, never before a final newline."""

import re

import pytest

from rolloutctl.admit.schema import QUANTITY_PATTERN
from rolloutctl.admit.validator import go_pattern


@pytest.mark.parametrize("pattern, text, matches", [
    (QUANTITY_PATTERN, "64Gi", True),
    (QUANTITY_PATTERN, "64Gi\n", False),
    (r"^a$", "a", True),
    (r"^a$", "a\n", False),
    (r"^[$]$", "$", True),       # a $ in a class stays a literal dollar
    (r"^[]$]x$", "$x", True),    # ] first in a class is a literal
    (r"^a\$$", "a$", True),      # an escaped $ stays a literal dollar
    (r"^a\$$", "a$\n", False),
    (r"^(a|b)$", "b\n", False),
])
def test_go_end_of_text(pattern, text, matches):
    assert bool(re.search(go_pattern(pattern), text)) is matches
