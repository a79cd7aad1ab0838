"""The two JavaScript files the build and the tests take from the npm registry, without npm.

axe-core (the accessibility engine the browser tests inject) and iframe-worker's
shim (search in the offline copy) are single files inside npm packages. They are
fetched as the registry's tarballs over HTTPS, checked against the sha512 pinned
here (the registry's own ``dist.integrity``), and unpacked into
``build/vendor/<name>/``, so ``make test`` needs neither Node nor npm.

    python -m devguide.dev.vendor axe-core          # build/vendor/axe-core/
    python -m devguide.dev.vendor iframe-worker

Another registry (a mirror closer to the reader) is taken from
``NPM_CONFIG_REGISTRY`` / ``npm_config_registry``, npm's own setting; the
checksum is the same wherever the tarball comes from.
"""

from __future__ import annotations

import base64
import hashlib
import io
import shutil
import sys
import tarfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from devguide import paths, settings


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    integrity: str  # "sha512-<base64>", as the registry's dist.integrity


PACKAGES = {
    p.name: p
    for p in (
        Package(
            "axe-core",
            "4.14.1",
            "sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ==",
        ),
        Package(
            "iframe-worker",
            "1.0.4",
            "sha512-roeaaI+Lg1LJNfgpCjoRe/+WzEjy9+Z08LoEvu85MCPbBjwm+qXz8Ag5U05lHa6V1CysZyGzE0SOkAtSUA5q7Q==",
        ),
    )
}
DEFAULT_REGISTRY = "https://registry.npmjs.org"


def registry(env=None) -> str:
    found = settings.current(env).npm_registry or DEFAULT_REGISTRY
    return found.rstrip("/")


def tarball_url(package: Package, env=None) -> str:
    return f"{registry(env)}/{package.name}/-/{package.name}-{package.version}.tgz"


def integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


class VendorError(Exception):
    pass


def unpack(package: Package, data: bytes, target: Path) -> Path:
    """Check ``data`` against the pinned checksum and unpack its ``package/`` into ``target``."""
    found = integrity(data)
    if found != package.integrity:
        raise VendorError(
            f"{package.name} {package.version}: the tarball's checksum is {found}, "
            f"expected {package.integrity} (devguide/dev/vendor.py); a registry or proxy "
            "served another file: nothing was unpacked"
        )
    scratch = target.with_name(target.name + ".partial")
    shutil.rmtree(scratch, ignore_errors=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            parts = Path(member.name).parts
            if not parts or parts[0] != "package" or ".." in parts or not (member.isfile() or member.isdir()):
                continue
            member.name = str(Path(*parts[1:])) if len(parts) > 1 else "."
            tar.extract(member, scratch, filter="data")
    shutil.rmtree(target, ignore_errors=True)
    scratch.rename(target)
    return target


def fetch(name: str, target: Path | None = None, env=None, opener=urllib.request.urlopen) -> Path:
    package = PACKAGES[name]
    target = target or paths.BUILD / "vendor" / name
    url = tarball_url(package, env)
    try:
        with opener(url, timeout=120) as response:
            data = response.read()
    except OSError as e:
        raise VendorError(
            f"could not download {url} ({e}); the npm registry must be reachable, "
            "or NPM_CONFIG_REGISTRY must name a mirror of it"
        ) from e
    unpack(package, data, target)
    print(f"{package.name} {package.version} unpacked into {paths.rel(target)} (sha512 checked)")
    return target


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in PACKAGES:
        print(f"usage: python -m devguide.dev.vendor {{{'|'.join(PACKAGES)}}}", file=sys.stderr)
        return 2
    try:
        fetch(argv[0])
    except VendorError as e:
        print(f"devguide.dev.vendor: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
