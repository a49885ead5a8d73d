"""Analytics: usage figures of a tenant's datasets, schemas and projects."""
