"""A class at once: N kernels of one Jupyter server run a notebook concurrently.

Starts a Jupyter server on 127.0.0.1 (as a JupyterHub's single-user server, with
``OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1`` per user unless ``--threads`` says otherwise), and
for each class size N starts N kernels through its REST API and runs every code cell of the
notebook in all of them at once over the kernels' websockets, as JupyterLab's Run All does.
Meanwhile one more kernel shows a live panel, and its first slider is moved every 0.5 s (a
``comm_msg`` as the browser sends it) until the class is done; the slider latency is the time
from the message to the kernel's idle after redrawing.

Reported per N: wall time of each Run All (median and worst), CPU-seconds and peak memory
(``VmHWM``) of each kernel, the server's memory, and the slider latency (median and 90th
percentile). Then a sizing table: memory per student (a server and a kernel, as on a hub),
students per GiB, and CPU-seconds per Run All, hence Run Alls per core and minute. CPU-seconds
and memory hardly depend on what else the machine does; wall times and latencies do: note the
load average (printed) and re-run on an idle machine for the README.

    .venv/bin/python benchmarks/bench_class.py                    # N = 1, 2, 4, 8; notebook 01
    .venv/bin/python benchmarks/bench_class.py --students 1 4 --notebook notebooks/05_....ipynb
    .venv/bin/python benchmarks/bench_class.py --figure docs/class_size.png --json out.json

Nothing in the repository is written unless ``--figure``/``--json`` name a file.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

from tornado.websocket import websocket_connect

ROOT = Path(__file__).resolve().parent.parent
TICKS = os.sysconf("SC_CLK_TCK")
TOKEN = uuid.uuid4().hex  # the server's token: requests that carry it need no XSRF cookie
PANEL = "from bmlab.widgets import PANELS\npanel = next(iter(PANELS['01'].values()))()\npanel"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def api(base: str, path: str, method: str = "GET", data: bytes | None = None):
    """A request to the server's REST API, authenticated by its token."""
    headers = {"Authorization": f"token {TOKEN}"}
    return urllib.request.Request(f"http://{base}{path}", data, headers, method=method)


def proc_stats(pid: int) -> tuple[float, float]:
    """CPU-seconds (user + system, with waited-for children) and peak resident MiB of a
    process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = sum(int(f) for f in fields[11:15]) / TICKS  # utime stime cutime cstime
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return cpu, int(line.split()[1]) / 1024
    return cpu, float("nan")


def kernel_pid(kernel_id: str) -> int:
    """The process whose command line names the kernel's connection file."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if f"kernel-{kernel_id}.json".encode() in cmdline:
                return int(entry.name)
    raise LookupError(f"no process for kernel {kernel_id}")


class Kernel:
    """One kernel of the server, driven over its websocket as JupyterLab drives it."""

    def __init__(self, base: str):
        self.base = base
        with urllib.request.urlopen(api(base, "/api/kernels", "POST", b"{}"), timeout=60) as resp:
            self.id = json.load(resp)["id"]
        self.session = uuid.uuid4().hex
        self.pid = kernel_pid(self.id)
        self.ws = None
        self.widgets: dict[str, dict] = {}  # comm id -> state, from comm_open messages

    async def connect(self):
        url = f"ws://{self.base}/api/kernels/{self.id}/channels?session_id={self.session}"
        self.ws = await websocket_connect(f"{url}&token={TOKEN}")

    async def send(self, msg_type: str, content: dict, channel: str = "shell") -> str:
        msg_id = uuid.uuid4().hex
        header = {"msg_id": msg_id, "msg_type": msg_type, "session": self.session}
        header |= {"username": "bench", "version": "5.3", "date": ""}
        msg = {"header": header, "parent_header": {}, "metadata": {}, "content": content}
        await self.ws.write_message(json.dumps(msg | {"channel": channel}))
        return msg_id

    async def until_idle(self, msg_id: str) -> list[dict]:
        """Messages answering ``msg_id`` until the kernel's idle; fails on an error."""
        got = []
        while True:
            raw = await self.ws.read_message()
            if raw is None:
                raise RuntimeError(f"kernel {self.id}: websocket closed")
            msg = json.loads(raw)
            if msg["msg_type"] == "comm_open":
                self.widgets[msg["content"]["comm_id"]] = msg["content"]["data"]["state"]
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            got.append(msg)
            if msg["msg_type"] == "error" or msg["content"].get("status") == "error":
                raise RuntimeError(f"kernel {self.id}: {msg['content'].get('evalue')}")
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                return got

    async def execute(self, code: str) -> list[dict]:
        content = {"code": code, "silent": False, "store_history": True}
        content |= {"user_expressions": {}, "allow_stdin": False, "stop_on_error": True}
        return await self.until_idle(await self.send("execute_request", content))

    async def run_all(self, cells: list[str]) -> float:
        start = time.monotonic()
        for code in cells:
            await self.execute(code)
        return time.monotonic() - start

    def shutdown(self):
        request = api(self.base, f"/api/kernels/{self.id}", "DELETE")
        urllib.request.urlopen(request, timeout=60).close()


