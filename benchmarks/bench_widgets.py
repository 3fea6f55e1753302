"""Widget latency: kernel-side time of one panel update, new value -> finished redraw.

For every non-training panel of the registry ``bmlab.widgets.PANELS``: the time of
``panel.set(...)`` (the panel's ``update`` plus rendering the figure to PNG, which is what the
inline backend sends to the browser) over ~20 random settings of its controls, always including
all controls at their minimum and all at their maximum. Targets on 2 cores: median <= 150 ms,
worst <= 300 ms. Training panels are exempt: for them, the time of one run at the default
settings. Times are measured in this one run on this machine, whatever else it is doing (the
load average is printed). The exit status is non-zero only if a panel crashed (an exception or
an error shown in its status line), never for a missed target.

    .venv/bin/python benchmarks/bench_widgets.py [--settings 20] [--panels NAME ...]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import sys
import time
import traceback
import zlib
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from widget_settings import settings

TARGET_MEDIAN = 0.150
TARGET_WORST = 0.300


def render_seconds(panel) -> float:
    """Time of rendering the figure as it stands to PNG (the redraw part of an update)."""
    start = time.perf_counter()
    panel.render()
    return time.perf_counter() - start


def bench_panel(name, builder, n_settings):
    """Return (kind, build seconds, update+redraw seconds, redraw-only seconds, errors)."""
    # outside a kernel the panel's display() prints a repr per redraw: keep the table readable
    with contextlib.redirect_stdout(io.StringIO()):
        return _bench_panel(name, builder, n_settings)


def _bench_panel(name, builder, n_settings):
    start = time.perf_counter()
    panel = builder()
    build = time.perf_counter() - start
    errors = []
    if panel.training:
        times = [panel.set()]  # one run at the default settings
        renders = [render_seconds(panel)]
    else:
        panel.set()  # warm-up: first draw caches fonts and text layout
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        times, renders = [], []
        for setting in settings(panel.controls, n_settings, rng, each_extreme=False):
            times.append(panel.set(**setting))
            renders.append(render_seconds(panel))
            if panel.last_error:
                errors.append(f"{setting}: {panel.last_error}")
    if panel.training and panel.last_error:
        errors.append(f"default run: {panel.last_error}")
    return ("training" if panel.training else "live"), build, times, renders, errors


def main(argv=None) -> int:
    from bmlab.widgets import PANELS

    builders = {name: b for panels in PANELS.values() for name, b in panels.items()}

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--settings", type=int, default=20, help="settings per live panel")
    parser.add_argument("--panels", nargs="*", help="panel names (default: all)")
    args = parser.parse_args(argv)

    names = args.panels or list(builders)
    print(
        f"bench_widgets: {len(names)} panel(s), {args.settings} settings per live panel, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}"
    )
    print(
        f"targets for live panels: median <= {TARGET_MEDIAN * 1e3:.0f} ms, "
        f"worst <= {TARGET_WORST * 1e3:.0f} ms (update + PNG redraw, as panel.set times it);"
    )
    print("build: building the panel; PNG: median of rendering the figure alone\n")
    header = (
        f"{'panel':<22} {'kind':<8} {'build':>7} {'median':>7} {'worst':>7} "
        f"{'PNG':>7} {'n':>3}  verdict"
    )
    print(header)
    print("-" * len(header))
    crashed = []
    missed = []
    for name in names:
        try:
            kind, build, times, renders, errors = bench_panel(name, builders[name], args.settings)
        except Exception:
            crashed.append(name)
            print(f"{name:<22} CRASHED")
            traceback.print_exc()
            continue
        median, worst = statistics.median(times), max(times)
        if kind == "training":
            verdict = "exempt (one default run)"
        elif median <= TARGET_MEDIAN and worst <= TARGET_WORST:
            verdict = "ok"
        else:
            verdict = "MISSED target"
            missed.append(name)
        if errors:
            crashed.append(name)
            verdict += f"; {len(errors)} error(s), first: {errors[0]}"
        render = statistics.median(renders)
        print(
            f"{name:<22} {kind:<8} {build * 1e3:5.0f}ms {median * 1e3:5.0f}ms "
            f"{worst * 1e3:5.0f}ms {render * 1e3:5.0f}ms {len(times):>3}  {verdict}",
            flush=True,
        )
    print()
    if missed:
        print(
            f"missed the latency target: {', '.join(missed)} "
            f"(load average now {os.getloadavg()[0]:.2f})"
        )
    if crashed:
        print(f"CRASHED: {', '.join(crashed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
