"""A classroom on a real JupyterHub: N students run a lab, then drive its widget panel (opt-in).

Not part of ``benchmarks/run.py``'s default groups nor of CI: it starts a JupyterHub and up to 30
single-user servers and takes about 10 minutes on 2 cores. Everything listens on 127.0.0.1 only,
and everything it starts is stopped when it ends (also on Ctrl-C or a failure).

What it does, for each class size N (default 5, 10, 20, 30):

1. starts JupyterHub (``jupyterhub`` from PyPI) with ``SimpleLocalProcessSpawner`` (each student's
   server is a local process, home folder under a temporary directory), the dummy authenticator,
   and ``configurable-http-proxy`` (from the npm registry, in a scratch folder never committed);
2. logs in N students through the Hub's REST API (create the user, have the Hub issue the user a
   token, start the user's server with that token);
3. each student, all at once, opens a kernel on their own server (Jupyter Server's REST API) and,
   over the kernel websocket (the Jupyter messaging protocol), runs every code cell of the lab's
   student copy in order, timing each cell from ``execute_request`` to the kernel's idle status;
4. then makes 10 widget-driven model runs: each one is a ``comm_msg`` with method ``update`` on the
   comm of the panel's *Seed* slider (what a front end sends when the slider moves), timed to the
   kernel's idle status; an update that redraws nothing counts as a failure;
5. samples, every 0.5 s, the resident memory of every single-user server and every kernel (psutil)
   and the CPU time the kernels used.

It prints one table row per N (p50/p90 cell time, p50/p90 widget-update time, peak memory per user
server and per kernel, failures) and writes ``benchmarks/classroom-results.json``, which the
instructor guide's sizing table is computed from (``python benchmarks/classroom_hub.py --sizing``
prints that table from the committed file without running anything).

Set up once (the course's venv, then a scratch folder for the proxy)::

    pip install -e ".[hub]"
    npm install --prefix /tmp/classroom-chp configurable-http-proxy

Run::

    python benchmarks/classroom_hub.py                       # N = 5, 10, 20, 30; lab 01
    python benchmarks/classroom_hub.py --students 5 --lab 04-dns-caches --chp /path/to/configurable-http-proxy
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import platform
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "classroom-results.json"
DEFAULT_CHP = Path("/tmp/classroom-chp/node_modules/.bin/configurable-http-proxy")
MAX_STUDENTS = 40  # a bound on what one run may start
CELL_TIMEOUT_S = 300.0  # one cell, however loaded the machine
CLASS_TIMEOUT_S = 1200.0  # one class size, spawn to last widget update
WIDGET_RUNS = 10
#: lab -> (widget model name, description) of the control the students move
CONTROLS = {"01-enactor-race": ("IntSliderModel", "Seed"), "04-dns-caches": ("IntSliderModel", None)}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    k = (len(values) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


# --- memory and CPU sampling ------------------------------------------------------------------


class Sampler(threading.Thread):
    """Peak RSS of each single-user server and each kernel under the hub process; kernels' CPU time."""

    def __init__(self, hub_pid: int, period_s: float = 0.5) -> None:
        super().__init__(daemon=True)
        self.hub_pid, self.period_s = hub_pid, period_s
        self.server_peak: dict[int, int] = {}
        self.kernel_peak: dict[int, int] = {}
        self.kernel_cpu: dict[int, float] = {}
        self.total_peak = 0
        self.stop_event = threading.Event()

    def run(self) -> None:
        import psutil

        while not self.stop_event.is_set():
            try:
                hub = psutil.Process(self.hub_pid)
                procs = [hub, *hub.children(recursive=True)]
            except psutil.NoSuchProcess:
                return
            total = 0
            for p in procs:
                try:
                    cmd = " ".join(p.cmdline())
                    rss = p.memory_info().rss
                    total += rss
                    if "ipykernel_launcher" in cmd:
                        self.kernel_peak[p.pid] = max(self.kernel_peak.get(p.pid, 0), rss)
                        t = p.cpu_times()
                        self.kernel_cpu[p.pid] = t.user + t.system
                    elif "jupyterhub-singleuser" in cmd:
                        self.server_peak[p.pid] = max(self.server_peak.get(p.pid, 0), rss)
                except (psutil.NoSuchProcess, psutil.AccessDenied):
                    continue
            self.total_peak = max(self.total_peak, total)
            self.stop_event.wait(self.period_s)


# --- the hub --------------------------------------------------------------------------------


