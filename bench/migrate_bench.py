"""Benchmark mcp-migrate against PyPI ``mcp-codemod`` 0.1.3 on the same files.

The v1 SDK examples (``mcp==1.29.0`` sdist, cached under ``.cache/``) are replicated to at least
``--files`` Python files. Each tool rewrites its own fresh copy in place (mcp-migrate with
``--jobs 1`` and ``--jobs 2``; mcp-codemod with ``--write``, installed into a throwaway venv
under ``.cache/``). Prints files per second, the ratio to mcp-codemod and the peak resident
memory of the largest process of each run.

    .venv/bin/python bench/migrate_bench.py [--files 1000] [--repeat 1]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "migrate"))

from migrate_corpus import CACHE, examples_dir  # noqa: E402

WORK = CACHE / "bench"
CODEMOD_VERSION = "0.1.3"
# Runs ``argv`` and prints the peak RSS (KiB) of the largest process it waited for.
MEASURE = (
    "import resource, subprocess, sys\n"
    "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode\n"
    "print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def replicate(target: int) -> Path:
    """A tree of >= ``target`` Python files: copies of the examples' .py files."""
    source = examples_dir()
    files = sorted(p for p in source.rglob("*.py"))
    tree = WORK / f"tree-{target}"
    if tree.exists():
        return tree
    copies = -(-target // len(files))
    for n in range(copies):
        for path in files:
            dest = tree / f"copy{n:03d}" / path.relative_to(source)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest)
    return tree


def codemod_cli() -> Path:
    venv = WORK / "venv-codemod"
    exe = venv / "bin" / "mcp-codemod"
    if not exe.exists():
        log(f"installing mcp-codemod=={CODEMOD_VERSION} into {venv.relative_to(ROOT)}")
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q",
                        f"mcp-codemod=={CODEMOD_VERSION}"], check=True)
    return exe


def measure(label: str, argv: list[str], tree: Path, count: int, repeat: int) -> dict[str, float | str]:
    best = float("inf")
    peak = 0
    for _ in range(repeat):
        copy = WORK / "run"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(tree, copy)
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", MEASURE, *argv, str(copy)], capture_output=True, text=True,
                              check=True)
        elapsed = time.perf_counter() - start
        code, rss = proc.stdout.split()
        best = min(best, elapsed)
        peak = max(peak, int(rss))
        log(f"{label}: exit {code}, {elapsed:.2f}s")
    shutil.rmtree(WORK / "run", ignore_errors=True)
    return {"tool": label, "seconds": round(best, 3), "files_per_second": round(count / best, 1),
            "peak_rss_mib": round(peak / 1024, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    tree = replicate(args.files)
    count = sum(1 for _ in tree.rglob("*.py"))
    ours = [sys.executable, "-m", "mcp_eras.migrate"]
    rows = [
        measure("mcp-migrate --jobs 1", [*ours, "--allow-dirty", "--jobs", "1", "--"], tree, count, args.repeat),
        measure("mcp-migrate --jobs 2", [*ours, "--allow-dirty", "--jobs", "2", "--"], tree, count, args.repeat),
        measure(f"mcp-codemod {CODEMOD_VERSION}", [str(codemod_cli()), "--write"], tree, count, args.repeat),
    ]
    baseline = rows[-1]["files_per_second"]
    print(f"{count} Python files (v1 SDK examples replicated)")
    print(f"{'tool':24} {'seconds':>8} {'files/s':>9} {'vs codemod':>10} {'peak RSS MiB':>13}")
    for row in rows:
        ratio = float(row["files_per_second"]) / float(baseline)
        row["ratio_vs_codemod"] = round(ratio, 2)
        print(f"{row['tool']:24} {row['seconds']:>8} {row['files_per_second']:>9} {ratio:>9.2f}x "
              f"{row['peak_rss_mib']:>13}")
    (WORK / "results.json").write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
