"""The pods' secret files: kubelet mounts a Secret volume group-readable when the pod has an
fsGroup (whatever defaultMode says), which every service refuses; each pod's init container
copies the files to private ones. This runs that init container's own command (from the
manifest, its paths moved under tmp_path) and checks the services accept what it makes."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

from match_bus.secretfiles import SecretFileError, check_private
from match_deploy import check
from match_launch.stack import SERVICES

ROOT = Path(__file__).resolve().parents[2]


def pod(name: str) -> dict:  # type: ignore[type-arg]
    """The pod of service ``name``'s workload (a Deployment, or a StatefulSet for the services
    that keep a file: the ledger and the players service)."""
    (path,) = [
        p
        for p in (ROOT / "deploy" / "k8s" / "base" / name).glob("*.yaml")
        if p.name in ("deployment.yaml", "statefulset.yaml")
    ]
    workload = yaml.safe_load(path.read_text())
    return workload["spec"]["template"]["spec"]  # type: ignore[no-any-return]


def test_deploy_runs_every_service_the_local_stack_runs() -> None:
    """`make deploy-check` checks deploy/ has every service of check.SERVICES (and that those
    are the NATS identities); this keeps them the services `make run` starts."""
    assert sorted(check.SERVICES) == sorted(SERVICES)


def test_every_service_is_wired_in_the_base() -> None:
    """check_services on the base's own files, without kustomize: the same parts the deploy
    check asks of every rendering (its metrics Service and port, PDB, NATS identity, policies)."""
    base = yaml.safe_load((ROOT / "deploy" / "k8s" / "base" / "kustomization.yaml").read_text())
    docs = [
        doc
        for resource in base["resources"]
        for doc in yaml.safe_load_all((ROOT / "deploy" / "k8s" / "base" / resource).read_text())
        if doc
    ]
    check.check_services("deploy/k8s/base", docs)
    check.check_scrape_jobs()
    assert check.base_metrics_ports()["players"] == 9106


@pytest.mark.parametrize("name", SERVICES)
def test_the_init_container_makes_files_the_service_accepts(name: str, tmp_path: Path) -> None:
    spec = pod(name)
    (init,) = spec["initContainers"]
    mounts = {m["name"]: m["mountPath"] for m in init["volumeMounts"]}
    given, private = tmp_path / "in", tmp_path / "out"
    given.mkdir()
    private.mkdir()
    # as kubelet leaves them: the projected volume's defaultMode, group read for fsGroup
    mode = next(v for v in spec["volumes"] if v["name"] == "secrets-in")["projected"]["defaultMode"]
    assert mode & 0o040, "kubelet adds group read with fsGroup anyway; the test assumes it"
    for source in next(v for v in spec["volumes"] if v["name"] == "secrets-in")["projected"][
        "sources"
    ]:
        for item in source["secret"]["items"]:
            (given / item["path"]).write_text("secret\n")
            (given / item["path"]).chmod(mode)
            with pytest.raises(SecretFileError, match="open to others"):
                check_private(given / item["path"])
    script = init["command"][-1]
    script = script.replace(mounts["secrets-in"], str(given))
    script = script.replace(mounts["secrets"], str(private))
    subprocess.run([*init["command"][:-1], script], check=True)
    made = sorted(p.name for p in private.iterdir())
    assert made == sorted(p.name for p in given.iterdir())
    for path in private.iterdir():
        check_private(path)  # the service's own check passes
        assert path.stat().st_uid == os.getuid()
    # and the service reads them from the private copy, never from the mounted volume
    (container,) = spec["containers"]
    assert {m["name"] for m in container["volumeMounts"]} >= {"secrets"}
    assert "secrets-in" not in {m["name"] for m in container["volumeMounts"]}
    files = [e["value"] for e in container["env"] if e["name"].endswith("_FILE")]
    assert files and all(f.startswith(mounts["secrets"] + "/") for f in files)
