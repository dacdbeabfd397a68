#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the ASI kernel under Bochs, whose CPU models have what QEMU's TCG
# lacks: VMX with EPT and VPID, PCID and INVPCID. The kernel and initramfs
# go on a GRUB ISO booted from an emulated CD; the serial console is
# written to LOG, which is watched until a line matches END (or the time
# runs out), and then Bochs is stopped (a powered-off Bochs keeps running).
#
#   run-bochs.sh -a ARGS -l LOG -e END [-k BZIMAGE] [-i INITRD] [-m MODE]
#                [-c CPUS] [-M MODEL] [-t SECONDS]
#
#   -m  asitest.mode of vm/init: kunit (default) or batch
#   -c  1 (default) or 4: two cores of two SMT threads
#   -M  Bochs CPU model: corei7_skylake_x (default), tigerlake, ...
# Exits 0 when END was seen, 124 on timeout, 1 on other errors.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kernel=$top/build/obj/arch/x86/boot/bzImage
initrd=$top/build/initramfs.cpio.gz
extra= log= end= mode=kunit cpus=1 model=corei7_skylake_x secs=900

while getopts "k:i:a:l:e:m:c:M:t:" opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	i) initrd=$OPTARG ;;
	a) extra=$OPTARG ;;
	l) log=$OPTARG ;;
	e) end=$OPTARG ;;
	m) mode=$OPTARG ;;
	c) cpus=$OPTARG ;;
	M) model=$OPTARG ;;
	t) secs=$OPTARG ;;
	*) exit 1 ;;
	esac
done
if [ -z "$log" ] || [ -z "$end" ]; then
	sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 1
fi
case $cpus in
1) count=1 ;;
4) count=1:2:2 ;;
*) echo "run-bochs: -c takes 1 or 4" >&2; exit 1 ;;
esac
for f in "$kernel" "$initrd"; do
	[ -f "$f" ] || { echo "run-bochs: $f not found (run: make kernel initramfs)" >&2; exit 1; }
done

# No panic_on_warn: the pristine kernel warns twice under Bochs's models
# (topology, XSAVE size). The caller fails on every other warning.
cmdline="console=ttyS0,115200 panic=-1 oops=panic asitest.mode=$mode"
[ "$mode" = kunit ] && cmdline="$cmdline kunit.enable=1"
cmdline="$cmdline $extra"

work=$(mktemp -d -t asi-bochs-XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/iso/boot/grub" "$(dirname "$log")"
cp "$kernel" "$work/iso/boot/bzImage"
cp "$initrd" "$work/iso/boot/initrd"
cat >"$work/iso/boot/grub/grub.cfg" <<EOF
serial --unit=0 --speed=115200
terminal_input serial
terminal_output serial
set timeout=0
menuentry asi {
	linux /boot/bzImage $cmdline
	initrd /boot/initrd
}
EOF
if ! grub-mkrescue -o "$work/boot.iso" "$work/iso" >"$work/grub.log" 2>&1; then
	cat "$work/grub.log" >&2
	exit 1
fi

: >"$log"
cat >"$work/bochsrc" <<EOF
cpu: model=$model, count=$count, ips=200000000, reset_on_triple_fault=0, ignore_bad_msrs=1
memory: guest=1024, host=1024
romimage: file=/usr/share/bochs/BIOS-bochs-latest
vgaromimage: file=/usr/share/vgabios/vgabios.bin
ata0-master: type=cdrom, path=$work/boot.iso, status=inserted
boot: cdrom
com1: enabled=1, mode=file, dev=$log
display_library: rfb, options="timeout=0"
clock: sync=none, time0=local
log: $work/bochs.log
panic: action=fatal
error: action=report
info: action=ignore
debug: action=ignore
EOF
# Debian's Bochs has its debugger built in: "c" lets the CPU run.
echo c >"$work/debugger.rc"
start=$(date +%s)
(cd "$work" && exec bochs -q -f "$work/bochsrc" -rc "$work/debugger.rc" \
	</dev/null >"$work/bochs.out" 2>&1) &
pid=$!
rc=124
while kill -0 $pid 2>/dev/null; do
	if grep -a -q -E "$end" "$log"; then
		rc=0
		break
	fi
	if [ $(($(date +%s) - start)) -ge "$secs" ]; then
		echo "run-bochs: no '$end' after $secs s" >&2
		break
	fi
	sleep 2
done
# Bochs may have ended on the guest's reboot right after the last line.
if [ $rc -ne 0 ] && grep -a -q -E "$end" "$log"; then
	rc=0
fi
if ! kill -0 $pid 2>/dev/null && [ $rc -ne 0 ]; then
	echo "run-bochs: Bochs exited early:" >&2
	tail -n 20 "$work/bochs.out" "$work/bochs.log" >&2
	rc=1
fi
kill $pid 2>/dev/null
wait $pid 2>/dev/null
echo "run-bochs: $model, $cpus CPU(s): $(($(date +%s) - start)) s" >&2
exit $rc
