"""Tests of app.lessons: the course, lesson pages and the workplace."""
