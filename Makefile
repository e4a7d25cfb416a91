# lopt: one Makefile, no configure step.
#   make            build ./lopt
#   make lib        build liblopt.a and liblopt.so (api/lopt.h)
#   make python     build the Python module lopt in build/python (python3-dev)
#   make check      build with -Werror and sanitizers, run the tests (a few minutes)
#   make check-slow the slow cases make check leaves out (testsuite/slow.list),
#                   and the execution tests under ThreadSanitizer (check-threads)
#   make web        the playground: lopt in WebAssembly (emscripten, npm) in build/web/index.html
#   make check-browser  the HTML report (--report) and the playground in headless Chromium, screenshots in build/browser/
#   make check-flatten  every PrimFunc of testsuite/ and examples/ through flatten
#   make check-transform-layout  every buffer parameter of the suite through transform-layout
#   make coverage   line coverage of grammar/ ir/ printer/ passes/ cli/ with lcov
#   make install PREFIX=/usr/local DESTDIR=

# Builds and tests use every core unless -j says how many.
NPROC := $(shell nproc 2>/dev/null || echo 1)
# (a make that make starts shares its parent's jobs)
ifeq ($(MAKELEVEL)$(filter -j%,$(MAKEFLAGS)),0)
MAKEFLAGS += -j$(NPROC)
endif

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN     = -std=c11 -Wall -Wextra -Wshadow -Wno-unused-parameter -D_POSIX_C_SOURCE=200809L -fvisibility=hidden
RE2C    ?= re2c
PYTHON  ?= $(shell test -x /usr/bin/python3 && echo /usr/bin/python3 || echo python3)
BISON   ?= bison
PREFIX  ?= /usr/local
LIBS     = -lm -pthread

# Every source of the tree; the generated lexer and parser are committed.
SRCDIRS = grammar ir ir/ops ir/ops/nn interp printer passes passes/layout passes/physical passes/texture \
          passes/weights passes/lower api cli
