# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/vm/common.sh -- shared by tests/vm/run, tests/vm/build-siw and
# tests/vm/check-vm (sourced, not executed).
#
# Kernel for the test VM: Debian's packages of the chosen kernel (see
# "which kernel" below) are unpacked (never installed) into the cache folder:
#
#   $SOFTVERBS_VM_CACHE              default /var/cache/softverbs-vm
#     kernels/<kver>/boot/vmlinuz-<kver>, lib/modules/<kver>/, source
#     vmlinux-<kver>                 uncompressed ELF kernel (PVH boot)
#     initramfs-<kver>-<hash>.cpio.gz
#     apt/<suite>/                   private apt lists of other suites (sid)
#     siw/<kver>/siw.ko              built by tests/vm/build-siw
#     siw/<kver>/build/              its out-of-tree build folder
#     headers/<kver>/                headers + kbuild of a kernel whose
#                                    headers cannot be installed on the host
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

# ---- which kernel ----------------------------------------------------------
# A kernel is named by a line ("6.1", "6.12", "7", "7.2": the newest Debian
# kernel of that line, -amd64 flavour) or by its exact version
# ("6.12.117+deb12-amd64", as uname -r prints it). tests/vm/run --kernel and
# SOFTVERBS_VM_KVER take either; nothing named means VM_DEFAULT_KERNEL.
# Where Debian keeps each line (apt suites, see vm_apt):
#   6.1    bookworm (the host's own sources): linux-image-6.1.0-N-amd64
#   6.12   bookworm-security (the host's): linux-image-6.12.N+deb12-amd64,
#          built with the host's gcc-12, so its headers install on the host
#   7.x    sid (a private apt list in the cache): linux-image-7.*+deb14-amd64
#          is a meta package; the kernel is in linux-binary-<kver>, the
#          modules in linux-modules-<kver>, both under /usr/lib/modules/<kver>,
#          and the config and modules.builtin in linux-base-<kver>
#   +deb13 trixie (a private apt list)
# A line resolves to the newest cached kernel of that line first (no
# network, and a cached kernel stays until removed), else to the newest in
# the suites. Every fetched kernel lives in its own folder:
#   $VM_CACHE/kernels/<kver>/boot/vmlinuz-<kver>, boot/config-<kver>
#   $VM_CACHE/kernels/<kver>/lib/modules/<kver>/  (+ depmod; /usr/lib/modules
#                                                 moved here: the host's kmod
#                                                 looks in lib/modules)
#   $VM_CACHE/kernels/<kver>/source               suite, package, version
# (Kernels fetched by earlier versions of this file, in $VM_CACHE/root/, are
# still used.)
VM_DEFAULT_KERNEL=${VM_DEFAULT_KERNEL:-6.12}

# vm_is_line SPEC: true for "6", "6.12" (a line), false for an exact version.
vm_is_line() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]]; }

# vm_in_line KVER LINE: KVER belongs to LINE (6.1 is not 6.12).
vm_in_line() { case "$1" in "$2".*|"$2"-*) return 0 ;; esac; return 1; }

# vm_kernel_suites SPEC: the apt suites to look in for SPEC, in order.
vm_kernel_suites() {
    case "$1" in
        *+deb14-*|*+deb15-*|[7-9]|[7-9].*|[1-9][0-9]*) echo sid ;;
        *+deb13-*) echo "trixie sid" ;;
        *) echo "host trixie" ;;
    esac
}

