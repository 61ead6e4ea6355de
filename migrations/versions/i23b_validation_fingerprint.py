"""exercise_validations: the folder fingerprint a verdict is about, and whether the folder is broken.

Revision ID: i23b_validation_fingerprint
Revises: i22_grading_phase
Create Date: 2026-12-02 02:00:00

"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "i23b_validation_fingerprint"
down_revision = "i22_grading_phase"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("exercise_validations") as batch:
        batch.add_column(sa.Column("fingerprint", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("broken", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade():
    with op.batch_alter_table("exercise_validations") as batch:
        batch.drop_column("broken")
        batch.drop_column("fingerprint")
