"""One job lifecycle: Runs count attempts, folder checks are claimed and beaten like gradings, spent tokens.

Revision ID: lifecycle_jobs
Revises: i23b_validation_fingerprint
Create Date: 2026-12-06 05:10:00

"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "lifecycle_jobs"
down_revision = "i23b_validation_fingerprint"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("exercise_validations") as batch:
        batch.add_column(sa.Column("started_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("claimed_by", sa.String(length=36), nullable=True))
        batch.add_column(sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"))
    op.create_table(
        "spent_tokens",
        sa.Column("token", sa.String(length=64), primary_key=True),
        sa.Column("spent_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_spent_tokens_spent_at", "spent_tokens", ["spent_at"])


def downgrade():
    op.drop_index("ix_spent_tokens_spent_at", table_name="spent_tokens")
    op.drop_table("spent_tokens")
    with op.batch_alter_table("exercise_validations") as batch:
        for column in ("attempts", "heartbeat_at", "claimed_by", "started_at"):
            batch.drop_column(column)
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("attempts")
