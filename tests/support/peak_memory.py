"""Peak memory of a `tdg` command in a fresh process, as that process's own high-water mark.

Neither getrusage nor wait4 will do: Linux keeps ru_maxrss across fork and exec, so a child of a
large test worker (an xdist worker at 4.7 GB after other tests) reports the worker's size, not its
own. VmHWM in /proc/self/status belongs to the address space exec made, so it is the command's.
The processes `tdg generate --jobs` forks are the command's too: their peak is RUSAGE_CHILDREN's
(a forked child starts from the command's own high-water mark, not the test worker's)."""

from __future__ import annotations

import subprocess
import sys

from tests.paths import REPO

_RUN_AND_REPORT = """
import sys
from app.cli import app as main
sys.argv = ["tdg", *sys.argv[1:]]
try:
    main()
except SystemExit as exit:
    if exit.code:
        raise
import resource
with open("/proc/self/status") as status:
    own = int(next(line for line in status if line.startswith("VmHWM:")).split()[1])
children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(f"VmHWM: {max(own, children)} kB")
"""


def tdg_peak_mib(args: list[str], timeout: float = 1800) -> float:
    """Run `tdg ARGS` in a new interpreter; its peak resident memory in MiB (fails on exit != 0)."""
    done = subprocess.run([sys.executable, "-c", _RUN_AND_REPORT, *args], cwd=REPO,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-2000:]
    line = done.stdout.rsplit("VmHWM:", 1)[-1].split()
    assert line and line[1] == "kB", done.stdout[-500:]
    return int(line[0]) / 1024
