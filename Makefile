# SPDX-License-Identifier: GPL-2.0
# autofaultaround: a thin wrapper around Kbuild
# (Documentation/kbuild/modules.rst) plus the project's test targets.
#
#   make                build module/autofaultaround.ko against KDIR
#   make demo           boot Debian's kernel in QEMU and show the module at work
#   make check          run every test that can run here; ends "N passed, N failed"
#   make bench          the seeds' workloads at static windows and with the module,
#                       in one VM boot; writes docs/benchmarks.md (BENCH_REPS=3: quick)
#   make deps           install the Debian packages all of this needs (root)
#   make kunit | vmtest | checkpatch | userspace | install | uninstall | clean

# The Debian kernel the test VM boots: newest installed 6.12 with headers.
KVER ?= $(shell scripts/kver.sh 6.12)
RUNNING_KDIR := /lib/modules/$(shell uname -r)/build
KDIR ?= $(if $(wildcard $(RUNNING_KDIR)),$(RUNNING_KDIR),/lib/modules/$(KVER)/build)
VM_KDIR = /lib/modules/$(KVER)/build

all: modules

modules:
	@test -d "$(KDIR)" || { echo "no kernel headers at '$(KDIR)': run 'make deps' as root, or pass KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

modules-clean:
	@if test -d "$(KDIR)"; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi

clean: modules-clean
	$(MAKE) -C userspace clean
	rm -rf build

# Install for the kernel KDIR belongs to (the running one by default).
INSTALL_KVER = $(shell $(MAKE) -s -C $(KDIR) kernelrelease 2>/dev/null)

install: modules
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=extra modules_install
	depmod -a $(INSTALL_KVER)

uninstall:
	rm -f /lib/modules/$(INSTALL_KVER)/extra/autofaultaround.ko*
	depmod -a $(INSTALL_KVER)

dkms-test:
	scripts/dkms-test.sh

cross-ppc64le:
	scripts/cross-build.sh

userspace:
	$(MAKE) -C userspace

deps:
	scripts/deps.sh

kunit:
	scripts/kunit.sh

checkpatch:
	scripts/checkpatch.sh

vm-prereq: userspace
	@test -n "$(KVER)" || { echo "no Debian 6.12 kernel with headers installed: run 'make deps' as root" >&2; exit 1; }
	$(MAKE) KDIR=$(VM_KDIR) modules

# One VM run at a time per checkout: the runs share build/ and the module
# objects.
VM_LOCK = mkdir -p build && flock build/.vm.lock

# Two boots: the whole suite on one SMT socket, the topology tests on two
# NUMA nodes.
vmtest:
	@$(VM_LOCK) sh -c '$(MAKE) --no-print-directory vm-prereq && { vm/run.sh test $(KVER); t=$$?; vm/run.sh numa $(KVER) && exit $$t; }'

demo:
	@$(VM_LOCK) sh -c '$(MAKE) --no-print-directory vm-prereq && vm/run.sh demo $(KVER)'

# Benchmarks, not tests: repetitions per configuration (the baseline runs
# twice as often); BENCH_ONLY=wl1,wl2 restricts the workloads.
BENCH_REPS ?= 5
BENCH_ONLY ?=
BENCH_LOG = build/vm-$(KVER)/console-bench.log

bench:
	@$(VM_LOCK) sh -c '$(MAKE) --no-print-directory vm-prereq && \
		AFA_VM_APPEND="bench_reps=$(BENCH_REPS) $(if $(BENCH_ONLY),bench_only=$(BENCH_ONLY))" \
		vm/run.sh bench $(KVER)'
	@scripts/bench-report.sh $(BENCH_LOG)

# Regenerate docs/benchmarks.md from the last bench run's console log.
bench-report:
	scripts/bench-report.sh $(BENCH_LOG)

check:
	scripts/check.sh

.PHONY: all modules modules-clean clean install uninstall dkms-test cross-ppc64le \
	userspace \
	deps kunit checkpatch \
	vm-prereq vmtest demo bench bench-report check
