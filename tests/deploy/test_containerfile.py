"""deploy/Containerfile cannot be built here (no container runtime runs on these machines), so
what can be checked is checked: it installs with exactly `make install` (and copies everything
that reads), runs as the non-root user the Kubernetes pods expect, and its entrypoint starts
`python -m services.<name>` for the name it is given."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import yaml

from match_launch.stack import SERVICES

ROOT = Path(__file__).resolve().parents[2]
CONTAINERFILE = ROOT / "deploy" / "Containerfile"


def instructions() -> list[tuple[str, str]]:
    text = re.sub(r"\\\n", " ", CONTAINERFILE.read_text())
    found = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            found.append((word.upper(), rest.strip()))
    return found


def test_it_installs_with_make_install_and_nothing_else() -> None:
    runs = [rest for word, rest in instructions() if word == "RUN"]
    installs = [r for r in runs if "make install" in r]
    assert installs == ["make install PYTHON=python3.11"], runs
    # the only other packages it installs are make, to run that, and Node.js with npm, which
    # make install needs to build the web client
    others = [r for r in runs if r not in installs]
    assert not any(re.search(r"\bpip\b|\bpython\b", r) for r in others), others
    apt = [r for r in others if "apt-get install" in r]
    assert len(apt) == 1 and re.search(r"--no-install-recommends make nodejs npm\b", apt[0]), apt


def test_it_copies_what_make_install_reads() -> None:
    # make's own recipe for install (forced, printed, not run): the files it uses
    recipe = subprocess.run(
        ["make", "-n", "-B", "install"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert "pip install --quiet -e '.[dev]'" in recipe
    assert "python3.11 -m venv .venv" in recipe
    copied = {
        source
        for word, rest in instructions()
        if word == "COPY"
        for source in shlex.split(rest)[:-1]
    }
    # pip install -e . reads pyproject.toml and finds the packages under libs/ and services/;
    # the web client is built from web/
    assert "npm ci" in recipe or "npm run" in recipe, recipe
    assert {"Makefile", "pyproject.toml", "libs", "services", "web"} <= copied, copied
    assert instructions()[-3:][0][0] == "USER"  # nothing after the install runs as root


def test_it_runs_as_the_non_root_user_the_pods_expect() -> None:
    users = [rest for word, rest in instructions() if word == "USER"]
    assert users == ["10001:10001"]
    for name in SERVICES:
        (path,) = [
            p
            for p in (ROOT / "deploy" / "k8s" / "base" / name).glob("*.yaml")
            if p.name in ("deployment.yaml", "statefulset.yaml")
        ]
        workload = yaml.safe_load(path.read_text())
        context = workload["spec"]["template"]["spec"]["securityContext"]
        assert (context["runAsUser"], context["runAsGroup"]) == (10001, 10001), name
        assert workload["spec"]["template"]["spec"]["containers"][0]["args"] == [name]


def test_the_entrypoint_starts_the_service_it_is_given() -> None:
    entry = next(rest for word, rest in instructions() if word == "ENTRYPOINT")
    command = yaml.safe_load(entry)  # JSON form
    assert command[:2] == ["/bin/sh", "-c"]
    python = "/app/.venv/bin/python"
    assert python in command[2]
    for name in SERVICES:
        assert (ROOT / "services" / name / "__main__.py").exists()
        shown = subprocess.run(
            [*command[:2], command[2].replace(python, "echo"), name],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert shown.split() == ["-m", f"services.{name}"]
    default = next(rest for word, rest in instructions() if word == "CMD")
    assert yaml.safe_load(default) == ["lobby"]
