// SPDX-License-Identifier: GPL-2.0-only
/*
 * kasan-tags PID 1: a tiny static init built against the kernel tree's own
 * tools/include/nolibc (no libc, no shell needed).
 *
 * It mounts proc, sysfs and debugfs, loads the lab modules from
 * /lib/modules, then does what the kernel command line asks for:
 *
 *   kt_cat=F,G     print files (e.g. /proc/meminfo) between markers
 *   kt_run=a,b,c   write to /sys/kernel/debug/kasan_lab/<name> for each
 *                  scenario in order ("list" prints the known ones)
 *   kt_exec=PROG   run /PROG (a static program in the initramfs) and wait
 *   kt_shell=1     start /bin/sh (busybox) on the console and wait for it
 *   kt_seed=N      the run's seed, handed to kasan_lab.ko as seed=N
 *   kt_sh=FILE     run /FILE with /bin/sh (busybox; the shell initramfs)
 *   kt_end_cat=F   print files, like kt_cat, after everything else
 *
 * It prints KT-INIT-START and KT-INIT-END markers that the host-side runner
 * (vm/kt.py) waits for, and powers the machine off.
 */

#define LAB_DIR "/sys/kernel/debug/kasan_lab/"
#define MAX_CMDLINE 4096

static char cmdline[MAX_CMDLINE];

static void say(const char *a, const char *b, const char *c)
{
	fputs(a, stdout);
	if (b)
		fputs(b, stdout);
	if (c)
		fputs(c, stdout);
	fputs("\n", stdout);
}

/* Return the value of "key=" in the command line, or NULL. */
static const char *param(const char *key)
{
	size_t len = strlen(key);
	char *p = cmdline;

	while (*p) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, key, len) && p[len] == '=')
			return p + len + 1;
		while (*p && *p != ' ')
			p++;
	}
	return NULL;
}

/* Copy one comma-separated item of @list into @buf; return the rest. */
static const char *next_item(const char *list, char *buf, size_t size)
{
	size_t n = 0;

	while (*list && *list != ',' && *list != ' ') {
		if (n + 1 < size)
			buf[n++] = *list;
		list++;
	}
	buf[n] = '\0';
	return *list == ',' ? list + 1 : NULL;
}

/* @buf = @a followed by @b, truncated to @size - 1 characters. */
static void join(char *buf, size_t size, const char *a, const char *b)
{
	size_t n = 0;

	while (*a && n + 1 < size)
		buf[n++] = *a++;
	while (*b && n + 1 < size)
		buf[n++] = *b++;
	buf[n] = '\0';
}

static int read_cmdline(void)
{
	int fd = open("/proc/cmdline", O_RDONLY, 0);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, cmdline, sizeof(cmdline) - 1);
	close(fd);
	if (n < 0)
		return -1;
	while (n > 0 && cmdline[n - 1] == '\n')
		n--;
	cmdline[n] = '\0';
	return 0;
}

static void cat(const char *path)
{
	char buf[512];
	ssize_t n;
	int fd = open(path, O_RDONLY, 0);

	if (fd < 0) {
		say("KT-ERROR cannot open ", path, "");
		return;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		write(1, buf, n);
	close(fd);
}

/* finit_module() is not wrapped by nolibc: call it directly. */
static void load_module(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY, 0);
	long ret;
	char num[24];

	if (fd < 0)
		return;
	ret = my_syscall3(__NR_finit_module, fd, params, 0);
	close(fd);
	i64toa_r(ret, num);
	say("KT-MODULE ", path, ret ? " FAILED" : " loaded");
	if (ret)
		say("KT-ERROR finit_module returned ", num, "");
}

/* Trigger one lab scenario through its debugfs file. */
static void run_scenario(const char *name)
{
	char path[128];
	int fd;

	join(path, sizeof(path), LAB_DIR, name);
	fd = open(path, O_WRONLY, 0);
	if (fd < 0) {
		say("KT-ERROR unknown scenario '", name,
		    "' (or the kasan_lab module is not loaded)");
		return;
	}
	say("KT-SCENARIO-BEGIN ", name, "");
	write(fd, "1\n", 2);
	close(fd);
	say("KT-SCENARIO-END ", name, "");
}

static void run_items(const char *list, void (*fn)(const char *))
{
	char item[128];

	while (list) {
		list = next_item(list, item, sizeof(item));
		if (!strcmp(item, "list"))
			cat(LAB_DIR "scenarios");
		else if (item[0])
			fn(item);
	}
}

static void cat_marked(const char *path)
{
	say("KT-CAT-BEGIN ", path, "");
	cat(path);
	say("KT-CAT-END ", path, "");
}

/* Run a program and wait for it; the console stays its stdin/stdout. */
static void spawn(const char *prog, const char *arg)
{
	char *const argv[] = { (char *)prog, (char *)arg, NULL };
	char *const envp[] = { "PATH=/bin", "HOME=/", "TERM=vt100", NULL };
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		setsid();
		ioctl(0, TIOCSCTTY, 0);
		execve(prog, argv, envp);
		say("KT-ERROR cannot execute ", prog, "");
		exit(127);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
}

/* A busybox script of the shell initramfs, between markers. */
static void sh_item(const char *name)
{
	char path[128];

	join(path, sizeof(path), "/", name);
	say("KT-SH-BEGIN ", path, "");
	spawn("/bin/sh", path);
	say("KT-SH-END ", path, "");
}

static void exec_item(const char *name)
{
	char path[128];

	join(path, sizeof(path), "/", name);
	say("KT-EXEC-BEGIN ", path, "");
	spawn(path, NULL);
	say("KT-EXEC-END ", path, "");
}

int main(int argc, char **argv)
{
	const char *arg;
	char seed[24], lab_params[32];

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	say("KT-INIT-START", NULL, NULL);
	if (read_cmdline())
		say("KT-ERROR cannot read /proc/cmdline", NULL, NULL);

	/* "seed=N": the value of kt_seed up to the next space */
	arg = param("kt_seed");
	next_item(arg ? arg : "0", seed, sizeof(seed));
	join(lab_params, sizeof(lab_params), "seed=", seed);
	load_module("/lib/modules/kasan_lab.ko", lab_params);
	/* They add scenarios to kasan_lab.ko: load them after it. */
	load_module("/lib/modules/kasan_student.ko", "");
	load_module("/lib/modules/kasan_mystery.ko", "");

	arg = param("kt_cat");
	if (arg)
		run_items(arg, cat_marked);
	arg = param("kt_run");
	if (arg)
		run_items(arg, run_scenario);
	arg = param("kt_exec");
	if (arg)
		run_items(arg, exec_item);
	arg = param("kt_sh");
	if (arg)
		run_items(arg, sh_item);
	if (param("kt_shell"))
		spawn("/bin/sh", NULL);
	arg = param("kt_end_cat");
	if (arg)
		run_items(arg, cat_marked);

	say("KT-INIT-END", NULL, NULL);
	reboot(LINUX_REBOOT_CMD_POWER_OFF);
	return 0;
}
