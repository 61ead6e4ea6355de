"""Stored results rescored by the honest rule: a failing submission never keeps a score of 100 %.

Results stored before it gave checks the starter already passes 0 points, so a submission that
broke one of them could show "Score: 100 %" beside a failing verdict. grader.results.rescore
recomputes each stored document from its own checks (idempotent; error results are kept).

Revision ID: i19_rescore_results
Revises: i9a1s2e3s4v5
Create Date: 2026-12-01 16:45:00

"""
import json

import sqlalchemy as sa
from alembic import op

from grader.results import rescore

revision = "i19_rescore_results"
down_revision = "i9a1s2e3s4v5"
branch_labels = None
depends_on = None

BATCH = 500  # rows per read: memory stays bounded whatever the number of submissions


def upgrade():
    bind = op.get_bind()
    submissions = sa.table("submissions", sa.column("id", sa.String), sa.column("result", sa.JSON))
    last = ""
    while True:
        rows = bind.execute(sa.select(submissions.c.id, submissions.c.result)
                            .where(submissions.c.id > last, submissions.c.result.is_not(None))
                            .order_by(submissions.c.id).limit(BATCH)).all()
        if not rows:
            break
        for row in rows:
            doc = row.result if isinstance(row.result, dict) else json.loads(row.result)
            before = json.dumps(doc, sort_keys=True)
            after = rescore(json.loads(before))
            if json.dumps(after, sort_keys=True) != before:
                bind.execute(submissions.update().where(submissions.c.id == row.id).values(result=after))
        last = rows[-1].id


def downgrade():
    pass  # the old scores were wrong; there is nothing worth restoring
