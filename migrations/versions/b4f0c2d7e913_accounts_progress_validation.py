"""Accounts and progress: users, submissions.learner, drafts, exercise_validations.

Revision ID: b4f0c2d7e913
Revises: 7c1e5a9d2b40
Create Date: 2026-11-30 01:30:00

"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "b4f0c2d7e913"
down_revision = "7c1e5a9d2b40"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("learner_key", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("email"),
        sa.UniqueConstraint("learner_key"),
    )
    # Rows from before accounts keep a null owner: nobody can read them, as nobody could tell
    # whose they were.
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("learner", sa.String(length=64), nullable=True))
        batch_op.create_index(
            "ix_submissions_learner_exercise", ["learner", "exercise_id", "created_at"],
            unique=False,
        )
    op.create_table(
        "drafts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("learner", sa.String(length=64), nullable=False),
        sa.Column("exercise_id", sa.String(length=64), nullable=False),
        sa.Column("code", sa.Text(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("learner", "exercise_id", name="uq_drafts_learner_exercise"),
    )
    op.create_table(
        "exercise_validations",
        sa.Column("exercise_id", sa.String(length=64), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("ok", sa.Boolean(), nullable=True),
        sa.Column("problems", sa.JSON(), nullable=False),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("checked_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("exercise_id"),
    )


def downgrade():
    op.drop_table("exercise_validations")
    op.drop_table("drafts")
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_index("ix_submissions_learner_exercise")
        batch_op.drop_column("learner")
    op.drop_table("users")
