#!/bin/sh
# The LED half of the real-kernel test, run inside the guest after the
# force-feedback checks (Tests/kernel/run.sh): the kernel's input-leds turns
# leddev's uinput LEDs into LED class devices; the kernel's own
# ledtrig-pattern module blinks them; the udev helper the package ships
# (sysound-ledctrl) selects the trigger and the group; udev's database is
# written as udevd would. Prints PASS/FAIL lines.
export PATH=/usr/bin:/usr/libexec/sysound:/bin XDG_RUNTIME_DIR=/tmp/run HOME=/tmp
mkdir -p "$XDG_RUNTIME_DIR"
failed=0
check() { # name detail command...
    name=$1 detail=$2
    shift 2
    if "$@"; then echo "PASS $name: $detail"; else echo "FAIL $name: $detail"; failed=1; fi
}

: >/tmp/led.log
leddev /tmp/led.log &
dev=$!
# Its LEDs, not the emulated PS/2 keyboard's (input0::capslock, which has no log).
i=0
led=
until [ -n "$led" ] && [ -e "/sys/class/leds/$led" ]; do
    i=$((i + 1))
    [ $i -gt 100 ] && { echo "FAIL setup: no input-leds LED for leddev"; kill $dev; exit 1; }
    sleep 0.05
    for d in /sys/class/input/input*; do
        [ "$(cat "$d/name" 2>/dev/null)" = sysound-test-leds ] && led=${d##*/}::capslock
    done
done
sys=/sys/class/leds/$led

# 1. Without ledtrig-pattern the LED is found and not used, and says why (no crash).
mkdir -p /run/udev/data
printf 'E:FEEDBACKD_TYPE=led\n' >"/run/udev/data/+leds:$led"
sysound status >/tmp/led-status.txt 2>&1
check "led without the pattern trigger" "$(grep "^led $led" /tmp/led-status.txt)" \
    grep -q "^led $led: not used: no pattern trigger in the kernel (load ledtrig-pattern)" /tmp/led-status.txt
rm -f "/run/udev/data/+leds:$led"

# 2. The udev rule's helper, as udev runs it: the trigger, the group, the modes.
insmod /lib/modules/ledtrig-pattern.ko || echo "FAIL setup: insmod ledtrig-pattern.ko"
sysound-ledctrl "$sys" feedbackd
rc=$?
perms=$(ls -ln "$sys/pattern" "$sys/repeat" "$sys/brightness" | awk '{print $1, $4}' | sort -u | tr '\n' ';')
check "sysound-ledctrl" "exit $rc, trigger $(grep -o '\[[a-z-]*\]' "$sys/trigger"), pattern/repeat/brightness: $perms" \
    sh -c "[ $rc = 0 ] && grep -q '\[pattern\]' '$sys/trigger' && [ '$perms' = '-rw-rw-r-- 120;' ]"
sysound-ledctrl /tmp >/dev/null 2>&1
rc=$?
check "sysound-ledctrl refuses a path outside /sys" "exit $rc" [ $rc = 2 ]

# 3. The engine on the real LED: hotplug, blinking, steady, priorities, off.
sysound-ff-check --leds --led "$led" --code 1 --log /tmp/led.log || failed=1

# 4. The flash for alerts in silent mode: `sysound play` of an alert (no daemon)
# flashes the status LED (there is no flash LED): 4 blinks at 4 Hz, then off.
printf 'E:FEEDBACKD_TYPE=led\n' >"/run/udev/data/+leds:$led"
sysound flash silent && sysound silent on
lines=$(wc -l </tmp/led.log)
sysound play notification >/tmp/flash.txt 2>&1
rc=$?
sleep 1.6
tail -n +$((lines + 1)) /tmp/led.log | awk '$2 == "led" && $3 == 1' >/tmp/flash.log
rises=$(awk '$4 == 1' /tmp/flash.log | wc -l)
# Median period between rising edges, ms.
period=$(awk '$4 == 1 { if (last) print int(($1 - last) / 1000); last = $1 }' /tmp/flash.log | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)] + 0}')
last=$(tail -1 /tmp/flash.log | awk '{print $4}')
check "flash for alerts in silent mode" "exit $rc, $rises blinks, median period ${period} ms (250 ±20 %), last value $last" \
    sh -c "[ $rc = 0 ] && [ $rises = 4 ] && [ $period -ge 200 ] && [ $period -le 300 ] && [ '$last' = 0 ]"
