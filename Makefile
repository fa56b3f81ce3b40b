# SPDX-License-Identifier: GPL-2.0
# autofaultaround: a thin wrapper around Kbuild
# (Documentation/kbuild/modules.rst) plus the project's test targets.
#
#   make                build module/autofaultaround.ko against KDIR
#   make demo           boot Debian's kernel in QEMU and show the module at work
#   make check          run every test that can run here; ends "N passed, N failed"
#                       (both install the Debian packages they need first, as root)
#   make deb            the Debian packages autofaultaround-dkms and -tools, in build/deb/
#   make bench          held mappings, fresh processes and real programs at static
#                       windows and with the module, in one VM boot; writes
#                       docs/benchmarks.md (BENCH_REPS=3: quick; BENCH_ONLY=fresh|real)
#   make deps           install the Debian packages all of this needs (root)
#   make kunit | vmtest | checkpatch | userspace | install | uninstall | clean
#   make vmtest-selftests  the kernel's mm selftests in the VM, without and with the module
#   make vmtest-debug   the VM suites on a debug kernel (KASAN, lockdep, kmemleak),
#                       built once into the cache (make debug-kernel)
#   make vmtest-debug-rt  the same on its PREEMPT_RT flavour (make debug-kernel-rt)
#   make vmtest-arm64   FOREIGN_TESTS on Debian 13's arm64 kernel (qemu -M virt)
#   make vmtest-trixie  the whole VM suite on Debian 13's own amd64 6.12
#   make vmtest-ppc64le FOREIGN_TESTS on Debian 13's ppc64le kernels (qemu -M pseries):
#                       64 KiB pages with the radix and the hash MMU, 4 KiB pages
#   make bench-ppc64le  the fresh-processes family of bench on its 64 KiB-page
#                       kernel, in one boot; writes docs/benchmarks.md's 64 KiB sections

# The Debian kernel the test VM boots: the newest installed 6.12 with
# headers, of the running kernel's flavour, else the generic one (not -rt;
# KFLAVOUR=rt-amd64 picks that one; scripts/kver.sh).
KFLAVOUR ?=
KVER ?= $(shell scripts/kver.sh 6.12 $(KFLAVOUR))
RUNNING_KDIR := /lib/modules/$(shell uname -r)/build
KDIR ?= $(if $(wildcard $(RUNNING_KDIR)),$(RUNNING_KDIR),/lib/modules/$(KVER)/build)
VM_KDIR = /lib/modules/$(KVER)/build
# The release KDIR's headers are for (6.1's include/config/kernel.release
# says 6.1.192, not 6.1.0-57-amd64).
KREL = $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"$$/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)

all: modules

# Two trees built from one source with O= (the debug kernels) give kbuild
# the same commands and header paths, and it would keep the objects of the
# other kernel: a module built for another release is cleaned first.
modules:
	@test -d "$(KDIR)" || { echo "no kernel headers at '$(KDIR)': run 'make deps' as root, or pass KDIR=" >&2; exit 1; }
	@echo "make: building autofaultaround.ko for $(or $(KREL),an unknown release) ($(KDIR))"
	@if [ -f module/autofaultaround.ko ] && [ -n "$(KREL)" ] && \
	    ! modinfo -F vermagic module/autofaultaround.ko | grep -q "^$(KREL) "; then \
		echo "make: module/autofaultaround.ko is $$(modinfo -F vermagic module/autofaultaround.ko | cut -d' ' -f1)'s; cleaning first"; \
		$(MAKE) -C $(KDIR) M=$(CURDIR) clean >/dev/null; \
	fi
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

modules-clean:
	@if test -d "$(KDIR)"; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi

clean: modules-clean
	$(MAKE) -C userspace clean
	rm -rf build

# Install for the kernel KDIR belongs to (the running one by default).
INSTALL_KVER = $(KREL)

install: modules
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=extra modules_install
	depmod -a $(INSTALL_KVER)

uninstall:
	rm -f /lib/modules/$(INSTALL_KVER)/extra/autofaultaround.ko*
	depmod -a $(INSTALL_KVER)

dkms-test:
	scripts/dkms-test.sh

# The Debian packages (scripts/deb.sh), and their test: apt install into
# a bookworm root, DKMS, upgrade, a VM load, purge (root).
deb:
	@scripts/deps.sh deb
	@scripts/deb.sh

