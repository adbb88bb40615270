# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/vm/common.sh -- shared by tests/vm/run, tests/vm/build-siw and
# tests/vm/check-vm (sourced, not executed).
#
# Kernel for the test VM: Debian's linux-image-<kver> is unpacked (never
# installed) into the cache folder:
#
#   $SOFTVERBS_VM_CACHE              default /var/cache/softverbs-vm
#     debs/                          downloaded .deb files
#     root/boot/vmlinuz-<kver>       dpkg-deb -x of linux-image-<kver>
#     root/lib/modules/<kver>/       (+ depmod -b root <kver>)
#     vmlinux-<kver>                 uncompressed ELF kernel (PVH boot)
#     initramfs-<kver>-<hash>.cpio.gz
#     siw/<kver>/siw.ko              built by tests/vm/build-siw
#     siw/<kver>/build/              its out-of-tree build folder
#     pvrdma/<kver>/vmw_pvrdma.ko    built by tests/vm/build-pvrdma (tests/vm/nested)
#     pvrdma/inner-*.cpio.gz         the nested inner guest's initramfs
#
# The guest reads root/lib/modules and siw.ko through the host root (9p), so
# the cache must not live under /tmp, /run or /var/tmp (tmpfs in the guest).
# shellcheck shell=bash
# shellcheck disable=SC2034  # VM_* are used by the sourcing scripts

VM_CACHE=${SOFTVERBS_VM_CACHE:-/var/cache/softverbs-vm}
VM_PROG=${VM_PROG:-$(basename "$0")}

vm_msg() { echo "$VM_PROG: $*" >&2; }

# Seconds since the epoch with fractions, for phase timings.
vm_now() { date +%s.%N; }

