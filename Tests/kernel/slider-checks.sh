#!/bin/sh
# The alert slider half of the real-kernel test (Tests/kernel/run.sh), run
# inside the guest after cli-checks.sh: a uinput "Alert slider" (slider.c)
# marked by udev as feedbackd's rules mark it, a built-in vibrator (ffdev
# vibra), and `sysound serve` following them. Its start position is read,
# each of the three positions sets silent mode and haptics within 100 ms,
# a move is confirmed by a vibration, and a setting changed by hand holds
# until the next move. Prints PASS/FAIL lines.
export PATH=/usr/bin:/bin XDG_RUNTIME_DIR=/tmp/slider-run HOME=/tmp GSETTINGS_BACKEND=memory
state=/tmp/slider-state
mkdir -p "$XDG_RUNTIME_DIR" "$state"
failed=0
check() { # name detail command...
    name=$1 detail=$2
    shift 2
    if "$@"; then echo "PASS $name: $detail"; else echo "FAIL $name: $detail"; failed=1; fi
}
node_of() { # device name → eventN
    awk -v n="N: Name=\"$1\"" '$0 == n {f=1} f && /^H: Handlers=/ {for (i = 2; i <= NF; i++) if ($i ~ /^(Handlers=)?event/) {sub("Handlers=", "", $i); print $i}; exit}' /proc/bus/input/devices
}
settings() { echo "silent=$(cat $state/silent 2>/dev/null) haptics=$(cat $state/haptics 2>/dev/null)"; }

: >/tmp/slider-vib.log
ffdev /tmp/slider-vib.log 4 vibra &
vib=$!
mkfifo /tmp/slider.in
slider "$state" 0 </tmp/slider.in >/tmp/slider.out 2>&1 &
slider=$!
exec 3>/tmp/slider.in
i=0
until grep -q created /tmp/slider.out && [ -n "$(node_of "Alert slider")" ] && grep -q create /tmp/slider-vib.log; do
    i=$((i + 1)); [ $i -gt 100 ] && { echo "FAIL slider setup: $(cat /tmp/slider.out)"; exit 1; }; sleep 0.05
done
node=$(node_of "Alert slider")
# udev's word, as feedbackd's rules leave it (no udevd here: written as it would).
mkdir -p /run/udev/data
printf 'E:ID_INPUT=1\nE:FEEDBACKD_TYPE=alert-slider\n' >"/run/udev/data/c$(cat /sys/class/input/$node/dev)"

sysound serve --state-dir "$state" >/tmp/slider-daemon.log 2>&1 &
daemon=$!
i=0
until [ -S "$state/socket" ] && sysound status --state-dir "$state" 2>/dev/null | grep -q "alert-slider:"; do
    i=$((i + 1)); [ $i -gt 200 ] && break; sleep 0.1
done
check "slider start position" "position 0 at start: $(settings)" sh -c "[ '$(settings)' = 'silent=1 haptics=0' ]"
sysound status --state-dir "$state" >/tmp/slider-status.txt 2>&1
check "slider in status" "$(grep alert-slider /tmp/slider-status.txt)" \
    grep -q "alert-slider: *Alert slider at /dev/input/$node: silent" /tmp/slider-status.txt
plays_at_start=$(grep -c " play " /tmp/slider-vib.log)

# Moves to POSITION and reads how long the control files took to say so.
timed_move() { # position silent haptics
    echo "$1 $2 $3" >&3
    moves=$((moves + 1))
    i=0
    until [ "$(grep -c '^moved' /tmp/slider.out)" -ge "$moves" ]; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.05; done
    line=$(grep '^moved' /tmp/slider.out | tail -1)
    ms=$(echo "$line" | awk '$3 == "in" {print $4}')
}
# A move within 100 ms; one late move is tried once more (back, then again),
# as an emulated guest on a shared host jitters (see FF_TOLERANCE_MS).
move() { # from position silent haptics what
    timed_move "$2" "$3" "$4"
    if [ -n "$ms" ] && [ "$ms" -gt 100 ]; then
        echo "note: slider move to $2 took $ms ms in the emulator; again"
        echo "$1 -1 -1" >&3; moves=$((moves + 1)); sleep 0.5
        timed_move "$2" "$3" "$4"
    fi
    check "slider $5" "$line ($(settings))" sh -c "[ -n '$ms' ] && [ '$ms' -le 100 ]"
}
moves=0
move 0 2 0 1 "to full: silent off, haptics on within 100 ms"
move 2 1 1 1 "to quiet: silent on, haptics on within 100 ms"
# By hand: holds until the next move.
sysound silent off --state-dir "$state" >/dev/null 2>&1
sleep 0.3
check "slider hand override holds" "$(settings) after sysound silent off" sh -c "[ '$(settings)' = 'silent=0 haptics=1' ]"
move 1 0 1 0 "to silent: silent on, haptics off within 100 ms"
sleep 0.3
plays=$(grep -c " play " /tmp/slider-vib.log)
check "slider moves confirmed by a vibration" "plays at start $plays_at_start, after 3 moves $plays" \
    sh -c "[ $plays_at_start = 0 ] && [ $plays -ge 3 ]"

kill $daemon $slider $vib 2>/dev/null; wait $daemon $slider $vib 2>/dev/null
exec 3>&-
[ $failed = 0 ] || { echo "--- slider daemon log"; tail -30 /tmp/slider-daemon.log; echo "--- slider"; cat /tmp/slider.out; }
rm -rf /run/udev
exit $failed
