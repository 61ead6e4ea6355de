"""Tests of app.accounts: sign-up, log-in, identity, sessions, anonymous expiry."""
