# A busybox session for lab 8 (kt_sh=workload.sh, shell initramfs): the
# paths of the v9 cover letter's list that this kernel builds -- pipes
# between processes, rename of files and directories -- on the initramfs's
# own file system.  Every command is busybox's; nothing else is installed.
cd /tmp || exit 1
busybox echo hello > a
busybox cat a | busybox cat | busybox cat > b
busybox mv a c
busybox mv c b
busybox ln -s b d
busybox cat d > /dev/null
busybox mkdir e
busybox mv e f
busybox cp b g
busybox ls -l > /dev/null
busybox rm -r b d f g
echo workload done
