# mcp-bridge in a container: python slim, a non-root user, `mcp-bridge` as the entry point.
#
#   docker build -t mcp-eras .
#   docker run --rm -p 127.0.0.1:8080:8080 -e MCP_BRIDGE_UPSTREAM=http://host.docker.internal:3000/mcp mcp-eras
#
# The bridge binds 127.0.0.1 by default; inside the container it must bind all interfaces to be
# reachable through the published port, so CMD says so explicitly (--host 0.0.0.0). Requests are then
# accepted only with a Host header in MCP_BRIDGE_ALLOW_HOST (space-separated; the DNS-rebinding
# defence): set it to the names clients use, e.g. -e MCP_BRIDGE_ALLOW_HOST="localhost bridge.internal".
# Every other option is an MCP_BRIDGE_* variable too; see `docker run --rm mcp-eras serve --help-env`.
# A stdio upstream: put the server in an image derived from this one and end CMD with `-- COMMAND ARGS`.

FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md LICENSE CHANGELOG.md ./
COPY bridge ./bridge
COPY migrate ./migrate
COPY mcp_eras ./mcp_eras
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM python:3.11-slim
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin mcp
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels
USER mcp
WORKDIR /home/mcp
ENV PYTHONUNBUFFERED=1 \
    MCP_BRIDGE_LOG_FORMAT=json \
    MCP_BRIDGE_ALLOW_HOST="localhost 127.0.0.1"
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8080/readyz', timeout=4)"]
ENTRYPOINT ["mcp-bridge"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080"]
