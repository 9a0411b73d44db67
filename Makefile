# autotune: `make` builds autotune and autotune-worker; `make test` runs everything that needs
# no GPU (`make unit`, its fast tier, needs no CUDA toolkit); `make test-gpu` runs the end-to-end
# tests on a GPU.
CC ?= gcc
CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(CUDA_HOME)/bin/nvcc
PREFIX ?= /usr/local

CFLAGS ?= -O2 -g
# What the build needs whatever CFLAGS a user gives (git's ALL_CFLAGS): `make CFLAGS=-O0` keeps
# the standard, the warnings and -pthread.
BASIC_CFLAGS = -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -pthread
ALL_CFLAGS = $(BASIC_CFLAGS) $(CFLAGS)
# cuda.h and cuda_occupancy.h come in as system headers: their inline helpers are not ours to lint.
# The wings (docs/reference.md, How it works): lib/ the helpers, tuner/ the pipeline, worker/ the
# GPU process. The pipeline's stages are folders of tuner/, in pipeline order (STAGES), the last
# the readers and writers of results files; tuner/ itself holds the driver that calls them all.
STAGES = config space build search measure import results
SRC_DIRS = lib $(STAGES:%=tuner/%) tuner worker runtime
# Each folder compiles with only the include paths it may use, so an include the wrong way fails
# the build (a file's own folder is searched first without one): a stage sees its own folder and
# the earlier stages', never a later one. tests/test_layers.c reads these.
INC_lib =
INC_worker = -Ilib
INC_tuner/config = -Ituner/config -Ilib
INC_tuner/space = -Ituner/space -Ituner/config -Ilib
INC_tuner/build = -Ituner/build -Ituner/space -Ituner/config -Ilib
INC_tuner/search = -Ituner/search -Ituner/build -Ituner/space -Ituner/config -Ilib
INC_tuner/measure = -Ituner/measure -Ituner/search -Ituner/build -Ituner/space -Ituner/config -Ilib
INC_tuner/import = -Ituner/import -Ituner/measure -Ituner/search -Ituner/build -Ituner/space -Ituner/config -Ilib
INC_tuner/results = -Ituner/results -Ituner/import -Ituner/measure -Ituner/search -Ituner/build -Ituner/space -Ituner/config -Ilib -Iruntime
# the driver (main, tune, ...): every stage
INC_tuner = -Ituner -Ituner/results -Ituner/import -Ituner/measure -Ituner/search -Ituner/build -Ituner/space -Ituner/config -Ilib -Iruntime
# the run-time library is installed alone: its own folder and nothing else
INC_runtime =
# the tests and the tools built from them see every folder
INCLUDES = $(SRC_DIRS:%=-I%)
ALL_CPPFLAGS = $(INCLUDES) -isystem $(CUDA_HOME)/include -MMD -MP $(ZSTD_CPPFLAGS) $(CPPFLAGS)
LDLIBS = -lyaml -lxxhash -lm -ldl $(ZSTD_LDLIBS)
# Zstandard (libzstd-dev; `make deps` installs it), where its header is found: `autotune check`
# then reads the device code nvcc compresses (-G, -rdc objects, -compress-mode=size). Without it
# check says such code cannot be read.
ifeq ($(shell printf '\043include <zstd.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 && echo yes),yes)
ZSTD_CPPFLAGS = -DHAVE_ZSTD
ZSTD_LDLIBS = -lzstd
endif
# The worker alone links the driver. At build time the toolkit's stub satisfies the linker; at run
# time the real libcuda.so.1 of the installed driver is loaded.
WORKER_LDLIBS = -L$(CUDA_HOME)/lib64/stubs -L$(CUDA_HOME)/lib64 -lcuda -lcupti -lm -ldl \
	-Wl,-rpath,$(CUDA_HOME)/lib64
# Helper kernels as SASS for common GPUs plus PTX that the driver compiles for newer ones.
HELPER_ARCHS = -gencode arch=compute_75,code=compute_75 -gencode arch=compute_80,code=sm_80 \
	-gencode arch=compute_90,code=sm_90

# build/ mirrors the source folders (build/tuner/x.o, build/lib/x.o): two files of one name in
# different folders cannot collide. The module lists are the folders' contents, none kept by hand.
B = build
LIB_SRCS = $(wildcard lib/*.c)
# Of runtime/, the tuner calls autotune_ln alone, and links that file alone.
ENGINE_SRCS = $(LIB_SRCS) $(filter-out tuner/main.c,$(wildcard tuner/*.c)) $(foreach s,$(STAGES),$(wildcard tuner/$(s)/*.c)) \
	runtime/autotune_ln.c
WORKER_SRCS = $(wildcard worker/*.c)
ENGINE_OBJS = $(ENGINE_SRCS:%.c=$(B)/%.o)
# the test runner: every tests/test_*.c, the shared helpers and the runner's main
TEST_SRCS = tests/main.c tests/tests.c $(wildcard tests/test_*.c)
TESTS = $(TEST_SRCS:%.c=$(B)/%.o)
RUNTIME_LIBS = $(B)/libautotune_select.a $(B)/libautotune_select.so
RUNTIME_SRCS = $(wildcard runtime/*.c)
RUNTIME_OBJS = $(RUNTIME_SRCS:%.c=$(B)/%.o)

all: autotune autotune-worker $(RUNTIME_LIBS)

autotune: $(B)/tuner/main.o $(ENGINE_OBJS)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

# lib/ as a thin archive (its members named by path): the worker takes only the helpers it
# calls, so it links no xxhash and no libyaml.
$(B)/lib/lib.a: $(LIB_SRCS:%.c=$(B)/%.o)
	rm -f $@ && ar rcs --thin $@ $^

autotune-worker: $(WORKER_SRCS:%.c=$(B)/%.o) $(B)/worker/worker_kernels.o $(B)/lib/lib.a
	$(CC) $(ALL_CFLAGS) -z noexecstack -o $@ $^ $(WORKER_LDLIBS)

# cupti_profiler_host.h includes the C++ header <string>: an empty file of that name comes first.
$(B)/worker/counters.o: private INCLUDES := -Iworker/cupti_shim $(INC_worker)

# The flags every object is built with, rewritten when they change (git's GIT-CFLAGS): a change of
# CFLAGS, CC or CUDA_HOME rebuilds everything.
TRACK_FLAGS = $(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS)
$(B)/flags: FORCE
	@mkdir -p $(B)
	@if [ "$$(cat $@ 2>/dev/null)" != '$(subst ','\'',$(TRACK_FLAGS))' ]; then \
		echo '$(subst ','\'',$(TRACK_FLAGS))' > $@; fi

$(B)/%.o: %.c $(B)/flags
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

$(B)/lib/%.o: private INCLUDES = $(INC_lib)
$(B)/worker/%.o: private INCLUDES = $(INC_worker)
$(B)/tuner/%.o: private INCLUDES = $(INC_tuner)
$(B)/tuner/config/%.o: private INCLUDES = $(INC_tuner/config)
$(B)/tuner/space/%.o: private INCLUDES = $(INC_tuner/space)
$(B)/tuner/build/%.o: private INCLUDES = $(INC_tuner/build)
$(B)/tuner/search/%.o: private INCLUDES = $(INC_tuner/search)
$(B)/tuner/measure/%.o: private INCLUDES = $(INC_tuner/measure)
$(B)/tuner/import/%.o: private INCLUDES = $(INC_tuner/import)
$(B)/tuner/results/%.o: private INCLUDES = $(INC_tuner/results)
$(B)/tests/%.o: private INCLUDES += -I$(B)/tests

# The runner's list of suites: every add_*_suite that a tests/test_*.c defines, none kept by hand.
$(B)/tests/suites.h: $(wildcard tests/test_*.c)
	@mkdir -p $(@D)
	sed -n 's/^int \(add_[a-z0-9_]*_suite\)(void)$$/SUITE(\1)/p' $^ > $@
$(B)/tests/main.o: $(B)/tests/suites.h

$(B)/worker/worker_kernels.fatbin: worker/worker_kernels.cu worker/compare.h worker/half_t.cuh lib/half.h
	@mkdir -p $(@D)
	$(NVCC) -fatbin $(HELPER_ARCHS) $(INC_worker) -o $@ $<

# Embedded as data: the symbol names follow the file name (_binary_worker_kernels_fatbin_start).
$(B)/worker/worker_kernels.o: $(B)/worker/worker_kernels.fatbin
	cd $(@D) && ld -r -b binary -z noexecstack -o worker_kernels.o worker_kernels.fatbin

# fsync wrapped: tests/test_journal.c makes it fail on demand, as a failing disk does; the whole
# run-time library, which tests/test_selector.c loads results with
$(B)/run_tests: $(TESTS) $(sort $(ENGINE_OBJS) $(RUNTIME_OBJS))
	$(CC) $(ALL_CFLAGS) -Wl,--wrap=fsync -o $@ $^ $(LDLIBS) -lcunit -ldl

# The run-time selection library (runtime/, RUNTIME_LIBS): libc and libyaml alone (the tuner's
# folders are not on its include path), static and shared, for programs that pick a tuned
# configuration from the results CSV or T4 file at run time. A program linking the static one
# adds -lyaml (pkg-config --static autotune-select, CMake Autotune::select say so). Both export the
# autotune_* functions of autotune_select.h alone (tests/test_layers.c checks with nm): the shared
# one through runtime/exports.map, the static one as a single object whose other symbols are made
# local, so that the library's helpers never clash with a program's own.
$(B)/runtime/%.o: private INCLUDES = $(INC_runtime)
$(B)/runtime/%.o: runtime/%.c $(B)/flags
	@mkdir -p $(B)/runtime
	$(CC) $(ALL_CFLAGS) -fPIC $(INCLUDES) -MMD -MP -c -o $@ $<
$(B)/libautotune_select.a: $(RUNTIME_OBJS)
	ld -r -o $(B)/autotune_select.o $^
	objcopy -w --keep-global-symbol='autotune_*' $(B)/autotune_select.o
	rm -f $@ && $(AR) rcs $@ $(B)/autotune_select.o
$(B)/libautotune_select.so: $(RUNTIME_OBJS) runtime/exports.map
	$(CC) $(ALL_CFLAGS) -shared -Wl,-soname,libautotune_select.so -Wl,--version-script=runtime/exports.map \
		-o $@ $(RUNTIME_OBJS) -lyaml

# A stand-in for autotune-worker that speaks its protocol without a GPU (tests/fake_worker.c).
$(B)/fake_worker: $(B)/tests/fake_worker.o $(B)/lib/lib.a
	$(CC) $(ALL_CFLAGS) -o $@ $^ -lm -ldl

# worker/energy.c's window without a GPU (tests/energy_window.c), against a stand-in for NVML
# (tests/fake_nvml.c) that it loads as the worker loads the real one.
$(B)/energy_window: tests/energy_window.c worker/energy.c worker/energy.h $(B)/fakenvml/libnvidia-ml.so.1
	$(CC) $(ALL_CFLAGS) -Iworker -rdynamic -o $@ tests/energy_window.c worker/energy.c -ldl -lm
$(B)/fakenvml/libnvidia-ml.so.1: tests/fake_nvml.c
	mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -shared -fPIC -o $@ $< -ldl -lm

# worker/hostref.c on the CPU (tests/hostref_thread.c), without a toolkit (tests/nocuda's cuda.h),
# and the verify.host it loads.
$(B)/hostref_thread: tests/hostref_thread.c worker/hostref.c worker/hostref.h worker/args.h $(B)/lib/lib.a \
		$(B)/hostref_thread_ref.so
	$(CC) $(ALL_CFLAGS) -Itests/nocuda -Iworker -Ilib -rdynamic -o $@ tests/hostref_thread.c worker/hostref.c \
		$(B)/lib/lib.a -ldl -lm
$(B)/hostref_thread_ref.so: tests/hostref_thread.c
	$(CC) $(ALL_CFLAGS) -DREFERENCE_SO -shared -fPIC -o $@ $<

# A stand-in for nvcc that needs no CUDA toolkit (tests/fake_nvcc.c): the unit tier compiles with it.
$(B)/fake_nvcc: $(B)/tests/fake_nvcc.o
	$(CC) $(ALL_CFLAGS) -o $@ $^

# Which columns of two results CSVs differ (bench/same_outputs.sh: what a refactor changed).
$(B)/csv_same: $(B)/tests/csv_same.o $(ENGINE_OBJS)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

# The methodology's score of the strategies over recordings (bench/anytime.sh).
$(B)/anytime_score: $(B)/tests/anytime_score.o $(ENGINE_OBJS)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

# What the GPU executes of a cubin (tests/recipe.sh compares a recipe's build with the tuned binary).
$(B)/cubin_hash: $(B)/tests/cubin_hash.o $(B)/tuner/build/cubin.o $(B)/tuner/config/mangle.o $(B)/lib/lib.a
	$(CC) $(ALL_CFLAGS) -o $@ $^ -lxxhash

# Two tiers (docs/reference.md, Tests). `make unit`: the suites that need no CUDA toolkit and no GPU
# (tests/fake_nvcc.c and tests/fake_worker.c stand in), seconds. `make integration`: the suites that
# compile with the real nvcc, then install, CMake, the browser, the example apps and the recipes.
# `make test` runs both. The tests write only under temporary directories: the checkout (its
# results/ above all) is the same after them, checked at the end of each tier.
UNIT_TOOLS = autotune $(B)/run_tests $(B)/fake_worker $(B)/fake_nvcc $(B)/energy_window $(RUNTIME_LIBS) $(B)/anytime_score \
	$(B)/hostref_thread
test: deps
	$(MAKE) unit
	$(MAKE) integration

unit: deps
	$(MAKE) $(UNIT_TOOLS)
	tests/checkout_unchanged.sh save $(B)/checkout.unit
	$(B)/run_tests --unit
	@# the fuzzers build only with clang (make fuzz): their C is checked here with any compiler
	@for f in tests/fuzz/fuzz_*.c; do $(CC) $(SRC_DIRS:%=-I%) -isystem $(CUDA_HOME)/include $(ALL_CFLAGS) \
		-fsyntax-only $$f || exit 1; done
	tests/checkout_unchanged.sh check $(B)/checkout.unit

integration: deps
	$(MAKE) all $(UNIT_TOOLS) $(B)/cubin_hash $(B)/csv_same
	tests/checkout_unchanged.sh save $(B)/checkout.integration
	NVCC="$(NVCC)" $(B)/run_tests --integration
	MAKE="$(MAKE)" tests/install.sh
	# examples/summatrix_cmake with the sample, where cmake is installed (.ci/run installs it)
	NVCC="$(NVCC)" tests/cmake.sh
	# examples/sizes_app with CMake from its sample: every variant its own object and recipe
	NVCC="$(NVCC)" tests/cmake_sizes.sh
	# the report as a browser renders it, where Chromium is installed (.ci/run installs it)
	@if command -v chromium >/dev/null 2>&1; then tests/report_browser.sh; \
	else echo "SKIPPED: chromium not installed (tests/report_browser.sh: the report in a headless browser)"; fi
	# the example app from its checked-in sample result: nvcc compiles it, no GPU or tuning needed
	app=$$(mktemp -d "$${TMPDIR:-/tmp}/autotune-app-XXXXXX") && \
	$(MAKE) -C examples/summatrix_app sample APP=$$app/summatrix_app; rc=$$?; rm -rf "$$app"; exit $$rc
	# examples/streams_app against a header of configs/streams.yaml tuned on the fake worker
	NVCC="$(NVCC)" tests/streams_app.sh
	# the README's five-minute example (examples/saxpy), tuned on the fake worker and built
	NVCC="$(NVCC)" tests/saxpy_example.sh
	# the README's five minutes without a GPU, its commands as written, in a copy of the checkout
	NVCC="$(NVCC)" tests/readme.sh
	# the docs' Slurm job arrays (time limit and resume too) under a Slurm of its own, where Slurm is
	# installed (.ci/run installs it); about two minutes, Slurm checking time limits every 30 s
	NVCC="$(NVCC)" tests/slurm.sh
	# examples/sizes_app against the selecting header of configs/summatrix_sizes.yaml, on the fake worker
	NVCC="$(NVCC)" tests/sizes_app.sh
	# every shipped config's winner built from the header's recipe (make and CMake): the tuned binary
	NVCC="$(NVCC)" tests/recipe.sh
	tests/checkout_unchanged.sh check $(B)/checkout.integration

# Installs libyaml-dev, libcunit1-dev, libxxhash-dev and libzstd-dev on Debian/Ubuntu when they are
# missing.
deps:
	@missing=""; for p in libyaml-dev libcunit1-dev libxxhash-dev libzstd-dev; do \
		command -v dpkg >/dev/null && ! dpkg -s $$p >/dev/null 2>&1 && missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing$$missing"; \
		if [ "$$(id -u)" -eq 0 ]; then apt-get update -qq && apt-get install -y $$missing; \
		else sudo apt-get update -qq && sudo apt-get install -y $$missing; fi; \
	fi

# Tunes the summatrix example; on a machine without a GPU, a clearly labelled dry run instead.
demo: deps
	$(MAKE) all
	@if nvidia-smi -L >/dev/null 2>&1; then ./autotune configs/summatrix.yaml; \
	else echo "*** No GPU found: DRY RUN only (compile + theoretical occupancy for sm_90, nothing is measured) ***"; \
		./autotune --dry-run --arch sm_90 configs/summatrix.yaml; fi

test-gpu: all
	tests/gpu.sh

# The layout is fixed: autotune finds its worker at ../libexec/autotune/ from its own directory,
# and a config finds its kernel relative to itself (../kernels/), so configs/ and kernels/ stay
# side by side under share/autotune.
SHARE = $(PREFIX)/share/autotune
SHIPPED_CONFIGS = $(wildcard configs/*.yaml)
SHIPPED_KERNELS = $(wildcard kernels/*.cu kernels/*.cuh kernels/*.h)
# find_package(Autotune) looks in PREFIX/lib/cmake/autotune; the config finds ../../../bin/autotune.
CMAKE_DIR = $(PREFIX)/lib/cmake/autotune
CMAKE_FILES = $(wildcard cmake/*.cmake)
# The man page points here: README.md and BENCHMARKS.md with docs/ beside them, so that their
# relative links still lead somewhere once installed.
DOC_DIR = $(PREFIX)/share/doc/autotune
DOC_FILES = README.md BENCHMARKS.md
DOC_DOCS = $(wildcard docs/*.md)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/libexec/autotune $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(SHARE)/configs $(DESTDIR)$(SHARE)/kernels $(DESTDIR)$(CMAKE_DIR)
	install -m 755 autotune $(DESTDIR)$(PREFIX)/bin/autotune
	install -m 755 autotune-worker $(DESTDIR)$(PREFIX)/libexec/autotune/autotune-worker
	install -m 644 autotune.1 $(DESTDIR)$(PREFIX)/share/man/man1/autotune.1
	install -m 644 $(SHIPPED_CONFIGS) $(DESTDIR)$(SHARE)/configs
	install -m 644 $(SHIPPED_KERNELS) $(DESTDIR)$(SHARE)/kernels
	install -m 644 $(CMAKE_FILES) $(DESTDIR)$(CMAKE_DIR)
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 runtime/autotune_select.h $(DESTDIR)$(PREFIX)/include/autotune_select.h
	install -m 644 $(B)/libautotune_select.a $(DESTDIR)$(PREFIX)/lib/libautotune_select.a
	install -m 755 $(B)/libautotune_select.so $(DESTDIR)$(PREFIX)/lib/libautotune_select.so
	sed 's|@PREFIX@|$(PREFIX)|' runtime/autotune-select.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/autotune-select.pc
	install -d $(DESTDIR)$(DOC_DIR)/docs
	install -m 644 $(DOC_FILES) $(DESTDIR)$(DOC_DIR)
	install -m 644 $(DOC_DOCS) $(DESTDIR)$(DOC_DIR)/docs

# Removes what install put there, file by file; directories go only when that leaves them empty.
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/autotune $(DESTDIR)$(PREFIX)/libexec/autotune/autotune-worker \
		$(DESTDIR)$(PREFIX)/share/man/man1/autotune.1 \
		$(addprefix $(DESTDIR)$(SHARE)/,$(SHIPPED_CONFIGS) $(SHIPPED_KERNELS)) \
		$(addprefix $(DESTDIR)$(CMAKE_DIR)/,$(notdir $(CMAKE_FILES))) \
		$(DESTDIR)$(PREFIX)/include/autotune_select.h $(DESTDIR)$(PREFIX)/lib/libautotune_select.a \
		$(DESTDIR)$(PREFIX)/lib/libautotune_select.so $(DESTDIR)$(PREFIX)/lib/pkgconfig/autotune-select.pc \
		$(addprefix $(DESTDIR)$(DOC_DIR)/,$(DOC_FILES) $(DOC_DOCS))
	rmdir $(DESTDIR)$(PREFIX)/libexec/autotune $(DESTDIR)$(SHARE)/configs $(DESTDIR)$(SHARE)/kernels \
		$(DESTDIR)$(SHARE) $(DESTDIR)$(CMAKE_DIR) $(DESTDIR)$(DOC_DIR)/docs $(DESTDIR)$(DOC_DIR) 2>/dev/null || true

clean:
	rm -rf $(B) autotune autotune-worker

# libFuzzer with ASan and UBSan over what autotune reads from disk: configs (the loader and the
# expression language; the corpus starts from the shipped configs), results files (the CSV reader
# behind header, report, show and merge; the T4 and Kernel Tuner cache reader behind --replay and
# header), journals (a resumed run's replay), T1 specs (`autotune import`) and the run-time
# library's readers (runtime/: the CSV and T4 file a user's program loads). Each fuzzer runs
# FUZZ_SECONDS.
FUZZ_SECONDS ?= 60
FUZZ_CC = clang -g -O1 -std=c11 -D_POSIX_C_SOURCE=200809L $(INCLUDES) -isystem $(CUDA_HOME)/include $(ZSTD_CPPFLAGS) \
	-fno-sanitize-recover=undefined
FUZZERS = $(patsubst tests/fuzz/%.c,$(B)/%,$(wildcard tests/fuzz/fuzz_*.c))
# The engine instrumented, as an archive: each fuzzer links what its entry point reaches.
FUZZ_OBJS = $(sort $(ENGINE_SRCS:%.c=$(B)/fuzz/%.o) $(RUNTIME_SRCS:%.c=$(B)/fuzz/%.o))
$(B)/fuzz/%.o: %.c $(B)/flags
	@mkdir -p $(@D)
	$(FUZZ_CC) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c -o $@ $<
$(B)/fuzz/engine.a: $(FUZZ_OBJS)
	rm -f $@ && ar rcs --thin $@ $^
$(B)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_file.h $(B)/fuzz/engine.a
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $@ $< $(B)/fuzz/engine.a -lyaml -lxxhash -lm $(ZSTD_LDLIBS) -pthread

fuzz: $(FUZZERS)
	@mkdir -p $(B)/fuzz-corpus $(B)/fuzz-csv-corpus $(B)/fuzz-journal-corpus $(B)/fuzz-import-corpus \
		$(B)/fuzz-t4-corpus $(B)/fuzz-cubin-corpus $(B)/fuzz-select-corpus $(B)/fuzz-fatbin-corpus
	@cp -n tests/fuzz/corpus/* $(B)/fuzz-corpus/ 2>/dev/null || true
	@cp -n tests/fuzz/csv-corpus/* $(B)/fuzz-csv-corpus/ 2>/dev/null || true
	@cp -n tests/fuzz/journal-corpus/* $(B)/fuzz-journal-corpus/ 2>/dev/null || true
	@cp -n tests/fuzz/import-corpus/* $(B)/fuzz-import-corpus/ 2>/dev/null || true
	@for f in tests/t1/published/*/*.json; do cp -n $$f $(B)/fuzz-import-corpus/published-$$(basename $$f); done
	@cp -n tests/fuzz/t4-corpus/* $(B)/fuzz-t4-corpus/ 2>/dev/null || true
	@cp -n tests/fuzz/select-corpus/* tests/fuzz/csv-corpus/* tests/fuzz/t4-corpus/* $(B)/fuzz-select-corpus/ 2>/dev/null || true
	$(B)/fuzz_config -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 -artifact_prefix=$(B)/ $(B)/fuzz-corpus
	$(B)/fuzz_table -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 -artifact_prefix=$(B)/ $(B)/fuzz-csv-corpus
	$(B)/fuzz_journal -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 -artifact_prefix=$(B)/ $(B)/fuzz-journal-corpus
	$(B)/fuzz_import -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 -artifact_prefix=$(B)/ $(B)/fuzz-import-corpus
	$(B)/fuzz_t4 -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 -artifact_prefix=$(B)/ $(B)/fuzz-t4-corpus
	$(B)/fuzz_select -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 -artifact_prefix=$(B)/ $(B)/fuzz-select-corpus
	# the cubin corpus is compiled from its source: a cubin of this toolkit's own making
	@[ -s $(B)/fuzz-cubin-corpus/k.cubin ] || $(NVCC) -cubin -arch=sm_90 -o $(B)/fuzz-cubin-corpus/k.cubin \
		tests/fuzz/cubin-corpus/k.cu
	$(B)/fuzz_cubin -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -timeout=10 -artifact_prefix=$(B)/ $(B)/fuzz-cubin-corpus
	# and the fatbinary corpus: the host object nvcc makes of it (its .nv_fatbin section)
	@[ -s $(B)/fuzz-fatbin-corpus/k.o ] || $(NVCC) -c -arch=sm_90 -o $(B)/fuzz-fatbin-corpus/k.o tests/fuzz/cubin-corpus/k.cu
	$(B)/fuzz_fatbin -max_total_time=$(FUZZ_SECONDS) -max_len=32768 -timeout=10 -artifact_prefix=$(B)/ $(B)/fuzz-fatbin-corpus

.PHONY: all deps demo test unit integration test-gpu fuzz install uninstall clean FORCE

-include $(shell find $(B) -name '*.d' 2>/dev/null)
