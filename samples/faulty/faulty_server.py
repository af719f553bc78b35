"""A 2025-11-25 stdio MCP server that misbehaves on purpose (no SDK: plain Python, any interpreter).

    python faulty_server.py MODE

MODE is one of:
  crash-at-start   write a few stderr lines and exit with status 3 before reading anything
  die-on-init      write stderr lines and exit with status 4 when asked ``initialize``
  flood            answer ``initialize``; on ``tools/call`` write ``--count`` ``ping`` requests, never read stdin again
  flood-once       like ``flood`` with ids padded to ``--pad`` characters (their answers outgrow the bridge's bound
                   of unread input), but only the first ``tools/call`` of any process: it creates the file
                   ``--marker``; once it exists ``work`` answers "done" (a restarted process behaves)
  silent           answer ``initialize``; never answer ``tools/call``
  wrong-ids        answer ``tools/call`` with an id the client never used
  garbage          answer ``tools/call`` with lines that are not JSON-RPC
  big              the tool ``big`` answers ``--mb`` megabytes on one line; ``echo`` answers at once

Every mode answers ``ping`` and ``tools/list`` (one tool per name above, plus ``echo``) while it reads, and refuses
the 2026 ``server/discover`` with -32601 like any 2025 server (so an era probe classes it 2025).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

PROTOCOL = "2025-11-25"


def out(msg: object) -> None:
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def err(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def text_result(rid: object, text: str) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": text}], "isError": False}}


def first_flood(marker: str) -> bool:
    """Whether no process of this server flooded yet (the first to ask creates ``marker``)."""
    try:
        with open(marker, "x"):
            return True
    except FileExistsError:
        return False


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode")
    parser.add_argument("--count", type=int, default=20000)
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--pad", type=int, default=300)
    parser.add_argument("--marker", default="")
    args = parser.parse_args()
    mode = args.mode
    pad = "x" * args.pad if mode == "flood-once" else ""
    if mode == "crash-at-start":
        for i in range(3):
            err(f"faulty: start-up line {i + 1}")
        err("faulty: fatal: configuration missing, exiting")
        return 3
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        method, rid = msg.get("method"), msg.get("id")
        if rid is None or method is None:
            continue  # notifications and answers to our own requests
        if method == "initialize":
            if mode == "die-on-init":
                err("faulty: loading the model")
                err("faulty: fatal: out of licences, exiting")
                return 4
            out({"jsonrpc": "2.0", "id": rid, "result": {
                "protocolVersion": PROTOCOL, "capabilities": {"tools": {}},
                "serverInfo": {"name": f"faulty-{mode}", "version": "1"}}})
        elif method == "ping":
            out({"jsonrpc": "2.0", "id": rid, "result": {}})
        elif method == "tools/list":
            tools = [{"name": n, "inputSchema": {"type": "object"}} for n in ("echo", "big", "work")]
            out({"jsonrpc": "2.0", "id": rid, "result": {"tools": tools}})
        elif method == "tools/call":
            name = (msg.get("params") or {}).get("name")
            arguments = (msg.get("params") or {}).get("arguments") or {}
            if name == "echo":
                out(text_result(rid, str(arguments.get("text", ""))))
            elif mode == "flood" or (mode == "flood-once" and first_flood(args.marker)):
                for i in range(args.count):
                    out({"jsonrpc": "2.0", "id": f"flood-{i}{pad}", "method": "ping"})
                while True:  # never reads stdin again
                    time.sleep(3600)
            elif mode == "silent":
                pass
            elif mode == "wrong-ids":
                out(text_result(f"not-{rid}", "for nobody"))
                out(text_result(987654, "for nobody either"))
            elif mode == "garbage":
                sys.stdout.write("this is not json\n{\"half\": \n\x00\x01\x02 binary\n[1, 2, 3]\n")
                sys.stdout.flush()
            elif mode == "big" and name == "big":
                out(text_result(rid, "x" * (args.mb * 1024 * 1024)))
            else:
                out(text_result(rid, "done"))
        else:
            out({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"Method not found: {method}"}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
