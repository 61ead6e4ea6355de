"""Tests of the app as a whole: config, i18n, limits, access, assets, schema, every route."""