# vm_apt SUITE apt-get|apt-cache ARGS...: apt against one suite. "host" is
# the system's own sources; any other suite gets a private list under
# $VM_CACHE/apt/SUITE (the host's sources are never touched), fetched when
# missing or when "update" is asked for (vm_apt SUITE update). sid's Release
# file carries an expired Valid-Until, hence Check-Valid-Until=false.
VM_MIRROR=${SOFTVERBS_VM_MIRROR:-http://deb.debian.org/debian}
vm_apt() {
    local suite=$1 tool=$2 a
    shift 2
    if [ "$suite" = host ]; then
        [ "$tool" = update ] && return 0
        "$tool" "$@"
        return
    fi
    a=$VM_CACHE/apt/$suite
    local opts=(-o "Dir::Etc::SourceList=$a/sources.list" -o Dir::Etc::SourceParts=/nonexistent
                -o "Dir::State::Lists=$a/lists" -o "Dir::Cache::Archives=$a/archives"
                -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
                -o Acquire::Check-Valid-Until=false -o Acquire::Languages=none
                -o APT::Architecture=amd64 -o APT::Architectures=amd64)
    if [ "$tool" = update ] || ! ls "$a/lists/"*_Packages > /dev/null 2>&1; then
        mkdir -p "$a/lists/partial" "$a/archives/partial" 2> /dev/null ||
            { vm_msg "cannot write $a"; return 1; }
        echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $VM_MIRROR $suite main" \
            > "$a/sources.list"
        apt-get "${opts[@]}" -q update > "$a/update.log" 2>&1 ||
            { vm_msg "apt-get update of $suite failed (log: $a/update.log)"; return 1; }
        [ "$tool" = update ] && return 0
    fi
    "$tool" "${opts[@]}" "$@"
}

# vm_cached_kernels: exact versions of the kernels in the cache.
vm_cached_kernels() {
    local f
    for f in "$VM_CACHE"/kernels/*/boot/vmlinuz-* "$VM_CACHE"/root/boot/vmlinuz-*; do
        [ -e "$f" ] && echo "${f##*/vmlinuz-}"
    done
}

# vm_line_kernel LINE: the exact version LINE stands for (stdout).
vm_line_kernel() {
    local line=$1 v s
    for v in $(vm_cached_kernels | sort -V -r); do
        vm_in_line "$v" "$line" && { echo "$v"; return 0; }
    done
    command -v apt-cache > /dev/null || { vm_msg "no apt-cache to look up kernel $line"; return 1; }
    for s in $(vm_kernel_suites "$line"); do
        v=$(vm_apt "$s" apt-cache pkgnames "linux-image-$line" 2> /dev/null |
            sed -n 's/^linux-image-\([0-9][^ ]*-amd64\)$/\1/p' | grep -vE -- '-(cloud|rt)-amd64$' |
            while read -r k; do vm_in_line "$k" "$line" && echo "$k"; done | sort -V | tail -n 1)
        [ -n "$v" ] && { echo "$v"; return 0; }
    done
    vm_msg "no Debian kernel of line $line (suites: $(vm_kernel_suites "$line"); apt-get update?)"
    return 1
}

# vm_resolve_kernel: sets VM_KVER, VM_MODROOT (modprobe -d), VM_VMLINUZ.
# SPEC: $SOFTVERBS_VM_KVER, else $VM_DEFAULT_KERNEL. An exact version is
# looked for in the cache, then among the installed kernels
# (/boot/vmlinuz-<kver> with /lib/modules/<kver>/modules.dep), then fetched.
# Exports SOFTVERBS_VM_KVER=<exact version>, so that the scripts this one
# starts (build-siw, tests/vm/run under check-vm) agree without a lookup.
# Returns 1 with a message when nothing can be found or fetched.
vm_resolve_kernel() {
    local spec=${SOFTVERBS_VM_KVER:-$VM_DEFAULT_KERNEL}
    if vm_is_line "$spec"; then
        VM_KVER=$(vm_line_kernel "$spec") || return 1
    else
        VM_KVER=$spec
    fi
    if [ -e "$VM_CACHE/kernels/$VM_KVER/boot/vmlinuz-$VM_KVER" ]; then
        VM_MODROOT=$VM_CACHE/kernels/$VM_KVER
    elif [ -e "$VM_CACHE/root/boot/vmlinuz-$VM_KVER" ]; then
        VM_MODROOT=$VM_CACHE/root
    elif [ -e "/boot/vmlinuz-$VM_KVER" ] && [ -e "/lib/modules/$VM_KVER/modules.dep" ]; then
        VM_MODROOT=/
    else
        vm_fetch_kernel "$VM_KVER" || return 1
        VM_MODROOT=$VM_CACHE/kernels/$VM_KVER
    fi
    if [ "$VM_MODROOT" = / ]; then
        VM_VMLINUZ=/boot/vmlinuz-$VM_KVER
    else
        VM_VMLINUZ=$VM_MODROOT/boot/vmlinuz-$VM_KVER
    fi
    export SOFTVERBS_VM_KVER=$VM_KVER
    return 0
}

