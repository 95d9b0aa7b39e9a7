# The two set-up commands of README.md:
#   make run    install what is missing, build, and play `tap` on the embedded engine
#   make test   install what the tests need and run the whole suite
# Both work as root or with sudo on Debian bookworm with Swift installed.
SHELL := /bin/bash
.ONESHELL:
.SHELLFLAGS := -euo pipefail -c

RUN_PACKAGES := pkg-config libopenal-dev libopenal1 libsndfile1-dev libevdev-dev libsystemd-dev libpulse-dev libpulse0 libglib2.0-dev
# `make deb`: dpkg-shlibdeps, dpkg-gencontrol, strip, readelf, lintian.
DEB_PACKAGES := dpkg-dev binutils lintian
TEST_PACKAGES := $(RUN_PACKAGES) pulseaudio pulseaudio-utils pipewire pipewire-bin wireplumber pipewire-pulse dbus-daemon \
	sox sound-theme-freedesktop socat util-linux systemd \
	qemu-system-x86 busybox-static cpio xz-utils gcc libc6-dev $(DEB_PACKAGES) man-db
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
RELEASE := swift build -c release --static-swift-stdlib
# The D-Bus face's tests: a private bus, and feedbackd's own clients (fbcli, libfeedback via GI, gdbus).
TEST_PACKAGES += dbus-daemon feedbackd gir1.2-lfb-0.0 python3-gi libglib2.0-bin
# The session-lock tests: python-dbusmock's logind and screensavers (gdbus waits for their names);
# the real-time tests' rtkit stand-in (Tests/fixture/rtkit-mock.py: dbus-python on GLib).
TEST_PACKAGES += python3-dbusmock python3-dbus
# The desktop-settings tests: GNOME's schemas, dconf's writer and GSettings
# backend, the gsettings tool (feedbackd above brings its schema).
TEST_PACKAGES += gsettings-desktop-schemas dconf-service dconf-gsettings-backend libglib2.0-bin
# Sandboxed apps (Tests/fixture/flatpak-run.sh): bubblewrap and xdg-dbus-proxy, arranged as flatpak run arranges them.
TEST_PACKAGES += bubblewrap xdg-dbus-proxy

.DEFAULT_GOAL := all
# `make docs`: the library's DocC catalog (Sources/Sysound/Sysound.docc), offline, no warnings.
.PHONY: all run test bench docs deps test-deps build release install uninstall install-manifest deb deb-deps deb-manifest

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
# everything else, sysound-play for `play NAME` when no daemon runs;
# sysound-engine (beside them) hosts the engines.
# File targets, so that `make install` (also as root, after a build as
# yourself) runs no build when the binaries are newer than every source.
REL := .build/release
PROGRAMS := sysound
COMPANIONS := sysound-cli sysound-play sysound-engine
RELEASE_BINARIES := $(addprefix $(REL)/,$(PROGRAMS) $(COMPANIONS))
SOURCES := Package.swift $(shell find Sources -type f)

release: $(RELEASE_BINARIES)

$(RELEASE_BINARIES): $(REL)/%: $(SOURCES) | deps
	$(RELEASE) --product $*
	touch $@

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

# The benchmark: every figure on PulseAudio, then on PipeWire (about an hour
# on 2 cores; not part of the set-up), then docs/benchmarks.md made from the two
# runs' JSON, so the published figures are always one run's, with its machine,
# date and commit (docs/bench-method.md says how each is measured). The old JSON
# goes first, so a server whose run failed cannot publish a stale one; a failed
# run (an INVALID figure) leaves docs/benchmarks.md as it was.
BENCH_JSON := $(CURDIR)/.build/bench/sysound-bench.json
BENCH_SERVERS := pulseaudio pipewire
bench: test-deps
	mkdir -p $(dir $(BENCH_JSON))
	rm -f $(foreach s,$(BENCH_SERVERS),$(BENCH_JSON:.json=-$(s).json))
	# The commit the bench builds, taken now: the tree may change during the run.
	commit=$$(Tests/bench/report.py --print-commit)
	Tests/bench/run.sh --json $(BENCH_JSON)
	Tests/bench/report.py --commit "$$commit" --output docs/benchmarks.md $(foreach s,$(BENCH_SERVERS),$(BENCH_JSON:.json=-$(s).json))

