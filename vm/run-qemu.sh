#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the ASI kernel in QEMU (TCG) on the serial console.
#
#   run-qemu.sh [options] [-- extra qemu args]
#     -k BZIMAGE     kernel (default build/obj/arch/x86/boot/bzImage)
#     -i INITRD      initramfs (default build/initramfs.cpio.gz)
#     -a "ARGS"      extra kernel arguments, appended last (e.g. "asi=off")
#     -m MODE        shell (interactive), test (harness) or kunit
#     -l LOGFILE     copy of everything the console printed
#     -s SMP         QEMU -smp value (default 4,sockets=1,cores=2,threads=2)
#     -M MEM         guest memory (default 2G)
#
# QEMU's KVM acceleration does not work on the development hosts (QEMU aborts
# on an MSR or the guest hangs), so this always uses TCG. "-cpu max" gives an
# AMD-like CPU with SVM and NPT, so KVM works inside the guest; threads=2
# gives SMT siblings. In test and kunit modes any oops, warning or panic ends
# the run: panic=-1 reboots at once and -no-reboot turns that into an exit.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kernel=$top/build/obj/arch/x86/boot/bzImage
initrd=$top/build/initramfs.cpio.gz
extra=
mode=shell
log=
smp=4,sockets=1,cores=2,threads=2
mem=2G

while getopts "k:i:a:m:l:s:M:h" opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	i) initrd=$OPTARG ;;
	a) extra=$OPTARG ;;
	m) mode=$OPTARG ;;
	l) log=$OPTARG ;;
	s) smp=$OPTARG ;;
	M) mem=$OPTARG ;;
	h) sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))

for f in "$kernel" "$initrd"; do
	[ -f "$f" ] || { echo "run-qemu: $f not found (run: make kernel initramfs)" >&2; exit 1; }
done

cmdline="console=ttyS0,115200 panic=-1 asitest.mode=$mode"
case $mode in
shell) ;;
test|kunit) cmdline="$cmdline oops=panic panic_on_warn=1 softlockup_panic=1" ;;
*) echo "run-qemu: unknown mode '$mode' (shell, test, kunit)" >&2; exit 2 ;;
esac
[ "$mode" = kunit ] && cmdline="$cmdline kunit.enable=1"
cmdline="$cmdline $extra"

logopt=
if [ -n "$log" ]; then
	mkdir -p "$(dirname "$log")"
	logopt=",logfile=$log"
fi

# In the interactive shell Ctrl-C goes to the guest (signal=off) and
# Ctrl-A X leaves QEMU; the harness modes get a plain stdio serial port.
if [ "$mode" = shell ]; then
	chardev="stdio,id=con,mux=on,signal=off$logopt"
	console=(-chardev "$chardev" -serial chardev:con -mon chardev=con,mode=readline)
else
	chardev="stdio,id=con,signal=off$logopt"
	console=(-chardev "$chardev" -serial chardev:con -monitor none)
fi

exec qemu-system-x86_64 \
	-machine q35 -accel tcg -cpu max \
	-smp "$smp" -m "$mem" \
	-nodefaults -no-user-config -display none -vga none \
	-no-reboot \
	"${console[@]}" \
	-kernel "$kernel" -initrd "$initrd" \
	-append "$cmdline" \
	"$@"
