"""Flask extension objects, created unbound and initialised by create_app()."""

from flask_babel import Babel
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy

db = SQLAlchemy()
migrate = Migrate()
babel = Babel()
