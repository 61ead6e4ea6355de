"""AMP grading: a tracer that records a learner's mixed-precision loop, and the checks that judge it."""
