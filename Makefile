# vibespace — make help lists the targets.
GO        ?= go
BIN       ?= bin
# Debian packages the tests, the demo and the benchmarks need.
DEB_PKGS  := xvfb xauth dbus at-spi2-core python3-gi gir1.2-gtk-3.0 gtk-3-examples \
             python3-pyatspi python3-dogtail xdotool x11-utils x11-xserver-utils fonts-dejavu-core \
             chromium libvpx-dev libopenh264-dev libyuv-dev libjpeg-dev pkg-config \
             gir1.2-gtk-4.0 python3-pyqt5 python3-tk \
             xpra python3-pil python3-lz4 python3-brotli python3-xdg \
             xinput xdg-desktop-portal xdg-desktop-portal-gnome mutter pipewire pipewire-bin wireplumber \
             libpipewire-0.3-dev \
             gnome-shell kwin-wayland xdg-desktop-portal-kde qtwayland5 \
             python3-doc valgrind \
             openssh-server \
             libreoffice-writer libreoffice-gtk3 firefox-esr kcalc gnome-calculator
STATICCHECK_VERSION := v0.8.2
TEST_TIMEOUT ?= 30m
# How many test packages run at once. The suite waits on applications,
# browsers and displays more than it computes: at go's default (one a
# core) a 2-core run used ~39% of the machine (21.6 min of CPU in 27.7 min).
TEST_PACKAGES ?= 3
BENCHTIME ?= 20x

LOAD_SECONDS ?= 120

.PHONY: help deps test-deps bench-deps build test bench load lint demo clean

# agent-browser, the browser peer the benchmarks compare against, and
# playwright-core (its ariaSnapshot, driving the system Chromium: no browser
# download) live in a bench-only folder; nothing else uses them.
AGENT_BROWSER_VERSION := 0.41.2
PLAYWRIGHT_CORE_VERSION := 1.65.1
BENCH_DIR := .bench

help: ## list the targets
	@grep -E '^[a-z]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | sort

deps: ## install the system packages (apt-get; quiet and quick when all are present)
	@missing=$$(for p in $(DEB_PKGS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "deps: installing $$missing"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		wrote=; if [ ! -e /usr/sbin/policy-rc.d ]; then \
			printf '#!/bin/sh\n# written by make deps while it installs: no service (sshd) starts\nexit 101\n' | $$SUDO tee /usr/sbin/policy-rc.d >/dev/null && \
			$$SUDO chmod 755 /usr/sbin/policy-rc.d && wrote=1; \
		fi; \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null; rc=$$?; \
		[ -z "$$wrote" ] || $$SUDO rm -f /usr/sbin/policy-rc.d; \
		exit $$rc; \
	fi

# The MCP inspector's command line, the independent MCP client the tests of
# vibespace-mcp drive it with (beside the Go SDK's own), lives in a test-only
# folder; nothing else uses it. Its version and every dependency's are
# locked in .testdeps/package-lock.json (npm ci installs exactly those).
TEST_DIR := .testdeps

test-deps: $(TEST_DIR)/node_modules/.installed ## install the MCP inspector's CLI (an independent MCP client, from npm) into ./.testdeps for the tests

# Installed again whenever the lock changes.
$(TEST_DIR)/node_modules/.installed: $(TEST_DIR)/package-lock.json
	@command -v npm >/dev/null || { \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		echo "test-deps: installing nodejs npm"; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null; }
	@node -e 'process.exit(+process.versions.node.split(".")[0] >= 18 ? 0 : 1)' || { echo "test-deps: the inspector needs Node.js 18 or later, this is $$(node --version)"; exit 1; }
	npm ci --prefix $(TEST_DIR) --no-audit --no-fund --silent
	@touch $@

# One npm install of both when either is missing (or playwright-core is of
# another version), so neither install drops the other.
bench-deps: deps ## install agent-browser and playwright-core (the peers) into ./.bench for the benchmarks
	@[ -x $(BENCH_DIR)/node_modules/.bin/agent-browser ] && \
	[ "$$(node -p 'require("./$(BENCH_DIR)/node_modules/playwright-core/package.json").version' 2>/dev/null)" = $(PLAYWRIGHT_CORE_VERSION) ] || \
		npm install --prefix $(BENCH_DIR) --no-audit --no-fund --silent --save-exact \
			agent-browser@$(AGENT_BROWSER_VERSION) playwright-core@$(PLAYWRIGHT_CORE_VERSION)

build: ## build the commands into ./bin
	$(GO) build -tags urfave_cli_no_docs -o $(BIN)/ ./cmd/...

test: deps test-deps ## run every test, integration included, with -race (nothing may skip)
	VIBESPACE_INTEGRATION=1 $(GO) test -race -count=1 -p $(TEST_PACKAGES) -timeout $(TEST_TIMEOUT) ./...

# Every benchmark's output is kept in $(BIN)/bench.out and ends with one
# table (bench/summary): each row ours ÷ the peer in this run, its goal, met
# or not. A failed benchmark fails the target after the table is printed.
bench: bench-deps ## benchmarks, side by side with the peers (xdotool, pyatspi, ...), ending with one table of goals
	@mkdir -p $(BIN)
	@{ VIBESPACE_INTEGRATION=1 $(GO) test -run '^$$' -bench . -benchtime $(BENCHTIME) -timeout 30m ./... 2>&1; echo $$? > $(BIN)/bench.rc; } | tee $(BIN)/bench.out
	@$(GO) run ./bench/summary < $(BIN)/bench.out
	@exit $$(cat $(BIN)/bench.rc)

load: build ## the load probe: 6 sessions drive 2 windows and 4 tabs at once (LOAD_SECONDS=120); p50/p95/max per verb, codes, RSS, fds
	python3 bench/load.py --bin $(BIN) --seconds $(LOAD_SECONDS)

lint: ## gofmt, go vet, staticcheck
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

demo: deps build ## the main job: a real GTK window driven end to end
	$(BIN)/vibespace-demo $(if $(HOLD),-hold)

clean: ## remove ./bin
	rm -rf $(BIN)
