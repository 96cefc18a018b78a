# Exercise 7.3: the stale pointer's way, with reverse execution.
# `make grade N=7` sources this file on a replay of the uaf-field scenario,
# halted at its first instruction.  The bad read went through a pointer
# that one function stored into a struct field and another loaded back.
#
# When this file ends, $load must hold the address of the load instruction
# that put the stale pointer into the register the bad read used, and
# $store the address of the store instruction that wrote it into the
# struct field; the grader prints both instructions (x/i) in its own gdb and
# compares them with kasan-why's answer.  Use reverse execution (the
# grader requires a reverse command).  A gdb watchpoint does not fire on a
# store through a tagged pointer: gdb drops the address's top byte, QEMU
# compares the tagged address -- `maint packet Z2,ADDR,8` (ADDR in hex,
# tag included) sets the watchpoint QEMU needs, `maint packet z2,ADDR,8`
# removes it.
# TODO 7.3: your gdb commands
break kasan_report
continue
delete
# kasan_report(addr, size, is_write, ip): ip, in x3, is the access itself,
# right after the outlined tag check; go back to that check
set $ip = $x3
tbreak *($ip - 4)
reverse-continue
python
import re
arch = gdb.selected_frame().architecture()
ip = int(gdb.parse_and_eval("$ip")) & (2**64 - 1)
# the access: ldrb w0, [xN]: the pointer is in xN
base = re.search(r"\[(x\d+)", arch.disassemble(ip)[0]["asm"]).group(1)
# the last load into xN before it: ldr xN, [xM, #off]
a = ip - 4
while a > ip - 400:
    asm = arch.disassemble(a)[0]["asm"]
    m = re.match(r"ldr\s+%s, \[(x\d+)(?:, #(-?\d+))?\]$" % base, asm)
    if m:
        break
    a -= 4
gdb.execute("set $load = 0x%x" % a)
lbase, loff = m.group(1), int(m.group(2) or 0)
end
tbreak *$load
reverse-continue
# at the load: the field's address, tag and all, from the base register
python
f = (int(gdb.parse_and_eval("$" + lbase)) + loff) & (2**64 - 1)
gdb.execute("maint packet Z2,%x,8" % f)
gdb.execute("reverse-continue")
gdb.execute("maint packet z2,%x,8" % f)
end
# QEMU stops just after the store
set $store = $pc - 4
x/i $load
x/i $store
# END TODO
