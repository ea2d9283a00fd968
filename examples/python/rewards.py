# Python reward functions for examples/python-rewards.rlx, written as TRL's GRPOTrainer takes
# them: each gets the batch's prompts, completions and completion_ids, and every other column of
# the dataset as a keyword argument (a list, one value per completion), and returns one float per
# completion, or None where it does not score that one.


def text_of(completion):
    # A conversational row's completion is a list of one assistant message (TRL's format).
    return completion[0]["content"] if isinstance(completion, list) else completion


def accuracy(prompts, completions, solution, **kwargs):
    """1.0 where the completion, stripped, is the row's solution."""
    return [1.0 if text_of(c).strip() == str(s) else 0.0 for c, s in zip(completions, solution)]


def digits_only(prompts, completions, kind, **kwargs):
    """Arithmetic rows: 1.0 for an answer of digits alone. Other rows are not this function's to
    score: None, so the term is left out of their reward."""
    return [(1.0 if text_of(c).strip().isdigit() else 0.0) if k == "sum" else None
            for c, k in zip(completions, kind)]
