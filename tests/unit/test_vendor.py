"""The npm packages the build and the tests unpack without npm (devguide.dev.vendor)."""

from __future__ import annotations

import io
import tarfile

import pytest

from devguide.dev import vendor


def tarball(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def test_a_tarball_with_the_pinned_checksum_is_unpacked_without_its_package_folder(tmp_path):
    data = tarball({"package/axe.min.js": b"window.axe = {};", "package/../escape.js": b"x", "other/x.js": b"y"})
    package = vendor.Package("axe-core", "0.0.0", vendor.integrity(data))
    target = vendor.unpack(package, data, tmp_path / "axe-core")
    assert (target / "axe.min.js").read_bytes() == b"window.axe = {};"
    assert sorted(p.name for p in target.iterdir()) == ["axe.min.js"]
    assert not (tmp_path / "escape.js").exists()


def test_another_file_from_the_registry_is_refused_and_nothing_is_unpacked(tmp_path):
    package = vendor.PACKAGES["axe-core"]
    (tmp_path / "axe-core").mkdir()
    (tmp_path / "axe-core" / "axe.min.js").write_text("the good copy")
    with pytest.raises(vendor.VendorError, match=r"checksum .* expected sha512-.*devguide/dev/vendor.py"):
        vendor.unpack(package, tarball({"package/axe.min.js": b"tampered"}), tmp_path / "axe-core")
    assert (tmp_path / "axe-core" / "axe.min.js").read_text() == "the good copy"


def test_a_mirror_is_taken_from_npms_own_setting_and_an_unreachable_one_is_named(tmp_path):
    package = vendor.PACKAGES["iframe-worker"]
    assert vendor.tarball_url(package, {}) == "https://registry.npmjs.org/iframe-worker/-/iframe-worker-1.0.4.tgz"
    mirror = {"npm_config_registry": "https://registry.npmmirror.com/"}
    assert vendor.tarball_url(package, mirror).startswith("https://registry.npmmirror.com/iframe-worker/-/")

    def unreachable(url, timeout):
        raise OSError("no route to host")

    with pytest.raises(vendor.VendorError, match=r"registry.npmmirror.com.*no route to host.*NPM_CONFIG_REGISTRY"):
        vendor.fetch("iframe-worker", tmp_path / "w", env=mirror, opener=unreachable)
