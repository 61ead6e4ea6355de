"""users.email_skeleton: look-alike emails (Cyrillic "асе" for "ace") find one account.

Revision ID: i20b_email_skeleton
Revises: i20b_expiry_indexes
Create Date: 2026-12-01 16:15:00

"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "i20b_email_skeleton"
down_revision = "i20b_expiry_indexes"
branch_labels = None
depends_on = None


def upgrade():
    from app.accounts.lookalikes import skeleton  # the same function the app looks up with

    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("email_skeleton", sa.String(length=254), nullable=True))
    users = sa.table("users", sa.column("id", sa.Integer), sa.column("email", sa.String),
                     sa.column("email_skeleton", sa.String))
    connection = op.get_bind()
    for user_id, email in connection.execute(sa.select(users.c.id, users.c.email)).all():
        connection.execute(users.update().where(users.c.id == user_id)
                           .values(email_skeleton=skeleton(email)))
    # Not unique: accounts stored before this may already look alike; the oldest is found.
    op.create_index("ix_users_email_skeleton", "users", ["email_skeleton"])


def downgrade():
    op.drop_index("ix_users_email_skeleton", table_name="users")
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("email_skeleton")
