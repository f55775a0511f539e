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


# --- multi-part answers: one mistake at a time ------------------------------------------


@pytest.fixture
def triple():
    """A three-part exercise: each element of (1, 2, 3), explained by its own mistake."""
    key = "99.triple"
    ex.EXERCISES.pop(key, None)

    @ex.exercise(key, "Give (1, 2, 3).", solution="answer = (1, 2, 3)")
    def _check(answer):
        ex.require_all(
            ex.Part(f"element {i} ({got})",
                    None if got == want else f"<{got}> is not the secret of element {i}")
            for i, (got, want) in enumerate(zip(answer, (1, 2, 3), strict=True))
        )  # fmt: skip

    yield key
    ex.EXERCISES.pop(key, None)


def test_parts_show_right_parts_then_the_first_mistake_and_count_the_rest(triple):
    feedback = ex.check(triple, (1, 20, 30))
    assert feedback.status == "wrong"
    assert feedback.message == "element 1 (20) — <20> is not the secret of element 1"
    assert [str(part) for part in feedback.parts] == ["element 0 (1)", feedback.message]
    assert (feedback.more, feedback.hidden) == (1, 1)
    text = repr(feedback)
    assert text.splitlines() == [
        "[99.triple] ✗ not yet, part by part:",
        "  ✓ element 0 (1)",
        "  ✗ element 1 (20) — <20> is not the secret of element 1",
        "  … and 1 more part to look at once this one is fixed",
    ]
    assert "element 2" not in text and "30" not in text  # the later mistake is held back


def test_parts_in_html_are_a_list_with_the_later_mistakes_held_back(triple):
    page = ex.check(triple, (10, 20, 30))._repr_html_()
    assert page.startswith('<div class="vg-feedback vg-feedback-wrong"') and "✗ Not yet" in page
    assert page.count("<li") == 2 and '<ul class="vg-feedback-parts"' in page
    assert '<li class="vg-part vg-part-wrong">' in page and "vg-part-right" not in page
    assert "&lt;10&gt; is not the secret of element 0" in page  # escaped, and explained
    assert "element 1" not in page and "element 2" not in page
    assert "… and 2 more parts to look at once this one is fixed" in page


def test_parts_after_the_mistake_that_are_right_are_not_counted_as_mistakes(triple):
    feedback = ex.check(triple, (10, 2, 3))
    assert (feedback.more, feedback.hidden) == (0, 2)
    assert "✓ the rest is right: fix this one and you are done" in repr(feedback)
    assert 'class="vg-part vg-part-rest"' in feedback._repr_html_()


def test_the_last_part_wrong_shows_every_part_and_no_rest(triple):
    feedback = ex.check(triple, (1, 2, 30))
    assert (feedback.more, feedback.hidden) == (0, 0)
    assert repr(feedback).count("✓") == 2 and "rest" not in repr(feedback)
    assert feedback._repr_html_().count("vg-part-right") == 2


def test_all_parts_right_is_correct(triple):
    assert ex.check(triple, (1, 2, 3)).correct
    assert ex.results()[triple] == "correct"


def test_wrong_needs_a_wrong_part():
    with pytest.raises(ValueError, match="needs a part that is wrong"):
        ex.Wrong(parts=[ex.Part("element 0 (1)")])
    assert str(ex.Wrong(parts=[ex.Part("a"), ex.Part("b", "why")])) == "b — why"


def test_a_checker_may_explain_its_right_answer(toy):
    key = "99.routes"
    ex.EXERCISES.pop(key, None)
    ex.exercise(key, "Any number.", solution="answer = 1", explanation="the default")(
        lambda answer: "an even number" if answer % 2 == 0 else None
    )
    try:
        assert ex.check(key, 2).message == "an even number"
        assert ex.check(key, 1).message == "the default"
    finally:
        ex.EXERCISES.pop(key, None)


def test_solutions_can_be_hidden_for_a_graded_course(monkeypatch):
    from vizgrad.lessons import EXERCISES, hint, solution
    from vizgrad.lessons.exercise import _load_lessons

    _load_lessons()
    key = "08.retain_grad"
    assert repr(solution(key)) == EXERCISES[key].solution
    monkeypatch.setenv("VIZGRAD_HIDE_SOLUTIONS", "1")
    hidden = repr(solution(key))
    assert "hidden for this course" in hidden and "retain_grad()" not in hidden
    assert repr(hint(key)).startswith("Hint 1 of")
    monkeypatch.setenv("VIZGRAD_HIDE_SOLUTIONS", "0")
    assert repr(solution(key)) == EXERCISES[key].solution
