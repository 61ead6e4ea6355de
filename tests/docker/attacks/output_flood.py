# expect-status: error
# expect-error-kind: output-limit
"""Prints without end, in big lines and small."""
import sys

line = "flood " * 2000
while True:
    print(line)
    sys.stderr.write("x" * 100 + "\n")