async def move_slider(panel: Kernel, stop: asyncio.Event, latencies: list[float]) -> None:
    """Move the panel's first slider one step back and forth every 0.5 s until ``stop``."""
    comm, state = next(
        (c, s) for c, s in panel.widgets.items() if s.get("_model_name", "").endswith("SliderModel")
    )
    values = [state["value"], min(state["max"], state["value"] + state["step"])]
    if values[0] == values[1]:
        values[1] = state["value"] - state["step"]
    turn = 0
    while not stop.is_set():
        turn += 1
        data = {"method": "update", "state": {"value": values[turn % 2]}, "buffer_paths": []}
        start = time.monotonic()
        replies = await panel.until_idle(
            await panel.send("comm_msg", {"comm_id": comm, "data": data})
        )
        if any(m["msg_type"] in ("display_data", "comm_msg", "clear_output") for m in replies):
            latencies.append(time.monotonic() - start)  # a redraw happened
        await asyncio.sleep(0.5)


async def one_class(base: str, cells: list[str], n: int) -> dict:
    panel = Kernel(base)
    await panel.connect()
    await panel.execute(PANEL)
    kernels = [Kernel(base) for _ in range(n)]
    for kernel in kernels:
        await kernel.connect()
    stop, latencies = asyncio.Event(), []
    slider = asyncio.ensure_future(move_slider(panel, stop, latencies))
    walls = await asyncio.gather(*(k.run_all(cells) for k in kernels))
    stop.set()
    await slider
    stats = [proc_stats(k.pid) for k in kernels]
    _, panel_mib = proc_stats(panel.pid)
    for kernel in [*kernels, panel]:
        kernel.ws.close()
        kernel.shutdown()
    return {
        "students": n,
        "wall": sorted(walls),
        "cpu": [round(c, 2) for c, _ in stats],
        "peak_mib": [round(m, 1) for _, m in stats],
        "slider": sorted(latencies),
        "panel_mib": round(panel_mib, 1),
    }


def start_server(work: Path, threads: int | None) -> tuple[subprocess.Popen, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "MPLBACKEND"))}
    for var in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR"):
        (work / var).mkdir()
        env[var] = str(work / var)
    if threads:
        env |= {"OPENBLAS_NUM_THREADS": str(threads), "OMP_NUM_THREADS": str(threads)}
    port = free_port()
    argv = [sys.executable, "-m", "jupyter", "server", "--allow-root", "--ServerApp.ip=127.0.0.1"]
    argv += [
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={TOKEN}",
    ]
    argv += ["--ServerApp.password=", f"--ServerApp.root_dir={work}"]
    log = open(work / "server.log", "w")  # open while the server runs
    server = subprocess.Popen(argv, env=env, cwd=work, stdout=log, stderr=subprocess.STDOUT)
    base = f"127.0.0.1:{port}"
    for _ in range(300):
        try:
            urllib.request.urlopen(api(base, "/api/status"), timeout=2).close()
            return server, base
        except OSError:
            time.sleep(0.2)
    server.terminate()
    raise RuntimeError((work / "server.log").read_text()[-2000:])


