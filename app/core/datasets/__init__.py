"""Datasets: generation requests, their files, previews and download links."""
