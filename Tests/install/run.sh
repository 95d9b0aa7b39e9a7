#!/usr/bin/env bash
# Installing sysound as the README's "Install" section does (details:
# docs/packaging.md):
#  1. `make install DESTDIR=… PREFIX=/usr` installs exactly the Makefile's
#     manifest (`make install-manifest`, the one list), `make uninstall`
#     removes all of it, and a second install builds nothing;
#  2. `make install PREFIX=$tmp/prefix`: the installed sysound plays on the
#     PulseAudio fixture with its own theme, configuration and companions,
#     `sysound serve` from there loads the installed theme, both man pages
#     render and match the CLI and the configuration, the completions answer
#     as `sysound`, `systemd-analyze verify` passes on the units;
#  3. as root (CI): `make deb`, lintian clean, `apt-get install ./sysound_*.deb`,
#     `/usr/bin/sysound play tap`, then `dpkg -r` and `dpkg -P` leave no file.
# Needs the release binaries (`make release`; built once, not rebuilt here).
# Prints one line per check and ends with "N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${SYSOUND_TEST_PULSE:-}" ]; then
    exec "$root/Tests/fixture/with-pulse.sh" "$0" "$@"
fi
cd "$root"
tmp=$(mktemp -d /tmp/sysound-install.XXXXXX)
daemon=
deb_installed=
passed=0 failed=0

