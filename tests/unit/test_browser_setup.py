"""Finding or providing the browser: a fake PATH, with and without root."""

import os

from devguide.dev import browser


def fake_bin(tmp_path, *names):
    d = tmp_path / "bin"
    d.mkdir(exist_ok=True)
    for name in names:
        exe = d / name
        exe.write_text("#!/bin/sh\necho Chromium 1.0\n")
        exe.chmod(0o755)
    return str(d)


def no_playwright():
    return None


def test_a_chromium_on_path_is_used(tmp_path):
    env = {"PATH": fake_bin(tmp_path, "chromium-browser")}
    step = browser.plan(env, is_root=False, playwright=no_playwright)
    assert (step.action, step.browser) == ("use", os.path.join(env["PATH"], "chromium-browser"))


def test_the_environment_variable_wins_and_must_exist(tmp_path):
    path = fake_bin(tmp_path, "chromium", "mychrome")
    env = {"PATH": path, "PLAYWRIGHT_CHROMIUM": os.path.join(path, "mychrome")}
    assert browser.find_chromium(env, no_playwright).endswith("mychrome")
    env["PLAYWRIGHT_CHROMIUM"] = str(tmp_path / "missing")
    assert browser.find_chromium(env, no_playwright) is None


def test_playwrights_own_download_is_found():
    assert browser.find_chromium({"PATH": ""}, lambda: "/pw/chrome") == "/pw/chrome"


def test_root_with_apt_installs_debian_chromium(tmp_path):
    step = browser.plan({"PATH": fake_bin(tmp_path, "apt-get")}, is_root=True, playwright=no_playwright)
    assert step.action == "apt" and step.command[-1].endswith(".ci/apt-packages")


def test_without_root_playwright_downloads_it(tmp_path):
    step = browser.plan({"PATH": fake_bin(tmp_path, "apt-get")}, is_root=False, playwright=no_playwright)
    assert step.action == "playwright" and step.command[-3:] == ["playwright", "install", "chromium"]


def test_when_nothing_works_one_message_names_the_commands(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", fake_bin(tmp_path))
    monkeypatch.delenv("PLAYWRIGHT_CHROMIUM", raising=False)
    monkeypatch.setattr(browser, "playwright_chromium", no_playwright)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.setattr(browser.subprocess, "run", lambda *a, **k: type("Done", (), {"returncode": 1})())
    try:
        browser.ensure()
    except SystemExit as stop:
        message = str(stop.code)
    else:
        raise AssertionError("expected the setup to stop")
    assert "sudo bash .ci/apt-packages" in message and "playwright install chromium" in message
    assert "exited with status 1" in message
