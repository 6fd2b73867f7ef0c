"""Fuzz: YAML scene files — random bytes, mutated bundled scenes, damaged text (issue 15).

Every input is written to a file and opened as a user opens one (`km.Scene.load(path)`): it
must give a ValueError (SceneFileError, SceneError, RobotFileError) with a message, or a scene
whose check and distance answer at its configuration and that saves and loads back to the same
answers.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import example, given
from hypothesis import strategies as st

import kinematica as km
from kinematica.scene import scene_names

from fuzzing import bounded, fuzz_settings, mutated_text, mutated_tree

FOLDER = Path(km.__file__).parent / "scene" / "scenes"
TEXT = {n: (FOLDER / f"{n}.yaml").read_text(encoding="utf-8") for n in scene_names()}
TREE = {n: yaml.safe_load(t) for n, t in TEXT.items()}


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz-scene-files")


def open_scene_file(folder: Path, data: bytes) -> None:
    path = folder / "fuzzed.yaml"
    path.write_bytes(data)
    what = f"scene file {data[:300]!r}"
    with bounded(what):
        try:
            scene = km.Scene.load(path)
        except ValueError as e:
            assert str(e).strip(), f"{what}: {type(e).__name__} with an empty message"
            return
        rep, dist = scene.check(), scene.distance()
        assert isinstance(rep.colliding, bool), what
        assert np.isfinite(dist.min_distance) or (dist.pair is None and not scene.compiled().collider.n_pairs), what
        again = km.Scene.load(scene.save(folder / "saved.yaml"))
        assert again.check().collisions == rep.collisions, what


@fuzz_settings(1)
@given(data=st.binary(max_size=1000))
@example(data=b"\xff\xfe\x00garbage")
@example(data=b"[1, 2, 3]")
@example(data=b"robots: 5")
@example(data=b"robots:\n  - {name: a, robot: braccio, q: [1e308, 0, 0, 0, 0]}\n")
@example(data=b"obstacles:\n  - {name: t, shape: box, size: [1e308, 1e308, 1e308]}\n")
def test_random_bytes(folder, data):
    open_scene_file(folder, data)


@fuzz_settings(1)
@given(data=st.data(), name=st.sampled_from(sorted(TREE)))
def test_mutated_bundled_scene(folder, data, name):
    tree = data.draw(mutated_tree(TREE[name]))
    open_scene_file(folder, yaml.safe_dump(tree, allow_unicode=True, sort_keys=False).encode("utf-8"))


@fuzz_settings(1)
@given(data=st.data(), name=st.sampled_from(sorted(TEXT)))
def test_damaged_text(folder, data, name):
    open_scene_file(folder, data.draw(mutated_text(TEXT[name])).encode("utf-8"))