SRC = $(sort grammar/lexer.c grammar/parser.c $(foreach d,$(SRCDIRS),$(wildcard $(d)/*.c)))
LIBSRC = $(filter-out cli/lopt.c,$(SRC))
HDR = $(wildcard */*.h */*/*.h)

# One object per source, in one tree per configuration (plain, the sanitizer
# test build, coverage), with the headers each includes tracked by -MMD -MP:
# touching one file rebuilds one object and relinks.
OBJ_PLAIN = $(SRC:%.c=build/obj/%.o)
OBJ_CHECK = $(SRC:%.c=build/check/%.o)
OBJ_COV   = $(SRC:%.c=build/cov/%.o)
LIBOBJ_CHECK = $(LIBSRC:%.c=build/check/%.o)
LIBOBJ_COV   = $(LIBSRC:%.c=build/cov/%.o)
SANFLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
COVFLAGS = -O0 -g --coverage -fprofile-update=atomic

all: lopt

# The compiler's lines are kept short (CC file); V=1 shows them whole.
ifeq ($(V),1)
Q =
say = @:
else
Q = @
say = @printf '  %-6s %s\n'
endif

lopt: $(OBJ_PLAIN)
	$(say) LD $@
	$(Q)$(CC) $(CFLAGS) -o $@ $(OBJ_PLAIN) $(LIBS)

build/obj/%.o: %.c
	@mkdir -p $(@D)
	$(say) CC $<
	$(Q)$(CC) $(WARN) $(CFLAGS) -fPIC -MMD -MP -c -o $@ $<

# A tree's objects are compiled again when its flags change (the file
# changes only then, so make sees it new only then).
build/obj/.flags: FORCE
	@mkdir -p $(@D); echo '$(CC) $(WARN) $(CFLAGS) -fPIC' | cmp -s - $@ || echo '$(CC) $(WARN) $(CFLAGS) -fPIC' > $@
build/check/.flags: FORCE
	@mkdir -p $(@D); echo '$(CC) $(WARN) -Werror $(SANFLAGS)' | cmp -s - $@ || echo '$(CC) $(WARN) -Werror $(SANFLAGS)' > $@
$(OBJ_PLAIN): build/obj/.flags
$(OBJ_CHECK) build/check/testsuite/api/api_test.o: build/check/.flags
FORCE:

build/check/%.o: %.c
	@mkdir -p $(@D)
	$(say) CC-SAN $<
	$(Q)$(CC) $(WARN) -Werror $(SANFLAGS) -MMD -MP -c -o $@ $<

build/cov/%.o: %.c
	@mkdir -p $(@D)
	$(say) CC-COV $<
	$(Q)$(CC) $(WARN) $(COVFLAGS) -MMD -MP -c -o $@ $<

-include $(OBJ_PLAIN:.o=.d) $(OBJ_CHECK:.o=.d) $(OBJ_COV:.o=.d) \
         build/check/testsuite/unit/unit.d build/check/testsuite/unit/maps.d build/check/testsuite/unit/plan.d \
         build/check/testsuite/unit/exp.d build/obj/testsuite/unit/exp.d \
         build/cov/testsuite/unit/unit.d build/cov/testsuite/unit/maps.d

# Generated sources are committed; they are rebuilt only when the grammar is
# newer and the tool is installed, so a machine with cc and make alone builds.
grammar/lexer.c: grammar/lexer.re grammar/parser.h
	@if command -v $(RE2C) >/dev/null 2>&1; then \
	  echo "$(RE2C) grammar/lexer.re"; \
	  $(RE2C) -W --no-generation-date --no-version -o $@ grammar/lexer.re; \
	else echo "note: $(RE2C) not found; using the committed $@"; touch $@; fi

grammar/parser.c grammar/parser.h: grammar/parser.y
	@if command -v $(BISON) >/dev/null 2>&1; then \
	  echo "$(BISON) grammar/parser.y"; \
	  $(BISON) -Wall -Werror --no-lines -o grammar/parser.c --header=grammar/parser.h grammar/parser.y; \
	else echo "note: $(BISON) not found; using the committed parser"; touch grammar/parser.c grammar/parser.h; fi

# The library: every source but the command line's, behind api/lopt.h
# (-fvisibility=hidden: only the lopt_ functions are exported from the .so).
# ./lopt, liblopt.a, liblopt.so and the Python module share one tree of
# position-independent objects (hidden symbols make -fPIC cost nothing).
LIBOBJ_PLAIN = $(LIBSRC:%.c=build/obj/%.o)

liblopt.a: $(LIBOBJ_PLAIN)
	$(say) AR $@
	$(Q)rm -f $@
	$(Q)$(AR) rcs $@ $(LIBOBJ_PLAIN)

# liblopt.so.0 (its soname: programs linked with -llopt ask for it) and liblopt.so, a link to it
liblopt.so.0: $(LIBOBJ_PLAIN)
	$(say) LD $@
	$(Q)$(CC) $(CFLAGS) -shared -Wl,-soname,liblopt.so.0 -o $@ $(LIBOBJ_PLAIN) $(LIBS)

liblopt.so: liblopt.so.0
	ln -sf liblopt.so.0 $@

lib: liblopt.a liblopt.so

# The C API under AddressSanitizer: errors, handles reused, two threads.
build/api-test: build/check/testsuite/api/api_test.o $(LIBOBJ_CHECK)
	$(say) LD $@
	$(Q)$(CC) $(SANFLAGS) -o $@ $^ $(LIBS)
-include build/check/testsuite/api/api_test.d

# The build in which the n-th allocation fails (LOPT_FAIL_AT=n;
# testsuite/fault/fault.c): the sanitizers' objects, linked with every
# allocation function wrapped.
FAULT_WRAP = $(foreach f,malloc calloc realloc posix_memalign strdup strndup open_memstream,-Wl,--wrap=$(f))
build/lopt-fail: build/check/testsuite/fault/fault.o $(OBJ_CHECK)
	$(say) LD $@
	$(Q)$(CC) $(SANFLAGS) $(FAULT_WRAP) -o $@ $^ $(LIBS)
-include build/check/testsuite/fault/fault.d
build/check/testsuite/fault/fault.o: build/check/.flags

# Every 50th allocation of the no-abort test; make check-slow fails each in turn.
check-fault: build/lopt-fail
	@echo "== check-fault: every 50th allocation failing ends in 'out of memory', exit 1, and leaks nothing (build/lopt-fail; 33 of the 51 runs leaked before the passes' and the interpreter's scratch was registered with the guard)"
	MAX_LEAKS=0 sh testsuite/fault/sweep.sh 50
	@echo "== check-fault: every allocation of a run on two threads (a convolution's loop split between them) failing, leaking nothing"
	INPUT=testsuite/fault/par_conv.tir ARG=--jobs=2 MAX_LEAKS=0 sh testsuite/fault/sweep.sh 1

check-api: build/api-test liblopt.so.0
	@echo "== check-api: the C library API test"
	./build/api-test
	@# the shared library exports lopt_* alone
	@bad=$$(nm -D --defined-only liblopt.so.0 | awk '$$2 ~ /^[TDBRVW]$$/ && $$3 !~ /^lopt_/ && $$3 !~ /^_/ { print $$3 }'); \
	  if [ -n "$$bad" ]; then echo "liblopt.so exports symbols without the lopt_ prefix:"; echo "$$bad"; exit 1; fi; \
	  echo "liblopt.so: $$(nm -D --defined-only liblopt.so.0 | grep -c ' lopt_') symbols, all lopt_"

# The Python module lopt (python/), over the library, with Debian's
# python3-dev; NumPy arrays in and out (python3-numpy at run time).
PYINC    = $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
PYEXT    = $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))' 2>/dev/null)
# where Debian's python3 looks for modules installed under PREFIX (/usr/local)
PYSITE  ?= $(PREFIX)/lib/python$(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)/dist-packages
PYMOD    = build/python/lopt$(PYEXT)
HAVE_PYDEV = $(shell test -n "$(PYINC)" && test -f "$(PYINC)/Python.h" && echo yes)

python: $(PYMOD)

$(PYMOD): python/lopt_module.c api/lopt.h liblopt.a python/lopt.pyi
	@if [ "$(HAVE_PYDEV)" != yes ]; then echo "make python: Python.h not found: install python3-dev"; exit 1; fi
	@mkdir -p $(@D)
	$(say) LD $@
	$(Q)$(CC) $(WARN) -Wno-missing-field-initializers $(CFLAGS) -fPIC -shared -I$(PYINC) -o $@ python/lopt_module.c \
	  liblopt.a $(LIBS)
	cp python/lopt.pyi $(@D)/lopt.pyi

# the module and its type stubs (lopt.pyi) beside it
install-python: $(PYMOD)
	install -d $(DESTDIR)$(PYSITE)
	install -m 644 $(PYMOD) python/lopt.pyi $(DESTDIR)$(PYSITE)/

check-python: python lopt
	PYTHONPATH=$(CURDIR)/build/python LOPT=$(CURDIR)/lopt $(PYTHON) -m pytest -q -rs python/test_lopt.py

# The test build: warnings are errors, AddressSanitizer and UBSan on.
build/lopt-check: $(OBJ_CHECK)
	$(say) LD $@
	$(Q)$(CC) $(SANFLAGS) -o $@ $(OBJ_CHECK) $(LIBS)

build/unit: build/check/testsuite/unit/unit.o $(LIBOBJ_CHECK)
	$(say) LD $@
	$(Q)$(CC) $(SANFLAGS) -o $@ $^ $(LIBS)

build/unit-indexmap: build/check/testsuite/unit/maps.o $(LIBOBJ_CHECK)
	$(say) LD $@
	$(Q)$(CC) $(SANFLAGS) -o $@ $^ $(LIBS)

build/unit-plan: build/check/testsuite/unit/plan.o build/check/passes/layout/plan_solve.o build/check/ir/oom.o
	$(say) LD $@
	$(Q)$(CC) $(SANFLAGS) -o $@ $^ $(LIBS)

# The batch engine's exp against libm's: a sample under the sanitizers in
# make check, every float32 input in the optimized build in check-slow.
build/unit-exp-check: build/check/testsuite/unit/exp.o build/check/interp/vexp.o
	$(say) LD $@
	$(Q)$(CC) $(SANFLAGS) -o $@ $^ $(LIBS)

build/unit-exp: build/obj/testsuite/unit/exp.o build/obj/interp/vexp.o
	$(say) LD $@
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

# make check: the stages below run side by side (make's -j), the longest
# first, each printing its progress; the golden tests (testsuite/run.sh) share themselves out
# among the cores too.
CHECKS = check-golden check-golden-release check-models check-unit check-fixed-point check-ops-table check-man check-batch check-numpy \
         check-ops-diff check-int8 check-report check-weight-layout check-api check-py check-plan-accounts \
         check-plan-exhaustive check-choose-exhaustive check-outputs check-nested check-limits check-install check-tvm-style \
         check-fault
check: $(CHECKS)
	@echo "make check: all passed"

check-unit: build/unit build/unit-indexmap build/unit-plan build/unit-exp-check
	@echo "== check-unit: unit tests: index maps, plan solver, exp by exhaustive enumeration"
	./build/unit
	./build/unit-exp-check 4099
	./build/unit-indexmap
	./build/unit-plan 600 1

# LOPT_FLOW_CACHE=check: flow computes again each answer it finds kept, and each guess one call at a time, compares the uses it keeps per binding with the function's, and stops on a difference
check-golden: build/lopt-check
	@echo "== check-golden: golden tests, round trips and examples under ASan and UBSan"
	LABEL="golden, ASan" LOPT_FLOW_CACHE=check LOPT=$(CURDIR)/build/lopt-check sh testsuite/run.sh

# The release build too: short expression nodes and Relax variables are
# allocated at their members' size only there (AddressSanitizer's build keeps
# each whole), so a copy or read past a short node shows only in this run.
check-golden-release: lopt
	@echo "== check-golden-release: the same with the release build"
	LABEL="golden, release" LOPT=$(CURDIR)/lopt sh testsuite/run.sh

# --print-style=tvm reads back and runs as lopt's own spelling does, on every test and example.
check-tvm-style: lopt
	@echo "== check-tvm-style: every module printed in TVM's spelling reads back and runs the same"
	$(PYTHON) testsuite/tvm_style.py ./lopt

# Outputs appear whole or not at all and never over what the run reads (-o, --report, --output-dir, Ctrl-C).
check-outputs: build/lopt-check
	@echo "== check-outputs: outputs are atomic and never overwrite an input"
	LOPT=$(CURDIR)/build/lopt-check sh testsuite/outputs.sh

# make install's files: pkg-config builds a client, the bash completion completes
check-install: lopt liblopt.a liblopt.so
	@echo "== check-install: make install's pkg-config file and bash completion"
	sh testsuite/install.sh

# --timeout ends runs that would not end, wherever they are, in time.
check-limits: build/lopt-check
	@echo "== check-limits: the step, time and memory budgets"
	LOPT=$(CURDIR)/build/lopt-check sh testsuite/limits.sh

check-fixed-point: build/lopt-check
	@echo "== check-fixed-point: every pipeline run twice gives the same module"
	LOPT_FLOW_CACHE=check LOPT=$(CURDIR)/build/lopt-check sh testsuite/fixed_point.sh

# every pass on a module with calls written in place gives what it gives on the module written with their bindings
check-nested: build/lopt-check
	@echo "== check-nested: passes on nested calls equal passes on bound ones"
	LOPT=$(CURDIR)/build/lopt-check sh testsuite/nested_bound.sh

check-ops-table: build/lopt-check
	@echo "== check-ops-table: the manual lists every registered operator"
	sh man/ops-table.sh build/lopt-check --check

# The manual pages render at 80 columns without a troff warning.
check-man:
	@echo "== check-man: the manual pages render without warnings"
	@if command -v man >/dev/null 2>&1; then \
	  for p in man/lopt.1 man/lopt-format.5; do \
	    w=$$(MANWIDTH=80 man --warnings=all -l $$p 2>&1 >/dev/null); \
	    if [ -n "$$w" ]; then echo "FAIL $$p at 80 columns:"; echo "$$w"; exit 1; fi; \
	  done; echo "man: lopt.1 and lopt-format.5 render at 80 columns without warnings"; \
	else echo "man: skipped: man-db is not installed (.ci/run installs it)"; fi

check-batch: build/lopt-check
	@echo "== check-batch: batched and one-at-a-time execution agree"
	LOPT=$(CURDIR)/build/lopt-check sh testsuite/batch_diff.sh 300

check-numpy: build/lopt-check
	@echo "== check-numpy: the interpreter against NumPy"
	@if $(PYTHON) -c 'import numpy' 2>/dev/null; then $(PYTHON) testsuite/numpy_check.py build/lopt-check; \
	else echo "numpy_check: skipped: python3-numpy is not installed (.ci/run installs it)"; fi

check-ops-diff: build/lopt-check
	@echo "== check-ops-diff: every operator against NumPy"
	@if $(PYTHON) -c 'import numpy' 2>/dev/null; then $(PYTHON) testsuite/ops_diff.py build/lopt-check --seed 1 --cases 3000; \
	else echo "ops_diff: skipped: python3-numpy is not installed (.ci/run installs it)"; fi

check-int8: build/lopt-check
	@echo "== check-int8: int8 convolutions against NumPy"
	$(PYTHON) testsuite/int8_conv_check.py build/lopt-check

check-report: build/lopt-check
	@echo "== check-report: the HTML report"
	$(PYTHON) testsuite/report/check_report.py build/lopt-check

check-weight-layout: build/lopt-check
	@echo "== check-weight-layout: weight-layout on random schedules"
	$(PYTHON) testsuite/fuzz/fuzz_weight_layout.py --lopt build/lopt-check --cases 100

check-models: build/lopt-check
	@echo "== check-models: random models through the pipelines, with --verify-exec"
	LOPT_FLOW_CACHE=check $(PYTHON) testsuite/fuzz/fuzz_models.py --lopt build/lopt-check --check-slice --jobs $(NPROC)

# What plan says its plan leaves is what the printed module holds, counted
# apart from plan: on every golden test whose pipeline ends with plan, and
# on the example models and the first 25 random models (modelgen.py) under
# both conversions; --models 1:1501 checks 3,000.
check-plan-accounts: build/lopt-check
	@echo "== check-plan-accounts: plan's printed account against its module"
	$(PYTHON) testsuite/plan_accounts.py build/lopt-check
	$(PYTHON) testsuite/plan_accounts.py build/lopt-check --pipeline 'convert-layout{conv2d=NHWC:HWIO},plan,fold' \
	  --pipeline 'convert-layout{conv2d=NCHW4c:OIHW4o},plan,fold' examples/models/*.tir
	$(PYTHON) testsuite/plan_accounts.py build/lopt-check --pipeline 'convert-layout{conv2d=NHWC:HWIO},plan,fold' \
	  --pipeline 'convert-layout{conv2d=NCHW4c:OIHW4o},plan,fold' --models 1:26

# plan against every combination of layouts of up to 4 values (as written,
# NHWC, NCHW4c), each realized by the same machinery and executed, on small
# random graphs: a slice here, thousands in check-slow.
check-plan-exhaustive: build/lopt-check
	@echo "== check-plan-exhaustive: plan against every assignment on small graphs"
	$(PYTHON) testsuite/fuzz/plan_exhaustive.py build/lopt-check --graphs 6 --jobs $(NPROC)

# choose-layout against every assignment of candidates, each priced by the
# pass itself with a table of that assignment's times alone, on small random
# graphs with random cost tables; the chosen module is executed. A slice
# here, 10,000 graphs in check-slow.
check-choose-exhaustive: build/lopt-check
	@echo "== check-choose-exhaustive: choose-layout against every assignment on small graphs"
	$(PYTHON) testsuite/fuzz/choose_exhaustive.py build/lopt-check --graphs 10 --jobs $(NPROC)

# The Python module's tests, when python3-dev, NumPy and pytest are there.
check-py:
	@echo "== check-py: the Python module tests"
	@if [ "$(HAVE_PYDEV)" = yes ] && $(PYTHON) -c 'import numpy, pytest' 2>/dev/null; then $(MAKE) --no-print-directory check-python; \
	else echo "check-python: skipped: python3-dev, python3-numpy or python3-pytest is not installed (.ci/run installs them)"; fi

# The cases too slow for the loop above (testsuite/slow.list: the texture
# convolutions, about 5 minutes under the sanitizers); CI runs them too.
# Every PrimFunc of the suite through flatten (about a minute with ./lopt).
# the report in headless Chromium (apt-get install chromium graphviz; .ci/run does):
# every example's and ResNet-50's page, its DOM, console, requests and a screenshot
# make web: the playground, lopt in WebAssembly (Debian's emscripten) with
# Graphviz's WebAssembly build from npm (@viz-js/viz, pinned), in build/web/:
# index.html and what it loads, working from file:// and any static host.
EMCC ?= emcc
NPM  ?= npm
VIZ_VERSION = 3.31.0
WEBPAGE = build/web/index.html build/web/app.js build/web/style.css build/web/examples.js
EMFLAGS = -sSINGLE_FILE=1 -sMODULARIZE=1 -sEXPORT_NAME=createLopt -sALLOW_MEMORY_GROWTH=1 -sTOTAL_STACK=4194304 \
          -sEXPORTED_FUNCTIONS=_lopt_web_run,_lopt_web_passes,_lopt_web_free -sEXPORTED_RUNTIME_METHODS=ccall,UTF8ToString

web: build/web/lopt.js build/web/viz-global.js $(WEBPAGE)

# one emcc call compiles and links every source (each emcc call costs seconds);
# NODE_PATH: the node emcc runs finds Debian's node modules (acorn)
build/web/lopt.js: $(LIBSRC) web/lopt_web.c $(HDR)
	@mkdir -p $(@D)
	$(say) EMCC $@
	$(Q)NODE_PATH=/usr/share/nodejs$${NODE_PATH:+:$$NODE_PATH} $(EMCC) $(WARN) -Werror -O2 $(EMFLAGS) -o $@ $(LIBSRC) web/lopt_web.c

build/web/viz-global.js:
	@mkdir -p build/npm $(@D)
	cd build/npm && $(NPM) install --no-audit --no-fund --no-save --ignore-scripts @viz-js/viz@$(VIZ_VERSION) >/dev/null
	cp build/npm/node_modules/@viz-js/viz/dist/viz-global.js $@

build/web/examples.js: $(wildcard examples/*.tir) web/examples.py
	@mkdir -p $(@D)
	$(PYTHON) web/examples.py examples > $@

build/web/%: web/%
	@mkdir -p $(@D)
	cp $< $@

check-browser: build/lopt-check web
	$(PYTHON) testsuite/report/browser.py build/lopt-check build/browser
	$(PYTHON) testsuite/report/web.py build/lopt-check build/web build/browser/web

check-flatten: lopt
	LOPT=$(CURDIR)/lopt sh testsuite/flatten_all.sh

# transform-layout on every buffer parameter of the suite, two maps, with and without padding.
check-transform-layout: lopt
	$(PYTHON) testsuite/transform_layout_all.py $(CURDIR)/lopt

check-slow: build/lopt-check build/unit-plan build/unit-exp check-threads lopt build/lopt-fail
	@echo "== check-slow: every allocation of the pipeline failing in turn ends in 'out of memory' and leaks nothing (111 of 2502 leaked before the scratch of the passes and the interpreter was registered with the guard)"
	MAX_LEAKS=0 sh testsuite/fault/sweep.sh 1
	./build/unit-plan 10000 2
	./build/unit-exp
	$(PYTHON) testsuite/fuzz/plan_exhaustive.py ./lopt --graphs 3000 --seed 100000 --jobs $(NPROC) --known testsuite/fuzz/plan_known_worse.txt
	$(PYTHON) testsuite/fuzz/choose_exhaustive.py ./lopt --graphs 10000 --seed 100000 --jobs $(NPROC)
	LABEL="slow cases, ASan" SLOW=only LOPT=$(CURDIR)/build/lopt-check sh testsuite/run.sh

# ThreadSanitizer cannot join AddressSanitizer in one build: a build of its
# own runs the execution tests with two threads (-j 2 is their default on a
# two-core machine; the parallel tests give it themselves). A race report
# changes a test's standard error, so it fails.
build/lopt-tsan: $(SRC) $(HDR)
	$(say) CC-TSAN $@
	$(Q)$(CC) $(WARN) -Werror -O1 -g -fsanitize=thread -o $@ $(SRC) $(LIBS)

check-threads: build/lopt-tsan build/api-test-tsan
	LABEL="exec, TSan" LOPT=$(CURDIR)/build/lopt-tsan sh testsuite/run.sh exec/
	./build/api-test-tsan

# The C API's test under ThreadSanitizer: two threads on two modules.
build/api-test-tsan: $(LIBSRC) $(HDR) testsuite/api/api_test.c
	$(say) LD $@
	$(Q)$(CC) $(WARN) -Werror -O1 -g -fsanitize=thread -o $@ testsuite/api/api_test.c $(LIBSRC) $(LIBS)

# Coverage: an instrumented build runs the same tests, lcov sums the lines.
COVDIRS = grammar ir interp printer passes api cli
build/cov/lopt: $(OBJ_COV)
	$(say) LD $@
	$(Q)$(CC) $(COVFLAGS) -o $@ $(OBJ_COV) $(LIBS)

build/cov/unit: build/cov/testsuite/unit/unit.o $(LIBOBJ_COV)
	$(say) LD $@
	$(Q)$(CC) $(COVFLAGS) -o $@ $^ $(LIBS)

build/cov/unit-indexmap: build/cov/testsuite/unit/maps.o $(LIBOBJ_COV)
	$(say) LD $@
	$(Q)$(CC) $(COVFLAGS) -o $@ $^ $(LIBS)

coverage: build/cov/lopt build/cov/unit build/cov/unit-indexmap
	find build/cov -name '*.gcda' -delete
	./build/cov/unit >/dev/null
	./build/cov/unit-indexmap >/dev/null
	LOPT=$(CURDIR)/build/cov/lopt sh testsuite/run.sh >/dev/null
	lcov --quiet --capture --directory build/cov --output-file build/cov/all.info
	lcov --quiet --extract build/cov/all.info $(foreach d,$(COVDIRS),'$(CURDIR)/$(d)/*') \
	     --output-file build/cov/lopt.info
	lcov --summary build/cov/lopt.info 2>&1 | grep -E 'lines'

# The parser under libFuzzer (clang), for as long as FUZZ_SECONDS says.
FUZZ_SECONDS ?= 60
fuzz: $(LIBSRC) $(HDR) testsuite/fuzz/fuzz_parse.c
	@mkdir -p build/fuzz-corpus
	clang $(WARN) -g -O1 -fsanitize=fuzzer,address,undefined -o build/fuzz_parse \
	  testsuite/fuzz/fuzz_parse.c $(LIBSRC) $(LIBS)
	cp testsuite/roundtrip/*.tir testsuite/roundtrip/tvm/*.tir testsuite/roundtrip/read/*.tir testsuite/spellings/*.tir \
	  testsuite/fuzz/tvm/*.tir examples/*.tir build/fuzz-corpus/ 2>/dev/null || true
	cat testsuite/fuzz/tir.dict testsuite/fuzz/tvm/tvm.dict > build/fuzz.dict
	./build/fuzz_parse -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
	  -dict=build/fuzz.dict build/fuzz-corpus

# The model fuzzer: random valid modules through every pipeline users run, under
# the sanitizers with --verify-exec, for FUZZ_SECONDS (the read-back, fixed-point
# and best-placement runs use the plain build, for speed); failures are reduced
# into build/fuzz-found/.
fuzz-models: build/lopt-check lopt
	$(PYTHON) testsuite/fuzz/fuzz_models.py --lopt build/lopt-check --recheck-lopt ./lopt --jobs 2 \
	  --seconds $(FUZZ_SECONDS) --reduce

# The campaign issue 42 asks for: fuzz-models' pipelines (hoist; convert-layout to NHWC, NCHW4c,
# NHWC4c with flow,fold and with plan,fold; the texture scopes; legalize; fold; choose-layout with
# measured costs; weight-layout,fold; convert-layout,flow,fold,legalize,flatten; normalize),
# --verify-each --verify-exec, one job under nice, for FUZZ_CAMPAIGN_SECONDS from seed FUZZ_START;
# the plain build (no sanitizers), so the machine's other work keeps its cores (FUZZ_LOPT=build/lopt-check
# runs it under the sanitizers). Not covered: the README's transform-layout, which names one
# module's PrimFunc and buffer.
FUZZ_CAMPAIGN_SECONDS ?= 1200
FUZZ_START ?= 700000
FUZZ_LOPT ?= ./lopt
fuzz-campaign: lopt $(FUZZ_LOPT)
	nice $(PYTHON) testsuite/fuzz/fuzz_models.py --lopt $(FUZZ_LOPT) --recheck-lopt ./lopt --jobs 1 \
	  --seconds $(FUZZ_CAMPAIGN_SECONDS) --start $(FUZZ_START) --out build/fuzz-found

# The index-map algebra under libFuzzer, checked by enumeration on every accepted map.
fuzz-map: $(LIBSRC) $(HDR) testsuite/fuzz/fuzz_map.c testsuite/unit/maps.c
	@mkdir -p build/fuzz-map-corpus
	clang $(WARN) -g -O1 -fsanitize=fuzzer,address,undefined -o build/fuzz_map \
	  testsuite/fuzz/fuzz_map.c $(LIBSRC) $(LIBS)
	for f in testsuite/maps/*.tir; do sed -n "s/^# lopt: --map '\([^']*\)'.*/\1/p" $$f > build/fuzz-map-corpus/$$(basename $$f .tir); done
	./build/fuzz_map -max_total_time=$(FUZZ_SECONDS) -max_len=512 build/fuzz-map-corpus

# Every registered operator against a NumPy reference, on random cases for FUZZ_SECONDS.
fuzz-ops: lopt
	$(PYTHON) testsuite/ops_diff.py ./lopt --seconds $(FUZZ_SECONDS)

install: lopt liblopt.a liblopt.so
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5 \
	  $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	# pkg-config's file for liblopt: this PREFIX, the version the library's source states
	sed -e 's|@PREFIX@|$(PREFIX)|' \
	    -e "s|@VERSION@|$$(sed -n 's/^#define LOPT_VERSION \"\(.*\)\"/\1/p' api/context.c)|" \
	    api/lopt.pc.in >$(DESTDIR)$(PREFIX)/lib/pkgconfig/lopt.pc
	chmod 644 $(DESTDIR)$(PREFIX)/lib/pkgconfig/lopt.pc
	install -m 644 cli/lopt.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/lopt
	install -m 755 lopt $(DESTDIR)$(PREFIX)/bin/lopt
	install -m 644 api/lopt.h $(DESTDIR)$(PREFIX)/include/lopt.h
	install -m 644 liblopt.a $(DESTDIR)$(PREFIX)/lib/liblopt.a
	install -m 755 liblopt.so.0 $(DESTDIR)$(PREFIX)/lib/liblopt.so.0
	ln -sf liblopt.so.0 $(DESTDIR)$(PREFIX)/lib/liblopt.so
	install -m 644 man/lopt.1 $(DESTDIR)$(PREFIX)/share/man/man1/lopt.1
	install -m 644 man/lopt-format.5 $(DESTDIR)$(PREFIX)/share/man/man5/lopt-format.5

clean:
	rm -rf lopt liblopt.a liblopt.so liblopt.so.0 build

.PHONY: all lib python install-python check-python check $(CHECKS) check-browser check-flatten check-transform-layout check-slow check-threads coverage fuzz fuzz-campaign fuzz-map fuzz-models fuzz-ops install clean
