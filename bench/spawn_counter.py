"""Stand in for a stdio MCP server command and count how often it is started.

Usage: ``spawn_counter.py LOG [--delay SECONDS] -- COMMAND [ARGS ...]``: appends one line (pid, start time) to LOG,
optionally stays silent for SECONDS (a slow start: an ``npx`` download, a cold cache), then becomes COMMAND
(``exec``: same pid, same pipes). Used by ``bench/cold_start.py`` and the cold-start tests.
"""

from __future__ import annotations

import os
import shutil
import sys
import time


def main(argv: list[str]) -> None:
    if "--" not in argv or len(argv) < 3:
        sys.exit(__doc__)
    split = argv.index("--")
    log, options, command = argv[0], argv[1:split], argv[split + 1:]
    delay = float(options[options.index("--delay") + 1]) if "--delay" in options else 0.0
    with open(log, "a", encoding="utf-8") as out:
        out.write(f"{os.getpid()} {time.time():.6f}\n")
    if delay:
        time.sleep(delay)
    program = shutil.which(command[0]) or command[0]
    os.execv(program, command)


if __name__ == "__main__":
    main(sys.argv[1:])
