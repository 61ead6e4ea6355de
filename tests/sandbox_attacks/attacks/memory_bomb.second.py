# what: The next learner's honest grading: it must pass.
# second: grade
