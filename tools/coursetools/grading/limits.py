"""The limits of a grading phase: what a sandbox may use, and how the host holds it to that.

Each phase runs under a wall clock (the host kills the whole process group), an address-space limit
per process (``RLIMIT_AS``), a file-size limit, and where the machine allows it (root with cgroups,
as CI's machines) a cgroup per phase that caps the number of processes, the memory of all of them
together and the cores they share, and counts their CPU time; elsewhere ``RLIMIT_NPROC`` caps
processes per user. A small launcher process sets them on itself, joins the cgroups, then becomes
the phase's first program, so that nothing runs between fork and exec in the host.

::

    host --launcher (rlimits, cgroups)--> bwrap ... --> when the phase ends: every process in its cgroups killed
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "FALLBACK_UID",
    "LAUNCHER",
    "Limits",
    "empty",
    "kill_user",
    "make_cgroups",
    "resource_limits",
    "undumpable",
]


@dataclass(frozen=True)
class Limits:
    """One phase's limits.

    Attributes:
        wall_s: wall-clock seconds before the whole phase is killed.
        memory_mb: address space of each process, MiB (``RLIMIT_AS``), and the memory of all of
            them together where a cgroup caps it.
        processes: processes (and threads) the phase may have at once.
        tmp_mb: size of the private ``/tmp`` (a tmpfs in memory), MiB.
        output_kb: most of its standard output the host reads, KiB.
        cpus: cores the phase's processes may use together, where a cgroup caps it (as root).
    """

    wall_s: float = 300.0
    memory_mb: int = 3072
    processes: int = 256
    tmp_mb: int = 256
    output_kb: int = 2048
    cpus: float = 1.0


#: The unprivileged user the fallback runs a notebook as (``nobody``).
FALLBACK_UID = 65534


def _cgroup_roots() -> dict[str, Path]:
    """Writable cgroup v1 controllers for processes, memory and CPU accounting (root on a machine
    that mounts them)."""
    roots = {}
    for name in ("pids", "memory", "cpu", "cpuacct"):
        root = Path("/sys/fs/cgroup") / name
        if (root / "cgroup.procs").exists() and os.access(root, os.W_OK):
            roots[name] = root
    return roots


#: Started by the host for each phase: sets the limits on itself, joins the phase's cgroups, then
#: becomes bwrap. A separate small process, so that nothing runs between fork and exec in the host.
LAUNCHER = r"""
import json, os, resource, sys
spec = json.loads(sys.argv[1])
for path in spec["cgroups"]:
    with open(path, "w") as f:
        f.write(str(os.getpid()))
for name, value in spec["rlimits"].items():
    resource.setrlimit(getattr(resource, name), (value, value))
if spec.get("cwd"):
    os.chdir(spec["cwd"])
    env = {"PATH": os.path.dirname(spec["argv"][0]) + ":/usr/bin:/bin", "HOME": spec["home"], "LANG": "C.UTF-8",
           "PYTHONDONTWRITEBYTECODE": "1", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    if spec.get("uid") is not None:
        os.setgroups([])
        os.setgid(spec["uid"])
        os.setuid(spec["uid"])
    os.execve(spec["argv"][0], spec["argv"], env)
os.execv(spec["argv"][0], spec["argv"])
"""


def make_cgroups(tag: str, limits: Limits) -> list[Path]:
    """The phase's cgroups, made and limited (none where they cannot be made)."""
    groups = []
    roots = _cgroup_roots() if os.geteuid() == 0 else {}
    for name, root in roots.items():
        group = root / tag
        try:
            group.mkdir()
            if name == "pids":
                (group / "pids.max").write_text(str(limits.processes))
            elif name == "memory":
                (group / "memory.limit_in_bytes").write_text(str(limits.memory_mb * 2**20))
            elif name == "cpu":
                period = int((group / "cpu.cfs_period_us").read_text())
                (group / "cpu.cfs_quota_us").write_text(str(int(period * limits.cpus)))
            groups.append(group)
        except OSError:
            with contextlib.suppress(OSError):
                group.rmdir()
    return groups


def resource_limits(limits: Limits, cgroups: list[Path], *, fallback: bool) -> dict[str, int]:
    """The rlimits the launcher sets: memory per process, file size, no core files, open files, and
    the process count where no cgroup counts processes."""
    rlimits = {
        "RLIMIT_AS": limits.memory_mb * 2**20,
        "RLIMIT_FSIZE": 4 * limits.tmp_mb * 2**20,  # the tmpfs fills first: a plain "no space left" error
        "RLIMIT_CORE": 0,
        "RLIMIT_NOFILE": 1024,
    }
    if not any(g.parent.name == "pids" for g in cgroups):
        rlimits["RLIMIT_NPROC"] = limits.processes if fallback else _processes_of_user() + limits.processes
    return rlimits


def kill_user(uid: int) -> None:
    """SIGKILL every process of ``uid`` until none is left (the fallback has no PID namespace)."""
    if os.geteuid() != 0 or uid == os.geteuid():
        return
    for _ in range(50):
        found = [int(p.parent.name) for p in Path("/proc").glob("[0-9]*/status") if _uid_of(p) == uid]
        if not found:
            return
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.02)


def _uid_of(status: Path) -> int | None:
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in status.read_text().splitlines():
            if line.startswith("Uid:"):
                return int(line.split()[1])
    return None


def _processes_of_user() -> int:
    uid = os.getuid()
    return sum(_uid_of(p) == uid for p in Path("/proc").glob("[0-9]*/status"))


def empty(group: Path) -> None:
    """Kill every process left in a cgroup, then remove it (tries for up to 5 s)."""
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline:
        try:
            pids = [int(p) for p in (group / "cgroup.procs").read_text().split()]
        except OSError:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        try:
            group.rmdir()
            return
        except OSError:
            time.sleep(0.05)


def undumpable() -> None:
    """Make this process non-dumpable (``prctl(PR_SET_DUMPABLE, 0)``, Linux): a process of the same
    user without capabilities, as everything in a sandbox is, can then neither read or write its
    memory nor open its descriptors through ``/proc/<pid>``. Its forked children inherit it; a
    program started with exec is dumpable again."""
    if ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0) != 0:  # 4: PR_SET_DUMPABLE
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")
