# autotune: `make` builds autotune and autotune-worker; `make test` runs everything that needs
# no GPU; `make test-gpu` runs the end-to-end tests on a GPU.
CC ?= gcc
CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(CUDA_HOME)/bin/nvcc
PREFIX ?= /usr/local

CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -pthread
# cuda.h and cuda_occupancy.h come in as system headers: their inline helpers are not ours to lint.
# The wings (README, Layout): lib/ the helpers, tuner/ the pipeline, tuner/results/ the readers
# and writers of results files, worker/ the GPU process.
SRC_DIRS = lib tuner tuner/results worker
CPPFLAGS += $(SRC_DIRS:%=-I%) -isystem $(CUDA_HOME)/include -MMD -MP
vpath %.c $(SRC_DIRS)
LDLIBS = -lyaml -lxxhash -lm
# The worker alone links the driver. At build time the toolkit's stub satisfies the linker; at run
# time the real libcuda.so.1 of the installed driver is loaded.
WORKER_LDLIBS = -L$(CUDA_HOME)/lib64/stubs -L$(CUDA_HOME)/lib64 -lcuda -lcupti -lm -ldl \
	-Wl,-rpath,$(CUDA_HOME)/lib64
# Helper kernels as SASS for common GPUs plus PTX that the driver compiles for newer ones.
HELPER_ARCHS = -gencode arch=compute_75,code=compute_75 -gencode arch=compute_80,code=sm_80 \
	-gencode arch=compute_90,code=sm_90

