"""Atomic writes: a failed or interrupted write leaves the old file byte-identical."""
import os

import pytest

from burn_torch.atomic_file import atomic_write, atomic_write_bytes


def test_atomic_write_replaces_the_content(tmp_path):
    path = tmp_path / "f.bin"
    path.write_bytes(b"old")
    atomic_write_bytes(path, b"new content")
    assert path.read_bytes() == b"new content"


@pytest.mark.parametrize("error", [OSError("disk full"), KeyboardInterrupt()])
def test_a_write_that_fails_midway_leaves_the_old_file_and_no_temporary(tmp_path, error):
    path = tmp_path / "f.bin"
    path.write_bytes(b"old")

    def write(f):
        f.write(b"partial")
        raise error

    with pytest.raises(type(error)):
        atomic_write(path, write)
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["f.bin"]


def test_atomic_write_creates_a_missing_file(tmp_path):
    atomic_write_bytes(tmp_path / "new.bin", b"x")
    assert (tmp_path / "new.bin").read_bytes() == b"x"


def test_a_group_write_writes_every_file_and_leaves_no_temporary(tmp_path):
    from burn_torch.atomic_file import atomic_write_group
    (tmp_path / "a").write_bytes(b"old")
    atomic_write_group([(tmp_path / "a", b"A" * 100_000), (tmp_path / "b", b"B")])
    assert (tmp_path / "a").read_bytes() == b"A" * 100_000 and (tmp_path / "b").read_bytes() == b"B"
    assert sorted(os.listdir(tmp_path)) == ["a", "b"]


def test_a_group_write_that_fails_leaves_the_old_files_and_no_temporary(tmp_path):
    from burn_torch.atomic_file import atomic_write_group
    (tmp_path / "a").write_bytes(b"old")
    with pytest.raises(TypeError):
        atomic_write_group([(tmp_path / "a", b"new"), (tmp_path / "b", "not bytes")])
    assert (tmp_path / "a").read_bytes() == b"old" and os.listdir(tmp_path) == ["a"]
