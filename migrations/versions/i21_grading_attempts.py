"""Grading attempts: how many times a job was claimed, so one that keeps killing its worker ends.

Revision ID: i21_grading_attempts
Revises: i20_runs
Create Date: 2026-12-01 15:45:00

"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "i21_grading_attempts"
down_revision = "i20_runs"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("submissions") as batch:
        batch.add_column(sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"))


def downgrade():
    with op.batch_alter_table("submissions") as batch:
        batch.drop_column("attempts")
