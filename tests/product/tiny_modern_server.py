"""A tiny 2026-07-28 stdio server for the product tests: answers server/discover, and tools/call
``env`` with the variable named by ``arguments.name``, its working directory and its pid.

Writes its pid to $TINY_PID_FILE (when set) so a test can check that the bridge reaped it.
"""

import json
import os
import sys

if os.environ.get("TINY_PID_FILE"):
    with open(os.environ["TINY_PID_FILE"], "a") as f:
        f.write(f"{os.getpid()}\n")

for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg or "method" not in msg:
        continue
    if msg["method"] == "server/discover":
        result = {"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "tiny", "version": "1"}}
    elif msg["method"] == "tools/call":
        name = msg["params"]["arguments"]["name"]
        text = json.dumps({"value": os.environ.get(name), "cwd": os.getcwd(), "pid": os.getpid()})
        result = {"resultType": "complete", "content": [{"type": "text", "text": text}]}
    else:
        out = {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "Method not found"}}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
        continue
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
    sys.stdout.flush()
