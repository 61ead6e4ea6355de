"""Indexes for the expiry of anonymous work: drafts by updated_at, quiz attempts by created.

Revision ID: i20b_expiry_indexes
Revises: i21_grading_attempts
Create Date: 2026-12-01 16:00:00

"""
from alembic import op

# revision identifiers, used by Alembic.
revision = "i20b_expiry_indexes"
down_revision = "i21_grading_attempts"
branch_labels = None
depends_on = None


def upgrade():
    # app.progress.expiry deletes rows older than the retention: a range on these columns.
    op.create_index("ix_drafts_updated_at", "drafts", ["updated_at"])
    op.create_index("ix_quiz_attempts_created", "quiz_attempts", ["created"])


def downgrade():
    op.drop_index("ix_quiz_attempts_created", table_name="quiz_attempts")
    op.drop_index("ix_drafts_updated_at", table_name="drafts")
