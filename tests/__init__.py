"""The platform's test suite: one package per folder, so module names are unique from the root."""
