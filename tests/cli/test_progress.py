"""The progress line: on a terminal, for work over about a second; never on a pipe,
never for JSON."""

from __future__ import annotations

import io
import os
import sys
import time

import pytest

from rolloutctl.render import progress as PR
from rolloutctl.render.progress import Progress, heartbeat_wanted, wanted


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_wanted_only_on_a_terminal_and_for_human_formats():
    assert wanted("table", Tty(), Tty())
    assert not wanted("table", io.StringIO(), Tty())  # stderr piped
    assert not wanted("table", Tty(), io.StringIO())  # stdout piped
    assert not wanted("json", Tty(), Tty()) and not wanted("yaml", Tty(), Tty())


def test_short_work_shows_nothing():
    err = Tty()
    with Progress("planning", True, stderr=err, delay=5):
        pass
    assert err.getvalue() == ""


def _long_work(**kw) -> str:
    """What a Progress line writes for work that outlasts its delay, updated once on the way."""
    err = Tty()
    with Progress("planning", True, stderr=err, delay=0, **kw) as p:
        for _ in range(100):
            if err.getvalue():
                break
            time.sleep(0.02)
        p.update("PodCliqueSet default/bench: 50 steps")
        time.sleep(0.2)
    return err.getvalue()


def test_long_work_shows_a_line_that_follows_the_work():
    assert "planning" in _long_work()


def test_disabled_shows_nothing():
    err = Tty()
    with Progress("planning", False, stderr=err, delay=0):
        time.sleep(0.1)
    assert err.getvalue() == ""


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "win32", reason="needs a pseudo-terminal")
def test_a_long_plan_on_a_terminal_shows_progress_on_stderr(tmp_path):
    """Run the real command on a pseudo-terminal: the 40-replica rollout takes a few
    seconds, long enough for the line to appear."""
    import json
    import pty
    import subprocess

    from bench.workloads import large_pcs, with_image

    old = large_pcs(2000)
    (tmp_path / "old.json").write_text(json.dumps(old))
    (tmp_path / "new.json").write_text(json.dumps(with_image(old, "engine:2")))
    leader, follower = pty.openpty()
    env = {**os.environ, "COLUMNS": "100", "TERM": "xterm"}
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen([sys.executable, "-m", "rolloutctl", "plan", str(tmp_path / "new.json"), "--observed",
                             str(tmp_path / "old.json"), "--no-color"], stdin=follower, stdout=subprocess.DEVNULL,
                            stderr=follower, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=120)
    os.close(leader)
    # stdout is not a terminal here (DEVNULL): the line is suppressed like on a pipe
    assert b"planning" not in b"".join(chunks)
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "rolloutctl", "plan", str(tmp_path / "new.json"), "--observed",
                             str(tmp_path / "old.json"), "--no-color"], stdin=follower, stdout=follower,
                            stderr=follower, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    assert proc.wait(timeout=120) == 0
    os.close(leader)
    out = b"".join(chunks).decode("utf-8", "replace")
    assert "planning" in out and "converges in 1201 steps" in out


def test_no_color_means_a_plain_spinner():
    """--no-color / NO_COLOR reach the progress line too: no colour codes, only the line's own redraws."""
    import re

    out = _long_work(color=False)
    assert "planning" in out
    assert not re.search(r"\x1b\[[0-9;]*m", out.replace("\x1b[0m", "")), repr(out[:200])


def test_heartbeat_only_in_ci_and_only_when_stderr_is_a_log():
    assert heartbeat_wanted({"CI": "true"}, io.StringIO())
    assert heartbeat_wanted({"CI": "1"}, io.StringIO())
    assert not heartbeat_wanted({"CI": "true"}, Tty())  # a terminal gets the spinner instead
    assert not heartbeat_wanted({}, io.StringIO()) and not heartbeat_wanted({"CI": "false"}, io.StringIO())


def test_a_heartbeat_line_follows_the_work_and_stops_with_it():
    err = io.StringIO()
    with Progress("advising", False, stderr=err, heartbeat=True, first=0.05, every=0.05) as p:
        p.update("RayService default/svc: 12 candidates planned")
        time.sleep(0.3)
    lines = err.getvalue().splitlines()
    assert lines and lines[0].startswith("rolloutctl: still advising: RayService default/svc: 12 candidates planned (")
    assert all(x.endswith(" s)") for x in lines)
    time.sleep(0.15)
    assert err.getvalue().splitlines() == lines  # nothing after the work ended


def test_short_work_in_ci_writes_no_heartbeat():
    err = io.StringIO()
    with Progress("planning", False, stderr=err, heartbeat=True):
        pass
    assert err.getvalue() == ""


def test_advise_in_ci_writes_heartbeat_lines_on_stderr_and_leaves_json_alone(cli, monkeypatch):
    from tests.conftest import SAMPLES

    monkeypatch.setenv("CI", "true")
    monkeypatch.setattr(PR, "HEARTBEAT_FIRST", 0.0)
    monkeypatch.setattr(PR, "HEARTBEAT_EVERY", 0.2)
    r = cli("advise", str(SAMPLES / "disaggregated-inference-v2.yaml"), "--observed",
            str(SAMPLES / "disaggregated-inference.yaml"), "-o", "json")
    assert r.exit_code == 0, r.stderr
    assert r.json()["kind"] in ("Advice", "AdviceList")
    assert [x for x in r.stderr.splitlines() if x.startswith("rolloutctl: still advising")], r.stderr


def test_advise_writes_heartbeat_lines_on_any_stderr_that_is_not_a_terminal(tmp_path):
    """advise can run for minutes: outside CI too, a log or a pipe gets a plain line now
    and then; a terminal does not (it has the spinner), CI=false turns it off, and a
    machine format whose standard output is standard error's file gets none."""
    assert heartbeat_wanted({}, io.StringIO(), outside_ci=True)
    assert not heartbeat_wanted({}, io.StringIO())  # plan, compare and lint: only in CI
    assert not heartbeat_wanted({}, Tty(), outside_ci=True)
    assert not heartbeat_wanted({"CI": "false"}, io.StringIO(), outside_ci=True)
    log = tmp_path / "log"
    with open(log, "w") as err, open(log, "w") as out, open(tmp_path / "other", "w") as other:
        assert not heartbeat_wanted({}, err, outside_ci=True, fmt="json", stdout=out)  # -o json 2>&1
        assert heartbeat_wanted({}, err, outside_ci=True, fmt="table", stdout=out)
        assert heartbeat_wanted({}, err, outside_ci=True, fmt="json", stdout=other)


def test_advise_outside_ci_writes_heartbeat_lines_on_stderr_and_leaves_json_alone(cli, monkeypatch):
    from tests.conftest import SAMPLES

    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(PR, "HEARTBEAT_FIRST", 0.0)
    monkeypatch.setattr(PR, "HEARTBEAT_EVERY", 0.2)
    r = cli("advise", str(SAMPLES / "disaggregated-inference-v2.yaml"), "--observed",
            str(SAMPLES / "disaggregated-inference.yaml"), "-o", "json")
    assert r.exit_code == 0, r.stderr
    assert r.json()["kind"] == "Advice"
    lines = r.stderr.splitlines()
    assert lines and all(x.startswith("rolloutctl: still advising") for x in lines), r.stderr
    # plan keeps the CI-only heartbeat
    r = cli("plan", str(SAMPLES / "disaggregated-inference.yaml"), "-o", "json")
    assert r.exit_code == 0 and r.stderr == ""
