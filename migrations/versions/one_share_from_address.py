"""submissions.from_address, runs.from_address: the keyed hash of the address every job came from.

The anonymous work of an address shares a running cap with the accounts working from it
(app.grading.running_cap); rows stored before stay NULL and count for no address.

Revision ID: one_share_from_address
Revises: lifecycle_jobs
Create Date: 2026-12-06 05:10:00

"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "one_share_from_address"
down_revision = "lifecycle_jobs"
branch_labels = None
depends_on = None


def upgrade():
    for table in ("submissions", "runs"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("from_address", sa.String(length=32), nullable=True))
        op.create_index(f"ix_{table}_from_address", table, ["from_address"])


def downgrade():
    for table in ("submissions", "runs"):
        op.drop_index(f"ix_{table}_from_address", table_name=table)
        with op.batch_alter_table(table) as batch:
            batch.drop_column("from_address")
