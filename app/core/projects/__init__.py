"""Projects: their members and roles in them."""
