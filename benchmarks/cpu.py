"""CPU seconds of a benchmark's processes, its worker processes included (Linux: /proc).

Workers forked from the fork server (cardgen.render.workers) are that server's children, not the
benchmark's: `resource.getrusage(RUSAGE_CHILDREN)` counts them only once the server ends with the
benchmark. So the benchmarks read each process's own figures instead.
"""

from __future__ import annotations

import os
import resource
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def process_cpu(pid: int, reaped: bool = False) -> float:
    """User + system CPU seconds of a live process (with `reaped`: and of its children it has waited for)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12]) + (int(fields[13]) + int(fields[14]) if reaped else 0)
    return ticks / TICKS


def own_cpu() -> float:
    """This process and the children it has waited for."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def workers_cpu(workers) -> float:
    """The live worker processes of a cardgen.render.workers.Workers."""
    return sum(process_cpu(pid) for pid in workers.pids())


def fork_server_cpu() -> float:
    """The fork server (its imports) and the workers it has reaped (those of closed pools); 0 if none."""
    from multiprocessing import forkserver

    pid = getattr(forkserver._forkserver, "_forkserver_pid", None)
    return process_cpu(pid, reaped=True) if pid else 0.0
