"""The claims framework checks itself: a quote that is not in its chapter fails."""
import pytest

from claims import Claim, chapter_text


def test_quote_must_be_in_its_chapter():
    Claim("00_the_map", "The map", lambda: None).run()  # the title is there
    with pytest.raises(AssertionError, match="no longer says"):
        Claim("00_the_map", "a sentence no chapter has ever said", lambda: None).run()


def test_white_space_does_not_matter_but_words_do():
    text = chapter_text("00_the_map")
    words = text.split(" ")[40:48]
    Claim("00_the_map", "\n  ".join(words), lambda: None).run()


def test_unknown_chapter_is_named():
    with pytest.raises(FileNotFoundError, match="no_such_chapter"):
        Claim("no_such_chapter", "x", lambda: None).run()