# vm_hidden PATH: true if PATH is hidden in the guest by a tmpfs.
vm_hidden() {
    case "$1/" in
        /tmp/*|/run/*|/var/tmp/*|/dev/shm/*) return 0 ;;
    esac
    return 1
}

# vm_lock: serialise cache updates between concurrent runs (fd 8).
vm_lock() {
    { exec 8>>"$VM_CACHE/.lock"; } 2>/dev/null || return 0
    flock 8
}
vm_unlock() { exec 8>&- ; }

# vm_resolve_kernel: sets VM_KVER, VM_MODROOT (modprobe -d), VM_VMLINUZ.
# Order: $SOFTVERBS_VM_KVER; a kernel already in the cache (newest); an
# installed /boot/vmlinuz-<kver> with /lib/modules/<kver>/modules.dep; the
# version linux-image-amd64 depends on (apt-cache), downloaded into the cache.
# Returns 1 with a message when nothing can be found or fetched.
vm_resolve_kernel() {
    local v
    VM_KVER=${SOFTVERBS_VM_KVER:-}
    if [ -z "$VM_KVER" ]; then
        for v in $(ls -1 "$VM_CACHE/root/lib/modules" 2>/dev/null | sort -V -r); do
            if [ -e "$VM_CACHE/root/boot/vmlinuz-$v" ]; then VM_KVER=$v; break; fi
        done
    fi
    if [ -z "$VM_KVER" ]; then
        for v in $(ls -1 /lib/modules 2>/dev/null | sort -V -r); do
            if [ -e "/boot/vmlinuz-$v" ] && [ -e "/lib/modules/$v/modules.dep" ]; then
                VM_KVER=$v; break
            fi
        done
    fi
    if [ -z "$VM_KVER" ]; then
        if ! command -v apt-cache > /dev/null; then
            vm_msg "no kernel: none in $VM_CACHE, no /boot/vmlinuz-*, no apt-cache to find linux-image-amd64"
            return 1
        fi
        VM_KVER=$(apt-cache depends linux-image-amd64 2>/dev/null |
                  sed -n 's/^ *Depends: linux-image-\([0-9].*\)$/\1/p' | head -n 1)
        if [ -z "$VM_KVER" ]; then
            vm_msg "no kernel: apt-cache does not know linux-image-amd64 (apt-get update?)"
            return 1
        fi
    fi
    if [ -e "$VM_CACHE/root/boot/vmlinuz-$VM_KVER" ]; then
        VM_MODROOT=$VM_CACHE/root
    elif [ -e "/boot/vmlinuz-$VM_KVER" ] && [ -e "/lib/modules/$VM_KVER/modules.dep" ]; then
        VM_MODROOT=/
    else
        vm_fetch_kernel "$VM_KVER" || return 1
        VM_MODROOT=$VM_CACHE/root
    fi
    if [ "$VM_MODROOT" = / ]; then
        VM_VMLINUZ=/boot/vmlinuz-$VM_KVER
    else
        VM_VMLINUZ=$VM_MODROOT/boot/vmlinuz-$VM_KVER
    fi
    return 0
}

# vm_fetch_kernel KVER: apt-get download + dpkg-deb -x + depmod into the cache.
vm_fetch_kernel() {
    local kver=$1 deb
    if ! mkdir -p "$VM_CACHE/debs" 2>/dev/null || [ ! -w "$VM_CACHE/debs" ]; then
        vm_msg "cannot write the VM cache $VM_CACHE (run once as root, or set SOFTVERBS_VM_CACHE to a writable folder outside /tmp)"
        return 1
    fi
    for t in apt-get dpkg-deb depmod; do
        command -v "$t" > /dev/null || { vm_msg "missing $t (needed to fetch linux-image-$kver)"; return 1; }
    done
    vm_lock
    if [ ! -e "$VM_CACHE/root/boot/vmlinuz-$kver" ]; then
        vm_msg "fetching linux-image-$kver into $VM_CACHE (once)"
        deb=$(ls -1 "$VM_CACHE/debs/linux-image-${kver}_"*.deb 2>/dev/null | tail -n 1)
        if [ -z "$deb" ]; then
            (cd "$VM_CACHE/debs" && apt-get download -q "linux-image-$kver" > /dev/null 2>&1) ||
                { vm_msg "apt-get download linux-image-$kver failed"; vm_unlock; return 1; }
            deb=$(ls -1 "$VM_CACHE/debs/linux-image-${kver}_"*.deb 2>/dev/null | tail -n 1)
        fi
        mkdir -p "$VM_CACHE/root.new" &&
        dpkg-deb -x "$deb" "$VM_CACHE/root.new" &&
        depmod -b "$VM_CACHE/root.new" "$kver" ||
            { vm_msg "unpacking $deb failed"; rm -rf "$VM_CACHE/root.new"; vm_unlock; return 1; }
        # Merge into root/ (several kernel versions may live side by side).
        mkdir -p "$VM_CACHE/root/boot" "$VM_CACHE/root/lib/modules"
        rm -rf "$VM_CACHE/root/lib/modules/$kver"
        mv "$VM_CACHE/root.new/lib/modules/$kver" "$VM_CACHE/root/lib/modules/$kver"
        cp -p "$VM_CACHE/root.new/boot/"*"-$kver" "$VM_CACHE/root/boot/"
        rm -rf "$VM_CACHE/root.new"
    fi
    vm_unlock
    return 0
}

# vm_vmlinux: sets VM_KERNEL to the uncompressed ELF vmlinux of VM_VMLINUZ,
# extracting it into the cache once. /boot/vmlinuz-* is an xz bzImage whose
# decompression costs ~4.5 s of every TCG boot; the ELF inside has a PVH
# entry point (CONFIG_PVH=y) that QEMU's -kernel boots directly. Falls back
# to the bzImage when the extraction is impossible.
vm_vmlinux() {
    local out=$VM_CACHE/vmlinux-$VM_KVER off
    VM_KERNEL=$out
    [ -s "$out" ] && [ ! "$VM_VMLINUZ" -nt "$out" ] && return 0
    if [ ! -w "$VM_CACHE" ]; then VM_KERNEL=$VM_VMLINUZ; return 0; fi
    vm_lock
    if [ ! -s "$out" ] || [ "$VM_VMLINUZ" -nt "$out" ]; then
        # xz stream magic: FD 37 7A 58 5A 00
        off=$(LC_ALL=C grep -abo "$(printf '\3757zXZ')" "$VM_VMLINUZ" | head -n 1 | cut -d: -f1)
        if [ -n "$off" ] && { tail -c +$((off + 1)) "$VM_VMLINUZ" | xz -dcq > "$out.tmp.$$" 2>/dev/null; \
             [ "$(head -c 4 "$out.tmp.$$")" = "$(printf '\177ELF')" ]; }; then
            mv "$out.tmp.$$" "$out"
        else
            rm -f "$out.tmp.$$"
            vm_msg "could not extract vmlinux from $VM_VMLINUZ; booting the bzImage (slower)"
            VM_KERNEL=$VM_VMLINUZ
        fi
    fi
    vm_unlock
    return 0
}

# Where siw.ko for VM_KVER is (built by tests/vm/build-siw).
vm_siw_ko() { echo "$VM_CACHE/siw/$VM_KVER/siw.ko"; }

# Where vmw_pvrdma.ko for VM_KVER is (built by tests/vm/build-pvrdma).
vm_pvrdma_ko() { echo "$VM_CACHE/pvrdma/$VM_KVER/vmw_pvrdma.ko"; }
