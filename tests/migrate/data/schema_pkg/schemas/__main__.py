import asyncio
import json

from .client import SchemaClient


async def main() -> None:
    client = SchemaClient()
    await client.connect()
    try:
        out = {"schemas": await client.schemas(), "add": await client.call("add", {"a": 2, "b": 3}),
               "shout": await client.call("shout", {"text": "hi"})}
    finally:
        await client.close()
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    asyncio.run(main())