# vm_kernel_info KEY: what vm_fetch_kernel recorded about VM_KVER (suite,
# package, version); the host's apt for a kernel it did not fetch.
vm_kernel_info() {
    local f=$VM_CACHE/kernels/$VM_KVER/source
    if [ -s "$f" ]; then sed -n "s/^$1=//p" "$f"; return; fi
    case "$1" in
        suite) echo host ;;
        package) echo "linux-image-$VM_KVER" ;;
        version) dpkg-query -W -f='${Version}' "linux-image-$VM_KVER" 2> /dev/null ||
                 apt-cache show "linux-image-$VM_KVER" 2> /dev/null | sed -n 's/^Version: //p' | head -n 1 ;;
    esac
}

# vm_download SUITE DIR PKG...: apt-get download PKG... into DIR; on a miss
# the suite's list is refreshed once (a newer upload replaced it).
vm_download() {
    local s=$1 d=$2
    shift 2
    (cd "$d" && vm_apt "$s" apt-get download -q "$@" > "$d/download.log" 2>&1) && return 0
    [ "$s" = host ] && return 1
    vm_apt "$s" update && (cd "$d" && vm_apt "$s" apt-get download -q "$@" > "$d/download.log" 2>&1)
}

# vm_fetch_kernel KVER: download Debian's packages of kernel KVER (either
# layout), unpack them (never install), depmod, into $VM_CACHE/kernels/KVER.
vm_fetch_kernel() {
    local kver=$1 s pkgs=() layout='' dest=$VM_CACHE/kernels/$1 new deb ver t f
    if ! mkdir -p "$VM_CACHE/kernels" 2> /dev/null || [ ! -w "$VM_CACHE/kernels" ]; then
        vm_msg "cannot write the VM cache $VM_CACHE (run once as root, or set SOFTVERBS_VM_CACHE to a writable folder outside /tmp)"
        return 1
    fi
    for t in apt-get apt-cache dpkg-deb depmod; do
        command -v "$t" > /dev/null || { vm_msg "missing $t (needed to fetch kernel $kver)"; return 1; }
    done
    vm_lock
    if [ -e "$dest/boot/vmlinuz-$kver" ]; then vm_unlock; return 0; fi
    for s in $(vm_kernel_suites "$kver"); do
        if vm_apt "$s" apt-cache show "linux-binary-$kver" > /dev/null 2>&1; then
            layout=split pkgs=("linux-binary-$kver" "linux-modules-$kver")
            vm_apt "$s" apt-cache show "linux-base-$kver" > /dev/null 2>&1 && pkgs+=("linux-base-$kver")
        elif vm_apt "$s" apt-cache show "linux-image-$kver" > /dev/null 2>&1; then
            layout=image pkgs=("linux-image-$kver")
        else
            continue
        fi
        ver=$(vm_apt "$s" apt-cache show "${pkgs[0]}" 2> /dev/null | sed -n 's/^Version: //p' | sort -V | tail -n 1)
        break
    done
    if [ -z "$layout" ]; then
        vm_msg "no package linux-image-$kver or linux-binary-$kver in suites $(vm_kernel_suites "$kver") (apt-get update?)"
        vm_unlock; return 1
    fi
    vm_msg "fetching kernel $kver ($s: ${pkgs[*]}) into $dest (once)"
    new=$VM_CACHE/kernels/.new-$kver.$$
    rm -rf "$new" && mkdir -p "$new/debs" "$new/root" || { vm_unlock; return 1; }
    if ! vm_download "$s" "$new/debs" "${pkgs[@]/%/=$ver}"; then
        vm_msg "apt-get download ${pkgs[*]} ($s) failed: $(tail -n 2 "$new/debs/download.log" | tr '\n' ' ')"
        rm -rf "$new"; vm_unlock; return 1
    fi
    for deb in "$new/debs/"*.deb; do
        dpkg-deb -x "$deb" "$new/root" || { vm_msg "unpacking $deb failed"; rm -rf "$new"; vm_unlock; return 1; }
    done
    # One layout for the rest: boot/vmlinuz-<kver>, lib/modules/<kver>.
    if [ -d "$new/root/usr/lib/modules/$kver" ]; then
        mkdir -p "$new/root/boot" "$new/root/lib/modules"
        for f in vmlinuz config System.map; do
            [ -e "$new/root/usr/lib/modules/$kver/$f" ] &&
                mv "$new/root/usr/lib/modules/$kver/$f" "$new/root/boot/$f-$kver"
        done
        mv "$new/root/usr/lib/modules/$kver" "$new/root/lib/modules/$kver"
    fi
    [ -e "$new/root/lib/modules/$kver/modules.builtin" ] ||
        vm_msg "note: kernel $kver has no modules.builtin: drivers modprobe cannot find count as built in"
    if [ ! -e "$new/root/boot/vmlinuz-$kver" ] ||
       ! depmod -b "$new/root" "$kver" 2> "$new/depmod.log"; then
        vm_msg "kernel $kver: no boot/vmlinuz-$kver in ${pkgs[*]}, or depmod failed"
        rm -rf "$new"; vm_unlock; return 1
    fi
    printf 'suite=%s\npackage=%s\nversion=%s\nlayout=%s\n' "$s" "${pkgs[0]}" "$ver" "$layout" \
        > "$new/root/source"
    rm -rf "$dest" && mv "$new/root" "$dest" && rm -rf "$new" || { vm_unlock; return 1; }
    vm_unlock
    return 0
}

