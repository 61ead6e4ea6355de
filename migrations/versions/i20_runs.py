"""Runs are jobs: the runs table (a Run of a learner's code, queued, run off the web threads).

Revision ID: i20_runs
Revises: i19_rescore_results
Create Date: 2026-12-01 15:50:00

"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "i20_runs"
down_revision = "i19_rescore_results"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "runs",
        sa.Column("id", sa.String(length=36), primary_key=True),
        sa.Column("exercise_id", sa.String(length=64), nullable=False),
        sa.Column("learner", sa.String(length=64), nullable=True),
        sa.Column("code", sa.Text(), nullable=False),
        sa.Column("lang", sa.String(length=8), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("claimed_by", sa.String(length=36), nullable=True),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("anon_address", sa.String(length=32), nullable=True),
    )
    op.create_index("ix_runs_learner", "runs", ["learner"])
    op.create_index("ix_runs_status", "runs", ["status"])
    op.create_index("ix_runs_created_at", "runs", ["created_at"])
    op.create_index("ix_runs_anon_address", "runs", ["anon_address"])


def downgrade():
    op.drop_index("ix_runs_anon_address", table_name="runs")
    op.drop_index("ix_runs_created_at", table_name="runs")
    op.drop_index("ix_runs_status", table_name="runs")
    op.drop_index("ix_runs_learner", table_name="runs")
    op.drop_table("runs")
