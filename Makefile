# SPDX-License-Identifier: MIT
# The two commands: `make demo` and `make test`. Both install what they need.
.PHONY: all deps test demo docs bench soak clean

all: test

# (wit-bindgen and wac build in the background meanwhile, at low
# priority: the WASI 0.2 stage waits for them)
deps:
	@WASYNC_TOOLS=background scripts/deps.sh test

# Native tests under ASan+UBSan (the fuzzers' corpora replayed), then each
# fuzzer for 10 s (libFuzzer: tests/fuzz), then under allocation-failure
# injection (tests/faults: every test and example once per allocation the
# library makes, sampled), then under TSan (threads: DNS lookups,
# cross-thread notify), then the optimised build, then the JS host (wasm32
# modules on Node 20, Node 24 and headless Chromium), then WASI 0.1
# modules (the core suite and the wasip1 backend's, node:wasi), then WASI
# 0.2 components (the core suite and the wasip2 backend's, under jco),
# then WASI 0.3 components (the core suite, the wasip3 backend's and the
# built-ins' probe: jco, preview3-shim and Node 24);
# each WASI preset runs its modules or components under wasmtime too (label
# wasmtime: tests/wasmtime.cmake), whose CLI deps installs; the WASI 0.2 and
# 0.3 stages compose components of users' worlds (docs/bindings.md).
test: deps
	cmake --preset asan >/dev/null
	cmake --build --preset asan
	ctest --preset asan -j2
	cmake --preset fuzz >/dev/null
	cmake --build --preset fuzz
	ctest --preset fuzz -j2
	cmake --preset faults >/dev/null
	cmake --build --preset faults
	ctest --preset faults
	cmake --preset tsan >/dev/null
	cmake --build --preset tsan
	ctest --preset tsan -j2
	cmake --preset release >/dev/null
	cmake --build --preset release
	ctest --preset release -j2
	cmake --preset js >/dev/null
	cmake --build --preset js
	ctest --preset js
	cmake --preset wasip1 >/dev/null
	cmake --build --preset wasip1
	ctest --preset wasip1
	scripts/deps.sh tools
	cmake --preset wasip2 >/dev/null
	cmake --build --preset wasip2
	ctest --preset wasip2
	cmake --preset wasip3 >/dev/null
	cmake --build --preset wasip3
	ctest --preset wasip3

# The demo (timers, channels, a race) natively, then the same source as a
# WASI 0.2 component under jco; CPU-bound tasks on 1 and 2 workers (the
# many-threads runtime, examples/workers.c); then examples/fetch_many.c, 8
# concurrent GETs with a 500 ms timeout each against a local server that
# answers every other one at once and the others after 2 s
# (scripts/demo_server.mjs), natively and as a component: half answer, half
# time out, and nothing is left held (no event source still registered, no
# WASI handle held). Last, how to see the browser timeline (examples/web/,
# its module built here).
JCO = node node_modules/@bytecodealliance/jco/dist/jco.js
FETCH = '{base}/either' 8 500
# (the builds' output shown only when one fails)
QUIET = >build/demo.log 2>&1 || { cat build/demo.log; exit 1; }
demo:
	@scripts/deps.sh demo
	@mkdir -p build
	@cmake --preset release $(QUIET)
	@cmake --build --preset release --target wasync_demo wasync_workers wasync_fetch_many $(QUIET)
	@cmake --preset wasip2 $(QUIET)
	@cmake --build --preset wasip2 --target wasync_demo wasync_fetch_many $(QUIET)
	@echo "== 1. timers and channels, natively:"
	@./build/release/examples/demo
	@echo "== 2. the same source as a WASI 0.2 component, under jco:"
	@$(JCO) run build/wasip2/tests/wasip2/demo.component.wasm
	@echo "== 3. CPU-bound tasks on 1 and 2 workers (examples/workers.c):"
	@./build/release/examples/workers
	@echo "== 4. a concurrent fetch with timeouts (examples/fetch_many.c), natively:"
	@node scripts/demo_server.mjs ./build/release/examples/fetch_many $(FETCH)
	@echo "== 5. the same source as a WASI 0.2 component, under jco:"
	@node scripts/demo_server.mjs $(JCO) run build/wasip2/tests/wasip2/fetch_many.component.wasm $(FETCH)
	@cmake --preset js $(QUIET)
	@cmake --build --preset js --target wasync_timeline $(QUIET)
	@echo "== 6. C tasks on a live timeline in the browser: run"
	@echo "     node examples/web/serve.mjs"
	@echo "   and open http://127.0.0.1:8080/examples/web/index.html"

# The API reference from the headers' comments (docs/Doxyfile), in
# build/docs/html. A public function or function-like macro without a
# comment fails it (tests/api_comments.test.mjs checks the same without
# doxygen); other undocumented members (struct fields) are only listed in
# build/docs/warnings.log.
docs:
	@scripts/deps.sh docs
	@mkdir -p build/docs
	doxygen docs/Doxyfile
	@! grep -E 'Member [A-Za-z_0-9]+\(.*\) \((function|macro definition)\)' build/docs/warnings.log || \
	  { echo "docs: the public functions above have no comment" >&2; exit 1; }
	@echo "docs: build/docs/html/index.html"

bench:
	@scripts/deps.sh bench
	cmake --preset release >/dev/null
	cmake --build --preset release --target wasync-bench wasync-soak wasync_workers wasync_http_hello wasync-transfer
	bench/run.sh build/release

# The runtime under load (bench/soak.c: a million live tasks, 100,000 timers,
# 10,000 TCP connections echoing 10 KiB), optimised, then under ASan+UBSan;
# then the long fuzz runs and the full allocation-failure injection, when
# their drivers are there.
soak:
	@scripts/deps.sh bench
	cmake --preset release >/dev/null
	cmake --build --preset release --target wasync-soak
	./build/release/bench/wasync-soak
	cmake --preset asan >/dev/null
	cmake --build --preset asan --target wasync-soak
	./build/asan/bench/wasync-soak
	if [ -x tests/fuzz/run.sh ]; then tests/fuzz/run.sh 300; fi
	if [ -x tests/faults/run.sh ]; then cmake --preset faults >/dev/null && \
	  cmake --build --preset faults && tests/faults/run.sh --full build/faults; fi

clean:
	rm -rf build
