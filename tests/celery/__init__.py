"""Celery tests: real redis-server, real workers, faults."""
