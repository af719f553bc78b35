import sys

from .server import create_server


def main() -> None:
    server = create_server()
    if sys.argv[1:] == ["http"]:
        server.run(transport="streamable-http")
    else:
        server.run()


if __name__ == "__main__":
    main()
