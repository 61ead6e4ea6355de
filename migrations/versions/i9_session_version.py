"""users.session_version: logout and a password change end every session of the account.

Revision ID: i9a1s2e3s4v5
Revises: i10_grading_claims
Create Date: 2026-12-01 04:30:00

"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "i9a1s2e3s4v5"
down_revision = "i10_grading_claims"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("session_version", sa.Integer(), nullable=False,
                                      server_default="0"))


def downgrade():
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("session_version")
