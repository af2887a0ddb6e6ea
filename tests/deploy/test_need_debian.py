"""tools/need-debian: how `make test`, `make deploy-check` and `make test-web` install the
Debian packages they need on a fresh machine. The real apt-get runs in CI on a fresh machine
(and `make deploy-check` there fails without promtool); here a stand-in apt-get on PATH records
what it was asked, so the script's own logic is checked without touching the system."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "need-debian"


def _executable(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def _fake_system(tmp_path: Path, provides: str) -> tuple[dict[str, str], Path, Path]:
    """A PATH whose apt-get logs its arguments (and whether the start-refusing policy-rc.d was
    in place) and, on install, makes the program ``provides``; whose id says root."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "apt.log"
    policy = tmp_path / "policy-rc.d"
    _executable(
        bin_dir / "apt-get",
        "#!/bin/sh\n"
        f'echo "$* policy=$(test -x {policy} && {policy}; echo $?)" >> {log}\n'
        f'case "$1" in install) printf "#!/bin/sh\\n" > {bin_dir}/{provides}; '
        f"chmod +x {bin_dir}/{provides};; esac\n",
    )
    _executable(bin_dir / "id", "#!/bin/sh\necho 0\n")
    env = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "NEED_DEBIAN_POLICY_RC": str(policy),
        "HOME": str(tmp_path),
    }
    return env, log, policy


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=30, check=False
    )


def test_a_missing_program_is_installed_with_services_kept_from_starting(tmp_path: Path) -> None:
    env, log, policy = _fake_system(tmp_path, "promtool-under-test")
    done = _run(env, "promtool-under-test", "prometheus")
    assert done.returncode == 0, done.stderr
    assert "installing Debian's prometheus" in done.stdout
    calls = log.read_text().splitlines()
    # exit 101 from policy-rc.d: "action forbidden", so no service starts during the install
    assert calls == [
        "update -qq policy=101",
        "install -y -qq --no-install-recommends prometheus policy=101",
    ]
    assert not policy.exists(), "the policy-rc.d the script made is removed again"


def test_a_present_program_installs_nothing(tmp_path: Path) -> None:
    env, log, _policy = _fake_system(tmp_path, "unused")
    done = _run(env, "sh", "prometheus")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert not log.exists()


def test_a_file_path_is_checked_as_a_file(tmp_path: Path) -> None:
    env, log, _policy = _fake_system(tmp_path, "unused")
    there = tmp_path / "font.ttf"
    there.write_text("")
    assert _run(env, str(there), "fonts-x").returncode == 0
    assert not log.exists()


def test_a_policy_of_the_machines_own_is_kept(tmp_path: Path) -> None:
    env, log, policy = _fake_system(tmp_path, "tool-under-test")
    _executable(policy, "#!/bin/sh\nexit 101\n")
    assert _run(env, "tool-under-test", "pkg").returncode == 0
    assert policy.exists()
    assert "install -y -qq --no-install-recommends pkg policy=101" in log.read_text()


def test_an_install_that_does_not_bring_the_program_fails(tmp_path: Path) -> None:
    env, _log, _policy = _fake_system(tmp_path, "something-else")
    done = _run(env, "still-missing", "pkg")
    assert done.returncode == 1
    assert "installed pkg but still-missing is still missing" in done.stderr


def test_make_test_and_deploy_check_install_prometheus_first() -> None:
    for target in ("test", "deploy-check"):
        planned = subprocess.run(
            ["make", "-n", target],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
            env={**os.environ, "MAKEFLAGS": ""},
        ).stdout
        assert "tools/need-debian promtool prometheus" in planned, target
        assert "tools/need-debian prometheus prometheus" in planned, target
