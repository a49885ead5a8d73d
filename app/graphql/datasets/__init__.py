"""GraphQL of datasets: their types, root queries and mutations, download links."""
