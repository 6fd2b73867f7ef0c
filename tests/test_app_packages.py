"""A URDF with `package://` meshes opened from the simulator's UI (issue 32, item 2): the URDF
and its package folder uploaded as one .zip load with their meshes; a URDF alone says its
missing meshes in ONE notification; a malicious zip (a `..` path, a zip bomb, a link) is refused
in words and writes nothing outside its folder. example-robot-data's real UR5 and meshes."""

from __future__ import annotations

import io
import sysconfig
import zipfile
from pathlib import Path

import numpy as np
import pytest
from app_user import one
from nicegui.testing import User

from kinematica.app import packages
from kinematica.app.simulator import SimulatorTab
from kinematica.errors import InputError

ROBOTS = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix/share/example-robot-data/robots"
UR = ROBOTS / "ur_description"
pytestmark = [pytest.mark.skipif(not (UR / "urdf/ur5_robot.urdf").is_file(), reason="example-robot-data not installed")]


def ur5_zip(*urdfs: str) -> bytes:
    """The package as a user zips it: example-robot-data/robots/ur_description/{urdf, meshes/ur5}
    (the URDF names its meshes package://example-robot-data/robots/ur_description/meshes/...)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name in urdfs or ("ur5_robot.urdf",):
            z.write(UR / "urdf" / name, f"example-robot-data/robots/ur_description/urdf/{name}")
        for f in sorted((UR / "meshes/ur5").rglob("*")):
            if f.is_file():
                z.write(f, f"example-robot-data/robots/ur_description/{f.relative_to(UR).as_posix()}")
    return buf.getvalue()


def zip_of(entries: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return buf.getvalue()


async def upload(user: User, name: str, data: bytes) -> None:
    from nicegui.elements.upload_files import SmallFileUpload

    user.find(marker="open-robot-file").click()
    await user.should_see(marker="robot-upload")
    await one(user, "robot-upload").handle_uploads([SmallFileUpload(name, "application/zip", data)])


# --- through the page ------------------------------------------------------------------------
@pytest.mark.asyncio
async def test_the_ur5_zip_loads_with_every_mesh_from_its_package_folder(user: User) -> None:
    await upload(user, "ur_description.zip", ur5_zip())
    await user.should_see("ur5: 6 joints")
    assert user.notify.messages == []  # every mesh found: nothing to warn about
    tab = shown_tab(user)
    robot = tab.session.robot
    meshes = [v for v in robot.visuals if v.kind == "mesh"]
    assert len(meshes) == 7  # one per link: base, shoulder, upper arm, forearm, wrists 1–3
    folder = tab.zips.folder
    assert folder is not None
    for v in meshes:
        assert Path(v.path).is_file() and Path(v.path).is_relative_to(folder) and v.path.endswith(".dae")
    # the collision model has the real meshes too (no capsules standing in)
    assert one(user, "robot-select").value == tab.session.robot_name
    # the page's folder goes with its client
    user.client.delete()
    assert not folder.exists()


@pytest.mark.asyncio
async def test_a_reload_keeps_the_meshes_until_the_last_page_goes(user: User) -> None:
    await upload(user, "ur_description.zip", ur5_zip())
    await user.should_see("ur5: 6 joints")
    old = user.client
    folder = shown_tab(user).zips.folder
    await user.open("/")  # a reload: the new page opens, then the old one is deleted
    old.delete()
    await user.should_see("ur5: 6 joints")
    robot = shown_tab(user).session.robot
    meshes = [v for v in robot.visuals if v.kind == "mesh"]
    assert len(meshes) == 7 and all(Path(v.path).is_file() for v in meshes)
    assert folder is not None and folder.exists()
    user.client.delete()
    assert not folder.exists()


@pytest.mark.asyncio
async def test_a_zip_with_several_urdfs_lets_the_user_pick_one(user: User) -> None:
    await upload(user, "ur.zip", ur5_zip("ur5_robot.urdf", "ur5_joint_limited_robot.urdf"))
    await user.should_see("Choose the robot in ur.zip")
    select = one(user, "zip-urdf-select")
    assert sorted(select.options) == sorted(f"example-robot-data/robots/ur_description/urdf/{n}"
                                            for n in ("ur5_joint_limited_robot.urdf", "ur5_robot.urdf"))
    select.value = "example-robot-data/robots/ur_description/urdf/ur5_joint_limited_robot.urdf"
    user.find(marker="zip-urdf-open").click()
    await user.should_see("6 joints")
    assert user.notify.messages == []


@pytest.mark.asyncio
async def test_the_urdf_alone_gives_one_summarised_warning(user: User) -> None:
    await upload(user, "ur5_robot.urdf", (UR / "urdf/ur5_robot.urdf").read_bytes())
    await user.should_see("ur5: 6 joints")
    assert len(user.notify.messages) == 1, user.notify.messages  # not one per link (8 before)
    text = user.notify.messages[0]
    assert "14 mesh files not found under package 'example-robot-data'" in text  # 7 visual + 7 collision
    assert ".zip" in text and "collision" in text


@pytest.mark.asyncio
async def test_a_package_folder_on_the_server_serves_the_urdf_alone(user: User) -> None:
    user.find(marker="open-robot-file").click()
    one(user, "package-dir").value = str(ROBOTS.parent)  # the folder named after the package
    await upload(user, "ur5_robot.urdf", (UR / "urdf/ur5_robot.urdf").read_bytes())
    await user.should_see("ur5: 6 joints")
    assert user.notify.messages == []
    tab = shown_tab(user)
    meshes = [v for v in tab.session.robot.visuals if v.kind == "mesh"]
    assert len(meshes) == 7 and all(Path(v.path).resolve().is_relative_to((UR / "meshes/ur5/visual").resolve()) for v in meshes)


@pytest.mark.asyncio
async def test_a_package_folder_that_is_not_there_is_refused_in_words(user: User, tmp_path) -> None:
    user.find(marker="open-robot-file").click()
    one(user, "package-dir").value = str(tmp_path / "nowhere")
    await upload(user, "ur5_robot.urdf", (UR / "urdf/ur5_robot.urdf").read_bytes())
    await user.should_see("is not a folder on the server's machine")
    assert one(user, "robot-select").value == "braccio"


@pytest.mark.asyncio
@pytest.mark.parametrize("case", ["climbs", "absolute", "bomb", "no-urdf", "not-a-zip"])
async def test_a_bad_zip_is_refused_in_words(user: User, case: str) -> None:
    data = {
        "climbs": zip_of({"pkg/robot.urdf": b"<robot name='x'/>", "../../evil.txt": b"x"}),
        "absolute": zip_of({"/tmp/evil.urdf": b"<robot name='x'/>"}),
        "bomb": zip_of({"pkg/robot.urdf": b"<robot name='x'/>", "pkg/big.stl": bytes(300 * 2**20)}),
        "no-urdf": zip_of({"pkg/readme.txt": b"hello"}),
        "not-a-zip": b"PK but not really",
    }[case]
    before = one(user, "robot-select").value
    await upload(user, "pkg.zip", data)
    await user.should_see(marker="robot-upload-error")
    said = one(user, "robot-upload-error").text
    assert said.startswith("Not opened — pkg.zip:")
    assert {"climbs": "outside the folder", "absolute": "outside the folder", "bomb": "zip bomb",
            "no-urdf": "holds no .urdf", "not-a-zip": "not a .zip"}[case] in said
    assert one(user, "robot-select").value == before


# --- the pure pieces -------------------------------------------------------------------------
def test_a_zip_over_the_unpacked_bound_is_refused_before_writing(tmp_path, monkeypatch) -> None:
    """Random bytes do not pack: no member looks like a bomb, only the total is over."""
    monkeypatch.setattr(packages, "MAX_UNPACKED", 2**20)
    rng = np.random.default_rng(0)
    data = zip_of({"a.bin": rng.bytes(3 * 2**18), "b.bin": rng.bytes(3 * 2**18)})
    with pytest.raises(InputError, match="more than the 1 MB"):
        packages.unpack(data, tmp_path / "out", "x.zip")
    assert not (tmp_path / "out").exists()


def test_a_symbolic_link_is_refused(tmp_path) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        info = zipfile.ZipInfo("pkg/link")
        info.external_attr = (0o120777 << 16)
        z.writestr(info, "/etc/passwd")
    with pytest.raises(InputError, match="symbolic link"):
        packages.unpack(buf.getvalue(), tmp_path / "out", "x.zip")
    assert not (tmp_path / "out").exists()


def shown_tab(user: User):
    """The Simulator tab of the user's page (an earlier test's page may still be in memory)."""
    import gc

    def on_page(tab: SimulatorTab) -> bool:
        try:
            return tab.robot_drop.upload.client is user.client
        except RuntimeError:  # its client was deleted
            return False

    tabs = [o for o in gc.get_objects() if isinstance(o, SimulatorTab) and on_page(o)]
    assert len(tabs) == 1
    return tabs[0]


def test_package_dirs_serve_the_collision_meshes_too(tmp_path) -> None:
    """`package_dirs` found the visual meshes only: the collision meshes of a URDF away from its
    package fell back to capsules with one warning per link."""
    import warnings

    import kinematica as km

    urdf = tmp_path / "ur5_robot.urdf"
    urdf.write_bytes((UR / "urdf/ur5_robot.urdf").read_bytes())
    with warnings.catch_warnings():
        warnings.simplefilter("error", km.URDFWarning)
        robot = km.load(str(urdf), package_dirs=[ROBOTS.parent])
    shapes = [s for body in robot.extras["collision_shapes"].values() for s, _ in body if s["kind"] == "mesh"]
    assert all(Path(s["path"]).is_file() for s in shapes)
    assert {Path(s["path"]).name for s in shapes} == {p.name for p in (UR / "meshes/ur5/collision").glob("*.stl")}
    assert packages.missing_meshes(urdf, [ROBOTS.parent]) == {}
    assert sum(map(len, packages.missing_meshes(urdf).values())) == 14


def test_server_folders_are_refused_while_the_server_listens_beyond_this_machine(tmp_path):
    """`serve --host 0.0.0.0` must not let a visitor make the server read files under any path."""
    from kinematica.app import packages

    assert packages.server_dirs(str(tmp_path)) == (tmp_path,)
    packages.SERVER_FOLDERS["allowed"] = False
    try:
        with pytest.raises(InputError, match="off while it listens beyond this machine"):
            packages.server_dirs(str(tmp_path))
    finally:
        packages.SERVER_FOLDERS["allowed"] = True
