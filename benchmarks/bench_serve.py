"""Live-preview benchmark (run by hand, not by the tests): prints figures, asserts nothing.

    python benchmarks/bench_serve.py [--edits 10]

Starts `cardgen serve` on a scratch copy of the project, listens to its server-sent events as the
page does, and edits one card's name in the YAML again and again. Prints, per edit, the time
from saving the file to the `update` event (what the open page waits for) and how many cards the
server rendered again, then the median and maximum. The target is a one-card edit on the page
within 1 s.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from cardgen.data.project import load_project

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--edits", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project = load_project(ROOT).copy_sources(Path(tmp) / "project").root
        proc = subprocess.Popen([sys.executable, "-m", "cardgen", "--project", str(project), "serve",
                                 "--version", "3.1", "--port", "0", "--no-browser"],
                                stderr=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONUNBUFFERED="1"))
        url = re.search(r"(http://\S+/)", proc.stderr.readline()).group(1)
        events = urllib.request.urlopen(url + "events", timeout=30)
        _next_update(events)  # the state at connection time
        print(f"serving {url}", flush=True)
        file = project / "versions/kings-blade/1.yml"
        text = file.read_text(encoding="utf-8")
        latencies, rendered = [], []
        for i in range(args.edits):
            name = f"Katana Hilt {i}"
            started = time.perf_counter()
            file.write_text(text.replace("name: Katana Hilt", f"name: {name}"), encoding="utf-8")
            _next_update(events)
            latencies.append(time.perf_counter() - started)
            state = json.loads(urllib.request.urlopen(url + "state.json").read())
            rendered.append(state["rendered"])
            print(f"edit {i + 1:>2}: update after {latencies[-1] * 1000:6.0f} ms, {rendered[-1]} card(s) rendered")
        proc.terminate()
        proc.wait()
    print(f"median {statistics.median(latencies) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms "
          f"over {len(latencies)} one-card edits (load average {os.getloadavg()[0]:.1f})")


def _next_update(stream) -> None:
    for raw in stream:
        if raw.startswith(b"event: update"):
            return


if __name__ == "__main__":
    main()
