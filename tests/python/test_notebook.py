"""A notebook-style session (notebook_session.py) run end to end in a fresh interpreter,
with only the module's own way of finding the engine (IMPACTSWEEP)."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def test_notebook_session_end_to_end(tmp_path, impactsweep_binary):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "analysis"), MPLBACKEND="Agg",
               IMPACTSWEEP=impactsweep_binary)
    proc = subprocess.run([sys.executable, os.path.join(HERE, "notebook_session.py"),
                           os.path.join(ROOT, "jobs"), str(tmp_path)],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "notebook session: done" in proc.stdout
    for figure in ("map.png", "cor.png"):
        with open(tmp_path / figure, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n", figure
