# The two set-up commands of README.md:
#   make run    install what is missing, build, and play `tap` on the embedded engine
#   make test   install what the tests need and run the whole suite
# Both work as root or with sudo on Debian bookworm with Swift installed.
SHELL := /bin/bash
.ONESHELL:
.SHELLFLAGS := -euo pipefail -c

RUN_PACKAGES := pkg-config libopenal-dev libopenal1 libsndfile1-dev libevdev-dev libsystemd-dev libpulse0
TEST_PACKAGES := $(RUN_PACKAGES) pulseaudio pulseaudio-utils pipewire pipewire-bin wireplumber pipewire-pulse dbus-daemon sox sound-theme-freedesktop socat util-linux systemd \
	qemu-system-x86 busybox-static cpio xz-utils gcc libc6-dev
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
RELEASE := swift build -c release --static-swift-stdlib

.PHONY: run test bench deps test-deps build release

# apt-get only what is missing, so a second run is instant and needs no network.
define apt_install
	missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}\n' "$$p" 2>/dev/null \
		| grep -q '^install ok installed' || echo "$$p"; done)
	if [ -n "$$missing" ]; then
		echo "Installing:" $$missing
		$(SUDO) apt-get update -qq
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing
	fi
endef

deps:
	$(call apt_install,$(RUN_PACKAGES))

test-deps:
	$(call apt_install,$(TEST_PACKAGES))

# sysound answers `play NAME` itself and execs sysound-cli (beside it) for
# everything else; sysound-engine (beside them) hosts the engines.
release: deps
	$(RELEASE) --product sysound
	$(RELEASE) --product sysound-cli
	$(RELEASE) --product sysound-engine

# Exit code 69 means there is no audio output on this machine: the job ran
# and said so; offer the way to hear the result elsewhere instead of failing.
run: release
	status=0; "$$(swift build -c release --show-bin-path)/sysound" play tap --verbose || status=$$?
	if [ "$$status" = 69 ]; then
		echo "make run: finished, but this machine has no audio output."
		echo "  Render instead: $$(swift build -c release --show-bin-path)/sysound play tap --to tap.wav"
	elif [ "$$status" != 0 ]; then
		exit "$$status"
	fi

test: test-deps
	Tests/run-all.sh

# The benchmark of README's "Benchmarks" (about 2 minutes; not part of the set-up).
bench: test-deps
	Tests/bench/run.sh
