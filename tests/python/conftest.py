"""Shared fixtures of the Python tests: the built binary (IMPACTSWEEP, set by ctest), the
analysis/ packages on the path, and one small result file per session."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "analysis"))
os.environ.setdefault("MPLBACKEND", "Agg")


def binary() -> str:
    path = os.environ.get("IMPACTSWEEP", os.path.join(ROOT, "build", "impactsweep"))
    if not os.access(path, os.X_OK):
        pytest.skip(f"no impactsweep binary at {path} (set IMPACTSWEEP)")
    return path


@pytest.fixture(scope="session")
def impactsweep_binary():
    path = binary()
    os.environ["IMPACTSWEEP"] = path
    return path


@pytest.fixture(scope="session")
def chatter_file(tmp_path_factory, impactsweep_binary):
    """A 6 x 5 chatter map (n = 4, 16 drops a point) on one rank."""
    out = str(tmp_path_factory.mktemp("results") / "chatter.h5")
    subprocess.run([impactsweep_binary, "run", os.path.join(ROOT, "jobs", "example.ini"),
                    "--output", out, "--quiet", "--set", "axis.rho.count=6",
                    "--set", "axis.gamma.count=5", "--set", "model.samples=16"], check=True)
    return out


@pytest.fixture(scope="session")
def collision_file(tmp_path_factory, impactsweep_binary):
    """A 5 x 4 bwshc CoR surface (DOPRI5) on one rank."""
    out = str(tmp_path_factory.mktemp("results") / "collision.h5")
    subprocess.run([impactsweep_binary, "run",
                    os.path.join(ROOT, "jobs", "collision_bwshc_surface.ini"),
                    "--output", out, "--quiet", "--set", "axis.pi1.count=5",
                    "--set", "axis.pi2.count=4"], check=True)
    return out
