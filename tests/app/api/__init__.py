"""Tests of app.api: the JSON endpoints and hostile bodies."""
