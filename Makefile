# The two commands a newcomer needs: `make run` and `make test` (`make check` for the quick part).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test check test-lowest lint bench mutate clean extract update compile

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# what an install compiled (compiled/__init__.py): compiled, stale or source
SAY_COMPILED = $(BIN)/python -c "import compiled; print('compiled modules:', compiled.summary())"

# the server alone (installing compiles the modules compiled/__init__.py lists, where it can, into
# build/native/lib: there they run only while they are as new as their sources)
$(VENV)/.installed-run: pyproject.toml setup.py | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	@$(SAY_COMPILED)
	touch $@ $(VENV)/.compiled

# the server with the test and lint tools
$(VENV)/.installed-dev: pyproject.toml setup.py | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@$(SAY_COMPILED)
	touch $@ $(VENV)/.installed-run $(VENV)/.compiled

# the compiled modules again, when one of their sources or the list changed (until then they run as
# Python); a changed setup.py installs again above
COMPILED := $(shell $(PYTHON) -c "import compiled as c; print(*(c.source(m).relative_to(c.ROOT) for m in c.MODULES))")
$(VENV)/.compiled: compiled/__init__.py $(COMPILED) | $(VENV)/.installed-run
	$(BIN)/python -m pip install --quiet --no-deps -e .
	@$(SAY_COMPILED)
	touch $@

run: $(VENV)/.installed-run $(VENV)/.compiled
	$(BIN)/python -m server

# pytest-xdist workers (WORKERS=0: none): most tests wait on sockets, processes or the browser, so
# more workers than cores; the tests that keep to one worker say so (xdist_group)
WORKERS ?= 4
PYTEST := $(BIN)/python -m pytest -q -n $(WORKERS) --dist loadgroup

test: $(VENV)/.installed-dev $(VENV)/.compiled
	tests/system-packages.sh
	@$(SAY_COMPILED)
	$(PYTEST)

# the engine's, the protocol's and the server's tests: no browser, cluster or benchmark
check: $(VENV)/.installed-dev $(VENV)/.compiled
	@$(SAY_COMPILED)
	$(PYTEST) tests/engine tests/protocol tests/server

# the tests marked websocket_api on the lowest websockets pyproject.toml allows (server/net/wsinternals.py
# uses parts of it beneath its documented API): that version installed in build/, first on the path;
# tests/lowest.py reads the bound, and stops the run when it finds none
test-lowest: $(VENV)/.installed-dev $(VENV)/.compiled
	version=$$($(BIN)/python tests/lowest.py websockets) && lowest=build/websockets-$$version && \
	{ test -d $$lowest || $(BIN)/python -m pip install --quiet --no-deps --target $$lowest websockets==$$version; } && \
	PYTHONPATH=$$lowest $(BIN)/python -c "import sys, websockets; v = websockets.version.version; \
		assert v == sys.argv[1], v; print('websockets', v)" $$version && \
	PYTHONPATH=$$lowest $(PYTEST) -p no:cacheprovider -m websocket_api

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check compiled engine protocol server bots tests bench setup.py
	$(BIN)/mypy

bench: $(VENV)/.installed-dev
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/diff.py
	$(BIN)/python bench/text.py

# the catalogs of texts for people (protocol/locale): extract the English ids from the code, merge
# them into each language's .po, compile the .mo files and the page's JSON (all committed)
LOCALE := protocol/locale
extract: $(VENV)/.installed-dev
	$(BIN)/pybabel extract -F babel.cfg --no-default-keywords -k _ -k _n:1,2 --sort-by-file \
		--project cafe-international --no-wrap -o $(LOCALE)/cafe.pot .
	$(BIN)/pybabel extract -F babel-page.cfg --no-default-keywords -k t -k tn:1,2 --sort-by-file \
		--project cafe-international --no-wrap -o $(LOCALE)/page.pot .

update: extract
	$(BIN)/pybabel update -D cafe -i $(LOCALE)/cafe.pot -d $(LOCALE) --no-wrap --ignore-obsolete
	$(BIN)/pybabel update -D page -i $(LOCALE)/page.pot -d $(LOCALE) --no-wrap --ignore-obsolete

compile: $(VENV)/.installed-dev
	$(BIN)/pybabel compile -D cafe -d $(LOCALE) --statistics
	$(BIN)/python -m protocol.catalogs

# mutation testing, not part of `make test`: TARGET=tokens picks one of tests/mutate.py's targets
# (every one if left out), MUTANTS="server.lobby.lobby.xǁLobbyǁ_quit*" some of its mutants, FRESH=1
# forgets the results of earlier runs (kept in build/mutate/TARGET), CHILDREN=2 tries two mutants at once
TARGET ?=
MUTANTS ?=
FRESH ?=
CHILDREN ?= 1
mutate: $(VENV)/.installed-dev
	$(BIN)/python -m tests.mutate $(TARGET) $(MUTANTS) $(if $(FRESH),--fresh) --children $(CHILDREN)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache mutants
	find . -name '*.so' -not -path './node_modules/*' -delete
