"""Integrations: webhooks and S3 object stores a tenant connects, their deliveries and exports."""
