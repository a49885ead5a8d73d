"""The web interface: the single-page app's production build (static/, written by the frontend
build in web/) and the code that serves it (spa.py)."""