# The DocC archive of the `Sysound` library, for apps: .build/plugins/Swift-DocC/outputs/Sysound.doccarchive
# (`make test` builds it too, in Tests/library/run.sh, with the example app).
docs:
	swift package --disable-sandbox generate-documentation --target Sysound --warnings-as-errors

# --- Installing (README "Install") -------------------------------------------
# The usual variables; DESTDIR stages the tree for a package. The binaries find
# each other and their data relative to their own place (the layout of
# Sources/SysoundCore/InstallLayout.swift), so keep LIBEXECDIR and DATADIR
# beside BINDIR (the defaults do) or set SYSOUND_CLI / SYSOUND_DATA_DIR.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec
DATADIR ?= $(PREFIX)/share
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
MANDIR ?= $(DATADIR)/man
USERUNITDIR ?= $(PREFIX)/lib/systemd/user
DBUSSERVICEDIR ?= $(DATADIR)/dbus-1/services
# PipeWire reads drop-ins only from /usr/share/pipewire, /etc/pipewire and
# ~/.config/pipewire (compiled in): outside PREFIX=/usr the admin's /etc one.
PIPEWIREPULSEDIR ?= $(if $(filter /usr,$(PREFIX)),$(DATADIR),/etc)/pipewire/pipewire-pulse.conf.d
# udev reads rules only from its own directories: the system's under /usr
# (/lib/udev on bookworm, where packages put them), else the admin's /etc.
UDEVRULESDIR ?= $(if $(filter /usr,$(PREFIX)),/lib/udev/rules.d,/etc/udev/rules.d)
SYSUSERSDIR ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/lib/sysusers.d,/etc/sysusers.d)
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR ?= $(DATADIR)/zsh/site-functions
FISHCOMPDIR ?= $(DATADIR)/fish/vendor_completions.d
# Non-empty: man pages are installed gzipped (Debian policy 12.1; `make deb`).
MANGZ ?=

