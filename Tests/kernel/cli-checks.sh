#!/bin/sh
# The CLI half of the real-kernel force-feedback test, run inside the guest
# after sysound-ff-check (Tests/kernel/run.sh): `sysound` as a user runs it
# (no daemon: each command's own engine opens /dev/input), against uinput
# devices shaped like real ones (ffdev.c kinds). Prints PASS/FAIL lines.
export PATH=/usr/bin:/bin XDG_RUNTIME_DIR=/tmp/run HOME=/tmp
mkdir -p "$XDG_RUNTIME_DIR"
failed=0

check() { # name detail command...
    name=$1 detail=$2
    shift 2
    if "$@"; then echo "PASS $name: $detail"; else echo "FAIL $name: $detail"; failed=1; show=1; fi
}
# What the devices recorded, after a failed check.
show_logs() { [ -n "${show:-}" ] && for f in "$@"; do echo "--- $f"; cat "$f"; done; show=; }

# Starts `ffdev LOG 4 KIND` and waits for its node; the pid is in $dev_pid.
device() { # log kind name
    : >"$1"
    ffdev "$1" 4 "$2" &
    dev_pid=$!
    i=0
    until grep -q "create" "$1" 2>/dev/null && grep -q "N: Name=\"$3\"" /proc/bus/input/devices; do
        i=$((i + 1))
        [ $i -gt 100 ] && { echo "FAIL setup: no $3 device"; failed=1; return 1; }
        sleep 0.05
    done
}

count() { grep -c "$1" "$2" 2>/dev/null; }

# `sysound vibrate ARGS`, once more if it answered 75 (busy: the effect was not
# uploaded within the 500 ms a vibration may wait, which an emulated guest on a
# loaded host can take; the answer itself is truthful). Sets $rc.
vibrate() {
    sysound vibrate "$@"; rc=$?
    if [ $rc = 75 ]; then echo "note: sysound vibrate $* was busy (upload > 500 ms in the emulator); again"; sysound vibrate "$@"; rc=$?; fi
}

# 1. A game controller (BUS_USB, buttons and sticks) created before the
# built-in vibrator: UI vibrations play on the vibrator only, twice in a row.
device /tmp/pad.log pad "Microsoft X-Box 360 pad"; pad=$dev_pid
device /tmp/vib.log vibra gpio-vibrator; vib=$dev_pid
vibrate heavy; rc1=$rc
vibrate heavy; rc2=$rc
vib_plays=$(count " play " /tmp/vib.log) pad_uploads=$(count " upload" /tmp/pad.log)
heavy=$(count " upload [0-9]* 65535 65535 35 " /tmp/vib.log)
check "vibrator, not the controller" "exit $rc1 $rc2, vibrator plays $vib_plays (of heavy: $heavy uploads), controller uploads $pad_uploads" \
    [ "$rc1 $rc2 $vib_plays $pad_uploads" = "0 0 2 0" -a "$heavy" -ge 1 ]
sysound status >/tmp/status.txt 2>&1
check "status lists both" "$(grep force-feedback /tmp/status.txt | tr '\n' ';')" \
    sh -c 'grep -q "X-Box 360 pad — not used: not built in: on USB" /tmp/status.txt && grep -q "gpio-vibrator — used" /tmp/status.txt'
printf '[haptics]\ndevices = ["all"]\n' >/tmp/all.toml
vibrate heavy --config /tmp/all.toml
vib_plays=$(count " play " /tmp/vib.log) pad_plays=$(count " play " /tmp/pad.log)
check "devices = all" "exit $rc, vibrator plays $vib_plays (3 in all), controller plays $pad_plays" [ "$rc $vib_plays $pad_plays" = "0 3 1" ]
show_logs /tmp/pad.log /tmp/vib.log
kill $pad $vib; wait $pad $vib 2>/dev/null

# 2. A da7280-shaped motor (no FF_RUMBLE; rumble and sine refused):
# FF_CONSTANT effects, and they play.
device /tmp/da.log da7280 da7280-haptic; da=$dev_pid
vibrate heavy
constant=$(count " upload-constant [0-9]* 32767 35 " /tmp/da.log) refused=$(count "upload-refused" /tmp/da.log)
plays=$(count " play " /tmp/da.log)
check "da7280: constant effects" "exit $rc, FF_CONSTANT level 32767 35 ms uploads $constant, refused uploads $refused, plays $plays" \
    [ "$rc $refused $plays" = "0 0 1" -a "$constant" -ge 1 ]
show_logs /tmp/da.log
kill $da; wait $da 2>/dev/null

# 3. A device that refuses every upload: not "vibrated"; exit 69 naming it.
device /tmp/ref.log refuser refusing-vibrator; ref=$dev_pid
sysound vibrate heavy 2>/tmp/err.txt; rc=$?
check "refused uploads: exit 69" "exit $rc: $(cat /tmp/err.txt)" sh -c "[ $rc = 69 ] && grep -q refusing-vibrator /tmp/err.txt"
sysound status >/tmp/status.txt 2>&1
check "refused uploads: status" "$(grep force-feedback /tmp/status.txt)" grep -q "refusing-vibrator — not used: uploads refused" /tmp/status.txt
show_logs /tmp/ref.log
kill $ref; wait $ref 2>/dev/null

# 4. A profile chosen from the device-tree compatible list: PinePhone's
# eccentric-mass motor gets feedbackd's 80 ms key press instead of 15 ms.
device /tmp/pp.log vibra gpio-vibrator; pp=$dev_pid
vibrate tap; rc1=$rc
export SYSOUND_DT_COMPATIBLE="pine64,pinephone-1.2 pine64,pinephone allwinner,sun50i-a64"
vibrate tap; rc2=$rc
vibrate light; rc3=$rc
lengths=$(grep " upload " /tmp/pp.log | awk '{print $6}' | sort -un | tr '\n' ' ')
check "profile lengths" "exit $rc1 $rc2 $rc3, uploaded lengths: $lengths(tap 15 without, 80 with; light 20 raised to 40)" \
    sh -c "[ '$rc1 $rc2 $rc3' = '0 0 0' ] && grep -q ' 15 new' /tmp/pp.log && grep -q ' 80 new' /tmp/pp.log && grep -q ' 40 new' /tmp/pp.log"
sysound status >/tmp/status.txt 2>&1
check "profile in status" "$(grep haptic-profile /tmp/status.txt)" \
    grep -q 'haptic-profile: *pine64-pinephone (ERM.*device-tree compatible "pine64,pinephone"' /tmp/status.txt
unset SYSOUND_DT_COMPATIBLE
# udev's word, as feedbackd's rules leave it in udev's database (no udev
# runs here: the record is written as udevd would).
node=$(awk -v n='N: Name="gpio-vibrator"' '$0 == n {f=1} f && /^H: Handlers=/ {for (i = 2; i <= NF; i++) if ($i ~ /^(Handlers=)?event/) {sub("Handlers=", "", $i); print $i}; exit}' /proc/bus/input/devices)
mkdir -p /run/udev/data
printf 'E:ID_INPUT=1\nE:FEEDBACKD_TYPE=vibra\n' >"/run/udev/data/c$(cat /sys/class/input/$node/dev)"
sysound status >/tmp/status.txt 2>&1
check "udev FEEDBACKD_TYPE=vibra" "$node ($(cat /sys/class/input/$node/dev)): $(grep force-feedback /tmp/status.txt)" \
    grep -q "gpio-vibrator — used: udev FEEDBACKD_TYPE=vibra" /tmp/status.txt
rm -rf /run/udev
show_logs /tmp/pp.log
kill $pp; wait $pp 2>/dev/null
exit $failed
