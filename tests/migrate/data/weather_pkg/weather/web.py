"""The server mounted in an ASGI application (served by uvicorn elsewhere)."""

from starlette.applications import Starlette
from starlette.routing import Mount

from weather.server import create_server

app = Starlette(routes=[Mount("/", app=create_server().streamable_http_app())])
