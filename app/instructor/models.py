"""The folder check's model, kept where instructor code and older imports look for it (it lives in app.models)."""

from app.models import ExerciseValidation

__all__ = ["ExerciseValidation"]
