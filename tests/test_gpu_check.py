"""``scripts/gpu-check``: without CUDA it says so and exits 0 (with CUDA it runs the CUDA-marked
tests and the GPU benchmarks, which this machine cannot check)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA: the script runs the GPU checks")
def test_gpu_check_without_cuda_says_so_and_exits_0():
    env = dict(os.environ, PYTHON=sys.executable)
    done = subprocess.run([str(ROOT / "scripts" / "gpu-check")], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no CUDA device" in done.stdout
