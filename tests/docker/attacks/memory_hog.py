# expect-status: error
# expect-error-kind: memory
# expect-next-job: yes
"""Grabs memory until something stops it, touching every page."""

hog = []
while True:
    hog.append(bytearray(64 * 1024 * 1024))
