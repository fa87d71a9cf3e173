# The two commands a newcomer needs: `make run` and `make test` (`make check` for the quick part).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test check test-lowest lint bench mutate clean extract update compile lock

# what an install compiled (compiled/__init__.py): compiled, stale or source
SAY_COMPILED = $(BIN)/python -c "import compiled; print('compiled modules:', compiled.summary())"

# Reproducible installs: the lock files in requirements/ pin every dependency, and every one of
# theirs, to one version with its files' hashes: server.txt the server's, build.txt what setup.py
# builds with (setuptools, and mypy for mypyc), dev.txt all of them with the test and lint tools,
# mutate.txt the mutation tester that `make mutate` adds, uv.txt the installer these use.
# Every install here (with uv; the image's, deploy/Dockerfile, with pip) reads them with
# --require-hashes, then installs the project itself with --no-deps and without build isolation
# (which would fetch the build's tools unpinned). pyproject.toml keeps the ranges, for installing
# the package elsewhere.
# `make lock` makes the files again from those ranges, with uv rather than pip-tools: `uv pip
# compile --universal` resolves once for every platform and Python >= 3.11 the ranges allow and
# keeps the markers (uvloop off Windows), where pip-compile resolves for the interpreter it runs
# under; so one lock serves this venv's Python and the image's 3.12. build.txt and dev.txt are
# held to server.txt's versions, so that the tests run what the image ships.
UV_VERSION := 0.13.8
LOCKED := requirements
UV_HOME := build/uv-$(UV_VERSION)
UV := $(UV_HOME)/bin/uv
COMPILE_LOCK = $(UV) pip compile --quiet --universal --python-version 3.11 --generate-hashes \
	--custom-compile-command "make lock"
INSTALL = $(BIN)/uv pip install --quiet --python $(BIN)/python --compile-bytecode
# (uv reinstalls a project it has installed only when told: the build is made anew every time)
INSTALL_PROJECT = $(INSTALL) --no-deps --no-build-isolation --reinstall-package cafe-international -e .

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# uv (requirements/uv.txt), which installs into the virtualenv: the locks in about 3 s where pip
# took 13 (the venv's own pip, as Python ships it, installs uv alone; a venv made before uv gets it)
$(BIN)/uv: $(LOCKED)/uv.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet --require-hashes -r $(LOCKED)/uv.txt
	touch $@

lock:
	test -x $(UV) || { $(PYTHON) -m venv $(UV_HOME) && $(UV_HOME)/bin/python -m pip install --quiet uv==$(UV_VERSION); }
	$(COMPILE_LOCK) pyproject.toml -o $(LOCKED)/server.txt
	$(PYTHON) -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['build-system']['requires'], sep='\n')" \
		| $(COMPILE_LOCK) - -c $(LOCKED)/server.txt -o $(LOCKED)/build.txt
	$(PYTHON) -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['build-system']['requires'], sep='\n')" \
		| $(COMPILE_LOCK) pyproject.toml - --extra dev -c $(LOCKED)/server.txt -c $(LOCKED)/build.txt \
		-o $(LOCKED)/dev.txt
	$(COMPILE_LOCK) pyproject.toml --extra mutate -c $(LOCKED)/dev.txt -o $(LOCKED)/mutate.txt
	echo "uv==$(UV_VERSION)" | $(COMPILE_LOCK) - -o $(LOCKED)/uv.txt

# the server alone (installing compiles the modules compiled/__init__.py lists, where it can, into
# build/native/lib: there they run only while they are as new as their sources)
$(VENV)/.installed-run: pyproject.toml setup.py $(LOCKED)/server.txt $(LOCKED)/build.txt | $(BIN)/uv
	$(INSTALL) --require-hashes -r $(LOCKED)/server.txt -r $(LOCKED)/build.txt
	$(INSTALL_PROJECT)
	@$(SAY_COMPILED)
	touch $@ $(VENV)/.compiled

# the server with the test and lint tools
$(VENV)/.installed-dev: pyproject.toml setup.py $(LOCKED)/dev.txt | $(BIN)/uv
	$(INSTALL) --require-hashes -r $(LOCKED)/dev.txt
	$(INSTALL_PROJECT)
	@$(SAY_COMPILED)
	touch $@ $(VENV)/.installed-run $(VENV)/.compiled

# the mutation tester (mutate.txt, held to dev.txt's versions), for `make mutate` alone
$(VENV)/.installed-mutate: $(LOCKED)/mutate.txt $(VENV)/.installed-dev
	$(INSTALL) --require-hashes -r $(LOCKED)/mutate.txt
	touch $@

# the compiled modules again, when one of their sources or the list changed (until then they run as
# Python); a changed setup.py installs again above
COMPILED := $(shell $(PYTHON) -c "import compiled as c; print(*(c.source(m).relative_to(c.ROOT) for m in c.MODULES))")
$(VENV)/.compiled: compiled/__init__.py $(COMPILED) | $(VENV)/.installed-run $(BIN)/uv
	$(INSTALL_PROJECT)
	@$(SAY_COMPILED)
	touch $@

run: $(VENV)/.installed-run $(VENV)/.compiled
	$(BIN)/python -m server

# pytest-xdist workers (WORKERS=0: none): most tests wait on sockets, processes or the browser, so
# more workers than cores: with four, 50-63 s of the two cores' CPU went idle in a run, with six
# 9-17 s (the whole suite in 159-211 s against 178-195 s); the tests that keep to one worker say
# so (xdist_group)
WORKERS ?= 6
# with .pyc files written (an environment may say not to: PYTHONDONTWRITEBYTECODE), each of the
# tests' hundreds of server and cafe-admin processes and each worker reads its modules compiled
# instead of compiling them again: a fifth less CPU in tests/server/test_admin_cli.py
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q -n $(WORKERS) --dist loadgroup

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
mutate: $(VENV)/.installed-mutate
	$(BIN)/python -m tests.mutate $(TARGET) $(MUTANTS) $(if $(FRESH),--fresh) --children $(CHILDREN)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache mutants
	find . -name '*.so' -not -path './node_modules/*' -delete
