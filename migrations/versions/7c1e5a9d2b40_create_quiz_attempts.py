"""Create the quiz_attempts table: answers a learner sent for a quiz, and their grading.

Revision ID: 7c1e5a9d2b40
Revises: 2ee23e7f0472
Create Date: 2026-11-30 01:00:00

"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "7c1e5a9d2b40"
down_revision = "2ee23e7f0472"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "quiz_attempts",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("learner", sa.String(length=64), nullable=False),
        sa.Column("exercise_id", sa.String(length=64), nullable=False),
        sa.Column("lang", sa.String(length=8), nullable=False),
        sa.Column("answers", sa.JSON(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("quiz_attempts", schema=None) as batch_op:
        batch_op.create_index(
            "ix_quiz_attempts_learner_exercise", ["learner", "exercise_id"], unique=False
        )


def downgrade():
    with op.batch_alter_table("quiz_attempts", schema=None) as batch_op:
        batch_op.drop_index("ix_quiz_attempts_learner_exercise")
    op.drop_table("quiz_attempts")