# What config/ holds, sorted by kind, so that a new unit, D-Bus activation
# file or PipeWire drop-in is installed without touching this file. A D-Bus
# activation file is a .service whose first section is [D-BUS Service].
DBUS_SERVICES := $(shell grep -l '^\[D-BUS Service\]' config/*.service 2>/dev/null)
USER_UNITS := $(filter-out $(DBUS_SERVICES),$(wildcard config/*.service config/*.socket))
PIPEWIRE_DROPINS := $(wildcard config/pipewire-pulse.conf.d/*.conf)
SOUNDS := $(wildcard Sounds/*)

# Made from the release sysound-cli itself, so they never drift from the CLI:
# completions by swift-argument-parser, sysound(1) by its generate-manual tool
# (what its generate-manual plugin runs; the plugin would rebuild every product).
GEN := .build/sysound-generated
GENERATE_MANUAL := .build/generate-manual/debug/generate-manual
# The last commit's date, so that the page is the same wherever it is built.
MAN_DATE := $(shell git log -1 --format=%cs 2>/dev/null || date -u +%F)

# A completion script is sourced, not run: no #! line (lintian).
$(GEN)/completions/sysound.%: $(REL)/sysound-cli Makefile
	mkdir -p $(@D)
	$< --generate-completion-script $* | sed '1{/^#!/d}' > $@.tmp && mv $@.tmp $@

$(GENERATE_MANUAL):
	swift package resolve
	swift build --package-path .build/checkouts/swift-argument-parser --scratch-path .build/generate-manual --product generate-manual

# The tool writes a blank line between paragraphs of a discussion, which mdoc
# warns about on every `man sysound`; .Pp is mdoc's paragraph break. It
# writes no SEE ALSO: the page points at the hand-written one.
$(GEN)/man/sysound.1: $(REL)/sysound-cli Makefile | $(GENERATE_MANUAL)
	mkdir -p $(@D)
	$(GENERATE_MANUAL) $< --date $(MAN_DATE) --output-directory $(@D)
	test -s $@
	sed -i 's/^$$/.Pp/' $@
	grep -q '^\.Sh "\?SEE ALSO' $@ || printf '.Sh SEE ALSO\n.Xr sysound.toml 5 ,\n.Xr systemctl 1\n' >> $@

GENERATED := $(GEN)/completions/sysound.bash $(GEN)/completions/sysound.zsh $(GEN)/completions/sysound.fish $(GEN)/man/sysound.1

# `make && sudo make install`: everything built as yourself, nothing as root.
all: $(RELEASE_BINARIES) $(GENERATED)

# Templates: @BINDIR@ and friends become the installed paths.
SUBST := sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@LIBEXECDIR@|$(LIBEXECDIR)|g' \
	-e 's|@DATADIR@|$(DATADIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g'

# The one list of what is installed: "MODE HOW SOURCE DESTINATION;" per file.
# HOW: copy as is, subst (a template), man (a template, gzipped if MANGZ).
# install, uninstall, install-manifest and the tests (Tests/install) read it.
MANGZ_SUFFIX := $(if $(MANGZ),.gz)
MANIFEST := \
	$(foreach p,$(PROGRAMS),755 copy $(REL)/$(p) $(BINDIR)/$(p);) \
	$(foreach p,$(COMPANIONS),755 copy $(REL)/$(p) $(LIBEXECDIR)/sysound/$(p);) \
	$(foreach f,$(SOUNDS),644 copy $(f) $(DATADIR)/sysound/$(f);) \
	644 copy config/sysound.toml $(DATADIR)/sysound/config/sysound.toml; \
	755 copy config/udev/sysound-ledctrl $(LIBEXECDIR)/sysound/sysound-ledctrl; \
	644 subst config/udev/95-sysound-leds.rules $(UDEVRULESDIR)/95-sysound-leds.rules; \
	644 copy config/udev/sysound.sysusers $(SYSUSERSDIR)/sysound.conf; \
	$(foreach f,$(USER_UNITS),644 subst $(f) $(USERUNITDIR)/$(notdir $(f));) \
	$(foreach f,$(DBUS_SERVICES),644 subst $(f) $(DBUSSERVICEDIR)/$(notdir $(f));) \
	$(foreach f,$(PIPEWIRE_DROPINS),644 subst $(f) $(PIPEWIREPULSEDIR)/$(notdir $(f));) \
	644 copy $(GEN)/completions/sysound.bash $(BASHCOMPDIR)/sysound; \
	644 copy $(GEN)/completions/sysound.zsh $(ZSHCOMPDIR)/_sysound; \
	644 copy $(GEN)/completions/sysound.fish $(FISHCOMPDIR)/sysound.fish; \
	644 man $(GEN)/man/sysound.1 $(MANDIR)/man1/sysound.1$(MANGZ_SUFFIX); \
	644 man config/sysound.toml.5 $(MANDIR)/man5/sysound.toml.5$(MANGZ_SUFFIX);
# Directories only sysound uses, removed by uninstall when empty.
OWNED_DIRS := $(LIBEXECDIR)/sysound $(DATADIR)/sysound/Sounds $(DATADIR)/sysound/config $(DATADIR)/sysound

# The manifest, one entry a line.
MANIFEST_LINES = tr ';' '\n' <<<'$(MANIFEST)' | sed -e 's/^ *//' -e '/^$$/d'

# Installed paths, one a line, without DESTDIR.
install-manifest:
	@$(MANIFEST_LINES) | while read -r mode how src dest; do echo "$$dest"; done

install: $(RELEASE_BINARIES) $(GENERATED)
	@umask 022
	$(MANIFEST_LINES) | while read -r mode how src dest; do
		target="$(DESTDIR)$$dest"
		case "$$how" in
		copy) install -D -m "$$mode" "$$src" "$$target" ;;
		subst|man)
			mkdir -p "$$(dirname "$$target")"
			$(SUBST) "$$src" > "$$target.tmp"
			if grep -n '@[A-Z]*@' "$$target.tmp" >&2; then
				echo "make install: $$src has a placeholder (above) the Makefile does not replace" >&2
				rm -f "$$target.tmp"
				exit 1
			fi
			case "$$target" in
			*.gz) gzip -9n < "$$target.tmp" > "$$target" && rm "$$target.tmp" ;;
			*) mv "$$target.tmp" "$$target" ;;
			esac
			chmod "$$mode" "$$target" ;;
		*) echo "make install: unknown way to install $$src: $$how" >&2; exit 1 ;;
		esac
	done
	echo "installed sysound in $(DESTDIR)$(PREFIX)"