B = build
ENGINE = build_flags cache chart cli compile completeness cubin config config_data config_instances config_expr config_keys config_plan config_source config_use config_yaml devices diag expr expr_eval finish hash header hostref import import_keys import_out import_py inputs instances journal launch_plan literal measure merge occupancy output plan proc progress protocol recipe replay report runner search select selector show signature sizes space stats summary t4 table tune unchanged view
ENGINE_OBJS = $(ENGINE:%=$(B)/%.o)
RUNTIME_LIBS = $(B)/libautotune_select.a $(B)/libautotune_select.so
TESTS = $(patsubst tests/%.c,$(B)/tests/%.o,$(filter-out tests/fake_worker.c tests/cubin_hash.c,$(wildcard tests/*.c)))

all: autotune autotune-worker $(RUNTIME_LIBS)

autotune: $(B)/main.o $(ENGINE_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

autotune-worker: $(B)/worker.o $(B)/args.o $(B)/streams.o $(B)/profile.o $(B)/counters.o $(B)/protocol.o $(B)/stats.o $(B)/expr.o $(B)/expr_eval.o $(B)/worker_kernels.o
	$(CC) $(CFLAGS) -z noexecstack -o $@ $^ $(WORKER_LDLIBS)

# cupti_profiler_host.h includes the C++ header <string>: an empty file of that name comes first.
$(B)/counters.o: CPPFLAGS := -Iworker/cupti_shim $(CPPFLAGS)

$(B)/%.o: %.c | $(B)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/tests/%.o: tests/%.c | $(B)
	@mkdir -p $(B)/tests
	$(CC) $(CPPFLAGS) -I$(B)/tests $(CFLAGS) -c -o $@ $<

# The runner's list of suites: every add_*_suite that a tests/test_*.c defines, none kept by hand.
$(B)/tests/suites.h: $(wildcard tests/test_*.c) | $(B)
	@mkdir -p $(B)/tests
	sed -n 's/^int \(add_[a-z0-9_]*_suite\)(void)$$/SUITE(\1)/p' $^ > $@
$(B)/tests/main.o: $(B)/tests/suites.h

$(B)/worker_kernels.fatbin: worker/worker_kernels.cu | $(B)
	$(NVCC) -fatbin $(HELPER_ARCHS) -o $@ $<

# Embedded as data: the symbol names follow the file name (_binary_worker_kernels_fatbin_start).
$(B)/worker_kernels.o: $(B)/worker_kernels.fatbin
	cd $(B) && ld -r -b binary -z noexecstack -o worker_kernels.o worker_kernels.fatbin

$(B):
	@mkdir -p $(B)

$(B)/run_tests: $(TESTS) $(ENGINE_OBJS) $(B)/runtime/autotune_select.o
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) -lcunit -ldl

# The run-time selection library (runtime/, RUNTIME_LIBS): libc alone, static and shared, for
# programs that pick a tuned configuration from the results CSV at run time.
$(B)/runtime/autotune_select.o: runtime/autotune_select.c runtime/autotune_select.h | $(B)
	@mkdir -p $(B)/runtime
	$(CC) $(CFLAGS) -fPIC -Iruntime -c -o $@ $<
$(B)/libautotune_select.a: $(B)/runtime/autotune_select.o
	$(AR) rcs $@ $^
$(B)/libautotune_select.so: $(B)/runtime/autotune_select.o
	$(CC) $(CFLAGS) -shared -Wl,-soname,libautotune_select.so -o $@ $^

# A stand-in for autotune-worker that speaks its protocol without a GPU (tests/fake_worker.c).
$(B)/fake_worker: tests/fake_worker.c $(B)/protocol.o $(B)/stats.o | $(B)
	$(CC) -Ilib $(CFLAGS) -o $@ $^ -lm -ldl

# What the GPU executes of a cubin (tests/recipe.sh compares a recipe's build with the tuned binary).
$(B)/cubin_hash: tests/cubin_hash.c $(B)/cubin.o $(B)/hash.o $(B)/diag.o $(B)/proc.o | $(B)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $^ -lxxhash

# The report is also checked as a browser renders it, where Chromium is installed (.ci/run installs it).
test: deps
	$(MAKE) all $(B)/run_tests $(B)/fake_worker $(B)/cubin_hash
	# the tests write only under temporary directories: the checkout (its results/ above all) is
	# the same after them, checked at the end
	tests/checkout_unchanged.sh save $(B)/checkout.before
	# the suites use fixed directories under /tmp: two checkouts testing at once take turns
	flock /tmp/autotune-tests.lock $(B)/run_tests
	MAKE="$(MAKE)" tests/install.sh
	# examples/summatrix_cmake with the sample, where cmake is installed (.ci/run installs it)
	NVCC="$(NVCC)" tests/cmake.sh
	@if command -v chromium >/dev/null 2>&1; then tests/report_browser.sh; \
	else echo "SKIPPED: chromium not installed (tests/report_browser.sh: the report in a headless browser)"; fi
	# the example app from its checked-in sample result: nvcc compiles it, no GPU or tuning needed
	app=$$(mktemp -d "$${TMPDIR:-/tmp}/autotune-app-XXXXXX") && \
	$(MAKE) -C examples/summatrix_app sample APP=$$app/summatrix_app; rc=$$?; rm -rf "$$app"; exit $$rc
	# examples/streams_app against a header of configs/streams.yaml tuned on the fake worker
	NVCC="$(NVCC)" tests/streams_app.sh
	# examples/sizes_app against the selecting header of configs/summatrix_sizes.yaml, on the fake worker
	NVCC="$(NVCC)" tests/sizes_app.sh
	# every shipped config's winner built from the header's recipe (make and CMake): the tuned binary
	NVCC="$(NVCC)" tests/recipe.sh
	tests/checkout_unchanged.sh check $(B)/checkout.before

# Installs libyaml-dev, libcunit1-dev and libxxhash-dev on Debian/Ubuntu when they are missing.
deps:
	@missing=""; for p in libyaml-dev libcunit1-dev libxxhash-dev; do \
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

# Removes what install put there, file by file; directories go only when that leaves them empty.
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/autotune $(DESTDIR)$(PREFIX)/libexec/autotune/autotune-worker \
		$(DESTDIR)$(PREFIX)/share/man/man1/autotune.1 \
		$(addprefix $(DESTDIR)$(SHARE)/,$(SHIPPED_CONFIGS) $(SHIPPED_KERNELS)) \
		$(addprefix $(DESTDIR)$(CMAKE_DIR)/,$(notdir $(CMAKE_FILES))) \
		$(DESTDIR)$(PREFIX)/include/autotune_select.h $(DESTDIR)$(PREFIX)/lib/libautotune_select.a \
		$(DESTDIR)$(PREFIX)/lib/libautotune_select.so $(DESTDIR)$(PREFIX)/lib/pkgconfig/autotune-select.pc
	rmdir $(DESTDIR)$(PREFIX)/libexec/autotune $(DESTDIR)$(SHARE)/configs $(DESTDIR)$(SHARE)/kernels \
		$(DESTDIR)$(SHARE) $(DESTDIR)$(CMAKE_DIR) 2>/dev/null || true

clean:
	rm -rf $(B) autotune autotune-worker

# libFuzzer with ASan and UBSan over what autotune reads from disk: configs (the loader and the
# expression language; the corpus starts from the shipped configs), results files (the CSV reader
# behind header, report, show and merge; the T4 and Kernel Tuner cache reader behind --replay and
# header), journals (a resumed run's replay) and T1 specs (`autotune import`). Each fuzzer runs
# FUZZ_SECONDS.
FUZZ_SECONDS ?= 60
FUZZ_CC = clang -g -O1 -std=c11 -D_POSIX_C_SOURCE=200809L $(SRC_DIRS:%=-I%) -isystem $(CUDA_HOME)/include \
	-fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined
# the config loader and what it evaluates with
FUZZ_LOADER_SRCS = tuner/config.c tuner/config_yaml.c tuner/config_expr.c tuner/config_keys.c tuner/config_source.c \
	tuner/config_use.c tuner/config_plan.c tuner/config_data.c tuner/config_instances.c lib/expr.c lib/expr_eval.c lib/hash.c tuner/space.c \
	tuner/launch_plan.c lib/diag.c tuner/occupancy.c
FUZZ_CONFIG_SRCS = $(FUZZ_LOADER_SRCS) tuner/results/output.c tuner/build_flags.c tests/fuzz/fuzz_config.c
FUZZ_TABLE_SRCS = tuner/results/table.c tuner/select.c lib/stats.c lib/diag.c tests/fuzz/fuzz_table.c
FUZZ_JOURNAL_SRCS = tuner/journal.c lib/protocol.c lib/hash.c lib/diag.c tests/fuzz/fuzz_journal.c
FUZZ_IMPORT_SRCS = tuner/import.c tuner/import_keys.c tuner/import_out.c tuner/import_py.c $(FUZZ_LOADER_SRCS) tuner/results/output.c tuner/build_flags.c \
	tests/fuzz/fuzz_import.c
FUZZ_T4_SRCS = tuner/results/t4.c tuner/results/table.c tuner/results/output.c tuner/build_flags.c tuner/select.c lib/stats.c \
	$(FUZZ_LOADER_SRCS) tests/fuzz/fuzz_t4.c
FUZZ_CUBIN_SRCS = tuner/cubin.c lib/hash.c lib/diag.c tests/fuzz/fuzz_cubin.c
$(B)/fuzz_config: $(FUZZ_CONFIG_SRCS) tests/fuzz/fuzz_file.h | $(B)
	$(FUZZ_CC) -o $@ $(FUZZ_CONFIG_SRCS) -lyaml -lxxhash -lm
$(B)/fuzz_table: $(FUZZ_TABLE_SRCS) tests/fuzz/fuzz_file.h | $(B)
	$(FUZZ_CC) -o $@ $(FUZZ_TABLE_SRCS) -lm
$(B)/fuzz_journal: $(FUZZ_JOURNAL_SRCS) tests/fuzz/fuzz_file.h | $(B)
	$(FUZZ_CC) -o $@ $(FUZZ_JOURNAL_SRCS) -lxxhash -lm
$(B)/fuzz_import: $(FUZZ_IMPORT_SRCS) tests/fuzz/fuzz_file.h | $(B)
	$(FUZZ_CC) -o $@ $(FUZZ_IMPORT_SRCS) -lyaml -lxxhash -lm
$(B)/fuzz_t4: $(FUZZ_T4_SRCS) tests/fuzz/fuzz_file.h | $(B)
	$(FUZZ_CC) -o $@ $(FUZZ_T4_SRCS) -lyaml -lxxhash -lm

$(B)/fuzz_cubin: $(FUZZ_CUBIN_SRCS) tests/fuzz/fuzz_file.h | $(B)
	$(FUZZ_CC) -o $@ $(FUZZ_CUBIN_SRCS) -lxxhash -lm

fuzz: $(B)/fuzz_config $(B)/fuzz_table $(B)/fuzz_journal $(B)/fuzz_import $(B)/fuzz_t4 $(B)/fuzz_cubin
	@mkdir -p $(B)/fuzz-corpus $(B)/fuzz-csv-corpus $(B)/fuzz-journal-corpus $(B)/fuzz-import-corpus \
		$(B)/fuzz-t4-corpus $(B)/fuzz-cubin-corpus
	@cp -n tests/fuzz/corpus/* $(B)/fuzz-corpus/ 2>/dev/null || true
	@cp -n tests/fuzz/csv-corpus/* $(B)/fuzz-csv-corpus/ 2>/dev/null || true
	@cp -n tests/fuzz/journal-corpus/* $(B)/fuzz-journal-corpus/ 2>/dev/null || true
	@cp -n tests/fuzz/import-corpus/* $(B)/fuzz-import-corpus/ 2>/dev/null || true
	@for f in tests/t1/published/*/*.json; do cp -n $$f $(B)/fuzz-import-corpus/published-$$(basename $$f); done
	@cp -n tests/fuzz/t4-corpus/* $(B)/fuzz-t4-corpus/ 2>/dev/null || true
	$(B)/fuzz_config -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 -artifact_prefix=$(B)/ $(B)/fuzz-corpus
	$(B)/fuzz_table -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 -artifact_prefix=$(B)/ $(B)/fuzz-csv-corpus
	$(B)/fuzz_journal -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 -artifact_prefix=$(B)/ $(B)/fuzz-journal-corpus
	$(B)/fuzz_import -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 -artifact_prefix=$(B)/ $(B)/fuzz-import-corpus
	$(B)/fuzz_t4 -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 -artifact_prefix=$(B)/ $(B)/fuzz-t4-corpus
	# the cubin corpus is compiled from its source: a cubin of this toolkit's own making
	@[ -s $(B)/fuzz-cubin-corpus/k.cubin ] || $(NVCC) -cubin -arch=sm_90 -o $(B)/fuzz-cubin-corpus/k.cubin \
		tests/fuzz/cubin-corpus/k.cu
	$(B)/fuzz_cubin -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -timeout=10 -artifact_prefix=$(B)/ $(B)/fuzz-cubin-corpus

.PHONY: all deps demo test test-gpu fuzz install uninstall clean

-include $(wildcard $(B)/*.d $(B)/tests/*.d)
