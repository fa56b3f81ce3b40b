# SPDX-License-Identifier: GPL-2.0
# autofaultaround: a thin wrapper around Kbuild
# (Documentation/kbuild/modules.rst) plus the project's test targets.
#
#   make                build module/autofaultaround.ko against KDIR
#   make demo           boot Debian's kernel in QEMU and show the module at work
#   make check          run every test that can run here; ends "N passed, N failed"
#   make bench          held mappings, fresh processes and real programs at static
#                       windows and with the module, in one VM boot; writes
#                       docs/benchmarks.md (BENCH_REPS=3: quick; BENCH_ONLY=fresh|real)
#   make deps           install the Debian packages all of this needs (root)
#   make kunit | vmtest | checkpatch | userspace | install | uninstall | clean
#   make vmtest-debug   the VM suites on a debug kernel (KASAN, lockdep, kmemleak),
#                       built once into the cache (make debug-kernel)

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

kunit-i386:
	AFA_KUNIT_ARCH=i386 scripts/kunit.sh

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

# The stress suite, in one boot (docs/testing.md).  The guest's counts can
# be overridden: STRESS_LOADS, STRESS_WRITES, STRESS_HOTPLUG,
# STRESS_RACE_S, STRESS_TOGGLES, STRESS_MEMCG_MIB, STRESS_MEMCG_S, STRESS_SEED,
# STRESS_LIMIT_S (time limit of each test's loop), STRESS_ONLY=NN (only
# the tests whose names start with NN).
STRESS_APPEND = $(strip \
	$(if $(STRESS_LOADS),stress_loads=$(STRESS_LOADS)) \
	$(if $(STRESS_WRITES),stress_writes=$(STRESS_WRITES)) \
	$(if $(STRESS_HOTPLUG),stress_hotplug=$(STRESS_HOTPLUG)) \
	$(if $(STRESS_RACE_S),stress_race_s=$(STRESS_RACE_S)) \
	$(if $(STRESS_TOGGLES),stress_toggles=$(STRESS_TOGGLES)) \
	$(if $(STRESS_MEMCG_MIB),stress_memcg_mib=$(STRESS_MEMCG_MIB)) \
	$(if $(STRESS_MEMCG_S),stress_memcg_s=$(STRESS_MEMCG_S)) \
	$(if $(STRESS_SEED),stress_seed=$(STRESS_SEED)) \
	$(if $(STRESS_LIMIT_S),stress_limit_s=$(STRESS_LIMIT_S)) \
	$(if $(STRESS_ONLY),stress_only=$(STRESS_ONLY)))

vmtest-stress:
	@$(VM_LOCK) sh -c '$(MAKE) --no-print-directory vm-prereq && \
		AFA_VM_APPEND="$(STRESS_APPEND)" vm/run.sh stress $(KVER)'

demo:
	@$(VM_LOCK) sh -c '$(MAKE) --no-print-directory vm-prereq && vm/run.sh demo $(KVER)'

# The debug kernel (KASAN, lockdep, atomic sleep, kmemleak, KFENCE): built
# once into the cache by scripts/debug-kernel.sh, before the VM lock is
# taken.  vmtest-debug boots it once: the whole suite, the stress suite,
# a kmemleak scan.
DEBUG_KDIR = $(shell scripts/debug-kernel.sh --dir)
DEBUG_KREL = $(shell cat $(DEBUG_KDIR)/include/config/kernel.release 2>/dev/null)

debug-kernel:
	@scripts/debug-kernel.sh >/dev/null

vmtest-debug: debug-kernel
	@$(VM_LOCK) sh -c '$(MAKE) --no-print-directory userspace && \
		$(MAKE) --no-print-directory KDIR=$(DEBUG_KDIR) modules && \
		AFA_VM_KERNEL=$(DEBUG_KDIR)/arch/x86/boot/bzImage \
		AFA_VM_MODDIR=$(DEBUG_KDIR)/modroot/lib/modules/$(DEBUG_KREL) \
		vm/run.sh debug $(DEBUG_KREL)'

# Benchmarks, not tests: repetitions per configuration (the baseline runs
# twice as often); BENCH_ONLY=name,... restricts them to workloads or to
# families (held, fresh, real; see docs/benchmarks.md); BENCH_CLOCK=wall
# boots without the instruction clock (its own log and report section).
# The real-programs family needs the Debian root image of
# scripts/rootfs.sh (built once into the cache, as root).
BENCH_REPS ?= 5
BENCH_ONLY ?=
BENCH_CLOCK ?= icount
comma := ,
BENCH_REAL = $(if $(BENCH_ONLY),$(filter real%,$(subst $(comma), ,$(BENCH_ONLY))),all)
BENCH_LOG = build/vm-$(KVER)/console-bench$(if $(filter wall,$(BENCH_CLOCK)),-wall).log

# one root image build at a time across checkouts
ROOTFS_LOCK = mkdir -p "$${XDG_CACHE_HOME:-$$HOME/.cache}/autofaultaround" && \
	flock "$${XDG_CACHE_HOME:-$$HOME/.cache}/autofaultaround/rootfs.lock"

bench:
	@$(if $(BENCH_REAL),$(ROOTFS_LOCK) scripts/rootfs.sh >/dev/null)
	@$(VM_LOCK) sh -c '$(MAKE) --no-print-directory vm-prereq && \
		$(if $(BENCH_REAL),AFA_VM_ROOTFS=$$(scripts/rootfs.sh --path)) \
		AFA_BENCH_CLOCK=$(BENCH_CLOCK) \
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
	deps kunit kunit-i386 checkpatch \
	vm-prereq vmtest vmtest-stress demo debug-kernel vmtest-debug bench bench-report check
