"""Regrade: a run per request (one active per exercise), a job row per regraded submission keeping its earlier result.

Revision ID: regrade_runs
Revises: one_share_from_address
Create Date: 2026-12-06 05:55:00

"""
import sqlalchemy as sa
from alembic import op

revision = "regrade_runs"
down_revision = "one_share_from_address"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "regrade_runs",
        sa.Column("id", sa.String(length=36), primary_key=True),
        sa.Column("exercise_id", sa.String(length=64), nullable=False),
        sa.Column("scope", sa.String(length=8), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=True),
        sa.Column("requested_by", sa.String(length=120), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("total", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("active", sa.String(length=64), nullable=True),
        sa.UniqueConstraint("active"),
    )
    op.create_index("ix_regrade_runs_exercise_id", "regrade_runs", ["exercise_id"])
    op.create_table(
        "regrades",
        sa.Column("id", sa.String(length=36), primary_key=True),
        sa.Column("run_id", sa.String(length=36), sa.ForeignKey("regrade_runs.id"), nullable=False),
        sa.Column("submission_id", sa.String(length=36), sa.ForeignKey("submissions.id"), nullable=False),
        sa.Column("exercise_id", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("claimed_by", sa.String(length=36), nullable=True),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("old_result", sa.JSON(), nullable=True),
        sa.Column("new_result", sa.JSON(), nullable=True),
        sa.Column("old_score", sa.Float(), nullable=True),
        sa.Column("new_score", sa.Float(), nullable=True),
        sa.Column("changed", sa.JSON(), nullable=False),
        sa.Column("note", sa.String(length=200), nullable=True),
        sa.UniqueConstraint("run_id", "submission_id", name="uq_regrades_run_submission"),
    )
    op.create_index("ix_regrades_run_id", "regrades", ["run_id"])
    op.create_index("ix_regrades_submission_id", "regrades", ["submission_id"])
    op.create_index("ix_regrades_status_created", "regrades", ["status", "created_at"])


def downgrade():
    op.drop_table("regrades")
    op.drop_table("regrade_runs")
