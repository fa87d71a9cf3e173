# The two commands a newcomer needs: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint bench mutate clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# the server alone
$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

# the server with the test and lint tools
$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(VENV)/.installed-run

run: $(VENV)/.installed-run
	$(BIN)/python -m server

test: $(VENV)/.installed-dev
	tests/system-packages.sh
	$(BIN)/python -m pytest -q

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check engine protocol server bots tests bench
	$(BIN)/mypy

bench: $(VENV)/.installed-dev
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/diff.py

# mutation testing, not part of `make test`: TARGET=tokens picks one of tests/mutate.py's targets
# (every one if left out), MUTANTS="server.lobby.xǁLobbyǁ_quit*" some of its mutants, FRESH=1
# forgets the results of earlier runs (kept in build/mutate/TARGET)
TARGET ?=
MUTANTS ?=
FRESH ?=
mutate: $(VENV)/.installed-dev
	$(BIN)/python -m tests.mutate $(TARGET) $(MUTANTS) $(if $(FRESH),--fresh)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache mutants