deb-test:
	scripts/deb-test.sh

# Lockdown as Secure Boot sets it, in the VM, on 6.12 and 6.1.
lockdown-test:
	scripts/lockdown-test.sh

doc-logs:
	scripts/doc-logs.sh

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
	$(MAKE) -C $(VM_KDIR) M=$(CURDIR)/vm/probetest AFA_MODULE_DIR=$(CURDIR)/module modules

# The test-only probe module (vm/probetest) goes into the initramfs too,
# when it was built for the kernel booted.
export AFA_VM_EXTRA_KO = $(CURDIR)/vm/probetest/afa_probetest.ko

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
# STRESS_COLLAPSE_S, STRESS_HOTSET_S, STRESS_HOTSET_ROUNDS, STRESS_SEED,
# STRESS_ONLY=NN (only the tests whose names start with NN).
# STRESS_MEMCG_REPEAT=N: 60-memcg runs N rounds of three arms instead of
# once (no module, the module, the module built with AFA_PROBE=kprobe,
# which goes into the initramfs as autofaultaround_kprobe.ko); give it
# AFA_VM_TIMEOUT to match.
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
	$(if $(STRESS_HOTSET_ROUNDS),stress_hotset_rounds=$(STRESS_HOTSET_ROUNDS)) \
	$(if $(STRESS_SEED),stress_seed=$(STRESS_SEED)) \
	$(if $(STRESS_ONLY),stress_only=$(STRESS_ONLY)) \
	$(if $(STRESS_MEMCG_REPEAT),stress_memcg_repeat=$(STRESS_MEMCG_REPEAT)))
KPROBE_KO = build/kprobe/autofaultaround_kprobe.ko

vmtest-stress:
	@$(VM_LOCK) sh -c '$(if $(STRESS_MEMCG_REPEAT),$(MAKE) --no-print-directory KDIR=$(VM_KDIR) \
		AFA_PROBE=kprobe modules && mkdir -p build/kprobe && \
		cp module/autofaultaround.ko $(KPROBE_KO) && )$(MAKE) --no-print-directory vm-prereq && \
		AFA_VM_EXTRA_KO="$(AFA_VM_EXTRA_KO) $(if $(STRESS_MEMCG_REPEAT),$(CURDIR)/$(KPROBE_KO))" \
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

# The packages first, in their own step: KVER is only known once the
# kernel is installed.
demo:
	@scripts/deps.sh demo
	@$(MAKE) --no-print-directory demo-run

demo-run:
	@echo "demo: the VM boots $(KVER)"
	@$(VM_LOCK) sh -c '$(MAKE) --no-print-directory vm-prereq && vm/run.sh demo $(KVER)'

# The debug kernel (KASAN, lockdep, atomic sleep, kmemleak, KFENCE): built
# once into the cache by scripts/debug-kernel.sh, before the VM lock is
# taken.  vmtest-debug boots it once: the whole suite, the stress suite,
# a kmemleak scan.
DEBUG_KDIR = $(shell scripts/debug-kernel.sh --dir)
DEBUG_KREL = $(shell cat $(DEBUG_KDIR)/include/config/kernel.release 2>/dev/null)

debug-kernel:
	@scripts/debug-kernel.sh >/dev/null

# The same debug kernel with PREEMPT_RT (scripts/debug-kernel-rt.config):
# lockdep and DEBUG_ATOMIC_SLEEP on sleeping spinlocks, which Debian's
# -rt kernel (vmtest-rt) does not have.  Both debug kernels boot with
# pci=noacpi: under TCG, with KASAN and lockdep, the ACPI interpreter can
# run QEMU's \_SB.PCI0._PRT past ACPICA's 30 s loop limit
# (AE_AML_LOOP_TIMEOUT), virtio then gets no interrupt and the boot
# hangs; the BIOS's PCI routing table serves instead.  Seen with the -rt
# one alone, and with the other beside make check's VMs (its first run
# in the debug lane ran past it, its second hung).
DEBUG_RT_KDIR = $(shell AFA_DEBUG_RT=1 scripts/debug-kernel.sh --dir)
DEBUG_RT_KREL = $(shell cat $(DEBUG_RT_KDIR)/include/config/kernel.release 2>/dev/null)

