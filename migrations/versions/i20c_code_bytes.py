"""submissions.code_bytes, drafts.code_bytes: the storage quota sums kept sizes, not the code.

Revision ID: i20c_code_bytes
Revises: i20b_email_skeleton
Create Date: 2026-12-01 19:40:00

"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "i20c_code_bytes"
down_revision = "i20b_email_skeleton"
branch_labels = None
depends_on = None

TABLES = {"submissions": ["learner", "code_bytes"], "drafts": ["learner", "exercise_id", "code_bytes"]}


def _bytes_of_code() -> str:
    # UTF-8 bytes, as the app counts them (app.models.code_size); length() counts characters.
    if op.get_bind().dialect.name == "postgresql":
        return "octet_length(code)"
    return "length(CAST(code AS BLOB))"


def upgrade():
    for table, columns in TABLES.items():
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column("code_bytes", sa.Integer(), nullable=False, server_default="0"))
        # Both names are this file's constants, never input: S608 does not apply.
        op.execute(f"UPDATE {table} SET code_bytes = {_bytes_of_code()} WHERE code IS NOT NULL")  # noqa: S608
        op.create_index(f"ix_{table}_learner_bytes", table, columns)


def downgrade():
    for table in TABLES:
        op.drop_index(f"ix_{table}_learner_bytes", table_name=table)
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column("code_bytes")
