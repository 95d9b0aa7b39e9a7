#!/bin/sh
# The real-kernel force-feedback test: boots Debian's 6.1 kernel under qemu
# (software emulation), with an initramfs holding busybox, evdev.ko,
# uinput.ko, uinput devices (ffdev.c: a test rumble, a built-in vibrator, a
# game controller, a da7280-shaped motor, one that refuses uploads;
# slider.c: an alert slider), the project's haptics code (sysound-ff-check),
# the CLI as installed (cli-checks.sh), the daemon following the alert
# slider (slider-checks.sh), then the LED checks (led-checks.sh: leddev.c's
# uinput LEDs through input-leds, the kernel's ledtrig-pattern module, the
# udev helper the package ships). Prints the checks and a closing "N passed, N failed";
# exits non-zero on any failure.
#
# Needs: qemu-system-x86, busybox-static, cpio, xz-utils, gcc (apt), swift.
# Env: SYSOUND_FF_CHECK=path   use this sysound-ff-check instead of building it
#      SYSOUND_BIN_DIR=dir      take sysound, sysound-cli, sysound-play, sysound-engine from here
#                               instead of this tree's debug build (swift build --build-tests)
#      FF_TOLERANCE_MS=25      worst step timing error allowed (the median must be ≤ 2 ms;
#                              an emulated VM on a shared host jitters)
#      QEMU_TIMEOUT=300        seconds before the boot counts as hung
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK="$ROOT/.build-kernel"          # git-ignored (.build*/): cached kernel, builds
TOLERANCE=${FF_TOLERANCE_MS:-25}
SLOTS=4
mkdir -p "$WORK"
log() { echo "kernel-test: $*" >&2; }
die() { log "$*"; echo "0 passed, 1 failed"; exit 1; }

for tool in qemu-system-x86_64 cpio xz gcc dpkg-deb apt-get; do
    command -v "$tool" >/dev/null || die "$tool not found; apt-get install qemu-system-x86 busybox-static cpio xz-utils gcc"
done
BUSYBOX=/bin/busybox
[ -x "$BUSYBOX" ] && dpkg -s busybox-static >/dev/null 2>&1 \
    || die "busybox not found; apt-get install busybox-static"

# 1. The kernel: linux-image-amd64's dependency (not the cloud kernel, which lacks uinput).
# (A cache from before the LED checks lacks ledtrig-pattern.ko: fetched again.)
if [ ! -f "$WORK/kernel/vmlinux" ] || [ ! -f "$WORK/kernel/ledtrig-pattern.ko" ]; then
    pkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
    [ -n "$pkg" ] || die "cannot resolve linux-image-amd64's kernel package (apt-get update?)"
    log "fetching $pkg"
    rm -rf "$WORK/deb" "$WORK/kernel.tmp"
    mkdir -p "$WORK/deb" "$WORK/kernel.tmp"
    (cd "$WORK/deb" && apt-get download "$pkg" >/dev/null 2>&1) || die "apt-get download $pkg failed"
    dpkg-deb --fsys-tarfile "$WORK"/deb/*.deb | (cd "$WORK/kernel.tmp" && tar -x --wildcards \
        './boot/vmlinuz-*' './boot/config-*' '*/drivers/input/evdev.ko' '*/drivers/input/misc/uinput.ko' \
        '*/drivers/leds/trigger/ledtrig-pattern.ko')
    k="$WORK/kernel.tmp"
    cp "$k"/boot/config-* "$k/config"
    cp "$(find "$k" -name evdev.ko)" "$(find "$k" -name uinput.ko)" "$(find "$k" -name ledtrig-pattern.ko)" "$k/"
    # The uncompressed kernel boots much faster under emulation: the XZ payload of vmlinuz.
    vmlinuz=$(ls "$k"/boot/vmlinuz-*)
    offset=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$vmlinuz" | head -1 | cut -d: -f1)
    [ -n "$offset" ] || die "no XZ payload in $vmlinuz"
    tail -c +"$((offset + 1))" "$vmlinuz" | xz -dc > "$k/vmlinux" 2>/dev/null || true  # trailing data is expected
    head -c 4 "$k/vmlinux" | grep -q ELF || die "could not extract vmlinux from $vmlinuz"
    rm -rf "$k/boot" "$k/lib" "$WORK/deb"
    rm -rf "$WORK/kernel" && mv "$k" "$WORK/kernel"
