"""/api/reference: Swagger UI 5 (with its "Try it out" client), served from vendored assets
(app/rest/static/swagger-ui, see VENDORED.md) so the page loads nothing from a CDN."""

from __future__ import annotations

from pathlib import Path

STATIC_DIR = Path(__file__).parent / "static" / "swagger-ui"


def swagger_static_dir() -> Path:
    return STATIC_DIR


def reference_html(openapi_url: str) -> str:
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Test Data Generation Service - API reference</title>
<link rel="stylesheet" href="/api/reference/static/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/api/reference/static/swagger-ui-bundle.js"></script>
<script src="/api/reference/static/swagger-ui-standalone-preset.js"></script>
<script>
window.ui = SwaggerUIBundle({{
  url: "{openapi_url}", dom_id: "#swagger-ui", deepLinking: true, tryItOutEnabled: true,
  persistAuthorization: true, presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: "StandaloneLayout"
}});
</script></body></html>"""
