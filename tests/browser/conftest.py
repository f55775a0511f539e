"""Real-browser test harness: Debian's Chromium driven by Playwright, and a JupyterLab server.

The browser tests check what headless tests cannot: that the widgets' front ends
actually draw in JupyterLab, and that an exported HTML file replays on its own.

* ``browser`` (session): ``/usr/bin/chromium`` launched by Playwright. No browser is
  ever downloaded. Without Chromium the tests skip with a clear reason on a developer
  machine, but fail in CI (``CI=true``), where ``.ci/run`` installs it.
* ``jupyter_lab`` (session): ``jupyter lab`` on 127.0.0.1, a free port, a random token
  and a temporary root directory; the fixture waits until the server answers and
  always stops it (the whole process group, so the kernels go too).
* ``artifacts_dir``: ``test-artifacts/`` at the repository root (gitignored), where
  the tests save their screenshots.

Every wait is bounded: a broken widget makes a test fail within its time limit, never
hang.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
# Flags for a quiet, offline, container-friendly Chromium: no sandbox (containers run as
# root), no GPU, and none of the background services that would reach the network.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
SERVER_START_TIMEOUT_S = 60
SERVER_STOP_TIMEOUT_S = 10


def in_ci() -> bool:
    """True on a CI machine (``CI=true``, as set by ``.ci/run`` and most CI services)."""
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def require_browser_tools() -> None:
    """Skip (developer machine) or fail (CI) when Chromium or Playwright is missing."""
    problems = []
    if not CHROMIUM.exists():
        problems.append(f"{CHROMIUM} not found (install Debian's 'chromium' package)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        problems.append(
            "the 'playwright' Python package is not installed (pip install -e '.[dev]')"
        )
    if not problems:
        return
    reason = "browser tests need Chromium and Playwright: " + "; ".join(problems)
    if in_ci():
        pytest.fail(reason + " (CI=true: the browser tests must run in CI)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser():
    require_browser_tools()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, timeout=30_000
        )
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser):
    """A fresh page (own context: no cookies or storage shared between tests)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.set_default_navigation_timeout(30_000)
    try:
        yield page
    finally:
        context.close()


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    path = REPO_ROOT / "test-artifacts"
    path.mkdir(exist_ok=True)
    return path


# --- JupyterLab ---------------------------------------------------------------------


@dataclass
class JupyterLab:
    """A running JupyterLab server: where it listens and where its files live."""

    url: str  # http://127.0.0.1:<port>
    token: str
    root_dir: Path
    log_path: Path

    def log_tail(self, chars: int = 4000) -> str:
        """The end of the server's log (kernel deaths and errors show up here)."""
        return self.log_path.read_text(errors="replace")[-chars:]

    def lab_url(self, notebook: str) -> str:
        return f"{self.url}/lab/tree/{notebook}?token={self.token}"

    def api(self, method: str, path: str, body: dict | None = None) -> dict:
        """One call to the server's REST API (``/api/...``), JSON in and out."""
        request = urllib.request.Request(
            f"{self.url}/api/{path}",
            data=None if body is None else json.dumps(body).encode(),
            method=method,
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read() or b"{}")

    def start_kernel_for(self, notebook: str) -> None:
        """Start the notebook's kernel session before the page opens the notebook.

        A notebook page that opens before its kernel exists attaches ipywidgets' manager
        to no kernel, and widgets then stay at "Loading widget..." (ipywidgets #3970);
        with the session already there, the page connects to a running kernel. The
        server answers once the kernel process is up.
        """
        session = self.api("POST", "sessions", {
            "path": notebook, "name": notebook, "type": "notebook",
            "kernel": {"name": "python3"},
        })  # fmt: skip
        assert session["kernel"]["id"], session


# --- helpers ---------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_is_up(url: str, token: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return False


def stop_process_group(process: subprocess.Popen) -> None:
    """Stop the server and its kernels: SIGTERM to its group, SIGKILL if it lingers."""
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=SERVER_STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=SERVER_STOP_TIMEOUT_S)
    except ProcessLookupError:
        pass


def lab_settings(settings_dir: Path) -> None:
    """User settings for a quiet test lab: no news fetch, no update check, and a notebook
    starts its kernel without asking (no "Select Kernel" dialog)."""
    settings = {
        ("apputils-extension", "notification"): {"fetchNews": "false", "checkForUpdates": False},
        ("notebook-extension", "tracker"): {"autoStartDefaultKernel": True},
    }
    for (extension, plugin), values in settings.items():
        folder = settings_dir / "@jupyterlab" / extension
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{plugin}.jupyterlab-settings").write_text(json.dumps(values))


@pytest.fixture(scope="session")
def jupyter_lab(tmp_path_factory, browser) -> JupyterLab:
    # Depends on ``browser`` so a machine without Chromium skips before starting a server.
    root_dir = tmp_path_factory.mktemp("lab-root")
    home = tmp_path_factory.mktemp("lab-home")
    lab_settings(home / "settings")
    port = free_port()
    token = secrets.token_hex(16)
    url = f"http://127.0.0.1:{port}"
    venv_bin = Path(sys.executable).parent
    env = dict(os.environ)
    env["PATH"] = f"{venv_bin}{os.pathsep}{env.get('PATH', '')}"
    # Runtime files (connection files, server info) stay in the test's own directory.
    env["JUPYTER_RUNTIME_DIR"] = str(home / "runtime")
    command = [
        str(venv_bin / "jupyter"), "lab", "--no-browser",
        "--ip=127.0.0.1", f"--port={port}", "--ServerApp.port_retries=0",
        # IdentityProvider.token is jupyter_server 2's name for ServerApp.token.
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root_dir}",
        "--ServerApp.terminals_enabled=False",
        f"--LabApp.user_settings_dir={home / 'settings'}",
        f"--LabApp.workspaces_dir={home / 'workspaces'}",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]  # fmt: skip
    if os.geteuid() == 0:  # containers and CI machines often run as root
        command.append("--allow-root")
    log_path = home / "jupyter.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            command, cwd=root_dir, env=env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stopping it stops its kernels
        )  # fmt: skip
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while not server_is_up(url, token):
            if process.poll() is not None:
                pytest.fail(f"jupyter lab exited early:\n{log_path.read_text()[-3000:]}")
            if time.monotonic() > deadline:
                pytest.fail(
                    f"jupyter lab did not answer within {SERVER_START_TIMEOUT_S} s:\n"
                    f"{log_path.read_text()[-3000:]}"
                )
            time.sleep(0.25)
        yield JupyterLab(url=url, token=token, root_dir=root_dir, log_path=log_path)
    finally:
        stop_process_group(process)
