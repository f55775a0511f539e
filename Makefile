# The two commands of the README:
#   make lab   - set up everything and open the lessons in JupyterLab
#   make test  - set up everything and run the whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: lab test bench lint format system-packages browser-packages venv

# Debian and Ubuntu ship Python's venv module (ensurepip) in a package of its own,
# python3-venv: install it where we can (as root), else say exactly what to run.
venv:
	@test -x $(BIN)/python || $(PYTHON) -c "import ensurepip" 2>/dev/null || { \
	  venv_package=python$$($(PYTHON) -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')-venv; \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && (apt-get install -y -qq $$venv_package || apt-get install -y -qq python3-venv) >/dev/null; \
	  else \
	    echo "error: $(PYTHON) cannot create a virtual environment: its venv module is missing."; \
	    echo "       On Debian/Ubuntu run: sudo apt-get install $$venv_package   (then run make again)"; \
	    exit 1; \
	  fi; }
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --upgrade pip

# graphviz's `dot` draws the backward DAG. It comes from the system's packages; where it
# cannot be installed, vizgrad still works and says so when it draws.
system-packages:
	@command -v dot >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update -qq && apt-get install -y -qq graphviz >/dev/null) \
	      || echo "notice: could not install graphviz; the DAG view will use its fallback layout"; \
	  else \
	    echo "notice: graphviz 'dot' not found (install it with your package manager); the DAG view will use its fallback layout"; \
	  fi; }

# The browser tests (tests/browser/) drive Debian's Chromium through Playwright; it is
# needed by `make test` only. Where it cannot be installed the browser tests say so and
# skip on a developer machine (in CI, with CI=true, they fail instead).
browser-packages:
	@test -x /usr/bin/chromium || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update -qq && apt-get install -y -qq chromium >/dev/null) \
	      || echo "notice: could not install chromium; the browser tests will be skipped"; \
	  else \
	    echo "notice: /usr/bin/chromium not found (install the chromium package); the browser tests will be skipped"; \
	  fi; }

lab: venv system-packages
	$(BIN)/python -m pip install --quiet -e ".[jupyter]"
	$(BIN)/jupyter lab $$( [ "$$(id -u)" = 0 ] && echo --allow-root ) notebooks/00-start-here.ipynb

test: venv system-packages browser-packages
	$(BIN)/python -m pip install --quiet -e ".[jupyter,dev,oracle]"
	$(BIN)/python -m pytest

bench: venv
	$(BIN)/python -m pip install --quiet -e ".[jupyter,oracle]"
	$(BIN)/python -m benchmarks

lint:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format:
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .
