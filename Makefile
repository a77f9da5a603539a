# gedialects: the two set-up commands are `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
export PATH := $(CURDIR)/$(BIN):$(PATH)

EXAMPLE ?= examples/conv_block.mlir
OUT ?= out

.PHONY: demo test pytest lit lint typecheck fuzz bench bench-full clean partition-picture onnx-conformance models bench-onnx bench-scale

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(VENV)/.installed $@

demo: $(VENV)/.installed
	@mkdir -p $(OUT)
	ge-opt $(EXAMPLE) -p ge-compile -o $(OUT)/conv_block.ascend.mlir
	@echo "== graph level: $(EXAMPLE)"
	ge-run $(EXAMPLE) --random-inputs 0 -o $(OUT)/graph.npz
	@echo "== ascend level: $(OUT)/conv_block.ascend.mlir"
	ge-run $(OUT)/conv_block.ascend.mlir --random-inputs 0 --reference $(OUT)/graph.npz

# pytest in PYTEST_JOBS processes (pytest-xdist; 2 = the cores of the reference machine, 0 = one
# process). worksteal hands each worker a contiguous half of the files first, so most
# module-scoped fixtures (compiled models, loaded ONNX cases) are built once, not per worker.
PYTEST_JOBS ?= 2
PYTEST := $(BIN)/python -m pytest -n $(PYTEST_JOBS) --dist worksteal

test: $(VENV)/.installed-test
	$(BIN)/ruff check gedialects tests bench
	$(BIN)/ruff format --check gedialects tests bench
	$(BIN)/lint-imports --no-cache
	$(MAKE) --no-print-directory typecheck
	$(PYTEST)
	$(BIN)/lit -sv -j 2 tests/lit

# The long fuzz run (tests/fuzz/): new seeds each run, GE_FUZZ_MINUTES minutes (default 30);
# reproducers of new findings in GE_FUZZ_OUT (default fuzz-findings/, git-ignored). `make test`
# runs the bounded, fixed-seed part (tests/fuzz/test_fuzz_*.py).
GE_FUZZ_MINUTES ?= 30
GE_FUZZ_OUT ?= fuzz-findings
fuzz: $(VENV)/.installed-test
	nice $(BIN)/python -m tests.fuzz.run --minutes $(GE_FUZZ_MINUTES) --out $(GE_FUZZ_OUT)

pytest: $(VENV)/.installed-test
	$(PYTEST)

lit: $(VENV)/.installed-test
	$(BIN)/lit -v -j 2 tests/lit

lint: $(VENV)/.installed-test
	$(BIN)/ruff check gedialects tests bench
	$(BIN)/ruff format --check gedialects tests bench
	$(BIN)/lint-imports --no-cache
	$(MAKE) --no-print-directory typecheck

# The type checker alone ([tool.basedpyright] in pyproject.toml: the gedialects package)
typecheck: $(VENV)/.installed-test
	$(BIN)/basedpyright

bench: $(VENV)/.installed-bench
	$(BIN)/python bench/bench_pipeline.py --sizes 1000,10000
	$(BIN)/python bench/bench_exec.py

bench-full: $(VENV)/.installed
	$(BIN)/python bench/bench_pipeline.py --sizes 1000,10000,100000

# tests/models/: re-export the PyTorch models, their inputs and onnxruntime's outputs (needs
# torch: `pip install torch==2.13.0`, the CPU build; an unpinned torch pulls CUDA wheels)
$(VENV)/.installed-bench: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[bench]'
	touch $(VENV)/.installed $@

models: $(VENV)/.installed-bench
	$(BIN)/python tests/models/export_models.py
	$(BIN)/python tests/models/export_issue21_models.py

bench-onnx: $(VENV)/.installed-bench
	$(BIN)/python bench/bench_onnx.py

# issue 14's scale graph: text parse/print per op at both levels, each ge-compile pass
# (the 100k size takes minutes; files are cached in $TMPDIR/gedialects-bench-scale)
bench-scale: $(VENV)/.installed-bench
	$(BIN)/python bench/bench_scale.py --sizes 10000,100000

onnx-conformance: $(VENV)/.installed
	$(BIN)/python -m gedialects.tools.onnx_conformance -v

clean:
	rm -rf $(OUT) .pytest_cache tests/lit/**/Output

# The partitioning picture of docs/design/partitioning.md: DOT from ge-dump-dot (checked by
# tests/test_partition_passes.py), SVG from Graphviz (`apt-get install graphviz`), committed.
PARTITION_PIPELINE := ge-place-engines,ge-partition-dynamic-shape{static-model-ops-lower-limit=2}
partition-picture: $(VENV)/.installed
	ge-opt docs/design/partitioning-example.mlir -o /dev/null \
	  -p '$(PARTITION_PIPELINE),ge-dump-dot{file="docs/design/partitioning.dot"}'
	dot -Tsvg docs/design/partitioning.dot -o docs/design/partitioning.svg