cleanup() {
    [ -z "$daemon" ] || { kill "$daemon" 2>/dev/null; wait "$daemon" 2>/dev/null; }
    [ -z "$deb_installed" ] || dpkg -P sysound >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

ok() { echo "ok   $1"; passed=$((passed + 1)); }
not_ok() { echo "FAIL $1"; [ -z "${2:-}" ] || sed 's/^/     /' <<<"$2" | head -40; failed=$((failed + 1)); }
# check NAME COMMAND...: passes if the command succeeds; its output is shown if not.
check() {
    local name=$1 out
    shift
    if out=$("$@" 2>&1); then ok "$name"; else not_ok "$name" "$out"; fi
}
same() { # expected-file actual-file
    diff -u "$1" "$2"
}

# --- The PulseAudio fixture's monitor: did a sound reach the sink? -------------
monitor_size() { stat -c %s "$SYSOUND_MONITOR_FILE"; }
# Peak of what the monitor recorded since byte $1 (float32 stereo, whole frames).
monitor_peak_since() {
    sleep 0.4
    local from=$(( $1 / 8 * 8 )) to
    to=$(monitor_size)
    to=$(( to / 8 * 8 ))
    tail -c +$((from + 1)) "$SYSOUND_MONITOR_FILE" | head -c $((to - from)) > "$tmp/segment.f32"
    sox -t raw -r 48000 -e floating-point -b 32 -c 2 -L "$tmp/segment.f32" -n stat 2>&1 \
        | awk '/Maximum amplitude/ {print $3}'
}
# plays NAME COMMAND...: the command succeeds and a sound reaches the sink.
plays() {
    local before peak out
    before=$(monitor_size)
    out=$("$@" 2>&1) || { echo "$out"; return 1; }
    peak=$(monitor_peak_since "$before")
    awk -v p="${peak:-0}" 'BEGIN { exit !(p > 0.05) }' || { echo "$out"; echo "monitor peak ${peak:-none}: nothing reached the sink"; return 1; }
    [ -z "$out" ] || echo "$out"
}

# The installed programs run as a user's would: no variable pointing anywhere,
# a home of their own, from a directory outside the source tree.
as_user=(env -u SYSOUND_DATA_DIR -u SYSOUND_CLI -u SYSOUND_PLAY -u SYSOUND_ENGINE -u SYSOUND_STATE_DIR -u XDG_CONFIG_HOME HOME="$tmp/home")
installed() {
    (cd "$tmp" && exec "${as_user[@]}" "$@")
}

# --- 1. Staged install: the manifest, uninstall, no rebuild --------------------
stage=$tmp/stage
make -s install-manifest PREFIX=/usr | sort > "$tmp/manifest"
check "make install DESTDIR=… PREFIX=/usr runs" make -s install DESTDIR="$stage" PREFIX=/usr
(cd "$stage" && find . \( -type f -o -type l \) | sed 's|^\.||' | sort) > "$tmp/staged"
check "the staged tree holds exactly the manifest ($(wc -l < "$tmp/manifest") files)" same "$tmp/manifest" "$tmp/staged"
check "the units start the installed binary" \
    grep -qx 'ExecStart=/usr/bin/sysound serve' "$stage/usr/lib/systemd/user/sysound.service"
check "a second make install builds nothing" \
    bash -c "! make -n install DESTDIR='$stage' PREFIX=/usr | grep -E 'swift (build|package)'"
check "make uninstall with the same variables runs" make -s uninstall DESTDIR="$stage" PREFIX=/usr
check "make uninstall leaves no file and no sysound directory" \
    bash -c "[ -z \"\$(find '$stage' -type f -o -type l -o -name '*sysound*')\" ] || find '$stage' -type f -o -type l -o -name '*sysound*'"

# --- 2. A relocated prefix, used for real --------------------------------------
prefix=$tmp/prefix
check "make install PREFIX=\$tmp/prefix runs" make -s install PREFIX="$prefix"
sysound=$prefix/bin/sysound
state=$tmp/state
mkdir -p "$tmp/home"
# Names only the installed theme and the installed prefix's configuration know:
# a binary that read the source tree (or nothing) would not find them.
printf '\n[sounds.installed-theme-check]\nfile = "tap.wav"\n' >> "$prefix/share/sysound/Sounds/index.toml"
mkdir -p "$prefix/etc/sysound"
printf '[aliases]\nsysconfdir-check = "installed-theme-check"\n' > "$prefix/etc/sysound/sysound.toml"

# Foundation's internationalization brings ICU's data (34 MB) and its code's
# start-up and pages into whatever links it; the product's modules use
# FoundationEssentials only, and one Foundation `contains` or one lld link
# (Package.swift) brings it all back (docs/memory.md).
no_icu() {
    local f found=
    for f in "$prefix"/bin/* "$prefix"/libexec/sysound/*; do
        grep -qa 'icudt[0-9][0-9]l' "$f" && found="$found ${f#"$prefix"/}"
    done
    [ -z "$found" ] || { echo "carries ICU's data (Foundation's internationalization):$found"; return 1; }
}
check "no installed executable carries Foundation's internationalization (ICU)" no_icu
check "installed sysound play tap plays (no daemon)" plays installed "$sysound" play tap --state-dir "$state"
check "it plays a sound only the installed theme has" plays installed "$sysound" play installed-theme-check --state-dir "$state"
check "it reads PREFIX/etc/sysound/sysound.toml" plays installed "$sysound" play sysconfdir-check --state-dir "$state"

(cd "$tmp" && exec "${as_user[@]}" "$sysound" serve --state-dir "$state" > "$tmp/daemon.log" 2>&1) &
daemon=$!
for _ in $(seq 200); do [ -S "$state/socket" ] && break; sleep 0.05; done
via_daemon() {
    local out
    # --wait: the reply comes when the sound has ended, not when the daemon took it.
    out=$(plays installed "$sysound" play installed-theme-check --wait --verbose --state-dir "$state") || { echo "$out"; return 1; }
    grep -q "via the daemon" <<<"$out" || { echo "$out"; cat "$tmp/daemon.log"; return 1; }
}
check "installed sysound serve loads the installed theme" via_daemon
kill "$daemon" 2>/dev/null
wait "$daemon" 2>/dev/null
daemon=

man_page() { # FILE: renders with no warning; the text on stdout
    local err
    err=$(LC_ALL=C.UTF-8 MANWIDTH=100 man -l "$1" 2>&1 >"$tmp/man.txt") || { echo "$err"; return 1; }
    [ -z "$err" ] || { echo "man warned: $err"; return 1; }
    [ -s "$tmp/man.txt" ]
}
sysound_1() {
    man_page "$prefix/share/man/man1/sysound.1" || return 1
    # Every subcommand `sysound --help` lists has its entry.
    installed "$sysound" --help | awk '/^SUBCOMMANDS:/ {s = 1; next} s && /^  [a-z]/ {print $1}' > "$tmp/subcommands"
    [ -s "$tmp/subcommands" ] || { echo "no subcommands in sysound --help"; return 1; }
    local missing
    missing=$(while read -r c; do grep -qE "^ {5}$c( |$)" "$tmp/man.txt" || echo "$c"; done < "$tmp/subcommands")
    [ -z "$missing" ] || { echo "sysound(1) lacks: $missing"; return 1; }
}
check "man -l renders sysound(1) with every subcommand" sysound_1
sysound_toml_5() {
    man_page "$prefix/share/man/man5/sysound.toml.5" || return 1
    # Every section and key of the shipped configuration is described.
    local missing
    missing=$(sed -nE 's/^\[([a-z.]+)\]$/[\1]/p; s/^([a-z_-]+) = .*/\1/p' config/sysound.toml | sort -u \
        | while read -r k; do grep -qF -- "$k" "$tmp/man.txt" || echo "$k"; done)
    [ -z "$missing" ] || { echo "sysound.toml(5) lacks: $missing"; return 1; }
    grep -q "$prefix/share/sysound/config/sysound.toml" "$tmp/man.txt" || { echo "installed paths not filled in"; return 1; }
}
check "man -l renders sysound.toml(5) with every configuration key" sysound_toml_5

bash_completes() {
    local got
    got=$(bash -c '
        source "$1"
        fn=$(complete -p sysound | sed -nE "s/.* -F ([^ ]+) .*/\1/p")
        COMP_LINE="sysound pl"; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(sysound pl); COMP_CWORD=1
        "$fn" sysound pl sysound
        printf "%s\n" "${COMPREPLY[@]}"' _ "$prefix/share/bash-completion/completions/sysound")
    [ "$got" = play ] || { echo "sysound pl<TAB> gave: ${got:-nothing}"; return 1; }
}
check "the bash completion answers sysound pl<TAB> with play" bash_completes
named_sysound() {
    head -1 "$prefix/share/zsh/site-functions/_sysound" | grep -qx '#compdef sysound' || { echo "zsh: not #compdef sysound"; return 1; }
    grep -q "^complete -c 'sysound' " "$prefix/share/fish/vendor_completions.d/sysound.fish" || { echo "fish: no complete -c 'sysound'"; return 1; }
}
check "the zsh and fish completions are for the command sysound" named_sysound

verify_units() { # DIR
    local out
    mkdir -p -m 700 "$tmp/runtime"   # the user manager it emulates needs one
    out=$(XDG_RUNTIME_DIR=$tmp/runtime systemd-analyze verify --user "$1/sysound.socket" "$1/sysound.service" 2>&1) \
        || { echo "$out"; return 1; }
    [ -z "$out" ] || { echo "$out"; return 1; }
}
check "systemd-analyze verify --user passes on the installed units" verify_units "$prefix/lib/systemd/user"

rm -r "$prefix/etc/sysound"
check "make uninstall PREFIX=\$tmp/prefix runs" make -s uninstall PREFIX="$prefix"
check "make uninstall leaves no file in the prefix" \
    bash -c "[ -z \"\$(find '$prefix' -type f -o -type l)\" ] || find '$prefix' -type f -o -type l"

# --- 3. The Debian package, installed for real ---------------------------------
if [ "$(id -u)" != 0 ] || ! command -v dpkg >/dev/null; then
    echo "skip the Debian package: installing it needs root on a Debian system (CI runs as root)"
elif ! [[ "$(dpkg-query -W -f='${db:Status-Status}' sysound 2>/dev/null)" =~ ^(not-installed)?$ ]]; then
    not_ok "a sysound package is installed already: purge it (dpkg -P sysound) and run again"
else
    # Every path on the system that names sysound (or links to such a path),
    # before and after: other processes may install packages meanwhile, and
    # a file the package leaves behind would name sysound.
    traces() {
        find /usr /etc /var/lib/systemd /var/lib/dpkg/info /opt -xdev \( -type f -o -type l -o -type d \) \
            -printf '%p -> %l\n' 2>/dev/null | grep -i sysound | sed 's/ -> $//' | sort
    }
    traces > "$tmp/before"
    check "make deb builds the package, lintian finds nothing unexplained" make -s deb
    deb=$(ls -t sysound_*.deb 2>/dev/null | head -1)
    deb_install() {
        deb_installed=1
        flock /tmp/apt.lock env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "./$deb"
    }
    check "apt-get install ./$deb" deb_install
    dpkg_files() {
        make -s deb-manifest | sort > "$tmp/deb-manifest"
        # Paths only (dpkg -L also says "diverts others to: …"), without
        # directories: the package's own (/lib is one, though a merged-/usr
        # system has it as a link) and any other that is one here.
        dpkg-deb -c "$deb" | awk '$1 ~ /^d/ { sub(/^\./, "", $6); sub(/\/$/, "", $6); if ($6 != "") print $6 }' > "$tmp/deb-dirs"
        dpkg -L sysound | grep '^/' | grep -vxF -f "$tmp/deb-dirs" \
            | while read -r f; do [ -d "$f" ] && [ ! -L "$f" ] || echo "$f"; done | sort > "$tmp/dpkg-L"
        same "$tmp/deb-manifest" "$tmp/dpkg-L"
    }
    check "the package holds exactly make deb-manifest" dpkg_files
    check "/usr/bin/sysound play tap plays" plays installed /usr/bin/sysound play tap --state-dir "$tmp/deb-state"
    check "systemd-analyze verify --user passes on /usr/lib/systemd/user" verify_units /usr/lib/systemd/user
    check "postinst enabled sysound.socket for every user (no service started)" \
        test -L /etc/systemd/user/sockets.target.wants/sysound.socket
    dbus_file=/usr/share/dbus-1/services/org.sigxcpu.Feedback.service
    if grep -qx "$dbus_file" "$tmp/deb-manifest"; then
        check "D-Bus activates the installed sysound (feedbackd's file moved aside)" \
            grep -qx 'Exec=/usr/bin/sysound serve' "$dbus_file"
    fi
    # The LEDs (docs/leds.md): the rule runs the installed helper, postinst made the group.
    check "the udev rule runs the installed sysound-ledctrl" \
        grep -qF 'RUN+="/usr/libexec/sysound/sysound-ledctrl %S%p feedbackd"' /lib/udev/rules.d/95-sysound-leds.rules
    check "sysound-ledctrl is a shell script, not setuid" \
        bash -c '[ ! -u /usr/libexec/sysound/sysound-ledctrl ] && [ ! -g /usr/libexec/sysound/sysound-ledctrl ] && sh -n /usr/libexec/sysound/sysound-ledctrl'
    check "postinst created the group feedbackd" getent group feedbackd
    check "man finds both pages" bash -c "man -w sysound | grep -q '/usr/share/man/man1/sysound.1.gz' && man -w 5 sysound.toml | grep -q man5/sysound.toml.5.gz"

    check "dpkg -r sysound" dpkg -r sysound
    # What remove keeps until purge: the units' enablement state, and dpkg's
    # record of the package (its file list and postrm, which purge runs).
    removed() {
        traces > "$tmp/after-r"
        local extra
        extra=$(comm -13 "$tmp/before" "$tmp/after-r" \
            | grep -vE '^(/etc/systemd/user/|/var/lib/systemd/deb-systemd-user-helper-|/var/lib/dpkg/info/sysound\.(list|postrm)$)')
        [ -z "$extra" ] || { echo "left behind by dpkg -r: $extra"; return 1; }
    }
    check "dpkg -r leaves only the units' enablement state" removed
    check "dpkg -P sysound" dpkg -P sysound
    deb_installed=
    purged() {
        traces > "$tmp/after"
        same "$tmp/before" "$tmp/after"
    }
    check "dpkg -P leaves no file behind" purged
    # preinst's diversion is gone, and feedbackd (if installed) has its file back.
    diversion_undone() {
        ! dpkg-divert --list | grep -w sysound || return 1
        if dpkg -s feedbackd >/dev/null 2>&1; then
            dpkg -V feedbackd | grep dbus-1/services && return 1
            grep -q 'feedbackd' "$dbus_file" || { echo "$dbus_file is not feedbackd's"; return 1; }
        fi
    }
    check "no diversion left; feedbackd's D-Bus activation file is back" diversion_undone
    check "apt-get install ./$deb again" deb_install
    check "dpkg -P sysound at once" dpkg -P sysound
    deb_installed=
    check "dpkg -P leaves no file behind" purged
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