uninstall:
	@$(MANIFEST_LINES) | while read -r mode how src dest; do rm -f "$(DESTDIR)$$dest"; done
	for d in $(OWNED_DIRS); do rmdir "$(DESTDIR)$$d" 2>/dev/null || true; done

# --- The Debian package (README "Install") -----------------------------------
# Metadata in config/debian; the tree is `make install DESTDIR=… PREFIX=/usr`
# plus the files Debian policy asks for; Depends: from dpkg-shlibdeps,
# Installed-Size from dpkg-gencontrol; then lintian (findings: docs/packaging.md).
DEB_VERSION = $(shell dpkg-parsechangelog -l config/debian/changelog -S Version)
DEB_ARCH = $(shell dpkg --print-architecture)
DEB_FILE = sysound_$(DEB_VERSION)_$(DEB_ARCH).deb
DEB_WORK := .build/deb
DEB_ROOT := $(DEB_WORK)/debian/sysound
# What the package installs that `make install` does not.
DEB_DOC := /usr/share/doc/sysound
DEB_EXTRA := $(DEB_DOC)/copyright $(DEB_DOC)/changelog.gz /usr/share/lintian/overrides/sysound
DEB_INSTALL_VARS := PREFIX=/usr SYSCONFDIR=/etc ZSHCOMPDIR=/usr/share/zsh/vendor-completions MANGZ=1

deb-deps:
	$(call apt_install,$(DEB_PACKAGES))

# Paths the package holds, without DESTDIR (Tests/install compares dpkg -L).
deb-manifest:
	@$(MAKE) -s --no-print-directory install-manifest $(DEB_INSTALL_VARS)
	printf '%s\n' $(DEB_EXTRA)

deb: $(RELEASE_BINARIES) $(GENERATED) | deb-deps
	@umask 022
	rm -rf $(DEB_WORK)
	mkdir -p $(DEB_WORK)/debian
	cp config/debian/control config/debian/changelog $(DEB_WORK)/debian/
	$(MAKE) --no-print-directory install DESTDIR=$(abspath $(DEB_ROOT)) $(DEB_INSTALL_VARS)
	install -D -m 644 config/debian/copyright $(DEB_ROOT)$(DEB_DOC)/copyright
	gzip -9n < config/debian/changelog > $(DEB_ROOT)$(DEB_DOC)/changelog.gz
	install -D -m 644 config/debian/lintian-overrides $(DEB_ROOT)/usr/share/lintian/overrides/sysound
	install -d -m 755 $(DEB_ROOT)/DEBIAN
	install -m 755 $(wildcard $(addprefix config/debian/,preinst postinst prerm postrm)) $(DEB_ROOT)/DEBIAN/
	# Stripped as dh_strip would (Debian policy 10.1); the symbols stay in .build.
	# Only the executables: sysound-ledctrl is a shell script.
	is_elf() { [ "$$(head -c 4 "$$1" | tail -c 3)" = ELF ]; }
	elf=$$(for f in $(DEB_ROOT)/usr/bin/* $(DEB_ROOT)/usr/libexec/sysound/*; do if is_elf "$$f"; then echo "$$f"; fi; done)
	strip --remove-section=.comment --remove-section=.note $$elf
	cd $(DEB_WORK)
	# sysound is fully static (docs/architecture.md): nothing for dpkg-shlibdeps to read.
	dynamic=$$(for f in debian/sysound/usr/bin/* debian/sysound/usr/libexec/sysound/*; do
		if is_elf "$$f" && readelf -d "$$f" | grep -q NEEDED; then echo "$$f"; fi; done)
	dpkg-shlibdeps -Tdebian/sysound.substvars $$dynamic
	dpkg-gencontrol -psysound -Pdebian/sysound -Tdebian/sysound.substvars
	# Every file but DEBIAN's own: /usr and the udev rules in /lib.
	(cd debian/sysound && find * -path DEBIAN -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum > DEBIAN/md5sums)
	cd - >/dev/null
	dpkg-deb --root-owner-group -Zxz --build $(DEB_ROOT) $(DEB_FILE)
	lintian --fail-on error,warning $(DEB_FILE)
	echo "built $(DEB_FILE)"
