# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""gdb command for the symbols of loaded modules: kasan-modsyms.

The kernel's lx-symbols (scripts/gdb/linux/symbols.py) places a module's
symbols at the start of its core memory; kasan-modsyms places every
section where the module's sect_attrs say it is, so that breakpoints in an
outlined sw-tags module (.text.hot first) land on their instruction.
"""

import os

import gdb

from kasan import tags
from kasan.gdbutils import KasanCommand, kernel_dir


class KasanModSyms(KasanCommand):
    """Load symbols of loaded modules, placing every section: kasan-modsyms [DIR]

Like the kernel's lx-symbols, but gives add-symbol-file the address of the
module's .text section itself.  6.1's lx-symbols passes the start of the
module's core memory as the .text address, which is wrong whenever another
text section comes first -- and KASAN sw-tags modules whose checks are
outlined (the default, hwasan-inline-all-checks=0) start with .text.hot,
where clang puts the __hwasan_check_* routines, so
every breakpoint in the module would be off by the size of .text.hot.
Run it when the module is loaded (e.g. stopped in do_init_module).  DIR
defaults to the directory where kasan-tags builds its lab module for
this vmlinux (vm.module_dir of its build dir)."""

    name = "kasan-modsyms"

    def __init__(self):
        super().__init__(self.name, gdb.COMMAND_FILES, gdb.COMPLETE_FILENAME)

    def run(self, arg):
        from linux import modules  # the kernel's scripts/gdb/linux package
        import vm
        argv = gdb.string_to_argv(arg) or [vm.module_dir(kernel_dir())]
        if len(argv) != 1 or not os.path.isdir(argv[0]):
            raise tags.KasanError("usage: kasan-modsyms [DIR] (where the .ko files are; "
                                  "%s is not a directory)" % argv[0])
        done = 0
        for mod in modules.module_list():
            name = mod["name"].string()
            ko = os.path.join(argv[0], name.replace("-", "_") + ".ko")
            if not os.path.exists(ko):
                continue
            attrs = mod["sect_attrs"].dereference()
            sects = {attrs["attrs"][i]["battr"]["attr"]["name"].string():
                     int(attrs["attrs"][i]["address"]) for i in range(int(attrs["nsections"]))}
            if ".text" not in sects:
                raise tags.KasanError("module %s has no .text section address" % name)
            args = " ".join("-s %s 0x%x" % (n, a) for n, a in sorted(sects.items())
                            if n != ".text" and a)
            gdb.execute("add-symbol-file %s 0x%x %s" % (ko, sects[".text"], args),
                        to_string=True)
            gdb.write("loaded %s: .text at 0x%x (.text.hot at %s)\n" % (
                ko, sects[".text"], "0x%x" % sects[".text.hot"] if ".text.hot" in sects
                else "-"))
            done += 1
        if not done:
            raise tags.KasanError("no loaded module has a .ko in %s" % argv[0])


KasanModSyms()
