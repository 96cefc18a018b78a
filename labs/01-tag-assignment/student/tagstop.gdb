# Exercise 1.3: stop where the uaf scenario's object gets its tag, and show
# it.  `make grade N=1` runs this file on a halted swtags kernel booted with
# kt_run=uaf, then reads the same moment with kasan-tag and kasan-shadow.
#
# When this file ends, gdb must be stopped just after lab_uaf's kmalloc()
# has returned, with the returned pointer in $obj, and it must have printed
# (two hex digits each):
#   pointer tag: XX
#   memory tag: XX
#   shadow: XX XX XX XX XX XX XX XX XX
# the shadow of the object's 8 granules and of the granule after it.
# Use plain gdb (break, finish, printf, x); the shadow offset is
# CONFIG_KASAN_SHADOW_OFFSET in the kernel's .config, in the directory
# that `make -s builddir` prints.
# TODO 1.3: your gdb commands
break do_init_module
continue
kasan-modsyms
delete
break lab_uaf
continue
delete
tbreak *__kasan_kmalloc if $x2 == 128
continue
finish
set $obj = (unsigned long)$
set $shadow = (unsigned char *)((($obj | 0xff00000000000000) >> 4) + 0xefffffc000000000)
printf "pointer tag: %02x\n", $obj >> 56
printf "memory tag: %02x\n", $shadow[0]
printf "shadow: %02x %02x %02x %02x %02x %02x %02x %02x %02x\n", $shadow[0], $shadow[1], $shadow[2], $shadow[3], $shadow[4], $shadow[5], $shadow[6], $shadow[7], $shadow[8]
# END TODO
