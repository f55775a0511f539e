"""Assertions shared by the lesson checker tests."""

from vizgrad.lessons import check


def assert_wrong(key, answer, *fragments):
    """``answer`` is rejected, and the explanation mentions every fragment."""
    feedback = check(key, answer)
    assert feedback.status == "wrong", feedback
    for fragment in fragments:
        assert fragment in feedback.message, (fragment, feedback.message)
    return feedback.message


def same_storage(a, b):
    """Two tensors read one storage (compared by address, which works in torch too)."""
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def assert_one_at_a_time(key, answer, *fragments, right=0, more=0):
    """``answer`` is judged part by part: ``right`` parts marked right, then the first mistake
    (whose explanation holds every fragment), then ``more`` wrong parts held back unexplained."""
    assert_wrong(key, answer, *fragments)
    feedback = check(key, answer)
    assert [part.right for part in feedback.parts] == [True] * right + [False], repr(feedback)
    assert feedback.more == more, repr(feedback)
    return feedback
