"""Distributed grading: the claim token, a heartbeat and the anonymous address of a submission.

Revision ID: i10_grading_claims
Revises: b4f0c2d7e913
Create Date: 2026-12-01 04:20:00

"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "i10_grading_claims"
down_revision = "b4f0c2d7e913"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("submissions") as batch:
        batch.add_column(sa.Column("claimed_by", sa.String(length=36), nullable=True))
        batch.add_column(sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("anon_address", sa.String(length=32), nullable=True))
        batch.create_index("ix_submissions_anon_address", ["anon_address"])


def downgrade():
    with op.batch_alter_table("submissions") as batch:
        batch.drop_index("ix_submissions_anon_address")
        batch.drop_column("anon_address")
        batch.drop_column("heartbeat_at")
        batch.drop_column("claimed_by")
