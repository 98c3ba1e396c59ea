# The two commands: `make demo` and `make test`. Both install what they need.
.PHONY: all deps test demo bench clean

all: test

deps:
	@scripts/deps.sh test

# Native tests under ASan+UBSan, then under TSan (threads: DNS lookups,
# cross-thread notify), then the optimised build, then the JS host (wasm32
# modules on Node 20, Node 24 and headless Chromium), then WASI 0.2
# components (the core suite and the wasip2 backend's, under jco), then
# WASI 0.1 modules (the core suite and the wasip1 backend's, node:wasi).
test: deps
	cmake --preset asan >/dev/null
	cmake --build --preset asan
	ctest --preset asan -j2
	cmake --preset tsan >/dev/null
	cmake --build --preset tsan
	ctest --preset tsan -j2
	cmake --preset release >/dev/null
	cmake --build --preset release
	ctest --preset release -j2
	cmake --preset js >/dev/null
	cmake --build --preset js
	ctest --preset js
	cmake --preset wasip2 >/dev/null
	cmake --build --preset wasip2
	ctest --preset wasip2
	cmake --preset wasip1 >/dev/null
	cmake --build --preset wasip1
	ctest --preset wasip1

# The demo natively, then the same source as a WASI 0.2 component under jco.
demo:
	@scripts/deps.sh demo
	cmake --preset release >/dev/null
	cmake --build --preset release --target demo
	./build/release/examples/demo
	@echo "-- the same demo as a WASI 0.2 component, under jco:"
	cmake --preset wasip2 >/dev/null
	cmake --build --preset wasip2 --target demo
	node node_modules/@bytecodealliance/jco/dist/jco.js run build/wasip2/tests/wasip2/demo.component.wasm

bench:
	@scripts/deps.sh bench
	cmake --preset release >/dev/null
	cmake --build --preset release --target wasync-bench
	bench/run.sh build/release

clean:
	rm -rf build
