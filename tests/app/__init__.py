"""Tests of the Flask app, one package per app package."""
