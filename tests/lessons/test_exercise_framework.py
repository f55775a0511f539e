"""The exercise framework: statuses, feedback, hints and solutions."""

import pytest
from vizgrad.lessons import exercise as ex


@pytest.fixture
def toy():
    key = "99.toy"
    ex.EXERCISES.pop(key, None)

    @ex.exercise(key, "What is 6 * 7?", hints=("multiply", "it is even"),
                 solution="answer = 42\ncheck('99.toy', answer)", explanation="6 * 7 = 42")  # fmt: skip
    def _check(answer):
        if answer != 42:
            raise ex.Wrong(f"{answer} is not 6 * 7; check your multiplication")

    yield key
    ex.EXERCISES.pop(key, None)


def test_unanswered_correct_and_wrong(toy):
    assert ex.check(toy, ...).status == "not answered yet"
    assert ex.results()[toy] == "not answered yet"
    right = ex.check(toy, 42)
    assert right.correct and "6 * 7 = 42" in right.message
    wrong = ex.check(toy, 41)
    assert not wrong.correct and "41 is not 6 * 7" in wrong.message
    assert ex.results()[toy] == "wrong"
    assert "Not yet" in wrong._repr_html_() and "✗ not yet" in repr(wrong)


def test_hints_in_order_then_solution(toy):
    assert repr(ex.hint(toy)) == "Hint 1 of 2: multiply"
    assert repr(ex.hint(toy)) == "Hint 2 of 2: it is even"
    assert repr(ex.hint(toy)) == "Hint 2 of 2: it is even"
    assert "answer = 42" in repr(ex.solution(toy))


def test_a_hint_wraps_between_words_and_a_solution_keeps_its_lines(toy):
    hint = ex.hint(toy)._repr_html_()
    assert hint.startswith('<div class="vg-lesson-text vg-lesson-hint"') and "<pre" not in hint
    assert "word-break: normal" in hint and "white-space: pre-line" in hint
    solution = ex.solution(toy)._repr_html_()
    assert solution.startswith('<pre class="vg-lesson-text vg-lesson-solution"')
    assert "white-space: pre;" in solution and "overflow-x: auto" in solution
    assert "answer = 42\ncheck(&#x27;99.toy&#x27;, answer)" in solution


def test_feedback_is_escaped(toy):
    feedback = ex.check(toy, "<img src=x onerror=alert(1)>")
    assert "<img" not in feedback._repr_html_() and "&lt;img" in feedback._repr_html_()


def test_unknown_exercise_names_the_known_ones():
    with pytest.raises(KeyError, match="no exercise named"):
        ex.check("00.nothing", 1)
