# what: The next learner's honest run: it must run to the end.
# second: grade