debug-kernel-rt:
	@AFA_DEBUG_RT=1 scripts/debug-kernel.sh >/dev/null

vmtest-debug: debug-kernel
	@$(VM_LOCK) sh -c '$(MAKE) --no-print-directory userspace && \
		$(MAKE) --no-print-directory KDIR=$(DEBUG_KDIR) modules && \
		AFA_VM_KERNEL=$(DEBUG_KDIR)/arch/x86/boot/bzImage \
		AFA_VM_MODDIR=$(DEBUG_KDIR)/modroot/lib/modules/$(DEBUG_KREL) \
		AFA_VM_APPEND="pci=noacpi $(STRESS_APPEND) $(AFA_VM_APPEND)" \
		vm/run.sh debug $(DEBUG_KREL)'

vmtest-debug-rt: debug-kernel-rt
	@$(VM_LOCK) sh -c '$(MAKE) --no-print-directory userspace && \
		$(MAKE) --no-print-directory KDIR=$(DEBUG_RT_KDIR) modules && \
		AFA_VM_KERNEL=$(DEBUG_RT_KDIR)/arch/x86/boot/bzImage \
		AFA_VM_MODDIR=$(DEBUG_RT_KDIR)/modroot/lib/modules/$(DEBUG_RT_KREL) \
		AFA_VM_APPEND="pci=noacpi $(STRESS_APPEND) $(AFA_VM_APPEND)" \
		vm/run.sh debug $(DEBUG_RT_KREL)'

# Other architectures: Debian 13's kernels, fetched into the cache and
# booted under the trixie root's QEMU 10 (scripts/trixie-root.sh, root
# once); the module, vm/probetest and the tools cross-built against their
# headers.  One boot per kernel, each ending "vmtest: N passed, N
# failed".  FOREIGN_TESTS: the files of vm/guest/tests that run there.
FOREIGN_TESTS ?= 00-load 10-faults 15-actuator 16-fault-around-optin 17-span 18-converge

vmtest-arm64:
	@$(VM_LOCK) scripts/vmtest-foreign.sh arm64 $(FOREIGN_TESTS)

# Debian 13's own amd64 6.12 (issue 14): the whole VM suite and the
# topology boot on two NUMA nodes, as vmtest runs them on bookworm's 6.12
# (the module built against trixie's headers with trixie's compiler).
vmtest-trixie:
	@$(VM_LOCK) sh -c 'rc=0; \
		scripts/vmtest-foreign.sh amd64 $(NEWEST_TESTS) || rc=1; \
		scripts/vmtest-foreign.sh --numa amd64 || rc=1; \
		exit $$rc'

vmtest-ppc64le:
	@$(VM_LOCK) sh -c 'rc=0; \
		scripts/vmtest-foreign.sh powerpc64le-64k $(FOREIGN_TESTS) || rc=1; \
		AFA_VM_MMU=hash scripts/vmtest-foreign.sh powerpc64le-64k $(FOREIGN_TESTS) || rc=1; \
		scripts/vmtest-foreign.sh powerpc64le $(FOREIGN_TESTS) || rc=1; \
		exit $$rc'

# The newest amd64 kernel Debian offers to trixie (backports' 7.3 today),
# built with trixie's compiler in the same root: build-newest builds the
# module (W=1) and lists what the kernel does not export; vmtest-newest
# boots it with NEWEST_TESTS, the whole VM suite.  The module acts there
# (7.3 is in its contract list); ext4 caches files in large folios and
# maps them whole, which 10-faults and 17-span measure, so the actuator
# tests run on tmpfs (afa_act_dir) and the learning and control tests
# keep their files in small folios (small_folios in vm/guest/lib.sh).
# make check runs it.
NEWEST_TESTS ?= $(basename $(notdir $(wildcard vm/guest/tests/[0-9]*.sh)))

build-newest:
	scripts/newest-build.sh

vmtest-newest:
	@$(VM_LOCK) env AFA_FOREIGN_SERIES=7 AFA_FOREIGN_MODPOST_WARN=1 \
		AFA_VM_APPEND="afa_act_dir=/tmp $(AFA_VM_APPEND)" \
		scripts/vmtest-foreign.sh amd64 $(NEWEST_TESTS)

