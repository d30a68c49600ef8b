# SPDX-License-Identifier: GPL-2.0
#
# make            build the modules against the cached debug test kernel
# make check      run every test (KUnit and user-space checks in the VM)
# make demo       boot the VM, load and mount kernfs_events, show a tour
# make vm-shell   an interactive shell in the VM with the module mounted
# make htmldocs   build the guide into Documentation/output/html
# make bench      measure against eventfs on the release kernel
# make stress     the reliability checks with their full loop counts
#
# KDIR=<dir> builds against another configured kernel tree instead.

FLAVOUR ?= debug
KFE_CACHE ?= $(HOME)/.cache/kernfs-events
KDIR ?= $(KFE_CACHE)/build-$(FLAVOUR)
PWD := $(shell pwd)
KFE_SRC ?= $(KFE_CACHE)/linux-source-6.12
SPHINXBUILD ?= /usr/bin/sphinx-build

all: modules

kernel:
	tools/kernel-build $(FLAVOUR) >/dev/null

# The lock lets several shells build in one tree.
modules: kernel
	flock $(KFE_CACHE)/.modules.lock $(MAKE) -C $(KDIR) M=$(PWD) W=1 KCFLAGS=-Werror modules

sparse: kernel
	flock $(KFE_CACHE)/.modules.lock $(MAKE) -C $(KDIR) M=$(PWD) C=2 CF=-Wsparse-error modules

clean:
	$(MAKE) -C $(KDIR) M=$(PWD) clean

check:
	tools/check

bench:
	tools/bench/run

# One boot each: the kernel log and kmemleak of each are judged on their
# own, and each has its own time limit. The loops stop by their own
# limits (4,800 s in all); the full fault sweeps have none, and ran
# 2,942 s on a 2-core host under TCG; the full churn matrix runs 30
# rounds of each removal and 200 of each create-then-use, once under
# KASAN (debug) and once under KCSAN (a third kernel, built on first use).
stress: modules
	s=0; \
	tools/vm-run --kernel debug --timeout 5400 -- \
		env KFE_STRESS=full tests/vm/check-stress.py || s=1; \
	tools/vm-run --kernel debug --timeout 7200 -- \
		env KFE_STRESS=full tests/vm/check-faults.py || s=1; \
	tools/vm-run --kernel debug --timeout 3600 -- \
		env KFE_STRESS=full tests/vm/check-churn.py || s=1; \
	tools/vm-run --kernel debug --timeout 7200 -- \
		env KFE_STRESS=full tests/vm/check-ftracetest.py || s=1; \
	tools/vm-run --kernel debug --timeout 900 -- \
		env KFE_STRESS=full tests/vm/check-mount-options.sh || s=1; \
	tree=$$(tools/flavour-tree kcsan) && (cd $$tree && \
		tools/vm-run --kernel kcsan --timeout 3600 -- \
		env KFE_STRESS=full tests/vm/check-churn.py) || s=1; \
	exit $$s

demo: modules
	tools/vm-run --kernel $(FLAVOUR) -- tools/demo

# The guide takes kernel-doc, and the kernel-doc extension, from the
# kernel source that the test kernel is built from. Always a full build
# (-E): it takes seconds, and an incremental one can miss or invent
# cross-reference warnings.
htmldocs: kernel
	KFE_SRC=$(KFE_SRC) $(SPHINXBUILD) -E -W --keep-going -q -b html \
		Documentation Documentation/output/html

vm-shell: modules
	tools/vm-run --kernel $(FLAVOUR) --interactive -- \
		/bin/bash --rcfile $(PWD)/tools/vm-shell.bashrc -i

.PHONY: all kernel modules sparse clean check bench stress demo vm-shell htmldocs