fi

# 2. The device emulator and the client.
gcc -static -O2 -Wall -o "$WORK/ffdev" "$ROOT/Tests/kernel/ffdev.c" || die "cannot compile ffdev.c"
gcc -static -O2 -Wall -o "$WORK/slider" "$ROOT/Tests/kernel/slider.c" || die "cannot compile slider.c"
gcc -static -O2 -Wall -o "$WORK/leddev" "$ROOT/Tests/kernel/leddev.c" || die "cannot compile leddev.c"
CLIENT=${SYSOUND_FF_CHECK:-}
if [ -z "$CLIENT" ]; then
    # In the release scratch path `make release` and the bench use, with
    # their flags: the modules it shares with them are compiled once.
    log "building sysound-ff-check (release, static Swift stdlib)"
    (cd "$ROOT" && swift build -c release --static-swift-stdlib --product sysound-ff-check \
        >"$WORK/swift-build.log" 2>&1) \
        || { tail -20 "$WORK/swift-build.log" >&2; die "swift build failed"; }
    CLIENT="$(cd "$ROOT" && swift build -c release --static-swift-stdlib --show-bin-path)/sysound-ff-check"
fi
[ -x "$CLIENT" ] || die "no client at $CLIENT"
# The CLI: the debug build every test run makes anyway (a release build of
# the engines would add minutes), with its shared libraries.
BIN=${SYSOUND_BIN_DIR:-}
if [ -z "$BIN" ]; then
    log "building sysound, sysound-cli, sysound-play and sysound-engine (debug)"
    (cd "$ROOT" && swift build --build-tests >"$WORK/cli-build.log" 2>&1) \
        || { tail -20 "$WORK/cli-build.log" >&2; die "swift build failed"; }
    BIN="$ROOT/.build/debug"
fi
for exe in sysound sysound-cli sysound-play sysound-engine; do [ -x "$BIN/$exe" ] || die "no $exe in $BIN"; done