def code_cells(notebook: Path) -> list[str]:
    cells = json.loads(notebook.read_text())["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


def sizing(results: list[dict], server_mib: float) -> list[str]:
    """The sizing table, from the largest class measured."""
    last = results[-1]
    kernel = max(last["peak_mib"])
    panel = last["panel_mib"]
    student = kernel + server_mib
    cpu = statistics.median(last["cpu"])
    return [
        "| per student | value |",
        "| --- | --- |",
        f"| peak memory of a kernel after Run All | {kernel:.0f} MiB |",
        f"| a Jupyter server of its own (hub), at start | {server_mib:.0f} MiB |",
        f"| server and one notebook | {student:.0f} MiB: {1024 / student:.1f} students per GiB |",
        f"| a dashboard's kernel (one live panel) | {panel:.0f} MiB more |",
        f"| CPU per Run All | {cpu:.1f} CPU-s: {60 / cpu:.1f} Run Alls per core and minute |",
    ]


def report(results: list[dict], server_mib: float, load: str) -> str:
    lines = [
        f"load average at start: {load}",
        "| students | Run All median | worst | CPU-s per kernel | peak MiB per kernel "
        "| slider median | slider p90 |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in results:
        slider = r["slider"] or [float("nan")]
        p90 = slider[min(len(slider) - 1, int(0.9 * len(slider)))]
        lines.append(
            f"| {r['students']} | {statistics.median(r['wall']):.1f} s | {max(r['wall']):.1f} s "
            f"| {statistics.median(r['cpu']):.1f} | {max(r['peak_mib']):.0f} "
            f"| {1000 * statistics.median(slider):.0f} ms | {1000 * p90:.0f} ms |"
        )
    return "\n".join([*lines, "", *sizing(results, server_mib)])


def figure(results: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import bmlab

    bmlab.use_style()
    n = [r["students"] for r in results]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained")
    cpu = statistics.median(results[0]["cpu"])
    cores = os.cpu_count() or 1
    ideal = [max(cpu, k * cpu / cores) for k in n]
    ax1.plot(n, ideal, "--", color=bmlab.GRAY, label="N × CPU-s ÷ cores (no faster)")
    ax1.plot(
        n, [statistics.median(r["wall"]) for r in results], "o-", color=bmlab.ORANGE, label="median"
    )
    ax1.plot(n, [max(r["wall"]) for r in results], "s:", color=bmlab.ORANGE, label="worst")
    ax1.set(
        xlabel="students running Run All at once",
        ylabel="Run All wall time (s)",
        title="Run All of one notebook",
        xticks=n,
        ylim=(0, None),
    )
    ax1.legend(loc="upper left")
    ax2.plot(
        n,
        [1000 * statistics.median(r["slider"] or [0]) for r in results],
        "o-",
        color=bmlab.ORANGE,
        label="median",
    )
    ax2.axhline(150, ls="--", color=bmlab.GRAY, label="150 ms")
    ax2.set(
        xlabel="students running Run All at once",
        ylabel="slider to redrawn (ms)",
        title="A live panel meanwhile",
        xticks=n,
        ylim=(0, None),
    )
    ax2.legend(loc="upper left")
    fig.savefig(path, dpi=100)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument(
        "--notebook", default=str(ROOT / "notebooks" / "01_glauber_convergence.ipynb")
    )
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads per kernel (0: unset)")
    parser.add_argument("--figure", type=Path)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    notebook = Path(args.notebook).resolve()
    cells = code_cells(notebook)
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    with tempfile.TemporaryDirectory(prefix="bmlab-class-") as tmp:
        work = Path(tmp)
        shutil.copy(notebook, work / notebook.name)
        server, base = start_server(work, args.threads or None)
        try:
            _, server_mib = proc_stats(server.pid)
            results = []
            for n in args.students:
                results.append(asyncio.run(one_class(base, cells, n)))
                print(
                    f"{n} students: Run All {statistics.median(results[-1]['wall']):.1f} s median",
                    flush=True,
                )
            _, server_end = proc_stats(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=30)
    text = report(results, server_mib, load)
    text += f"\n\nthe server's peak after all classes: {server_end:.0f} MiB"
    print(
        f"{notebook.name}, BLAS threads per kernel: {args.threads or 'unset'}, "
        f"{os.cpu_count()} cores"
    )
    print(text)
    if args.json:
        payload = {
            "notebook": notebook.name,
            "threads": args.threads,
            "load": load,
            "server_mib": server_mib,
            "results": results,
        }
        args.json.write_text(json.dumps(payload, indent=1) + "\n")
    if args.figure:
        figure(results, args.figure)


if __name__ == "__main__":
    main()
