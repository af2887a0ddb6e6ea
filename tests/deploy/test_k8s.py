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
from match_launch.stack import SERVICES

ROOT = Path(__file__).resolve().parents[2]


def pod(name: str) -> dict:  # type: ignore[type-arg]
    path = "statefulset.yaml" if name == "ledger" else "deployment.yaml"
    workload = yaml.safe_load((ROOT / "deploy" / "k8s" / "base" / name / path).read_text())
    return workload["spec"]["template"]["spec"]  # type: ignore[no-any-return]


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
