#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tests/integration/doctor_holder.py DEVICE N -- for test_doctor.sh: open
# DEVICE through libibverbs.so.1 (whichever LD_LIBRARY_PATH finds), turn
# fork safety on, register the middle page of N separate 3-page mappings
# (MADV_DONTFORK splits each into three), print "ready", and wait to be
# killed: a process that holds a uverbs file and DONTFORK ranges.
import ctypes
import mmap
import signal
import sys

c_void_p, c_int = ctypes.c_void_p, ctypes.c_int
lib = ctypes.CDLL("libibverbs.so.1", use_errno=True)
lib.ibv_get_device_list.restype = ctypes.POINTER(c_void_p)
lib.ibv_get_device_list.argtypes = [ctypes.POINTER(c_int)]
lib.ibv_get_device_name.restype = ctypes.c_char_p
lib.ibv_get_device_name.argtypes = [c_void_p]
lib.ibv_open_device.restype = c_void_p
lib.ibv_open_device.argtypes = [c_void_p]
lib.ibv_alloc_pd.restype = c_void_p
lib.ibv_alloc_pd.argtypes = [c_void_p]
lib.ibv_reg_mr.restype = c_void_p
lib.ibv_reg_mr.argtypes = [c_void_p, c_void_p, ctypes.c_size_t, c_int]


def die(what):
    print("doctor_holder: %s: %s" % (what, ctypes.get_errno()), flush=True)
    sys.exit(1)


name, count = sys.argv[1].encode(), int(sys.argv[2])
if lib.ibv_fork_init() != 0:
    die("ibv_fork_init")
num = c_int(0)
devs = lib.ibv_get_device_list(ctypes.byref(num))
dev = next((devs[i] for i in range(num.value)
            if lib.ibv_get_device_name(devs[i]) == name), None)
if dev is None:
    die("no device %s" % sys.argv[1])
ctx = lib.ibv_open_device(dev) or die("ibv_open_device")
pd = lib.ibv_alloc_pd(ctx) or die("ibv_alloc_pd")
page = mmap.PAGESIZE
keep = []
for _ in range(count):
    # MAP_SHARED anonymous: never merged with a neighbouring mapping
    m = mmap.mmap(-1, 3 * page)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(m)) + page
    mr = lib.ibv_reg_mr(pd, addr, page, 1) or die("ibv_reg_mr")  # LOCAL_WRITE
    keep.append((m, mr))
print("ready", flush=True)
signal.pause()
