# syntax=docker/dockerfile:1
# The Test Data Generation Service: one image for every process (`tdg serve`, `tdg worker`,
# `tdg migrate`). Build: docker build -t tdg .   Run: see deploy/compose.yaml and the README's
# "Running on several machines".

# --- build: wheels for the package (its C extension compiled here) and every dependency ---
FROM python:3.11-slim-bookworm AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends build-essential \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY app ./app
# the web interface is prebuilt and committed (app/web/static); the wheel carries it as package data
RUN test -f app/web/static/index.html \
 && pip wheel --no-cache-dir --wheel-dir /wheels .

# --- runtime: the wheels installed into a slim image, run as an unprivileged user ---
FROM python:3.11-slim-bookworm AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    TDG_ENV=production \
    TDG_DATA_DIR=/var/lib/tdg/data
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    pip install --no-cache-dir --no-index --find-links=/wheels tdg \
 && python -c "import app.web.spa as s; assert (s.STATIC_DIR / 'index.html').is_file(), s.STATIC_DIR" \
 && useradd --system --uid 10001 --user-group --home-dir /var/lib/tdg --create-home tdg \
 && mkdir -p /var/lib/tdg/data \
 && chown -R tdg:tdg /var/lib/tdg
USER 10001:10001
WORKDIR /var/lib/tdg
# this machine's own folder: leader locks and, with the local store, the files; with
# TDG_STORAGE_URL=s3://... nothing here needs to outlive the container
VOLUME ["/var/lib/tdg/data"]
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4).status != 200)"]
ENTRYPOINT ["tdg"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8000"]
