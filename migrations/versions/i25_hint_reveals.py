"""hint_reveals: which rung of which check's hint ladder a learner asked for (instructor pages count them).

Revision ID: i25_hint_reveals
Revises: i20c_code_bytes
Create Date: 2026-12-01 22:40:00

"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "i25_hint_reveals"
down_revision = "i20c_code_bytes"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "hint_reveals",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("learner", sa.String(length=64), nullable=False),
        sa.Column("exercise_id", sa.String(length=64), nullable=False),
        sa.Column("check_id", sa.String(length=64), nullable=False),
        sa.Column("rung", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("learner", "exercise_id", "check_id", "rung", name="uq_hint_reveals_once"),
    )
    op.create_index("ix_hint_reveals_exercise_id", "hint_reveals", ["exercise_id"])


def downgrade():
    op.drop_index("ix_hint_reveals_exercise_id", table_name="hint_reveals")
    op.drop_table("hint_reveals")