# 3. The initramfs.
ROOTFS="$WORK/rootfs"
rm -rf "$ROOTFS"
mkdir -p "$ROOTFS/bin" "$ROOTFS/dev" "$ROOTFS/proc" "$ROOTFS/sys" "$ROOTFS/tmp" "$ROOTFS/lib/modules"
cp "$BUSYBOX" "$ROOTFS/bin/busybox"
cp "$WORK/kernel/evdev.ko" "$WORK/kernel/uinput.ko" "$ROOTFS/lib/modules/"
cp "$WORK/ffdev" "$ROOTFS/bin/ffdev"
cp "$CLIENT" "$ROOTFS/bin/sysound-ff-check"
cp "$ROOT/Tests/kernel/cli-checks.sh" "$ROOTFS/bin/cli-checks.sh"
cp "$WORK/slider" "$ROOTFS/bin/slider"
cp "$ROOT/Tests/kernel/slider-checks.sh" "$ROOTFS/bin/slider-checks.sh"
# The LED checks: their device, the kernel's pattern trigger, the group the udev rule names.
cp "$WORK/leddev" "$ROOTFS/bin/leddev"
cp "$ROOT/Tests/kernel/led-checks.sh" "$ROOTFS/bin/led-checks.sh"
cp "$WORK/kernel/ledtrig-pattern.ko" "$ROOTFS/lib/modules/"
mkdir -p "$ROOTFS/etc"
printf 'root:x:0:\nfeedbackd:x:120:\n' > "$ROOTFS/etc/group"
# Installed as `make install` lays it out under /usr (InstallLayout).
mkdir -p "$ROOTFS/usr/bin" "$ROOTFS/usr/libexec/sysound" "$ROOTFS/usr/share/sysound/config" "$ROOTFS/run"
cp "$BIN/sysound" "$ROOTFS/usr/bin/"
cp "$BIN/sysound-cli" "$BIN/sysound-play" "$BIN/sysound-engine" "$ROOTFS/usr/libexec/sysound/"
install -m 755 "$ROOT/config/udev/sysound-ledctrl" "$ROOTFS/usr/libexec/sysound/"
# A debug build's symbols are half its size; the guest unpacks every byte.
strip --strip-debug "$ROOTFS/usr/bin/sysound" "$ROOTFS"/usr/libexec/sysound/* 2>/dev/null || true
cp -r "$ROOT/Sounds" "$ROOTFS/usr/share/sysound/"
cp "$ROOT/config/sysound.toml" "$ROOTFS/usr/share/sysound/config/"
# Whatever the programs link dynamically (glibc, libevdev, the Swift
# runtime of a debug build), at the paths ldd names.
for lib in $(for exe in "$CLIENT" "$BIN/sysound" "$BIN/sysound-cli" "$BIN/sysound-play" "$BIN/sysound-engine"; do ldd "$exe"; done \
        | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' | sort -u); do
    mkdir -p "$ROOTFS$(dirname "$lib")"
    cp -L "$lib" "$ROOTFS$lib"
done
[ "$(id -u)" = 0 ] && mknod -m 600 "$ROOTFS/dev/console" c 5 1
cat > "$ROOTFS/init" <<INIT
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
exec 0</dev/console 1>/dev/console 2>&1
insmod /lib/modules/evdev.ko && insmod /lib/modules/uinput.ko || echo "FAIL modules: insmod failed"
echo "kernel \$(uname -r) up, clocksource \$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
ffdev /tmp/ffdev.log $SLOTS &
pid=\$!
# A da7280-shaped motor (15 effects, as its driver) and a gpio-vibrator, used together after the rumble motor.
ffdev /tmp/da7280.log 15 da7280 &
da=\$!
ffdev /tmp/vibra.log $SLOTS vibra &
vibra=\$!
sysound-ff-check --emulator \$pid --log /tmp/ffdev.log --slots $SLOTS --tolerance-ms $TOLERANCE \\
    --da7280-log /tmp/da7280.log --vibra-log /tmp/vibra.log
rc=\$?
kill \$pid \$da \$vibra
wait \$pid \$da \$vibra 2>/dev/null
[ \$rc = 0 ] || { for f in /tmp/ffdev.log /tmp/da7280.log /tmp/vibra.log; do echo "--- device log \$f"; cat \$f; done; }
sh /bin/cli-checks.sh || rc=1
sh /bin/slider-checks.sh || rc=1
sh /bin/led-checks.sh || rc=1
# isa-debug-exit: qemu exits with (v << 1) | 1.
printf "\\\\\$(printf %03o \$rc)" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
poweroff -f
INIT
chmod +x "$ROOTFS/init"
(cd "$ROOTFS" && find . | cpio -o -H newc --quiet) > "$WORK/initramfs.cpio"

# 4. Boot.
log "booting $(grep -o 'Linux/x86 [^ ]* Kernel' "$WORK/kernel/config" || echo the kernel) under qemu"
set +e
timeout "${QEMU_TIMEOUT:-300}" qemu-system-x86_64 -M pc -accel tcg -cpu max -m 1G -nographic -no-reboot \
    -kernel "$WORK/kernel/vmlinux" -initrd "$WORK/initramfs.cpio" \
    -append 'console=ttyS0 panic=-1 quiet' \
    -device isa-debug-exit,iobase=0xf4,iosize=0x04 </dev/null >"$WORK/console.log" 2>&1
status=$?
set -e
tr -d '\r' < "$WORK/console.log" | grep -E '^(PASS|FAIL|note|kernel |ff-check|sysound|ffdev|---|[0-9]+ )' || true

passed=$(tr -d '\r' < "$WORK/console.log" | grep -c '^PASS ' || true)
failed=$(tr -d '\r' < "$WORK/console.log" | grep -c '^FAIL ' || true)
case $status in
    1) ;;                                         # the client exited 0
    3) [ "$failed" -gt 0 ] || failed=1 ;;         # the client exited 1
    124) log "qemu timed out; console log: $WORK/console.log"; failed=$((failed + 1)) ;;
    *) log "qemu exited $status without a verdict; console log: $WORK/console.log"; failed=$((failed + 1)) ;;
esac
[ "$passed" -gt 0 ] || { [ "$failed" -gt 0 ] || failed=1; }
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