# vm_vmlinux: sets VM_KERNEL to the uncompressed ELF vmlinux of VM_VMLINUZ,
# extracting it into the cache once. Decompressing the bzImage's payload
# costs seconds of every TCG boot; the ELF inside has a PVH entry point
# (CONFIG_PVH=y) that QEMU's -kernel boots directly. The payload is found
# through the boot header (setup_sects at 0x1f1; payload_offset and
# payload_length at 0x248, from the protected-mode code at
# (setup_sects + 1) * 512), its format from its magic (6.1 packs xz, 6.12
# and 7.x zstd; gzip, bzip2, lzma, lzo and lz4 are the kernel's other
# choices); its last 4 bytes are the uncompressed size, which the result
# must have. Falls back to the bzImage when the extraction is impossible.
vm_vmlinux() {
    local out=$VM_CACHE/vmlinux-$VM_KVER
    VM_KERNEL=$out
    [ -s "$out" ] && [ ! "$VM_VMLINUZ" -nt "$out" ] && return 0
    if [ ! -w "$VM_CACHE" ]; then VM_KERNEL=$VM_VMLINUZ; return 0; fi
    vm_lock
    if [ ! -s "$out" ] || [ "$VM_VMLINUZ" -nt "$out" ]; then
        if vm_unpack_bzimage "$VM_VMLINUZ" "$out.tmp.$$"; then
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

# vm_unpack_bzimage BZIMAGE OUT: the ELF kernel inside BZIMAGE, into OUT.
vm_unpack_bzimage() {
    local in=$1 out=$2 sects poff plen magic size dec
    le() { od -An -tu"$3" -j "$2" -N "$3" "$1" | tr -d ' '; }
    [ "$(head -c 4 <(tail -c +$((0x202 + 1)) "$in"))" = HdrS ] || return 1
    sects=$(le "$in" $((0x1f1)) 1) poff=$(le "$in" $((0x248)) 4) plen=$(le "$in" $((0x24c)) 4)
    [ -n "$plen" ] && [ "$plen" -gt 4 ] || return 1
    poff=$(( (sects + 1) * 512 + poff ))
    magic=$(od -An -tx1 -j "$poff" -N 6 "$in" | tr -d ' \n')
    size=$(le "$in" $((poff + plen - 4)) 4)
    case "$magic" in
        fd377a585a00*) dec="xz -dcq" ;;
        28b52ffd*)     dec="zstd -dcq" ;;
        1f8b*)         dec="gzip -dcq" ;;
        425a68*)       dec="bzip2 -dcq" ;;
        5d0000*)       dec="xz --format=lzma -dcq" ;;
        894c5a4f*)     dec="lzop -dcq" ;;
        02214c18*)     dec="lz4 -dcq" ;;
        *) vm_msg "$in: unknown payload format (magic $magic)"; return 1 ;;
    esac
    command -v "${dec%% *}" > /dev/null || { vm_msg "missing ${dec%% *} to unpack $in"; return 1; }
    # (the decompressors complain about the 4-byte size trailer: judged by
    # the result instead)
    tail -c +$((poff + 1)) "$in" | head -c "$((plen - 4))" | $dec > "$out" 2> /dev/null
    [ "$(head -c 4 "$out")" = "$(printf '\177ELF')" ] && [ "$(stat -c %s "$out")" = "$size" ]
}

