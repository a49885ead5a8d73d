"""Users: accounts, invitations, each user's own settings and profile."""
