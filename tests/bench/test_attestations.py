"""bench/attestations.py runs and prints its figures (its numbers are not judged here: they are the
machine's)."""
import subprocess
import sys

from bench.server import PROJECT_ROOT


def test_the_attestation_benchmark_exports_verifies_and_prints_per_cpu_second():
    done = subprocess.run([sys.executable, "bench/attestations.py", "--count", "3"], cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("attestations: 3 exported, then verified")
    assert [line.split()[0] for line in lines[1:]] == ["export", "verify", "export+verify"]
    assert all("per CPU-second" in line for line in lines[1:])