# ---- building modules out of tree (build-siw, build-pvrdma) ---------------
# vm_kernel_headers: sets VM_HDR (the folder to run make -C in, M=...) and
# VM_KMAKE (an array of make arguments) for VM_KVER. Nothing is installed
# on the host: linux-headers-<kver>, its -common and linux-kbuild are
# downloaded and unpacked into $VM_CACHE/headers/<kver>/ (the headers of
# Debian's newer kernels depend on their linux-image: an apt-get install
# would put a kernel and a boot entry on the host). A kernel of another
# suite than the host's needs more: its linux-kbuild binaries need that
# suite's C library and its headers name that suite's compiler (sid's 7.x:
# gcc-16, glibc >= 2.38). The kbuild programs the host cannot load run
# through that suite's own dynamic loader and C library (libc6, libelf1t64,
# zlib1g, libzstd1 unpacked beside them), the compiler is the host's gcc,
# and compiler features the kernel's gcc has and the host's lacks are
# turned off on the command line (-fmin-function-alignment falls back to
# -falign-functions); BTF of modules is skipped (no pahole).
# Returns 1 with a message on failure.
vm_kernel_headers() {
    local s h root k f pkgs deps ver t0
    s=$(vm_kernel_info suite)
    VM_KMAKE=()
    h=$VM_CACHE/headers/$VM_KVER root=$VM_CACHE/headers/$VM_KVER/root
    VM_HDR=$root/usr/src/linux-headers-$VM_KVER
    # (ready.3: every program that needs the suite's C library wrapped)
    if [ ! -e "$h/ready.3" ]; then
        mkdir -p "$h" 2> /dev/null && [ -w "$h" ] || { vm_msg "cannot write $h"; return 1; }
        t0=$(vm_now)
        ver=$(vm_kernel_info version)
        deps=$(vm_apt "$s" apt-cache depends "linux-headers-$VM_KVER=$ver" 2> /dev/null |
               sed -n 's/^ *Depends: \(linux-\(headers\|kbuild\)-[^ ]*\)$/\1/p')
        pkgs=("linux-headers-$VM_KVER=$ver")
        for k in $deps; do pkgs+=("$k=$ver"); done
        # another suite's kbuild programs need that suite's C library
        [ "$s" = host ] || pkgs+=(libc6 libelf1t64 zlib1g libzstd1)
        vm_msg "unpacking ${pkgs[*]} ($s) into $h"
        rm -rf "$h/debs" "$root" "$h/rt" && mkdir -p "$h/debs" "$root" "$h/rt" || return 1
        vm_download "$s" "$h/debs" "${pkgs[@]}" ||
            { vm_msg "apt-get download ${pkgs[*]} ($s) failed: $(tail -n 2 "$h/debs/download.log" | tr '\n' ' ')"; return 1; }
        for f in "$h/debs/"*.deb; do
            case "${f##*/}" in
                linux-*) dpkg-deb -x "$f" "$root" ;;
                *) dpkg-deb -x "$f" "$h/rt" ;;
            esac || { vm_msg "unpacking $f failed"; return 1; }
        done
        rm -rf "$h/debs"
        [ -e "$VM_HDR/Makefile" ] || { vm_msg "no Makefile in $VM_HDR"; return 1; }
        # the headers' Makefile includes the -common one by its absolute path
        sed -i "s|/usr/src/|$root/usr/src/|g" "$VM_HDR/Makefile"
        [ -e "$VM_HDR/vmlinux" ] && mv "$VM_HDR/vmlinux" "$VM_HDR/vmlinux.btf-off"
        local ld=$h/rt/usr/lib/x86_64-linux-gnu
        while IFS= read -r -d '' f; do
            [ "$(head -c 4 "$f")" = "$(printf '\177ELF')" ] || continue
            # (not `ldd | grep -q`: under pipefail, ldd killed by SIGPIPE
            # when grep has its line fails the test, and the program stayed
            # unwrapped: objtool.real-x86, whose first line says it)
            case $(ldd "$f" 2>&1) in *'not found'*) ;; *) continue ;; esac
            mv "$f" "$f.suite"
            # shellcheck disable=SC2016  # $0 and $@ are the wrapper's
            printf '#!/bin/sh\nexec %s/ld-linux-x86-64.so.2 --library-path %s "$0.suite" "$@"\n' \
                "$ld" "$ld" > "$f" && chmod 755 "$f"
        done < <(find "$root/usr/lib" -path '*linux-kbuild-*' -type f -perm -u+x -print0
                 # (7.2's objtool is in the headers package itself)
                 find "$root/usr/src" -type f -perm -u+x -print0)
        touch "$h/ready.3"
        vm_msg "headers ready in $(awk -v a="$t0" -v b="$(vm_now)" 'BEGIN{printf "%.1f", b-a}') s"
    fi
    VM_KMAKE=(CC=gcc)
    if grep -q '^CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT=y' "$VM_HDR/.config" 2> /dev/null &&
       ! gcc -fmin-function-alignment=16 -x c -c -o /dev/null /dev/null 2> /dev/null; then
        VM_KMAKE+=(CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT=)
    fi
    return 0
}