lines=$(wc -l </tmp/led.log)
sysound silent off
sysound play notification >/dev/null 2>&1
sleep 0.6
check "no flash when not silent (flash silent)" "$(tail -n +$((lines + 1)) /tmp/led.log | grep -c ' led 1 1') blinks" \
    sh -c "! tail -n +$((lines + 1)) /tmp/led.log | grep -q ' led 1 1'"
sysound flash off
sysound status >/tmp/led-status.txt 2>&1
check "status lists the LED" "$(grep "^led $led" /tmp/led-status.txt)" \
    grep -q "^led $led: single status light (one colour) — udev FEEDBACKD_TYPE=led; shows off" /tmp/led-status.txt
check "status shows the flash setting" "$(grep '^flash:' /tmp/led-status.txt)" grep -q '^flash: *off' /tmp/led-status.txt

# 5. A feedbackd theme's Led entries through the daemon (`sysound event` on its
# socket; no session bus here): blinking at the theme's frequency while the
# event runs, a steady higher priority over it, the lower back when that one
# ends, off when the last ends.
cat >/tmp/leds.json <<'JSON'
{"name": "leds", "profiles": [{"name": "silent", "feedbacks": [
  {"event-name": "message-missed-sms", "type": "Led", "color": "blue", "frequency": 2000, "priority": 1},
  {"event-name": "battery-caution", "type": "Led", "color": "red", "priority": 5}]}]}
JSON
FEEDBACK_THEME=/tmp/leds.json sysound serve >/tmp/daemon.log 2>&1 &
daemon=$!
i=0
until [ -S "$XDG_RUNTIME_DIR/sysound/socket" ] || [ $i -gt 200 ]; do i=$((i + 1)); sleep 0.05; done
rises_since() { tail -n +$(($1 + 1)) /tmp/led.log | grep -c " led 1 1"; }
event_id() { sed -n 's/.*(event \([0-9]*\)).*/\1/p' "$1"; }
lines=$(wc -l </tmp/led.log)
sysound event message-missed-sms --timeout 0 >/tmp/ev1.txt 2>&1
sleep 2.2
low=$(rises_since $lines)
# 4 or 5 at 2000 mHz; one fewer if the CLI was slow to reach the daemon.
check "theme Led blinks while its event runs" "$(cat /tmp/ev1.txt); $low blinks in 2.2 s (2000 mHz: 4 or 5)" \
    sh -c "[ $low -ge 3 ] && [ $low -le 5 ]"
sysound event battery-caution --timeout 0 >/tmp/ev2.txt 2>&1
sleep 0.3
lines=$(wc -l </tmp/led.log)
sleep 1.2
check "a steady higher priority covers it" "$(cat /tmp/ev2.txt); $(rises_since $lines) blinks, brightness $(cat "$sys/brightness")" \
    sh -c "[ $(rises_since $lines) = 0 ] && [ $(cat "$sys/brightness") = 1 ]"
lines=$(wc -l </tmp/led.log)
sysound event --end "$(event_id /tmp/ev2.txt)" >/dev/null 2>&1
sleep 1.6
check "the lower priority back when it ends" "$(rises_since $lines) blinks in 1.6 s" sh -c "[ $(rises_since $lines) -ge 2 ]"
sysound event --end "$(event_id /tmp/ev1.txt)" >/dev/null 2>&1
sleep 0.6
lines=$(wc -l </tmp/led.log)
sleep 0.6
check "off when the last event ends" "brightness $(cat "$sys/brightness"), $(rises_since $lines) blinks after" \
    sh -c "[ $(cat "$sys/brightness") = 0 ] && [ $(rises_since $lines) = 0 ]"
kill $daemon
wait $daemon 2>/dev/null
[ $failed = 0 ] || { echo "--- daemon log"; tail -20 /tmp/daemon.log; }

kill $dev
wait $dev 2>/dev/null
exit $failed
