"""Tests of the lessons: code blocks run, hints, glossary, lessons match exercises."""