class Hub:
    """JupyterHub on 127.0.0.1 with local process spawners; ``stop()`` ends it and every server."""

    def __init__(self, workdir: Path, chp: Path, n: int) -> None:
        self.workdir, self.chp, self.n = workdir, chp, n
        self.port, self.hub_port, self.api_port = _free_port(), _free_port(), _free_port()
        self.token = secrets.token_hex(32)
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None

    def config(self) -> str:
        bindir = Path(sys.executable).parent
        return f"""
c = get_config()  # noqa
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {self.port}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {self.hub_port}
c.ConfigurableHTTPProxy.command = [{str(self.chp)!r}]
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{self.api_port}"
c.ConfigurableHTTPProxy.should_start = True
c.JupyterHub.db_url = "sqlite:///{self.workdir}/hub.sqlite"
c.JupyterHub.cookie_secret_file = "{self.workdir}/cookie_secret"
c.JupyterHub.pid_file = "{self.workdir}/hub.pid"
c.JupyterHub.cleanup_servers = True
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allow_all = True
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = "{self.workdir}/home/{{username}}"
c.Spawner.cmd = [{str(bindir / "jupyterhub-singleuser")!r}]
c.Spawner.ip = "127.0.0.1"
# Jupyter Server refuses to run as root without this; this machine runs everything as root.
c.Spawner.args = {["--allow-root"] if os.geteuid() == 0 else []!r}
c.Spawner.start_timeout = 300
c.Spawner.http_timeout = 300
c.Spawner.environment = {{"PATH": {str(bindir)!r} + ":/usr/bin:/bin",
                          "JUPYTER_CONFIG_DIR": "{self.workdir}/jupyter-config"}}
c.JupyterHub.concurrent_spawn_limit = {max(self.n, 1)}
c.JupyterHub.active_server_limit = {self.n}
c.JupyterHub.services = [{{"name": "classroom-load-test", "api_token": "{self.token}"}}]
c.JupyterHub.load_roles = [{{"name": "classroom-load-test", "services": ["classroom-load-test"],
    "scopes": ["admin:users", "admin:servers", "tokens", "access:servers"]}}]
"""

    def start(self) -> None:
        (self.workdir / "home").mkdir(parents=True)
        (self.workdir / "jupyter-config").mkdir()
        cfg = self.workdir / "jupyterhub_config.py"
        cfg.write_text(self.config(), encoding="utf-8")
        log = open(self.workdir / "hub.log", "w")  # noqa: SIM115 (closed with the process)
        self.proc = subprocess.Popen(
            [str(Path(sys.executable).parent / "jupyterhub"), "-f", str(cfg)],
            cwd=self.workdir,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # the hub stops its servers (cleanup_servers) and the proxy
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(60)
        # Whatever is left of the process group this hub started (proxy, servers, kernels).
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc = None


# --- one student ------------------------------------------------------------------------------


def _message(msg_type: str, content: dict, session: str, channel: str = "shell") -> dict:
    return {
        "header": {
            "msg_id": uuid.uuid4().hex,
            "username": "student",
            "session": session,
            "msg_type": msg_type,
            "version": "5.3",
            "date": datetime.now(UTC).isoformat(),
        },
        "parent_header": {},
        "metadata": {},
        "content": content,
        "channel": channel,
        "buffers": [],
    }


class Student:
    def __init__(self, hub: Hub, name: str, cells: list[str], control: tuple[str, str | None]) -> None:
        self.hub, self.name, self.cells, self.control = hub, name, cells, control
        self.cell_s: list[float] = []
        self.widget_s: list[float] = []
        self.failures: list[str] = []
        self.spawn_s: float | None = None

    async def _api(self, client, method: str, url: str, token: str, body: object | None = None):
        from tornado.httpclient import HTTPRequest

        req = HTTPRequest(
            url,
            method=method,
            headers={"Authorization": f"token {token}"},
            body=None if body is None and method == "GET" else json.dumps(body or {}),
            request_timeout=CELL_TIMEOUT_S,
            allow_nonstandard_methods=True,
        )
        response = await client.fetch(req, raise_error=False)
        if response.code >= 400:
            raise RuntimeError(f"{method} {url}: HTTP {response.code} {response.body[:200]!r}")
        return json.loads(response.body) if response.body else None

    async def login_and_spawn(self, client) -> str:
        api = f"{self.hub.url}/hub/api"
        await self._api(client, "POST", f"{api}/users/{self.name}", self.hub.token)
        token = (
            await self._api(
                client,
                "POST",
                f"{api}/users/{self.name}/tokens",
                self.hub.token,
                {"note": "classroom load test", "expires_in": 3600},
            )
        )["token"]
        started = time.perf_counter()
        await self._api(client, "POST", f"{api}/users/{self.name}/server", token)
        while True:
            user = await self._api(client, "GET", f"{api}/users/{self.name}", token)
            server = (user.get("servers") or {}).get("", {})
            if server.get("ready"):
                break
            if not server.get("pending") and not server.get("ready"):
                raise RuntimeError(f"{self.name}'s server stopped while starting")
            await asyncio.sleep(0.5)
        self.spawn_s = time.perf_counter() - started
        return token

    async def run(self, client) -> None:
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        token = await self.login_and_spawn(client)
        base = f"{self.hub.url}/user/{self.name}"
        kernel = await self._api(client, "POST", f"{base}/api/kernels", token, {"name": "python3"})
        ws = await websocket_connect(
            HTTPRequest(
                f"ws://127.0.0.1:{self.hub.port}/user/{self.name}/api/kernels/{kernel['id']}/channels",
                headers={"Authorization": f"token {token}"},
            ),
            max_message_size=64 * 1024 * 1024,
        )
        session = uuid.uuid4().hex
        comms: dict[str, dict] = {}

        async def request(msg: dict) -> tuple[str, int]:
            """Send one shell message; wait for the kernel's idle status for it. -> (status, iopub count)."""
            ws.write_message(json.dumps(msg))
            msg_id, status, outputs = msg["header"]["msg_id"], "ok", 0
            deadline = time.monotonic() + CELL_TIMEOUT_S
            while True:
                raw = await asyncio.wait_for(ws.read_message(), timeout=max(deadline - time.monotonic(), 0.1))
                if raw is None:
                    raise RuntimeError("kernel websocket closed")
                if isinstance(raw, bytes):
                    continue  # binary frames: widget buffers, not needed here
                reply = json.loads(raw)
                kind = reply["header"]["msg_type"]
                if kind == "comm_open":
                    comms[reply["content"]["comm_id"]] = reply["content"].get("data", {}).get("state", {})
                if reply.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                if (kind == "execute_reply" and reply["content"].get("status") != "ok") or kind == "error":
                    status = f"{reply['content'].get('ename')}: {reply['content'].get('evalue')}"
                elif kind not in ("status", "execute_input", "execute_reply"):
                    outputs += 1
                elif kind == "status" and reply["content"]["execution_state"] == "idle":
                    return status, outputs

        try:
            for i, code in enumerate(self.cells):
                t0 = time.perf_counter()
                status, _ = await request(
                    _message(
                        "execute_request",
                        {
                            "code": code,
                            "silent": False,
                            "store_history": True,
                            "user_expressions": {},
                            "allow_stdin": False,
                            "stop_on_error": False,
                        },
                        session,
                    )
                )
                self.cell_s.append(time.perf_counter() - t0)
                if status != "ok":
                    self.failures.append(f"cell {i}: {status}")
            model, description = self.control
            targets = [
                cid
                for cid, s in comms.items()
                if s.get("_model_name") == model and (description is None or s.get("description") == description)
            ]
            if not targets:
                self.failures.append(f"no {model} {description!r} control was displayed")
                return
            comm_id = targets[-1]
            start_value = int(comms[comm_id].get("value", 0))
            for k in range(WIDGET_RUNS):
                t0 = time.perf_counter()
                status, outputs = await request(
                    _message(
                        "comm_msg",
                        {
                            "comm_id": comm_id,
                            "data": {"method": "update", "state": {"value": start_value + k + 1}, "buffer_paths": []},
                        },
                        session,
                    )
                )
                self.widget_s.append(time.perf_counter() - t0)
                if status != "ok" or outputs == 0:
                    self.failures.append(f"widget update {k}: {status if status != 'ok' else 'nothing redrawn'}")
        finally:
            ws.close()
            await self._api(client, "DELETE", f"{base}/api/kernels/{kernel['id']}", token)


# --- one class size -------------------------------------------------------------------------


def lab_cells(lab: str) -> list[str]:
    import nbformat

    nb = nbformat.read(ROOT / "student" / f"{lab}.ipynb", as_version=4)
    return [c.source for c in nb.cells if c.cell_type == "code"]


async def _wait_for_hub(hub: Hub, client) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if hub.proc is not None and hub.proc.poll() is not None:
            raise RuntimeError(f"the hub exited; see {hub.workdir / 'hub.log'}")
        try:
            r = await client.fetch(f"{hub.url}/hub/api/", raise_error=False, request_timeout=5)
            if r.code == 200:
                return
        except OSError:
            pass
        await asyncio.sleep(0.5)
    raise RuntimeError("the hub did not answer within 120 s")


async def one_class(n: int, lab: str, chp: Path, keep: Path | None) -> dict:
    from tornado.httpclient import AsyncHTTPClient

    AsyncHTTPClient.configure(None, max_clients=4 * n + 10)
    client = AsyncHTTPClient()
    workdir = Path(tempfile.mkdtemp(prefix=f"classroom-{n}-"))
    hub = Hub(workdir, chp, n)
    cells = lab_cells(lab)
    students = [Student(hub, f"student{i:02d}", cells, CONTROLS[lab]) for i in range(n)]
    started = time.perf_counter()
    sampler = None
    errors: list[str] = []
    try:
        hub.start()
        await _wait_for_hub(hub, client)
        sampler = Sampler(hub.proc.pid)
        sampler.start()
        results = await asyncio.wait_for(
            asyncio.gather(*(s.run(client) for s in students), return_exceptions=True), CLASS_TIMEOUT_S
        )
        errors = [
            f"{s.name}: {type(r).__name__}: {r}"
            for s, r in zip(students, results, strict=False)
            if isinstance(r, BaseException)
        ]
    except TimeoutError:
        errors.append(f"the class did not finish within {CLASS_TIMEOUT_S:.0f} s")
    finally:
        if sampler is not None:
            sampler.stop_event.set()
            sampler.join(5)
        hub.stop()
        if keep is not None:
            shutil.copy2(workdir / "hub.log", keep / f"hub-{n}.log")
        shutil.rmtree(workdir, ignore_errors=True)
    cell_s = [t for s in students for t in s.cell_s]
    widget_s = [t for s in students for t in s.widget_s]
    failures = errors + [f"{s.name}: {f}" for s in students for f in s.failures]
    mib = 1024 * 1024
    servers = sorted(sampler.server_peak.values()) if sampler else []
    kernels = sorted(sampler.kernel_peak.values()) if sampler else []
    return {
        "students": n,
        "lab": lab,
        "code_cells": len(cells),
        "wall_s": time.perf_counter() - started,
        "spawn_s_p50": _pct([s.spawn_s for s in students if s.spawn_s], 0.5),
        "spawn_s_p90": _pct([s.spawn_s for s in students if s.spawn_s], 0.9),
        "cell_s_p50": _pct(cell_s, 0.5),
        "cell_s_p90": _pct(cell_s, 0.9),
        "cells_timed": len(cell_s),
        "lab_s_p50": _pct([sum(s.cell_s) for s in students if len(s.cell_s) == len(cells)], 0.5),
        "lab_s_max": max([sum(s.cell_s) for s in students if len(s.cell_s) == len(cells)], default=None),
        "widget_s_p50": _pct(widget_s, 0.5),
        "widget_s_p90": _pct(widget_s, 0.9),
        "widget_updates": len(widget_s),
        "server_peak_mib_max": servers[-1] / mib if servers else None,
        "server_peak_mib_p50": _pct(servers, 0.5) / mib if servers else None,
        "kernel_peak_mib_max": kernels[-1] / mib if kernels else None,
        "kernel_peak_mib_p50": _pct(kernels, 0.5) / mib if kernels else None,
        "class_peak_mib": sampler.total_peak / mib if sampler else None,
        "kernel_cpu_s_per_student": (
            statistics.median(sampler.kernel_cpu.values()) if sampler and sampler.kernel_cpu else None
        ),
        "servers_seen": len(servers),
        "kernels_seen": len(kernels),
        "failures": len(failures),
        "failure_details": failures[:20],
        # The machine may be shared: the 1-minute load average when the class ended, beside its cores.
        "load_average_1min_at_end": os.getloadavg()[0],
    }


# --- report and sizing ----------------------------------------------------------------------


def _f(x: float | None, spec: str = ".2f") -> str:
    return "n/a" if x is None else format(x, spec)


def table(rows: list[dict]) -> str:
    head = (
        "| Students | p50 cell (s) | p90 cell (s) | p50 widget update (s) | p90 widget update (s) | "
        "peak per user server (MiB) | peak per kernel (MiB) | whole class peak (MiB) | "
        "kernel CPU per student (s) | failures |"
    )
    lines = [head, "|" + "|".join(["---"] * 10) + "|"]
    for r in rows:
        lines.append(
            f"| {r['students']} | {_f(r['cell_s_p50'])} | {_f(r['cell_s_p90'])} | {_f(r['widget_s_p50'])} | "
            f"{_f(r['widget_s_p90'])} | {_f(r['server_peak_mib_max'], '.0f')} | "
            f"{_f(r['kernel_peak_mib_max'], '.0f')} | "
            f"{_f(r['class_peak_mib'], '.0f')} | {_f(r['kernel_cpu_s_per_student'], '.1f')} | {r['failures']} |"
        )
    return "\n".join(lines)


#: What the sizing assumes: a whole class presses "Run all" at the same moment, and each student's
#: lab should finish within this many seconds (the labs' own target for a run after a restart).
RUN_ALL_TARGET_S = 60.0
HEADROOM = 1.25  # memory: 25 % over the measured peaks


def sizing(data: dict) -> list[dict]:
    """Cores and memory for classes of 10, 30 and 100, from the measured rows (largest class measured)."""
    rows = [r for r in data["runs"] if r["failures"] == 0 and r["kernel_cpu_s_per_student"]]
    if not rows:
        raise SystemExit("no run without failures in the results file")
    ref = max(rows, key=lambda r: r["students"])
    per_student_mib = ref["server_peak_mib_max"] + ref["kernel_peak_mib_max"]
    hub_mib = max(
        0.0, ref["class_peak_mib"] - ref["students"] * (ref["server_peak_mib_p50"] + ref["kernel_peak_mib_p50"])
    )
    cpu = ref["kernel_cpu_s_per_student"]
    out = []
    for size in (10, 30, 100):
        cores = max(2, math.ceil(size * cpu / RUN_ALL_TARGET_S))
        memory_gib = (hub_mib + size * per_student_mib) * HEADROOM / 1024
        out.append(
            {
                "class": size,
                "cores": cores,
                "memory_gib": math.ceil(memory_gib),
                "per_student_mib": per_student_mib,
                "cpu_s_per_student": cpu,
                "from_students": ref["students"],
            }
        )
    return out


def sizing_table(data: dict) -> str:
    lines = ["| Class | Cores | Memory (GiB) | From |", "|---|---|---|---|"]
    for s in sizing(data):
        lines.append(
            f"| {s['class']} | {s['cores']} | {s['memory_gib']} | {s['cpu_s_per_student']:.1f} s of kernel CPU and "
            f"{s['per_student_mib']:.0f} MiB per student (run with {s['from_students']} students) |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, nargs="+", default=[5, 10, 20, 30])
    parser.add_argument("--lab", default="01-enactor-race", choices=sorted(CONTROLS))
    parser.add_argument(
        "--chp",
        type=Path,
        default=Path(os.environ.get("CHP", DEFAULT_CHP)),
        help="the configurable-http-proxy executable (npm install --prefix DIR configurable-http-proxy)",
    )
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--logs", type=Path, default=None, help="keep each hub's log in this folder")
    parser.add_argument("--sizing", action="store_true", help="print the sizing table from --out and exit")
    args = parser.parse_args(argv)
    if args.sizing:
        print(sizing_table(json.loads(args.out.read_text(encoding="utf-8"))))
        return 0
    if any(not 1 <= n <= MAX_STUDENTS for n in args.students):
        parser.error(f"--students must be between 1 and {MAX_STUDENTS}, got {args.students}")
    if not args.chp.is_file():
        parser.error(
            f"--chp: no configurable-http-proxy at {args.chp}; run "
            f"`npm install --prefix {DEFAULT_CHP.parents[2]} configurable-http-proxy`"
        )
    if shutil.which("jupyterhub-singleuser", path=str(Path(sys.executable).parent)) is None:
        parser.error('jupyterhub is not installed in this environment: pip install -e ".[hub]"')
    if args.logs:
        args.logs.mkdir(parents=True, exist_ok=True)
    rows = []
    for n in args.students:
        print(f"== {n} students, lab {args.lab} ...", flush=True)
        row = asyncio.run(one_class(n, args.lab, args.chp, args.logs))
        rows.append(row)
        print(table([row]).splitlines()[-1], flush=True)
        for detail in row["failure_details"][:5]:
            print("   failure:", detail)
    import psutil

    data = {
        "measured": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": "python benchmarks/classroom_hub.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "machine": {
            "cores": os.cpu_count(),
            "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
            "python": platform.python_version(),
        },
        "widget_runs_per_student": WIDGET_RUNS,
        "run_all_target_s": RUN_ALL_TARGET_S,
        "memory_headroom": HEADROOM,
        "runs": rows,
    }
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print()
    print(table(rows))
    print()
    print(sizing_table(data))
    print(f"\nwritten: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
