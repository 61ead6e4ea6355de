"""Course content as the web app sees it: Markdown rendering, the lesson and exercise catalogs."""

from __future__ import annotations

from flask import Flask, current_app

from app.content.exercises import ExerciseCatalog
from app.content.lessons import LessonCatalog
from app.content.markdown import RenderCache


def init_app(app: Flask) -> None:
    cache = RenderCache()
    app.extensions["render_cache"] = cache
    app.extensions["lesson_catalog"] = LessonCatalog(app.config["LESSONS_DIR"], cache)
    app.extensions["exercise_catalog"] = ExerciseCatalog(app.config["EXERCISES_DIR"])


def render_cache() -> RenderCache:
    cache: RenderCache = current_app.extensions["render_cache"]
    return cache


def lesson_catalog() -> LessonCatalog:
    catalog: LessonCatalog = current_app.extensions["lesson_catalog"]
    return catalog


def exercise_catalog() -> ExerciseCatalog:
    catalog: ExerciseCatalog = current_app.extensions["exercise_catalog"]
    return catalog
