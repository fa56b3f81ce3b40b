# SPDX-License-Identifier: GPL-2.0
# autofaultaround: a thin wrapper around Kbuild
# (Documentation/kbuild/modules.rst) plus the project's test targets.
#
#   make                build module/autofaultaround.ko against KDIR
#   make demo           boot Debian's kernel in QEMU and show the module at work
#   make check          run every test that can run here; ends "N passed, N failed"
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

clean:
	@if test -d "$(KDIR)"; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	$(MAKE) -C userspace clean
	rm -rf build

install: modules
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=extra modules_install

uninstall:
	rm -f /lib/modules/$(shell uname -r)/extra/autofaultaround.ko*
	depmod -a

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

vmtest:
	@$(VM_LOCK) sh -c '$(MAKE) --no-print-directory vm-prereq && vm/run.sh test $(KVER)'

demo:
	@$(VM_LOCK) sh -c '$(MAKE) --no-print-directory vm-prereq && vm/run.sh demo $(KVER)'

check:
	scripts/check.sh

.PHONY: all modules clean install uninstall userspace deps kunit checkpatch \
	vm-prereq vmtest demo check