# Benchmarks, not tests: repetitions per configuration (the baseline runs
# twice as often); BENCH_ONLY=name,... restricts them to workloads or to
# families (held, fresh, real; see docs/benchmarks.md); BENCH_CLOCK=wall
# boots without the instruction clock (its own log and report section).
# The real-programs family needs the Debian root image of
# scripts/rootfs.sh (built once into the cache, as root).
BENCH_REPS ?= 5
BENCH_ONLY ?=
# BENCH_CFGS=o4,o3,afa,afa0,afap3,afad16: the configurations instead of
# the default set; afa0 is the module observing only, afapN pinned at
# order N, afadN with deadband=N, afaw kept loaded across its blocks
# (enabled=0 between them; fresh and real families only, no other afa*)
BENCH_CFGS ?=
BENCH_CLOCK ?= icount
comma := ,
space := $(subst ,, )
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
		AFA_VM_APPEND="bench_reps=$(BENCH_REPS) $(if $(BENCH_ONLY),bench_only=$(BENCH_ONLY)) $(if $(BENCH_CFGS),bench_cfgs=$(BENCH_CFGS))" \
		vm/run.sh bench $(KVER)'
	@scripts/bench-report.sh $(BENCH_LOG)

# Regenerate docs/benchmarks.md from the last bench run's console log.
bench-report:
	scripts/bench-report.sh $(BENCH_LOG)

# The fresh-processes family on Debian 13's 64 KiB-page ppc64le kernel
# (qemu -M pseries, radix, as vmtest-ppc64le's first boot), in one bench
# boot: orders are of 64 KiB pages there, the baseline is order 0 (the
# kernel's 65536 bytes is one page: no fault-around), and the module runs
# inside the afa-fault-around opt-in.  BENCH_REPS, BENCH_CFGS and
# BENCH_CLOCK as for bench; BENCH_ONLY picks fresh workloads (held ones
# run too if named).  The real programs need the amd64 root image and
# the overhead family 4 KiB pages: not run there.  Its log is the
# kernel's build/vm-KVER/console-bench.log, its report the 64 KiB
# sections of docs/benchmarks.md (bench-report-ppc64le redoes it).
BENCH_PPC_FLAVOUR = powerpc64le-64k
BENCH_PPC_ASKED = $(subst $(comma), ,$(or $(BENCH_ONLY),fresh))
BENCH_PPC_ONLY = $(subst $(space),$(comma),$(filter-out real%,$(BENCH_PPC_ASKED)))
BENCH_PPC_LOG = build/vm-$$(scripts/foreign-kernel.sh $(BENCH_PPC_FLAVOUR))/console-bench$(if $(filter wall,$(BENCH_CLOCK)),-wall).log

bench-ppc64le:
	@$(if $(filter real%,$(BENCH_PPC_ASKED)),echo "bench-ppc64le: the real programs need the amd64 Debian root image (scripts/rootfs.sh): not run on ppc64le" >&2)
	@$(if $(BENCH_PPC_ONLY),,echo "bench-ppc64le: nothing to run (BENCH_ONLY=$(BENCH_ONLY))" >&2; exit 1)
	@$(VM_LOCK) env AFA_BENCH_CLOCK=$(BENCH_CLOCK) \
		AFA_VM_APPEND="bench_reps=$(BENCH_REPS) bench_only=$(BENCH_PPC_ONLY) $(if $(BENCH_CFGS),bench_cfgs=$(BENCH_CFGS)) $(AFA_VM_APPEND)" \
		scripts/vmtest-foreign.sh --bench $(BENCH_PPC_FLAVOUR)
	@scripts/bench-report.sh $(BENCH_PPC_LOG)

bench-report-ppc64le:
	scripts/bench-report.sh $(BENCH_PPC_LOG)

check:
	scripts/check.sh

.PHONY: all modules modules-clean clean install uninstall dkms-test deb deb-test \
	lockdown-test doc-logs cross-ppc64le \
	userspace \
	deps kunit kunit-i386 checkpatch \
	vm-prereq vmtest vmtest-stress vmtest-stress-mttcg vmtest-selftests demo demo-run debug-kernel vmtest-debug debug-kernel-rt vmtest-debug-rt bench bench-report check \
	vmtest-arm64 vmtest-trixie vmtest-ppc64le build-newest vmtest-newest bench-ppc64le bench-report-ppc64le
