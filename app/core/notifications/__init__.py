"""Notifications: in-app messages to a user and their preferences."""
