"""The app's database models, all in one place: accounts, jobs, learners' records, quiz attempts, regrades.

Every feature imports its models from here (`from app.models import Submission`); the models
import nothing of the features above them (the "models know no scheduler" contract, pyproject).
"""

from app.models.accounts import ROLES, User, new_learner_key
from app.models.base import JobColumns, UTCDateTime, code_size, new_id, utcnow
from app.models.jobs import STATUSES, ExerciseValidation, Run, SpentToken, Submission
from app.models.progress import Draft, HintReveal
from app.models.quizzes import QuizAttempt
from app.models.regrades import Regrade, RegradeRun

__all__ = [
    "ROLES", "STATUSES", "Draft", "ExerciseValidation", "HintReveal", "JobColumns", "QuizAttempt", "Regrade",
    "RegradeRun", "Run", "SpentToken", "Submission", "UTCDateTime", "User", "code_size", "new_id",
    "new_learner_key", "utcnow",
]
