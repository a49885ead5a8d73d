"""Tenants: the organisations the service keeps apart."""
