"""Issue 26 item 9: a cold build sends each face to the workers as soon as it is drawn and
preflighted, and its fork server is started before the data is loaded. The faces and findings
are those of the card stage without it; a build that fails after faces were sent (`--strict`)
still writes nothing into its output folder and says one line."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from cardgen import pipeline
from cardgen.buildtypes import BuildOptions, Progress
from cardgen.cardstage import draw_cards
from cardgen.data.project import load_project
from cardgen.data.validate import ValidationFailed
from cardgen.data.versions import load_game, resolve
from cardgen.render.rasterise import Rasteriser
from cardgen.render.workers import Workers, drawing_workers

V1 = "versions/kings-blade/1.yml"
LONG = "Katana Hilt of the Extraordinarily Long and Winding Name That Never Ends"


def _mini(mini_shared: Path):
    project = load_project(mini_shared)
    return project, resolve(project, load_game(project, None), None)


def test_each_face_is_handed_on_as_it_is_drawn_and_the_stage_is_the_same(mini_shared):
    project, snapshot = _mini(mini_shared)
    handed: list[str] = []
    streamed = draw_cards(project, snapshot, on_face=lambda face: handed.append(face.key))
    plain = draw_cards(project, snapshot)
    faces = list(plain.rendered.faces.values()) + list(plain.rendered.backs.values())
    # every face, in the order drawn (cards, then backs): each one as soon as it was ready
    assert sorted(handed) == sorted(face.key for face in faces) and len(handed) == len(faces) > 3
    assert handed[:len(plain.rendered.faces)] == [f.key for f in plain.rendered.faces.values()]
    assert streamed.rendered == plain.rendered and streamed.findings == plain.findings
    assert [t.stage for t in streamed.timings] == ["validate", "render", "preflight"]


def test_no_face_is_handed_on_after_one_fails_to_render(project_copy):
    path = project_copy / "templates/kings-blade/forge-token.svg.j2"
    path.write_text(path.read_text().replace("{{ icon(card.art,", '{{ icon("kings-blade/no-such-icon", 1, 1, 2) }}'
                                                                  "{{ icon(card.art,", 1))
    project = load_project(project_copy)
    snapshot = resolve(project, load_game(project, None), "3.1")
    handed: list[str] = []
    drawn = draw_cards(project, snapshot, on_face=lambda face: handed.append(face.key))
    keys = [f"card-{card.id}" for card in snapshot.cards]
    broken = keys.index("card-forge-token")
    assert drawn.errors and 0 < len(handed) <= broken
    assert set(handed) <= set(keys[:broken])
    with pytest.raises(ValidationFailed):
        drawn.faces()


def test_faces_offered_to_ready_workers_are_queued_at_once_and_not_twice(mini, tmp_path, monkeypatch):
    """Offered while the card stage draws, each face's render is queued at once; `plan` and
    `submit` then queue nothing more, and the files are the bytes a render in one process gives."""
    monkeypatch.setenv("CARDGEN_CACHE_DIR", str(tmp_path / "cache"))
    project, snapshot = _mini(mini)
    options = BuildOptions(out_dir=tmp_path / "out")
    with drawing_workers(project, 2).start() as workers:
        while not workers.ready:  # a cold build's workers are made while the data loads
            workers._starter.join(0.05)
        rasteriser = Rasteriser(project, options, Progress(), workers)
        submitted: list[str] = []
        submit = workers.submit
        monkeypatch.setattr(workers, "submit", lambda fn, job: submitted.append(job.key) or submit(fn, job))
        rendered = draw_cards(project, snapshot, on_face=lambda face: rasteriser.offer(face, workers)).faces()
        queued_while_drawing = list(submitted)
        files, jobs = rasteriser.plan(rendered)
        rasteriser.wait(jobs, rasteriser.submit(jobs, workers))
    assert queued_while_drawing == submitted == [job.key for job in jobs] == list(files)
    monkeypatch.setenv("CARDGEN_CACHE_DIR", str(tmp_path / "here"))
    here = Rasteriser(project, options, Progress(), Workers(1, project.fonts_dir))
    here_files, here_jobs = here.plan(rendered)
    here.wait(here_jobs, None)
    for key, ff in files.items():
        assert ff.pdf.read_bytes() == here_files[key].pdf.read_bytes()
        assert ff.png.read_bytes() == here_files[key].png.read_bytes()


def test_a_strict_build_failing_after_faces_were_sent_writes_nothing(cli, project_copy, tmp_path, monkeypatch):
    """--strict with a preflight warning: the faces drawn went to ready workers already; the
    build still stops with its one line, its output folder is never made and no worker is left."""
    path = project_copy / V1
    path.write_text(path.read_text().replace("name: Katana Hilt", f"name: {LONG}", 1))
    pools: list[Workers] = []
    pids: list[int] = []
    make = pipeline._workers

    def ready_at_once(*args):  # as on a quiet machine: the workers are made before the first face
        workers = make(*args)
        while not workers.ready:
            workers._starter.join(0.05)
        pools.append(workers)
        pids.extend(workers.pids())
        return workers

    monkeypatch.setattr(pipeline, "_workers", ready_at_once)
    offered: list[str] = []
    offer = Rasteriser.offer
    monkeypatch.setattr(Rasteriser, "offer", lambda self, face, workers: offered.append(face.key)
                        or offer(self, face, workers))
    out = tmp_path / "out"
    result = cli("build", "--version", "3.1", "--paper", "a4", "--no-png", "--no-rulebook", "--strict",
                 "--force", "-j", "2", "--out", str(out), cwd=project_copy)
    assert result.code == 1
    assert result.err.splitlines()[-1].endswith("and --strict; nothing was built"), result.err
    assert "Traceback" not in result.err
    assert not out.exists()
    assert len(offered) > 20 and len(pools) == 1 and len(pids) == 2
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in pids)  # the workers ended with the build


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
