"""Grading phase: what a running job waits for ("starting": a sandbox is started for it), for the learner's progress.

Revision ID: i22_grading_phase
Revises: i25_hint_reveals
Create Date: 2026-12-01 22:50:00

"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "i22_grading_phase"
down_revision = "i25_hint_reveals"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("submissions") as batch:
        batch.add_column(sa.Column("phase", sa.String(length=16), nullable=True))


def downgrade():
    with op.batch_alter_table("submissions") as batch:
        batch.drop_column("phase")
