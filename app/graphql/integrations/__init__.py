"""GraphQL of integrations: webhooks and object stores, their delivery log and object exports."""
