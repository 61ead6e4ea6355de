"""AMP grading: a tracer that records a mixed-precision training loop, and checks that judge it."""
