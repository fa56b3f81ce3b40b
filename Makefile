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
#   make vmtest-selftests  the kernel's mm selftests in the VM, without and with the module
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
# STRESS_RACE_S, STRESS_TOGGLES, STRESS_MEMCG_MIB, STRESS_MEMCG_S,
# STRESS_COLLAPSE_S, STRESS_HOTSET_S, STRESS_SEED,
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
	$(if $(STRESS_COLLAPSE_S),stress_collapse_s=$(STRESS_COLLAPSE_S)) \
	$(if $(STRESS_HOTSET_S),stress_hotset_s=$(STRESS_HOTSET_S)) \
	$(if $(STRESS_SEED),stress_seed=$(STRESS_SEED)) \
	$(if $(STRESS_LIMIT_S),stress_limit_s=$(STRESS_LIMIT_S)) \
	$(if $(STRESS_ONLY),stress_only=$(STRESS_ONLY)))

vmtest-stress:
	@$(VM_LOCK) sh -c '$(MAKE) --no-print-directory vm-prereq && \
		AFA_VM_APPEND="$(STRESS_APPEND)" vm/run.sh stress $(KVER)'

# The kernel's mm selftests, built once into the cache, in one boot:
# without the module, then with it at pinned windows and its defaults
# (docs/testing.md).  SELFTESTS_RUNS=none,order0,... SELFTESTS_ONLY=a,b
SELFTESTS_APPEND = $(strip \
	$(if $(SELFTESTS_RUNS),selftests_runs=$(SELFTESTS_RUNS)) \
	$(if $(SELFTESTS_ONLY),selftests_only=$(SELFTESTS_ONLY)))

vmtest-selftests:
	@st=$$(scripts/selftests-build.sh) && $(VM_LOCK) sh -c '$(MAKE) --no-print-directory vm-prereq && \
		AFA_VM_SELFTESTS='"$$st"' AFA_VM_APPEND="$(SELFTESTS_APPEND)" vm/run.sh selftests $(KVER)'

# The stress suite on multi-threaded TCG, the vCPUs truly in parallel,
# with Debian 13's QEMU 10 from a debootstrapped trixie root
# (scripts/trixie-root.sh; bookworm's QEMU 7.2 oopses under MTTCG).
TRIXIE_ROOT_SH ?= scripts/trixie-root.sh

vmtest-stress-mttcg:
	@test -x "$(TRIXIE_ROOT_SH)" || { echo "vmtest-stress-mttcg: no $(TRIXIE_ROOT_SH) (the trixie root with QEMU 10)" >&2; exit 1; }
	@$(TRIXIE_ROOT_SH) >/dev/null
	@$(VM_LOCK) sh -c '$(MAKE) --no-print-directory vm-prereq && \
		AFA_VM_TCG=multi AFA_VM_QEMU="$(TRIXIE_ROOT_SH) --run --bind $(CURDIR) --bind /boot -- qemu-system-x86_64" \
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
	deps kunit kunit-i386 checkpatch \
	vm-prereq vmtest vmtest-stress vmtest-stress-mttcg vmtest-selftests demo debug-kernel vmtest-debug bench bench-report check
