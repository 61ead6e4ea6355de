# what: The next learner's honest grading, DataLoader workers and all: it must pass.
# second: grade