# vm_kernel_source DEST REL...: the folders REL... of linux-source-<series>
# of the kernel's own suite and upload (its version; the suite's newest when
# that one is gone), unpacked into DEST (the .deb is not kept).
vm_kernel_source() {
    local dest=$1 s ver series deb t0 r
    shift
    s=$(vm_kernel_info suite) ver=$(vm_kernel_info version)
    series=$(echo "$VM_KVER" | sed -n 's/^\([0-9]*\.[0-9]*\)[.-].*/\1/p')
    mkdir -p "$dest/debs" || return 1
    t0=$(vm_now)
    vm_msg "downloading linux-source-$series $ver ($s; only $* kept)"
    if ! vm_download "$s" "$dest/debs" "linux-source-$series=$ver"; then
        vm_msg "linux-source-$series $ver not in $s: taking its newest linux-source-$series"
        vm_download "$s" "$dest/debs" "linux-source-$series" ||
            { vm_msg "apt-get download linux-source-$series ($s) failed"; return 1; }
    fi
    deb=$(ls -1 "$dest/debs/linux-source-${series}"_*.deb | tail -n 1)
    mkdir -p "$dest/linux-source"
    local rels=()
    for r; do rels+=("linux-source-$series/$r"); done
    dpkg-deb --fsys-tarfile "$deb" |
        tar -xO "./usr/src/linux-source-$series.tar.xz" |
        tar -xJ -C "$dest/linux-source" --strip-components=1 "${rels[@]}" ||
        { vm_msg "extracting $* from $deb failed"; return 1; }
    rm -rf "$dest/debs"
    vm_msg "source extracted in $(awk -v a="$t0" -v b="$(vm_now)" 'BEGIN{printf "%.1f", b-a}') s"
}

# Where siw.ko for VM_KVER is (built by tests/vm/build-siw).
vm_siw_ko() { echo "$VM_CACHE/siw/$VM_KVER/siw.ko"; }

# Where vmw_pvrdma.ko for VM_KVER is (built by tests/vm/build-pvrdma).
vm_pvrdma_ko() { echo "$VM_CACHE/pvrdma/$VM_KVER/vmw_pvrdma.ko"; }
