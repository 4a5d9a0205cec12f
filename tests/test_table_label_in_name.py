"""The board's clickable things say what they show (WCAG 2.5.3, label in name; axe-core 4.14's
``label-content-name-mismatch``): at every position of a random game of each title, each
element with role="button" has the words it shows among the words of its accessible name, in
order. Read from the drawn markup (tests/name_check.py mirrors axe's comparison), so every
element of a hundred positions is checked without a browser; the browser tests run axe itself."""

from __future__ import annotations

import pytest

from api.web.table.base import named
from tests.name_check import contains, label_in_name_problems
from tests.table_helpers import drawn_positions


@pytest.mark.parametrize("title", ["water-frame", "arkwright-card-game", "cotton-trade"])
def test_every_clickable_thing_on_the_board_says_what_it_shows(title: str) -> None:
    elements = 0
    for _, drawn in drawn_positions(title, {}, 3, 31, 100):
        assert label_in_name_problems(drawn.svg) == []
        elements += drawn.svg.count('role="button"')
    assert elements > 200, "the walk reached positions with things to click on the board"


def test_a_name_that_lacks_the_shown_words_begins_with_them() -> None:
    shape = '<rect/><text x="1">Ship 5</text> <text x="2">2</text> <text>cotton</text>'
    assert named(shape, "Rent ship 5 (carries 2 cotton)") == "Ship 5 2 cotton: Rent ship 5 (carries 2 cotton)"
    assert (
        named("<text>£4</text>", "Place your marker on the £4 space") == "Place your marker on the £4 space"
    )
    assert named("<rect/>", "Take the loan") == "Take the loan"
    assert contains("Ship 5 2 cotton: Rent ship 5", "ship 5 2 cotton")
    assert not contains("Rent ship 5 (carries 2 cotton)", "Ship 5 2 cotton"), "parentheses do not count"
    # what the check reads: the texts inside the element, a tooltip's too, elements apart
    markup = '<g role="button" aria-label="Take the loan"><text>£10</text></g>'
    assert label_in_name_problems(markup) == [("£10", "Take the loan")]
    markup = (
        '<g role="button" aria-label="£10: Take the loan"><title>Take the loan</title><text>£10</text></g>'
    )
    assert label_in_name_problems(markup) == [("Take the loan£10", "£10: Take the loan")]
    markup = '<g><title>Take the loan</title><g role="button" aria-label="£10: Take the loan"><text>£10</text></g></g>'
    assert label_in_name_problems(markup) == []
