"""Exercises 1.1 and 1.2, live: sourced by ex-helpers.gdb at a kmalloc()
return, with the pointer in $obj.  Calls the student's tagmath.py and
prints each answer; for mem_to_shadow, also the byte gdb reads at the
address the student computed.  A broken answer prints an error line: the
grader marks it BAD, and the kernel section above still shows the truth."""

import importlib.util
import os

import gdb

from kasan import commands

HERE = os.path.dirname(os.path.abspath(__file__))


def student():
    spec = importlib.util.spec_from_file_location(
        "tagmath", os.path.join(HERE, "student", "tagmath.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def answer(name, fn, *args):
    try:
        v = fn(*args)
        print("%s: 0x%x" % (name, v))
        return v
    except Exception as e:  # noqa: BLE001 -- any error of the student's code is one line
        print("%s: error %s: %s" % (name, type(e).__name__, e))
        return None


def main():
    try:
        m = student()
    except Exception as e:  # noqa: BLE001
        print("load: error %s: %s" % (type(e).__name__, e))
        return
    ptr = int(gdb.parse_and_eval("(unsigned long)$obj"))
    answer("tag_of", m.tag_of, ptr)
    answer("untag", m.untag, ptr)
    answer("with_tag 0x42", m.with_tag, ptr, 0x42)
    offset = commands.kasan_params().offset
    for i in range(9):
        a = answer("mem_to_shadow granule %d" % i, m.mem_to_shadow, ptr + 16 * i, offset)
        if a is None:
            continue
        try:
            b = bytes(gdb.selected_inferior().read_memory(a, 1))[0]
            print("shadow byte granule %d: %02x" % (i, b))
        except (gdb.error, gdb.MemoryError, OverflowError, ValueError) as e:
            print("shadow byte granule %d: error %s" % (i, e))


main()
